# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/ovs_dpctl.py: ``dpctl/dump-flows``.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_dump_flows_cx6_tc():
    flows = parse_dump_flows(fixture('ovs_dpctl_dump_flows_offloaded_cx6_tc.txt'))
    assert flows == [
        {
            'match': 'recirc_id(0),in_port(3),eth(src=88:2a:5e:a9:30:af,dst=08:c0:eb:3e:84:82),eth_type(0x0800),ipv4(frag=no)',
            'packets': 57110,
            'bytes': 7618112,
            'used': '0.250s',
            'offloaded': None,
            'dp': None,
            'actions': '2',
            'ufid': None,
        },
        {
            'match': 'recirc_id(0),in_port(3),eth(src=88:2a:5e:a9:30:c6,dst=01:80:c2:00:00:0e),eth_type(0x88cc)',
            'packets': 0,
            'bytes': 0,
            'used': '6.420s',
            'offloaded': None,
            'dp': None,
            'actions': 'drop',
            'ufid': None,
        },
    ]


def test_dump_flows_m_dummy_offload():
    assert parse_dump_flows(fixture('ovs_dpctl_dump_flows_m_dummy_offload.txt')) == [{
        'match': 'recirc_id(0),in_port(p1),packet_type(ns=0,id=0),eth(),eth_type(0x0800),ipv4(),udp()',
        'packets': 1,
        'bytes': 106,
        'used': '0.0s',
        'offloaded': 'yes',
        'dp': 'dummy',
        'actions': 'p2',
        'ufid': None,
    }]


def test_dump_flows_ufid_doca_partial_and_headers():
    # Variant of the -m fixture: a ufid prefix, dp:doca, a partial flow with
    # flags, and the "flow-dump from" header lines OVS prints per thread.
    line = fixture('ovs_dpctl_dump_flows_m_dummy_offload.txt').strip()
    text = '\n'.join([
        'flow-dump from the main thread:',
        'ufid:2b2a6a7e-7c4c-4d69-9f8c-6b6e0c2a5f11, ' + line.replace('dp:dummy', 'dp:doca'),
        'flow-dump from pmd on cpu core: 2',
        line.replace('offloaded:yes, dp:dummy', 'flags:SP., offloaded:partial, dp:ovs').replace('actions:p2', 'actions:set(eth(src=00:00:00:00:00:01)),p2'),
    ])
    flows = parse_dump_flows(text)
    assert len(flows) == 2
    assert flows[0]['ufid'] == '2b2a6a7e-7c4c-4d69-9f8c-6b6e0c2a5f11'
    assert flows[0]['match'].startswith('recirc_id(0),in_port(p1)')
    assert flows[0]['dp'] == 'doca'
    assert flows[0]['offloaded'] == 'yes'
    assert flows[1]['offloaded'] == 'partial'
    assert flows[1]['dp'] == 'ovs'
    assert flows[1]['actions'] == 'set(eth(src=00:00:00:00:00:01)),p2'


@pytest.mark.parametrize('text', ['', None, 'flow-dump from the main thread:\n', 'ovs-vswitchd: datapath not found (Invalid argument)\n'])
def test_dump_flows_empty_or_garbage(text):
    assert parse_dump_flows(text) == []
