"""offload.testbed.ovn_topology against a REAL OVN Northbound database.

The test starts its own ``ovsdb-server`` (fixture ``nb`` in conftest.py) on a unix socket in a temporary
directory, with a database made by ``ovsdb-tool create`` from the installed
/usr/share/ovn/ovn-nb.ovsschema, runs the module's main() in-process (its
``run_command`` runs the real ``ovn-nbctl --db=unix:...``), and checks the
result with ``ovn-nbctl show``/``lr-nat-list``/``lb-list``/``lr-route-list``.
The system OVS/OVN is never touched: every command names the private socket.
"""
import copy
import json
import os
import subprocess

import pytest

from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.offload.testbed.plugins.modules import ovn_topology


FIXTURES = os.path.join(os.path.dirname(__file__), "..", "unit", "plugins", "modules", "fixtures", "ovn_topology")

# SEED: the logical topology of the ConnectX-6 Lx reference bench (docs/reference_benches.md).
with open(os.path.join(FIXTURES, "seed_topology.json")) as _handle:
    SEED = json.load(_handle)


class _Exit(Exception):
    def __init__(self, result, failed):
        super().__init__(result.get("msg"))
        self.result = result
        self.failed = failed


def nbctl(db, *args):
    return subprocess.run(["ovn-nbctl", "--db=" + db] + list(args), check=True, capture_output=True, text=True).stdout


def apply(monkeypatch, db, topology, **options):
    """Run the module's main() in-process; returns (result, failed)."""
    args = copy.deepcopy(topology)
    args["nb_db"] = db
    args.update(options)

    def exit_json(self, **kw):
        raise _Exit(kw, False)

    def fail_json(self, **kw):
        raise _Exit(kw, True)

    with monkeypatch.context() as patch:
        patch.setattr(basic.AnsibleModule, "exit_json", exit_json)
        patch.setattr(basic.AnsibleModule, "fail_json", fail_json)
        with patch_module_args(args):
            with pytest.raises(_Exit) as exc:
                ovn_topology.main()
    return exc.value.result, exc.value.failed


def test_lifecycle(nb, monkeypatch):
    # 1. check mode on the empty database: commands planned, nothing written
    result, failed = apply(monkeypatch, nb, SEED, _ansible_check_mode=True)
    assert not failed, result
    assert result["changed"] is True and len(result["commands"]) == 15
    assert nbctl(nb, "show") == ""

    # 2. apply the reference bench's topology
    result, failed = apply(monkeypatch, nb, SEED, _ansible_diff=True)
    assert not failed, result
    assert result["changed"] is True
    assert result["summary"]["switch_ports"]["created"] == 4
    assert [d["before_header"] for d in result["diff"]] == [
        "load_balancer lb-udp", "load_balancer lb-web", "router lr0", "switch external", "switch sw0"]
    show = nbctl(nb, "show")
    for text in ("(sw0)", "(external)", "(lr0)", "port port1", 'addresses: ["50:54:00:00:00:01 192.168.0.3"]',
                 "router-port: p1", "router-port: ext_gw", "type: localnet", 'addresses: ["unknown"]',
                 'mac: "00:00:00:01:ff:01"', 'networks: ["10.20.0.2/24"]', "gateway chassis: [chassis-1]",
                 'external ip: "18.0.0.188"', 'logical ip: "16.0.0.188"'):
        assert text in show, show
    assert nbctl(nb, "get", "Logical_Switch_Port", "downlink", "tag_request").strip() == "20"
    assert nbctl(nb, "get", "Logical_Switch_Port", "internet", "options:network_name").strip() == "physnet1"
    nat = nbctl(nb, "lr-nat-list", "lr0").splitlines()
    assert len(nat) == 2 and nat[1].split() == ["dnat_and_snat", "18.0.0.188", "16.0.0.188"]
    lbs = sorted(line.split()[1:] for line in nbctl(nb, "lb-list").splitlines()[1:])
    assert lbs == [["lb-udp", "udp", "18.0.0.172:8080", "192.168.0.3:8080,192.168.0.4:8080,192.168.0.5:8080"],
                   ["lb-web", "tcp", "18.0.0.172:80", "192.168.0.3:80,192.168.0.4:80,192.168.0.5:80"]]
    assert sorted(line.split()[1:] for line in nbctl(nb, "lr-lb-list", "lr0").splitlines()[1:]) == lbs
    routes = [line.split() for line in nbctl(nb, "lr-route-list", "lr0").splitlines()]
    assert ["48.0.0.0/16", "10.20.0.3", "dst-ip"] in routes and ["16.0.0.0/16", "192.168.0.3", "dst-ip"] in routes

    # 3. re-apply: nothing to do, nothing run
    result, failed = apply(monkeypatch, nb, SEED)
    assert (failed, result["changed"], result["commands"]) == (False, False, [])

    # 4. change one thing: a backend leaves lb-web
    changed = copy.deepcopy(SEED)
    changed["load_balancers"][0]["backends"] = ["192.168.0.3:80", "192.168.0.4:80"]
    result, failed = apply(monkeypatch, nb, changed)
    assert not failed, result
    assert result["commands"] == ["set Load_Balancer lb-web 'vips={\"18.0.0.172:80\"=\"192.168.0.3:80,192.168.0.4:80\"}'"]
    assert nbctl(nb, "lb-list", "lb-web").splitlines()[1].split()[1:] == ["lb-web", "tcp", "18.0.0.172:80", "192.168.0.3:80,192.168.0.4:80"]
    result, failed = apply(monkeypatch, nb, changed)
    assert result["changed"] is False

    # 5. objects made by hand are left alone without purge ...
    nbctl(nb, "ls-add", "sw-old", "--", "lsp-add", "sw-old", "vm-old", "--", "lsp-add", "sw0", "stray",
          "--", "lb-add", "lb-old", "18.0.0.200:443", "192.168.0.9:443", "tcp", "--", "lr-lb-add", "lr0", "lb-old",
          "--", "lr-nat-add", "lr0", "snat", "18.0.0.1", "192.168.0.0/24", "--", "lr-route-add", "lr0", "0.0.0.0/0", "10.20.0.1",
          "--", "lr-add", "lr-old")
    result, failed = apply(monkeypatch, nb, changed)
    assert (failed, result["changed"]) == (False, False)

    # ... and deleted, in one transaction, with purge
    result, failed = apply(monkeypatch, nb, changed, purge=True)
    assert not failed, result
    assert result["summary"]["switches"]["deleted"] == 1 and result["summary"]["routers"]["deleted"] == 1
    assert result["summary"]["switch_ports"]["deleted"] == 1 and result["summary"]["load_balancers"]["deleted"] == 1
    assert result["summary"]["nat"]["deleted"] == 1 and result["summary"]["static_routes"]["deleted"] == 1
    show = nbctl(nb, "show")
    for gone in ("sw-old", "vm-old", "stray", "lr-old"):
        assert gone not in show
    assert "lb-old" not in nbctl(nb, "lb-list")
    assert len(nbctl(nb, "lr-nat-list", "lr0").splitlines()) == 2
    assert "0.0.0.0/0" not in nbctl(nb, "lr-route-list", "lr0")
    assert len(nbctl(nb, "--bare", "--columns=_uuid", "list", "Logical_Switch_Port").split()) == 4  # orphans collected
    result, failed = apply(monkeypatch, nb, changed, purge=True)
    assert result["changed"] is False, result["commands"]


def test_updates_moves_and_new_forms(nb, monkeypatch):
    """Gateway chassis, tag, options, a port moved between switches, an IPv6 VIP
    and a VIP without port, all against the real database."""
    result, failed = apply(monkeypatch, nb, SEED, purge=True)
    assert not failed, result
    topo = copy.deepcopy(SEED)
    topo["routers"][0]["ports"][1]["gateway_chassis"] = [{"chassis": "chassis-1", "priority": 20}, {"chassis": "chassis-2", "priority": 5}]
    topo["switches"][1]["ports"][1]["tag"] = 30
    topo["switches"][1]["ports"][0]["options"] = {"localnet_learn_fdb": "true"}
    topo["switches"][1]["ports"].append(topo["switches"][0]["ports"].pop(0))  # port1 moves to "external"
    topo["routers"][0]["ports"][0]["networks"] = ["192.168.0.1/24", "fd00::1/64"]
    topo["load_balancers"].append({"name": "lb-v6", "vips": {"[fd00::172]:443": ["[fd00::3]:443", "[fd00::4]:443"],
                                                             "10.0.0.1": "10.0.1.1,10.0.1.2"}, "protocol": "tcp"})
    topo["switches"][0]["load_balancers"] = ["lb-v6"]
    result, failed = apply(monkeypatch, nb, topo, purge=True)
    assert not failed, result
    assert result["summary"]["switch_ports"]["updated"] == 3
    assert result["summary"]["router_ports"]["updated"] == 2
    gcs = sorted(nbctl(nb, "lrp-get-gateway-chassis", "ext_gw").split())
    assert gcs == sorted(["ext_gw-chassis-1", "20", "ext_gw-chassis-2", "5"])
    assert nbctl(nb, "get", "Logical_Switch_Port", "downlink", "tag_request").strip() == "30"
    assert nbctl(nb, "lsp-get-ls", "port1").split()[1] == "(external)"
    assert "fd00::1/64" in nbctl(nb, "get", "Logical_Router_Port", "p1", "networks")
    v6 = nbctl(nb, "lb-list", "lb-v6")
    assert "[fd00::172]:443" in v6 and "[fd00::3]:443,[fd00::4]:443" in v6 and "10.0.1.1,10.0.1.2" in v6
    assert "lb-v6" in nbctl(nb, "ls-lb-list", "sw0")
    result, failed = apply(monkeypatch, nb, topo, purge=True)
    assert (failed, result["changed"], result["commands"]) == (False, False, [])


def test_invalid_declaration_touches_nothing(nb, monkeypatch):
    before = nbctl(nb, "show")
    topo = copy.deepcopy(SEED)
    topo["routers"][0]["static_routes"][0]["nexthop"] = "10.99.0.3"
    topo["routers"][0]["nat"][0]["external_ip"] = None
    result, failed = apply(monkeypatch, nb, topo, purge=True)
    assert failed
    assert result["errors"] == [
        "routers[lr0].static_routes[48.0.0.0/16].nexthop: 10.99.0.3 is in no network of the ports of router lr0",
        "routers[lr0].nat[0].external_ip: a NAT rule needs both external_ip and logical_ip",
    ]
    assert nbctl(nb, "show") == before
