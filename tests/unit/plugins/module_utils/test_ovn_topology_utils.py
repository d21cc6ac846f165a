"""Pure logic of ovn_topology: validation (every error of the contract),
reading ``ovn-nbctl --format=json`` output, planning the one transaction.

NB_* below are the exact output of the module's read command
(``ovn-nbctl --format=json -- --columns=... list Logical_Switch -- ...``, see
``read_args()``) captured from ovn-nbctl 23.03.1 / OVS 3.1.0 against an
ovsdb-server started from /usr/share/ovn/ovn-nb.ovsschema:

* NB_EMPTY: a new database;
* NB_SEED: after applying SEED (the reference topology of the contract, the ConnectX-6 Lx bench's, with
  ``chassis-1`` as the gateway chassis);
* NB_EXTRA: NB_SEED plus, made with plain ovn-nbctl::

    ls-add sw-old -- lsp-add sw-old vm-old -- lsp-add sw0 stray
    -- lsp-set-addresses stray "50:54:00:00:00:99 192.168.0.99"
    -- lb-add lb-old 18.0.0.200:443 192.168.0.9:443 tcp
    -- lr-nat-add lr0 snat 18.0.0.1 192.168.0.0/24
    -- lr-route-add lr0 0.0.0.0/0 10.20.0.1 -- lr-add lr-old -- lr-lb-add lr0 lb-old
"""
import copy
import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_addr
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_nb
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_plan
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_schema

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "modules", "fixtures", "ovn_topology")


def _fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


SEED = json.loads(_fixture("seed_topology.json"))
NB_EMPTY = _fixture("nb_empty.json")
NB_SEED = _fixture("nb_seed.json")
NB_EXTRA = _fixture("nb_extra.json")

# The transaction that builds SEED in an empty database (verified against a
# real ovsdb-server by tests/integration/test_ovn_topology_nb.py).
SEED_COMMANDS = [
    ["--id=@lb0", "create", "Load_Balancer", "name=lb-udp", "protocol=udp",
     'vips={"18.0.0.172:8080"="192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080"}'],
    ["--id=@lb1", "create", "Load_Balancer", "name=lb-web", "protocol=tcp",
     'vips={"18.0.0.172:80"="192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"}'],
    ["--id=@gc0", "create", "Gateway_Chassis", "name=ext_gw-chassis-1", "chassis_name=chassis-1", "priority=10"],
    ["--id=@lrp0", "create", "Logical_Router_Port", "name=ext_gw", 'mac="00:00:00:01:ff:01"', "networks=[10.20.0.2/24]",
     "gateway_chassis=[@gc0]"],
    ["--id=@lrp1", "create", "Logical_Router_Port", "name=p1", 'mac="00:00:00:00:ff:01"', "networks=[192.168.0.1/24]"],
    ["--id=@sr0", "create", "Logical_Router_Static_Route", "ip_prefix=16.0.0.0/16", "nexthop=192.168.0.3"],
    ["--id=@sr1", "create", "Logical_Router_Static_Route", "ip_prefix=48.0.0.0/16", "nexthop=10.20.0.3"],
    ["--id=@nat0", "create", "NAT", "type=dnat_and_snat", 'external_ip="18.0.0.188"', 'logical_ip="16.0.0.188"'],
    ["create", "Logical_Router", "name=lr0", "ports=[@lrp0,@lrp1]", "static_routes=[@sr0,@sr1]", "nat=[@nat0]",
     "load_balancer=[@lb1,@lb0]"],
    ["--id=@lsp0", "create", "Logical_Switch_Port", "name=downlink", "type=router", "addresses=[router]",
     "options={router-port=ext_gw}", "tag_request=20"],
    ["--id=@lsp1", "create", "Logical_Switch_Port", "name=internet", "type=localnet", "addresses=[unknown]",
     "options={network_name=physnet1}"],
    ["create", "Logical_Switch", "name=external", "ports=[@lsp0,@lsp1]"],
    ["--id=@lsp2", "create", "Logical_Switch_Port", "name=port1", 'addresses=["50:54:00:00:00:01 192.168.0.3"]'],
    ["--id=@lsp3", "create", "Logical_Switch_Port", "name=uplink", "type=router", "addresses=[router]",
     "options={router-port=p1}"],
    ["create", "Logical_Switch", "name=sw0", "ports=[@lsp2,@lsp3]"],
]

# purge: true against NB_EXTRA deletes exactly what was added by hand.
PURGE_COMMANDS = [
    ["destroy", "Load_Balancer", "lb-old"],
    ["remove", "Logical_Router", "lr0", "static_routes", "08e5748a-866b-4e95-8cc2-3b741d49f580"],
    ["remove", "Logical_Router", "lr0", "nat", "3c4ca67b-ef0e-4dc5-a03e-7ecb6f2ee178"],
    # explicit, although the reference is weak: ovsdb-server 3.1 may leave it dangling (see the integration test)
    ["remove", "Logical_Router", "lr0", "load_balancer", "5e49be27-68c1-4efc-a2dd-6d5ffc059477"],
    ["destroy", "Logical_Router", "lr-old"],
    ["remove", "Logical_Switch", "sw0", "ports", "67fc894b-9cde-4032-bc57-0bf295fb697a"],
    ["destroy", "Logical_Switch", "sw-old"],
]


def summary(**counts):
    out = dict((kind, {"created": 0, "updated": 0, "deleted": 0}) for kind in ovn_plan.SUMMARY_KINDS)
    for key, value in counts.items():
        kind, what = key.rsplit("_", 1)
        out[kind][what] = value
    return out


def seed():
    return copy.deepcopy(SEED)


def plan_for(params, nb_text, purge=False):
    return ovn_plan.plan(ovn_schema.validate(params), ovn_nb.parse_nb(nb_text), purge)


# --------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------

def test_read_args_lists_every_table_once():
    args = ovn_nb.read_args()
    assert args[0] == "--format=json"
    assert args.count("list") == len(ovn_nb.READ_COLUMNS) == 8
    assert args[1:5] == ["--", "--columns=_uuid,name,ports,load_balancer", "list", "Logical_Switch"]


def test_base_args_db_tls_timeout():
    assert ovn_nb.base_args("/usr/bin/ovn-nbctl") == ["/usr/bin/ovn-nbctl"]
    assert ovn_nb.base_args("ovn-nbctl", "ssl:10.10.0.4:6641", "/k.pem", "/c.pem", "/ca.pem", 30) == [
        "ovn-nbctl", "--db=ssl:10.10.0.4:6641", "-p", "/k.pem", "-c", "/c.pem", "-C", "/ca.pem", "--timeout=30"]


def test_write_args_joins_commands_with_double_dash():
    assert ovn_nb.write_args([["ls-add", "a"], ["ls-add", "b"]]) == ["--", "ls-add", "a", "--", "ls-add", "b"]


def test_parse_empty():
    state = ovn_nb.parse_nb(NB_EMPTY)
    assert all(state[kind] == {} for kind in state)


def test_parse_seed():
    state = ovn_nb.parse_nb(NB_SEED)
    ports = dict((row["name"], row) for row in state["switch_ports"].values())
    assert ports["port1"]["addresses"] == ["50:54:00:00:00:01 192.168.0.3"]
    assert ports["port1"]["type"] == "" and ports["port1"]["tag"] is None
    assert ports["downlink"]["tag"] == 20
    assert ports["downlink"]["options"] == {"router-port": "ext_gw"}
    assert ports["internet"]["addresses"] == ["unknown"]
    lrps = dict((row["name"], row) for row in state["router_ports"].values())
    assert lrps["ext_gw"]["networks"] == ["10.20.0.2/24"]
    assert lrps["ext_gw"]["gateway_chassis"] == ["11d78085-c5c6-4d69-a777-08b515cfcc89"]
    assert list(state["gateway_chassis"].values())[0]["priority"] == 10
    assert sorted(r["key"] for r in state["static_routes"].values()) == [
        ("dst-ip", "16.0.0.0/16", "192.168.0.3", None), ("dst-ip", "48.0.0.0/16", "10.20.0.3", None)]
    assert [n["key"] for n in state["nat"].values()] == [("dnat_and_snat", "18.0.0.188", "16.0.0.188")]
    lbs = dict((row["name"], row) for row in state["load_balancers"].values())
    assert lbs["lb-udp"] == {"uuid": "a3539f6d-5b96-48b3-8d23-898122304b3f", "name": "lb-udp", "protocol": "udp",
                             "vips": {"18.0.0.172:8080": "192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080"}}
    router = list(state["routers"].values())[0]
    assert router["nat"] == ["85aa58af-f739-4058-98d7-6f701cd3ecb4"]  # one member: a bare uuid in the JSON


def test_parse_rejects_truncated_output():
    with pytest.raises(ValueError):
        ovn_nb.parse_nb(NB_SEED.split("\n", 1)[0])


# --------------------------------------------------------------------------
# planning
# --------------------------------------------------------------------------

def test_seed_into_empty_database():
    result = plan_for(SEED, NB_EMPTY)
    assert result["commands"] == SEED_COMMANDS
    assert result["summary"] == summary(switches_created=2, switch_ports_created=4, routers_created=1, router_ports_created=2,
                                        static_routes_created=2, nat_created=1, load_balancers_created=2)
    headers = [d["before_header"] for d in result["diff"]]
    assert headers == ["load_balancer lb-udp", "load_balancer lb-web", "router lr0", "switch external", "switch sw0"]
    lr0 = result["diff"][2]
    assert lr0["before"] == {}
    assert lr0["after"]["ports"]["ext_gw"] == {"mac": "00:00:00:01:ff:01", "networks": ["10.20.0.2/24"],
                                               "gateway_chassis": {"chassis-1": 10}}
    assert lr0["after"]["nat"] == ["dnat_and_snat 18.0.0.188 16.0.0.188"]


@pytest.mark.parametrize("purge", [False, True])
def test_seed_is_idempotent(purge):
    result = plan_for(SEED, NB_SEED, purge)
    assert result["commands"] == []
    assert result["summary"] == summary()
    assert result["diff"] == []


def test_undeclared_objects_are_left_alone_without_purge():
    assert plan_for(SEED, NB_EXTRA)["commands"] == []


def test_purge_deletes_undeclared_objects():
    result = plan_for(SEED, NB_EXTRA, purge=True)
    assert result["commands"] == PURGE_COMMANDS
    assert result["summary"] == summary(switches_deleted=1, switch_ports_deleted=1, routers_deleted=1, routers_updated=1,
                                        static_routes_deleted=1, nat_deleted=1, load_balancers_deleted=1)
    by_header = dict((d["before_header"], d) for d in result["diff"])
    assert by_header["switch sw-old"]["after"] == {}
    assert "stray" in by_header["switch sw0"]["before"]["ports"]
    assert "stray" not in by_header["switch sw0"]["after"]["ports"]
    assert by_header["router lr0"]["before"]["static_routes"] == [
        "0.0.0.0/0 via 10.20.0.1", "16.0.0.0/16 via 192.168.0.3", "48.0.0.0/16 via 10.20.0.3"]
    assert by_header["router lr0"]["after"]["load_balancers"] == ["lb-udp", "lb-web"]


def test_purge_detaches_undeclared_load_balancer_that_stays():
    params = seed()
    params["routers"][0]["load_balancers"] = ["lb-web"]
    result = plan_for(params, NB_SEED, purge=True)
    assert result["commands"] == [["remove", "Logical_Router", "lr0", "load_balancer", "a3539f6d-5b96-48b3-8d23-898122304b3f"]]
    assert result["summary"] == summary(routers_updated=1)
    assert plan_for(params, NB_SEED, purge=False)["commands"] == []


def test_change_backends_of_one_load_balancer():
    params = seed()
    params["load_balancers"][0]["backends"] = ["192.168.0.3:80", "192.168.0.4:80"]
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [["set", "Load_Balancer", "lb-web", 'vips={"18.0.0.172:80"="192.168.0.3:80,192.168.0.4:80"}']]
    assert result["summary"] == summary(load_balancers_updated=1)
    assert result["diff"] == [{
        "before_header": "load_balancer lb-web", "after_header": "load_balancer lb-web",
        "before": {"protocol": "tcp", "vips": {"18.0.0.172:80": "192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"}},
        "after": {"protocol": "tcp", "vips": {"18.0.0.172:80": "192.168.0.3:80,192.168.0.4:80"}},
    }]


def test_change_protocol():
    params = seed()
    params["load_balancers"][1]["protocol"] = "sctp"
    assert plan_for(params, NB_SEED)["commands"] == [["set", "Load_Balancer", "lb-udp", "protocol=sctp"]]


def test_vips_mapping_is_the_same_load_balancer():
    params = seed()
    params["load_balancers"][0] = {"name": "lb-web", "protocol": "tcp",
                                   "vips": {"18.0.0.172:80": "192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"}}
    assert plan_for(params, NB_SEED)["commands"] == []
    params["load_balancers"][0]["vips"]["18.0.0.173:80"] = ["192.168.0.6:80"]
    assert plan_for(params, NB_SEED)["commands"] == [[
        "set", "Load_Balancer", "lb-web",
        'vips={"18.0.0.172:80"="192.168.0.3:80,192.168.0.4:80,192.168.0.5:80","18.0.0.173:80"="192.168.0.6:80"}']]


def test_change_switch_port_tag_and_addresses():
    params = seed()
    params["switches"][1]["ports"][1]["tag"] = 30
    params["switches"][0]["ports"][0]["addresses"] = ["50:54:00:00:00:01 192.168.0.30"]
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [
        ["set", "Logical_Switch_Port", "downlink", "tag_request=30"],
        ["set", "Logical_Switch_Port", "port1", 'addresses=["50:54:00:00:00:01 192.168.0.30"]'],
    ]
    assert result["summary"] == summary(switch_ports_updated=2)


def test_remove_tag_and_options():
    params = seed()
    del params["switches"][1]["ports"][1]["tag"]
    params["switches"][1]["ports"][0]["options"] = {"localnet_learn_fdb": "true"}
    assert plan_for(params, NB_SEED)["commands"] == [
        ["set", "Logical_Switch_Port", "downlink", "tag_request=[]"],
        ["set", "Logical_Switch_Port", "internet", "options={localnet_learn_fdb=true,network_name=physnet1}"],
    ]


def test_gateway_chassis_priority_add_and_remove():
    params = seed()
    params["routers"][0]["ports"][1]["gateway_chassis"] = [{"chassis": "chassis-1", "priority": 20},
                                                           {"chassis": "chassis-2", "priority": 10}]
    assert plan_for(params, NB_SEED)["commands"] == [
        ["set", "Gateway_Chassis", "11d78085-c5c6-4d69-a777-08b515cfcc89", "priority=20"],
        ["--id=@gc0", "create", "Gateway_Chassis", "name=ext_gw-chassis-2", "chassis_name=chassis-2", "priority=10"],
        ["add", "Logical_Router_Port", "ext_gw", "gateway_chassis", "@gc0"],
    ]
    params["routers"][0]["ports"][1]["gateway_chassis"] = []
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [["remove", "Logical_Router_Port", "ext_gw", "gateway_chassis", "11d78085-c5c6-4d69-a777-08b515cfcc89"]]
    assert result["summary"] == summary(router_ports_updated=1)


def test_router_port_mac_and_networks():
    params = seed()
    params["routers"][0]["ports"][0].update(mac="00:00:00:00:FF:02", networks=["192.168.0.1/24", "fd00::1/64"])
    assert plan_for(params, NB_SEED)["commands"] == [
        ["set", "Logical_Router_Port", "p1", 'mac="00:00:00:00:ff:02"', 'networks=[192.168.0.1/24,"fd00::1/64"]']]


def test_add_nat_route_and_port():
    params = seed()
    params["routers"][0]["nat"].append({"type": "snat", "external_ip": "18.0.0.1", "logical_ip": "192.168.0.7/24"})
    params["routers"][0]["static_routes"].append({"prefix": "10.99.0.1/32", "nexthop": "10.20.0.3", "policy": "src-ip"})
    params["switches"][0]["ports"].append({"name": "port2", "addresses": ["dynamic"]})
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [
        ["--id=@sr0", "create", "Logical_Router_Static_Route", "ip_prefix=10.99.0.1", "nexthop=10.20.0.3", "policy=src-ip"],
        ["--id=@nat0", "create", "NAT", "type=snat", 'external_ip="18.0.0.1"', 'logical_ip="192.168.0.0/24"'],
        ["add", "Logical_Router", "lr0", "static_routes", "@sr0"],
        ["add", "Logical_Router", "lr0", "nat", "@nat0"],
        ["--id=@lsp0", "create", "Logical_Switch_Port", "name=port2", "addresses=[dynamic]"],
        ["add", "Logical_Switch", "sw0", "ports", "@lsp0"],
    ]
    assert result["summary"] == summary(static_routes_created=1, nat_created=1, switch_ports_created=1)


def test_distributed_nat_columns_are_updated_in_place():
    params = seed()
    params["routers"][0]["nat"][0].update(logical_port="port1", external_mac="50:54:00:00:00:AA")
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [
        ["set", "NAT", "85aa58af-f739-4058-98d7-6f701cd3ecb4", "logical_port=port1", 'external_mac="50:54:00:00:00:aa"']]
    assert result["summary"] == summary(nat_updated=1)


def test_port_moves_between_switches_in_the_same_transaction():
    params = seed()
    port1 = params["switches"][0]["ports"].pop(0)
    params["switches"][1]["ports"].append(port1)
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [
        ["remove", "Logical_Switch", "sw0", "ports", "69cb8168-f23a-4cef-aa5f-875c94c19d66"],
        ["add", "Logical_Switch", "external", "ports", "69cb8168-f23a-4cef-aa5f-875c94c19d66"],
    ]
    assert result["summary"] == summary(switch_ports_updated=1)
    # with purge the moved port is not also counted as deleted from sw0
    assert plan_for(params, NB_SEED, purge=True)["commands"] == result["commands"]


def test_attach_load_balancer_to_switch():
    params = seed()
    params["switches"][0]["load_balancers"] = ["lb-web"]
    result = plan_for(params, NB_SEED)
    assert result["commands"] == [["add", "Logical_Switch", "sw0", "load_balancer", "fa8089c1-23c7-4921-b406-1d1297c29cc2"]]
    assert result["summary"] == summary(switches_updated=1)


def test_new_load_balancer_attached_by_symbol():
    params = seed()
    params["load_balancers"].append({"name": "lb-new", "vip": "[fd00::172]:443", "backends": ["[fd00::3]:443"]})
    params["switches"][0]["load_balancers"] = ["lb-new"]
    assert plan_for(params, NB_SEED)["commands"] == [
        ["--id=@lb0", "create", "Load_Balancer", "name=lb-new", "protocol=tcp", 'vips={"[fd00::172]:443"="[fd00::3]:443"}'],
        ["add", "Logical_Switch", "sw0", "load_balancer", "@lb0"],
    ]


def test_normalised_forms_compare_equal():
    """What OVN stores and what is declared may be spelt differently."""
    params = seed()
    params["routers"][0]["static_routes"][0]["prefix"] = "48.0.7.9/16"
    params["routers"][0]["ports"][0]["mac"] = "00:00:00:00:FF:01"
    params["load_balancers"][0]["backends"] = "192.168.0.3:80, 192.168.0.4:80,192.168.0.5:80"
    assert plan_for(params, NB_SEED)["commands"] == []


def test_command_text_quotes_for_the_shell():
    assert ovn_nb.command_text(["--id=@lsp2", "create", "Logical_Switch_Port", "name=port1",
                                'addresses=["50:54:00:00:00:01 192.168.0.3"]']) == \
        "--id=@lsp2 create Logical_Switch_Port name=port1 'addresses=[\"50:54:00:00:00:01 192.168.0.3\"]'"


def test_ambiguous_names_are_referenced_by_uuid():
    state = ovn_nb.parse_nb(NB_SEED)
    dup = dict(state["load_balancers"]["fa8089c1-23c7-4921-b406-1d1297c29cc2"], uuid="00000000-0000-0000-0000-000000000001")
    state["load_balancers"][dup["uuid"]] = dup
    params = seed()
    params["load_balancers"][0]["protocol"] = "udp"
    result = ovn_plan.plan(ovn_schema.validate(params), state, purge=True)
    assert result["commands"] == [
        ["set", "Load_Balancer", "00000000-0000-0000-0000-000000000001", "protocol=udp"],
        ["destroy", "Load_Balancer", "fa8089c1-23c7-4921-b406-1d1297c29cc2"],
        # lr0 held the duplicate that goes; the kept row is attached instead
        ["add", "Logical_Router", "lr0", "load_balancer", "00000000-0000-0000-0000-000000000001"],
        ["remove", "Logical_Router", "lr0", "load_balancer", "fa8089c1-23c7-4921-b406-1d1297c29cc2"],
    ]


# --------------------------------------------------------------------------
# validation: every error of the contract, each naming object and field
# --------------------------------------------------------------------------

def _set(path, value):
    def change(params):
        target = params
        for key in path[:-1]:
            target = target[key]
        if value is KeyError:
            del target[path[-1]]
        else:
            target[path[-1]] = value
    return change


def _append(path, value):
    def change(params):
        target = params
        for key in path:
            target = target[key]
        target.append(value)
    return change


ERRORS = [
    # a MAC that is not a MAC
    (_set(["routers", 0, "ports", 0, "mac"], "zz"), "routers[lr0].ports[p1].mac: 'zz' is not a MAC address"),
    (_set(["switches", 0, "ports", 0, "addresses"], ["50:54:00:00:00 192.168.0.3"]),
     "switches[sw0].ports[port1].addresses[0]: '50:54:00:00:00' is not a MAC address"),
    (_set(["routers", 0, "nat", 0], {"type": "dnat_and_snat", "external_ip": "18.0.0.188", "logical_ip": "16.0.0.188",
                                     "logical_port": "port1", "external_mac": "nope"}),
     "routers[lr0].nat[0].external_mac: 'nope' is not a MAC address"),
    # a network that is not a CIDR
    (_set(["routers", 0, "ports", 0, "networks"], ["192.168.0.1"]),
     "routers[lr0].ports[p1].networks[0]: '192.168.0.1' is not a CIDR (address/prefix length)"),
    (_set(["routers", 0, "ports", 0, "networks"], ["192.168.0.300/24"]),
     "routers[lr0].ports[p1].networks[0]: '192.168.0.300/24' is not a CIDR (address/prefix length)"),
    # two router ports whose networks overlap
    (_set(["routers", 0, "ports", 1, "networks"], ["192.168.0.129/25"]),
     "routers[lr0].ports[ext_gw].networks: 192.168.0.129/25 overlaps 192.168.0.1/24 of port p1"),
    # a static route whose nexthop is in no router port's network
    (_set(["routers", 0, "static_routes", 0, "nexthop"], "10.99.0.3"),
     "routers[lr0].static_routes[48.0.0.0/16].nexthop: 10.99.0.3 is in no network of the ports of router lr0"),
    (_set(["routers", 0, "static_routes", 0, "prefix"], "48.0.0.0/33"),
     "routers[lr0].static_routes[48.0.0.0/33].prefix: '48.0.0.0/33' is not an IP prefix (address/prefix length)"),
    # a NAT rule without both IPs
    (_set(["routers", 0, "nat", 0, "logical_ip"], KeyError),
     "routers[lr0].nat[0].logical_ip: a NAT rule needs both external_ip and logical_ip"),
    (_set(["routers", 0, "nat", 0, "external_ip"], ""),
     "routers[lr0].nat[0].external_ip: a NAT rule needs both external_ip and logical_ip"),
    (_set(["routers", 0, "nat", 0, "external_ip"], "18.0.0"), "routers[lr0].nat[0].external_ip: '18.0.0' is not an IP address"),
    # a load balancer with no backends
    (_set(["load_balancers", 0, "backends"], []), "load_balancers[lb-web].backends: a load balancer needs at least one backend"),
    (_set(["load_balancers", 0, "backends"], KeyError), "load_balancers[lb-web].backends: a load balancer needs at least one backend"),
    (_set(["load_balancers", 0], {"name": "lb-web", "vips": {"18.0.0.172:80": []}}),
     "load_balancers[lb-web].vips[18.0.0.172:80]: a load balancer needs at least one backend"),
    # a VIP and backends of different IP versions
    (_set(["load_balancers", 0, "backends"], ["192.168.0.3:80", "[fd00::4]:80"]),
     "load_balancers[lb-web].backends[1]: [fd00::4]:80 is IPv6 but the vip 18.0.0.172:80 is IPv4"),
    (_set(["load_balancers", 0, "backends"], ["192.168.0.3"]),
     "load_balancers[lb-web].backends[0]: 192.168.0.3 must have a port, like the vip 18.0.0.172:80"),
    (_set(["load_balancers", 0, "vip"], "18.0.0.172:99999"), "load_balancers[lb-web].vip: '18.0.0.172:99999' is not an IP address or IP:port"),
    # a port name used twice
    (_append(["switches", 1, "ports"], {"name": "port1"}),
     "switches[external].ports[port1].name: the port name port1 is used twice (also switches[sw0].ports[port1])"),
    (_append(["switches", 1, "ports"], {"name": "p1"}),
     "switches[external].ports[p1].name: the port name p1 is used twice (also routers[lr0].ports[p1])"),
    (_append(["switches", 0, "ports"], {"name": "port1"}), "switches[sw0].ports[port1].name: port1 is declared twice"),
    # a router port referenced by a switch port that does not exist
    (_set(["switches", 0, "ports", 1, "router_port"], "p9"),
     "switches[sw0].ports[uplink].router_port: the router port p9 does not exist in any declared router"),
    # more
    (_set(["switches", 0, "ports", 1, "router_port"], KeyError), "switches[sw0].ports[uplink].router_port: a port of type router needs router_port"),
    (_set(["switches", 1, "ports", 0, "network_name"], KeyError),
     "switches[external].ports[internet].network_name: a port of type localnet needs network_name"),
    (_set(["switches", 1, "ports", 1, "tag"], 5000), "switches[external].ports[downlink].tag: 5000 is outside 1..4094; leave it unset for untagged"),
    (_set(["switches", 1, "ports", 1, "tag"], "twenty"), "switches[external].ports[downlink].tag: 'twenty' is not an integer"),
    (_set(["switches", 0, "ports", 0, "adresses"], ["unknown"]),
     "switches[sw0].ports[port1].adresses: unknown field (known fields: addresses, name, network_name, options, router_port, tag, type)"),
    (_set(["routers", 0, "load_balancers"], ["lb-web", "lb-nope"]), "routers[lr0].load_balancers: lb-nope is not a declared load balancer"),
    (_set(["routers", 0, "ports", 1, "gateway_chassis"], [{"chassis": "c1", "priority": 40000}]),
     "routers[lr0].ports[ext_gw].gateway_chassis[c1].priority: 40000 is not in 0-32767"),
    (_set(["routers", 0, "ports", 0, "mac"], KeyError), "routers[lr0].ports[p1].mac: a router port needs a MAC address"),
    (_set(["load_balancers", 0, "protocol"], "icmp"), "load_balancers[lb-web].protocol: 'icmp' is not one of tcp, udp, sctp"),
    (_set(["load_balancers", 1, "name"], "lb-web"), "load_balancers[lb-web].name: lb-web is declared twice"),
    (_set(["switches", 0, "name"], ""), "switches[0].name: a name is required"),
    (_set(["routers", 0, "nat", 0, "type"], "masquerade"),
     "routers[lr0].nat[0].type: 'masquerade' is not one of dnat_and_snat, snat, dnat"),
]


@pytest.mark.parametrize("change, message", ERRORS, ids=[m.split(":")[0] + ":" + m.split(": ", 1)[1][:30] for _c, m in ERRORS])
def test_each_validation_error(change, message):
    params = seed()
    change(params)
    with pytest.raises(ovn_schema.TopologyError) as exc:
        ovn_schema.validate(params)
    assert message in exc.value.errors, exc.value.errors


def test_all_errors_are_reported_at_once():
    params = seed()
    params["routers"][0]["ports"][0]["mac"] = "zz"
    params["routers"][0]["nat"][0]["logical_ip"] = None
    params["load_balancers"][0]["backends"] = []
    params["switches"][0]["ports"][1]["router_port"] = "p9"
    with pytest.raises(ovn_schema.TopologyError) as exc:
        ovn_schema.validate(params)
    assert exc.value.errors == [
        "load_balancers[lb-web].backends: a load balancer needs at least one backend",
        "routers[lr0].ports[p1].mac: 'zz' is not a MAC address",
        "routers[lr0].nat[0].logical_ip: a NAT rule needs both external_ip and logical_ip",
        "switches[sw0].ports[uplink].router_port: the router port p9 does not exist in any declared router",
    ]


def test_seed_is_valid_and_normalised():
    model = ovn_schema.validate(SEED)
    uplink = {"type": "router", "addresses": ["router"], "options": {"router-port": "p1"}, "tag": None}
    assert model["switches"]["sw0"]["ports"]["uplink"] == uplink
    assert model["routers"]["lr0"]["nat"] == {("dnat_and_snat", "18.0.0.188", "16.0.0.188"): {"logical_port": None, "external_mac": None}}
    assert model["load_balancers"]["lb-udp"] == {"protocol": "udp",
                                                 "vips": {"18.0.0.172:8080": "192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080"}}


@pytest.mark.parametrize("text, expected", [
    ("48.0.0.1/16", "48.0.0.0/16"), ("10.0.0.1/32", "10.0.0.1"), ("10.0.0.1", "10.0.0.1"),
    ("fd00:0::1/64", "fd00::/64"), ("fd00::1/128", "fd00::1"), ("nope", None),
])
def test_normalize_prefix(text, expected):
    assert ovn_addr.normalize_prefix(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("18.0.0.172:80", "18.0.0.172:80"), ("[FD00:0::1]:80", "[fd00::1]:80"), ("fd00::1", "fd00::1"), ("1.2.3.4", "1.2.3.4"),
    ("1.2.3.4:0", None), ("[fd00::1]80", None), ("1.2.3.4:x", None), ("1.2.3:80", None),
])
def test_endpoints(text, expected):
    parsed = ovn_addr.parse_endpoint(text)
    assert (ovn_addr.format_endpoint(*parsed) if parsed else None) == expected
