"""dut_health refuses an ovs-appctl command that could change the switch before it reads anything."""
import os

import pytest

from ansible_collections.offload.testbed.plugins.modules import dut_health
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module


@pytest.mark.parametrize("command", ["exit", "dpif-netdev/pmd-stats-clear", "vlog/set dbg"])
def test_refuses_a_pmd_stats_command_that_does_not_only_read(monkeypatch, command):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: pytest.fail("dut_health read the pid"))
    result, failed, calls = run_module(dut_health.main, {"pmd_stats_command": command}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == ("pmd_stats_command: %r is not a read-only ovs-appctl command printing PMD statistics; use "
                             "dpif-netdev/pmd-stats-show or dpif-doca/pmd-stats-show (OVS-DOCA), or \"\" to skip" % command)


def test_all_flows_counts_only_the_offloaded_ones_as_offloaded(monkeypatch, tmp_path):
    fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "offload_facts", "ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")
    with open(fixture) as handle:
        flows = handle.read()
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health, "read_cpu", lambda pid: {"clk_tck": 100, "monotonic": 1.0, "times": {}, "pmd_threads": []})
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name if name == "ovs-appctl" else None)
    table = {("/usr/bin/ovs-appctl", "dpctl/dump-flows", "-m"): (0, flows, "")}
    result, failed, calls = run_module(dut_health.main, {"all_flows": True, "pmd_stats_command": "", "core_dirs": [str(tmp_path)]}, table, monkeypatch)
    assert not failed and calls == list(table)
    # two flows offloaded:yes dp:tc (one carried packets), one dp:ovs left in the kernel datapath
    assert (result["offloaded_flows"], result["offloaded_flows_with_packets"]) == (2, 1) and result["all_flows"] is True
    assert result["flow_counters"]["34a47ff4-1e36-41cd-953e-909b51e5bf79"] == {"dp": "ovs", "offloaded": None, "packets": 200}


HERE = os.path.dirname(os.path.abspath(__file__))
VSCTL = ("/usr/bin/ovs-vsctl", "--timeout=5", "--format=json")
OTHER_CONFIG = VSCTL + ("--columns=other_config", "list", "Open_vSwitch")
DUMP_ALL = ("/usr/bin/ovs-appctl", "dpctl/dump-flows", "-m")


def read(*parts):
    with open(os.path.join(*parts)) as handle:
        return handle.read()


def health(monkeypatch, tmp_path, args, table):
    """dut_health with ovs-vswitchd running, ovs-appctl and ovs-vsctl installed and no PMD statistics asked for."""
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health, "read_cpu", lambda pid: {"clk_tck": 100, "monotonic": 1.0, "times": {}, "pmd_threads": []})
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path",
                        lambda self, name, *a, **kw: "/usr/bin/" + name if name in ("ovs-appctl", "ovs-vsctl") else None)
    return run_module(dut_health.main, dict(args, pmd_stats_command="", core_dirs=[str(tmp_path)]), table, monkeypatch)


def test_hw_offload_on_the_kernel_datapath_dumps_every_flow(monkeypatch, tmp_path):
    # the ASAP2 bench's switch database (hw-offload=true, bridges on the kernel datapath) and, as its dump, the veth
    # fixture's flows: a dp:tc flow not in hardware, which type=offloaded would have left out, and two dp:ovs
    table = {OTHER_CONFIG: (0, read(HERE, "fixtures", "dut_health", "asap2_other_config.json"), ""),
             VSCTL + ("list", "Bridge"): (0, read(HERE, "fixtures", "dut_health", "asap2_list_Bridge.json"), ""),
             DUMP_ALL: (0, read(HERE, "..", "..", "..", "fixtures", "ovs_tc", "ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt"), "")}
    result, failed, calls = health(monkeypatch, tmp_path, {}, table)
    assert not failed and calls == list(table)
    assert result["all_flows"] is True and (result["offloaded_flows"], result["offloaded_flows_with_packets"]) == (0, 0)
    assert result["flow_counters"]["f8c9546b-6bfc-46a9-b901-a44f39bfff71"] == {"dp": "tc", "offloaded": None, "packets": 1}


def test_hw_offload_on_userspace_bridges_or_all_flows_false_dumps_the_offloaded_ones(monkeypatch, tmp_path):
    offloaded = ("/usr/bin/ovs-appctl", "dpctl/dump-flows", "-m", "type=offloaded")
    # hw-offload=true (the ASAP2 bench's record) with only the virtual lab's netdev bridge: no TC
    table = {OTHER_CONFIG: (0, read(HERE, "fixtures", "dut_health", "asap2_other_config.json"), ""),
             VSCTL + ("list", "Bridge"): (0, read(HERE, "fixtures", "virtual_lab", "built_ovs_bridge.json"), ""),
             offloaded: (0, "", "")}
    result, failed, calls = health(monkeypatch, tmp_path, {}, table)
    assert not failed and calls == list(table) and result["all_flows"] is False and result["flow_counters"] == {}
    # all_flows: false is kept whatever the switch's configuration: the database is not read
    result, failed, calls = health(monkeypatch, tmp_path, {"all_flows": False}, {offloaded: (0, "", "")})
    assert not failed and calls == [offloaded] and result["all_flows"] is False
    # a database that cannot be read leaves only the offloaded flows
    table = {OTHER_CONFIG: (1, "", "ovs-vsctl: unix:/var/run/openvswitch/db.sock: database connection failed (No such file or directory)\n"),
             offloaded: (0, "", "")}
    result, failed, calls = health(monkeypatch, tmp_path, {}, table)
    assert not failed and calls == list(table) and result["all_flows"] is False
