# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_latency over the shape of trex_stl_lib's get_pgid_stats()."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import latency as bl


class StatNotAvailable(str):
    """What the client puts where the server gave no value."""


@pytest.mark.parametrize("key, high", [(0, 10), (10, 20), (90, 100), (100, 200), (900, 1000), (1000, 2000), (20000, 30000)])
def test_bucket_high_ends(key, high):
    assert bl.bucket_high(key) == high


def test_percentiles_are_the_high_ends_of_their_ranges():
    histogram = {"0": 10, "10": 80, "100": 9, "1000": 1}
    assert bl.histogram_percentile(histogram, 10) == 10.0
    assert bl.histogram_percentile(histogram, 11) == 20.0
    assert bl.histogram_percentile(histogram, 90) == 20.0
    assert bl.histogram_percentile(histogram, 99) == 200.0
    assert bl.histogram_percentile(histogram, 99.9) == 2000.0
    assert bl.histogram_percentile({}, 50) is None


def test_summary_from_one_server():
    stats = {
        "latency": {"global": {"old_flow": 0, "bad_hdr": 0},
                    7: {"latency": {"average": 12.5, "total_max": 90, "total_min": 10, "jitter": 1, "last_max": 40,
                                    "histogram": {10: 95, 50: 5}},
                        "err_cntrs": {"dropped": 0, "dup": 0, "out_of_order": 0, "seq_too_high": 0, "seq_too_low": 0}}},
        "flow_stats": {"global": {}, 7: {"tx_pkts": {0: 100, "total": 100}, "rx_pkts": {1: 100, "total": 100}}},
    }
    summary = bl.summarize(stats, stats, 7)
    assert summary == {"latency_sent": 100, "latency_received": 100, "min_us": 10.0, "avg_us": 12.5, "max_us": 90.0, "jitter_us": 1.0,
                       "percentiles_us": {"50": 20.0, "90": 20.0, "99": 60.0, "99.9": 60.0}, "histogram": {"10": 95, "50": 5},
                       "errors": {"dropped": 0, "dup": 0, "out_of_order": 0, "seq_too_high": 0, "seq_too_low": 0}}


def test_summary_across_two_servers_and_missing_values():
    tx = {"latency": {}, "flow_stats": {"3": {"tx_pkts": {"0": 50}}}}
    rx = {"latency": {"3": {"latency": {"average": StatNotAvailable("average"), "total_max": float("nan"), "jitter": 2,
                                        "histogram": {}, "total_min": StatNotAvailable("total_min")},
                            "err_cntrs": {"dropped": 50}}},
          "flow_stats": {}}
    summary = bl.summarize(tx, rx, 3)
    assert summary["latency_sent"] == 50 and summary["latency_received"] is None
    assert (summary["min_us"], summary["avg_us"], summary["max_us"], summary["jitter_us"]) == (None, None, None, 2.0)
    assert summary["percentiles_us"]["99"] is None and summary["errors"] == {"dropped": 50}


def test_latency_points_are_fractions_of_the_pdr():
    goals = {"ndr": {"lower_bound": 80000.0}, "pdr": {"lower_bound": 100000.0}}
    assert bl.latency_points(goals, [0.1, 0.9], 1000) == [
        {"fraction": 0.1, "load": 10000.0, "latency_pps": 1000.0},
        {"fraction": 0.9, "load": 90000.0, "latency_pps": 1000.0}]
    # without a pdr goal: the highest lower bound; the latency stream stays at a tenth of the load
    assert bl.latency_points({"ndr": {"lower_bound": 3000.0}}, [0.1], 1000) == [{"fraction": 0.1, "load": 300.0, "latency_pps": 30.0}]
    assert bl.latency_points({"pdr": {"lower_bound": 0.0}}, [0.5], 1000) == []
    assert bl.reference_load({"pdr": {"lower_bound": 0.0}, "ndr": {"lower_bound": 0.0}}) == (None, 0.0)


def test_has_latency():
    assert bl.has_latency({"latency": {"global": {}, 5: {"latency": {}}}}, 5)
    assert bl.has_latency({"latency": {"5": {"latency": {}}}}, 5)
    assert not bl.has_latency({"latency": {"global": {}}}, 5) and not bl.has_latency({}, 5) and not bl.has_latency(None, 5)


def pgid_stats(pg_id, sent, received, histogram=None, total_max=None):
    """A get_pgid_stats answer for one group, as the client gives it (running totals since the group began)."""
    stats = {"latency": {}, "flow_stats": {pg_id: {"tx_pkts": {0: sent, "total": sent}, "rx_pkts": {1: received, "total": received}}}}
    if histogram is not None:
        stats["latency"][pg_id] = {"latency": {"histogram": histogram, "total_max": total_max, "average": 30.0}, "err_cntrs": {}}
    return stats


def test_a_profile_s_stats_group_in_a_trial_is_the_difference_of_the_running_totals():
    record = bl.group_trial({"pg_id": 12, "kind": "stats"}, pgid_stats(12, 1000, 990), pgid_stats(12, 1000, 990),
                            pgid_stats(12, 3000, 2980), pgid_stats(12, 3000, 2980))
    assert record == {"pg_id": 12, "kind": "stats", "sent": 2000, "received": 1990}


def test_a_profile_s_latency_group_in_a_trial_has_the_trial_s_part_of_the_histogram():
    before = pgid_stats(13, 100, 100, {10: 90, 100: 10}, 150.0)
    after = pgid_stats(13, 300, 299, {10: 90, 20: 150, 100: 10, 1000: 49}, 1500.0)
    record = bl.group_trial({"pg_id": 13, "kind": "latency"}, before, before, after, after)
    assert (record["sent"], record["received"], record["max_us"]) == (200, 199, 1500.0)
    assert record["histogram"] == {"20": 150, "1000": 49}
    assert record["percentiles_us"] == {"50": 30.0, "90": 2000.0, "99": 2000.0, "99.9": 2000.0}
