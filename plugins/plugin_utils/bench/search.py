# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Multi-goal throughput search (NDR, PDR and any other loss-ratio goal).

Plain Python with no TRex, Ansible or network dependency: ``measure`` is any
callable ``measure(load_pps, duration_s) -> {"offered": int, "received": int}``
(the TRex client, the software generator or a model of a device).

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
  less than the trial above it (loss that grows with the load).
* Short trials (``initial_duration``) find each goal's edge: from every trial
  that missed a goal the loss is extrapolated back to the load where the goal
  would just be met (forwarding-rate projection, and the secant through the
  two lowest lossy trials of one duration); a bracket of clean and lossy loads keeps the
  guesses honest and falls back to geometric bisection when they stall.
* When the loss does not shrink with the load (a dip of loss below a clean
  band, or a device that always loses) the search steps down from the
  lowest lossy load by doubling steps (8 %, 16 %, 32 %) before it jumps to
  ``min_load``: the bottom of a dip is found in a few short trials.
* When the forwarding rate falls with the load (a collapse), projections
  underestimate the edge: upper bounds are tried short first, and while those
  tries keep meeting the goal the step up doubles (one width, two, four...),
  as MLRsearch expands its interval.
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

DEFAULT_GOALS = (
    {"name": "ndr", "loss_ratio": 0.0},
    {"name": "ndr_1e-5", "loss_ratio": 0.00001},
    {"name": "pdr", "loss_ratio": 0.005},
)

# Fraction of the width actually used between two bounds: keeps
# (upper - lower) / upper <= width safe from float rounding.
_WIDTH_USE = 0.999

# First relative step down from the lowest lossy load when the loss is flat.
_FLAT_STEP = 0.08


def _check_number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("%s must be a number, got %r" % (name, value))
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("%s must be finite, got %r" % (name, value))
    return value


def _check_goals(goals):
    if goals is None:
        return [dict(goal) for goal in DEFAULT_GOALS]
    if isinstance(goals, (str, bytes)) or not hasattr(goals, "__iter__"):
        raise ValueError("goals must be a list of {'name': str, 'loss_ratio': float}, got %r" % (goals,))
    checked = []
    names = set()
    for goal in goals:
        if not hasattr(goal, "get"):
            raise ValueError("goals: each goal must be a mapping with name and loss_ratio, got %r" % (goal,))
        name = goal.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("goals: each goal needs a non-empty string name, got %r" % (name,))
        if name in names:
            raise ValueError("goals: duplicate goal name %r" % name)
        names.add(name)
        ratio = goal.get("loss_ratio")
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or math.isnan(ratio):
            raise ValueError("goals: loss_ratio of goal %r must be a number, got %r" % (name, ratio))
        if not 0.0 <= ratio < 1.0:
            raise ValueError("goals: loss_ratio of goal %r must be in [0, 1), got %r" % (name, ratio))
        checked.append({"name": name, "loss_ratio": float(ratio)})
    if not checked:
        raise ValueError("goals must not be empty")
    return checked


class _Search:
    """State of one search: the trials so far and the choice of the next one."""

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
        # Per goal name: log-width of the exploration bracket after the last
        # projection step, to notice when projections stall.
        self.stalled = {}
        self.last_step = {}
        self.down_steps = {}
        self.up_steps = {}
        self.distrust = {}
        # Per goal name: a final trial missed the goal at a load where a
        # short trial met it, so short trials are optimistic (buffers, a
        # policer's burst): explore with final trials from then on.
        self.short_optimistic = {}
        self.flat_steps = {}
        # Per goal name: a final trial below the capacity that lossy trials
        # agreed on missed the goal, so the device is no simple cliff.
        self.not_cliff = {}
        # Indexes of the probes (see cliff_rate) that projections leave out:
        # those that neither agreed on a cliff nor forwarded clearly less
        # than the trial above them.
        self.probes = set()
        self.probed = {}

    # -- measuring -------------------------------------------------------

    def run(self, load, duration):
        if len(self.trials) >= self.max_trials:
            raise RuntimeError("search: max_trials (%d) reached before every goal was settled" % self.max_trials)
        load = float(load)
        duration = float(duration)
        reply = self.measure(load, duration)
        try:
            offered = int(reply["offered"])
            received = int(reply["received"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("measure must return a mapping with integer 'offered' and 'received', got %r" % (reply,))
        if offered > 0:
            loss_ratio = min(1.0, max(0.0, (offered - received) / offered))
        else:
            # Nothing sent: nothing shows the device met any goal.
            loss_ratio = 1.0
        trial = {
            "load": load,
            "duration": duration,
            "offered": offered,
            "received": received,
            "loss_ratio": loss_ratio,
        }
        achieved = reply.get("achieved_load") if hasattr(reply, "get") else None
        if achieved is not None:
            trial["achieved_load"] = float(achieved)
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
        for trial in self.trials:
            if self.is_final(trial) and trial["load"] == load:
                return True
        return False

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

    def estimate(self, ratio, low):
        """Guesses of the load where the goal stops being met, from the trials that missed it above ``low``.

        Returns ``(guess, secant)``.  ``guess`` is the lowest positive of: the
        forwarding-rate projection of the lowest such trial,
        ``forwarding / (1 - ratio)`` (exact for a cliff, and an overestimate
        while the forwarding rate grows with the load), and the root of the
        secant of excess loss ``load * (loss - ratio)`` through the two lowest
        such trials (exact for a linear rise of lost packets).  ``secant`` is
        that root even when negative: at or below ``min_load`` it means the
        loss does not shrink with the load.
        """
        lossy = {}
        for index, trial in enumerate(self.trials):
            if trial["loss_ratio"] <= ratio or index in self.probes:
                continue
            if low is not None and trial["load"] <= low:
                continue
            load = trial["load"]
            # Prefer the longest trial at a load.
            if load not in lossy or trial["duration"] > lossy[load]["duration"]:
                lossy[load] = trial
        if not lossy:
            return None, None
        loads = sorted(lossy)
        first = lossy[loads[0]]
        guesses = [first["load"] * (1.0 - first["loss_ratio"]) / (1.0 - ratio)]
        secant = None
        for other in loads[1:]:
            second = lossy[other]
            if other < loads[0] * (1.0 + 2.0 * self.width) or second["duration"] != first["duration"]:
                # Too close, or of another duration (short trials may be optimistic).
                continue
            excess1 = first["load"] * (first["loss_ratio"] - ratio)
            excess2 = second["load"] * (second["loss_ratio"] - ratio)
            slope = (excess2 - excess1) / (second["load"] - first["load"])
            if slope > 0.0:
                secant = first["load"] - excess1 / slope
                guesses.append(secant)
            break
        valid = [guess for guess in guesses if guess > 0.0]
        return (min(valid) if valid else None), secant

    def collapse(self):
        """Whether some trial forwarded clearly less than a lossy trial at a lower load.

        Then the forwarding rate falls with the load, projections underestimate
        the edge, and an upper bound is tried short before it is confirmed.
        """
        lossy = sorted((trial["load"], trial["received"] / trial["duration"]) for trial in self.trials if trial["loss_ratio"] > 0.0)
        best = 0.0
        for _load, forwarded in lossy:
            if forwarded < best * (1.0 - self.width):
                return True
            best = max(best, forwarded)
        return False

    def cliff_rate(self, ratio):
        """The forwarding rate of a cliff, or None.

        When trials at two or more loads missed the goal and all forwarded the
        same rate (within one width), the device forwards its capacity and
        drops the rest: each of those trials is an independent measurement of
        that capacity, and their duration-weighted mean is a better one than
        any single short trial.  Loss that grows with the load (forwarding
        that grows too) gives rates that differ, and None.
        """
        lossy = [trial for trial in self.trials if trial["loss_ratio"] > ratio and trial["received"] > 0]
        if len(set(trial["load"] for trial in lossy)) < 2:
            return None
        rates = [trial["received"] / trial["duration"] for trial in lossy]
        if max(rates) > min(rates) * (1.0 + self.width):
            return None
        return sum(trial["received"] for trial in lossy) / sum(trial["duration"] for trial in lossy)

    def rising(self, trial):
        """Whether ``trial`` forwarded clearly less than every lossy trial at a higher load."""
        rate = trial["received"] / trial["duration"]
        higher = [other["received"] / other["duration"] for other in self.trials
                  if other["load"] > trial["load"] and other["loss_ratio"] > 0.0]
        return bool(higher) and rate < min(higher) * (1.0 - self.width)

    def note_optimism(self, final_trial):
        """Mark the goals a final trial missed where a short trial at the same load met them."""
        for goal in self.goals:
            ratio = goal["loss_ratio"]
            if final_trial["loss_ratio"] <= ratio:
                continue
            if any(not self.is_final(trial) and trial["load"] == final_trial["load"] and trial["loss_ratio"] <= ratio
                   for trial in self.trials):
                self.short_optimistic[goal["name"]] = True

    def tried_short(self, load):
        return any(trial["load"] == load and not self.is_final(trial) for trial in self.trials)

    # -- choosing the next trial --------------------------------------------

    def propose(self, goal):
        """(load, duration, role) of the trial this goal wants next."""
        name = goal["name"]
        ratio = goal["loss_ratio"]
        optimistic = self.short_optimistic.get(name, False)
        short = self.final_duration if optimistic else self.initial_duration
        final = self.final_duration
        upper_duration = max(self.upper_bound_duration, short)
        width = self.width * _WIDTH_USE
        lower_index, final_upper = self.final_bounds(ratio)
        final_lower = self.trials[lower_index]["load"] if lower_index is not None else None
        if final_lower is not None:
            suspect = self.suspect(ratio, final_lower)
            if suspect is not None:
                return suspect, final, "check"
        low, high = self.bracket(ratio, final_lower, final_upper, finals_only_low=optimistic)
        if high is None:
            # Nothing missed the goal above the lower bound: try max_load.
            if any(trial["load"] >= self.max_load for trial in self.trials):
                return self.max_load, final, "lower"
            return self.max_load, short, "explore"
        guess, secant = self.estimate(ratio, low)
        if low is None:
            # Everything so far missed the goal: go down to the guess, and
            # by a step that doubles while the guesses keep missing.
            steps = self.down_steps.get(name, 0)
            if guess is None:
                # No forwarding at all.
                load = high / 2.0
            elif secant is not None and secant <= self.min_load:
                # A loss that does not shrink with the load: step down by
                # doubling steps (a dip of loss ends a few steps below), then
                # straight to min_load once a step would be half the load.
                flat = self.flat_steps.get(name, 0)
                self.flat_steps[name] = flat + 1
                step = _FLAT_STEP * 2 ** flat
                load = high * (1.0 - step) if step < 0.5 else self.min_load
            else:
                rate = self.cliff_rate(ratio)
                lossy_loads = set(trial["load"] for trial in self.trials if trial["loss_ratio"] > ratio)
                if rate is not None and self.probed.get(name) and not self.not_cliff.get(name):
                    # The probe and the trials before it agree on a cliff:
                    # confirm half a width below it.
                    load = rate / (1.0 - ratio) * (1.0 - width / 2.0)
                    if load < high and not self.has_final_at(load):
                        return load, final, "cliff"
                elif len(lossy_loads) == 1 and guess * (1.0 + 2.0 * width) < high and not self.probed.get(name):
                    # One lossy trial so far: probe two widths above its
                    # projection for a second measurement of a cliff.
                    self.probed[name] = True
                    return guess * (1.0 + 2.0 * width), short, "probe"
                load = guess * (1.0 - width / 2.0)
                load = min(load, high * (1.0 - min(0.5, width * 2 ** steps)))
            if load <= self.min_load:
                if self.tried_short(self.min_load):
                    return self.min_load, final, "lower"
                load = self.min_load
            self.down_steps[name] = steps + 1
            return load, short, "explore"
        reach = low / (1.0 - width)
        trusted = not self.distrust.get(name) and not self.collapse()
        if high <= reach or (trusted and guess is not None and low * (1.0 - self.width) <= guess <= reach):
            # The edge is within a width above ``low``: confirm.
            if final_lower is None or final_lower < low:
                return low, final, "lower"
            if self.fits(low, high):
                return high, upper_duration, "upper"
            # Prefer a load already tried (it may serve another goal too).
            shared = [trial["load"] for trial in self.trials
                      if low < trial["load"] < high and self.fits(low, trial["load"])
                      and (guess is None or trial["load"] >= guess)]
            if shared:
                return max(shared), upper_duration, "upper"
            return min(reach, self.max_load), upper_duration, "upper"
        if not trusted and guess is not None and low * (1.0 - self.width) <= guess <= reach:
            # Try the upper bound short first. While such tries keep meeting the
            # goal the guess is stale: the step up doubles (1, 2, 4... widths), as
            # MLRsearch expands its interval.
            previous_low, count = self.up_steps.get(name, (None, 0))
            count = count + 1 if previous_low is not None and previous_low < low else 0
            self.up_steps[name] = (low, count)
            load = low * (1.0 + width * 2 ** count) if count else reach
            return min(load if load < high else reach, self.max_load), short, "explore"
        # Explore with a short trial between low and high.
        log_width = math.log(high / low)
        load = None
        if guess is not None and not self.stalled.get(name):
            load = guess * (1.0 - width / 2.0)
            if not low < load < high:
                load = None
        if load is None:
            load = math.sqrt(low * high)
            self.stalled[name] = False
        else:
            previous = self.last_step.get(name)
            # Two projections in a row that did not halve the bracket: bisect next.
            self.stalled[name] = previous is not None and log_width > previous / 2.0
            self.last_step[name] = log_width
        return load, short, "explore"

    def next_trial(self, open_goals):
        """The trial wanted by the open goal of lowest loss ratio: its trials inform the others on the way."""
        best = None
        for order, goal in enumerate(sorted(open_goals, key=lambda item: item["loss_ratio"])):
            load, duration, role = self.propose(goal)
            load = min(max(load, self.min_load), self.max_load)
            key = (order, duration, load)
            if best is None or key < best[0]:
                best = (key, load, duration, role, goal)
        return best[1:]

    def loop(self):
        while True:
            open_goals = [goal for goal in self.goals if self.status(goal) is None]
            if not open_goals:
                break
            load, duration, role, goal = self.next_trial(open_goals)
            trial = self.run(load, duration)
            if role == "upper" and trial["loss_ratio"] <= goal["loss_ratio"]:
                # The guess was too low: try upper bounds short from now on.
                self.distrust[goal["name"]] = True
            if role == "probe" and self.cliff_rate(goal["loss_ratio"]) is None and not self.rising(trial):
                self.probes.add(len(self.trials) - 1)
            if role == "cliff" and trial["loss_ratio"] > goal["loss_ratio"]:
                # Below the capacity the lossy trials agreed on, still lossy:
                # not a cliff (or short trials are optimistic).
                self.not_cliff[goal["name"]] = True
            if self.is_final(trial):
                self.note_optimism(trial)
        result = {}
        for goal in self.goals:
            entry = self.status(goal)
            result[goal["name"]] = {
                "loss_ratio": goal["loss_ratio"],
                "lower_bound": float(entry["lower_bound"]),
                "upper_bound": float(entry["upper_bound"]),
                "lower_bound_trial": entry["lower_bound_trial"],
            }
        return {
            "goals": result,
            "trials": self.trials,
            "trial_seconds": float(sum(trial["duration"] for trial in self.trials)),
        }


def search(measure, max_load, goals=None, min_load=None, final_duration=10.0, width=0.005,
           initial_duration=1.0, on_trial=None, max_trials=200, upper_bound_duration=None):
    """Find, for every goal, the highest load that meets its loss ratio.

    :param measure: ``measure(load_pps, duration_s)`` returning a mapping
        with ``offered`` and ``received`` packet counts.
    :param max_load: highest load to try, packets/s.
    :param goals: list of ``{"name": str, "loss_ratio": float}``; default NDR
        (0), ``ndr_1e-5`` (0.00001) and PDR (0.005).
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
    :returns: ``{"goals": {name: {"loss_ratio", "lower_bound", "upper_bound",
        "lower_bound_trial"}}, "trials": [...], "trial_seconds": float}``.
        When ``min_load`` already misses a goal its ``lower_bound`` is 0.0,
        its ``upper_bound`` is ``min_load`` and ``lower_bound_trial`` is None.
    """
    if not callable(measure):
        raise ValueError("measure must be callable as measure(load_pps, duration_s)")
    max_load = _check_number("max_load", max_load)
    if max_load <= 0.0:
        raise ValueError("max_load must be > 0, got %r" % max_load)
    if min_load is None:
        min_load = max_load / 1000.0
    min_load = _check_number("min_load", min_load)
    if min_load <= 0.0:
        raise ValueError("min_load must be > 0, got %r" % min_load)
    if min_load > max_load:
        raise ValueError("min_load (%r) must not be above max_load (%r)" % (min_load, max_load))
    final_duration = _check_number("final_duration", final_duration)
    if final_duration <= 0.0:
        raise ValueError("final_duration must be > 0, got %r" % final_duration)
    width = _check_number("width", width)
    if not 0.0 < width < 0.5:
        raise ValueError("width must be in (0, 0.5), got %r" % width)
    initial_duration = _check_number("initial_duration", initial_duration)
    if initial_duration <= 0.0:
        raise ValueError("initial_duration must be > 0, got %r" % initial_duration)
    initial_duration = min(initial_duration, final_duration)
    if on_trial is not None and not callable(on_trial):
        raise ValueError("on_trial must be callable or None")
    if isinstance(max_trials, bool) or not isinstance(max_trials, int) or max_trials < 1:
        raise ValueError("max_trials must be a positive integer, got %r" % (max_trials,))
    goals = _check_goals(goals)
    if upper_bound_duration is not None:
        upper_bound_duration = _check_number("upper_bound_duration", upper_bound_duration)
        if not initial_duration <= upper_bound_duration <= final_duration:
            raise ValueError("upper_bound_duration must be between initial_duration (%r) and final_duration (%r), got %r"
                             % (initial_duration, final_duration, upper_bound_duration))
    state = _Search(measure, max_load, goals, min_load, final_duration, width, initial_duration, on_trial, max_trials,
                    upper_bound_duration)
    return state.loop()
