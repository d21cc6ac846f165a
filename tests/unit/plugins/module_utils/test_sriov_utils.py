# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/sriov.py over the verbatim devlink fixtures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import parsers, sriov

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.mark.parametrize('mode, numvfs, want, steps', [
    ('legacy', 0, 8, [('mode', 'switchdev'), ('numvfs', 8)]),
    ('legacy', 8, 8, [('numvfs', 0), ('mode', 'switchdev'), ('numvfs', 8)]),
    ('switchdev', 4, 8, [('numvfs', 0), ('numvfs', 8)]),
    ('switchdev', 8, 8, []),
    ('switchdev', 8, 0, [('numvfs', 0)]),
])
def test_plan_eswitch_order(mode, numvfs, want, steps):
    assert sriov.plan_eswitch(mode, numvfs, want) == steps


def test_eswitch_mode_from_the_fixtures():
    text = fixture('devlink_dev_eswitch_show_two_pfs.txt')
    assert sriov.eswitch_mode('pci/0000:08:00.0', text, False) == 'switchdev'
    assert sriov.eswitch_mode('pci/0000:08:00.1', text, False) == 'legacy'
    assert sriov.eswitch_mode('pci/0000:05:00.0', fixture('devlink_dev_eswitch_show_old_iproute2.txt'), False) == 'legacy'
    assert sriov.eswitch_mode('pci/0000:09:00.0', text, False) is None
    as_json = json.dumps({'dev': {'pci/0000:08:00.1': {'mode': 'switchdev'}}})
    assert sriov.looks_like_json(as_json) and not sriov.looks_like_json(text)
    assert sriov.eswitch_mode('pci/0000:08:00.1', as_json, True) == 'switchdev'


def test_representors_from_the_fixtures():
    mlx5 = parsers.parse_devlink_ports(fixture('devlink_port_show_mlx5_vf_rep.txt'))
    assert sriov.representors(mlx5, 'pci/0000:06:00.0', 1) == {0: 'pf0vf0'}
    assert sriov.representors(mlx5, 'pci/0000:06:00.1', 1) == {}
    ice = parsers.parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))
    assert sriov.representors(ice, 'pci/0000:08:00.0', 2) == {0: 'enp8s0f0npf0vf0'}


def test_vf_table_and_link_state():
    link = json.dumps([{'ifname': 'ens3f0np0', 'flags': ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], 'address': '0C:42:A1:00:00:01',
                        'vfinfo_list': [{'vf': 0, 'address': '50:54:00:00:00:06'}, {'vf': 1, 'address': '00:00:00:00:00:00'}]}])
    assert sriov.vf_table(link) == {0: '50:54:00:00:00:06', 1: '00:00:00:00:00:00'}
    assert sriov.link_state(link) == {'address': '0c:42:a1:00:00:01', 'up': True}
    assert sriov.link_state('[]') is None and sriov.vf_table('not json') == {}


def test_macs():
    macs, errors = sriov.normalize_macs({'0': '50:54:00:00:00:06', 1: 'B2:23:54:C4:4C:CF'}, 8)
    assert macs == {0: '50:54:00:00:00:06', 1: 'b2:23:54:c4:4c:cf'} and errors == []
    unused, errors = sriov.normalize_macs({0: '51:54:00:00:00:06', 9: '50:54:00:00:00:07', 2: 'nope', 3: '50:54:00:00:00:07'}, 8)
    assert errors == [
        'sriov_switchdev_vf_macs[0]: 51:54:00:00:00:06 is a multicast address; a VF needs a unicast MAC (even first byte)',
        'sriov_switchdev_vf_macs[9]: VF 9 does not exist with 8 VFs (indexes 0..7)',
        "sriov_switchdev_vf_macs[2]: 'nope' is not a MAC address such as 50:54:00:00:00:06",
        'sriov_switchdev_vf_macs: VFs 3 and 9 have the same MAC 50:54:00:00:00:07',
    ]


def test_request_errors():
    assert sriov.request_errors([{'name': 'ens3f0np0'}], 8, {0: '50:54:00:00:00:06'}) == []
    assert sriov.request_errors([], 8, {})[0].startswith('sriov_switchdev_pfs is empty')
    errors = sriov.request_errors([{'name': 'a'}, {'name': 'a', 'numvfs': 1, 'vf_macs': {1: '50:54:00:00:00:06'}}, {}], 0, {})
    assert errors == ['sriov_switchdev_pfs[1]: PF a is listed twice',
                      'sriov_switchdev_pfs[1].vf_macs[1]: VF 1 does not exist with 1 VFs (indexes 0..0)',
                      'sriov_switchdev_pfs[2] has no name']


def test_pf_stem_matches_vfs_and_representors():
    assert sriov.pf_stem('ens3f0np0') == 'ens3f0' and sriov.pf_stem('eth2') == 'eth2'
