"""bench_report_plots: the loss plot's window around the bounds, its symlog threshold and goal lines; the bars' values."""
import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import plots


def search(goals, trials, repeat=0):
    return {"repeat": repeat, "result": {"goals": goals}, "trials": [{"load": load, "loss_ratio": loss, "duration": 1.0} for load, loss in trials]}


def goal(lower, upper, loss_ratio, limited=False):
    return {"lower_bound": lower, "upper_bound": upper, "loss_ratio": loss_ratio, "generator_limited": limited}


ONE = search({"ndr": goal(100.0, 110.0, 0.0), "pdr": goal(150.0, 200.0, 0.005)},
             [(1000.0, 0.5), (100.0, 0.0), (110.0, 2e-5), (150.0, 0.004), (200.0, 0.01), (20.0, 0.0)])


def test_the_window_is_set_by_the_bounds_not_by_the_first_trial():
    # bounds 100 to 200: span 100, 30 % of it 30, 15 % of 200 also 30 -> 70 to 230 (the trial at 1000 stays out)
    assert plots.loss_window([ONE]) == pytest.approx((70.0, 230.0))
    # bounds 1000 to 1010: 30 % of the span is 3, 15 % of 1010 is 151.5: the larger
    narrow = search({"pdr": goal(1000.0, 1010.0, 0.005)}, [])
    assert plots.loss_window([narrow]) == pytest.approx((848.5, 1161.5))
    # no goal met: every trial, 5 % beyond the highest load
    missed = search({"pdr": goal(0.0, 300.0, 0.005)}, [(300.0, 0.2), (600.0, 0.5)])
    assert plots.loss_window([missed]) == pytest.approx((0.0, 630.0))


def test_trials_outside_the_window_are_counted():
    assert plots.hidden_trials([ONE], (70.0, 230.0)) == (2, 20.0, 1000.0)
    assert plots.hidden_trials([ONE], (0.0, 2000.0)) is None


def test_the_linear_part_of_the_loss_axis_ends_at_the_smallest_loss():
    # losses in %: 0.002 (2e-5) is the smallest in the window; the goal 0.5 %: 10 ** floor(log10(0.002)) = 0.001
    assert plots.linear_threshold([ONE], (70.0, 230.0)) == pytest.approx(0.001)
    # nothing below 1e-4 % is shown as its own decade
    tiny = search({"pdr": goal(100.0, 110.0, 1e-9)}, [(100.0, 0.0)])
    assert plots.linear_threshold([tiny], (0.0, 200.0)) == pytest.approx(1e-4)


def test_goal_lines_take_the_median_of_the_repeats():
    repeats = [search({"pdr": goal(lower, lower * 1.1, 0.005, limited=lower == 300.0), "ndr": goal(lower / 2, lower / 2 + 1, 0.0)}, [], index)
               for index, lower in enumerate((100.0, 300.0, 200.0))]
    ndr, pdr = plots.goal_lines(repeats)
    assert (ndr["name"], ndr["lower_bound"], ndr["low"], ndr["high"]) == ("ndr", 100.0, 50.0, 151.0)
    assert (pdr["name"], pdr["lower_bound"], pdr["low"], pdr["repeats"], pdr["generator_limited"]) == ("pdr", 200.0, 100.0, 3, True)
    assert pdr["high"] == pytest.approx(330.0)


def test_rate_scale_and_bar_values():
    assert plots.rate_scale(999999.0) == (1e3, "kpps") and plots.rate_scale(1e6) == (1e6, "Mpps")
    row = {"lower_bound": 10.0, "upper_bound": 11.0, "generator_limited": True, "summary": {"min": 8.0, "max": 12.0}}
    assert plots.bar_values(row) == (10.0, 11.0, 8.0, 12.0, True)
    assert plots.bar_values(None) == (0.0, 0.0, 0.0, 0.0, False)
