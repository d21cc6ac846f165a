# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""RFC 9971, Multiple Loss Ratio Search: its goals, load classification,
relevant bounds, conditional throughput and regular goal results.

Pure functions over trial records: mappings with ``load`` (packets/s),
``duration`` (s, the Trial Duration) and ``loss_ratio``, and
``effective_duration`` when the measurer reports one (the RFC's Trial
Effective Duration; the Trial Duration otherwise). Names follow the RFC's
sections "Load Classification Logic" and "Conditional Throughput Logic":
the load classification code, the conditional throughput code and the
definitions of the relevant bounds and of a regular goal result.

A goal here is a mapping with the RFC's attributes: ``loss_ratio`` (Goal Loss
Ratio), ``exceed_ratio`` (Goal Exceed Ratio), ``final_duration`` (Goal Final
Trial Duration), ``duration_sum`` (Goal Duration Sum), ``initial_duration``
(Goal Initial Trial Duration, a hint to the search) and ``width`` (Goal Width,
a relative difference: (upper - lower) / upper).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The RFC's presets (sections "MLRsearch Compliant with RFC 2544" and
# "MLRsearch Compliant with TST009", the latter binary search with loss
# verification, max(r) = 2).
PRESETS = {
    "rfc2544": {"loss_ratio": 0.0, "exceed_ratio": 0.0, "final_duration": 60.0, "duration_sum": 60.0},
    "tst009": {"loss_ratio": 0.0, "exceed_ratio": 0.5, "final_duration": 60.0, "duration_sum": 120.0},
}

# The share of a goal's width used between two bounds a search places (here,
# in search.py and in the benchmarks' floor): keeps (upper - lower) / upper
# within the width despite float rounding.
WIDTH_USE = 0.999

# Bounds at most this many widths apart: the next load is one width above the
# lower bound (the edge is near it); further apart, halfway between them.
_WALK = 4.0

LOWER = "lower"
UPPER = "upper"
UNDECIDED = "undecided"


def attributes(goal, final_duration, width, initial_duration=None):
    """``goal`` with every attribute set: the search's own where the goal gives none.

    A goal's Final Trial Duration defaults to the search's, its Duration Sum
    to its Final Trial Duration (one full-length trial decides, as before
    the RFC's attributes) and its Exceed Ratio to 0.
    """
    final = float(goal.get("final_duration", final_duration))
    return {
        "name": goal.get("name"),
        "loss_ratio": float(goal["loss_ratio"]),
        "exceed_ratio": float(goal.get("exceed_ratio", 0.0)),
        "final_duration": final,
        "duration_sum": float(goal.get("duration_sum", final)),
        "initial_duration": goal.get("initial_duration", initial_duration),
        "width": float(goal.get("width", width)),
    }


def _effective(trial):
    value = trial.get("effective_duration")
    return float(trial["duration"] if value is None else value)


def duration_sums(trials, goal):
    """The four sums of Trial Effective Durations the classification starts from."""
    sums = {"full_high": 0.0, "full_low": 0.0, "short_high": 0.0, "short_low": 0.0}
    for trial in trials:
        length = "short" if float(trial["duration"]) < goal["final_duration"] else "full"
        loss = "high" if float(trial["loss_ratio"]) > goal["loss_ratio"] else "low"
        sums["%s_%s" % (length, loss)] += _effective(trial)
    return sums


def classify(trials, goal):
    """RFC 9971's load classification of the trials at one load, with its temporary values.

    Returns the sums and ratios the RFC names, and ``bound``: ``lower``,
    ``upper`` or ``undecided``.
    """
    sums = duration_sums(trials, goal)
    exceed = goal["exceed_ratio"]
    balancing = sums["short_low"] * exceed / (1.0 - exceed)
    high = sums["full_high"] + max(0.0, sums["short_high"] - balancing)
    full = high + sums["full_low"]
    whole = max(full, goal["duration_sum"])
    optimistic = high / whole
    pessimistic = (high + whole - full) / whole
    if optimistic > exceed:
        bound = UPPER
    elif pessimistic <= exceed:
        bound = LOWER
    else:
        bound = UNDECIDED
    return dict(sums, balancing_sum=balancing, effective_high_loss_sum=high, effective_full_sum=full,
                effective_whole_sum=whole, missing_sum=whole - full, optimistic_exceed_ratio=optimistic,
                pessimistic_exceed_ratio=pessimistic, bound=bound)


def conditional_throughput(load, trials, goal):
    """RFC 9971's conditional throughput at ``load`` from its full-length trials (packets/s)."""
    full = sorted((trial for trial in trials if float(trial["duration"]) >= goal["final_duration"]),
                  key=lambda trial: float(trial["loss_ratio"]))
    remaining = sum(_effective(trial) for trial in full) * (1.0 - goal["exceed_ratio"])
    loss = 1.0
    for trial in full:
        if remaining <= 0.0:
            break
        loss = float(trial["loss_ratio"])
        remaining -= _effective(trial)
    return float(load) * (1.0 - loss)


def by_load(trials):
    """``{load: [trials]}`` in increasing load."""
    grouped = {}
    for trial in trials:
        grouped.setdefault(float(trial["load"]), []).append(trial)
    return dict(sorted(grouped.items()))


def classifications(trials, goal):
    """``{load: lower|upper|undecided}`` of every load measured, in increasing load."""
    return dict((load, classify(group, goal)["bound"]) for load, group in by_load(trials).items())


def relevant_bounds(trials, goal):
    """(relevant lower bound, relevant upper bound), each a load or None.

    The relevant upper bound is the smallest load classified as an upper
    bound; the relevant lower bound the largest load classified as a lower
    bound among those smaller than it. Without an upper bound (max load is a
    lower bound) the largest lower bound is returned as the RFC's "effective"
    relevant lower bound of an irregular result.
    """
    return _relevant(classifications(trials, goal))


def _relevant(bounds):
    """(relevant lower bound, relevant upper bound) of ``{load: classification}`` in increasing load."""
    lower = upper = None
    for load, bound in bounds.items():
        if bound == UPPER:
            upper = load
            break
        if bound == LOWER:
            lower = load
    return lower, upper


def nonconformities(goal_entries, trials, goals, max_load):
    """How a search's reported bounds differ from the RFC's relevant bounds of its own trials; empty when they are
    those bounds. Per goal (``goal_entries[name]`` has ``lower_bound`` and ``upper_bound``): the lower bound is
    classified a lower bound, the upper bound (unless it is ``max_load``) an upper bound, and no load below the upper
    bound is an upper bound."""
    problems = []
    for goal in goals:
        entry = goal_entries[goal["name"]]
        bounds = classifications(trials, goal)
        lower, upper = entry["lower_bound"], entry["upper_bound"]
        if lower and bounds.get(lower) != LOWER:
            problems.append("%s: the lower bound %s is %s by the trials" % (goal["name"], lower, bounds.get(lower, "not measured")))
        if upper != max_load and bounds.get(upper) != UPPER:
            problems.append("%s: the upper bound %s is %s by the trials" % (goal["name"], upper, bounds.get(upper, "not measured")))
        below = [load for load, bound in bounds.items() if bound == UPPER and load < upper]
        if below:
            problems.append("%s: loads %s below the upper bound %s are upper bounds" % (goal["name"], below, upper))
    return problems


def goal_result(trials, goal):
    """The goal's result by RFC 9971: relevant bounds, conditional throughput, regular or not.

    ``irregular`` says why a result is not regular (None when it is): no
    upper bound (``no upper bound``: the largest load measured was a lower
    bound), no lower bound (``no lower bound``: the smallest load measured
    was an upper bound) or bounds further apart than the goal's width
    (``wider than the goal width``).
    """
    lower, upper = relevant_bounds(trials, goal)
    throughput = None
    if lower is not None:
        throughput = conditional_throughput(lower, by_load(trials)[lower], goal)
    if upper is None:
        irregular = "no upper bound"
    elif lower is None:
        irregular = "no lower bound"
    elif (upper - lower) / upper > goal["width"]:
        irregular = "wider than the goal width"
    else:
        irregular = None
    return {"relevant_lower_bound": lower, "relevant_upper_bound": upper, "conditional_throughput": throughput,
            "regular": irregular is None, "irregular": irregular}


def _inside(bounds, lower, upper):
    """Undecided loads strictly between the relevant bounds (either may be missing)."""
    return [load for load, bound in bounds.items()
            if bound == UNDECIDED and (lower is None or load > lower) and (upper is None or load < upper)]


def _most_telling(inside, grouped, goal):
    """Of the undecided loads between the bounds, the one to measure next.

    The lowest that has lost too much so far (it leans to an upper bound)
    and the highest below it that has not (it leans to a lower bound) decide
    the result once classified: loads outside that pair would not be
    relevant bounds if it classifies as it leans. The one leaning to an upper
    bound goes first; the lowest undecided load when none leans either way.
    """
    lossy = [load for load in inside if classify(grouped[load], goal)["effective_high_loss_sum"] > 0.0]
    if lossy:
        return lossy[0]
    return inside[-1]


def _repeat_duration(trials, goal):
    """The duration of the next trial at an undecided load: the goal's initial duration when one such trial that lost
    too much would classify the load an upper bound (the trials there lean that way), else its final duration."""
    short = goal.get("initial_duration")
    if not short or short >= goal["final_duration"] or classify(trials, goal)["effective_high_loss_sum"] <= 0.0:
        return goal["final_duration"]
    lost = {"load": trials[0]["load"], "duration": short, "loss_ratio": 1.0}
    return short if classify(list(trials) + [lost], goal)["bound"] == UPPER else goal["final_duration"]


def _target(lower, upper, goal, min_load, max_load):
    """The load whose classification would bring the relevant bounds within the goal's width, or None when none can.

    Max load while no load is classified; one width beside the only bound
    there is (the search before settled near it, and a far load would leave
    the result wider than the width whichever way it classifies); between the
    bounds, one width above the lower bound or halfway (geometric), whichever
    is lower.
    """
    step = 1.0 - goal["width"] * WIDTH_USE
    if upper is None:
        if lower is None:
            return max_load
        return None if lower >= max_load else min(max_load, lower / step)
    if lower is None:
        return None if upper <= min_load else max(min_load, upper * step)
    if (upper - lower) / upper <= goal["width"]:
        return None
    return lower / step if (upper - lower) / upper <= _WALK * goal["width"] else (lower * upper) ** 0.5


def _useful(load, lower, upper, goal):
    """Whether a load classified either way could end within the goal's width of a relevant bound."""
    near_lower = lower is not None and (load - lower) / load <= goal["width"]
    near_upper = upper is not None and (upper - load) / upper <= goal["width"]
    return near_lower or near_upper


def next_trial(trials, goal, min_load, max_load, prefer=()):
    """The next trial the goal's result needs, ``(load, duration)``, or None when it is settled.

    A pure planner over the trials so far, trials of the goal's final
    duration only: first a load still undecided between the relevant bounds
    and within the goal's width of one of them (a repeat, until the load is
    classified), then the load ``_target`` names, then any other undecided
    load between the bounds. Settled means a regular result, or an irregular
    one the loads cannot change: max load a lower bound, or min load an
    upper bound.
    """
    grouped = by_load(trials)
    bounds = dict((load, classify(group, goal)["bound"]) for load, group in grouped.items())
    lower, upper = _relevant(bounds)
    duration = goal["final_duration"]
    inside = _inside(bounds, lower, upper)
    useful = [load for load in inside if load in prefer or _useful(load, lower, upper, goal)]
    if useful or (inside and lower is None and upper is None):
        load = _most_telling(useful or inside, grouped, goal)
        return load, _repeat_duration(grouped[load], goal)
    target = _target(lower, upper, goal, min_load, max_load)
    if target is not None:
        return target, duration
    return (_most_telling(inside, grouped, goal), duration) if inside else None
