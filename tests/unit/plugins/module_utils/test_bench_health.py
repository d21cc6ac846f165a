# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""DUT health of the bench (plugins/module_utils/bench/health.py) on real outputs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ansible_collections.offload.testbed.plugins.module_utils.bench import health as bh
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))


def read(path):
    with open(path) as handle:
        return handle.read()


def test_pmd_stats_show_main_thread():
    text = read(os.path.join(ROOT, "tests", "fixtures", "ovs_appctl_pmd_stats_show_netdev_main_thread_debian12.txt"))
    stats = bh.parse_pmd_stats_show(text)
    assert list(stats) == ["main"]
    main = stats["main"]
    assert main["packets_received"] == 2118779
    # every packet received is a hit of one cache or a miss
    assert main["emc_hits"] + main["smc_hits"] + main["megaflow_hits"] + main["miss_with_success_upcall"] + main["miss_with_failed_upcall"] == 2118779
    assert main["avg_packets_per_output_batch"] == 8.75


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


# CPU use during a trial.  The proc_stat_2cpu_* fixtures are /proc/stat as this project's 2-CPU development VM
# (kernel 6.18, CLK_TCK 100, a hypervisor that steals time) printed it before and after 2 s of one, then two,
# busy loops; the MONOTONIC_* pairs are time.monotonic() read next to them.
MONOTONIC_ONE_BUSY = (20471.188121964, 20473.428937127)
MONOTONIC_BOTH_BUSY = (20479.142843312, 20481.412548947)


def fixture(name):
    return read(os.path.join(ROOT, "tests", "fixtures", "proc", name))


def reading(stat_text, monotonic, threads=(), pmd=None, clk_tck=100):
    """A dut_health result with the CPU counters of a /proc/stat text."""
    return dict(BEFORE, pmd=pmd or {}, cpu={"clk_tck": clk_tck, "monotonic": monotonic, "times": bh.parse_proc_stat(stat_text),
                                            "pmd_threads": list(threads)})


def one_busy(threads=((), ()), pmd=(None, None)):
    return (reading(fixture("proc_stat_2cpu_one_busy_before.txt"), MONOTONIC_ONE_BUSY[0], threads[0], pmd[0]),
            reading(fixture("proc_stat_2cpu_one_busy_after.txt"), MONOTONIC_ONE_BUSY[1], threads[1], pmd[1]))


def test_proc_stat_counters_of_every_cpu_line():
    times = bh.parse_proc_stat(fixture("proc_stat_2cpu_one_busy_before.txt"))
    assert sorted(times) == ["cpu", "cpu0", "cpu1"]
    assert times["cpu"] == {"user": 1814437, "nice": 0, "system": 398195, "idle": 1694705, "iowait": 16527, "irq": 0,
                            "softirq": 25953, "steal": 136449}
    assert times["cpu1"] == {"user": 1028241, "nice": 0, "system": 209586, "idle": 711752, "iowait": 13193, "irq": 0,
                             "softirq": 13970, "steal": 66940}
    # a kernel before 2.6.11 printed four counters; guest and guest_nice (already in user and nice) are not kept
    assert bh.parse_proc_stat("cpu  100 2 30 4000\ncpu0 100 2 30 4000 5 6 7 8 9 10\nctxt 57349820\n") == {
        "cpu": {"user": 100, "nice": 2, "system": 30, "idle": 4000, "iowait": 0, "irq": 0, "softirq": 0, "steal": 0},
        "cpu0": {"user": 100, "nice": 2, "system": 30, "idle": 4000, "iowait": 5, "irq": 6, "softirq": 7, "steal": 8}}
    assert bh.parse_proc_stat(None) == {} and bh.parse_proc_stat("") == {}


def test_task_stat_ticks_and_cpu_after_the_name():
    # revalidator17 of ovs-vswitchd 3.1 on the development VM: utime 0, stime 2, last on CPU 1
    assert bh.parse_task_stat(fixture("proc_task_stat_ovs_vswitchd_revalidator.txt")) == (2, 1)
    # a name with spaces and parentheses (made up: comm is any 15 bytes) does not shift the fields
    line = "4470 (pmd (a) b) R 1 2 3 0 -1 4194368 0 0 0 0 853000 390 0 0 10 -10 9 0 2039393 4 5 6 7 8 9 0 0 0 0 0 0 1 0 0 -1 3 0 0\n"
    assert bh.parse_task_stat(line) == (853390, 3)
    assert bh.parse_task_stat(None) is None and bh.parse_task_stat("4470 (pmd) R 1 2\n") is None


def test_cpu_use_of_a_trial_without_pmd_threads():
    record = bh.cpu_use(*one_busy())
    # deltas, all CPUs: user 312, system 31, idle 65, iowait 11, softirq 6, steal 36 = 461 ticks, busy 461 - 76 = 385;
    # cpu0 224 ticks, 221 busy, 10 steal; cpu1 234 ticks, 163 busy, 25 steal; wall 2.240815163 s = 224.08 ticks per CPU
    assert record == {
        "wall_s": 2.241, "clk_tck": 100, "cpus": 2, "busy": 0.8351, "steal": 0.0781,
        "per_cpu": [{"cpu": 0, "busy": 0.9866, "steal": 0.0446}, {"cpu": 1, "busy": 0.6966, "steal": 0.1068}],
        "pmd_threads": [], "pmd_stats": [], "others": 1.7181,
        "starved": ["the hypervisor stole 7.8 % of the CPU time (steal)"]}
    assert json.loads(json.dumps(record)) == record


def test_a_busy_machine_starves_a_datapath_without_pmd_threads():
    before = reading(fixture("proc_stat_2cpu_both_busy_before.txt"), MONOTONIC_BOTH_BUSY[0])
    after = reading(fixture("proc_stat_2cpu_both_busy_after.txt"), MONOTONIC_BOTH_BUSY[1])
    record = bh.cpu_use(before, after)
    # all CPUs: 457 ticks, 449 busy, 24 steal; cpu0 228 / 225 / 13, cpu1 230 / 225 / 11; wall 2.269705635 s
    assert (record["wall_s"], record["busy"], record["steal"], record["others"]) == (2.27, 0.9825, 0.0525, 1.9782)
    assert record["per_cpu"] == [{"cpu": 0, "busy": 0.9868, "steal": 0.057}, {"cpu": 1, "busy": 0.9783, "steal": 0.0478}]
    assert record["starved"] == [
        "the hypervisor stole 5.2 % of the CPU time (steal)",
        "no PMD thread polls for the datapath and the machine's 2 CPUs were 98.2 % busy (1.98 CPUs in use): the datapath competed with other tasks"]
    assert bh.starved(record, max_steal=0.06, max_busy=0.99) == []


PMD_BEFORE = [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 853298, "cpu": 1}]
PMD_AFTER = [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 853390, "cpu": 1}]
STATS_BEFORE = {"main": {"packets_received": 3}, "pmd1": {"numa": 0, "core": 1, "packets_received": 10, "idle_cycles": 2000, "processing_cycles": 500}}
STATS_AFTER = {"main": {"packets_received": 3}, "pmd1": {"numa": 0, "core": 1, "packets_received": 900, "idle_cycles": 5000, "processing_cycles": 9500}}


def test_a_preempted_pmd_thread_is_starved():
    record = bh.cpu_use(*one_busy((PMD_BEFORE, PMD_AFTER), (STATS_BEFORE, STATS_AFTER)))
    # 92 ticks of 224.08: 0.41 of a CPU; the others used 385 - 92 = 293 ticks, 1.31 CPUs
    assert record["pmd_threads"] == [{"tid": 4470, "name": "pmd-c01/id:5", "cpu": 1, "core": 1, "ticks": 92, "share": 0.4106,
                                      "polling": True}]
    assert record["pmd_stats"] == [{"thread": "pmd1", "numa": 0, "core": 1, "idle_cycles": 3000, "processing_cycles": 9000,
                                    "processing": 0.75, "polling": True, "packets": 890, "cycles_per_packet": 10.1}]
    assert record["others"] == 1.3076
    assert record["starved"] == ["pmd-c01/id:5 got 0.41 of CPU 1; other tasks used 1.31 CPUs",
                                 "the hypervisor stole 7.8 % of the CPU time (steal)"]
    assert bh.starved(record, pmd_min_share=0.4, max_steal=0.1) == []


# A 4-CPU machine without steal whose PMD thread on CPU 3 polled for the whole 2 s (made up, in the kernel's format).
HEALTHY_BEFORE = """cpu  10000 20 3000 50000 400 0 100 0 0 0
cpu0 2500 5 750 12500 100 0 25 0 0 0
cpu1 2500 5 750 12500 100 0 25 0 0 0
cpu2 2500 5 750 12500 100 0 25 0 0 0
cpu3 2500 5 750 12500 100 0 25 0 0 0
intr 0
ctxt 0
btime 1796124324
processes 10
procs_running 2
procs_blocked 0
softirq 0 0 0 0 0 0 0 0 0 0 0
"""
HEALTHY_AFTER = HEALTHY_BEFORE.replace("cpu  10000 20 3000 50000 ", "cpu  10220 20 3000 50580 ").replace(
    "cpu0 2500 5 750 12500 ", "cpu0 2520 5 750 12680 ").replace("cpu1 2500 5 750 12500 ", "cpu1 2500 5 750 12700 ").replace(
    "cpu2 2500 5 750 12500 ", "cpu2 2500 5 750 12700 ").replace("cpu3 2500 5 750 12500 ", "cpu3 2700 5 750 12500 ")


def test_a_pmd_thread_that_had_its_cpu_is_not_starved():
    before = reading(HEALTHY_BEFORE, 100.0, [dict(PMD_BEFORE[0], name="pmd-c03/id:7", cpu=3)])
    after = reading(HEALTHY_AFTER, 102.0, [dict(PMD_AFTER[0], name="pmd-c03/id:7", cpu=3, ticks=853298 + 199)])
    record = bh.cpu_use(before, after)
    assert (record["wall_s"], record["cpus"], record["busy"], record["steal"], record["others"]) == (2.0, 4, 0.275, 0.0, 0.105)
    assert [row["busy"] for row in record["per_cpu"]] == [0.1, 0.0, 0.0, 1.0]
    assert record["pmd_threads"] == [{"tid": 4470, "name": "pmd-c03/id:7", "cpu": 3, "core": 3, "ticks": 199, "share": 0.995,
                                      "polling": None}]
    assert record["starved"] == []


def test_a_pmd_thread_that_does_not_poll_is_not_starved():
    """A PMD without receive queues sleeps: OVS prints no cycles for it, its thread gets no CPU time."""
    idle = {"pmd1": {"numa": 0, "core": 1, "packets_received": 0}}
    record = bh.cpu_use(*one_busy((PMD_BEFORE, [dict(PMD_BEFORE[0])]), (idle, idle)))
    assert record["pmd_threads"][0]["share"] == 0.0 and record["pmd_threads"][0]["polling"] is False
    assert record["pmd_stats"][0]["polling"] is False and record["pmd_stats"][0]["processing"] is None
    assert record["starved"] == ["the hypervisor stole 7.8 % of the CPU time (steal)"]
    # unknown whether it polls (no statistics): a PMD thread that got nothing is starved
    assert bh.cpu_use(*one_busy((PMD_BEFORE, [dict(PMD_BEFORE[0])])))["starved"][0] == "pmd-c01/id:5 got 0.00 of CPU 1; other tasks used 1.72 CPUs"


def test_pmd_statistics_cleared_during_the_trial_count_from_the_clearing():
    cleared = {"pmd1": {"numa": 0, "core": 1, "idle_cycles": 100, "processing_cycles": 300}}
    record = bh.cpu_use(*one_busy(pmd=(STATS_BEFORE, cleared)))
    assert record["pmd_stats"] == [{"thread": "pmd1", "numa": 0, "core": 1, "idle_cycles": 100, "processing_cycles": 300,
                                    "processing": 0.75, "polling": True, "packets": 0, "cycles_per_packet": None}]


def test_cpu_use_without_counters_is_empty_and_not_starved():
    empty = {"wall_s": None, "clk_tck": None, "cpus": 0, "busy": None, "steal": None, "per_cpu": [], "pmd_threads": [],
             "pmd_stats": [], "others": None, "starved": []}
    assert bh.cpu_use(None, None) == empty
    assert bh.cpu_use(BEFORE, dict(BEFORE)) == empty
    unreadable = {"clk_tck": 100, "monotonic": 1.0, "times": {}, "pmd_threads": []}
    assert bh.cpu_use(dict(BEFORE, cpu=unreadable), dict(BEFORE, cpu=dict(unreadable, monotonic=3.0))) == dict(empty, clk_tck=100)
    assert bh.starved(None) == [] and bh.starved({}) == []


def test_counters_that_go_back_count_nothing():
    before, after = one_busy()
    after["cpu"]["times"]["cpu"]["iowait"] = before["cpu"]["times"]["cpu"]["iowait"] - 3
    # all CPUs: 461 - 11 (iowait) = 450 ticks, busy 385
    assert bh.cpu_use(before, after)["busy"] == 0.8556


def test_wall_time_from_the_ticks_without_a_clock():
    before, after = one_busy()
    before["cpu"]["monotonic"] = after["cpu"]["monotonic"] = None
    # 461 ticks over 2 CPUs at 100 Hz
    assert bh.cpu_use(before, after)["wall_s"] == 2.305


def test_only_the_read_only_pmd_stats_commands_are_allowed():
    assert bh.pmd_stats_command_error("dpif-netdev/pmd-stats-show") is None
    assert bh.pmd_stats_command_error("dpif-doca/pmd-stats-show") is None
    assert bh.pmd_stats_command_error("") is None
    assert bh.pmd_stats_command_error("exit").startswith("pmd_stats_command: 'exit' is not a read-only ovs-appctl command")


def test_hw_offload_and_the_kernel_datapath():
    assert bh.hw_offload_on({"hw-offload": "true", "tc-policy": "skip_hw"}) and bh.hw_offload_on({"hw-offload": "TRUE"})
    assert not bh.hw_offload_on({"hw-offload": "false"}) and not bh.hw_offload_on({}) and not bh.hw_offload_on(None)
    # datapath_type unset is the kernel datapath, as system; netdev (the userspace datapath) and doca are not
    assert bh.is_kernel_datapath("system") and bh.is_kernel_datapath("") and bh.is_kernel_datapath(None)
    assert not bh.is_kernel_datapath("netdev") and not bh.is_kernel_datapath("doca")
