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
