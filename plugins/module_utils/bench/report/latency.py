# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The latency table of the benchmark report, and which histogram range its 99th percentile comes from.

TRex's latency histogram has one key per range of latencies in microseconds,
the key being the low end of the range: 0 for 0-9, then 10, 20 ... 90, 100,
200 ... 900, 1000, 2000 ... (one significant digit). The bench stores the
percentiles (``percentiles_us``) as the high end of the range that holds
them; the report shows that range, whose width is the resolution.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.offload.testbed.plugins.module_utils.bench import units

NOTE = ("p99 us (histogram): the 99th percentile is not measured frame by frame but read from TRex's latency histogram: it is the high end "
        "of the histogram range that holds the 99th percentile, so it never understates. TRex's ranges have one significant digit (10 us "
        "wide below 100 us, 100 us wide below 1 ms, 1 ms wide below 10 ms, 10 ms wide below 100 ms); the column \"p99 range us\" is that "
        "range, its width the resolution of the percentile. min us is the low end of the lowest range with frames (also from the "
        "histogram); avg us and max us are TRex's own counters.")


def bucket_range(key):
    """``(low, high)`` in us of the histogram range whose key is ``key`` (high exclusive): 0 -> (0, 10), 20 -> (20, 30), 2000 -> (2000, 3000)."""
    key = int(key)
    if key < 10:
        return 0, 10
    return key, key + 10 ** int(math.floor(math.log10(key)))


def percentile_range(histogram, percent):
    """The histogram range ``(low, high)`` that holds the ``percent`` percentile (rank ceil(n p / 100)); None without frames."""
    counts = sorted((int(key), int(count)) for key, count in (histogram or {}).items() if int(count) > 0)
    total = sum(count for _key, count in counts)
    if not total:
        return None
    rank = max(1, int(math.ceil(total * percent / 100.0)))
    seen = 0
    for key, count in counts:
        seen += count
        if seen >= rank:
            return bucket_range(key)
    return bucket_range(counts[-1][0])


def _us(value):
    return "-" if value is None else "%.0f" % value


def _range_text(histogram, percent):
    found = percentile_range(histogram, percent)
    return "-" if found is None else "%d to %d" % found


def latency_table(latency_rows):
    """Header and lines: per latency trial, the load and min/avg/max/99th percentile in microseconds, and the 99th's histogram range."""
    header = ["datapath", "scenario", "protocol", "frame", "load", "min us", "avg us", "max us", "p99 us (histogram)", "p99 range us",
              "latency frames back"]
    lines = []
    for (datapath, scenario, protocol, frame_size), points in latency_rows:
        for point in sorted(points, key=lambda point: point["fraction"]):
            lines.append([datapath, scenario, protocol, units.size_text(frame_size),
                          "%s (%.0f%% of %s)" % (units.pps_text(point["load"]), point["fraction"] * 100, point.get("reference_goal") or "-"),
                          _us(point["min_us"]), _us(point["avg_us"]), _us(point["max_us"]), _us((point.get("percentiles_us") or {}).get("99")),
                          _range_text(point.get("histogram"), 99.0),
                          "%s / %s" % tuple("-" if point.get(key) is None else point[key] for key in ("latency_received", "latency_sent"))])
    return header, lines
