# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Multi-goal throughput search (NDR, PDR and any other loss-ratio goal).

Plain Python with no TRex, Ansible or network dependency: ``measure`` is any
callable ``measure(load_pps, duration_s) -> {"offered": int, "received": int}``
(the TRex client, the software generator or a model of a device).  Every
other key of its reply (time, health, cpu, generator_limited...) is kept in
the trial record that goes to ``on_trial`` and into ``result["trials"]``; the
search's own keys (load, duration, offered, received, loss_ratio) win over the
reply's.  When more frames come back than were sent (late frames of an
earlier trial, foreign traffic) the loss ratio is 0.0, never negative, and the
record gets ``excess``: received - offered.

How one trial is chosen: the open goal of lowest loss ratio proposes it (its
trials inform the others on the way).  Proposing changes nothing: a proposal
carries the changes of the search's per-goal state it wants (steps down or
up, the probe done, stalled projections), and they are applied only when its
trial runs.

How it spends few trial seconds:

* The first trial runs at ``max_load`` for ``initial_duration``.  Its
  forwarding rate (received / duration) is a close first guess of capacity,
  as in FD.io CSIT's MLRsearch.
* The second trial probes two widths above that guess, short.  On a cliff it
  forwards the same rate (within a width): the device forwards its capacity
  and drops the rest, both trials measured that capacity, and their
  duration-weighted mean is a better guess than either (noise shrinks by the
  square root of two).  The third trial then confirms half a width below the
  mean, at ``final_duration`` at once.  If that confirmation misses the goal
  (short trials were optimistic), or the rates differ, the search goes on as
  below; the probe then informs projections only if it forwarded clearly
  less than the trial above it (loss that grows with the load).  Skipping the
  probe (a final trial half a width below the first guess) would save its
  1 s on a cliff and costs 9 s or more on any device whose loss grows with
  the load, where that final trial misses far above the edge:
  ``benchmarks/search_efficiency.py`` measures it (column ``1st-finals``).
* Short trials (``initial_duration``) find each goal's edge: from every trial
  that missed a goal the loss is extrapolated back to the load where the goal
  would just be met (forwarding-rate projection, and the secant through the
  two lowest lossy trials of one duration); a bracket of clean and lossy loads keeps the
  guesses honest and falls back to geometric bisection when they stall.
* When the loss does not shrink with the load (a dip of loss below a clean
  band, or a device that always loses) the search steps down from the
  lowest lossy load by doubling steps (8 %, 16 %, 32 %) before it jumps to
  ``min_load``: the bottom of a dip is found in a few short trials.  Two
  trials in a band of even loss have a secant whose root lies anywhere far
  below them (the rounding of their packet counts decides where): a root
  more than ``_FLAT_REACH`` times their distance below them counts as flat
  loss, not as an edge to jump to.
* When the forwarding rate falls with the load (a collapse), projections
  underestimate the edge: the secant of the excess loss is the guess, upper
  bounds are tried short first, and while those tries keep meeting the goal
  the step up doubles (one width, two, four...), as MLRsearch expands its
  interval.  When every trial is a final one (a step costs what a
  confirmation costs) the first step is four widths.
* Goals with RFC 9971 attributes are settled after that (``settle``,
  ``rfc9971.next_trial``): each load is repeated until the RFC classifies
  it, starting with the loads this search found as the goal's bounds; a lone
  bound is followed one width beside it, never by classifying max load; a
  load that leans to an upper bound is repeated with a short trial when one
  lossy short trial would decide it.
* When a final trial misses a goal at a load where a short trial met it,
  short trials are optimistic for that goal (a policer's burst, deep
  buffers) and the goal explores with final trials from then on, instead of
  walking down one final trial per width.
* Full ``final_duration`` trials only confirm: one at the lower bound and one
  at the upper bound, at most a ``width`` apart.  A confirming trial that comes
  out the other way still serves as the opposite bound, and every trial
  informs every goal, so one trial is often the upper bound of NDR and the
  lower bound of PDR at once.

Safety: bounds rest on ``final_duration`` trials only (with
``upper_bound_duration``, upper bounds may rest on shorter trials: MLRsearch's
rule).  The upper bound of a goal is the lowest load whose final trial missed
it; the lower bound is the highest load below that whose final trial met it,
so a lossy trial below a clean one lowers the bound (non-monotonic loss).  A
short trial that missed a goal below the lower bound is re-measured at
``final_duration`` before the bound is reported.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import check_goals, is_rfc_goal
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search_propose import ProposeMixin


def _check_number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("%s must be a number, got %r" % (name, value))
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("%s must be finite, got %r" % (name, value))
    return value


def _check_positive(name, value):
    value = _check_number(name, value)
    if value <= 0.0:
        raise ValueError("%s must be > 0, got %r" % (name, value))
    return value


# Keys of a trial record that the search sets itself: a measure's reply may
# carry any other key (kept in the record) but not these.
_OWN_KEYS = frozenset(("load", "duration", "offered", "received", "loss_ratio", "excess", "index"))


def _counts(reply):
    """``(offered, received)`` of a measure's reply, as integers."""
    try:
        return int(reply["offered"]), int(reply["received"])
    except (KeyError, TypeError, ValueError):
        raise ValueError("measure must return a mapping with integer 'offered' and 'received', got %r" % (reply,))


def loss_of(offered, received):
    """``(loss ratio, excess)`` of a trial: the ratio in [0, 1], never negative; ``excess`` the frames received
    beyond those sent (late frames of an earlier trial, foreign traffic), else 0.  Nothing sent: a ratio of 1.0,
    since nothing shows the device met any goal."""
    excess = max(0, received - offered)
    if offered <= 0:
        return 1.0, excess
    return min(1.0, max(0.0, (offered - received) / offered)), excess


class _Search(ProposeMixin):
    """State of one search: the trials so far and the choice of the next one (``ProposeMixin``, search_propose.py).

    Choosing a trial changes nothing: ``propose`` reads the trials and the
    per-goal state and returns a ``_Proposal``; ``loop`` runs the proposal of
    one goal and only then applies its ``updates`` and learns from the trial.
    """

    # With RFC 9971 goals: only full-length trials count (our stricter rule: every bound rests on them).
    confirm_upper = False

    def __init__(self, measure, max_load, goals, min_load, final_duration, width, initial_duration, on_trial, max_trials,
                 upper_bound_duration=None):
        self.measure = measure
        self.max_load = max_load
        self.min_load = min_load
        self.goals = goals
        self.final_duration = final_duration
        self.width = width
        self.initial_duration = initial_duration
        # The shortest trial whose loss may make an upper bound: final_duration
        # under the contract; any trial under MLRsearch's rule.
        self.upper_bound_duration = final_duration if upper_bound_duration is None else upper_bound_duration
        self.on_trial = on_trial
        self.max_trials = max_trials
        self.trials = []
        # Per goal name, changed only by the updates of a proposal that ran:
        # log-width of the exploration bracket after the last projection step
        # (last_step) and whether projections stalled (stalled); the steps
        # down while everything missed (down_steps) and while the loss stayed
        # flat (flat_steps); the steps up while short tries of the upper bound
        # met the goal (up_steps: (low, count)); whether the cliff probe ran.
        self.stalled = {}
        self.last_step = {}
        self.down_steps = {}
        self.flat_steps = {}
        self.up_steps = {}
        self.probed = {}
        # Per goal name, learnt from the trials (see learn): an upper bound
        # tried at a projection met the goal (distrust); a final trial missed
        # the goal at a load where a short trial met it, so short trials are
        # optimistic (buffers, a policer's burst) and the goal explores with
        # final trials from then on (short_optimistic); a final trial below
        # the capacity that lossy trials agreed on missed the goal, so the
        # device is no simple cliff (not_cliff).
        self.distrust = {}
        self.short_optimistic = {}
        self.not_cliff = {}
        # Indexes of the probes (see cliff_rate) that projections leave out:
        # those that neither agreed on a cliff nor forwarded clearly less
        # than the trial above them.
        self.probes = set()

    # -- measuring -------------------------------------------------------

    def run(self, load, duration):
        """Measure one trial and return its record (also appended to ``trials`` and given to ``on_trial``).

        The record keeps every key of the measure's reply except the search's
        own (load, duration, offered, received, loss_ratio, excess, index),
        with ``achieved_load`` as a float (left out when None).  When more
        frames came back than were sent (late frames of an earlier trial,
        foreign traffic) the loss ratio is 0.0 and ``excess`` is the surplus.
        """
        if len(self.trials) >= self.max_trials:
            raise RuntimeError("search: max_trials (%d) reached before every goal was settled" % self.max_trials)
        load = float(load)
        duration = float(duration)
        reply = self.measure(load, duration)
        offered, received = _counts(reply)
        loss_ratio, excess = loss_of(offered, received)
        trial = {"load": load, "duration": duration, "offered": offered, "received": received, "loss_ratio": loss_ratio}
        for key, value in (reply.items() if hasattr(reply, "items") else ()):
            if key not in _OWN_KEYS:
                trial[key] = value
        if trial.get("achieved_load") is not None:
            trial["achieved_load"] = float(trial["achieved_load"])
        else:
            trial.pop("achieved_load", None)
        if excess:
            trial["excess"] = excess
        self.trials.append(trial)
        if self.on_trial is not None:
            self.on_trial(dict(trial, index=len(self.trials) - 1))
        return trial

    def is_final(self, trial):
        return trial["duration"] >= self.final_duration

    # -- reading the trials for one goal -----------------------------------

    def final_bounds(self, ratio):
        """(lower trial index or None, upper load or None) from final trials.

        The upper bound also counts lossy trials of ``upper_bound_duration``.
        """
        upper = None
        for trial in self.trials:
            if trial["duration"] >= self.upper_bound_duration and trial["loss_ratio"] > ratio:
                if upper is None or trial["load"] < upper:
                    upper = trial["load"]
        lower_index = None
        for index, trial in enumerate(self.trials):
            if not self.is_final(trial) or trial["loss_ratio"] > ratio:
                continue
            if upper is not None and trial["load"] >= upper:
                continue
            if lower_index is None or trial["load"] > self.trials[lower_index]["load"]:
                lower_index = index
        return lower_index, upper

    def has_final_at(self, load):
        return any(self.is_final(trial) and trial["load"] == load for trial in self.trials)

    def tried_short(self, load):
        return any(trial["load"] == load and not self.is_final(trial) for trial in self.trials)

    def suspect(self, ratio, lower_load):
        """A short trial that missed the goal at or below the lower bound, not yet re-measured."""
        found = None
        for trial in self.trials:
            if self.is_final(trial) or trial["loss_ratio"] <= ratio or trial["load"] > lower_load:
                continue
            if self.has_final_at(trial["load"]):
                continue
            if found is None or trial["load"] < found:
                found = trial["load"]
        return found

    def status(self, goal):
        """None while the goal is open, else its result entry."""
        ratio = goal["loss_ratio"]
        lower_index, upper = self.final_bounds(ratio)
        if upper is not None and upper <= self.min_load:
            return {"lower_bound": 0.0, "upper_bound": upper, "lower_bound_trial": None}
        if lower_index is None:
            return None
        lower = self.trials[lower_index]["load"]
        if self.suspect(ratio, lower) is not None:
            return None
        if upper is None:
            upper = self.max_load
        if lower >= self.max_load or (upper - lower) / upper <= self.width:
            return {"lower_bound": lower, "upper_bound": upper, "lower_bound_trial": lower_index}
        return None

    def bracket(self, ratio, final_lower, final_upper, finals_only_low=False):
        """Highest load met and lowest load missed, by trials of any duration, between the final bounds.

        With ``finals_only_low`` a short trial that met the goal does not count.
        """
        high = None
        for trial in self.trials:
            load = trial["load"]
            if final_lower is not None and load <= final_lower:
                continue
            if final_upper is not None and load > final_upper:
                continue
            if trial["loss_ratio"] > ratio and (high is None or load < high):
                high = load
        low = final_lower
        for trial in self.trials:
            load = trial["load"]
            if trial["loss_ratio"] > ratio or (low is not None and load <= low):
                continue
            if finals_only_low and not self.is_final(trial):
                continue
            if high is not None and load >= high:
                continue
            if final_upper is not None and load >= final_upper:
                continue
            low = load
        return low, high

    def fits(self, lower, upper):
        """Whether bounds at these loads would be within the width."""
        return (upper - lower) / upper <= self.width

    # -- running the chosen trial (the only place the search changes) --------

    def apply(self, goal, updates):
        """Set the per-goal states a proposal asked for, once its trial ran."""
        for state, value in updates.items():
            getattr(self, state)[goal["name"]] = value

    def learn(self, goal, role, trial):
        """What the trial just run tells about the device beyond its loss."""
        ratio = goal["loss_ratio"]
        if role == "upper" and trial["loss_ratio"] <= ratio:
            # The guess was too low: try upper bounds short from now on.
            self.distrust[goal["name"]] = True
        if role == "probe" and self.cliff_rate(ratio) is None and not self.rising(trial):
            self.probes.add(len(self.trials) - 1)
        if role == "cliff" and trial["loss_ratio"] > ratio:
            # Below the capacity the lossy trials agreed on, still lossy:
            # not a cliff (or short trials are optimistic).
            self.not_cliff[goal["name"]] = True
        if self.is_final(trial):
            self.note_optimism(trial)

    def note_optimism(self, final_trial):
        """Mark the goals a final trial missed where a short trial at the same load met them."""
        for goal in self.goals:
            ratio = goal["loss_ratio"]
            if final_trial["loss_ratio"] <= ratio:
                continue
            if any(not self.is_final(trial) and trial["load"] == final_trial["load"] and trial["loss_ratio"] <= ratio
                   for trial in self.trials):
                self.short_optimistic[goal["name"]] = True

    def loop(self):
        """Run the proposed trials until every goal is settled; return the result."""
        while True:
            open_goals = [goal for goal in self.goals if self.status(goal) is None]
            if not open_goals:
                break
            goal, proposal = self.next_trial(open_goals)
            trial = self.run(proposal.load, proposal.duration)
            self.apply(goal, proposal.updates)
            self.learn(goal, proposal.role, trial)
        self.settle()
        return self.result()

    def spec(self, goal):
        """The goal with every RFC 9971 attribute (the search's where it gives none)."""
        return rfc9971.attributes(goal, self.final_duration, self.width, self.initial_duration)

    def rfc_trials(self, spec):
        """The trials RFC 9971's classification of ``spec`` reads: all, or only full-length ones with ``confirm_upper``."""
        if not self.confirm_upper:
            return self.trials
        return [trial for trial in self.trials if trial["duration"] >= spec["final_duration"]]

    def settle(self):
        """Goals with RFC 9971 attributes: trials until each result is regular or cannot be (rfc9971.next_trial).

        The loads the search found as a goal's bounds are classified first
        while undecided between its relevant bounds: the edge is there.
        """
        specs = [(self.spec(goal), self.found(goal)) for goal in self.goals if is_rfc_goal(goal)]
        while True:
            wanted = [trial for trial in (rfc9971.next_trial(self.rfc_trials(spec), spec, self.min_load, self.max_load, found)
                                          for spec, found in specs) if trial]
            if not wanted:
                return
            self.run(*wanted[0])

    def found(self, goal):
        """The loads of the bounds the search found for ``goal``."""
        entry = self.status(goal)
        return () if entry is None else (entry["lower_bound"], entry["upper_bound"])

    def rfc_entry(self, spec, rfc):
        """A goal with RFC 9971 attributes: its bounds are the relevant bounds."""
        lower = rfc["relevant_lower_bound"]
        upper = rfc["relevant_upper_bound"]
        at_lower = [index for index, trial in enumerate(self.trials)
                    if lower is not None and trial["load"] == lower and trial["duration"] >= spec["final_duration"]
                    and trial["loss_ratio"] <= spec["loss_ratio"]]
        return {"lower_bound": 0.0 if lower is None else lower, "upper_bound": self.max_load if upper is None else upper,
                "lower_bound_trial": at_lower[-1] if at_lower else None,
                "exceed_ratio": spec["exceed_ratio"], "final_duration": spec["final_duration"], "duration_sum": spec["duration_sum"]}

    def legacy_entry(self, goal, spec, rfc):
        """A goal without RFC 9971 attributes: today's bounds, regular only when they are the RFC's relevant bounds."""
        entry = self.status(goal)
        lower, upper = float(entry["lower_bound"]), float(entry["upper_bound"])
        same = (rfc["relevant_lower_bound"], rfc["relevant_upper_bound"]) == (lower, upper)
        if rfc["regular"] and not same:
            rfc = dict(rfc, regular=False, irregular="not the relevant bounds of RFC 9971")
        throughput = None
        if entry["lower_bound_trial"] is not None:
            throughput = rfc9971.conditional_throughput(lower, rfc9971.by_load(self.trials)[lower], spec)
        return {"lower_bound": lower, "upper_bound": upper, "lower_bound_trial": entry["lower_bound_trial"],
                "conditional_throughput": throughput, "regular": rfc["regular"], "irregular": rfc["irregular"]}

    def result(self):
        result = {}
        for goal in self.goals:
            spec = self.spec(goal)
            rfc = rfc9971.goal_result(self.rfc_trials(spec), spec)
            entry = dict(self.rfc_entry(spec, rfc), conditional_throughput=rfc["conditional_throughput"], regular=rfc["regular"],
                         irregular=rfc["irregular"]) if is_rfc_goal(goal) else self.legacy_entry(goal, spec, rfc)
            result[goal["name"]] = dict(entry, loss_ratio=goal["loss_ratio"])
        return {
            "goals": result,
            "trials": self.trials,
            "trial_seconds": float(sum(trial["duration"] for trial in self.trials)),
        }


def _check_settings(measure, max_load, min_load, final_duration, width, initial_duration, on_trial, max_trials):
    """The search's settings checked: (max_load, min_load, final_duration, width, initial_duration) as floats."""
    if not callable(measure):
        raise ValueError("measure must be callable as measure(load_pps, duration_s)")
    max_load = _check_positive("max_load", max_load)
    min_load = _check_positive("min_load", max_load / 1000.0 if min_load is None else min_load)
    if min_load > max_load:
        raise ValueError("min_load (%r) must not be above max_load (%r)" % (min_load, max_load))
    final_duration = _check_positive("final_duration", final_duration)
    width = _check_number("width", width)
    if not 0.0 < width < 0.5:
        raise ValueError("width must be in (0, 0.5), got %r" % width)
    initial_duration = min(_check_positive("initial_duration", initial_duration), final_duration)
    if on_trial is not None and not callable(on_trial):
        raise ValueError("on_trial must be callable or None")
    if isinstance(max_trials, bool) or not isinstance(max_trials, int) or max_trials < 1:
        raise ValueError("max_trials must be a positive integer, got %r" % (max_trials,))
    return max_load, min_load, final_duration, width, initial_duration


def _goal_finals(goals, final_duration, initial_duration):
    """(final, initial duration) of the search: the shortest of the goals' final trials when every goal gives one."""
    finals = [goal["final_duration"] for goal in goals if "final_duration" in goal]
    if finals and len(finals) == len(goals):
        final_duration = min(finals)
    return final_duration, min(initial_duration, final_duration)


def _upper_bound_duration(value, initial_duration, final_duration, goals, confirm_upper):
    """``upper_bound_duration`` checked; with RFC 9971 goals and none given, the initial duration (the RFC counts short trials)
    unless ``confirm_upper``."""
    if value is None and not confirm_upper and any(is_rfc_goal(goal) for goal in goals):
        return initial_duration
    if value is not None:
        value = _check_number("upper_bound_duration", value)
        if not initial_duration <= value <= final_duration:
            raise ValueError("upper_bound_duration must be between initial_duration (%r) and final_duration (%r), got %r"
                             % (initial_duration, final_duration, value))
    return value


def search(measure, max_load, goals=None, min_load=None, final_duration=10.0, width=0.005,
           initial_duration=1.0, on_trial=None, max_trials=200, upper_bound_duration=None, confirm_upper=False):
    """Find, for every goal, the highest load that meets its loss ratio.

    :param measure: ``measure(load_pps, duration_s)`` returning a mapping
        with ``offered`` and ``received`` packet counts; its other keys are
        kept in the trial record (``achieved_load`` as a float, left out when
        None).
    :param max_load: highest load to try, packets/s.
    :param goals: list of ``{"name": str, "loss_ratio": float}``; default NDR
        (0), ``ndr_1e-5`` (0.00001) and PDR (0.005). A goal may add RFC 9971's
        ``exceed_ratio``, ``final_duration``, ``duration_sum``,
        ``initial_duration`` and ``width``, or be a preset (``"rfc2544"``,
        ``{"preset": "tst009", ...}``). A goal that gives ``exceed_ratio``,
        ``duration_sum`` or ``final_duration`` is settled by the RFC's load
        classification (rfc9971.next_trial) and its bounds are the RFC's
        relevant bounds; with such goals, a short trial that lost too much
        counts towards an upper bound, as the RFC counts it.
    :param min_load: lowest load to try, packets/s; default ``max_load / 1000``.
    :param final_duration: seconds of the trials that confirm the bounds.
    :param width: relative width goal ``(upper - lower) / upper``.
    :param initial_duration: seconds of the exploratory trials (capped at
        ``final_duration``).
    :param on_trial: optional callable, called with each finished trial (a
        dict, with its ``index``), e.g. to write it to disk as the search goes.
    :param max_trials: safety cap; RuntimeError if reached.
    :param upper_bound_duration: the shortest trial whose loss may make an
        upper bound, in ``[initial_duration, final_duration]``; default
        ``final_duration`` (the contract: every upper bound is confirmed by a
        final trial).  ``initial_duration`` applies MLRsearch's rule, where a
        short trial that lost too much is an upper bound; lower bounds always
        rest on final trials.
    :param confirm_upper: with RFC 9971 goals, only full-length trials
        count (our stricter rule: an upper bound confirmed by a full-length
        trial that lost too much); by default the RFC's classification.
    :returns: ``{"goals": {name: {"loss_ratio", "lower_bound", "upper_bound",
        "lower_bound_trial", "conditional_throughput", "regular", "irregular"}},
        "trials": [...], "trial_seconds": float}``: RFC 9971's conditional
        throughput at the lower bound (None without one) and whether the
        result is regular (else ``irregular`` says why); goals with RFC
        attributes also carry ``exceed_ratio``, ``final_duration`` and
        ``duration_sum``.
        When ``min_load`` already misses a goal its ``lower_bound`` is 0.0,
        its ``upper_bound`` is ``min_load`` and ``lower_bound_trial`` is None.
        A trial record has ``load``, ``duration``, ``offered``, ``received``
        and ``loss_ratio`` (0.0 when more frames came back than were sent,
        1.0 when none were sent), ``excess`` (int, received - offered) only
        when more came back, and every other key of the measure's reply
        (not copied deeply).  ``on_trial`` gets a copy with ``index``.
    """
    max_load, min_load, final_duration, width, initial_duration = _check_settings(
        measure, max_load, min_load, final_duration, width, initial_duration, on_trial, max_trials)
    goals = check_goals(goals)
    final_duration, initial_duration = _goal_finals(goals, final_duration, initial_duration)
    upper_bound_duration = _upper_bound_duration(upper_bound_duration, initial_duration, final_duration, goals, confirm_upper)
    state = _Search(measure, max_load, goals, min_load, final_duration, width, initial_duration, on_trial, max_trials,
                    upper_bound_duration)
    state.confirm_upper = bool(confirm_upper)
    return state.loop()
