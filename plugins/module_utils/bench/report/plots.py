# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the report's plots show, as data: the loss plot's window and goal lines, the bars' values, the flow scale series.

These functions choose the numbers, so they can be tested without matplotlib;
:mod:`.draw` draws them (the bars, the loss plots, and each goal's bound against
the number of flows on a log x axis).

The loss plot's x range is set by the goals' bounds, not by the first trial at
the maximum load: from the lowest lower bound to the highest upper bound,
widened on both sides by 30 % of that span or 15 % of the highest upper bound,
whichever is more. Trials outside are counted in the legend.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.offload.testbed.plugins.module_utils.bench import stats, units

SPAN_MARGIN = 0.3
HIGH_MARGIN = 0.15
# symlog's linear part reaches up to the smallest loss shown (a power of 10), at least this far down (loss in %).
SMALLEST_LOSS_PERCENT = 1e-4


def _goals(search):
    return ((search.get("result") or {}).get("goals") or {})


def bounds_of(searches):
    """``(lowest lower bound above 0, highest upper bound)`` over every goal of the searches; None when no goal was met."""
    lower = [goal["lower_bound"] for search in searches for goal in _goals(search).values() if goal.get("lower_bound")]
    upper = [goal["upper_bound"] for search in searches for goal in _goals(search).values() if goal.get("upper_bound")]
    if not lower:
        return None
    return min(lower), max(upper + lower)


def loss_window(searches):
    """``(x_min, x_max)`` of the loss plot in frames/s (see the module's docstring); all trials when no goal was met."""
    found = bounds_of(searches)
    if found is None:
        loads = [trial["load"] for search in searches for trial in search.get("trials", [])] or [1.0]
        return 0.0, max(loads) * 1.05
    low, high = found
    pad = max(SPAN_MARGIN * (high - low), HIGH_MARGIN * high)
    return max(0.0, low - pad), high + pad


def hidden_trials(searches, window):
    """``(count, lowest load, highest load)`` of the trials outside ``window``; None when every trial is in it."""
    loads = [trial["load"] for search in searches for trial in search.get("trials", []) if not window[0] <= trial["load"] <= window[1]]
    if not loads:
        return None
    return len(loads), min(loads), max(loads)


def linear_threshold(searches, window):
    """The loss (%) below which the symlog axis is linear: the smallest positive loss in the window or goal, as a power of 10."""
    losses = [100.0 * trial["loss_ratio"] for search in searches for trial in search.get("trials", [])
              if window[0] <= trial["load"] <= window[1] and trial["loss_ratio"] > 0]
    losses += [100.0 * goal["loss_ratio"] for search in searches for goal in _goals(search).values() if goal.get("loss_ratio")]
    smallest = min(losses) if losses else SMALLEST_LOSS_PERCENT
    return max(SMALLEST_LOSS_PERCENT, 10.0 ** math.floor(math.log10(smallest)))


def goal_lines(searches):
    """One entry per goal, lowest loss ratio first: the median of the repeats' lower bounds and their range.

    ``{"name", "loss_ratio", "lower_bound" (median), "low" (min lower bound), "high" (max upper bound), "repeats", "generator_limited"}``.
    """
    names = sorted({name for search in searches for name in _goals(search)},
                   key=lambda name: (min(_goals(search)[name]["loss_ratio"] for search in searches if name in _goals(search)), name))
    lines = []
    for name in names:
        goals = [_goals(search)[name] for search in searches if name in _goals(search)]
        lines.append({"name": name, "loss_ratio": goals[0]["loss_ratio"], "lower_bound": stats.median([goal["lower_bound"] for goal in goals]),
                      "low": min(goal["lower_bound"] for goal in goals), "high": max(goal["upper_bound"] for goal in goals),
                      "repeats": len(goals), "generator_limited": any(goal.get("generator_limited") for goal in goals)})
    return lines


def rate_scale(value):
    """``(divisor, unit)`` to show rates up to ``value`` frames/s: Mpps from 1e6 on, else kpps."""
    return (1e6, "Mpps") if value >= 1e6 else (1e3, "kpps")


def bar_values(row):
    """What one bar shows of a row of ``bench_report.rows_of``: ``(lower bound, upper bound, min, max, generator-limited)``; zeros for None."""
    if row is None:
        return 0.0, 0.0, 0.0, 0.0, False
    return row["lower_bound"], row["upper_bound"], row["summary"]["min"], row["summary"]["max"], bool(row["generator_limited"])


def flow_series(groups):
    """One series per group of ``bench_report.flow_groups`` x goal (lowest loss ratio first), in ascending flow counts.

    ``{"label", "goal", "loss_ratio", "flows", "lower_bound", "low", "high", "generator_limited", "repeats"}``: ``lower_bound``
    the medians over the repeats, ``low`` and ``high`` the repeats' min and max lower bounds, lists along ``flows``.
    """
    series = []
    for (datapath, scenario, protocol, frame_size), counts in groups:
        names = sorted({name for _flows, goals in counts for name in goals},
                       key=lambda name: (min(goals[name]["loss_ratio"] for _flows, goals in counts if name in goals), name))
        for name in names:
            points = [(flows, goals[name]) for flows, goals in counts if name in goals]
            series.append({"label": "%s %s %s %s" % (datapath, scenario, protocol, units.size_text(frame_size)), "goal": name,
                           "loss_ratio": points[0][1]["loss_ratio"], "flows": [flows for flows, _row in points],
                           "lower_bound": [row["lower_bound"] for _flows, row in points],
                           "low": [row["summary"]["min"] for _flows, row in points], "high": [row["summary"]["max"] for _flows, row in points],
                           "generator_limited": [bool(row["generator_limited"]) for _flows, row in points],
                           "repeats": max(row["repeats"] for _flows, row in points)})
    return series
