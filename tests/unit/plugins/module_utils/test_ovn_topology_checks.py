"""ovn_topology refuses, before any command, declarations that can never work:
VLAN tags outside 1..4094 (the shared rule of validate.py, as the ovs,
virtual_lab and trex_server roles apply it) and NAT rules whose logical
address the router could never deliver to. Every message names the object
as the user wrote it, the bad value and the fix."""
import copy
import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn as ot
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_schema

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "modules", "fixtures", "ovn_topology")

with open(os.path.join(FIXTURES, "seed_topology.json")) as handle:
    SEED = json.load(handle)

LR0_NETWORKS = "p1 192.168.0.0/24, ext_gw 10.20.0.0/24"
LR0_ROUTES = "48.0.0.0/16, 16.0.0.0/16"


def seed():
    return copy.deepcopy(SEED)


def errors_of(params):
    with pytest.raises(ovn_schema.TopologyError) as exc:
        ovn_schema.validate(params)
    return exc.value.errors


def nat(ntype, external_ip, logical_ip):
    return {"type": ntype, "external_ip": external_ip, "logical_ip": logical_ip}


# -- VLAN tags -------------------------------------------------------------------------------------

@pytest.mark.parametrize("switch, port, tag", [
    (1, 1, 0),      # the router port downlink
    (1, 1, 4095),
    (1, 0, 0),      # the localnet port internet
    (1, 0, 4095),
    (1, 0, -1),
    (1, 0, 5000),
])
def test_vlan_tag_outside_1_4094_is_refused(switch, port, tag):
    params = seed()
    params["switches"][switch]["ports"][port]["tag"] = tag
    name = params["switches"][switch]["ports"][port]["name"]
    assert errors_of(params) == [
        "switches[external].ports[%s].tag: %d is outside 1..4094; leave it unset for untagged" % (name, tag)]


@pytest.mark.parametrize("tag", [1, 20, 4094, "30"])
def test_vlan_tags_1_to_4094_are_accepted(tag):
    params = seed()
    params["switches"][1]["ports"][0]["tag"] = tag
    assert ovn_schema.validate(params)["switches"]["external"]["ports"]["internet"]["tag"] == int(tag)


def test_vlan_tag_message_is_the_shared_rule():
    from ansible_collections.offload.testbed.plugins.module_utils.host.validate import vlan_id
    params = seed()
    params["switches"][1]["ports"][1]["tag"] = 0
    assert errors_of(params) == [vlan_id("switches[external].ports[downlink].tag", 0)]


# -- NAT rules: the logical side must be reachable ------------------------------------------------

def test_dnat_to_an_address_the_router_cannot_reach_is_refused():
    params = seed()
    params["routers"][0]["nat"].append(nat("dnat_and_snat", "18.0.0.189", "17.0.0.189"))
    assert errors_of(params) == [
        "routers[lr0].nat[1].logical_ip: 17.0.0.189 is in no network of router lr0 (%s) and under none of its static "
        "routes (%s), so the router could never deliver the translated packets; use an address in one of those networks "
        "or add a static route toward 17.0.0.189" % (LR0_NETWORKS, LR0_ROUTES)]


def test_snat_of_a_network_the_router_cannot_reach_is_refused():
    params = seed()
    params["routers"][0]["nat"].append(nat("snat", "10.20.0.2", "10.99.0.0/24"))
    assert errors_of(params) == [
        "routers[lr0].nat[1].logical_ip: 10.99.0.0/24 overlaps no network of router lr0 (%s) and none of its static "
        "routes (%s), so the router could never deliver the translated packets; use an address in one of those networks "
        "or add a static route toward 10.99.0.0/24" % (LR0_NETWORKS, LR0_ROUTES)]


def test_a_router_without_routes_says_so():
    params = seed()
    params["routers"][0]["static_routes"] = []
    params["routers"][0]["nat"] = [nat("dnat", "18.0.0.188", "16.0.0.188")]
    assert errors_of(params) == [
        "routers[lr0].nat[0].logical_ip: 16.0.0.188 is in no network of router lr0 (%s) and under none of its static "
        "routes (it has none), so the router could never deliver the translated packets; use an address in one of those "
        "networks or add a static route toward 16.0.0.188" % LR0_NETWORKS]


def test_a_discard_route_does_not_reach_the_address():
    params = seed()
    params["routers"][0]["static_routes"] = [{"prefix": "16.0.0.0/16", "nexthop": "discard"}]
    message = errors_of(params)[0]
    assert message.startswith("routers[lr0].nat[0].logical_ip: 16.0.0.188 is in no network of router lr0")
    assert "under none of its static routes (it has none)" in message


@pytest.mark.parametrize("change", [
    # the reference bench: 16.0.0.188 lies behind the route 16.0.0.0/16 via 192.168.0.3, and the
    # external 18.0.0.188 is in no network of lr0 (the generator routes it to 10.20.0.2)
    lambda params: None,
    # in a port's network
    lambda params: params["routers"][0]["nat"].append(nat("dnat_and_snat", "18.0.0.190", "192.168.0.4")),
    lambda params: params["routers"][0]["nat"].append(nat("snat", "10.20.0.2", "192.168.0.0/24")),
    # a wider SNAT network that holds a port's network
    lambda params: params["routers"][0]["nat"].append(nat("snat", "10.20.0.2", "192.168.0.0/16")),
    # an SNAT network inside a route's prefix
    lambda params: params["routers"][0]["nat"].append(nat("snat", "10.20.0.2", "16.0.4.0/24")),
    # a default route reaches everything
    lambda params: params["routers"][0].update(static_routes=[{"prefix": "0.0.0.0/0", "nexthop": "10.20.0.1"}],
                                               nat=[nat("dnat", "18.0.0.188", "172.16.0.1")]),
    # a src-ip route forwards by source, to any destination
    lambda params: params["routers"][0].update(static_routes=[{"prefix": "48.0.0.0/16", "nexthop": "10.20.0.3", "policy": "src-ip"}],
                                               nat=[nat("dnat", "18.0.0.188", "172.16.0.1")]),
])
def test_nat_rules_the_router_can_deliver_are_accepted(change):
    params = seed()
    change(params)
    assert ovn_schema.validate(params)["routers"]["lr0"]["nat"]


def test_ipv6_nat_needs_an_ipv6_network_or_route():
    params = seed()
    params["routers"][0]["nat"] = [nat("dnat_and_snat", "fd00:18::188", "fd00:16::188")]
    assert errors_of(params)[0].startswith("routers[lr0].nat[0].logical_ip: fd00:16::188 is in no network of router lr0")
    params["routers"][0]["ports"][0]["networks"].append("fd00:16::1/64")
    assert ovn_schema.validate(params)["routers"]["lr0"]["nat"]


def test_every_error_is_reported_at_once_with_its_path():
    params = seed()
    params["switches"][1]["ports"][0]["tag"] = 4095
    params["switches"][1]["ports"][1]["tag"] = 0
    params["routers"][0]["nat"].append(nat("dnat_and_snat", "18.0.0.189", "17.0.0.189"))
    params["routers"][0]["nat"].append(nat("dnat_and_snat", "18.0.0.190", "nope"))
    errors = errors_of(params)
    assert [e.split(": ", 1)[0] for e in errors] == [
        "routers[lr0].nat[1].logical_ip",
        "routers[lr0].nat[2].logical_ip",
        "switches[external].ports[internet].tag",
        "switches[external].ports[downlink].tag",
    ]
    assert errors[1] == "routers[lr0].nat[2].logical_ip: 'nope' is not an IP address"


def test_the_module_refuses_before_reading_the_database():
    params = dict(seed(), ovn_nbctl="ovn-nbctl")
    params["switches"][1]["ports"][1]["tag"] = 4095

    def run(argv):
        raise AssertionError("no command may run: %r" % (argv,))

    with pytest.raises(ot.ApplyError) as exc:
        ot.apply_topology(params, run)
    assert exc.value.msg == ("invalid OVN topology: 1 error(s): "
                             "switches[external].ports[downlink].tag: 4095 is outside 1..4094; leave it unset for untagged")


# -- NAT rules: the external side must be reachable through the gateway ---------------------------

def test_external_ip_in_the_network_of_an_internal_port_is_refused():
    params = seed()
    params["routers"][0]["nat"] = [nat("dnat_and_snat", "192.168.0.188", "192.168.0.3")]
    assert errors_of(params) == [
        "routers[lr0].nat[0].external_ip: 192.168.0.188 is inside 192.168.0.0/24, the network of internal port p1 of "
        "router lr0, so the NAT rule could never be reached through the gateway port; use an address of the gateway "
        "port's network (ext_gw 10.20.0.0/24) or one routed to the gateway from outside"]


@pytest.mark.parametrize("ntype, external_ip, port", [
    ("dnat_and_snat", "192.168.0.1", "p1"),
    ("dnat_and_snat", "10.20.0.2", "ext_gw"),
    ("dnat", "10.20.0.2", "ext_gw"),
    ("snat", "192.168.0.1", "p1"),
])
def test_external_ip_that_is_a_router_port_address_is_refused(ntype, external_ip, port):
    params = seed()
    logical = "192.168.0.0/24" if ntype == "snat" else "192.168.0.3"
    params["routers"][0]["nat"] = [nat(ntype, external_ip, logical)]
    assert errors_of(params) == [
        "routers[lr0].nat[0].external_ip: %s is the address of port %s of router lr0; the router answers for it "
        "itself, so the NAT rule could never receive a packet; use a free address of the gateway port's network or "
        "one routed to the gateway from outside" % (external_ip, port)]


@pytest.mark.parametrize("change", [
    # the reference bench's 18.0.0.188: in no network of lr0, routed to the gateway from outside
    lambda params: None,
    lambda params: params["routers"][0]["nat"].append(nat("dnat_and_snat", "10.99.0.188", "192.168.0.4")),
    # a free address of the gateway port's network
    lambda params: params["routers"][0]["nat"].append(nat("dnat_and_snat", "10.20.0.188", "192.168.0.4")),
    # SNAT to the gateway port's own address (masquerade)
    lambda params: params["routers"][0]["nat"].append(nat("snat", "10.20.0.2", "192.168.0.0/24")),
    # without a gateway port no port is "internal"
    lambda params: (params["routers"][0]["ports"][1].pop("gateway_chassis"),
                    params["routers"][0]["nat"].append(nat("dnat_and_snat", "192.168.0.188", "192.168.0.4"))),
])
def test_external_ips_the_gateway_can_receive_are_accepted(change):
    params = seed()
    change(params)
    assert ovn_schema.validate(params)["routers"]["lr0"]["nat"]


# -- MAC addresses: unicast only (the shared rule of validate.py) ---------------------------------

def test_multicast_router_port_mac_is_refused():
    from ansible_collections.offload.testbed.plugins.module_utils.host.validate import mac_address
    params = seed()
    params["routers"][0]["ports"][0]["mac"] = "01:00:00:00:ff:01"
    assert errors_of(params) == [mac_address("routers[lr0].ports[p1].mac", "01:00:00:00:ff:01")]
    assert "is a multicast address" in errors_of(params)[0]


@pytest.mark.parametrize("entry, mac", [
    ("01:54:00:00:00:01 192.168.0.3", "01:54:00:00:00:01"),
    ("33:33:00:00:00:01", "33:33:00:00:00:01"),
    ("00:00:00:00:00:00 192.168.0.3", "00:00:00:00:00:00"),
])
def test_multicast_or_zero_switch_port_mac_is_refused(entry, mac):
    from ansible_collections.offload.testbed.plugins.module_utils.host.validate import mac_address
    params = seed()
    params["switches"][0]["ports"][0]["addresses"] = [entry]
    assert errors_of(params) == [mac_address("switches[sw0].ports[port1].addresses[0]", mac)]


@pytest.mark.parametrize("addresses", [["router"], ["dynamic"], ["unknown"], ["dynamic 192.168.0.9"],
                                       ["50:54:00:00:00:01 192.168.0.3", "unknown"]])
def test_address_keywords_and_unicast_macs_are_accepted(addresses):
    params = seed()
    params["switches"][0]["ports"][0]["addresses"] = addresses
    assert ovn_schema.validate(params)["switches"]["sw0"]["ports"]["port1"]["addresses"] == sorted(addresses)


# -- names ------------------------------------------------------------------------------------------
# The one rule for names of validate.py: the Northbound database keeps a name as given, white space
# included, and whatever looks the object up by its visible name does not find it.

@pytest.mark.parametrize("path, value, message", [
    (("switches", 0, "name"), "sw0 ", "switches[0].name: 'sw0 ' has trailing white space, which the database would keep as part of "
                                      "a logical switch name (what looks for 'sw0' would not find it); write 'sw0'"),
    (("switches", 0, "ports", 0, "name"), " port1", "switches[sw0].ports[0].name: ' port1' has leading white space, which the database "
                                                    "would keep as part of a logical switch port name"),
    (("routers", 0, "name"), "lr0\t", "routers[0].name: 'lr0\\t' has trailing white space, which the database would keep as part of a "
                                      "logical router name (what looks for 'lr0' would not find it); write 'lr0'"),
    (("switches", 1, "ports", 0, "network_name"), "physnet1 ", "switches[external].ports[internet].network_name: 'physnet1 ' has "
                                                               "trailing white space, which the database would keep as part of the "
                                                               "network name"),
    (("routers", 0, "ports", 1, "gateway_chassis", 0, "chassis"), "chassis-1 ",
     "routers[lr0].ports[ext_gw].gateway_chassis[0].chassis: 'chassis-1 ' has trailing white space, which the database would keep as "
     "part of a chassis name (its system-id)"),
    (("switches", 0, "name"), "sw\x07", "switches[0].name: 'sw\\x07' holds the control character '\\x07'; write a logical switch name in "
                                        "printable characters"),
])
def test_a_name_the_database_would_keep_with_white_space_is_refused(path, value, message):
    params = seed()
    where = params
    for step in path[:-1]:
        where = where[step]
    where[path[-1]] = value
    errors = errors_of(params)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_a_load_balancer_name_with_white_space_is_refused_and_its_references_with_it():
    params = seed()
    params["load_balancers"][0]["name"] = "lb-web "
    errors = errors_of(params)
    assert errors[0] == ("load_balancers[0].name: 'lb-web ' has trailing white space, which the database would keep as part of a load "
                         "balancer name (what looks for 'lb-web' would not find it); write 'lb-web'")
    assert "routers[lr0].load_balancers: lb-web is not a declared load balancer" in errors


def test_names_with_blanks_inside_are_kept():
    params = seed()
    params["switches"][0]["name"] = "web tier"
    ovn_schema.validate(params)
