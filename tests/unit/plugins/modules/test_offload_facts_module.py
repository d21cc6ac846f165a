# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The offload_facts module: commands answered with real outputs (fixtures/offload_facts/README.md), a missing tool is a note, never a
failure, and its DOCUMENTATION is its argument spec."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.offload.testbed.plugins.modules import offload_facts
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.modules.test_dpdk_docs import differences

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures", "offload_facts")
PMD = os.path.join(HERE, "..", "..", "..", "fixtures", "ovs_appctl_pmd_stats_show_netdev_main_thread_debian12.txt")


def read(name, where=FIXTURES):
    with open(os.path.join(where, name)) as handle:
        return handle.read()


def tools(monkeypatch, present):
    monkeypatch.setattr(offload_facts.AnsibleModule, "get_bin_path",
                        lambda self, name, *args, **kwargs: "/usr/sbin/" + name if name in present else None)


def test_every_source_read_from_real_outputs(monkeypatch):
    tools(monkeypatch, ("ovs-appctl", "tc", "ethtool", "conntrack", "ip"))
    table = {
        ("/usr/sbin/ovs-appctl", "dpctl/dump-flows", "-m"): (0, read("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt"), ""),
        ("/usr/sbin/ovs-appctl", "dpif-netdev/pmd-stats-show"): (0, read(PMD, ""), ""),
        ("/usr/sbin/tc", "-s", "filter", "show", "dev", "enp0s3", "ingress"): (0, read("tc_s_filter_show_ingress_not_in_hw_two_flower.txt"), ""),
        ("/usr/sbin/ip", "netns", "exec", "ltb-gen", "/usr/sbin/tc", "-s", "filter", "show", "dev", "eth0", "ingress"): (0, "", ""),
        ("/usr/sbin/ethtool", "-S", "ens1f0np0"): (0, read("ethtool_S_mlx5_grep_rx_packets_63_rings.txt"), ""),
        ("/usr/sbin/ethtool", "-S", "ltb-gen0"): (0, read("ethtool_S_veth_lab_host.txt"), ""),
        ("/usr/sbin/conntrack", "-L"): (0, read("conntrack_L_flowtable_offload_ubicloud.txt"), ""),
    }
    result, failed, calls = run_module(offload_facts.main, {
        "dump_flows": "all", "tc_devices": ["enp0s3", "ltb-gen/eth0"], "queue_devices": ["ens1f0np0", "ltb-gen0"], "conntrack": True},
        table, monkeypatch)
    assert not failed and result["changed"] is False and len(calls) == len(table) and result["notes"] == []
    assert result["all_flows"] is True and result["flows_by_dp"]["tc"] == {"flows": 2, "flows_with_packets": 1, "packets": 153, "offloaded": 2}
    assert result["pmd"]["main"]["packets_received"] == 2118779
    assert result["tc_summary"]["enp0s3"]["not_in_hw"] == 2 and result["tc"]["ltb-gen/eth0"] == {}
    assert result["queues"]["ens1f0np0"]["counter"] == "rxN_packets" and result["queues"]["ltb-gen0"]["packets"] == {"0": 0}
    assert result["conntrack"] == {"entries": 6, "offload": 5, "hw_offload": 0}


def test_missing_tools_are_notes_not_failures(monkeypatch, tmp_path):
    tools(monkeypatch, ("ethtool",))
    monkeypatch.setattr(offload_facts, "CONNTRACK_PROC", str(tmp_path / "nf_conntrack"))
    # what ethtool 6.1 on this machine prints for a device that does not exist, and for one without statistics (lo)
    table = {("/usr/sbin/ethtool", "-S", "nosuch0"): (96, "", "Cannot get stats strings information: No such device\n"),
             ("/usr/sbin/ethtool", "-S", "lo"): (94, "", "no stats available\n")}
    result, failed, calls = run_module(offload_facts.main, {"tc_devices": ["p0"], "queue_devices": ["nosuch0", "lo"], "conntrack": True},
                                       table, monkeypatch)
    assert not failed and len(calls) == 2
    assert result["flows"] is None and result["pmd"] == {} and result["tc"] == {"p0": None} and result["tc_summary"] == {"p0": None}
    assert result["queues"] == {"nosuch0": None, "lo": None} and result["conntrack"] is None
    assert result["notes"] == [
        "ovs-appctl dump-flows: ovs-appctl is not installed", "ovs-appctl pmd stats: ovs-appctl is not installed", "tc p0: tc is not installed",
        "ethtool -S nosuch0: /usr/sbin/ethtool -S nosuch0 failed (rc 96): Cannot get stats strings information: No such device",
        "ethtool -S lo: /usr/sbin/ethtool -S lo failed (rc 94): no stats available",
        "conntrack: neither the conntrack tool nor %s is there" % (tmp_path / "nf_conntrack")]


def test_conntrack_from_proc_without_the_tool(monkeypatch, tmp_path):
    tools(monkeypatch, ())
    proc = tmp_path / "nf_conntrack"
    proc.write_text(read("proc_net_nf_conntrack_hw_offload_openwrt.txt"))
    monkeypatch.setattr(offload_facts, "CONNTRACK_PROC", str(proc))
    result, failed, _calls = run_module(offload_facts.main, {"dump_flows": "none", "pmd_stats_command": "", "conntrack": True}, {}, monkeypatch)
    assert not failed and result["conntrack"] == {"entries": 1, "offload": 0, "hw_offload": 1} and result["notes"] == []


def test_refuses_a_command_that_could_change_the_switch(monkeypatch):
    tools(monkeypatch, ("ovs-appctl",))
    result, failed, calls = run_module(offload_facts.main, {"pmd_stats_command": "exit"}, {}, monkeypatch)
    assert failed and calls == [] and "not a read-only ovs-appctl command" in result["msg"]


def test_device_names_are_checked_by_the_one_rule_before_anything_runs(monkeypatch):
    tools(monkeypatch, ("ovs-appctl", "tc", "ethtool"))
    args = {"dump_flows": "none", "pmd_stats_command": "", "tc_devices": ["ltb-gen/a-name-far-too-long"], "queue_devices": ["ltb gen/eth0"]}
    result, failed, calls = run_module(offload_facts.main, args, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == (
        "tc_devices[0]: 'a-name-far-too-long' is 19 characters long; the kernel takes at most 15 in the name of a network interface "
        "(IFNAMSIZ 16 with the closing NUL): shorten it, for example to 'a-name-far-too-'; queue_devices[0] (its namespace): 'ltb gen' is no "
        "network namespace name (ip netns takes 1 to 255 characters, no '/', not '.' or '..', and a name with white space breaks the command "
        "lines it goes into); use letters, digits, '-', '_' and '.'")


def test_documentation_is_the_argument_spec():
    doc = yaml.safe_load(offload_facts.DOCUMENTATION)
    assert doc["module"] == "offload_facts"
    assert differences(doc["options"], offload_facts.ARGUMENT_SPEC) == []
    assert yaml.safe_load(offload_facts.EXAMPLES) and yaml.safe_load(offload_facts.RETURN)


@pytest.mark.parametrize("key", ["flows", "all_flows", "flows_by_dp", "pmd", "tc", "tc_summary", "conntrack", "queues", "notes"])
def test_every_returned_key_is_documented(key):
    assert key in yaml.safe_load(offload_facts.RETURN)
