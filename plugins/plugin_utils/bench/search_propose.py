# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the throughput search chooses its next trial: reading the trials for the
guesses of a goal's edge, and the trial each goal proposes.

``ProposeMixin`` is a part of ``search._Search``: its methods read the trials
and the per-goal state of the search and change nothing; the strategy they
follow is told in the docstring of ``search.py``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import math

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971

# First relative step down from the lowest lossy load when the loss is flat.
_FLAT_STEP = 0.08

# A secant root further below the lower of its two trials than this many
# times their distance: an ill-conditioned extrapolation (loss ratios that
# barely differ, as in a band of constant loss), taken as loss that does not
# shrink with the load.
_FLAT_REACH = 10.0

# The first step up is 2 ** this many widths when projections proved stale on
# a device whose forwarding rate falls with the load and every trial is a
# final one (otherwise one width).
_COLLAPSE_DOUBLINGS = 2

# The trial a goal wants next: ``updates`` maps a per-goal state of the search
# (flat_steps, down_steps, up_steps, probed, stalled, last_step) to the value
# it takes for that goal if, and only if, this trial runs.
_Proposal = collections.namedtuple("_Proposal", "load duration role updates")

# What one goal sees of the trials when it proposes (see ProposeMixin.view).
_View = collections.namedtuple("_View", "name ratio short final upper_duration width final_lower final_upper low high guess secant")


def _proposal(load, duration, role, **updates):
    return _Proposal(load, duration, role, updates)


def _rate(trial):
    """Forwarding rate of a trial, packets/s: frames received of those offered, per second."""
    return min(trial["received"], trial["offered"]) / trial["duration"]


class ProposeMixin:
    """The choice of the next trial of ``search._Search``: the guesses of each goal's edge, and its proposal."""

    # -- guessing the edge from the trials -----------------------------------

    def estimate(self, ratio, low):
        """Guesses of the load where the goal stops being met, from the trials that missed it above ``low``.

        Returns ``(guess, secant)``.  ``guess`` is the lowest positive of: the
        forwarding-rate projection of the lowest such trial,
        ``forwarding / (1 - ratio)`` (exact for a cliff, and an overestimate
        while the forwarding rate grows with the load), and the root of the
        secant of excess loss ``load * (loss - ratio)`` through the two lowest
        such trials (exact for a linear rise of lost packets).  ``secant`` is
        that root even when negative: at or below ``min_load`` it means the
        loss does not shrink with the load, and so does 0.0, given for a root
        more than ``_FLAT_REACH`` times the two trials' distance below them.
        When the forwarding rate falls with the load (``collapse``) the
        secant's root is the guess: the projection underestimates the edge.
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
                if first["load"] - secant > _FLAT_REACH * (second["load"] - first["load"]):
                    secant = 0.0
                else:
                    guesses.append(secant)
            break
        valid = [guess for guess in guesses if guess > 0.0]
        if secant in valid and self.collapse():
            # The forwarding rate falls with the load: its projection underestimates the edge, the secant does not.
            return secant, secant
        return (min(valid) if valid else None), secant

    def collapse(self):
        """Whether some trial forwarded clearly less than a lossy trial at a lower load.

        Then the forwarding rate falls with the load, projections underestimate
        the edge, and an upper bound is tried short before it is confirmed.
        """
        lossy = sorted((trial["load"], _rate(trial)) for trial in self.trials if trial["loss_ratio"] > 0.0)
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
        rates = [_rate(trial) for trial in lossy]
        if max(rates) > min(rates) * (1.0 + self.width):
            return None
        return sum(trial["received"] for trial in lossy) / sum(trial["duration"] for trial in lossy)

    def rising(self, trial):
        """Whether ``trial`` forwarded clearly less than every lossy trial at a higher load."""
        higher = [_rate(other) for other in self.trials if other["load"] > trial["load"] and other["loss_ratio"] > 0.0]
        return bool(higher) and _rate(trial) < min(higher) * (1.0 - self.width)

    # -- choosing the next trial (reads the search, changes nothing) ---------

    def view(self, goal):
        """What ``goal`` sees of the trials: its final bounds, its bracket and the guesses of its edge."""
        name = goal["name"]
        ratio = goal["loss_ratio"]
        optimistic = self.short_optimistic.get(name, False)
        short = self.final_duration if optimistic else self.initial_duration
        lower_index, final_upper = self.final_bounds(ratio)
        final_lower = self.trials[lower_index]["load"] if lower_index is not None else None
        low, high = self.bracket(ratio, final_lower, final_upper, finals_only_low=optimistic)
        guess, secant = self.estimate(ratio, low) if high is not None else (None, None)
        return _View(name, ratio, short, self.final_duration, max(self.upper_bound_duration, short), self.width * rfc9971.WIDTH_USE,
                     final_lower, final_upper, low, high, guess, secant)

    def propose(self, goal):
        """The ``_Proposal`` of the trial this goal wants next.

        In order: re-measure a short trial that missed the goal below the
        final lower bound; try ``max_load`` while nothing missed the goal;
        go down while everything missed it; else work between the highest
        load that met the goal and the lowest that missed it.
        """
        view = self.view(goal)
        if view.final_lower is not None:
            suspect = self.suspect(view.ratio, view.final_lower)
            if suspect is not None:
                return _proposal(suspect, view.final, "check")
        if view.high is None:
            # Nothing missed the goal above the lower bound: try max_load.
            if any(trial["load"] >= self.max_load for trial in self.trials):
                return _proposal(self.max_load, view.final, "lower")
            return _proposal(self.max_load, view.short, "explore")
        if view.low is None:
            return self.propose_down(view)
        return self.propose_between(view)

    def propose_down(self, view):
        """Everything so far missed the goal: go down to the guess, by a step that doubles while the guesses keep missing."""
        steps = self.down_steps.get(view.name, 0)
        updates = {}
        if view.guess is None:
            # No forwarding at all.
            load = view.high / 2.0
        elif view.secant is not None and view.secant <= self.min_load:
            # A loss that does not shrink with the load: step down by
            # doubling steps (a dip of loss ends a few steps below), then
            # straight to min_load once a step would be half the load.
            flat = self.flat_steps.get(view.name, 0)
            updates["flat_steps"] = flat + 1
            step = _FLAT_STEP * 2 ** flat
            load = view.high * (1.0 - step) if step < 0.5 else self.min_load
        else:
            cliff = self.propose_cliff(view)
            if cliff is not None:
                return cliff
            load = min(view.guess * (1.0 - view.width / 2.0), view.high * (1.0 - min(0.5, view.width * 2 ** steps)))
        if load <= self.min_load:
            if self.tried_short(self.min_load):
                return _Proposal(self.min_load, view.final, "lower", updates)
            load = self.min_load
        updates["down_steps"] = steps + 1
        return _Proposal(load, view.short, "explore", updates)

    def propose_cliff(self, view):
        """The probe of a cliff, or the final trial that confirms one, or None.

        With one lossy trial so far, probe two widths above its projection for
        a second measurement of a cliff.  When the probe and the trials before
        it forwarded the same rate (``cliff_rate``), confirm half a width below
        the capacity it shows, with a final trial at once.
        """
        rate = self.cliff_rate(view.ratio)
        if rate is not None and self.probed.get(view.name) and not self.not_cliff.get(view.name):
            load = rate / (1.0 - view.ratio) * (1.0 - view.width / 2.0)
            if load < view.high and not self.has_final_at(load):
                return _proposal(load, view.final, "cliff")
            return None
        lossy_loads = set(trial["load"] for trial in self.trials if trial["loss_ratio"] > view.ratio)
        probe = view.guess * (1.0 + 2.0 * view.width)
        if len(lossy_loads) == 1 and probe < view.high and not self.probed.get(view.name):
            return _proposal(probe, view.short, "probe", probed=True)
        return None

    def propose_between(self, view):
        """Some load met the goal and a higher one missed it: confirm, step up or explore in between."""
        reach = view.low / (1.0 - view.width)
        near = view.guess is not None and view.low * (1.0 - self.width) <= view.guess <= reach
        trusted = not self.distrust.get(view.name) and not self.collapse()
        if view.high <= reach or (trusted and near):
            return self.propose_confirm(view, reach)
        if near:
            return self.propose_step_up(view, reach)
        return self.propose_inside(view)

    def propose_confirm(self, view, reach):
        """The edge is within a width above ``low``: a final trial at the lower bound, then one at the upper."""
        low, high = view.low, view.high
        if view.final_lower is None or view.final_lower < low:
            return _proposal(low, view.final, "lower")
        if self.fits(low, high):
            return _proposal(high, view.upper_duration, "upper")
        # Prefer a load already tried (it may serve another goal too).
        shared = [trial["load"] for trial in self.trials
                  if low < trial["load"] < high and self.fits(low, trial["load"]) and (view.guess is None or trial["load"] >= view.guess)]
        if shared:
            return _proposal(max(shared), view.upper_duration, "upper")
        return _proposal(min(reach, self.max_load), view.upper_duration, "upper")

    def propose_step_up(self, view, reach):
        """Projections are not trusted: try the upper bound short first.

        While such tries keep meeting the goal the guess is stale: the step up
        doubles (1, 2, 4... widths), as MLRsearch expands its interval.  When
        the forwarding rate falls with the load and every trial is a final one
        (a step costs what a confirmation costs) the first step is
        four widths (``_COLLAPSE_DOUBLINGS``): the projections of a collapse fall short
        by more than a width or two.
        """
        previous_low, count = self.up_steps.get(view.name, (None, 0))
        count = count + 1 if previous_low is not None and previous_low < view.low else 0
        if count == 0 and view.short >= view.final and self.collapse():
            count = _COLLAPSE_DOUBLINGS
        load = view.low * (1.0 + view.width * 2 ** count) if count else reach
        return _proposal(min(load if load < view.high else reach, self.max_load), view.short, "explore", up_steps=(view.low, count))

    def propose_inside(self, view):
        """A short trial between ``low`` and ``high``: at the guess, or the geometric middle once guesses stall.

        Two projections in a row that did not halve the bracket: bisect next.
        """
        log_width = math.log(view.high / view.low)
        load = None
        if view.guess is not None and not self.stalled.get(view.name):
            load = view.guess * (1.0 - view.width / 2.0)
            if not view.low < load < view.high:
                load = None
        if load is None:
            return _proposal(math.sqrt(view.low * view.high), view.short, "explore", stalled=False)
        previous = self.last_step.get(view.name)
        return _proposal(load, view.short, "explore", stalled=previous is not None and log_width > previous / 2.0, last_step=log_width)

    def next_trial(self, open_goals):
        """``(goal, proposal)``: the trial wanted by the open goal of lowest loss ratio.

        Only that goal proposes: its trials inform the others on the way.
        """
        goal = min(open_goals, key=lambda item: item["loss_ratio"])
        proposal = self.propose(goal)
        return goal, proposal._replace(load=min(max(proposal.load, self.min_load), self.max_load))
