# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""DUT health of the bench (plugins/module_utils/bench_health.py) on real outputs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.offload.testbed.plugins.module_utils import bench_health as bh
from ansible_collections.offload.testbed.plugins.module_utils.parsers import parse_dump_flows

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))


def read(path):
    with open(path) as handle:
        return handle.read()


def test_pmd_stats_show_main_thread():
    text = read(os.path.join(ROOT, "tests", "unit", "plugins", "action", "fixtures", "ovs_appctl_pmd_stats_show_netdev_main_thread.txt"))
    stats = bh.parse_pmd_stats_show(text)
    assert list(stats) == ["main"]
    assert stats["main"]["packets_received"] == 3847
    assert stats["main"]["emc_hits"] + stats["main"]["megaflow_hits"] + stats["main"]["miss_with_success_upcall"] == 3847
    assert stats["main"]["avg_packets_per_output_batch"] == 3.12


def test_pmd_stats_show_pmd_threads_keep_numa_and_core():
    text = ("pmd thread numa_id 0 core_id 1:\n  packets received: 10\n  idle cycles: 2000 (80.00%)\n"
            "main thread:\n  packets received: 3\n")
    stats = bh.parse_pmd_stats_show(text)
    assert stats["pmd1"] == {"numa": 0, "core": 1, "packets_received": 10, "idle_cycles": 2000}
    assert stats["main"] == {"packets_received": 3}


def test_offloaded_flows_that_carried_packets():
    flows = parse_dump_flows(read(os.path.join(ROOT, "tests", "fixtures", "ovs_dpctl_dump_flows_offloaded_cx6_tc.txt")))
    total, with_packets = bh.offloaded_summary(flows)
    assert total == len(flows) and 0 < with_packets < total
    assert bh.offloaded_summary(None) == (None, None)


BEFORE = {"pid": 100, "start_time": 5000, "restarts": 0, "core_dumps": ["/var/crash/old"]}


def test_a_healthy_trial_is_valid():
    assert bh.compare_health(BEFORE, dict(BEFORE)) == []
    assert bh.compare_health(None, None) == []


def test_restart_crash_and_core_dump_make_a_trial_invalid():
    assert "restarted" in bh.compare_health(BEFORE, dict(BEFORE, pid=101, start_time=5100))[0]
    assert "restarted" in bh.compare_health(BEFORE, dict(BEFORE, start_time=5100))[0]
    assert "not running" in bh.compare_health(BEFORE, dict(BEFORE, pid=None, start_time=None))[0]
    assert "restart count rose from 0 to 1" in bh.compare_health(BEFORE, dict(BEFORE, restarts=1))[0]
    reasons = bh.compare_health(BEFORE, dict(BEFORE, core_dumps=["/var/crash/old", "/var/crash/core.ovs-vswitchd.1"]))
    assert reasons == ["new core dump(s): /var/crash/core.ovs-vswitchd.1"]


def test_health_summary_keeps_what_the_results_file_stores():
    summary = bh.health_summary(dict(BEFORE, system={"kernel": "6.1"}, changed=False, offloaded_flows=3))
    assert summary == dict(BEFORE, offloaded_flows=3)
    assert bh.health_summary(None) is None


def test_a_trial_that_starts_without_ovs_is_invalid():
    assert bh.compare_health(dict(BEFORE, pid=None), dict(BEFORE, pid=None)) == ["ovs-vswitchd was not running when the trial started"]
