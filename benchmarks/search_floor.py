# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fewest trial seconds any search could spend on a device it knew in advance, under RFC 9971's classification.

Used by benchmarks/search_rfc9971.py (column "floor").  An oracle that knows
the device's loss at every load still has to measure: each goal's result is
regular only when a load is classified a lower bound and another, at most a
goal width above it, an upper bound.  Classification costs trial time at the
load: a lower bound needs full-length trials that met the goal for at least
(1 - exceed ratio) x duration sum (one final trial with exceed ratio 0, 11 s
of 1 s trials or two 10 s trials with exceed 0.5 and a 21 s sum); an upper
bound needs more than exceed ratio x duration sum of trials that lost too
much (one initial trial with exceed ratio 0).  One load may serve several
goals: a lower bound of one, an upper bound of another.

The oracle tries every choice of bounds among the loads that matter (each
goal's edge, just below it, and one width either side), builds the fewest
trials that classify them, checks each goal's result with
plugin_utils/bench/rfc9971.py and keeps the cheapest.  It spends nothing on
finding the edge, so no search can spend less; a search that did would show
this oracle wrong (search_rfc9971.py counts such instances).  Only for devices
whose loss depends on the load alone: the noisy and token-bucket models
give None. For the noisy cliffs ``noisy_oracle`` simulates an oracle that
knows the capacity and places the loads at their best: an estimate, printed
with a ``~``.
"""

from __future__ import absolute_import, division, print_function

import itertools
import math
import statistics

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971
from ansible_collections.offload.testbed.tests.support import device_models

# Just below an edge: a load the model still forwards within the goal.
_BELOW = 1.0 - 1e-9


def _deterministic(model):
    return not hasattr(model, "random") and not isinstance(model, device_models.TokenBucket)


def candidates(specs, edges, min_load, max_load):
    """The loads worth measuring: each goal's edge, just below it, and one width beyond either."""
    loads = {min_load, max_load}
    for spec, edge in zip(specs, edges):
        if not min_load < edge < max_load:
            continue
        step = 1.0 - spec["width"] * rfc9971.WIDTH_USE
        loads.update((edge, edge * _BELOW, edge * step, edge * _BELOW / step))
    return sorted(load for load in loads if min_load <= load <= max_load)


def options(model, spec, edge, loads, min_load, max_load):
    """Each (lower, upper) the goal could end with: a clean load and a lossy one within its width around the goal's
    lowest edge (a search that reported a higher edge would be wrong), or a lone bound at an end."""
    ratio = spec["loss_ratio"]
    found = []
    for lower, upper in itertools.product(loads, loads):
        if lower < edge <= upper and model.expected_loss(lower) <= ratio < model.expected_loss(upper) and (upper - lower) / upper <= spec["width"]:
            found.append((lower, upper))
    if model.expected_loss(min_load) > ratio:
        found.append((None, min_load))
    if model.expected_loss(max_load) <= ratio:
        found.append((max_load, None))
    return found


def trials_at(model, load, roles, specs):
    """The fewest trials at ``load`` that classify it as each goal in ``roles`` ({index: lower|upper}) needs."""
    loss = model.expected_loss(load)
    full = 0
    for index, role in roles.items():
        spec = specs[index]
        if role == rfc9971.LOWER:
            full = max(full, int(math.ceil((1.0 - spec["exceed_ratio"]) * spec["duration_sum"] / spec["final_duration"] - 1e-9)))
    durations = [specs[0]["final_duration"]] * full
    for index, role in roles.items():
        spec = specs[index]
        short = min(spec["initial_duration"], spec["final_duration"])
        while role == rfc9971.UPPER and sum(durations) <= spec["exceed_ratio"] * spec["duration_sum"]:
            durations.append(short)
    return [{"load": load, "duration": duration, "loss_ratio": loss} for duration in durations]


def settled(trials, spec, bounds):
    """Whether the trials give the goal the chosen bounds as a result no further trial is needed for."""
    result = rfc9971.goal_result(trials, spec)
    if (result["relevant_lower_bound"], result["relevant_upper_bound"]) != bounds:
        return False
    return result["regular"] or bounds[0] is None or bounds[1] is None


def floor_seconds(model, goals, min_load=device_models.MIN_LOAD, max_load=device_models.MAX_LOAD):
    """The fewest trial seconds that settle every goal on this device, or None for a noisy or duration-dependent one."""
    if not _deterministic(model):
        return None
    specs = [rfc9971.attributes(goal, goal["final_duration"], goal["width"], goal["initial_duration"]) for goal in goals]
    edges = [model.true_value(spec["loss_ratio"], max_load, min_load) for spec in specs]
    loads = candidates(specs, edges, min_load, max_load)
    best = None
    for choice in itertools.product(*(options(model, spec, edge, loads, min_load, max_load) for spec, edge in zip(specs, edges))):
        roles = {}
        for index, bounds in enumerate(choice):
            for load, role in zip(bounds, (rfc9971.LOWER, rfc9971.UPPER)):
                if load is not None:
                    roles.setdefault(load, {})[index] = role
        trials = [trial for load, wanted in roles.items() for trial in trials_at(model, load, wanted, specs)]
        cost = sum(trial["duration"] for trial in trials)
        if (best is None or cost < best) and all(settled(trials, spec, bounds) for spec, bounds in zip(specs, choice)):
            best = cost
    return best


# -- noisy devices: a simulation, not a bound ----------------------------------

def _classified(model, load, specs, wanted, rnd_seed):
    """Trial seconds to classify ``load`` as ``wanted`` for each spec by repeating trials on ``model``: final ones, or,
    where only an upper bound is wanted, final ones while the lost time still missing is a final trial or more and
    initial ones for the rest (lost seconds count alike there)."""
    trials = []
    model.random.seed(rnd_seed)
    spec = specs[0]
    final = spec["final_duration"]
    short = min(final, spec["initial_duration"] or final)
    while True:
        bounds = [rfc9971.classify(trials, each)["bound"] for each in specs]
        if rfc9971.UNDECIDED not in bounds:
            return sum(trial["duration"] for trial in trials), bounds == wanted
        duration = final
        if wanted == [rfc9971.UPPER]:
            missing = spec["exceed_ratio"] * spec["duration_sum"] - rfc9971.classify(trials, spec)["effective_high_loss_sum"]
            duration = final if missing >= final else short
        trials.append({"load": load, "duration": duration, "loss_ratio": model.loss(load, duration)})


def noisy_oracle(make_model, goals, draws=400):
    """(median trial seconds, share of draws classified as planned) of an oracle that knows a noisy cliff's capacity.

    For two goals, NDR (loss 0) and a second one: the oracle puts the load the
    two goals share halfway between their edges (NDR's upper bound and the
    other's lower bound), NDR's lower bound one width below it and the other's
    upper bound one width above, and repeats final trials at each until the RFC
    classifies it. A fixed placement: a search that adapts to the draws could
    do somewhat better, so this estimates the floor of a noisy device, it does
    not bound it.
    """
    specs = [rfc9971.attributes(goal, goal["final_duration"], goal["width"], goal["initial_duration"]) for goal in goals]
    step = 1.0 - specs[0]["width"] * rfc9971.WIDTH_USE
    costs, planned = [], 0
    for draw in range(draws):
        model = make_model()
        shared = model.capacity * (1.0 + (1.0 / (1.0 - specs[1]["loss_ratio"]) - 1.0) / 2.0)
        seconds = 0.0
        good = True
        for load, wanted, index in ((shared * step, [rfc9971.LOWER], [0]), (shared, [rfc9971.UPPER, rfc9971.LOWER], [0, 1]),
                                    (shared / step, [rfc9971.UPPER], [1])):
            cost, ok = _classified(model, load, [specs[at] for at in index], wanted, draw * 3 + index[-1] + len(index))
            seconds += cost
            good = good and ok
        costs.append(seconds)
        planned += good
    return statistics.median(costs), planned / float(draws)
