# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/devlink.py: eswitch and ports, as text and JSON.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import (
    parse_devlink_eswitch, parse_devlink_eswitch_json, parse_devlink_ports, parse_devlink_ports_json)
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_devlink_eswitch_two_pfs():
    assert parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_two_pfs.txt')) == {
        'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
        'pci/0000:08:00.1': {'mode': 'legacy', 'inline-mode': 'none', 'encap-mode': 'basic'},
    }


def test_devlink_eswitch_old_iproute2():
    assert parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_old_iproute2.txt')) == {
        'pci/0000:05:00.0': {'mode': 'legacy'},
    }


def test_devlink_eswitch_mon_prefix_and_other_handles():
    # Variants of the fixture lines: a `devlink mon` prefix and non-PCI handles.
    text = '\n'.join([
        '[eswitch,get] pci/0000:08:00.0: mode switchdev inline-mode none encap-mode basic',
        'auxiliary/mlx5_core.eth.0: mode legacy',
        'netdevsim/netdevsim10: mode switchdev inline-mode none encap-mode none',
    ])
    assert parse_devlink_eswitch(text) == {
        'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
        'auxiliary/mlx5_core.eth.0': {'mode': 'legacy'},
        'netdevsim/netdevsim10': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'none'},
    }


@pytest.mark.parametrize('text', ['', None, 'devlink answers: Operation not supported\n', 'kernel answers: No such device\n'])
def test_devlink_eswitch_empty_or_garbage(text):
    assert parse_devlink_eswitch(text) == {}


def test_devlink_ports_mlx5_vf_rep():
    assert parse_devlink_ports(fixture('devlink_port_show_mlx5_vf_rep.txt')) == [{
        'handle': 'pci/0000:06:00.0/1',
        'type': 'eth',
        'netdev': 'pf0vf0',
        'flavour': 'pcivf',
        'controller': 0,
        'pfnum': 0,
        'vfnum': 0,
        'external': False,
        'splittable': False,
        'hw_addr': '00:00:00:00:00:00',
        'function': {'hw_addr': '00:00:00:00:00:00', 'roce': 'enable'},
    }]


def test_devlink_ports_ice_switchdev():
    ports = parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))
    assert ports == [
        {
            'handle': 'pci/0000:08:00.0/0',
            'type': 'eth',
            'netdev': 'enp8s0f0np0',
            'flavour': 'physical',
            'port': 0,
            'splittable': True,
            'lanes': 8,
            'pfnum': None,
            'vfnum': None,
            'hw_addr': None,
        },
        {
            'handle': 'pci/0000:08:00.0/2',
            'type': 'eth',
            'netdev': 'enp8s0f0npf0vf0',
            'flavour': 'pcivf',
            'controller': 0,
            'pfnum': 0,
            'vfnum': 0,
            'external': False,
            'splittable': False,
            'hw_addr': '1a:33:f2:e7:64:d8',
            'function': {'hw_addr': '1a:33:f2:e7:64:d8'},
        },
    ]
    assert isinstance(ports[1]['pfnum'], int) and isinstance(ports[1]['vfnum'], int)


@pytest.mark.parametrize('text', ['', None, 'garbage\n  function:\n    hw_addr 00:11:22:33:44:55\n'])
def test_devlink_ports_empty_or_garbage(text):
    assert parse_devlink_ports(text) == []


# devlink -j output. NOT captured: built from the keys iproute2's devlink
# prints (sections "dev" and "port", the same attribute names as the text
# output), with values from the text fixtures.
ESWITCH_JSON = json.dumps({'dev': {
    'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
    'pci/0000:08:00.1': {'mode': 'legacy', 'inline-mode': 'none', 'encap-mode': 'basic'},
}})
PORTS_JSON = json.dumps({'port': {
    'pci/0000:08:00.0/0': {'type': 'eth', 'netdev': 'enp8s0f0np0', 'flavour': 'physical', 'port': 0, 'splittable': True, 'lanes': 8},
    'pci/0000:08:00.0/2': {'type': 'eth', 'netdev': 'enp8s0f0npf0vf0', 'flavour': 'pcivf', 'controller': 0, 'pfnum': 0, 'vfnum': 0,
                           'external': False, 'splittable': False, 'function': {'hw_addr': '1a:33:f2:e7:64:d8'}},
}})


def test_devlink_eswitch_json_matches_text():
    assert parse_devlink_eswitch_json(ESWITCH_JSON) == parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_two_pfs.txt'))


def test_devlink_eswitch_json_mode_only_and_extra_keys():
    text = json.dumps({'dev': {'netdevsim/netdevsim1': {'mode': 'legacy'}, 'auxiliary/x.0': {'encap': 'enable'}}})
    assert parse_devlink_eswitch_json(text) == {
        'netdevsim/netdevsim1': {'mode': 'legacy'},
        'auxiliary/x.0': {'mode': None, 'encap': 'enable'},
    }


def test_devlink_ports_json_matches_text():
    assert parse_devlink_ports_json(PORTS_JSON) == parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))


def test_devlink_ports_json_accepts_decoded_dict():
    ports = parse_devlink_ports_json(json.loads(PORTS_JSON))
    assert [p['handle'] for p in ports] == ['pci/0000:08:00.0/0', 'pci/0000:08:00.0/2']
    assert ports[1]['hw_addr'] == '1a:33:f2:e7:64:d8'


@pytest.mark.parametrize('text', ['', None, 'not json', '[1, 2]', '{"dev": []}', '{"other": {}}'])
def test_devlink_json_empty_or_garbage(text):
    assert parse_devlink_eswitch_json(text) == {}
    assert parse_devlink_ports_json(text) == []
