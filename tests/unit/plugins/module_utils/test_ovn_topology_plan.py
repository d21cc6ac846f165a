"""ovn_topology planning: the summary and the diff come from the typed
commands, and one reconcile serves every column of child rows, so a router
port moves between routers the way a switch port moves between switches.

NB_SEED is the real ``ovn-nbctl --format=json`` read after applying the reference
topology (see test_ovn_topology_utils.py)."""
import copy

from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_plan as otp
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_nb
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_plan
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_schema
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.test_ovn_topology_utils import NB_EMPTY, NB_SEED, SEED
STATE = ovn_nb.parse_nb(NB_SEED)
UUID = dict(((kind, row["name"]), uuid) for kind in ("switch_ports", "router_ports", "routers", "switches")
            for uuid, row in STATE[kind].items())


def counts(summary):
    return dict(("%s_%s" % (kind, verb), n) for kind, verbs in summary.items() for verb, n in verbs.items() if n)


def seed():
    return copy.deepcopy(SEED)


def test_summary_counts_distinct_rows_of_the_commands():
    commands = [
        otp.Command(["remove", "Logical_Switch", "sw0", "ports", "u1"], ("switch", "external", "s1"), (("switch_ports", "updated", "u1"),)),
        otp.Command(["set", "Logical_Switch_Port", "port1", "tag_request=3"], ("switch", "external", "s1"), (("switch_ports", "updated", "u1"),)),
        otp.Command(["--id=@lsp0", "create", "Logical_Switch_Port", "name=a"], ("switch", "external", "s1"), (("switch_ports", "created", "@lsp0"),)),
        otp.Command(["remove", "Logical_Switch", "external", "ports", "u2", "u3"], ("switch", "external", "s1"),
                    (("switch_ports", "deleted", "u2"), ("switch_ports", "deleted", "u3"))),
        otp.Command(["--id=@gc0", "create", "Gateway_Chassis", "name=x"], ("router", "lr0", "r1"), ()),
    ]
    assert counts(otp.summarize(commands)) == {"switch_ports_updated": 1, "switch_ports_created": 1, "switch_ports_deleted": 2}


def test_every_planned_command_is_typed():
    planner = otp._Planner(ovn_schema.validate(SEED), ovn_nb.parse_nb(NB_EMPTY), False)
    planner.plan_top(otp.LOAD_BALANCERS, planner.plan_load_balancer)
    planner.plan_top(otp.ROUTERS, planner.plan_parent)
    planner.plan_top(otp.SWITCHES, planner.plan_parent)
    assert all(isinstance(c, otp.Command) for c in planner.commands)
    owners = []
    for command in planner.commands:
        if command.owner not in owners:
            owners.append(command.owner)
    assert owners == [("load_balancer", "lb-udp", None), ("load_balancer", "lb-web", None), ("router", "lr0", None),
                      ("switch", "external", None), ("switch", "sw0", None)]
    # gateway chassis rows count for nothing of their own
    assert [c.effects for c in planner.commands if c.argv[2] == "Gateway_Chassis"] == [()]


def test_a_moved_and_changed_port_counts_once():
    params = seed()
    port1 = params["switches"][0]["ports"].pop(0)
    port1["addresses"] = ["50:54:00:00:00:01 192.168.0.30"]
    params["switches"][1]["ports"].append(port1)
    result = ovn_plan.plan(ovn_schema.validate(params), STATE)
    uuid = UUID[("switch_ports", "port1")]
    assert result["commands"] == [
        ["remove", "Logical_Switch", "sw0", "ports", uuid],
        ["set", "Logical_Switch_Port", "port1", 'addresses=["50:54:00:00:00:01 192.168.0.30"]'],
        ["add", "Logical_Switch", "external", "ports", uuid],
    ]
    assert counts(result["summary"]) == {"switch_ports_updated": 1}
    assert [d["before_header"] for d in result["diff"]] == ["switch external"]


def _ext_gw_on_its_own_router():
    params = seed()
    lr0 = params["routers"][0]
    ext_gw = lr0["ports"].pop(1)
    lr0["static_routes"] = [r for r in lr0["static_routes"] if r["nexthop"] != "10.20.0.3"]
    params["routers"].append({"name": "lr1", "ports": [ext_gw]})
    return params


def test_a_router_port_moves_to_a_new_router_in_the_same_transaction():
    result = ovn_plan.plan(ovn_schema.validate(_ext_gw_on_its_own_router()), STATE)
    uuid = UUID[("router_ports", "ext_gw")]
    assert result["commands"] == [
        ["remove", "Logical_Router", "lr0", "ports", uuid],
        ["create", "Logical_Router", "name=lr1", "ports=[%s]" % uuid],
    ]
    assert counts(result["summary"]) == {"routers_created": 1, "router_ports_updated": 1}
    assert [d["before_header"] for d in result["diff"]] == ["router lr1"]
    assert result["diff"][0]["after"]["ports"] == {
        "ext_gw": {"mac": "00:00:00:01:ff:01", "networks": ["10.20.0.2/24"], "gateway_chassis": {"chassis-1": 10}}}


def test_with_purge_the_moved_router_port_is_not_also_deleted():
    result = ovn_plan.plan(ovn_schema.validate(_ext_gw_on_its_own_router()), STATE, purge=True)
    route = [u for u in STATE["routers"][UUID[("routers", "lr0")]]["static_routes"]
             if STATE["static_routes"][u]["key"][2] == "10.20.0.3"]
    assert result["commands"] == [
        ["remove", "Logical_Router", "lr0", "static_routes"] + route,
        ["remove", "Logical_Router", "lr0", "ports", UUID[("router_ports", "ext_gw")]],
        ["create", "Logical_Router", "name=lr1", "ports=[%s]" % UUID[("router_ports", "ext_gw")]],
    ]
    assert counts(result["summary"]) == {"routers_created": 1, "router_ports_updated": 1, "static_routes_deleted": 1}
    lr0 = result["diff"][0]
    assert lr0["before_header"] == "router lr0"
    assert sorted(lr0["before"]["ports"]) == ["ext_gw", "p1"] and sorted(lr0["after"]["ports"]) == ["p1"]
    assert lr0["after"]["static_routes"] == ["16.0.0.0/16 via 192.168.0.3"]


def test_undeclared_gateway_chassis_go_even_without_purge():
    params = seed()
    params["routers"][0]["ports"][1]["gateway_chassis"] = [{"chassis": "chassis-2", "priority": 5}]
    result = ovn_plan.plan(ovn_schema.validate(params), STATE)
    gc = STATE["router_ports"][UUID[("router_ports", "ext_gw")]]["gateway_chassis"]
    assert result["commands"] == [
        ["--id=@gc0", "create", "Gateway_Chassis", "name=ext_gw-chassis-2", "chassis_name=chassis-2", "priority=5"],
        ["add", "Logical_Router_Port", "ext_gw", "gateway_chassis", "@gc0"],
        ["remove", "Logical_Router_Port", "ext_gw", "gateway_chassis"] + gc,
    ]
    assert counts(result["summary"]) == {"router_ports_updated": 1}
    assert result["diff"][0]["after"]["ports"]["ext_gw"]["gateway_chassis"] == {"chassis-2": 5}
