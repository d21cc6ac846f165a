"""module_utils.topology.virtual_lab: validation, the switch model of real outputs, plans.

The parsers of the other outputs the lab reads are tested in test_ip.py,
test_ethtool.py and test_ovs_ofctl.py.
"""
import copy

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.topology import virtual_lab as vl
from ansible_collections.offload.testbed.tests.support.documents import replaced
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import lab_fixture as read

GOOD = {
    "bridge": "underlay", "datapath_type": "netdev", "fail_mode": "standalone", "mtu": 1500, "offloads_off": ["tx", "tso", "gso"],
    "networks": [{"name": "external", "cidr": "10.20.0.0/24", "vlan": 20},
                 {"name": "servers", "cidr": "192.168.0.0/24", "vlan": 30}],
    "namespaces": [
        {"name": "ltb-gen", "links": [{"name": "gen0", "peer": "ltb-gen0", "network": "external", "address": "10.20.0.3/24",
                                       "gateway": "10.20.0.2"}], "routes": [{"to": "48.0.0.0/8", "via": "10.20.0.2"}],
         "loopback": ["16.0.0.188/32"]},
        {"name": "ltb-srv1", "links": [{"name": "eth0", "peer": "ltb-srv1", "network": "servers", "address": "192.168.0.3/24"}]},
    ],
    "internal_ports": [{"name": "mgt", "network": "servers", "address": "192.168.0.2/24"}],
}


def bad(path, value):
    return replaced(GOOD, path, value)


def test_the_reference_lab_is_sound():
    assert vl.validate(GOOD) == []


@pytest.mark.parametrize("path, value, expected", [
    (("networks", 0, "cidr"), "10.20.0.0/33", "virtual_lab_networks[0].cidr: '10.20.0.0/33' (network external) is not a valid CIDR"),
    (("networks", 0, "cidr"), "10.20.0.1/24", "virtual_lab_networks[0].cidr: '10.20.0.1/24' (network external) is not a valid CIDR"),
    (("networks", 0, "vlan"), 0, "virtual_lab_networks[0].vlan: 0 (network external) is outside 1..4094"),
    (("networks", 1, "vlan"), 4095, "virtual_lab_networks[1].vlan: 4095 (network servers) is outside 1..4094"),
    (("namespaces", 1, "name"), "ltb-gen", "virtual_lab_namespaces[1].name: namespace 'ltb-gen' is declared twice"),
    (("namespaces", 1, "links", 0, "address"), "192.168.1.3/24",
     "virtual_lab_namespaces[1].links[0].address: 192.168.1.3/24 is outside its subnet 192.168.0.0/24 (network servers)"),
    (("namespaces", 1, "links", 0, "address"), "192.168.0.3/16",
     "virtual_lab_namespaces[1].links[0].address: 192.168.0.3/16 is outside its subnet 192.168.0.0/24"),
    (("namespaces", 1, "links", 0, "address"), "192.168.0.2/24",
     "virtual_lab_internal_ports[0].address: 192.168.0.2 is already used by virtual_lab_namespaces[1].links[0]"),
    (("namespaces", 0, "links", 0, "gateway"), "10.30.0.1",
     "virtual_lab_namespaces[0].links[0].gateway: 10.30.0.1 is outside the subnet 10.20.0.0/24"),
    (("namespaces", 0, "links", 0, "network"), "overlay", "virtual_lab_namespaces[0].links[0].network: 'overlay' is not declared"),
    (("namespaces", 0, "links", 0, "peer"), "a-name-longer-than-15", "virtual_lab_namespaces[0].links[0].peer: 'a-name-longer-than-15'"),
    (("namespaces", 1, "links", 0, "peer"), "ltb-gen0", "virtual_lab_namespaces[1].links[0].peer: host interface 'ltb-gen0' is already used"),
    (("namespaces", 0, "links", 0, "mac"), "50:54:00:00:00", "virtual_lab_namespaces[0].links[0].mac: '50:54:00:00:00' is not a MAC"),
    (("namespaces", 0, "routes", 0, "to"), "48.0.0.0/3", "virtual_lab_namespaces[0].routes[0].to: '48.0.0.0/3' is not a valid CIDR"),
    (("networks", 1, "cidr"), "10.20.0.128/25", "virtual_lab_networks: external (10.20.0.0/24) overlaps servers (10.20.0.128/25)"),
    (("mtu",), 20000, "virtual_lab_mtu: 20000 is outside 68..9216"),
    (("namespaces", 1, "loopback"), ["16.0.0.188"], "virtual_lab_namespaces[1].loopback[0]: 16.0.0.188 is already used by"),
    (("namespaces", 1, "loopback"), ["16.0.0.300/32"], "virtual_lab_namespaces[1].loopback[0]: '16.0.0.300/32' is not an address"),
    (("offloads_off",), ["tx", "lro2"], "virtual_lab_offloads_off: 'lro2' is not one of"),
])
def test_each_kind_of_bad_lab_is_named(path, value, expected):
    errors = vl.validate(bad(path, value), prefix="virtual_lab_")
    assert any(e.startswith(expected) for e in errors), errors


# The one rule for names of validate.py: kernel interface names for bridges, links, host ends and internal ports,
# ip netns names for namespaces, no white space around an OVN logical port name.
@pytest.mark.parametrize("path, value, expected", [
    (("bridge",), "underlay-of-the-lab", "virtual_lab_bridge: 'underlay-of-the-lab' is 19 characters long; the kernel takes at most 15 "
                                         "in the name of an Open vSwitch bridge, a kernel interface too (IFNAMSIZ 16 with the closing "
                                         "NUL): shorten it, for example to 'underlay-of-the'"),
    (("bridge",), "underlay ", "virtual_lab_bridge: 'underlay ' has trailing white space, which the kernel refuses in the name of an "
                               "Open vSwitch bridge, a kernel interface too; write 'underlay'"),
    (("networks", 0, "bridge"), "br-external-net", None),
    (("networks", 0, "bridge"), "br-external-nets", "virtual_lab_networks[0].bridge: 'br-external-nets' is 16 characters long"),
    (("namespaces", 0, "name"), "ltb-gen ", "virtual_lab_namespaces[0].name: 'ltb-gen ' has trailing white space, which would be part "
                                            "of the namespace's name (ip netns list shows it); write 'ltb-gen'"),
    (("namespaces", 0, "name"), "ltb/gen", "virtual_lab_namespaces[0].name: 'ltb/gen' is no network namespace name"),
    (("namespaces", 0, "links", 0, "name"), "gen0:1", "virtual_lab_namespaces[0].links[0].name: 'gen0:1' holds ':'; the kernel refuses "
                                                      "'/', ':' and white space in the name of an interface in a namespace"),
    (("namespaces", 0, "links", 0, "peer"), " ltb-gen0", "virtual_lab_namespaces[0].links[0].peer: ' ltb-gen0' has leading white space"),
    (("internal_ports", 0, "name"), "management-ports", "virtual_lab_internal_ports[0].name: 'management-ports' is 16 characters long; "
                                                        "the kernel takes at most 15 in the name of an Open vSwitch internal port"),
    (("internal_ports", 0, "iface_id"), "port1 ", "virtual_lab_internal_ports[0].iface_id: 'port1 ' has trailing white space, which the "
                                                  "database would keep as part of an OVN logical port name (external_ids:iface-id)"),
])
def test_names_follow_the_one_rule(path, value, expected):
    errors = vl.validate(bad(path, value), prefix="virtual_lab_")
    if expected is None:
        assert errors == []
    else:
        assert len(errors) == 1 and errors[0].startswith(expected), errors


@pytest.mark.parametrize("path, value, expected", [
    (("networks", 0, "vlan"), "20", None),
    (("networks", 0, "vlan"), "x", "virtual_lab_networks[0].vlan: 'x' (network external) is outside 1..4094"),
    (("networks", 0, "vlan"), True, "virtual_lab_networks[0].vlan: True (network external) is outside 1..4094"),
    (("namespaces", 0, "links", 0, "mac"), "51:54:00:00:00:06", "virtual_lab_namespaces[0].links[0].mac: '51:54:00:00:00:06' is a multicast address"),
    (("namespaces", 0, "links", 0, "mac"), "00:00:00:00:00:00", "virtual_lab_namespaces[0].links[0].mac: '00:00:00:00:00:00' is all zeros"),
    (("internal_ports", 0, "mac"), 505400000006, "virtual_lab_internal_ports[0].mac: 505400000006 is not a MAC address"),
])
def test_vlans_and_macs_follow_the_shared_rules(path, value, expected):
    errors = vl.validate(bad(path, value), prefix="virtual_lab_")
    if expected is None:
        assert errors == []
    else:
        assert [e for e in errors if e.startswith(expected)], errors


@pytest.mark.parametrize("via, expected", [
    ("10.99.0.1", "virtual_lab_namespaces[0].routes[0].via: 10.99.0.1 is on none of the links of namespace ltb-gen "
                  "(gen0 10.20.0.0/24); a route's gateway must be on a link, so use an address in one of those subnets"),
    ("192.168.0.1", "virtual_lab_namespaces[0].routes[0].via: 192.168.0.1 is on none of the links of namespace ltb-gen"),
    ("10.20.0.3", "virtual_lab_namespaces[0].routes[0].via: 10.20.0.3 is the address of link gen0 of namespace ltb-gen "
                  "itself; route via another host on that link"),
    ("fd00::1", "virtual_lab_namespaces[0].routes[0].via: fd00::1 is on none of the links of namespace ltb-gen"),
])
def test_a_route_via_off_every_link_is_refused(via, expected):
    errors = vl.validate(bad(("namespaces", 0, "routes", 0, "via"), via), prefix="virtual_lab_")
    assert len(errors) == 1 and errors[0].startswith(expected), errors


def test_a_route_of_a_namespace_without_addresses_says_so():
    lab = copy.deepcopy(GOOD)
    lab["namespaces"][1]["routes"] = [{"to": "16.0.0.0/16", "via": "192.168.0.1"}]
    del lab["namespaces"][1]["links"][0]["address"]
    assert vl.validate(lab, prefix="virtual_lab_") == [
        "virtual_lab_namespaces[1].routes[0].via: 192.168.0.1 is on none of the links of namespace ltb-srv1 "
        "(it has no link with an address); a route's gateway must be on a link, so use an address in one of those subnets"]


def test_a_route_via_is_not_checked_again_when_a_link_address_is_malformed():
    lab = bad(("namespaces", 0, "links", 0, "address"), "10.20.0.3")
    assert [e.split(": ", 1)[0] for e in vl.validate(lab)] == ["namespaces[0].links[0].address"]


def test_all_errors_are_reported_at_once():
    lab = bad(("networks", 0, "vlan"), 5000)
    lab["networks"][1]["cidr"] = "nonsense"
    errors = vl.validate(lab)
    assert len(errors) >= 2
    assert errors[0].startswith("networks[0].vlan: 5000")


def test_parse_ovs_state_of_a_real_switch():
    model = vl.parse_ovs_state(read("built_ovs_bridge.json"), read("built_ovs_port.json"), read("built_ovs_interface.json"))
    br = model["bridges"]["utb-br"]
    assert br["datapath_type"] == "netdev" and br["fail_mode"] == "standalone"
    assert br["external_ids"] == {"offload-testbed": "virtual_lab"}
    assert {"utb-br", "utb-a0", "utb-mgt"} <= br["ports"]
    port = model["ports"]["utb-a0"]
    assert (port["bridge"], port["tag"], port["interfaces"], port["trunks"], port["vlan_mode"]) == ("utb-br", 30, ["utb-a0"], [], None)
    assert model["interfaces"]["utb-a0"]["external_ids"] == {"offload-testbed": "virtual_lab"}
    assert model["interfaces"]["utb-mgt"]["type"] == "internal"
    assert model["ports"]["utb-br"]["tag"] is None


def empty_state():
    return {"netns": set(), "root_links": {}, "ns_links": {}, "ns_routes": {}, "features": {},
            "ovs": {"bridges": {}, "ports": {}, "interfaces": {}}}


def test_plan_moves_a_port_to_its_new_vlan_and_bridge():
    state = empty_state()
    state["ovs"]["bridges"]["underlay"] = {"datapath_type": "system", "fail_mode": "", "external_ids": {}, "ports": {"mgt"}}
    state["ovs"]["ports"]["mgt"] = {"bridge": "underlay", "tag": 10, "interfaces": ["mgt"]}
    lab = {"bridge": "underlay", "datapath_type": "netdev", "fail_mode": "standalone", "mtu": None, "offloads_off": [],
           "networks": [{"name": "servers", "cidr": "192.168.0.0/24", "vlan": 30}], "namespaces": [],
           "internal_ports": [{"name": "mgt", "network": "servers"}]}
    _pre, ovs, _post = vl.plan_present(lab, state)
    assert ["set", "Bridge", "underlay", "datapath_type=netdev", "fail_mode=standalone"] in ovs
    assert ["set", "Port", "mgt", "tag=30"] in ovs


def test_loopback_addresses_are_planned_on_lo():
    state = empty_state()
    pre, _ovs, _post = vl.plan_present(GOOD, state)
    assert ["ip", "-n", "ltb-gen", "addr", "add", "16.0.0.188/32", "dev", "lo"] in pre
    state["netns"] = {"ltb-gen"}
    state["ns_links"]["ltb-gen"] = {"lo": {"mtu": 65536, "mac": "", "up": True, "addresses": {"16.0.0.188/32"}}}
    pre, _ovs, _post = vl.plan_present(GOOD, state)
    assert ["ip", "-n", "ltb-gen", "addr", "add", "16.0.0.188/32", "dev", "lo"] not in pre


def test_absent_keeps_a_bridge_the_lab_did_not_make():
    state = empty_state()
    state["ovs"]["bridges"]["underlay"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {}, "ports": {"underlay"}}
    assert vl.plan_absent(GOOD, state) == ([], [], [])


def test_absent_keeps_a_marked_bridge_with_foreign_ports():
    state = empty_state()
    state["ovs"]["bridges"]["underlay"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {vl.MARK_KEY: vl.MARK_VALUE},
                                           "ports": {"underlay", "somebody-elses"}}
    _pre, ovs, _post = vl.plan_absent(GOOD, state)
    assert ["--if-exists", "del-br", "underlay"] not in ovs


def test_ovs_transaction_is_one_invocation():
    assert vl.ovs_transaction([]) is None
    assert vl.ovs_transaction([["add-br", "b"], ["set", "Bridge", "b", "x=y"]]) == [
        "ovs-vsctl", "--timeout=30", "--", "add-br", "b", "--", "set", "Bridge", "b", "x=y"]


DPDK_LAB = dict(copy.deepcopy(GOOD), port_type="dpdk")


def test_the_dpdk_port_type_puts_each_wire_on_dpdks_af_packet_driver_numbered_in_order():
    assert vl.dpdk_devargs(DPDK_LAB) == {"ltb-gen0": "net_af_packet0,iface=ltb-gen0", "ltb-srv1": "net_af_packet1,iface=ltb-srv1"}
    _pre, ovs, _post = vl.plan_present(DPDK_LAB, empty_state())
    assert ["add-port", "underlay", "ltb-gen0", "tag=20"] in ovs
    assert ["set", "Interface", "ltb-gen0", "type=dpdk", 'external_ids:offload-testbed="virtual_lab"',
            'options:dpdk-devargs="net_af_packet0,iface=ltb-gen0"'] in ovs
    assert ["set", "Interface", "mgt", "type=internal", 'external_ids:offload-testbed="virtual_lab"'] in ovs


def real_dpdk_state():
    """The switch as ovs-vsctl printed it on the virtual lab with lab_datapath=dpdk (the lab's five wires)."""
    state = empty_state()
    state["ovs"] = vl.parse_ovs_state(read("dpdk_ovs_bridge.json"), read("dpdk_ovs_port.json"), read("dpdk_ovs_interface.json"))
    return state


def test_a_real_dpdk_switch_reads_as_dpdk_ports_with_their_devargs():
    interfaces = real_dpdk_state()["ovs"]["interfaces"]
    assert interfaces["ltb-gen0"]["type"] == "dpdk"
    assert interfaces["ltb-gen0"]["options"] == {"dpdk-devargs": "net_af_packet1,iface=ltb-gen0"}
    assert interfaces["ltb-srv1"]["options"] == {"dpdk-devargs": "net_af_packet2,iface=ltb-srv1"}


def test_a_wire_already_on_its_dpdk_port_needs_no_ovs_change():
    """The lab's control and external wires (its first two, net_af_packet0 and 1) as they are on the real switch."""
    lab = dict(DPDK_LAB, internal_ports=[],
               networks=[{"name": "control", "cidr": "10.10.0.0/24", "vlan": 10}, {"name": "external", "cidr": "10.20.0.0/24", "vlan": 20}],
               namespaces=[{"name": "ltb-ctl", "links": [{"name": "ctl0", "peer": "ltb-ctl0", "network": "control", "address": "10.10.0.4/24"}]},
                           {"name": "ltb-gen", "links": [{"name": "gen0", "peer": "ltb-gen0", "network": "external", "address": "10.20.0.3/24"}]}])
    _pre, ovs, _post = vl.plan_present(lab, real_dpdk_state())
    assert [cmd for cmd in ovs if cmd[:2] in (["set", "Interface"], ["set", "Port"], ["add-port", "underlay"])] == []


def test_back_on_the_system_port_type_a_dpdk_wire_loses_its_type_and_devargs():
    state = real_dpdk_state()
    lab = dict(copy.deepcopy(GOOD), port_type="system")
    _pre, ovs, _post = vl.plan_present(lab, state)
    assert ["set", "Interface", "ltb-gen0", 'type=""'] in ovs
    assert ["remove", "Interface", "ltb-gen0", "options", "dpdk-devargs"] in ovs


def test_the_dpdk_port_type_needs_the_userspace_datapath():
    errors = vl.validate(dict(DPDK_LAB, datapath_type="system"), prefix="virtual_lab_")
    assert errors == ["virtual_lab_port_type: dpdk needs the userspace datapath, and virtual_lab_datapath_type is 'system'; "
                      "set virtual_lab_datapath_type: netdev"]
