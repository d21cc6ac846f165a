# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Statistics of repeated searches: the spread of one bound, the ratio of two variants and what it shows.

With ``repeat: N`` the bench runs every search N times; each repeat is a whole
search with its own trials and bounds.  :func:`summarize_bounds` is what the
bench stores per goal in ``summaries`` of the results file (schema version 2)
and what ``bench_report`` prints; :func:`ratio_interval` and :func:`verdict`
make the speedup table's ratio, interval and words.

Quantiles are the linear interpolation between order statistics (Hyndman and
Fan's type 7, numpy's default ``linear`` method, Excel's ``QUARTILE.INC``):
for the sorted values ``x[0..n-1]`` and a fraction ``p``, ``h = (n - 1) * p``
and the quantile is ``x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)])``.
The median is the quantile at 0.5 (the mean of the two middle values when n
is even).

Pure functions, no Ansible imports: the report module and the bench action
(on the controller) both use them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

# Fewer repeats than this on either side: the report asks for more.
ADVISED_REPEATS = 3
# Two variants that do not differ separate their ranges by chance this often
# with 3 repeats each (2 / C(6, 3)); fewer repeats than that get a warning.
CHANCE_LIMIT = 0.1


def quantile(values, fraction):
    """The ``fraction`` quantile (0..1) of ``values`` by linear interpolation (type 7, see the module's docstring)."""
    ordered = sorted(float(value) for value in values)
    if not ordered:
        raise ValueError("quantile of no values")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError("quantile fraction %r outside 0..1" % (fraction,))
    position = (len(ordered) - 1) * fraction
    below = int(math.floor(position))
    if below >= len(ordered) - 1:
        return ordered[-1]
    return ordered[below] + (position - below) * (ordered[below + 1] - ordered[below])


def median(values):
    """The median: the quantile at 0.5."""
    return quantile(values, 0.5)


def _relative(width, middle):
    return width / middle if middle else 0.0


def summarize_bounds(values, loss_ratio, generator_limited=False):
    """The summary of one goal's lower bounds over the repeats of one profile.

    ``values``: the lower bounds (frames/s), in repeat order.
    ``generator_limited``: one boolean per repeat (or one boolean for all).

    Returns (JSON-serialisable)::

        {"loss_ratio": float, "repeats": int, "lower_bounds": [float, ...],
         "median": float, "min": float, "max": float,
         "spread": float,           # (max - min) / median; 0.0 when the median is 0
         "q1": float or None,       # quartiles, type 7; None with fewer than 4 repeats
         "q3": float or None,
         "riqr": float or None,     # (q3 - q1) / median with 4 repeats or more (0.0 when the median is 0), else None
         "generator_limited": bool, # any repeat's bound is generator-limited
         "generator_limited_repeats": int}  # how many are
    """
    bounds = [float(value) for value in values]
    if not bounds:
        raise ValueError("summarize_bounds: no bounds")
    if isinstance(generator_limited, (list, tuple)):
        if len(generator_limited) != len(bounds):
            raise ValueError("summarize_bounds: %d generator_limited flags for %d bounds" % (len(generator_limited), len(bounds)))
        limited = sum(1 for flag in generator_limited if flag)
    else:
        limited = len(bounds) if generator_limited else 0
    middle = median(bounds)
    low, high = min(bounds), max(bounds)
    quartiles = (quantile(bounds, 0.25), quantile(bounds, 0.75)) if len(bounds) >= 4 else (None, None)
    return {
        "loss_ratio": float(loss_ratio), "repeats": len(bounds), "lower_bounds": bounds,
        "median": middle, "min": low, "max": high, "spread": _relative(high - low, middle),
        "q1": quartiles[0], "q3": quartiles[1],
        "riqr": None if quartiles[0] is None else _relative(quartiles[1] - quartiles[0], middle),
        "generator_limited": limited > 0, "generator_limited_repeats": limited,
    }


def separation_chance(repeats_a, repeats_b):
    """How often the ranges of two variants that do not differ are separated (either way) by chance.

    With independent repeats from one continuous distribution every order of
    the ``a + b`` bounds is equally likely; the ranges are separated in the
    two orders where all of A's bounds lie above all of B's or below:
    ``2 / C(a + b, a)`` (3 and 3 repeats: 0.1; 4 and 4: 0.029; 5 and 5: 0.0079).
    """
    orders = math.factorial(repeats_a + repeats_b) // (math.factorial(repeats_a) * math.factorial(repeats_b))
    return min(1.0, 2.0 / orders)


def ratio_interval(a_values, b_values):
    """The ratio of variant A's bounds over B's, with an interval from the repeats.

    ``ratio`` is median(A) / median(B).  The interval is the range of the
    ratios the repeats give: ``low`` = min(A) / max(B), ``high`` = max(A) /
    min(B) (None when a bound of B is 0: no upper limit).  It excludes 1
    exactly when the ranges of A's and B's bounds do not overlap, which two
    variants that do not differ do by chance with :func:`separation_chance`.
    With fewer than 2 repeats on a side there is no spread: ``low``, ``high``
    and ``chance`` are None.  ``ratio`` is None when median(B) is not above 0.

    Returns ``{"ratio", "low", "high", "repeats_a", "repeats_b", "chance"}``.
    """
    a_bounds, b_bounds = [float(value) for value in a_values], [float(value) for value in b_values]
    if not a_bounds or not b_bounds:
        raise ValueError("ratio_interval: %s has no bounds" % ("A" if not a_bounds else "B"))
    result = {"ratio": None, "low": None, "high": None, "repeats_a": len(a_bounds), "repeats_b": len(b_bounds), "chance": None}
    middle_b = median(b_bounds)
    if middle_b <= 0.0:
        return result
    result["ratio"] = median(a_bounds) / middle_b
    if min(len(a_bounds), len(b_bounds)) < 2:
        return result
    result["low"] = min(a_bounds) / max(b_bounds)
    result["high"] = max(a_bounds) / min(b_bounds) if min(b_bounds) > 0.0 else None
    result["chance"] = separation_chance(len(a_bounds), len(b_bounds))
    return result


def format_ratio(value):
    """``1.85x``, ``16.0x``: two decimals below 10, one from 10 on."""
    return ("%.2fx" if value < 10.0 else "%.1fx") % value


def interval_text(interval):
    """``1.62x to 2.01x``, or ``at least 1.62x`` without an upper limit; "" without an interval."""
    if interval.get("low") is None:
        return ""
    if interval.get("high") is None:
        return "at least %s" % format_ratio(interval["low"])
    return "%s to %s" % (format_ratio(interval["low"]), format_ratio(interval["high"]))


def _repeats_text(interval, name_a, name_b):
    if interval["repeats_a"] == interval["repeats_b"]:
        return "%d repeats each" % interval["repeats_a"]
    return "%d repeats of %s and %d of %s" % (interval["repeats_a"], name_a, interval["repeats_b"], name_b)


def verdict(interval, name_a="A", name_b="B"):
    """Words for a :func:`ratio_interval`: is the difference larger than the spread of the repeats?

    * ``A is 1.85x B (1.62x to 2.01x over 5 repeats each): larger than the spread``
      (the interval excludes 1: the ranges do not overlap);
    * ``...: within the spread of the repeats: no difference shown`` (it includes 1);
    * ``...: larger than the spread, but 2 and 2 repeats separate like this by chance 33 % of the time;
      run with bench_repeat >= 3 to know`` (separated, but with a chance above 10 %);
    * ``one repeat each: no spread measured; run with bench_repeat >= 3 to know``
      (or ``one repeat of B: ...``).
    """
    if interval.get("ratio") is None:
        return "no ratio: %s has no lower bound above zero" % name_b
    advice = "run with bench_repeat >= %d to know" % ADVISED_REPEATS
    if interval["repeats_a"] < 2 and interval["repeats_b"] < 2:
        return "one repeat each: no spread measured; %s" % advice
    if interval["repeats_a"] < 2 or interval["repeats_b"] < 2:
        return "one repeat of %s: no spread measured; %s" % (name_a if interval["repeats_a"] < 2 else name_b, advice)
    head = "%s is %s %s (%s over %s)" % (name_a, format_ratio(interval["ratio"]), name_b, interval_text(interval),
                                         _repeats_text(interval, name_a, name_b))
    separated = interval["low"] > 1.0 or (interval["high"] is not None and interval["high"] < 1.0)
    if not separated:
        return "%s: within the spread of the repeats: no difference shown" % head
    if interval["chance"] > CHANCE_LIMIT + 1e-9:
        return "%s: larger than the spread, but %d and %d repeats separate like this by chance %.0f %% of the time; %s" % (
            head, interval["repeats_a"], interval["repeats_b"], 100.0 * interval["chance"], advice)
    return "%s: larger than the spread" % head
