"""bench_report's compare: two or more different labels, the last the baseline."""
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report


def test_two_different_labels_are_good():
    assert report.compare_error(None) is None
    assert report.compare_error(["doca", "kernel"]) is None
    assert report.compare_error(["system-tc", "netdev", "dpdk", "system"]) is None


def test_one_label_is_refused():
    assert report.compare_error(["netdev"]).startswith("compare: give two or more datapath labels [A, ..., B]")
    assert "got ['netdev']" in report.compare_error(["netdev"])


def test_a_label_compared_with_itself_is_refused():
    assert report.compare_error(["netdev", "netdev"]) == (
        "compare: 'netdev' is compared with itself (its speedup over itself is 1); give different labels [A, ..., B], "
        "for example [doca, kernel] or [netdev-emc, netdev-noemc]")


def test_the_module_refuses_a_label_compared_with_itself(tmp_path, monkeypatch):
    from ansible_collections.offload.testbed.plugins.modules import bench_report as report_module
    from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(tmp_path), "compare": ["netdev", "netdev"]}, {}, monkeypatch)
    assert failed and result["msg"].startswith("compare: 'netdev' is compared with itself")
    assert not (tmp_path / "report").exists()
    assert report.compare_error(["netdev", "dpdk", "netdev"]).startswith("compare: 'netdev' is compared with itself")


def _entry(scenario, protocol, speedup):
    return {"scenario": scenario, "protocol": protocol, "frame_size": 64, "speedup": speedup, "low": None}


def test_more_labels_one_table_of_every_variant_over_the_baseline():
    """The VM lab's table: a line per scenario, a column per variant and protocol, each over the kernel datapath."""
    entries_of = [("system-tc", [_entry("routing", "udp", 1.25)]),
                  ("netdev", [_entry("routing", "udp", 0.5), _entry("nat", "udp", 0.75)]),
                  ("dpdk", [_entry("routing", "udp", None)])]
    header, lines = report.baseline_matrix(entries_of, "system")
    assert header == ["scenario", "system-tc / system udp", "netdev / system udp", "dpdk / system udp"]
    assert lines == [["nat", "-", "0.8x", "-"], ["routing", "1.2x", "0.5x", "-"]]
