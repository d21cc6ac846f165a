# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Flow scale: ``flows`` as a list of flow counts, run with a fake generator whose DUT slows down with the
number of flows (no TRex, no network): one search per frame size x flow count x repeat, each recorded with
its count, resume keyed on it, the task's stats, and a single count left as it was.

The store validates every document it writes against docs/results-schema.json (Store(validate=True)).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_streams, fingerprint, profile, searches_of
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import run as run_module
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.run import run_stats
from ansible_collections.offload.testbed.tests.support import device_models as dm
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import (
    CAPACITY, Crash, FakeGenerator, bench, bench_args, on_disk)

FLOWS = [1000, 100000, 1048576]


def capacity_at(flows):
    """The fake DUT's capacity: CAPACITY up to 1000 flows, a quarter less per decade above (a flow table that spills)."""
    return CAPACITY * 0.75 ** max(0.0, math.log10(flows) - 3)


def flows_of(streams):
    """The number of source addresses the streams' field-engine program runs over (1 without a program)."""
    for instruction in streams[0]["vm"]:
        if instruction["type"] == "flow_var" and instruction["name"] == "src":
            return instruction["max"] - instruction["min"] + 1
    return 1


class FlowScaledGenerator(FakeGenerator):
    """A fake generator whose device's cliff is at ``capacity_at(flows)`` of the streams loaded last."""

    def __init__(self, **kwargs):
        super(FlowScaledGenerator, self).__init__(**kwargs)
        self.loaded = []

    def load(self, streams):
        super(FlowScaledGenerator, self).load(streams)
        self.loaded.append(flows_of(streams))
        self.model = dm.CleanCliff(capacity_at(self.loaded[-1]))


def test_a_list_runs_one_search_per_frame_size_and_flow_count_each_with_its_count(tmp_path):
    generator = FlowScaledGenerator()
    run, store = bench(tmp_path, generator, flows=FLOWS, frame_sizes=[64, 128])
    summaries = run.run()
    store.finish("complete")
    document = on_disk(tmp_path)
    assert generator.loaded == FLOWS * 2
    assert [(entry["profile"]["frame_size"], entry["profile"]["flows"]) for entry in document["searches"]] == searches_of(run.args)
    assert document["search"]["flow_counts"] == FLOWS
    for summary in summaries:
        capacity = capacity_at(summary["profile"]["flows"])
        assert capacity * 0.99 <= summary["goals"]["pdr"]["lower_bound"] <= capacity * 1.006
    assert [summary["profile"]["flows"] for summary in document["summaries"]] == FLOWS * 2
    bounds = [summary["goals"]["pdr"]["lower_bound"] for summary in summaries[:3]]
    assert bounds == sorted(bounds, reverse=True) and bounds[0] > bounds[-1] * 1.5


def test_repeats_run_per_flow_count(tmp_path):
    run, _store = bench(tmp_path, FlowScaledGenerator(), flows=[1000, 50000], repeat=2)
    run.run()
    searches = on_disk(tmp_path)["searches"]
    assert [(entry["profile"]["flows"], entry["repeat"]) for entry in searches] == [(1000, 0), (1000, 1), (50000, 0), (50000, 1)]


def test_the_streams_of_each_frame_size_and_flow_count_are_built_once_by_the_run(tmp_path, monkeypatch):
    built = []

    def counted(args, size, flows=None):
        built.append((size, flows))
        return build_streams(args, size, flows)

    monkeypatch.setattr(run_module, "build_streams", counted)
    generator = FlowScaledGenerator()
    run, _store = bench(tmp_path, generator, flows=[5000, 70000], frame_sizes=[64, 128])
    run.run()
    assert built == [(64, 5000), (64, 70000), (128, 5000), (128, 70000)]
    assert generator.loaded == [5000, 70000, 5000, 70000]
    assert generator.streams == build_streams(run.args, 128, 70000)


def test_a_resumed_run_finds_its_searches_by_flow_count(tmp_path):
    reference = FlowScaledGenerator()
    (tmp_path / "ref").mkdir()
    bench(tmp_path / "ref", reference, flows=FLOWS)[0].run()
    first = FlowScaledGenerator()
    # the crash is in the second flow count's search: the first is complete on disk
    first_search = len(on_disk(tmp_path / "ref")["searches"][0]["trials"])
    run, _store = bench(tmp_path, first, flows=FLOWS)
    first.crash_at = first_search + 3
    with pytest.raises(Crash):
        run.run()
    crashed = on_disk(tmp_path)["searches"]
    assert [(entry["profile"]["flows"], entry["status"], len(entry["trials"])) for entry in crashed] == [
        (1000, "complete", first_search), (100000, "running", 2)]
    again = FlowScaledGenerator()
    run, store = bench(tmp_path, again, flows=FLOWS)
    run.run()
    document = on_disk(tmp_path)
    assert store.resumed and again.calls == reference.calls - first_search - 2
    assert [entry["profile"]["flows"] for entry in document["searches"]] == FLOWS
    expected = on_disk(tmp_path / "ref")["searches"]
    assert [entry["result"]["goals"] for entry in document["searches"]] == [entry["result"]["goals"] for entry in expected]


def test_another_list_of_flow_counts_is_another_run(tmp_path):
    one, several, other = (fingerprint(bench_args(tmp_path, flows=flows)) for flows in (1000, [1000], [1000, 10000]))
    assert len({one, several, other}) == 3
    assert fingerprint(bench_args(tmp_path, flows=[1000, 10000])) == other


def test_one_flow_count_keeps_the_profile_fingerprint_and_stats_it_had(tmp_path):
    args = bench_args(tmp_path, flows=2000)
    assert profile(args, 64) == profile(args, 64, 2000) and profile(args, 64)["flows"] == 2000
    assert "flow_counts" not in bench(tmp_path, FlowScaledGenerator(), flows=2000)[1].document["search"]
    run, _store = bench(tmp_path, FlowScaledGenerator(), flows=2000)
    stats = run_stats(args, run.run(), str(tmp_path / "fake-run.json"))
    assert "flows" not in stats["trex_bench"]["fake-run"][0]


def test_the_tasks_stats_name_each_searchs_flow_count(tmp_path):
    run, store = bench(tmp_path, FlowScaledGenerator(), flows=[1000, 100000])
    searches = run_stats(run.args, run.run(), store.path)["trex_bench"]["fake-run"]
    assert [(item["frame_size"], item["flows"]) for item in searches] == [(64, 1000), (64, 100000)]
    assert searches[0]["goals"]["pdr"]["lower_bound_pps"] > searches[1]["goals"]["pdr"]["lower_bound_pps"]
