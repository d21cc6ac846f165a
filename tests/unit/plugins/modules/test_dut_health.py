"""dut_health refuses an ovs-appctl command that could change the switch before it reads anything."""
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
