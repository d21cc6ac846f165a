# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench's modules: dut_health (commands from a table of real outputs) and bench_report (files from result files)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report
from ansible_collections.offload.testbed.plugins.module_utils.bench import stats
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import results as br
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import DEFAULT_GOALS
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search
from ansible_collections.offload.testbed.plugins.modules import bench_report as report_module
from ansible_collections.offload.testbed.plugins.modules import dut_health
from ansible_collections.offload.testbed.tests.support import device_models as dm
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import DOCA_PACKAGES, fixture, system_reads

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
jsonschema = pytest.importorskip("jsonschema")


def read(path):
    with open(path) as handle:
        return handle.read()


def test_dut_health_reads_pid_flows_and_pmd(monkeypatch, tmp_path):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health, "PROC", fake_proc(tmp_path / "proc", "proc_stat_2cpu_one_busy_before.txt", {
        4457: ("ovs-vswitchd", 66, 201, 1), 4470: ("pmd-c01/id:5", 853000, 298, 1), 4471: ("handler16", 0, 0, 0)}))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name)
    (tmp_path / "core.ovs-vswitchd.1").write_text("")
    (tmp_path / "unrelated.log").write_text("")
    table = {
        ("/usr/bin/ovs-appctl", "dpctl/dump-flows", "-m", "type=offloaded"):
            (0, read(os.path.join(ROOT, "tests", "fixtures", "ovs_dpctl_dump_flows_offloaded_cx6_tc.txt")), ""),
        ("/usr/bin/ovs-appctl", "dpif-netdev/pmd-stats-show"):
            (0, read(os.path.join(ROOT, "tests", "fixtures", "ovs_appctl_pmd_stats_show_netdev_main_thread_debian12.txt")), ""),
        # all_flows unset: hw-offload is false (as ovs-vsctl 3.1 printed it in the virtual lab), so only the offloaded flows
        ("/usr/bin/ovs-vsctl", "--timeout=5", "--format=json", "--columns=other_config", "list", "Open_vSwitch"): (
            0, '{"data":[[["map",[["default-datapath-type","netdev"],["emc-insert-inv-prob","0"],["hw-offload","false"]]]]],'
               '"headings":["other_config"]}\n', ""),
    }
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "2\n", "")
    result, failed, calls = run_module(dut_health.main, {"core_dirs": [str(tmp_path)]}, table, monkeypatch)
    assert not failed
    assert result["changed"] is False and result["pid"] == 4457 and result["start_time"] == 123456
    assert result["core_dumps"] == [str(tmp_path / "core.ovs-vswitchd.1")]
    assert result["offloaded_flows"] > result["offloaded_flows_with_packets"] > 0
    assert len(result["flow_counters"]) == result["offloaded_flows"] and result["all_flows"] is False
    assert result["pmd"]["main"]["packets_received"] == 2118779
    assert result["system"] is None and len(calls) == len(table)
    assert result["cpu"]["clk_tck"] == os.sysconf("SC_CLK_TCK") and isinstance(result["cpu"]["monotonic"], float)
    assert sorted(result["cpu"]["times"]) == ["cpu", "cpu0", "cpu1"] and result["cpu"]["times"]["cpu0"]["steal"] == 69509
    assert result["cpu"]["pmd_threads"] == [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 853298, "cpu": 1}]


def test_dut_health_without_ovs_runs_no_ovs_command(monkeypatch, tmp_path):
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: None)
    monkeypatch.setattr(dut_health, "PROC", fake_proc(tmp_path / "proc", "proc_stat_2cpu_one_busy_before.txt", {}))
    result, failed, calls = run_module(dut_health.main, {"pidfiles": [str(tmp_path / "none.pid")], "core_dirs": []}, {}, monkeypatch)
    assert not failed and result["pid"] is None and result["offloaded_flows"] is None and calls == []
    assert result["cpu"]["times"]["cpu"]["user"] == 1814437 and result["cpu"]["pmd_threads"] == []


def test_read_pid_needs_a_running_ovs_vswitchd(tmp_path):
    (tmp_path / "self.pid").write_text("%d\n" % os.getpid())
    (tmp_path / "garbage.pid").write_text("x")
    assert dut_health.read_pid([str(tmp_path / "missing.pid"), str(tmp_path / "garbage.pid"), str(tmp_path / "self.pid")]) == (None, None)


SEARCH = {"width": 0.005, "final_duration": 10.0, "initial_duration": 1.0, "max_load": dm.MAX_LOAD, "min_load": dm.MIN_LOAD,
          "warmup_duration": 1.0, "warmup_load": dm.MAX_LOAD / 10.0, "settle": 0.0}


def bench_profile(scenario, protocol, frame_size=64):
    return {"scenario": scenario, "protocol": protocol, "frame_size": frame_size, "direction": "uni", "flows": 10, "destinations": 1,
            "src_base": "16.0.0.1", "dst": "48.0.0.1", "src_port": 1025, "dst_port": 12, "vlan": None, "ports": [0, 1], "rx_server": None,
            "tcp_method": None}


def as_recorded(trial):
    """A search's trial as the bench records it: the generator sent what was asked."""
    return dict(trial, achieved_load=trial["offered"] / trial["duration"], generator_limited=False, time="2026-12-01T10:00:00Z")


def write_run(directory, datapath, capacity, scenario="routing", protocol="udp", repeats=None, system=None):
    """A run as the bench writes it (the store validates every save against the schema): one search per capacity.

    ``capacity``: one capacity (one repeat), or a list, one per repeat (``repeats`` of them done: fewer leaves the
    run unfinished). Returns the search result, or with a list the results of the repeats.
    """
    capacities = capacity if isinstance(capacity, list) else [capacity]
    header = {"datapath": datapath, "goals": [dict(goal) for goal in DEFAULT_GOALS], "search": dict(SEARCH, repeat=len(capacities)),
              "metadata": {"dut_system": system} if system else {}, "generator": {"server": "gen", "client": "trex_stl_lib", "ports": [0, 1]}}
    store = br.Store(str(directory), "%s-%s-%s" % (datapath, scenario, protocol), "fp-" + datapath, header)
    results = []
    for repeat, value in enumerate(capacities[:len(capacities) if repeats is None else repeats]):
        entry = store.search_entry(bench_profile(scenario, protocol), repeat)
        result = search(dm.CleanCliff(capacity=value), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=10.0, width=0.005, initial_duration=1.0,
                        on_trial=lambda trial, entry=entry: store.add_trial(entry, as_recorded(trial)))
        store.finish_search(entry, result, dm.MAX_LOAD)
        results.append(result)
    if len(results) == len(capacities):
        goals = {name: stats.summarize_bounds([result["goals"][name]["lower_bound"] for result in results], goal["loss_ratio"],
                                              [False] * len(results)) for name, goal in results[0]["goals"].items()}
        store.set_summary(bench_profile(scenario, protocol), {"repeats": len(results), "goals": goals})
        store.finish("complete")
    return results if isinstance(capacity, list) else results[0]


def test_speedup_table_in_the_seeds_form(tmp_path):
    fast = write_run(tmp_path, "doca", 12000000.0)
    slow = write_run(tmp_path, "system", 750000.0)
    documents = [json.loads((tmp_path / name).read_text()) for name in sorted(os.listdir(str(tmp_path))) if name.endswith(".json")]
    entries = report.speedups(report.rows_of(documents), "doca", "system", "pdr")
    assert len(entries) == 1
    # RFC 9971's conditional throughputs, as the RFC recommends for comparisons
    expected = fast["goals"]["pdr"]["conditional_throughput"] / slow["goals"]["pdr"]["conditional_throughput"]
    assert entries[0]["basis"] == "conditional throughput" and entries[0]["speedup"] == pytest.approx(expected) and 15.5 < entries[0]["speedup"] < 16.5
    header, lines = report.speedup_table(entries, "doca", "system")
    assert header[7] == "doca / system" and lines[0][7] == "%.1fx" % expected
    # the rates with their Gbps on the wire: 64 B frames take 84 B of the wire, 672 bits
    assert header[3:7] == ["doca", "doca Gbps (L1)", "system", "system Gbps (L1)"]
    assert lines[0][4] == "%.2f Gbps" % (fast["goals"]["pdr"]["conditional_throughput"] * 672 / 1e9)
    # one search per side: today's ratio, and the note says that no spread was measured
    assert lines[0][8] == entries[0]["verdict"] == "one repeat each: no spread measured; run with bench_repeat >= 3 to know"
    assert (entries[0]["low"], entries[0]["high"], entries[0]["repeats_a"], entries[0]["repeats_b"]) == (None, None, 1, 1)
    missing = report.speedups(report.rows_of(documents), "doca", "netdev", "pdr")
    assert missing[0]["speedup"] is None and missing[0]["note"] == "not measured on netdev"


def test_speedup_table_of_two_compare_variants(tmp_path):
    """compare.yml's variant names are the labels: one that starts another's run ids does not mix with it."""
    write_run(tmp_path, "netdev", 1000000.0)
    emc = write_run(tmp_path, "netdev-emc", 900000.0)
    noemc = write_run(tmp_path, "netdev-noemc", 600000.0)
    documents = [json.loads((tmp_path / name).read_text()) for name in sorted(os.listdir(str(tmp_path))) if name.endswith(".json")]
    entries = report.speedups(report.rows_of(documents), "netdev-emc", "netdev-noemc", "pdr")
    assert [(entry["a"], entry["b"]) for entry in entries] == [(emc["goals"]["pdr"]["conditional_throughput"],
                                                                noemc["goals"]["pdr"]["conditional_throughput"])]
    header, lines = report.speedup_table(entries, "netdev-emc", "netdev-noemc")
    assert header[3:8] == ["netdev-emc", "netdev-emc Gbps (L1)", "netdev-noemc", "netdev-noemc Gbps (L1)", "netdev-emc / netdev-noemc"]
    assert lines[0][7] == "%.1fx" % (emc["goals"]["pdr"]["conditional_throughput"] / noemc["goals"]["pdr"]["conditional_throughput"])


def test_bench_report_writes_markdown_html_and_plots_once(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    results = tmp_path / "results"
    results.mkdir()
    fast = write_run(results, "doca", 12000000.0)
    slow = write_run(results, "system", 750000.0)
    args = {"results_dir": str(results), "compare": ["doca", "system"]}
    result, failed, _calls = run_module(report_module.main, args, {}, monkeypatch)
    assert not failed, result.get("msg")
    assert result["changed"] is True and result["runs"] == 2
    names = sorted(os.path.basename(path) for path in result["files"])
    assert names == ["bars.png", "loss-doca-routing-udp-64.png", "loss-system-routing-udp-64.png", "report.html", "report.md"]
    markdown = (results / "report" / "report.md").read_text()
    speedup = fast["goals"]["pdr"]["lower_bound"] / slow["goals"]["pdr"]["lower_bound"]
    assert "| routing | udp | 64 B | " in markdown and "| %.1fx |" % speedup in markdown
    assert "![NDR and PDR per scenario x protocol x frame size](bars.png)" in markdown
    assert (results / "report" / "bars.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<table>" in (results / "report" / "report.html").read_text()
    again, failed, _calls = run_module(report_module.main, args, {}, monkeypatch)
    assert not failed and again["changed"] is False


def dut(firmware, other_config, kernel="6.1.0-28-amd64"):
    """What dut_health reads on the ConnectX-6 Lx reference bench's DUT (one port), at a firmware and other_config."""
    return {"kernel": kernel, "cmdline": "BOOT_IMAGE=/vmlinuz isolcpus=2-5", "isolated_cpus": "2-5", "ovs_other_config": other_config,
            "nics": {"ens1f0np0": {"driver": "mlx5_core", "version": "24.10-1.1.4", "firmware_version": firmware, "psid": "MT_0000000531",
                                   "bus_info": "0000:3b:00.0", "numa_node": 0, "pci_id": "15b3:101f"}}}


def test_a_comparison_of_runs_on_another_firmware_is_refused_naming_every_field_unless_accepted(tmp_path, monkeypatch):
    """The datapath's own fields (other_config: doca-init, hw-offload) may differ; the firmware and the kernel may not."""
    write_run(tmp_path, "doca", 12000000.0, system=dut("26.43.2026", {"doca-init": "true", "hw-offload": "true"}, kernel="6.1.0-29-amd64"))
    write_run(tmp_path, "system", 750000.0, system=dut("26.41.1000", {"hw-offload": "false"}))
    args = {"results_dir": str(tmp_path), "compare": ["doca", "system"], "plots": False}
    result, failed, _calls = run_module(report_module.main, args, {}, monkeypatch)
    assert failed and not (tmp_path / "report").exists()
    assert result["msg"] == (
        "compare: the runs of doca and system differ in kernel (6.1.0-29-amd64 against 6.1.0-28-amd64), nics.ens1f0np0.firmware "
        "(26.43.2026 against 26.41.1000); a comparison needs one bench for every label, the datapath aside. Measure them again on one "
        "bench, or accept these differences by name with compare_accept: [kernel, nics.ens1f0np0.firmware]")
    result, failed, _calls = run_module(report_module.main, dict(args, compare_accept=["kernel"]), {}, monkeypatch)
    assert failed and "nics.ens1f0np0.firmware (26.43.2026 against 26.41.1000)" in result["msg"] and "kernel (" not in result["msg"]
    result, failed, _calls = run_module(report_module.main, dict(args, compare_accept=["kernel", "nics.ens1f0np0.firmware"]), {}, monkeypatch)
    assert not failed and len(result["speedups"]) == 1


def test_bench_report_refuses_a_bad_compare(tmp_path, monkeypatch):
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(tmp_path), "compare": ["doca"]}, {}, monkeypatch)
    assert failed and "compare: give two or more datapath labels" in result["msg"]


def test_bench_report_check_mode_writes_nothing(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    write_run(results, "netdev", 1000000.0)
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False, "_ansible_check_mode": True}, {}, monkeypatch)
    assert not failed and result["changed"] is True
    assert sorted(os.listdir(str(results))) == ["netdev-routing-udp.json", "results.csv"]


def tree(path):
    """Every path under ``path`` (nothing when it does not exist)."""
    return sorted(os.path.join(top, name) for top, dirs, files in os.walk(path) for name in dirs + files)


def test_check_mode_of_a_bench_that_never_ran_says_what_it_would_write_and_writes_nothing(tmp_path, monkeypatch):
    results = tmp_path / "bench" / "results"
    result, failed, calls = run_module(report_module.main, {"results_dir": str(results), "plots": False, "_ansible_check_mode": True}, {},
                                       monkeypatch)
    assert not failed and calls == []
    assert result["changed"] is True and result["runs"] == 0
    assert result["files"] == [str(results / "report" / "report.html"), str(results / "report" / "report.md")]
    assert result["msg"] == ("check mode: %s does not exist yet (no benchmark has written results there); the report would be written to %s: "
                             "report.html, report.md" % (results, results / "report"))
    assert tree(tmp_path) == []


def test_without_check_mode_a_missing_results_dir_is_refused(tmp_path, monkeypatch):
    results = tmp_path / "results"
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False}, {}, monkeypatch)
    assert failed and result["msg"] == ("results_dir: %s does not exist; run the benchmark first (trex_bench writes its results there), "
                                        "or fix the path" % results)
    assert tree(tmp_path) == []


def test_a_results_dir_that_is_a_file_is_refused_in_check_mode_too(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.write_text("not a directory\n")
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False, "_ansible_check_mode": True}, {},
                                        monkeypatch)
    assert failed and result["msg"] == "results_dir: %s is not a directory; give the directory trex_bench writes its results to" % results


def test_dut_health_checks_interface_names_by_the_one_rule_before_it_reads(monkeypatch):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: pytest.fail("nothing is read before the names are checked"))
    result, failed, calls = run_module(dut_health.main, {"system": True, "interfaces": ["ens3f0np0", "ens3f0np0 "]}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == ("interfaces[1]: 'ens3f0np0 ' has trailing white space, which the kernel refuses in the name of a network "
                             "interface; write 'ens3f0np0'")


def test_dut_health_system_reads_the_nic(monkeypatch):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (None, None))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name)
    table = {
        ("/usr/bin/ethtool", "-i", "ens3f0np0"): (0, read(os.path.join(ROOT, "tests", "fixtures", "ethtool_i_mlx5_core_legacy.txt")), ""),
        ("/usr/bin/ovs-vswitchd", "--version"): (0, "ovs-vswitchd (Open vSwitch) 3.1.0\n", ""),
        # The running ovn-controller is OVN 24.03.8 built from source (as ovn-appctl printed it in the virtual lab,
        # no final newline); the distribution's 23.03.1 on PATH is not the one that runs.
        ("/usr/bin/ovn-appctl", "-t", "ovn-controller", "version"): (0, "ovn-controller 24.03.8\nOpen vSwitch Library 3.3.8", ""),
        ("/usr/bin/ovn-controller", "--version"): (0, "ovn-controller 23.03.1\nOpen vSwitch Library 3.1.0\n", ""),
        # as ovs-vsctl 3.1 prints it in the virtual lab with the EMC turned off (compare.yml's second variant)
        ("/usr/bin/ovs-vsctl", "--timeout=5", "--format=json", "--columns=other_config", "list", "Open_vSwitch"): (
            0, '{"data":[[["map",[["default-datapath-type","netdev"],["emc-insert-inv-prob","0"],["hw-offload","false"]]]]],'
               '"headings":["other_config"]}\n', ""),
    }
    table.update(system_reads())
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "0\n", "")
    result, failed, _calls = run_module(dut_health.main, {"system": True, "interfaces": ["ens3f0np0"], "core_dirs": []}, table, monkeypatch)
    assert not failed, result.get("msg")
    nic = result["system"]["nics"]["ens3f0np0"]
    assert nic["driver"] == "mlx5_core" and nic["psid"] and nic["firmware_version"]
    assert result["system"]["ovs_version"] == "ovs-vswitchd (Open vSwitch) 3.1.0" and result["system"]["ovn_version"] == "ovn-controller 24.03.8"
    assert result["system"]["ovs_other_config"] == {"default-datapath-type": "netdev", "emc-insert-inv-prob": "0", "hw-offload": "false"}
    assert result["system"]["dpdk_version"] == "none" and result["system"]["doca_packages"] == {} and result["system"]["pmd_cpus"] == {}


def test_dut_health_system_without_a_readable_database(monkeypatch):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (None, None))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name)
    table = {
        ("/usr/bin/ovs-vswitchd", "--version"): (0, "ovs-vswitchd (Open vSwitch) 3.1.0\n", ""),
        ("/usr/bin/ovn-appctl", "-t", "ovn-controller", "version"): (
            1, "", "2026-12-01T11:49:40Z|00001|daemon_unix|WARN|/var/run/ovn/ovn-controller.pid: open: No such file or directory\n"
                   "ovn-appctl: cannot read pidfile \"/var/run/ovn/ovn-controller.pid\" (No such file or directory)\n"),
        ("/usr/bin/ovn-controller", "--version"): (1, "", "not found\n"),
        ("/usr/bin/ovs-vsctl", "--timeout=5", "--format=json", "--columns=other_config", "list", "Open_vSwitch"): (
            1, "", "ovs-vsctl: unix:/var/run/openvswitch/db.sock: database connection failed (No such file or directory)\n"),
        ("/usr/bin/ovs-vsctl", "--timeout=5", "--format=json", "--columns=dpdk_version", "list", "Open_vSwitch"): (
            1, "", "ovs-vsctl: unix:/var/run/openvswitch/db.sock: database connection failed (No such file or directory)\n"),
        ("/usr/bin/dpkg-query", "-W", "-f", "${db:Status-Abbrev}\t${Package}\t${Version}\n") + DOCA_PACKAGES: (
            1, "", fixture("dpkg_query_W_doca_packages_none_debian12.txt")),
    }
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "0\n", "")
    result, failed, _calls = run_module(dut_health.main, {"system": True, "core_dirs": []}, table, monkeypatch)
    assert not failed, result.get("msg")
    assert result["system"]["ovs_other_config"] is None and result["system"]["ovn_version"] is None
    assert result["system"]["dpdk_version"] is None and result["system"]["doca_packages"] == {}


def test_bench_report_shows_the_latency_trials(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    write_run(results, "netdev", 1000000.0)
    path = results / "netdev-routing-udp.json"
    document = json.loads(path.read_text())
    point = {"fraction": 0.5, "load": 500000.0, "latency_pps": 1000.0, "duration": 10.0, "pg_id": 100, "frame_size": 64,
             "offered": 5000000, "received": 5000000, "loss_ratio": 0.0, "time": "2026-11-30T02:00:00Z", "latency_sent": 10000,
             "latency_received": 10000,
             "min_us": 10.0, "avg_us": 14.0, "max_us": 150.0, "jitter_us": 3.0, "percentiles_us": {"50": 20.0, "99": 200.0},
             "histogram": {"10": 9800, "100": 200}, "errors": {"dropped": 0}}
    document["searches"][0]["latency"] = {"reference_goal": "pdr", "reference_load": 1000000.0, "points": [point], "skipped": None}
    path.write_text(json.dumps(document))
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False}, {}, monkeypatch)
    assert not failed, result.get("msg")
    markdown = (results / "report" / "report.md").read_text()
    assert "## Latency below the PDR" in markdown
    # 9800 frames in 10-19 us, 200 in 100-199 us: the 9900th is in the range 100 to 200, reported as 200
    assert "| netdev | routing | udp | 64 B | 500.0 kpps (50% of pdr) | 10 | 14 | 150 | 200 | 100 to 200 | 10000 / 10000 |" in markdown
    assert "| min us | avg us | max us | p99 us (histogram) | p99 range us |" in markdown and "read from TRex's latency histogram" in markdown


def test_dut_health_without_proc_or_pmd_threads_reads_empty_cpu_values(monkeypatch, tmp_path):
    """No /proc/stat, no task directory (ovs-vswitchd just exited): empty values, no failure; read_pid reads PROC too."""
    monkeypatch.setattr(dut_health, "PROC", str(tmp_path))
    (tmp_path / "ovs.pid").write_text("4457\n")
    assert dut_health.read_pid([str(tmp_path / "ovs.pid")]) == (None, None)
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: None)
    result, failed, calls = run_module(dut_health.main, {"core_dirs": []}, {}, monkeypatch)
    assert not failed and calls == []
    assert result["cpu"]["times"] == {} and result["cpu"]["pmd_threads"] == []
    assert dut_health.pmd_threads(None) == []


def test_dut_health_pmd_threads_skip_others_and_vanished_threads(monkeypatch, tmp_path):
    monkeypatch.setattr(dut_health, "PROC", fake_proc(tmp_path, "proc_stat_2cpu_one_busy_before.txt", {
        4470: ("pmd-c01/id:5", 853000, 298, 1), 4472: ("pmd-c00/id:4", 10, 5, 0), 4480: ("revalidator17", 0, 2, 1)}))
    (tmp_path / "4457" / "task" / "4472" / "stat").unlink()  # exited between listing and reading
    (tmp_path / "4457" / "task" / "4490").mkdir()  # listed, nothing readable
    assert dut_health.pmd_threads(4457) == [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 853298, "cpu": 1}]
    assert dut_health.pmd_threads(4458) == []


def test_dut_health_two_readings_give_the_trial_cpu_use(monkeypatch, tmp_path):
    """Before and after a trial, as trex_bench reads them: cpu_use of the two results, one call."""
    from ansible_collections.offload.testbed.plugins.module_utils.bench import health as bh

    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: None)
    readings = []
    for stat, ticks in (("proc_stat_2cpu_one_busy_before.txt", 853298), ("proc_stat_2cpu_one_busy_after.txt", 853390)):
        monkeypatch.setattr(dut_health, "PROC", fake_proc(tmp_path / "proc", stat, {4470: ("pmd-c01/id:5", ticks - 298, 298, 1)}))
        result, failed, _calls = run_module(dut_health.main, {"core_dirs": []}, {}, monkeypatch)
        assert not failed
        readings.append(result)
    readings[1]["cpu"]["monotonic"] = readings[0]["cpu"]["monotonic"] + 2.240815163  # the fixtures' clocks
    record = bh.cpu_use(readings[0], readings[1])
    assert record["pmd_threads"][0]["share"] == 0.4106 and record["others"] == 1.3076 and record["busy"] == 0.8351
    assert record["starved"] == ["pmd-c01/id:5 got 0.41 of CPU 1; other tasks used 1.31 CPUs", "the hypervisor stole 7.8 % of the CPU time (steal)"]
    assert bh.health_summary(readings[0]) == {key: readings[0][key] for key in
                                              ("pid", "start_time", "restarts", "core_dumps", "offloaded_flows", "offloaded_flows_with_packets", "pmd")}


def fake_proc(root, stat_fixture, threads):
    """A /proc with /proc/stat from a fixture and ovs-vswitchd (pid 4457) threads ``{tid: (comm, utime, stime, cpu)}``."""
    root.mkdir(exist_ok=True)
    (root / "stat").write_text(read(os.path.join(ROOT, "tests", "fixtures", "proc", stat_fixture)))
    for tid, (comm, utime, stime, cpu) in threads.items():
        task = root / "4457" / "task" / str(tid)
        task.mkdir(parents=True, exist_ok=True)
        (task / "comm").write_text(comm + "\n")
        # the fields of revalidator17's line (tests/fixtures/proc/proc_task_stat_ovs_vswitchd_revalidator.txt) around them
        (task / "stat").write_text("%d (%s) R 19376 19376 19376 0 -1 4194368 0 0 0 0 %d %d 0 0 10 -10 6 0 2039393 403353600 16665 "
                                   "18446744073709551615 93846724218880 93846726138601 140726752041120 0 0 0 0 4096 25603 1 0 0 -1 "
                                   "%d 0 0 0 0 0 93846726894656 93846727178752 93847759540224 140726752049436 140726752049661 "
                                   "140726752049661 140726752051169 0\n" % (tid, comm[:15], utime, stime, cpu))
    return str(root)


def load_documents(directory):
    return [json.loads((directory / name).read_text()) for name in sorted(os.listdir(str(directory))) if name.endswith(".json")]


def set_bounds(path, goal, bounds, limited=()):
    """Give ``goal`` of the repeats in the results file ``path`` these lower bounds (upper bounds 0.5 % above, the conditional
    throughput the bound: no loss there), as the bench would have found them, and its summary the bench's; ``limited``: repeats
    whose bound is generator-limited."""
    document = json.loads(path.read_text())
    for search_ in document["searches"]:
        found = search_["result"]["goals"][goal]
        found.update(lower_bound=bounds[search_["repeat"]], upper_bound=bounds[search_["repeat"]] * 1.005,
                     conditional_throughput=bounds[search_["repeat"]], generator_limited=search_["repeat"] in limited)
    for summary in document["summaries"]:
        summary["goals"][goal] = stats.summarize_bounds(bounds, 0.005, [repeat in limited for repeat in range(len(bounds))])
    path.write_text(json.dumps(document))
    return document


def lab_repeats(results):
    """netdev-emc over netdev-noemc: UDP clearly apart over 5 repeats each, TCP within the spread over 3 each."""
    write_run(results, "netdev-emc", [1.0e6] * 5)
    write_run(results, "netdev-noemc", [0.5e6] * 5)
    write_run(results, "netdev-emc", [1.0e6] * 3, protocol="tcp")
    write_run(results, "netdev-noemc", [1.0e6] * 3, protocol="tcp")
    set_bounds(results / "netdev-emc-routing-udp.json", "pdr", [1.0e6, 0.8e6, 1.2e6, 1.1e6, 0.9e6])
    set_bounds(results / "netdev-noemc-routing-udp.json", "pdr", [0.5e6, 0.6e6, 0.55e6, 0.52e6, 0.58e6])
    set_bounds(results / "netdev-emc-routing-tcp.json", "pdr", [1.0e6, 0.8e6, 1.2e6], limited=(2,))
    set_bounds(results / "netdev-noemc-routing-tcp.json", "pdr", [0.9e6, 1.1e6, 1.0e6])


def test_report_reads_schema_version_1_as_one_repeat_and_skips_unknown_versions(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    found = write_run(results, "netdev", 1000000.0)
    path = results / "netdev-routing-udp.json"
    document = json.loads(path.read_text())
    # as version 1 wrote it: no repeats, no summaries
    document["schema_version"] = 1
    document["search"].pop("repeat")
    document.pop("summaries")
    for search_ in document["searches"]:
        search_.pop("repeat")
        search_.pop("interrupted_trials", None)
    path.write_text(json.dumps(document))
    (results / "future.json").write_text(json.dumps(dict(document, schema_version=4, run_id="future", datapath="doca")))
    rows = report.rows_of(load_documents(results))
    assert sorted(row["goal"] for row in rows) == ["ndr", "ndr_1e-5", "pdr"] and {row["datapath"] for row in rows} == {"netdev"}
    pdr = [row for row in rows if row["goal"] == "pdr"][0]
    assert (pdr["lower_bound"], pdr["upper_bound"]) == (found["goals"]["pdr"]["lower_bound"], found["goals"]["pdr"]["upper_bound"])
    assert (pdr["repeats"], pdr["repeats_planned"], pdr["summary"]["lower_bounds"]) == (1, 1, [found["goals"]["pdr"]["lower_bound"]])
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False}, {}, monkeypatch)
    assert not failed, result.get("msg")
    assert result["runs"] == 1 and result["warnings"] == ["skipped unreadable result file future.json: schema_version 4, this collection reads 1, 2, 3"]
    markdown = (results / "report" / "report.md").read_text()
    assert ("| datapath | scenario | protocol | frame | goal | loss ratio | lower bound | Gbps (L1) | line share | upper bound "
            "| conditional throughput | note |") in markdown
    assert "| netdev | routing | udp | 64 B | pdr | 0.005 | %s |" % report._pps(found["goals"]["pdr"]["lower_bound"]) in markdown
    assert "Every bound rests on one search (one repeat): no spread was measured" in markdown


def test_report_rows_of_repeats_are_the_bench_summaries(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    lab_repeats(results)
    documents = load_documents(results)
    for document in documents:
        assert br.schema_errors(document) == []
    rows = {(row["datapath"], row["protocol"], row["goal"]): row for row in report.rows_of(documents)}
    emc = rows[("netdev-emc", "udp", "pdr")]
    # 0.8 0.9 1.0 1.1 1.2 Mpps: median 1.0, Q1 0.9, Q3 1.1
    assert (emc["lower_bound"], emc["repeats"], emc["repeats_planned"]) == (1.0e6, 5, 5) and emc["upper_bound"] == pytest.approx(1.005e6)
    assert emc["summary"]["spread"] == pytest.approx(0.4) and emc["summary"]["riqr"] == pytest.approx(0.2)
    summaries = {(document["datapath"], summary["profile"]["protocol"]): summary for document in documents for summary in document["summaries"]}
    for (datapath, protocol, goal), row in rows.items():
        assert row["summary"] == summaries[(datapath, protocol)]["goals"][goal]
    limited = rows[("netdev-emc", "tcp", "pdr")]
    assert limited["generator_limited"] is True and limited["summary"]["generator_limited_repeats"] == 1 and limited["summary"]["riqr"] is None


def test_report_of_repeats_gives_the_interval_and_the_verdict(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    results = tmp_path / "results"
    results.mkdir()
    lab_repeats(results)
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "compare": ["netdev-emc", "netdev-noemc"]}, {}, monkeypatch)
    assert not failed, result.get("msg")
    tcp, udp = result["speedups"]
    # UDP: 1.0 / 0.55 = 1.818; 0.8 / 0.6 = 1.333; 1.2 / 0.5 = 2.4; chance 2 / 252
    assert udp["speedup"] == pytest.approx(1.0 / 0.55) and udp["low"] == pytest.approx(0.8 / 0.6) and udp["high"] == pytest.approx(2.4)
    assert (udp["repeats_a"], udp["repeats_b"], round(udp["chance"], 4)) == (5, 5, 0.0079)
    assert udp["verdict"] == udp["note"] == "netdev-emc is 1.82x netdev-noemc (1.33x to 2.40x over 5 repeats each): larger than the spread"
    # RFC 9971 recommends its conditional throughput for comparisons: every repeat has one here.
    assert udp["basis"] == tcp["basis"] == "conditional throughput"
    # TCP: 1.0 / 1.0; 0.8 / 1.1 = 0.727; 1.2 / 0.9 = 1.333
    assert tcp["note"] == ("netdev-emc is 1.00x netdev-noemc (0.73x to 1.33x over 3 repeats each): within the spread of the repeats: "
                           "no difference shown; generator-limited on netdev-emc: the speedup is at least this")
    markdown = (results / "report" / "report.md").read_text()
    assert ("| scenario | protocol | frame | netdev-emc | netdev-emc Gbps (L1) | netdev-noemc | netdev-noemc Gbps (L1) | netdev-emc / netdev-noemc "
            "| note |") in markdown
    # 1 Mpps of 64 B frames: 1e6 x 84 B x 8 = 0.672 Gbps on the wire; 550 kpps: 0.3696
    assert "| routing | udp | 64 B | 1.00 Mpps | 0.672 Gbps | 550.0 kpps | 0.370 Gbps | 1.82x (1.33x to 2.40x) | netdev-emc is 1.82x netdev-noemc" in markdown
    assert "| routing | tcp | 64 B | 1.00 Mpps | 0.672 Gbps | 1.00 Mpps | 0.672 Gbps | 1.00x (0.73x to 1.33x) | netdev-emc is 1.00x" in markdown
    # the reference bench's form: a line per scenario, a column per protocol
    assert "| scenario | tcp | udp |\n|---|---:|---:|\n| routing | 1.00x (0.73x to 1.33x) | 1.82x (1.33x to 2.40x) |" in markdown
    assert "In brackets, the interval from the repeats: the lowest and the highest ratio any two repeats give" in markdown
    assert ("| datapath | scenario | protocol | frame | goal | loss ratio | lower bound (median) | Gbps (L1) | line share | min to max | spread "
            "| riqr | repeats | upper bound (median) | conditional throughput (median) | note |") in markdown
    assert ("| netdev-emc | routing | udp | 64 B | pdr | 0.005 | 1.00 Mpps | 0.672 Gbps | - | 800.0 kpps to 1.20 Mpps | 40.0% | 20.0% | 5 "
            "| 1.00 Mpps | 1.00 Mpps |  |") in markdown
    assert "| netdev-emc | routing | tcp | 64 B | pdr | 0.005 | 1.00 Mpps | 0.672 Gbps | - | 800.0 kpps to 1.20 Mpps | 40.0% | - | 3 | 1.00 Mpps " \
           "| 1.00 Mpps | generator-limited in 1 of 3 repeats |" in markdown
    assert "Hyndman and Fan's type 7" in markdown and "<p class=\"note\">In brackets, the interval" in (results / "report" / "report.html").read_text()
    # one loss plot per run and frame size, all repeats in it
    names = sorted(os.path.basename(path) for path in result["files"] if path.endswith(".png"))
    assert names == ["bars.png", "loss-netdev-emc-routing-tcp-64.png", "loss-netdev-emc-routing-udp-64.png",
                     "loss-netdev-noemc-routing-tcp-64.png", "loss-netdev-noemc-routing-udp-64.png"]


def test_report_of_an_unfinished_run_counts_the_repeats_done(tmp_path):
    write_run(tmp_path, "netdev-emc", [1.0e6] * 3)
    write_run(tmp_path, "netdev-noemc", [0.5e6] * 3, repeats=2)
    documents = load_documents(tmp_path)
    assert [document["status"] for document in documents] == ["complete", "running"]
    rows = report.rows_of(documents)
    header, lines = report.results_table(rows)
    assert header[12] == "repeats" and [line[12] for line in lines if line[4] == "pdr"] == ["3", "2 of 3"]
    entry = report.speedups(rows, "netdev-emc", "netdev-noemc")[0]
    assert (entry["repeats_a"], entry["repeats_b"]) == (3, 2)
    # the same bounds in every repeat (a clean cliff), but 3 and 2 repeats separate by chance 2 / C(5, 3) of the time
    assert entry["note"] == ("netdev-emc is 2.00x netdev-noemc (2.00x to 2.00x over 3 repeats of netdev-emc and 2 of netdev-noemc): larger than "
                             "the spread, but 3 and 2 repeats separate like this by chance 20 % of the time; run with bench_repeat >= 3 to know; "
                             "2 of 3 repeats of netdev-noemc done")
    assert "over 3 repeats of netdev-emc and 2 of netdev-noemc" in entry["verdict"]


def test_report_latency_of_repeats_is_the_first_repeat_that_measured_it(tmp_path):
    write_run(tmp_path, "netdev", [1.0e6] * 3)
    path = tmp_path / "netdev-routing-udp.json"
    document = json.loads(path.read_text())
    point = {"fraction": 0.5, "load": 500000.0, "latency_pps": 1000.0, "duration": 10.0, "pg_id": 100, "frame_size": 64,
             "offered": 5000000, "received": 5000000, "loss_ratio": 0.0, "time": "2026-11-30T02:00:00Z", "latency_sent": 10000,
             "latency_received": 10000, "min_us": 10.0, "avg_us": 14.0, "max_us": 150.0, "jitter_us": 3.0,
             "percentiles_us": {"50": 20.0, "99": 200.0}, "histogram": {"10": 9800, "100": 200}, "errors": {"dropped": 0}}
    for repeat, search_ in enumerate(document["searches"]):
        search_["latency"] = {"reference_goal": "pdr", "reference_load": 1000000.0, "points": [dict(point, min_us=10.0 + repeat)], "skipped": None}
    path.write_text(json.dumps(document))
    [(_key, points)] = report.latency_rows_of([document])
    assert [(item["repeat"], item["min_us"]) for item in points] == [(0, 10.0)]
    document["searches"][0]["latency"]["points"] = []
    [(_key, points)] = report.latency_rows_of([document])
    assert [(item["repeat"], item["min_us"]) for item in points] == [(1, 11.0)]
