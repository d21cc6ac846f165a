# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Latency of a bench run from the TRex client's packet-group statistics.

Pure functions over what ``STLClient.get_pgid_stats([pg_id])`` returns
(``{"latency": {pg_id: {"latency": {...}, "err_cntrs": {...}}},
"flow_stats": {pg_id: {"tx_pkts": {...}, "rx_pkts": {...}}}}``) and over
search results; no client, no network.

TRex's histogram has one key per range of latencies in microseconds, the key
being the low end of the range: ``0`` for 0-9, then 10, 20 ... 90, 100, 200
... 900, 1000, 2000 ... A percentile read from it is the high end of the range
that holds it: an upper bound, never an underestimate.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import numbers

PERCENTILES = (50.0, 90.0, 99.0, 99.9)
# The goal the latency loads are fractions of: PDR when the run has it.
REFERENCE_GOALS = ("pdr",)


def _number(value):
    """A statistic as a float, or None (the client's StatNotAvailable, missing, NaN)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        return None
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


def bucket_high(key):
    """The (exclusive) high end, in usec, of the histogram range that starts at ``key``."""
    key = int(key)
    if key < 10:
        return 10
    return key + 10 ** int(math.floor(math.log10(key)))


def histogram_percentile(histogram, percent):
    """The high end of the range holding the ``percent`` percentile, or None for an empty histogram."""
    counts = sorted((int(key), int(count)) for key, count in histogram.items() if int(count) > 0)
    total = sum(count for _key, count in counts)
    if not total:
        return None
    rank = math.ceil(total * percent / 100.0)
    seen = 0
    for key, count in counts:
        seen += count
        if seen >= rank:
            return float(bucket_high(key))
    return float(bucket_high(counts[-1][0]))


def _pg(table, pg_id):
    """The entry of ``pg_id`` (the client keys it by int; JSON round trips make it a string)."""
    if not isinstance(table, dict):
        return None
    return table.get(pg_id, table.get(str(pg_id)))


def _total(counters):
    """A flow-stats counter's ``total``, or the sum of its per-port values."""
    if not isinstance(counters, dict):
        return None
    total = _number(counters.get("total"))
    if total is not None:
        return int(total)
    values = [_number(value) for key, value in counters.items() if key != "total"]
    values = [value for value in values if value is not None]
    return int(sum(values)) if values else None


def pg_known(stats, pg_id):
    """Whether a ``get_pgid_stats`` answer knows ``pg_id`` at all (latency or flow statistics)."""
    stats = stats or {}
    return _pg(stats.get("latency"), pg_id) is not None or _pg(stats.get("flow_stats"), pg_id) is not None


def has_latency(stats, pg_id):
    """Whether a ``get_pgid_stats`` answer has latency statistics for ``pg_id``."""
    return _pg((stats or {}).get("latency"), pg_id) is not None


def summarize(tx_stats, rx_stats, pg_id):
    """One latency measurement from the sending and the receiving server's pgid statistics.

    ``tx_stats`` and ``rx_stats`` are ``get_pgid_stats`` answers (the same
    one when one server sends and receives). Returns ``{"latency_sent",
    "latency_received", "min_us", "avg_us", "max_us", "jitter_us", "percentiles_us",
    "histogram", "errors"}``; a value the server did not give is None.
    """
    lat = _pg((rx_stats or {}).get("latency"), pg_id) or {}
    inner = lat.get("latency") or {}
    histogram = {}
    for key, count in (inner.get("histogram") or {}).items():
        if _number(count):
            histogram[str(int(key))] = int(count)
    errors = {}
    for key, value in (lat.get("err_cntrs") or {}).items():
        if _number(value) is not None:
            errors[key] = int(value)
    tx_flow = _pg((tx_stats or {}).get("flow_stats"), pg_id) or {}
    rx_flow = _pg((rx_stats or {}).get("flow_stats"), pg_id) or {}
    received = _total(rx_flow.get("rx_pkts"))
    if received is None and histogram:
        received = sum(histogram.values())
    minimum = _number(inner.get("total_min"))
    if histogram:
        # the client reports total_min as the lowest histogram key (2 for the 0-9 range)
        minimum = float(min(int(key) for key in histogram))
    return {
        "latency_sent": _total(tx_flow.get("tx_pkts")),
        "latency_received": received,
        "min_us": minimum,
        "avg_us": _number(inner.get("average")),
        "max_us": _number(inner.get("total_max")),
        "jitter_us": _number(inner.get("jitter")),
        "percentiles_us": dict(("%g" % percent, histogram_percentile(histogram, percent)) for percent in PERCENTILES),
        "histogram": histogram,
        "errors": errors,
    }


def _delta(after, before):
    if after is None:
        return None
    return after - (before or 0)


def group_trial(group, tx_before, rx_before, tx_after, rx_after):
    """One trial of a profile's packet group (``{"pg_id", "kind"}``, kind ``stats`` or ``latency``) from the
    ``get_pgid_stats`` answers before and after it: the servers' counters are running totals (the receiving
    server's are never cleared), so the trial's part is their difference.

    Returns ``{"pg_id", "kind", "sent", "received"}``, for a latency group also ``histogram`` (the trial's part of it)
    and ``percentiles_us`` read from it, and ``max_us``, the group's maximum since it began (not a difference)."""
    pg_id = group["pg_id"]
    before, after = summarize(tx_before, rx_before, pg_id), summarize(tx_after, rx_after, pg_id)
    record = dict(group, sent=_delta(after["latency_sent"], before["latency_sent"]),
                  received=_delta(after["latency_received"], before["latency_received"]))
    if group["kind"] == "latency":
        histogram = {}
        for key, count in after["histogram"].items():
            count -= before["histogram"].get(key, 0)
            if count > 0:
                histogram[key] = count
        record.update(histogram=histogram, max_us=after["max_us"],
                      percentiles_us=dict(("%g" % percent, histogram_percentile(histogram, percent)) for percent in PERCENTILES))
    return record


def reference_load(goals):
    """``(goal name, load)`` the latency loads are fractions of: the PDR's lower bound, else the
    highest lower bound of the run's goals; ``(None, 0.0)`` when no goal has one."""
    for name in REFERENCE_GOALS:
        if name in goals and (goals[name].get("lower_bound") or 0) > 0:
            return name, float(goals[name]["lower_bound"])
    best = (None, 0.0)
    for name, goal in goals.items():
        if (goal.get("lower_bound") or 0) > best[1]:
            best = (name, float(goal["lower_bound"]))
    return best


def latency_points(goals, fractions, latency_pps):
    """The latency trials of a finished search: ``[{"fraction", "load", "latency_pps"}]``.

    The latency stream sends ``latency_pps`` frames/s, at most a tenth of the
    trial's load, so it never carries the trial.
    """
    _name, load = reference_load(goals)
    points = []
    for fraction in fractions:
        trial_load = load * fraction
        if trial_load <= 0:
            continue
        points.append({"fraction": fraction, "load": trial_load, "latency_pps": min(float(latency_pps), trial_load / 10.0)})
    return points
