# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The soak trial (plugin_utils/bench/soak.py, BenchRun.run_soak): one long trial at a goal's conditional
throughput after each frame size's searches, loss over time in intervals, resumed runs, generators without it.

Every results document is validated against docs/results-schema.json by the store (test_bench_run's ``bench``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as bench_report
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import soak, spec
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import CAPACITY, FakeGenerator, bench, on_disk


class SoakGenerator(FakeGenerator):
    """The fake generator with counters read every ``interval`` s; after ``degrade_after`` s of a soak the device
    loses ``loss`` of what it forwarded (a leak, a table that fills)."""

    def __init__(self, degrade_after=None, loss=0.01, **kwargs):
        super(SoakGenerator, self).__init__(**kwargs)
        self.degrade_after, self.loss = degrade_after, loss
        self.soaks = []

    def soak_trial(self, load, duration, interval):
        self.soaks.append((load, duration, interval))
        offered = received = 0
        samples, elapsed = [], 0.0
        while elapsed < duration:
            step = min(interval, duration - elapsed)
            reply = self.model(load, step)
            lost = self.loss if self.degrade_after is not None and elapsed >= self.degrade_after else 0.0
            offered, received = offered + reply["offered"], received + int(reply["received"] * (1.0 - lost))
            elapsed += step
            if elapsed < duration:
                samples.append({"t": elapsed, "offered": offered, "received": received})
        return {"offered": offered, "received": received, "achieved_load": offered / duration, "started": time.time(), "samples": samples}


def test_the_soak_runs_at_the_pdrs_conditional_throughput_and_records_loss_over_time(tmp_path):
    generator = SoakGenerator()
    run, store = bench(tmp_path, generator, soak_duration=60.0, soak_interval=10.0)
    summaries = run.run()
    store.finish("complete")
    search = on_disk(tmp_path)["searches"][0]
    record = search["soak"]
    pdr = search["result"]["goals"]["pdr"]
    assert generator.soaks == [(pdr["conditional_throughput"], 60.0, 10.0)]
    assert (record["goal"], record["load"], record["holds"], record["loss_ratio"]) == ("pdr", pdr["conditional_throughput"], True, 0.0)
    assert [(part["start"], part["end"]) for part in record["intervals"]] == [(10.0 * i, 10.0 * (i + 1)) for i in range(6)]
    assert sum(part["offered"] for part in record["intervals"]) == record["offered"]
    assert summaries[0]["soak"] == record


def test_a_device_that_degrades_under_a_long_trial_fails_the_soak_in_its_late_intervals(tmp_path):
    run, store = bench(tmp_path, SoakGenerator(degrade_after=30.0, loss=0.02), soak_duration=60.0, soak_interval=10.0)
    run.run()
    record = on_disk(tmp_path)["searches"][0]["soak"]
    assert record["holds"] is False and 0.009 < record["loss_ratio"] < 0.011
    assert [part["loss_ratio"] > 0.0 for part in record["intervals"]] == [False] * 3 + [True] * 3
    assert 0.019 < record["worst_interval_loss_ratio"] < 0.021


def test_a_resumed_run_does_not_soak_again(tmp_path):
    run, store = bench(tmp_path, SoakGenerator(), soak_duration=20.0, soak_interval=5.0)
    run.run()
    store.finish("complete")
    again = SoakGenerator()
    run, _store = bench(tmp_path, again, soak_duration=20.0, soak_interval=5.0)
    run.run()
    assert again.soaks == [] and again.calls == 0


def test_a_generator_that_cannot_read_its_counters_under_traffic_skips_the_soak_not_the_run(tmp_path):
    warnings = []
    run, store = bench(tmp_path, FakeGenerator(), soak_duration=20.0, soak_interval=5.0)
    run.warn = warnings.append
    summaries = run.run()
    record = on_disk(tmp_path)["searches"][0]["soak"]
    assert record["skipped"] == "generator fake:4501 cannot read its counters while traffic runs"
    assert CAPACITY * 0.99 <= summaries[0]["goals"]["pdr"]["lower_bound"] <= CAPACITY * 1.006
    assert warnings == ["trex_bench fake-run 64 B: no soak: generator fake:4501 cannot read its counters while traffic runs"]


def test_the_soak_goal_can_be_named_and_defaults_to_the_largest_loss_ratio():
    goals = [{"name": "ndr", "loss_ratio": 0.0}, {"name": "pdr", "loss_ratio": 0.005}, {"name": "pdr2", "loss_ratio": 0.005}]
    assert soak.soak_goal(goals)["name"] == "pdr"
    assert soak.soak_goal(goals, "ndr")["name"] == "ndr"


def test_the_soak_load_is_the_median_conditional_throughput_or_the_lower_bound_without_one():
    entries = [{"result": {"goals": {"pdr": {"lower_bound": bound, "conditional_throughput": throughput}}}}
               for bound, throughput in ((100.0, 99.0), (110.0, None), (120.0, 118.0))]
    assert soak.soak_load(entries, "pdr") == 110.0


def test_intervals_close_on_the_trials_final_counts_and_name_excess_frames():
    parts = soak.intervals([{"t": 5.0, "offered": 500, "received": 510}, {"t": 12.0, "offered": 999, "received": 999}], 10.0, 1000, 990)
    assert parts == [{"start": 0.0, "end": 5.0, "offered": 500, "received": 510, "loss_ratio": 0.0, "excess": 10},
                     {"start": 5.0, "end": 10.0, "offered": 500, "received": 480, "loss_ratio": 0.04}]


def _errors(**raw):
    raw = dict(dict(max_load=1000.0, results_dir="/tmp/results"), **raw)
    validated = ArgumentSpecValidator(spec.argument_spec()).validate(raw)
    assert not validated.error_messages, validated.error_messages
    return spec.check(validated.validated_parameters)[1]


def test_soak_arguments_are_checked_naming_the_argument():
    assert _errors(soak_duration=600.0, soak_interval=10.0, soak_goal="ndr") == []
    assert _errors(soak_duration=-1.0) == ["soak_duration: -1 must be the seconds of the soak trial after each frame size's searches, e.g. 600; "
                                           "0 runs none"]
    assert _errors(soak_duration=5.0, soak_interval=10.0) == [
        "soak_interval: 10 must be the seconds between two readings of the soak's counters, above 0 and at most soak_duration (5), e.g. 10"]
    errors = _errors(soak_duration=60.0, soak_goal="pdr9")
    assert len(errors) == 1 and errors[0].startswith("soak_goal: 'pdr9' is not one of the goals (ndr, ndr_1e-5, pdr)")


def test_the_report_shows_each_soak_and_whether_it_held(tmp_path):
    run, store = bench(tmp_path, SoakGenerator(degrade_after=30.0, loss=0.02), soak_duration=60.0, soak_interval=10.0)
    run.run()
    store.finish("complete")
    document = on_disk(tmp_path)
    tables, _entries = bench_report.tables_of([document])
    soaks = [table for table in tables if table[0] == "Soak at the conditional throughput"]
    assert len(soaks) == 1
    _heading, header, lines, notes = soaks[0]
    load = document["searches"][0]["soak"]["load"]
    assert header[-4:] == ["duration", "loss ratio", "worst interval", "holds"]
    assert lines == [["unknown", "routing", "udp", "64 B", "pdr", units.pps_text(load), "60 s (read every 10 s)", "0.01", "0.02", "NO (goal 0.005)"]]
    assert notes == [bench_report.SOAK_NOTE]
