# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel_offload role's checks across its variables, its MTU rule and its Open vSwitch declaration."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.datapath import tunnel_offload as t
from ansible_collections.offload.testbed.plugins.filter import tunnel_offload as f

# The VXLAN offload bench over ConnectX-3 Pro: ovs-vx with vxlan0 to 10.0.0.20, key 99, port 4789, enp4s0 at MTU 1550.
BENCH = {
    "bridge": "ovs-vx",
    "tunnels": [{"name": "vxlan0", "type": "vxlan", "remote_ip": "10.0.0.20", "key": 99, "dst_port": 4789}],
    "inner_mtu": 1500,
    "underlay": [{"device": "enp4s0", "features": {}}],
    "features": {"tx-udp_tnl-segmentation": True},
}


def test_the_bench_is_valid_and_its_underlay_gets_1550():
    assert t.validate(BENCH) == []
    assert t.underlay_requests(BENCH) == [
        {"device": "enp4s0", "namespace": None, "mtu": 1550, "features": {"tx-udp_tnl-segmentation": True}}]


def test_the_overhead_is_counted_header_by_header():
    # inner Ethernet 14 + VXLAN/Geneve 8 + UDP 8 + outer IPv4 20 or IPv6 40
    assert t.overhead("10.0.0.20") == 14 + 8 + 8 + 20 == 50
    assert t.overhead("fd00::20") == 14 + 8 + 8 + 40 == 70
    six = dict(BENCH, tunnels=[dict(BENCH["tunnels"][0], remote_ip="fd00::20")])
    assert t.underlay_mtu(six) == 1570
    assert t.underlay_mtu(dict(BENCH, inner_mtu=9000)) == 9050


def test_the_bridge_declaration_is_one_ovs_switch_bridge_with_the_tunnel_options_as_strings():
    config = dict(BENCH, bridge_ports=["vnet0"], datapath_type="system")
    assert t.switch(config) == {"bridges": [{
        "name": "ovs-vx", "datapath_type": "system",
        "ports": [{"name": "vxlan0", "type": "vxlan", "options": {"remote_ip": "10.0.0.20", "key": "99", "dst_port": "4789"}},
                  {"name": "vnet0"}]}]}
    geneve = dict(BENCH, tunnels=[{"name": "gnv0", "type": "geneve", "remote_ip": "10.0.0.20", "local_ip": "10.0.0.10", "dst_port": 6081}])
    port = t.switch(geneve)["bridges"][0]["ports"][0]
    assert port == {"name": "gnv0", "type": "geneve", "options": {"remote_ip": "10.0.0.20", "key": "0", "dst_port": "6081", "local_ip": "10.0.0.10"}}
    assert "datapath_type" not in t.switch(BENCH)["bridges"][0]


def test_an_entry_s_own_mtu_and_features_win():
    config = dict(BENCH, underlay=[{"device": "enp4s0", "mtu": 9000, "features": {"tx-udp_tnl-segmentation": False}, "namespace": "ns1"}])
    assert t.underlay_requests(config) == [
        {"device": "enp4s0", "namespace": "ns1", "mtu": 9000, "features": {"tx-udp_tnl-segmentation": False}}]


@pytest.mark.parametrize("change, message", [
    ({"tunnels": [{"name": "vxlan-far-end-of-it", "remote_ip": "10.0.0.20"}]},
     "tunnel_offload_tunnels[0].name: 'vxlan-far-end-of-it' is 19 characters long; the kernel takes at most 15 in the name of an "
     "Open vSwitch port of type vxlan, a port of the kernel datapath too"),
    ({"tunnels": [{"name": "vxlan0 ", "remote_ip": "10.0.0.20"}]},
     "tunnel_offload_tunnels[0].name: 'vxlan0 ' has trailing white space, which the kernel refuses"),
    ({"bridge": "ovs-vx-of-the-bench"}, "tunnel_offload_bridge: 'ovs-vx-of-the-bench' is 19 characters long; the kernel takes at most 15 "
                                        "in the name of an Open vSwitch bridge, a kernel interface too"),
    ({"bridge": " ovs-vx"}, "tunnel_offload_bridge: ' ovs-vx' has leading white space"),
    ({"bridge_ports": ["vnet0", "vnet1/0"]}, "tunnel_offload_bridge_ports[1]: 'vnet1/0' holds '/'"),
    ({"underlay": [{"device": "enp4s0 "}]}, "tunnel_offload_underlay[0].device: 'enp4s0 ' has trailing white space, which the kernel "
                                            "refuses in the name of the underlay's network device; write 'enp4s0'"),
    ({"underlay": [{"device": "enp4s0", "namespace": "ns 1"}]}, "tunnel_offload_underlay[0].namespace: 'ns 1' is no network namespace name"),
    ({"tunnels": [{"name": "v0", "remote_ip": "10.0.0.20"}, {"name": "v0", "remote_ip": "10.0.0.21"}]},
     "tunnel_offload_tunnels[1].name: 'v0' is given twice"),
    ({"tunnels": [{"name": "v0", "type": "gre", "remote_ip": "10.0.0.20"}]},
     "tunnel_offload_tunnels[0].type: 'gre' is not a tunnel type this role sets up; give one of vxlan, geneve"),
    ({"tunnels": [{"name": "v0", "remote_ip": "10.0.0.300"}]},
     "tunnel_offload_tunnels[0].remote_ip: '10.0.0.300' is not an IP address"),
    ({"tunnels": [{"name": "v0", "remote_ip": "10.0.0.20", "local_ip": "here"}]},
     "tunnel_offload_tunnels[0].local_ip: 'here' is not an IP address"),
    ({"tunnels": [{"name": "v0", "remote_ip": "10.0.0.20", "key": 16777216}]},
     "tunnel_offload_tunnels[0].key: 16777216 is not a VNI; give 0 to 16777215 (24 bits)"),
    ({"tunnels": [{"name": "v0", "remote_ip": "10.0.0.20", "dst_port": 0}]},
     "tunnel_offload_tunnels[0].dst_port: 0 is not a UDP port"),
    ({"inner_mtu": 10000}, "tunnel_offload_inner_mtu: 10000 is not an MTU; give 68 to 9000"),
    ({"underlay": [{"device": "enp4s0", "mtu": 1500}]},
     "tunnel_offload_underlay[0].mtu: 1500 is below the 1550 bytes a full-size inner packet needs"),
    ({"underlay": [{"device": "enp4s0"}, {"device": "enp4s0"}]}, "tunnel_offload_underlay[1].device: 'enp4s0' is given twice"),
    ({"mlx4_log_num_mgm_entry_size": 13}, "tunnel_offload_mlx4_log_num_mgm_entry_size: 13 is outside what mlx4_core takes; give -1"),
    ({"mlx4_log_num_mgm_entry_size": 0}, "tunnel_offload_mlx4_log_num_mgm_entry_size: 0 is outside"),
])
def test_each_bad_variable_is_named_with_its_value_and_the_fix(change, message):
    errors = t.validate(dict(BENCH, **change))
    assert any(e.startswith(message) for e in errors), errors


def test_every_error_is_reported_at_once():
    bad = dict(BENCH, inner_mtu=0, tunnels=[{"name": "", "remote_ip": "x", "key": -1, "dst_port": 70000}], mlx4_log_num_mgm_entry_size=99)
    assert len(t.validate(bad)) == 6


@pytest.mark.parametrize("value", [-1, 7, 10, 12, None])
def test_the_mlx4_values_the_driver_takes(value):
    assert t.validate(dict(BENCH, mlx4_log_num_mgm_entry_size=value)) == []


def test_the_filters_wrap_the_same_functions_and_refuse_what_is_not_a_dict():
    assert f.tunnel_offload_errors(BENCH) == []
    assert f.tunnel_offload_errors(dict(BENCH, inner_mtu=1), prefix="x_")[0].startswith("x_inner_mtu: 1")
    assert f.tunnel_offload_switch(BENCH) == t.switch(BENCH)
    assert f.tunnel_offload_underlay(BENCH) == t.underlay_requests(BENCH)
    with pytest.raises(Exception, match="expects a dict"):
        f.tunnel_offload_errors([])
    assert set(f.FilterModule().filters()) == {"tunnel_offload_errors", "tunnel_offload_switch", "tunnel_offload_underlay"}


def test_quoted_numbers_of_an_inventory_count_as_numbers():
    quoted = dict(BENCH, inner_mtu="1500", tunnels=[{"name": "vxlan0", "remote_ip": "10.0.0.20", "key": "99", "dst_port": "4789"}],
                  underlay=[{"device": "enp4s0", "mtu": "1600"}], mlx4_log_num_mgm_entry_size="-1")
    assert t.validate(quoted) == []
    assert t.underlay_requests(quoted)[0]["mtu"] == 1600
    assert t.switch(quoted)["bridges"][0]["ports"][0]["options"]["key"] == "99"
    assert t.validate(dict(BENCH, inner_mtu=True))[0].startswith("tunnel_offload_inner_mtu: True is not an MTU")
