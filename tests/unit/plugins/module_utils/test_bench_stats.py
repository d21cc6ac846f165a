# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Statistics of repeated searches (plugins/module_utils/bench/stats.py); every expected number is worked out by hand."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import stats


def test_quantiles_interpolate_linearly_between_the_sorted_values():
    # [1, 2, 3, 4]: h = 3 p; Q1 at h = 0.75: 1 + 0.75 (2 - 1); Q3 at h = 2.25: 3 + 0.25 (4 - 3); median at h = 1.5
    assert stats.quantile([4, 1, 3, 2], 0.25) == 1.75
    assert stats.quantile([4, 1, 3, 2], 0.75) == 3.25
    assert stats.median([4, 1, 3, 2]) == 2.5
    # five values: h = 4 p falls on values
    assert [stats.quantile([50, 10, 40, 20, 30], p) for p in (0.0, 0.25, 0.5, 0.75, 1.0)] == [10.0, 20.0, 30.0, 40.0, 50.0]
    assert stats.median([7]) == 7.0 and stats.quantile([7], 0.25) == 7.0
    with pytest.raises(ValueError):
        stats.quantile([], 0.5)
    with pytest.raises(ValueError):
        stats.quantile([1, 2], 1.5)


def test_summary_of_five_repeats():
    summary = stats.summarize_bounds([100, 80, 120, 90, 110], 0.005, [False, False, True, False, False])
    # sorted 80 90 100 110 120: median 100, Q1 90, Q3 110; spread (120 - 80) / 100, riqr (110 - 90) / 100
    assert summary == {
        "loss_ratio": 0.005, "repeats": 5, "lower_bounds": [100.0, 80.0, 120.0, 90.0, 110.0],
        "median": 100.0, "min": 80.0, "max": 120.0, "spread": 0.4, "q1": 90.0, "q3": 110.0, "riqr": 0.2,
        "generator_limited": True, "generator_limited_repeats": 1,
    }
    assert json.loads(json.dumps(summary)) == summary


def test_summary_of_four_repeats_has_interpolated_quartiles():
    summary = stats.summarize_bounds([4e6, 1e6, 3e6, 2e6], 0.0, False)
    # median (2 + 3) / 2 = 2.5 Mpps; Q1 1.75, Q3 3.25 Mpps; spread 3 / 2.5 = 1.2; riqr 1.5 / 2.5 = 0.6
    assert (summary["median"], summary["q1"], summary["q3"]) == (2.5e6, 1.75e6, 3.25e6)
    assert summary["spread"] == pytest.approx(1.2) and summary["riqr"] == pytest.approx(0.6)
    assert summary["generator_limited"] is False and summary["generator_limited_repeats"] == 0


def test_summary_of_three_repeats_has_no_riqr():
    summary = stats.summarize_bounds([3e6, 2e6, 4e6], 0.005, [False, False, False])
    assert (summary["median"], summary["min"], summary["max"]) == (3e6, 2e6, 4e6)
    assert summary["spread"] == pytest.approx(2.0 / 3.0)
    assert summary["q1"] is None and summary["q3"] is None and summary["riqr"] is None


def test_summary_of_one_repeat_is_the_bound_itself():
    summary = stats.summarize_bounds([1234567.5], 0.0, True)
    assert summary["lower_bounds"] == [1234567.5] and summary["median"] == summary["min"] == summary["max"] == 1234567.5
    assert summary["spread"] == 0.0 and summary["riqr"] is None
    assert summary["generator_limited"] is True and summary["generator_limited_repeats"] == 1


def test_summary_with_a_zero_median_has_zero_spreads():
    assert stats.summarize_bounds([0, 0, 5], 0.0)["spread"] == 0.0
    summary = stats.summarize_bounds([0, 0, 0, 8], 0.0)
    assert summary["median"] == 0.0 and summary["q3"] == 2.0 and summary["riqr"] == 0.0


def test_summary_refuses_no_bounds_and_flags_that_do_not_match():
    with pytest.raises(ValueError):
        stats.summarize_bounds([], 0.0)
    with pytest.raises(ValueError):
        stats.summarize_bounds([1.0, 2.0], 0.0, [True])


def test_separation_chance_is_two_orders_in_all_of_them():
    # 2 / C(a + b, a)
    assert stats.separation_chance(3, 3) == pytest.approx(2.0 / 20)
    assert stats.separation_chance(4, 4) == pytest.approx(2.0 / 70)
    assert stats.separation_chance(5, 5) == pytest.approx(2.0 / 252)
    assert stats.separation_chance(5, 3) == pytest.approx(2.0 / 56)
    assert stats.separation_chance(2, 2) == pytest.approx(1.0 / 3)
    assert stats.separation_chance(1, 1) == 1.0


def test_ratio_larger_than_the_spread():
    interval = stats.ratio_interval([18, 20, 22], [9, 10, 11])
    # 20 / 10; 18 / 11 = 1.6364; 22 / 9 = 2.4444
    assert interval["ratio"] == 2.0
    assert interval["low"] == pytest.approx(1.636364, abs=1e-6) and interval["high"] == pytest.approx(2.444444, abs=1e-6)
    assert (interval["repeats_a"], interval["repeats_b"]) == (3, 3) and interval["chance"] == pytest.approx(0.1)
    assert stats.verdict(interval, "doca", "system") == "doca is 2.00x system (1.64x to 2.44x over 3 repeats each): larger than the spread"


def test_ratio_within_the_spread():
    interval = stats.ratio_interval([9.5, 10, 12], [9, 10, 11])
    # 10 / 10; 9.5 / 11 = 0.8636; 12 / 9 = 1.3333
    assert (interval["ratio"], round(interval["low"], 4), round(interval["high"], 4)) == (1.0, 0.8636, 1.3333)
    assert stats.verdict(interval) == "A is 1.00x B (0.86x to 1.33x over 3 repeats each): within the spread of the repeats: no difference shown"


def test_ratio_of_a_slower_variant_and_unequal_repeats():
    interval = stats.ratio_interval([4, 5, 6, 5, 5], [9, 10, 11, 10, 10])
    # 5 / 10; 4 / 11 = 0.3636; 6 / 9 = 0.6667; chance 2 / 252
    assert stats.verdict(interval) == "A is 0.50x B (0.36x to 0.67x over 5 repeats each): larger than the spread"
    assert interval["chance"] == pytest.approx(0.0079, abs=1e-4)
    interval = stats.ratio_interval([30, 31, 32, 33, 34], [10, 11, 12])
    # 32 / 11 = 2.909; 30 / 12 = 2.5; 34 / 10 = 3.4; chance 2 / 56 = 0.036
    assert stats.verdict(interval, "doca", "system") == \
        "doca is 2.91x system (2.50x to 3.40x over 5 repeats of doca and 3 of system): larger than the spread"


def test_two_repeats_each_separate_by_chance_a_third_of_the_time():
    interval = stats.ratio_interval([20, 22], [10, 11])
    # medians 21 and 10.5: 2.0; 20 / 11 = 1.818; 22 / 10 = 2.2; chance 2 / 6
    assert stats.verdict(interval) == ("A is 2.00x B (1.82x to 2.20x over 2 repeats each): larger than the spread, but 2 and 2 repeats "
                                       "separate like this by chance 33 % of the time; run with bench_repeat >= 3 to know")


def test_one_repeat_measures_no_spread():
    interval = stats.ratio_interval([16e6], [1e6])
    assert interval == {"ratio": 16.0, "low": None, "high": None, "repeats_a": 1, "repeats_b": 1, "chance": None}
    assert stats.verdict(interval) == "one repeat each: no spread measured; run with bench_repeat >= 3 to know"
    assert stats.verdict(stats.ratio_interval([1, 2, 3], [1]), "emc", "noemc") == \
        "one repeat of noemc: no spread measured; run with bench_repeat >= 3 to know"
    assert stats.interval_text(interval) == ""


def test_ratio_when_b_misses_the_goal():
    interval = stats.ratio_interval([3, 4, 5], [0, 2, 2])
    # median 4 / 2; 3 / 2 = 1.5; a bound of B is 0: no upper limit
    assert (interval["ratio"], interval["low"], interval["high"]) == (2.0, 1.5, None)
    assert stats.verdict(interval) == "A is 2.00x B (at least 1.50x over 3 repeats each): larger than the spread"
    interval = stats.ratio_interval([3, 4, 5], [0, 0, 1])
    assert interval["ratio"] is None and interval["low"] is None
    assert stats.verdict(interval, "emc", "noemc") == "no ratio: noemc has no lower bound above zero"
    with pytest.raises(ValueError):
        stats.ratio_interval([], [1])


def test_equal_bounds_on_both_sides_are_within_the_spread():
    """Both generator-limited at the same ceiling: the ranges touch, ratio 1, no difference shown."""
    interval = stats.ratio_interval([5e6, 5e6, 5e6], [5e6, 5e6, 5e6])
    assert (interval["ratio"], interval["low"], interval["high"]) == (1.0, 1.0, 1.0)
    assert stats.verdict(interval).endswith(": within the spread of the repeats: no difference shown")


def test_ratio_format():
    assert [stats.format_ratio(value) for value in (0.5, 1.846, 9.5, 16.04, 123.4)] == ["0.50x", "1.85x", "9.50x", "16.0x", "123.4x"]
