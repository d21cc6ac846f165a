"""ovs_switch with run_command answered from outputs captured on a real host
(fixtures/ovs_switch: before and after this very declaration was applied)."""
import os

from ansible_collections.offload.testbed.plugins.modules import ovs_switch
from modtest import run_module

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "ovs_switch")
DECL = {
    "other_config": {"hw-offload": "false", "pmd-cpu-mask": "0x2"},
    "external_ids": {"ovn-remote": "ssl:10.10.0.4:6642", "ovn-encap-type": "geneve", "ovn-bridge-mappings": "physnet1:tst-under"},
    "bridges": [
        {"name": "tst-under", "datapath_type": "netdev", "fail_mode": "standalone", "ports": [
            {"name": "tst-mgt", "type": "internal", "tag": 10, "address": "10.99.0.3/24", "offloads_off": ["tx", "tso", "gso"]},
            {"name": "tst-trunk", "type": "internal", "vlan_mode": "trunk", "trunks": [10, 20, 30], "options": {"n_rxq": 2},
             "other_config": {"pmd-rxq-affinity": "0:1,1:1"}}]},
        {"name": "tst-int", "datapath_type": "netdev", "fail_mode": "secure", "ports": [
            {"name": "tst-vm", "type": "internal", "external_ids": {"iface-id": "port9"}}]},
    ],
}
TRANSACTION = (
    "ovs-vsctl", "--timeout=30",
    "--", "set", "Open_vSwitch", ".", "other_config:hw-offload=false", "other_config:pmd-cpu-mask=0x2",
    'external_ids:ovn-bridge-mappings="physnet1:tst-under"', "external_ids:ovn-encap-type=geneve",
    'external_ids:ovn-remote="ssl:10.10.0.4:6642"',
    "--", "add-br", "tst-under", "--", "set", "Bridge", "tst-under", "datapath_type=netdev", "fail_mode=standalone",
    "--", "add-port", "tst-under", "tst-mgt", "--", "set", "Port", "tst-mgt", "tag=10", "--", "set", "Interface", "tst-mgt", "type=internal",
    "--", "add-port", "tst-under", "tst-trunk", "--", "set", "Port", "tst-trunk", "trunks=10,20,30", "vlan_mode=trunk",
    "--", "set", "Interface", "tst-trunk", "type=internal", "options:n_rxq=2", 'other_config:pmd-rxq-affinity="0:1,1:1"',
    "--", "add-br", "tst-int", "--", "set", "Bridge", "tst-int", "datapath_type=netdev", "fail_mode=secure",
    "--", "add-port", "tst-int", "tst-vm", "--", "set", "Interface", "tst-vm", "type=internal", "external_ids:iface-id=port9",
)
AFTER = [("ip", "link", "set", "dev", "tst-mgt", "up"), ("ip", "addr", "add", "10.99.0.3/24", "dev", "tst-mgt"),
         ("ethtool", "-K", "tst-mgt", "tx", "off", "tso", "off", "gso", "off")]


def read(name):
    with open(os.path.join(FIX, name)) as handle:
        return handle.read()


def reads(state):
    table = dict((("ovs-vsctl", "--timeout=30", "--format=json", "list", t), (0, read("%s_%s.json" % (state, t), ), ""))
                 for t in ("Open_vSwitch", "Bridge", "Port", "Interface"))
    table[("ip", "-j", "addr", "show")] = (0, read(state + "_ip_addr.json"), "")
    if state == "built":
        table[("ethtool", "-k", "tst-mgt")] = (0, read("built_ethtool_mgt.txt"), "")
    return table


def test_first_run_is_one_transaction_then_addresses(monkeypatch):
    table = reads("empty")
    for cmd in [TRANSACTION] + AFTER:
        table[cmd] = (0, "", "")
    result, failed, calls = run_module(ovs_switch.main, DECL, table, monkeypatch)
    assert not failed, result
    assert [c for c in calls if c in [TRANSACTION] + AFTER] == [TRANSACTION] + AFTER
    assert result["restart_keys"] == ["pmd-cpu-mask"]
    assert result["changed"]


def test_second_run_changes_nothing(monkeypatch):
    result, failed, calls = run_module(ovs_switch.main, DECL, reads("built"), monkeypatch)
    assert not failed, result
    assert (result["changed"], result["commands"], result["restart_keys"]) == (False, [], [])
    assert len(calls) == 6


def test_check_mode_runs_no_write(monkeypatch):
    result, failed, calls = run_module(ovs_switch.main, dict(DECL, _ansible_check_mode=True, _ansible_diff=True), reads("empty"), monkeypatch)
    assert not failed
    assert result["commands"][0].startswith("ovs-vsctl --timeout=30 -- set Open_vSwitch . other_config:hw-offload=false")
    assert not [c for c in calls if c in [TRANSACTION] + AFTER]
    assert result["diff"]["before"]["bridges"] == {"tst-under": None, "tst-int": None}


def test_a_changed_tag_and_datapath_are_set_in_place(monkeypatch):
    decl = {"bridges": [{"name": "tst-under", "datapath_type": "system", "ports": [{"name": "tst-mgt", "tag": 20}]}]}
    table = reads("built")
    write = ("ovs-vsctl", "--timeout=30", "--", "set", "Bridge", "tst-under", "datapath_type=system", "--", "set", "Port", "tst-mgt", "tag=20")
    table[write] = (0, "", "")
    result, failed, calls = run_module(ovs_switch.main, decl, table, monkeypatch)
    assert not failed, result
    assert calls[-1] == write


def test_absent_deletes_the_declared_bridges(monkeypatch):
    table = reads("built")
    write = ("ovs-vsctl", "--timeout=30", "--", "--if-exists", "del-br", "tst-under", "--", "--if-exists", "del-br", "tst-int")
    table[write] = (0, "", "")
    result, failed, calls = run_module(ovs_switch.main, dict(DECL, state="absent"), table, monkeypatch)
    assert not failed, result
    assert calls[-1] == write


def test_bad_vlan_and_rxq_fail_before_reading(monkeypatch):
    decl = {"bridges": [{"name": "b", "ports": [{"name": "p", "tag": 4095, "options": {"n_rxq": 0}}]}]}
    result, failed, calls = run_module(ovs_switch.main, decl, {}, monkeypatch)
    assert failed and calls == []
    assert "bridges[0].ports[0] (p): VLAN 4095 is outside 1..4094" in result["msg"]
    assert "bridges[0].ports[0] (p): n_rxq 0 must be a whole number of at least 1" in result["msg"]


def test_names_the_kernel_or_the_database_would_not_keep_fail_before_reading(monkeypatch):
    decl = {"bridges": [
        {"name": "underlay-of-the-lab", "ports": [
            {"name": "mgt ", "type": "internal"},
            {"name": "dpdk-uplink-of-the-lab", "type": "dpdk"},
            {"name": "to-the-other-bridge ", "type": "patch", "options": {"peer": "x"}},
            {"name": "ens3f0npf0vf1:0"}]},
        {"name": "br-int", "ports": []}]}
    result, failed, calls = run_module(ovs_switch.main, decl, {}, monkeypatch)
    assert failed and calls == []
    assert result["errors"] == [
        "bridges[0].name: 'underlay-of-the-lab' is 19 characters long; the kernel takes at most 15 in the name of an Open vSwitch "
        "bridge, a kernel interface too (IFNAMSIZ 16 with the closing NUL): shorten it, for example to 'underlay-of-the'",
        "bridges[0].ports[0].name: 'mgt ' has trailing white space, which the kernel refuses in the name of an Open vSwitch port of "
        "type internal, a kernel interface too; write 'mgt'",
        "bridges[0].ports[2].name: 'to-the-other-bridge ' has trailing white space, which the database would keep as part of the name "
        "of an Open vSwitch port (what looks for 'to-the-other-bridge' would not find it); write 'to-the-other-bridge'",
        "bridges[0].ports[3].name: 'ens3f0npf0vf1:0' holds ':'; the kernel refuses '/', ':' and white space in the name of an Open "
        "vSwitch port of type system, a kernel interface too: use letters, digits, '-', '_' and '.'"]
