# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""BenchRun with a fake generator (no TRex, no network): resume, interruption and
retry, a generator that never comes back, repeat statistics, excess frames.

Every results document the store writes here is validated against
docs/results-schema.json by the store itself (Store(validate=True), the
default), so a test that writes an invalid document fails with SchemaError.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, Generator, GeneratorLost
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import fingerprint
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.results import Store, schema_errors
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.run import BenchRun, RunStopped, first_connect, run_header
from ansible_collections.offload.testbed.tests.support import device_models as dm

CAPACITY = 200000.0
MAX_LOAD = 1000000.0


class Crash(Exception):
    """Not a lost generator: the controller itself died (the run stops, the file stays)."""


class FakeGenerator(Generator):
    """A device model behind the generator interface.

    ``lost``: the trial calls (1-based) that raise GeneratorLost; ``crash_at``:
    the call that raises Crash; ``down_after_loss``: every connect after the
    first loss fails (a generator that never comes back); ``extra``: frames
    received beyond the model's (late or foreign frames).
    """

    where = "fake:4501"

    def __init__(self, model=None, lost=(), crash_at=None, down_after_loss=False, extra=0):
        self.model = model or dm.CleanCliff(CAPACITY)
        self.lost = set(lost)
        self.crash_at = crash_at
        self.down_after_loss = down_after_loss
        self.extra = extra
        self.calls = 0
        self.connects = 0
        self.down = False
        self.streams = None

    def connect(self):
        self.connects += 1
        if self.down:
            raise BenchError("no generator reachable: nothing answers at fake:4501")

    def info(self):
        return {"server": "fake", "sync_port": 4501, "client": "trex_stl_lib", "ports": [0, 1], "rx_server": None, "version": None}

    def load(self, streams):
        self.streams = streams

    def trial(self, load, duration):
        self.calls += 1
        if self.calls == self.crash_at:
            raise Crash("the controller died")
        if self.calls in self.lost:
            self.down = self.down_after_loss
            raise GeneratorLost("fake:4501: 'wait_on_traffic' - connection to the server had been lost",
                                "STLError: connection lost\nTraceback (most recent call last):\n  ...")
        reply = self.model(load, duration)
        return dict(reply, received=reply["received"] + self.extra, achieved_load=reply["offered"] / duration, started=time.time())

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        raise NotImplementedError

    def free_pg_id(self, first):
        return first

    def stop(self):
        pass


def bench_args(tmp_path, **overrides):
    raw = dict(max_load=MAX_LOAD, results_dir=str(tmp_path), run_id="fake-run", frame_sizes=[64], warmup_duration=0, latency_loads=[],
               dut_health=False, reconnect_delay=2.0)
    raw.update(overrides)
    validated = ArgumentSpecValidator(spec.argument_spec()).validate(raw)
    assert not validated.error_messages, validated.error_messages
    args, errors = spec.check(validated.validated_parameters)
    assert not errors, errors
    return args


def bench(tmp_path, generator, sleeps=None, database=None, system=None, **overrides):
    """A BenchRun on a fresh (or resumed) store (writing ``database`` too when given; ``system`` what dut_health read on the
    DUT); returns (run, store)."""
    args = bench_args(tmp_path, **overrides)
    store = Store(str(tmp_path), args["run_id"], fingerprint(args), run_header(args, generator.info(), "dut", system), database=database)
    store.save()
    return BenchRun(args, generator, store, sleep=(sleeps.append if sleeps is not None else lambda seconds: None)), store


def reference_run(tmp_path):
    """The same run without incidents, in tmp_path/ref; its generator (calls = trials)."""
    reference = FakeGenerator()
    (tmp_path / "ref").mkdir()
    bench(tmp_path / "ref", reference)[0].run()
    return reference


def on_disk(tmp_path):
    document = json.loads((tmp_path / "fake-run.json").read_text())
    assert schema_errors(document) == []
    return document


def test_a_run_on_a_cliff_finds_the_capacity_and_every_trial_is_on_disk(tmp_path):
    run, store = bench(tmp_path, FakeGenerator())
    summaries = run.run()
    store.finish("complete")
    document = on_disk(tmp_path)
    search = document["searches"][0]
    assert len(search["trials"]) == store.measured > 0
    pdr = summaries[0]["goals"]["pdr"]
    assert CAPACITY * 0.99 <= pdr["lower_bound"] <= CAPACITY * 1.006
    assert all("offered" in trial and "time" in trial and trial["generator_limited"] is False for trial in search["trials"])
    assert document["summaries"][0]["goals"]["pdr"]["lower_bounds"] == [pdr["lower_bound"]]


def test_a_crash_keeps_the_trials_and_a_new_run_resumes_measuring_only_the_rest(tmp_path):
    reference = reference_run(tmp_path)
    run, store = bench(tmp_path, FakeGenerator(crash_at=4))
    with pytest.raises(Crash):
        run.run()
    assert len(on_disk(tmp_path)["searches"][0]["trials"]) == 3
    again = FakeGenerator()
    run, store = bench(tmp_path, again)
    run.run()
    assert store.resumed and again.calls == reference.calls - 3
    assert len(on_disk(tmp_path)["searches"][0]["trials"]) == reference.calls


def test_a_lost_generator_is_reconnected_and_the_interrupted_trial_runs_again(tmp_path):
    sleeps = []
    reference = reference_run(tmp_path)
    generator = FakeGenerator(lost={3, 5, 6})
    run, _store = bench(tmp_path, generator, sleeps=sleeps)
    summaries = run.run()
    document = on_disk(tmp_path)
    search = document["searches"][0]
    interrupted = search["interrupted_trials"]
    assert [item["attempt"] for item in interrupted] == [1, 1, 2]
    assert "connection to the server had been lost" in interrupted[0]["reason"] and "Traceback" in interrupted[0]["detail"]
    # the trial interrupted at call 3 is the search's third; 5 and 6 interrupt its fourth twice
    assert [trial.get("interrupted_before") for trial in search["trials"][:4]] == [None, None, 1, 2]
    assert len(search["trials"]) == reference.calls and generator.connects == 3
    assert sleeps == [2.0, 2.0, 4.0]
    reference_doc = json.loads((tmp_path / "ref" / "fake-run.json").read_text())
    assert summaries[0]["goals"]["pdr"]["lower_bound"] == reference_doc["summaries"][0]["goals"]["pdr"]["median"]


def test_a_generator_that_never_comes_back_stops_the_run_with_one_line(tmp_path):
    sleeps = []
    run, store = bench(tmp_path, FakeGenerator(lost={3}, down_after_loss=True), sleeps=sleeps, reconnects=3)
    with pytest.raises(RunStopped) as stopped:
        run.run()
    message = str(stopped.value)
    assert "\n" not in message and "Traceback" not in message
    assert "2 finished trials are in %s" % store.path in message and "resume with the same run_id (fake-run)" in message
    assert sleeps == [2.0, 4.0, 8.0]
    assert len(on_disk(tmp_path)["searches"][0]["interrupted_trials"]) == 1


class Handshakes(FakeGenerator):
    """A generator whose first connects break off in the handshake (a server just started again), or answer nothing."""

    def __init__(self, broken, error=GeneratorLost):
        super(Handshakes, self).__init__()
        self.broken = broken
        self.error = error

    def connect(self):
        self.connects += 1
        if self.connects <= self.broken:
            raise self.error("fake:4501: *** [subscriber] - timeout - no data flow from server at : tcp://fake:4500")


def test_the_first_connect_is_tried_again_when_the_handshake_breaks_off(tmp_path):
    sleeps, warnings = [], []
    generator = Handshakes(broken=2)
    first_connect(generator, bench_args(tmp_path, reconnects=3), warnings.append, sleep=sleeps.append)
    assert generator.connects == 3 and sleeps == [2.0, 4.0]
    assert warnings[0] == ("trex_bench: the generator at fake:4501 did not connect (fake:4501: *** [subscriber] - timeout - no data flow from "
                           "server at : tcp://fake:4500); trying again in 2 s (1 of 3)")


def test_the_first_connect_gives_up_after_reconnects_attempts(tmp_path):
    sleeps = []
    generator = Handshakes(broken=10)
    with pytest.raises(GeneratorLost):
        first_connect(generator, bench_args(tmp_path, reconnects=2), lambda line: None, sleep=sleeps.append)
    assert generator.connects == 3 and sleeps == [2.0, 4.0]


def test_nothing_answering_at_the_first_connect_fails_at_once(tmp_path):
    generator = Handshakes(broken=1, error=BenchError)
    with pytest.raises(BenchError):
        first_connect(generator, bench_args(tmp_path), lambda line: None, sleep=lambda seconds: pytest.fail("no wait"))
    assert generator.connects == 1


def test_repeats_give_the_median_and_the_spread(tmp_path):
    run, _store = bench(tmp_path, FakeGenerator(model=dm.NoisyCliff(CAPACITY)), repeat=4)
    summaries = run.run()
    document = on_disk(tmp_path)
    assert [entry["repeat"] for entry in document["searches"]] == [0, 1, 2, 3]
    bounds = [entry["result"]["goals"]["pdr"]["lower_bound"] for entry in document["searches"]]
    pdr = document["summaries"][0]["goals"]["pdr"]
    assert pdr["lower_bounds"] == bounds and pdr["min"] == min(bounds) and pdr["max"] == max(bounds)
    assert min(bounds) <= pdr["median"] <= max(bounds) and pdr["riqr"] is not None
    assert summaries[0]["repeats"] == 4 and summaries[0]["goals"]["pdr"]["lower_bound"] == pdr["median"]


def test_frames_beyond_those_sent_are_flagged_and_never_a_negative_loss(tmp_path):
    run, _store = bench(tmp_path, FakeGenerator(model=dm.NeverLoses(), extra=7), max_load=CAPACITY)
    run.run()
    trials = on_disk(tmp_path)["searches"][0]["trials"]
    assert trials and all(trial["loss_ratio"] == 0.0 and trial["excess"] == 7 for trial in trials)


def test_a_dut_that_restarted_makes_the_trial_invalid_and_it_runs_again(tmp_path):
    readings = iter([{"pid": 1, "start_time": 5}, {"pid": 2, "start_time": 9}] + [{"pid": 2, "start_time": 9}] * 400)
    run, _store = bench(tmp_path, FakeGenerator())
    run.health = lambda: next(readings)
    run.run()
    search = on_disk(tmp_path)["searches"][0]
    assert len(search["invalid_trials"]) == 1 and "restarted" in search["invalid_trials"][0]["invalid"][0]
    assert search["trials"][0]["health_before"]["pid"] == 2
