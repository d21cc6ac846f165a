# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/ovs_ofctl.py: ``ovs-ofctl dump-ports``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_ofctl import parse_ofctl_port_stats
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import lab_fixture


def test_dump_ports_of_a_real_port():
    stats = parse_ofctl_port_stats(lab_fixture("ofctl_dump_ports.txt"))
    assert stats == {"rx_packets": 2, "rx_bytes": 176, "tx_packets": 3, "tx_bytes": 270}


def test_dump_ports_empty_or_garbage():
    assert parse_ofctl_port_stats("") == {}
    assert parse_ofctl_port_stats(None) == {}
    assert parse_ofctl_port_stats("ovs-ofctl: utb-br is not a bridge or a socket\n") == {}
