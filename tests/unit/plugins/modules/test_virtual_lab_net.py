"""virtual_lab_net with run_command answered from outputs captured on a real
host (tests/unit/plugins/modules/fixtures/virtual_lab, see README there)."""
import os

import pytest

from ansible_collections.offload.testbed.plugins.modules import virtual_lab_net
from modtest import run_module

HERE = os.path.dirname(__file__)
FIX = os.path.join(HERE, "fixtures", "virtual_lab")

LAB = {
    "bridge": "utb-br",
    "networks": [{"name": "servers", "cidr": "192.168.70.0/24", "vlan": 30}],
    "namespaces": [{"name": "utb-a", "links": [{
        "name": "eth0", "peer": "utb-a0", "network": "servers",
        "address": "192.168.70.3/24", "gateway": "192.168.70.1", "mac": "50:54:00:00:00:0a"}]}],
    "internal_ports": [{"name": "utb-mgt", "network": "servers", "address": "192.168.70.2/24"}],
}

WRITES = [
    ("ip", "netns", "add", "utb-a"),
    ("ip", "-n", "utb-a", "link", "set", "dev", "lo", "up"),
    ("ip", "link", "add", "utb-a0", "type", "veth", "peer", "name", "eth0", "netns", "utb-a"),
    ("ip", "link", "set", "dev", "utb-a0", "mtu", "1500"),
    ("ip", "link", "set", "dev", "utb-a0", "up"),
    ("ethtool", "-K", "utb-a0", "tx", "off", "tso", "off", "gso", "off"),
    ("ip", "-n", "utb-a", "link", "set", "dev", "eth0", "address", "50:54:00:00:00:0a"),
    ("ip", "-n", "utb-a", "link", "set", "dev", "eth0", "mtu", "1500"),
    ("ip", "-n", "utb-a", "link", "set", "dev", "eth0", "up"),
    ("ip", "netns", "exec", "utb-a", "ethtool", "-K", "eth0", "tx", "off", "tso", "off", "gso", "off"),
    ("ip", "-n", "utb-a", "addr", "add", "192.168.70.3/24", "dev", "eth0"),
    ("ip", "-n", "utb-a", "route", "replace", "default", "via", "192.168.70.1"),
    ("ovs-vsctl", "--timeout=30", "--", "add-br", "utb-br", "--", "set", "Bridge", "utb-br", "datapath_type=netdev",
     "fail_mode=standalone", "external_ids:offload-testbed=virtual_lab", "--", "add-port", "utb-br", "utb-a0", "tag=30",
     "--", "set", "Interface", "utb-a0", 'external_ids:offload-testbed="virtual_lab"',
     "--", "add-port", "utb-br", "utb-mgt", "tag=30", "--", "set", "Interface", "utb-mgt", "type=internal",
     'external_ids:offload-testbed="virtual_lab"'),
    ("ip", "link", "set", "dev", "utb-mgt", "mtu", "1500"),
    ("ip", "link", "set", "dev", "utb-mgt", "up"),
    ("ethtool", "-K", "utb-mgt", "tx", "off", "tso", "off", "gso", "off"),
    ("ip", "addr", "add", "192.168.70.2/24", "dev", "utb-mgt"),
]


def fixture(name):
    with open(os.path.join(FIX, name)) as handle:
        return handle.read()


def reads(prefix):
    """The read commands and their real outputs, empty host or built lab."""
    table = {
        ("ip", "netns", "list"): (0, fixture(prefix + "_netns_list.txt"), ""),
        ("ip", "-j", "addr", "show"): (0, fixture(prefix + "_ip_addr.json"), ""),
        ("ovs-vsctl", "--timeout=10", "--format=json", "list", "Bridge"): (0, fixture(prefix + "_ovs_bridge.json"), ""),
        ("ovs-vsctl", "--timeout=10", "--format=json", "list", "Port"): (0, fixture(prefix + "_ovs_port.json"), ""),
        ("ovs-vsctl", "--timeout=10", "--format=json", "list", "Interface"): (0, fixture(prefix + "_ovs_interface.json"), ""),
    }
    if prefix == "built":
        table.update({
            ("ip", "-j", "-n", "utb-a", "addr", "show"): (0, fixture("built_ns_addr.json"), ""),
            ("ip", "-j", "-n", "utb-a", "route", "show"): (0, fixture("built_ns_route.json"), ""),
            ("ethtool", "-k", "utb-a0"): (0, fixture("built_ethtool_peer.txt"), ""),
            ("ip", "netns", "exec", "utb-a", "ethtool", "-k", "eth0"): (0, fixture("built_ethtool_ns.txt"), ""),
            ("ethtool", "-k", "utb-mgt"): (0, fixture("built_ethtool_mgt.txt"), ""),
        })
    return table


def test_builds_from_nothing_in_one_ovs_transaction(monkeypatch):
    empty, built = reads("empty"), reads("built")

    def read(key):
        """Reads answer with the empty host until the last write ran, then with the built lab."""
        def respond(calls):
            return built[key] if WRITES[-1] in calls else empty.get(key, built[key])
        return respond

    table = dict((key, read(key)) for key in set(empty) | set(built))
    for cmd in WRITES:
        table[cmd] = (0, "", "")
    result, failed, calls = run_module(virtual_lab_net.main, dict(LAB, _ansible_diff=True), table, monkeypatch)
    assert not failed, result
    assert result["changed"] is True
    ran_writes = [c for c in calls if c in WRITES]
    assert ran_writes == WRITES
    assert sum(1 for c in calls if c[0] == "ovs-vsctl" and "list" not in c) == 1
    assert result["lab"] == {"namespaces": {"utb-a": {"eth0": ["192.168.70.3/24"]}}, "internal_ports": {"utb-mgt": ["192.168.70.2/24"]}}
    assert result["diff"]["before"]["namespaces"] == {"utb-a": None}


def test_check_mode_plans_but_writes_nothing(monkeypatch):
    result, failed, calls = run_module(virtual_lab_net.main, dict(LAB, _ansible_check_mode=True), reads("empty"), monkeypatch)
    assert not failed
    assert result["changed"] is True
    assert result["commands"][0] == "ip netns add utb-a"
    assert len(result["commands"]) == len(WRITES)
    assert not [c for c in calls if c in WRITES]


def test_second_run_changes_nothing(monkeypatch):
    result, failed, calls = run_module(virtual_lab_net.main, LAB, reads("built"), monkeypatch)
    assert not failed
    lab = {"namespaces": {"utb-a": {"eth0": ["192.168.70.3/24"]}}, "internal_ports": {"utb-mgt": ["192.168.70.2/24"]}}
    assert result == {"changed": False, "commands": [], "lab": lab}
    assert all(c[0] in ("ip", "ethtool", "ovs-vsctl") and ("list" in c or "show" in c or "-k" in c) for c in calls)


def test_absent_removes_only_what_the_lab_made(monkeypatch):
    table = reads("built")
    deletes = [("ip", "link", "del", "dev", "utb-a0"), ("ip", "netns", "del", "utb-a"),
               ("ovs-vsctl", "--timeout=30", "--", "--if-exists", "del-port", "utb-a0", "--", "--if-exists", "del-port", "utb-mgt",
                "--", "--if-exists", "del-br", "utb-br")]
    for cmd in deletes:
        table[cmd] = (0, "", "")
    result, failed, calls = run_module(virtual_lab_net.main, dict(LAB, state="absent", _ansible_check_mode=True), table, monkeypatch)
    assert not failed
    assert result["commands"] == [" ".join(c) for c in deletes]
    assert not [c for c in calls if c in deletes]


@pytest.mark.parametrize("change, message", [
    ({"networks": [{"name": "servers", "cidr": "192.168.70.0/33", "vlan": 30}]}, "networks[0].cidr: '192.168.70.0/33'"),
    ({"networks": [{"name": "servers", "cidr": "192.168.70.0/24", "vlan": 4095}]}, "networks[0].vlan: 4095"),
])
def test_bad_input_fails_before_any_command(monkeypatch, change, message):
    result, failed, calls = run_module(virtual_lab_net.main, dict(LAB, **change), {}, monkeypatch)
    assert failed
    assert message in result["msg"]
    assert calls == []


def test_a_failing_command_stops_with_its_error(monkeypatch):
    table = reads("empty")
    table[("ip", "netns", "add", "utb-a")] = (1, "", "Cannot create namespace file: Permission denied")
    result, failed, _calls = run_module(virtual_lab_net.main, LAB, table, monkeypatch)
    assert failed
    assert result["msg"] == "ip netns add utb-a failed (rc 1): Cannot create namespace file: Permission denied"


# What ovs-vsctl (3.1, Debian 12) prints when ovsdb-server is not running.
OVS_DOWN = (1, "", "ovs-vsctl: unix:/var/run/openvswitch/db.sock: database connection failed (No such file or directory)\n")


def ovs_down(table):
    for key in list(table):
        if key[0] == "ovs-vsctl" and "list" in key:
            table[key] = OVS_DOWN
    return table


def test_absent_with_open_vswitch_stopped_removes_namespaces_and_wires_and_warns(monkeypatch):
    table = ovs_down(reads("built"))
    deletes = [("ip", "link", "del", "dev", "utb-a0"), ("ip", "netns", "del", "utb-a")]
    for cmd in deletes:
        table[cmd] = (0, "", "")
    warnings = []
    monkeypatch.setattr(virtual_lab_net.AnsibleModule, "warn", lambda self, text: warnings.append(text))
    result, failed, calls = run_module(virtual_lab_net.main, dict(LAB, state="absent"), table, monkeypatch)
    assert not failed, result
    assert result["commands"] == [" ".join(c) for c in deletes]
    assert [c for c in calls if c in deletes] == deletes
    assert not [c for c in calls if c[0] == "ovs-vsctl" and "list" not in c]
    assert warnings and "Open vSwitch does not answer (ovs-vsctl --timeout=10 --format=json list Bridge)" in warnings[0]


def test_present_with_open_vswitch_stopped_fails_with_its_error(monkeypatch):
    result, failed, calls = run_module(virtual_lab_net.main, LAB, ovs_down(reads("empty")), monkeypatch)
    assert failed
    assert result["msg"] == ("ovs-vsctl --timeout=10 --format=json list Bridge failed (rc 1): "
                             "ovs-vsctl: unix:/var/run/openvswitch/db.sock: database connection failed (No such file or directory)")
    assert not [c for c in calls if c[0] != "ovs-vsctl" and c not in reads("empty")]
