# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One bench run: every frame size, every flow count, every repeat, resume, latency and the results store.

:class:`BenchRun` sees a generator only through the interface of
:mod:`.generator` and the device under test only through a ``health()``
callable, so it runs as well against a fake generator in a unit test as
against TRex in a lab.

What a run guarantees:

* every finished trial is on disk as it ends (:class:`.results.Store`);
* a run started again with the same run id replays the trials on disk and
  measures only the rest (:class:`.results.Replay`; the search is
  deterministic);
* a trial interrupted by a lost generator (:class:`.generator.GeneratorLost`)
  is recorded as interrupted, never as a measurement; the bench reconnects
  after a back-off (``reconnect_delay``, doubling) and runs the trial again,
  up to ``reconnects`` times; only then the run stops, with a one-line
  message (:class:`RunStopped`) that says what was lost, what is on disk and
  how to resume;
* a trial during which the DUT was not healthy (ovs-vswitchd restarted, a new
  core dump) is recorded as invalid and run again up to ``retries`` times;
* with ``repeat`` N each search runs N times, and the run records per goal
  the median bound and its spread (``summaries``);
* with a list of flow counts (``flows: [1000, 100000, 1000000]``) every
  frame size is searched at every count in turn, each search's profile
  recording its count (``profile.flows``): a resumed run finds its searches
  by frame size, flow count and repeat.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import socket
import time

from ansible_collections.offload.testbed.plugins.module_utils.bench import units

from ansible_collections.offload.testbed.plugins.module_utils.bench.fingerprint import fingerprint
from ansible_collections.offload.testbed.plugins.module_utils.bench.health import compare_health, cpu_use, health_summary
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import report_file
from ansible_collections.offload.testbed.plugins.module_utils.bench.offload_facts import evidence_of, offload_use, rx_queue_use
from ansible_collections.offload.testbed.plugins.module_utils.bench.stats import median, summarize_bounds
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, GeneratorLost, LatencyUnsupported, SoakUnsupported
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.latency import has_latency, latency_points, reference_load, summarize
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import (
    FCS, build_latency_frame, build_streams, profile, search_settings, searches_of)
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.spec import flow_list
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.results import Replay, is_generator_limited, progress_line
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import loss_of, search
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.soak import skipped, soak_goal, soak_load, soak_record


def run_header(args, generator_info, dut_host, dut_system):
    """What the results document records about the run before its first trial, its bench fingerprint included."""
    header = {
        "datapath": args["datapath"],
        "goals": args["goals"],
        "search": dict(search_settings(args), repeat=args["repeat"], **_line_rate(args)),
        "metadata": dict(args["metadata"], dut_host=dut_host, controller=socket.gethostname(), dut_system=dut_system),
        "generator": generator_info,
    }
    header["bench_fingerprint"] = fingerprint(header)
    return header


def _line_rate(args):
    """``{"line_rate_gbps": ...}`` when the line rate is given, else nothing (results without it keep their form)."""
    return {} if args.get("line_rate_gbps") is None else {"line_rate_gbps": args["line_rate_gbps"]}


def _goal_stats(goal, frame_size, line_rate_gbps):
    """One goal's bounds in frames/s and Gb/s on the wire, with its share of line rate when the line rate is known."""
    stats = {"loss_ratio": goal["loss_ratio"], "generator_limited": bool(goal["generator_limited"])}
    for name in ("lower_bound", "upper_bound"):
        pps = goal.get(name)
        stats.update({name + "_pps": pps, name + "_gbps": units.gbps_l1(pps, frame_size),
                      name + "_line_share": units.line_share(pps, frame_size, line_rate_gbps)})
    return stats


def run_stats(args, summaries, results_file):
    """The ``set_stats`` data of a run (AWX job artifacts), one entry per search (frame size; with a list of flow counts, frame size x flow count).

    Each entry names the search (scenario, protocol, frame size, datapath), the results file and the report
    ``bench_report`` writes by default, and per goal the lower and upper bound (medians over the repeats) in
    frames/s and in Gb/s on the wire (``bench_units.gbps_l1``), their share of ``line_rate_gbps`` (None when it
    is not given) and whether the generator limited them; with a list of flow counts, the search's ``flows``.
    """
    searches = []
    for item in summaries:
        size = item["profile"]["frame_size"]
        goals = {name: _goal_stats(goal, size, args.get("line_rate_gbps")) for name, goal in item["goals"].items()}
        searches.append({"scenario": args["scenario"], "protocol": args["protocol"], "frame_size": size, "datapath": args["datapath"],
                         "repeats": item["repeats"], "line_rate_gbps": args.get("line_rate_gbps"), "goals": goals,
                         "generator_limited": any(goal["generator_limited"] for goal in goals.values()),
                         "results_file": results_file, "report": report_file(os.path.dirname(results_file))})
        if flow_list(args):
            searches[-1]["flows"] = item["profile"]["flows"]
    return {"trex_bench": {args["run_id"]: searches}}


def returned_goals(entries, summary):
    """The task's per-goal result: ``lower_bound`` is the median over the repeats (with one repeat, the search's own
    bounds), with the statistics of ``bench_stats.summarize_bounds`` beside it."""
    goals = {}
    for name, stats in summary["goals"].items():
        if len(entries) == 1:
            goal = dict(entries[0]["result"]["goals"][name])
        else:
            goal = {"loss_ratio": stats["loss_ratio"], "generator_limited": stats["generator_limited"],
                    "upper_bound": median([entry["result"]["goals"][name]["upper_bound"] for entry in entries])}
        goal.update(stats)
        goal["lower_bound"] = stats["median"]
        goals[name] = goal
    return goals


def first_connect(generator, args, warn, sleep=time.sleep):
    """Connect before the first trial. A handshake that breaks off (:class:`GeneratorLost`: a server its supervision
    has just started again, a busy machine) is tried again after ``reconnect_delay`` s, doubling, up to ``reconnects``
    times, as a lost generator is during the run; nothing answering at all (a :class:`BenchError`: a wrong address or
    port) fails at once."""
    for attempt in range(args["reconnects"] + 1):
        try:
            return generator.connect()
        except GeneratorLost as error:
            if attempt == args["reconnects"]:
                raise
            delay = args["reconnect_delay"] * 2 ** attempt
            warn("trex_bench: the generator at %s did not connect (%s); trying again in %.0f s (%d of %d)"
                 % (getattr(generator, "where", "generator"), error.reason, delay, attempt + 1, args["reconnects"]))
            sleep(delay)


class InvalidTrial(BenchError):
    """The DUT was not healthy during a trial, every retry included."""


class RunStopped(BenchError):
    """The generator stayed lost; the message says what is on disk and how to resume."""


def utc(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _us(value):
    return "n/a" if value is None else "%.0f" % value


class BenchRun:
    """The frame-size (and flow-count) loop of one ``trex_bench`` task.

    The streams of each frame size and flow count are built once, here, when its searches start.

    :param args: the validated arguments (``spec.check``).
    :param generator: a :class:`.generator.Generator`, connected.
    :param store: the run's :class:`.results.Store`, saved once.
    :param health: ``health()`` -> the DUT's health (``dut_health``'s
        result) or None without health checks.
    :param log, warn: callables taking one line for the user.
    :param sleep: ``time.sleep``, replaced in tests.
    """

    def __init__(self, args, generator, store, health=None, log=None, warn=None, sleep=time.sleep):
        self.args = args
        self.generator = generator
        self.store = store
        self.health = health
        self.log = log or (lambda line: None)
        self.warn = warn or self.log
        self.sleep = sleep
        self.settings = search_settings(args)
        self.started = time.time()
        self.position = 0

    # -- the run -------------------------------------------------------------

    def run(self):
        """Every frame size, every flow count, every repeat; returns one summary per frame size (x flow count)."""
        summaries = []
        for self.position, (size, flows) in enumerate(searches_of(self.args)):
            self.generator.load(build_streams(self.args, size, flows))
            entries = [self.run_search(size, repeat, flows) for repeat in range(self.args["repeat"])]
            summary = self.summarize(entries)
            self.run_latency(entries[0], size, summary)
            self.run_soak(entries, size)
            summaries.append({"profile": entries[0]["profile"], "repeats": len(entries), "goals": returned_goals(entries, summary),
                              "trial_seconds": sum(entry["result"]["trial_seconds"] for entry in entries),
                              "trials": sum(len(entry["trials"]) for entry in entries), "latency": entries[0].get("latency"),
                              "soak": entries[0].get("soak")})
        return summaries

    def tag(self, size, repeat, flows=None):
        label = "%s %s" % (self.store.run_id, units.size_text(size))
        if flow_list(self.args):
            label += ", %d flows" % flows
        return label if self.args["repeat"] == 1 else "%s, repeat %d/%d" % (label, repeat + 1, self.args["repeat"])

    def run_search(self, size, repeat, flows=None):
        """One search (resumed from the trials on disk, found by its profile, flow count included, and repeat); its entry in the results document."""
        entry = self.store.search_entry(profile(self.args, size, flows), repeat)
        tag = self.tag(size, repeat, flows)
        if entry["status"] == "complete":
            self.log("trex_bench %s: already complete in %s" % (tag, self.store.path))
            return entry
        if self.args["warmup_duration"] > 0:
            # also when resuming: the DUT's connection tracking may have forgotten the flows since
            self.warm_up(entry, tag)
        recorded = list(entry["trials"])

        def on_trial(trial):
            # a replayed trial comes back from Replay as it was recorded, marked replayed; a measured one is stored
            if trial["index"] >= len(recorded):
                self.store.add_trial(entry, trial)
            self.log("trex_bench %s: %s" % (tag, progress_line(trial["index"], trial, time.time() - self.started, self.time_left(entry),
                                                               units.rate_unit(size))))

        result = search(Replay(recorded, lambda load, duration: self.measure(entry, load, duration)), self.args["max_load"],
                        goals=self.args["goals"], min_load=self.settings["min_load"], final_duration=self.args["final_duration"],
                        width=self.args["width"], initial_duration=self.args["initial_duration"], on_trial=on_trial,
                        max_trials=self.args["max_trials"], upper_bound_duration=self.args["upper_bound_duration"],
                        confirm_upper=self.args["confirm_upper"])
        final = self.store.finish_search(entry, result, self.args["max_load"])
        bounds = ["%s %.1f %s%s" % (name, goal["lower_bound"], units.rate_unit(size), " (generator-limited)" if goal["generator_limited"] else "")
                  for name, goal in final["goals"].items()]
        self.log("trex_bench %s: %s" % (tag, ", ".join(bounds)))
        return entry

    def time_left(self, entry):
        """A rough estimate of the trial seconds left in the run."""
        args = self.args
        expected = len(args["goals"]) * 2 * args["final_duration"] + 6 * args["initial_duration"]
        searches_left = (len(searches_of(args)) - self.position) * args["repeat"] - entry.get("repeat", 0) - 1
        return max(0.0, expected - sum(trial["duration"] for trial in entry["trials"])) + expected * max(0, searches_left)

    def warm_up(self, entry, tag):
        load, duration = self.settings["warmup_load"], self.args["warmup_duration"]
        reply = self.trial(entry, load, duration)
        self.store.set_warmup(entry, {"load": load, "duration": duration, "offered": reply["offered"], "received": reply["received"],
                                      "time": utc(reply["started"])})
        unit = units.rate_unit(self.args["frame_sizes"][0])
        self.log("trex_bench %s: warm-up %.1f %s x %.2f s: sent %d received %d" % (tag, load, unit, duration, reply["offered"], reply["received"]))

    # -- one trial ------------------------------------------------------------

    def measure(self, entry, load, duration):
        """One valid trial, as the trial record the search passes to ``on_trial``; health before and after,
        run again while the DUT was not healthy."""
        attempts = 0
        while True:
            before = self.health() if self.health else None
            reply = self.trial(entry, load, duration)
            after = self.health() if self.health else None
            record = self.record(load, duration, reply, before, after)
            reasons = compare_health(before, after)
            if not reasons:
                return record
            loss_ratio, _excess = loss_of(record["offered"], record["received"])
            self.store.add_invalid(entry, dict(record, load=load, duration=duration, loss_ratio=loss_ratio, invalid=reasons))
            self.warn("trex_bench %s: trial at %.1f pps x %.2f s is INVALID: %s" % (self.store.run_id, load, duration, "; ".join(reasons)))
            attempts += 1
            if attempts > self.args["retries"]:
                raise InvalidTrial("the DUT was not healthy during %d attempt(s) of the trial at %.1f pps x %.2f s: %s"
                                   % (attempts, load, duration, "; ".join(reasons)))

    def record(self, load, duration, reply, before, after):
        """The trial record: the generator's counts, when, and what the DUT's health, CPUs, offload evidence (``offload``)
        and receive queues (``rx_queues``, when read) showed."""
        record = {key: value for key, value in reply.items() if key != "started"}
        record.update(time=utc(reply["started"]), generator_limited=is_generator_limited(load, duration, reply["offered"]))
        if before is not None and after is not None:
            record.update(health_before=health_summary(before), health_after=health_summary(after))
            usage = cpu_use(before, after)
            if usage is not None:
                record["cpu"] = usage
                record["starved"] = list(usage.get("starved") or [])
            record["offload"] = offload_use(evidence_of(before), evidence_of(after))
            queues = rx_queue_use(evidence_of(before), evidence_of(after))
            if queues is not None:
                record["rx_queues"] = queues
        return record

    def trial(self, entry, load, duration):
        return self.guarded(entry, load, duration, lambda: self.generator.trial(load, duration))

    def guarded(self, entry, load, duration, call, **marks):
        """``call()`` (a trial of the generator), run again after reconnecting when the generator was lost; an interrupted
        trial goes to the entry's ``interrupted_trials``, and the record that finally counts says how often."""
        lost = 0
        while True:
            try:
                reply = call()
            except GeneratorLost as error:
                lost += 1
                self.store.add_interrupted(entry, dict(marks, load=load, duration=duration, time=utc(time.time()), attempt=lost,
                                                       reason=error.reason, detail=error.detail))
                lost = self.reconnect(entry, load, duration, lost, error)
                continue
            if lost:
                reply["interrupted_before"] = lost
            return reply

    def reconnect(self, entry, load, duration, lost, error):
        """Wait (doubling) and connect again; stop the run after ``reconnects`` lost attempts of one trial.

        Returns the attempts lost so far (a failed connect counts as one)."""
        while True:
            if lost > self.args["reconnects"]:
                raise RunStopped(self.stopped_message(entry, load, duration, lost, error))
            delay = self.args["reconnect_delay"] * 2 ** (lost - 1)
            self.warn("trex_bench %s: trial at %.1f pps x %.2f s interrupted (%s); reconnecting in %.0f s (%d of %d)"
                      % (self.store.run_id, load, duration, error.reason, delay, lost, self.args["reconnects"]))
            self.sleep(delay)
            try:
                self.generator.connect()
                return lost
            except (GeneratorLost, BenchError) as failed:
                lost += 1
                error = failed if isinstance(failed, GeneratorLost) else GeneratorLost(str(failed))

    def stopped_message(self, entry, load, duration, lost, error):
        profile_ = entry["profile"]
        return ("the generator at %s was lost %d time(s) in a row during the trial at %.1f pps x %.2f s of %s %s %s: %s; %d finished trials are in %s; "
                "resume with the same run_id (%s) once the generator is back"
                % (getattr(self.generator, "where", "generator"), lost, load, duration, profile_["scenario"], profile_["protocol"],
                   units.size_text(profile_["frame_size"]), error.reason, self.store.trial_count(), self.store.path, self.store.run_id))

    # -- after the searches ----------------------------------------------------

    def summarize(self, entries):
        """Per goal, the bounds of the repeats: median and spread (``bench_stats.summarize_bounds``)."""
        goals = {}
        for name, first in entries[0]["result"]["goals"].items():
            values = [entry["result"]["goals"][name]["lower_bound"] for entry in entries]
            limited = [entry["result"]["goals"][name]["generator_limited"] for entry in entries]
            goals[name] = summarize_bounds(values, first["loss_ratio"], limited)
        summary = {"repeats": len(entries), "goals": goals}
        self.store.set_summary(entries[0]["profile"], summary)
        return summary

    def run_latency(self, entry, size, summary):
        """Latency at ``latency_loads`` x the median PDR, one trial per load, each saved as it ends.

        A generator that refuses latency streams ends the latency part of the
        run (recorded as skipped), not the run. Points already in the file
        (a resumed run) are not measured again.
        """
        if not self.args["latency_loads"] or (entry.get("latency") or {}).get("skipped"):
            return
        goals = {name: {"lower_bound": goal["median"]} for name, goal in summary["goals"].items()}
        goal, reference = reference_load(goals)
        latency = self.store.latency(entry, goal, reference)
        if reference <= 0:
            self.store.skip_latency(latency, "no goal has a lower bound above 0 frames/s")
            return
        done = set(point["fraction"] for point in latency["points"])
        for point in latency_points(goals, self.args["latency_loads"], self.args["latency_pps"]):
            if point["fraction"] not in done and not self.latency_point(entry, latency, size, point, goal):
                return

    def run_soak(self, entries, size):
        """One soak trial at the median conditional throughput of ``soak_goal`` over the repeats, its counters read every
        ``soak_interval`` s; saved with the first repeat's search as it ends. A resumed run with it on disk does not run it again;
        a generator that cannot read its counters under traffic skips it (recorded), not the run."""
        args = self.args
        if args["soak_duration"] <= 0 or entries[0].get("soak"):
            return
        goal = soak_goal(args["goals"], args["soak_goal"])
        load = soak_load(entries, goal["name"])
        tag = "%s %s" % (self.store.run_id, units.size_text(size))
        if load <= 0:
            self.store.set_soak(entries[0], skipped(goal["name"], load, "goal %s has no lower bound above 0 frames/s" % goal["name"]))
            return
        duration, interval = args["soak_duration"], args["soak_interval"]
        self.log("trex_bench %s: soak at %s's conditional throughput %.1f pps for %.0f s, read every %.0f s" % (tag, goal["name"], load, duration, interval))
        try:
            reply = self.guarded(entries[0], load, duration, lambda: self.generator.soak_trial(load, duration, interval), soak=True)
        except SoakUnsupported as error:
            self.store.set_soak(entries[0], skipped(goal["name"], load, str(error)))
            self.warn("trex_bench %s: no soak: %s" % (tag, error))
            return
        record = soak_record(goal, load, {"duration": duration, "interval": interval}, reply, utc(reply["started"]))
        self.store.set_soak(entries[0], record)
        self.log("trex_bench %s: soak sent %d received %d: loss ratio %.6g (worst interval %.6g), %s %s's loss ratio %.6g" % (
            tag, record["offered"], record["received"], record["loss_ratio"], record["worst_interval_loss_ratio"],
            "within" if record["holds"] else "ABOVE", goal["name"], goal["loss_ratio"]))

    def latency_point(self, entry, latency, size, point, goal):
        """One latency trial; False when the generator cannot measure latency (the rest is skipped)."""
        duration = self.settings["latency_duration"]
        frame = build_latency_frame(self.args, size)
        try:
            # a packet group neither server has seen: the receiving server's counters are never cleared
            pg_id = self.generator.free_pg_id(self.store.next_pg_id(self.args["latency_pg_id"]))
            self.store.use_pg_id(pg_id)
            reply = self.latency_reply(entry, point, duration, frame, pg_id)
        except LatencyUnsupported as error:
            return self.no_latency(latency, size, str(error))
        if not has_latency(reply["rx_pgid_stats"], pg_id):
            return self.no_latency(latency, size, "the generator reported no latency statistics for packet group %d: it accepted the latency "
                                                  "stream but does not measure latency" % pg_id)
        loss_ratio, excess = loss_of(reply["offered"], reply["received"])
        record = dict(point, duration=duration, pg_id=pg_id, frame_size=len(frame) + FCS, offered=reply["offered"], received=reply["received"],
                      loss_ratio=loss_ratio, time=utc(reply["started"]))
        if excess:
            record["excess"] = excess
        record.update(summarize(reply["tx_pgid_stats"], reply["rx_pgid_stats"], pg_id))
        self.store.add_latency_point(latency, record)
        self.log("trex_bench %s %s: latency at %.0f%% of %s (%.1f pps): min %s avg %s max %s us, 99%% <= %s us, %s of %s latency frames back" % (
            self.store.run_id, units.size_text(size), point["fraction"] * 100, goal, point["load"], _us(record["min_us"]), _us(record["avg_us"]),
            _us(record["max_us"]), _us(record["percentiles_us"].get("99")), record["latency_received"], record["latency_sent"]))
        return True

    def latency_reply(self, entry, point, duration, frame, pg_id):
        return self.guarded(entry, point["load"], duration, lambda: self.generator.latency_trial(point["load"], duration, frame, point["latency_pps"], pg_id),
                            latency=True)

    def no_latency(self, latency, size, reason):
        self.store.skip_latency(latency, reason)
        self.warn("trex_bench %s %s: no latency: %s" % (self.store.run_id, units.size_text(size), reason))
        return False
