# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""``frame_sizes: [imix]``: TRex's IMIX (64, 594 and 1518-byte frames at 28:16:4) in the built-in scenarios.

The streams as ``profile.build_streams`` builds them, as the TRex adapter puts them on the ports
(a port's streams in the mix's proportions, its multiplier the port's total), and a whole run of
the action over the fake client of test_trex_bench: the results file (checked against the
schema) names the profile imix, and the report shows it among the sizes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.action import trex_bench as action_mod
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import draw, tables
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import markdown
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import trex
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import FCS, build_latency_frame, build_streams
from ansible_collections.offload.testbed.tests.unit.plugins.action.test_trex_bench import (  # noqa: F401  pylint: disable=unused-import
    CAPACITY, FakeClient, bench_args, fake_api, listener, make_action, reset_fake, no_waiting, run, validate)
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import bench_args as run_args


def test_imix_sends_trex_s_three_frame_sizes_at_28_16_4_per_port(tmp_path):
    args = run_args(tmp_path, frame_sizes=["imix"], flows=100)
    streams = build_streams(args, "imix")
    assert [(stream["port"], len(stream["frame"]) + FCS) for stream in streams] == [(0, 64), (0, 594), (0, 1518)]
    assert [stream["share"] for stream in streams] == pytest.approx([28 / 48.0, 16 / 48.0, 4 / 48.0])
    assert streams[0]["vm"] == streams[2]["vm"] == build_streams(args, 64)[0]["vm"]
    assert len(build_latency_frame(args, "imix")) + FCS == 64


def test_bidirectional_imix_splits_the_load_between_the_ports(tmp_path):
    streams = build_streams(run_args(tmp_path, frame_sizes=["imix"], direction="bidir"), "imix")
    assert [stream["port"] for stream in streams] == [0, 0, 0, 1, 1, 1]
    assert trex.port_shares(streams) == [(0, pytest.approx(0.5)), (1, pytest.approx(0.5))]


def test_imix_rates_are_those_of_its_mean_frame():
    assert units.mean_frame_bytes("imix") == pytest.approx(17368 / 48.0)
    assert units.gbps_l1(1e6, "imix") == pytest.approx(1e6 * (17368 / 48.0 + 20) * 8 / 1e9)
    assert sorted([1518, "imix", 64, 100], key=units.size_order) == [64, 100, "imix", 1518]
    assert (units.size_text("imix"), units.size_text(64)) == ("imix", "64 B")


def test_a_run_of_imix_and_64_bytes(tmp_path, monkeypatch, listener):  # pylint: disable=redefined-outer-name
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    result = run(make_action(bench_args(listener, tmp_path, frame_sizes=[64, "imix"])))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    assert [search["profile"]["frame_size"] for search in document["searches"]] == [64, "imix"]
    ndr = result["searches"][1]["goals"]["ndr"]
    assert ndr["lower_bound"] <= CAPACITY <= ndr["upper_bound"]
    # the last streams loaded: IMIX's three on port 0, 1 pps in all in the mix's proportions (start's pps multiplier scales them)
    rates = [FakeClient.pps_of(stream) for stream in FakeClient.instances[0].streams[0]]
    assert rates == pytest.approx([28 / 48.0, 16 / 48.0, 4 / 48.0])
    rows = tables.rows_of([document])
    header, lines = tables.results_table(rows)
    frames = [line[header.index("frame")] for line in lines]
    assert frames == ["64 B"] * (len(frames) // 2) + ["imix"] * (len(frames) // 2) and frames
    report_tables, _entries = tables.tables_of([document])
    assert "| imix |" in markdown("bench", report_tables)
    if draw.HAS_MATPLOTLIB:
        assert {"bars.png", "loss-unit-64.png", "loss-unit-imix.png"} <= set(draw.plots([document], rows))
