# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The set_stats data of a run (AWX job artifacts) and the line rate in the results header."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.run import returned_goals, run_header, run_stats
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import bench_args

ARGS = {"scenario": "nat", "protocol": "tcp", "datapath": "doca", "run_id": "doca-nat-tcp", "line_rate_gbps": 25.0}


def summary(frame_size, lower, upper, limited=False, repeats=1):
    goal = {"loss_ratio": 0.005, "lower_bound": lower, "upper_bound": upper, "generator_limited": limited}
    return {"profile": {"frame_size": frame_size}, "repeats": repeats, "goals": {"pdr": goal}}


def test_each_search_names_itself_its_files_and_its_bounds_in_three_units():
    data = run_stats(ARGS, [summary(64, 14880952.0, 15000000.0), summary(1518, 1000000.0, 1010000.0, limited=True)],
                     "/srv/results/doca-nat-tcp.json")
    first, second = data["trex_bench"]["doca-nat-tcp"]
    assert (first["scenario"], first["protocol"], first["frame_size"], first["datapath"]) == ("nat", "tcp", 64, "doca")
    assert first["results_file"] == "/srv/results/doca-nat-tcp.json" and first["report"] == "/srv/results/report/report.html"
    pdr = first["goals"]["pdr"]
    # 14,880,952 frames/s of 64 B plus 20 B of preamble and gap: 14880952 * 84 * 8 = 9.99999974 Gb/s, 40 % of 25 Gb/s
    assert pdr["lower_bound_pps"] == 14880952.0 and pdr["lower_bound_gbps"] == pytest.approx(9.99999974)
    assert pdr["lower_bound_line_share"] == pytest.approx(0.3999999898)
    assert pdr["upper_bound_gbps"] == pytest.approx(15000000 * 84 * 8 / 1e9) and first["generator_limited"] is False
    # 1,000,000 frames/s of 1518 B: 1538 * 8 = 12.304 Gb/s on the wire; the generator limited it
    assert second["goals"]["pdr"]["lower_bound_gbps"] == pytest.approx(12.304) and second["generator_limited"] is True
    assert second["goals"]["pdr"]["generator_limited"] is True


def test_without_a_line_rate_no_share_is_given_and_the_header_keeps_its_form():
    args = dict(ARGS, line_rate_gbps=None)
    entry = run_stats(args, [summary(64, 1000.0, 1100.0)], "r/x.json")["trex_bench"]["doca-nat-tcp"][0]
    assert entry["line_rate_gbps"] is None and entry["goals"]["pdr"]["upper_bound_line_share"] is None
    assert entry["goals"]["pdr"]["lower_bound_gbps"] == pytest.approx(1000 * 84 * 8 / 1e9)


def test_with_repeats_the_upper_bound_is_the_median_of_the_repeats():
    entries = [{"result": {"goals": {"pdr": {"loss_ratio": 0.005, "lower_bound": low, "upper_bound": up, "generator_limited": False}}}}
               for low, up in ((10.0, 11.0), (20.0, 23.0), (30.0, 31.0))]
    stats = {"goals": {"pdr": {"median": 20.0, "loss_ratio": 0.005, "generator_limited": False, "repeats": 3}}}
    goal = returned_goals(entries, stats)["pdr"]
    assert goal["lower_bound"] == 20.0 and goal["upper_bound"] == 23.0


def test_line_share_of_ten_gigabit_at_64_bytes_is_one():
    assert units.line_share(14880952.380952381, 64, 10) == pytest.approx(1.0)
    assert units.line_rate_pps(None, 64) is None and units.gbps_l2(1e6, 64) == pytest.approx(0.512)


def test_the_header_records_the_line_rate_only_when_given(tmp_path):
    given = run_header(bench_args(tmp_path, line_rate_gbps=25), {"version": "v3.06"}, "dut", None)
    assert given["search"]["line_rate_gbps"] == 25.0
    assert "line_rate_gbps" not in run_header(bench_args(tmp_path), {"version": "v3.06"}, "dut", None)["search"]
