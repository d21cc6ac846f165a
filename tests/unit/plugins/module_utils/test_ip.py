# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/ip.py, on outputs captured from a lab
the virtual_lab_net module built (tests/unit/plugins/modules/fixtures/virtual_lab)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.parse.ip import parse_ip_addr_json, parse_ip_route_json, parse_netns_list
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import lab_fixture as read


def test_netns_list():
    assert parse_netns_list("utb-a (id: 3)\nltb-gen\n") == {"utb-a", "ltb-gen"}
    assert "utb-a" in parse_netns_list(read("built_netns_list.txt"))
    assert parse_netns_list(read("empty_netns_list.txt")) == set()
    assert parse_netns_list(None) == set()


def test_addr_json_keeps_global_addresses_only():
    links = parse_ip_addr_json(read("built_ns_addr.json"))
    assert links["eth0"] == {"mtu": 1500, "mac": "50:54:00:00:00:0a", "up": True, "addresses": {"192.168.70.3/24"}}
    assert links["lo"]["addresses"] == set()
    assert "lo" in parse_ip_addr_json(read("built_ip_addr.json"))


def test_addr_json_empty():
    assert parse_ip_addr_json("") == {}
    assert parse_ip_addr_json(None) == {}
    assert parse_ip_addr_json("[]") == {}


def test_route_json():
    assert parse_ip_route_json(read("built_ns_route.json"))["default"] == "192.168.70.1"
    assert parse_ip_route_json("  \n") == {}
    assert parse_ip_route_json('[{"dst": "16.0.0.0/8", "gateway": "10.20.0.2"}, {"dst": "10.20.0.0/24"}]') == {
        "16.0.0.0/8": "10.20.0.2", "10.20.0.0/24": None}
