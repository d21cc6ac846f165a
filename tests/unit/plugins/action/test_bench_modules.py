# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench's modules: dut_health (commands from a table of real outputs) and bench_report (files from result files)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import bench_report as report
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import results as br
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search
from ansible_collections.offload.testbed.plugins.modules import bench_report as report_module
from ansible_collections.offload.testbed.plugins.modules import dut_health
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils import device_models as dm
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
jsonschema = pytest.importorskip("jsonschema")


def read(path):
    with open(path) as handle:
        return handle.read()


def test_dut_health_reads_pid_flows_and_pmd(monkeypatch, tmp_path):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (4457, 123456))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name)
    (tmp_path / "core.ovs-vswitchd.1").write_text("")
    (tmp_path / "unrelated.log").write_text("")
    table = {
        ("/usr/bin/ovs-appctl", "dpctl/dump-flows", "type=offloaded"):
            (0, read(os.path.join(ROOT, "tests", "fixtures", "ovs_dpctl_dump_flows_offloaded_cx6_tc.txt")), ""),
        ("/usr/bin/ovs-appctl", "dpif-netdev/pmd-stats-show"):
            (0, read(os.path.join(HERE, "fixtures", "ovs_appctl_pmd_stats_show_netdev_main_thread.txt")), ""),
    }
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "2\n", "")
    result, failed, calls = run_module(dut_health.main, {"core_dirs": [str(tmp_path)]}, table, monkeypatch)
    assert not failed
    assert result["changed"] is False and result["pid"] == 4457 and result["start_time"] == 123456
    assert result["core_dumps"] == [str(tmp_path / "core.ovs-vswitchd.1")]
    assert result["offloaded_flows"] > result["offloaded_flows_with_packets"] > 0
    assert result["pmd"]["main"]["packets_received"] == 3847
    assert result["system"] is None and len(calls) == len(table)


def test_dut_health_without_ovs_runs_no_ovs_command(monkeypatch, tmp_path):
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: None)
    result, failed, calls = run_module(dut_health.main, {"pidfiles": [str(tmp_path / "none.pid")], "core_dirs": []}, {}, monkeypatch)
    assert not failed and result["pid"] is None and result["offloaded_flows"] is None and calls == []


def test_read_pid_needs_a_running_ovs_vswitchd(tmp_path):
    (tmp_path / "self.pid").write_text("%d\n" % os.getpid())
    (tmp_path / "garbage.pid").write_text("x")
    assert dut_health.read_pid([str(tmp_path / "missing.pid"), str(tmp_path / "garbage.pid"), str(tmp_path / "self.pid")]) == (None, None)


def write_run(directory, datapath, capacity, scenario="routing", protocol="udp"):
    header = {"datapath": datapath, "goals": [], "search": {}, "metadata": {},
              "generator": {"server": "gen", "client": "trex_stl_lib", "ports": [0, 1]}}
    store = br.Store(str(directory), "%s-%s-%s" % (datapath, scenario, protocol), "fp-" + datapath, header)
    entry = store.search_entry({"scenario": scenario, "protocol": protocol, "frame_size": 64, "direction": "uni", "flows": 10})
    result = search(dm.CleanCliff(capacity=capacity), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=10.0, width=0.005, initial_duration=1.0,
                    on_trial=lambda trial: store.add_trial(entry, dict(trial, generator_limited=False)))
    store.finish_search(entry, result, dm.MAX_LOAD)
    store.finish("complete")
    return result


def test_speedup_table_in_the_seeds_form(tmp_path):
    fast = write_run(tmp_path, "doca", 12000000.0)
    slow = write_run(tmp_path, "system", 750000.0)
    documents = [json.loads((tmp_path / name).read_text()) for name in sorted(os.listdir(str(tmp_path))) if name.endswith(".json")]
    entries = report.speedups(report.rows_of(documents), "doca", "system", "pdr")
    assert len(entries) == 1
    expected = fast["goals"]["pdr"]["lower_bound"] / slow["goals"]["pdr"]["lower_bound"]
    assert entries[0]["speedup"] == pytest.approx(expected) and 15.5 < entries[0]["speedup"] < 16.5
    header, lines = report.speedup_table(entries, "doca", "system")
    assert header[5] == "doca / system" and lines[0][5] == "%.1fx" % expected
    missing = report.speedups(report.rows_of(documents), "doca", "netdev", "pdr")
    assert missing[0]["speedup"] is None and missing[0]["note"] == "not measured on netdev"


def test_speedup_table_of_two_compare_variants(tmp_path):
    """compare.yml's variant names are the labels: one that starts another's run ids does not mix with it."""
    write_run(tmp_path, "netdev", 1000000.0)
    emc = write_run(tmp_path, "netdev-emc", 900000.0)
    noemc = write_run(tmp_path, "netdev-noemc", 600000.0)
    documents = [json.loads((tmp_path / name).read_text()) for name in sorted(os.listdir(str(tmp_path))) if name.endswith(".json")]
    entries = report.speedups(report.rows_of(documents), "netdev-emc", "netdev-noemc", "pdr")
    assert [(entry["a"], entry["b"]) for entry in entries] == [(emc["goals"]["pdr"]["lower_bound"], noemc["goals"]["pdr"]["lower_bound"])]
    header, lines = report.speedup_table(entries, "netdev-emc", "netdev-noemc")
    assert header[3:6] == ["netdev-emc", "netdev-noemc", "netdev-emc / netdev-noemc"]
    assert lines[0][5] == "%.1fx" % (emc["goals"]["pdr"]["lower_bound"] / noemc["goals"]["pdr"]["lower_bound"])


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


def test_bench_report_refuses_a_bad_compare(tmp_path, monkeypatch):
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(tmp_path), "compare": ["doca"]}, {}, monkeypatch)
    assert failed and "compare: give two datapath labels" in result["msg"]


def test_bench_report_check_mode_writes_nothing(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    write_run(results, "netdev", 1000000.0)
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(results), "plots": False, "_ansible_check_mode": True}, {}, monkeypatch)
    assert not failed and result["changed"] is True
    assert sorted(os.listdir(str(results))) == ["netdev-routing-udp.json", "results.csv"]


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
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "0\n", "")
    result, failed, _calls = run_module(dut_health.main, {"system": True, "interfaces": ["ens3f0np0"], "core_dirs": []}, table, monkeypatch)
    assert not failed, result.get("msg")
    nic = result["system"]["nics"]["ens3f0np0"]
    assert nic["driver"] == "mlx5_core" and nic["psid"] and nic["firmware_version"]
    assert result["system"]["ovs_version"] == "ovs-vswitchd (Open vSwitch) 3.1.0" and result["system"]["ovn_version"] == "ovn-controller 24.03.8"
    assert result["system"]["ovs_other_config"] == {"default-datapath-type": "netdev", "emc-insert-inv-prob": "0", "hw-offload": "false"}


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
    }
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "0\n", "")
    result, failed, _calls = run_module(dut_health.main, {"system": True, "core_dirs": []}, table, monkeypatch)
    assert not failed, result.get("msg")
    assert result["system"]["ovs_other_config"] is None and result["system"]["ovn_version"] is None


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
    assert "| netdev | routing | udp | 64 B | 500.0 kpps (50% of pdr) | 10 | 14 | 150 | 200 | 10000 / 10000 |" in markdown
