"""bench_report's compare: two different labels."""
from ansible_collections.offload.testbed.plugins.module_utils import bench_report as report


def test_two_different_labels_are_good():
    assert report.compare_error(None) is None
    assert report.compare_error(["doca", "kernel"]) is None


def test_one_label_is_refused():
    assert report.compare_error(["netdev"]).startswith("compare: give two datapath labels [A, B]")
    assert "got ['netdev']" in report.compare_error(["netdev"])


def test_a_label_compared_with_itself_is_refused():
    assert report.compare_error(["netdev", "netdev"]) == (
        "compare: 'netdev' is compared with itself (its speedup over itself is 1); give two different labels [A, B], "
        "for example [doca, kernel] or [netdev-emc, netdev-noemc]")


def test_the_module_refuses_a_label_compared_with_itself(tmp_path, monkeypatch):
    from ansible_collections.offload.testbed.plugins.modules import bench_report as report_module
    from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(tmp_path), "compare": ["netdev", "netdev"]}, {}, monkeypatch)
    assert failed and result["msg"].startswith("compare: 'netdev' is compared with itself")
    assert not (tmp_path / "report").exists()
