# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report of a flow scale run (trex_bench ``flows`` as a list): the bounds table's flows column, the flow scale
table and plot; a run of one flow count reports as before. The documents are written by BenchRun over the fake
generator of test_bench_flow_scale (a DUT that slows down with the number of flows)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import draw, plots
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import markdown, to_html
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_flow_scale import FlowScaledGenerator, capacity_at
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import bench, on_disk

FLOWS = [1000, 100000, 1048576]


def run_document(tmp_path, name, **overrides):
    """The results document of a finished run of the fake DUT in tmp_path/name."""
    directory = tmp_path / name
    directory.mkdir()
    run, store = bench(directory, FlowScaledGenerator(), run_id="fake-run", **overrides)
    run.run()
    store.finish("complete")
    return on_disk(directory)


@pytest.fixture(name="scaled")
def scaled_document(tmp_path):
    return run_document(tmp_path, "scaled", flows=FLOWS, goals=[{"name": "ndr", "loss_ratio": 0.0}, {"name": "pdr", "loss_ratio": 0.005}])


def test_the_bounds_table_gains_a_flows_column_and_a_line_per_count(scaled):
    header, lines = report.results_table(report.rows_of([scaled]))
    assert header[:6] == ["datapath", "scenario", "protocol", "frame", "flows", "goal"]
    assert [(line[4], line[5]) for line in lines] == [("1000", "ndr"), ("1000", "pdr"), ("100000", "ndr"), ("100000", "pdr"),
                                                      ("1048576", "ndr"), ("1048576", "pdr")]


def test_one_flow_count_keeps_the_table_it_had(tmp_path):
    document = run_document(tmp_path, "one", flows=1000)
    header, lines = report.results_table(report.rows_of([document]))
    assert "flows" not in header and header[3:5] == ["frame", "goal"] and len(lines) == 3
    tables, _entries = report.tables_of([document])
    assert "Bounds against the number of flows" not in [table[0] for table in tables]
    assert draw.flow_plots(report.rows_of([document])) == {}


def test_a_document_without_flow_counts_still_reports(tmp_path, scaled):
    older = dict(scaled, search={key: value for key, value in scaled["search"].items() if key != "flow_counts"})
    rows = report.rows_of([older])
    assert all(row["flow_counts"] is None for row in rows) and report.flow_groups(rows) == []
    # without the list the searches are still told apart by their profiles: a row per flow count and goal, in the bounds table too
    assert sorted((row["flows"], row["goal"]) for row in rows) == sorted((flows, goal) for flows in FLOWS for goal in ("ndr", "pdr"))
    header, lines = report.results_table(rows)
    assert "flows" not in header and len(lines) == 2 * len(FLOWS)


def test_the_flow_scale_table_shows_each_goal_against_the_number_of_flows(scaled):
    rows = report.rows_of([scaled])
    header, lines = report.flows_table(rows)
    assert header == ["datapath", "scenario", "protocol", "frame", "flows", "ndr", "pdr", "note"]
    assert [line[4] for line in lines] == ["1000", "100000", "1048576"]
    bounds = {row["flows"]: row["lower_bound"] for row in rows if row["goal"] == "pdr"}
    for flows, bound in bounds.items():
        assert capacity_at(flows) * 0.99 <= bound <= capacity_at(flows) * 1.006
    share = bounds[100000] / bounds[1000]
    assert lines[0][6] == report.units.pps_text(bounds[1000])
    assert lines[1][6] == "%s (%.1f%%)" % (report.units.pps_text(bounds[100000]), 100.0 * share)
    tables, _entries = report.tables_of([scaled])
    headings = [table[0] for table in tables]
    assert headings.index("Bounds against the number of flows") == headings.index("Bounds per datapath, scenario, protocol and frame size") + 1
    assert not any("The plot flows.png" in paragraph for table in tables if table[0] == "Bounds against the number of flows" for paragraph in table[3])
    tables, _entries = report.tables_of([scaled], images=[("lower bounds against the number of flows", "flows.png")])
    flows_section = [table for table in tables if table[0] == "Bounds against the number of flows"][0]
    assert "The plot flows.png shows the same bounds against the number of flows (log scale)." in flows_section[3]
    text, page = markdown("t", tables), to_html("t", tables)
    assert "## Bounds against the number of flows" in text and "| 1048576 |" in text
    assert "<caption>Bounds against the number of flows</caption>" in page


def test_the_speedups_and_bars_take_the_first_flow_count(scaled):
    latest = report.latest(report.rows_of([scaled]))
    assert {row["flows"] for row in latest.values()} == {1000}
    assert len(report.latest_rows(report.rows_of([scaled]))[("unknown", "routing", "udp", 64, "pdr")]) == len(FLOWS)


def test_the_plot_series_follow_the_flow_counts(scaled):
    series = plots.flow_series(report.flow_groups(report.rows_of([scaled])))
    assert [(item["goal"], item["flows"]) for item in series] == [("ndr", FLOWS), ("pdr", FLOWS)]
    pdr = series[1]
    assert pdr["lower_bound"] == sorted(pdr["lower_bound"], reverse=True)
    assert pdr["low"] == pdr["lower_bound"] == pdr["high"] and pdr["generator_limited"] == [False] * 3 and pdr["repeats"] == 1


def test_the_plot_is_a_png_with_matplotlib(scaled):
    images = draw.flow_plots(report.rows_of([scaled]))
    assert list(images) == ["flows.png"]
    caption, data = images["flows.png"]
    assert "number of flows" in caption and data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5000


def test_without_matplotlib_there_is_no_flow_plot(scaled, monkeypatch):
    monkeypatch.setattr(draw, "HAS_MATPLOTLIB", False)
    assert draw.flow_plots(report.rows_of([scaled])) == {}


def test_the_bench_report_module_writes_the_flow_plot_beside_the_bars(scaled):
    from ansible_collections.offload.testbed.plugins.modules import bench_report as module
    rows = report.rows_of([scaled])
    images = module.plots([scaled], rows)
    assert set(images) >= {"bars.png", report.FLOWS_PNG}
    assert images[report.FLOWS_PNG][1].startswith(b"\x89PNG")
