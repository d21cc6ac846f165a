"""ovn_topology module: main() with run_command answered from a table of exact
argv -> output. The outputs are the real ``ovn-nbctl --format=json`` output of
the module's read, captured from ovn-nbctl 23.03.1 against an ovsdb-server
created from /usr/share/ovn/ovn-nb.ovsschema (empty; after applying SEED;
after adding objects by hand, see test_ovn_topology_utils.py)."""
import copy
import json
import os

import pytest

from ansible.module_utils import basic

from ansible_collections.offload.testbed.plugins.modules import ovn_topology
from modtest import run_module

NBCTL = "/usr/bin/ovn-nbctl"
DB = "ssl:10.10.0.4:6641"
TLS = ("-p", "/etc/ovn/key.pem", "-c", "/etc/ovn/cert.pem", "-C", "/etc/ovn/ca.pem")
BASE = (NBCTL, "--db=" + DB) + TLS + ("--timeout=30",)
READ = BASE + (
    "--format=json",
    "--", "--columns=_uuid,name,ports,load_balancer", "list", "Logical_Switch",
    "--", "--columns=_uuid,name,type,addresses,options,tag_request", "list", "Logical_Switch_Port",
    "--", "--columns=_uuid,name,ports,static_routes,nat,load_balancer", "list", "Logical_Router",
    "--", "--columns=_uuid,name,mac,networks,gateway_chassis", "list", "Logical_Router_Port",
    "--", "--columns=_uuid,name,chassis_name,priority", "list", "Gateway_Chassis",
    "--", "--columns=_uuid,ip_prefix,nexthop,policy,output_port,route_table", "list", "Logical_Router_Static_Route",
    "--", "--columns=_uuid,type,external_ip,logical_ip,logical_port,external_mac", "list", "NAT",
    "--", "--columns=_uuid,name,vips,protocol", "list", "Load_Balancer",
)
# the one write that builds the reference topology (the contract's) in an empty database
WRITE_SEED = BASE + (
    "--", "--id=@lb0", "create", "Load_Balancer", "name=lb-udp", "protocol=udp",
    'vips={"18.0.0.172:8080"="192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080"}',
    "--", "--id=@lb1", "create", "Load_Balancer", "name=lb-web", "protocol=tcp",
    'vips={"18.0.0.172:80"="192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"}',
    "--", "--id=@gc0", "create", "Gateway_Chassis", "name=ext_gw-chassis-1", "chassis_name=chassis-1", "priority=10",
    "--", "--id=@lrp0", "create", "Logical_Router_Port", "name=ext_gw", 'mac="00:00:00:01:ff:01"', "networks=[10.20.0.2/24]",
    "gateway_chassis=[@gc0]",
    "--", "--id=@lrp1", "create", "Logical_Router_Port", "name=p1", 'mac="00:00:00:00:ff:01"', "networks=[192.168.0.1/24]",
    "--", "--id=@sr0", "create", "Logical_Router_Static_Route", "ip_prefix=16.0.0.0/16", "nexthop=192.168.0.3",
    "--", "--id=@sr1", "create", "Logical_Router_Static_Route", "ip_prefix=48.0.0.0/16", "nexthop=10.20.0.3",
    "--", "--id=@nat0", "create", "NAT", "type=dnat_and_snat", 'external_ip="18.0.0.188"', 'logical_ip="16.0.0.188"',
    "--", "create", "Logical_Router", "name=lr0", "ports=[@lrp0,@lrp1]", "static_routes=[@sr0,@sr1]", "nat=[@nat0]",
    "load_balancer=[@lb1,@lb0]",
    "--", "--id=@lsp0", "create", "Logical_Switch_Port", "name=downlink", "type=router", "addresses=[router]",
    "options={router-port=ext_gw}", "tag_request=20",
    "--", "--id=@lsp1", "create", "Logical_Switch_Port", "name=internet", "type=localnet", "addresses=[unknown]",
    "options={network_name=physnet1}",
    "--", "create", "Logical_Switch", "name=external", "ports=[@lsp0,@lsp1]",
    "--", "--id=@lsp2", "create", "Logical_Switch_Port", "name=port1", 'addresses=["50:54:00:00:00:01 192.168.0.3"]',
    "--", "--id=@lsp3", "create", "Logical_Switch_Port", "name=uplink", "type=router", "addresses=[router]",
    "options={router-port=p1}",
    "--", "create", "Logical_Switch", "name=sw0", "ports=[@lsp2,@lsp3]",
)
WRITE_PURGE = BASE + (
    "--", "destroy", "Load_Balancer", "lb-old",
    "--", "remove", "Logical_Router", "lr0", "static_routes", "08e5748a-866b-4e95-8cc2-3b741d49f580",
    "--", "remove", "Logical_Router", "lr0", "nat", "3c4ca67b-ef0e-4dc5-a03e-7ecb6f2ee178",
    "--", "remove", "Logical_Router", "lr0", "load_balancer", "5e49be27-68c1-4efc-a2dd-6d5ffc059477",
    "--", "destroy", "Logical_Router", "lr-old",
    "--", "remove", "Logical_Switch", "sw0", "ports", "67fc894b-9cde-4032-bc57-0bf295fb697a",
    "--", "destroy", "Logical_Switch", "sw-old",
)
# ovn-nbctl prints the UUID of each row that "create" makes
CREATED = "\n".join(["8e37d5d5-6066-49e8-b677-3474ac758202"] * 15) + "\n"

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "ovn_topology")


def _fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


SEED = dict(json.loads(_fixture("seed_topology.json")), nb_db=DB, private_key="/etc/ovn/key.pem",
            certificate="/etc/ovn/cert.pem", ca_cert="/etc/ovn/ca.pem")
NB_EMPTY = _fixture("nb_empty.json")
NB_SEED = _fixture("nb_seed.json")
NB_EXTRA = _fixture("nb_extra.json")


@pytest.fixture(autouse=True)
def nbctl_path(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, required=False, opt_dirs=None: NBCTL)


def args(**extra):
    out = copy.deepcopy(SEED)
    out.update(extra)
    return out


def test_first_apply_reads_once_and_writes_once(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, args(), {READ: (0, NB_EMPTY, ""), WRITE_SEED: (0, CREATED, "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ, WRITE_SEED]
    assert result["changed"] is True
    assert len(result["commands"]) == 15
    first = "--id=@lb0 create Load_Balancer name=lb-udp protocol=udp " + \
        "'vips={\"18.0.0.172:8080\"=\"192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080\"}'"
    assert result["commands"][0] == first
    assert result["summary"]["switch_ports"] == {"created": 4, "updated": 0, "deleted": 0}
    assert result["summary"]["nat"] == {"created": 1, "updated": 0, "deleted": 0}
    assert "diff" not in result
    assert result["invocation"]["module_args"]["switches"] == "(2 declared)"


def test_second_apply_is_idempotent(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, args(), {READ: (0, NB_SEED, "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ]
    assert result["changed"] is False
    assert result["commands"] == []
    assert all(counts == {"created": 0, "updated": 0, "deleted": 0} for counts in result["summary"].values())


def test_check_mode_runs_only_the_read(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, args(_ansible_check_mode=True), {READ: (0, NB_EMPTY, "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ]
    assert result["changed"] is True
    assert len(result["commands"]) == 15


def test_diff_mode_returns_before_and_after_per_object(monkeypatch):
    params = args(_ansible_diff=True, _ansible_check_mode=True)
    params["load_balancers"][0]["backends"] = ["192.168.0.3:80"]
    result, failed, calls = run_module(ovn_topology.main, params, {READ: (0, NB_SEED, "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ]
    assert result["commands"] == ["set Load_Balancer lb-web 'vips={\"18.0.0.172:80\"=\"192.168.0.3:80\"}'"]
    assert result["diff"] == [{
        "before_header": "load_balancer lb-web", "after_header": "load_balancer lb-web",
        "before": {"protocol": "tcp", "vips": {"18.0.0.172:80": "192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"}},
        "after": {"protocol": "tcp", "vips": {"18.0.0.172:80": "192.168.0.3:80"}},
    }]


def test_purge(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, args(purge=True),
                                       {READ: (0, NB_EXTRA, ""), WRITE_PURGE: (0, "", "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ, WRITE_PURGE]
    assert result["summary"]["switches"] == {"created": 0, "updated": 0, "deleted": 1}
    assert result["summary"]["load_balancers"] == {"created": 0, "updated": 0, "deleted": 1}


def test_no_purge_leaves_undeclared_objects(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, args(), {READ: (0, NB_EXTRA, "")}, monkeypatch)
    assert (failed, calls, result["changed"]) == (False, [READ], False)


def test_invalid_topology_fails_before_any_command(monkeypatch):
    params = args()
    params["routers"][0]["ports"][0]["mac"] = "zz"
    params["load_balancers"][1]["backends"] = ["[fd00::3]:8080"]
    result, failed, calls = run_module(ovn_topology.main, params, {}, monkeypatch)
    assert failed
    assert calls == []
    assert result["errors"] == [
        "load_balancers[lb-udp].backends[0]: [fd00::3]:8080 is IPv6 but the vip 18.0.0.172:8080 is IPv4",
        "routers[lr0].ports[p1].mac: 'zz' is not a MAC address",
    ]
    assert result["msg"].startswith("invalid OVN topology: 2 error(s): load_balancers[lb-udp].backends[0]")


def test_read_failure(monkeypatch):
    err = "ovn-nbctl: ssl:10.10.0.4:6641: database connection failed (Connection refused)\n"
    result, failed, calls = run_module(ovn_topology.main, args(), {READ: (1, "", err)}, monkeypatch)
    assert failed and calls == [READ]
    assert result["msg"] == "reading the Northbound database failed: " + err.strip()


def test_write_failure_reports_the_planned_commands(monkeypatch):
    err = 'ovn-nbctl: transaction error: {"details":"Transaction causes multiple rows in \\"Logical_Switch_Port\\" table"}\n'
    result, failed, calls = run_module(ovn_topology.main, args(), {READ: (0, NB_EMPTY, ""), WRITE_SEED: (1, "", err)}, monkeypatch)
    assert failed and calls == [READ, WRITE_SEED]
    assert result["msg"].startswith("the Northbound transaction failed: ovn-nbctl: transaction error")
    assert len(result["commands"]) == 15
    assert "changed" not in result


def test_default_database_and_no_tls(monkeypatch):
    params = {"load_balancers": [{"name": "lb1", "vip": "10.0.0.1", "backends": "10.0.1.1,10.0.1.2"}]}
    read = (NBCTL, "--timeout=30") + READ[len(BASE):]
    write = (NBCTL, "--timeout=30", "--", "--id=@lb0", "create", "Load_Balancer", "name=lb1", "protocol=tcp",
             'vips={10.0.0.1="10.0.1.1,10.0.1.2"}')
    result, failed, calls = run_module(ovn_topology.main, params, {read: (0, NB_EMPTY, ""), write: (0, CREATED, "")}, monkeypatch)
    assert not failed, result
    assert calls == [read, write]


def test_argument_spec_matches_documented_top_level_options():
    import yaml
    doc = yaml.safe_load(ovn_topology.DOCUMENTATION)
    assert set(doc["options"]) == set(ovn_topology.argument_spec())
    for kind, suboptions in (("switches", "switch"), ("routers", "router"), ("load_balancers", "load_balancer")):
        from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_fields import FIELDS
        assert set(doc["options"][kind]["suboptions"]) == set(FIELDS[suboptions])
    assert set(doc["options"]["switches"]["suboptions"]["ports"]["suboptions"]) == set(FIELDS["switch_port"])
    router = doc["options"]["routers"]["suboptions"]
    assert set(router["ports"]["suboptions"]) == set(FIELDS["router_port"])
    assert set(router["ports"]["suboptions"]["gateway_chassis"]["suboptions"]) == set(FIELDS["gateway_chassis"])
    assert set(router["static_routes"]["suboptions"]) == set(FIELDS["static_route"])
    assert set(router["nat"]["suboptions"]) == set(FIELDS["nat"])


def _as_text(**extra):
    """The reference declaration moved into the ``topology`` JSON text."""
    params = args(**extra)
    body = dict((key, params.pop(key)) for key in ("switches", "routers", "load_balancers"))
    params["topology"] = json.dumps(body)
    return params


def test_topology_text_writes_the_same_transaction(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, _as_text(), {READ: (0, NB_EMPTY, ""), WRITE_SEED: (0, CREATED, "")}, monkeypatch)
    assert not failed, result
    assert calls == [READ, WRITE_SEED]
    assert len(result["commands"]) == 15
    assert result["invocation"]["module_args"]["topology"].endswith("characters of JSON)")


def test_topology_text_is_idempotent(monkeypatch):
    result, failed, calls = run_module(ovn_topology.main, _as_text(), {READ: (0, NB_SEED, "")}, monkeypatch)
    assert (failed, calls, result["changed"], result["commands"]) == (False, [READ], False, [])


def test_topology_text_errors_name_the_objects(monkeypatch):
    params = args()
    params["routers"][0]["ports"][0]["mac"] = "zz"
    body = {"routers": params["routers"], "load_balancers": params["load_balancers"]}
    result, failed, calls = run_module(ovn_topology.main, {"topology": json.dumps(body)}, {}, monkeypatch)
    assert failed and calls == []
    assert "routers[lr0].ports[p1].mac: 'zz' is not a MAC address" in result["errors"]


@pytest.mark.parametrize("text, message", [
    ("{not json", "topology: not valid JSON"),
    ("[1, 2]", "topology: the JSON must be an object with switches, routers and load_balancers, not list"),
    ('{"switch": []}', "topology.switch: unknown key; the keys are switches, routers, load_balancers"),
    ('{"routers": {"name": "lr0"}}', "topology.routers: must be a list"),
])
def test_topology_text_refused_before_any_command(monkeypatch, text, message):
    result, failed, calls = run_module(ovn_topology.main, {"topology": text}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"].startswith("invalid OVN topology: " + message), result["msg"]


def test_topology_text_and_lists_are_exclusive(monkeypatch):
    params = _as_text()
    params["switches"] = [{"name": "sw9"}]
    result, failed, calls = run_module(ovn_topology.main, params, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == "topology is mutually exclusive with switches: give the declaration one way"
