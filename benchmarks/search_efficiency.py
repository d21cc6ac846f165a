# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Trial seconds of the throughput search against a plain bisection and MLRsearch.

Run from the repository root:  .venv/bin/python benchmarks/search_efficiency.py

Every search gets the same simulated devices (tests/unit/plugins/module_utils/
device_models.py), the three default goals (NDR, NDR at 1e-5, PDR at 0.5 %),
10 s final trials, 1 s initial trials and a width of 0.5 %.  For each model it
prints the trial seconds (and trials) of each search, the ratios, whether
every bound is within the width of the model's true value, and the medians.

* bisection: per goal, one 10 s trial at max_load, then halving [min, max]
  with one 10 s trial per step until the width is met.
* MLRsearch: FD.io CSIT's implementation (PyPI ``MLRsearch``, see
  benchmarks/requirements.txt) with exceed_ratio 0 and duration_sum 10 s, the
  settings that mean what our contract means by a bound.  Note that it counts
  a short lossy trial as an upper bound, which our contract does not allow
  (our upper bounds are confirmed by a 10 s trial), so it needs fewer 10 s
  trials by construction.
"""

from __future__ import absolute_import, division, print_function

import os
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _link_collection():
    """Make ``ansible_collections.offload.testbed`` importable, as tests/unit/conftest.py does."""
    base = os.path.join(ROOT, ".tmp", "pytest")
    ns_dir = os.path.join(base, "ansible_collections", "offload")
    link = os.path.join(ns_dir, "testbed")
    os.makedirs(ns_dir, exist_ok=True)
    if not os.path.islink(link):
        try:
            os.symlink(ROOT, link)
        except FileExistsError:
            pass
    if base not in sys.path:
        sys.path.insert(0, base)


_link_collection()

from ansible_collections.offload.testbed.plugins.module_utils.search import DEFAULT_GOALS, search  # noqa: E402
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils import device_models  # noqa: E402

FINAL = 10.0
INITIAL = 1.0
WIDTH = 0.005


def within(model, goal_ratio, lower, upper, width=WIDTH):
    """Whether both bounds are within the width (plus the model's noise) of the true value."""
    true = model.true_value(goal_ratio, device_models.MAX_LOAD, device_models.MIN_LOAD)
    if true == 0.0:
        return lower == 0.0
    tolerance = width + getattr(model, "noise", 0.0)
    return abs(lower - true) <= tolerance * true and abs(upper - true) <= tolerance * true


def run_ours(model):
    result = search(model, device_models.MAX_LOAD, min_load=device_models.MIN_LOAD,
                    final_duration=FINAL, width=WIDTH, initial_duration=INITIAL)
    good = all(within(model, goal["loss_ratio"], goal["lower_bound"], goal["upper_bound"])
               for goal in result["goals"].values())
    return result["trial_seconds"], len(result["trials"]), good


def bisect_goal(model, ratio):
    """One final-duration trial per step; returns (seconds, trials, lower, upper)."""
    seconds, trials = 0.0, 0

    def missed(load):
        reply = model(load, FINAL)
        return (reply["offered"] - reply["received"]) / reply["offered"] > ratio

    max_load, min_load = device_models.MAX_LOAD, device_models.MIN_LOAD
    seconds, trials = seconds + FINAL, trials + 1
    if not missed(max_load):
        return seconds, trials, max_load, max_load
    low, high, low_seen = min_load, max_load, False
    while (high - low) / high > WIDTH:
        middle = (low + high) / 2.0
        seconds, trials = seconds + FINAL, trials + 1
        if missed(middle):
            high = middle
        else:
            low, low_seen = middle, True
    if not low_seen:
        seconds, trials = seconds + FINAL, trials + 1
        if missed(min_load):
            return seconds, trials, 0.0, min_load
    return seconds, trials, low, high


def run_bisection(model):
    seconds, trials, good = 0.0, 0, True
    for goal in DEFAULT_GOALS:
        goal_seconds, goal_trials, lower, upper = bisect_goal(model, goal["loss_ratio"])
        seconds += goal_seconds
        trials += goal_trials
        good = good and within(model, goal["loss_ratio"], lower, upper)
    return seconds, trials, good


def mlrsearch_runner():
    """A function running MLRsearch on a model, or the reason it cannot run."""
    try:
        from MLRsearch import AbstractMeasurer, Config, MeasurementResult, MultipleLossRatioSearch, SearchGoal
    except ImportError as error:
        return None, "MLRsearch is not installed (pip install -r benchmarks/requirements.txt): %s" % error

    class Measurer(AbstractMeasurer):
        def __init__(self, model):
            self.model = model
            self.seconds = 0.0
            self.trials = 0

        def measure(self, intended_duration, intended_load):
            reply = self.model(intended_load, intended_duration)
            self.seconds += intended_duration
            self.trials += 1
            return MeasurementResult(intended_duration=intended_duration, intended_load=intended_load,
                                     offered_count=reply["offered"], forwarding_count=reply["received"])

    def run(model):
        config = Config()
        config.goals = [SearchGoal(loss_ratio=goal["loss_ratio"], exceed_ratio=0.0, relative_width=WIDTH,
                                   initial_trial_duration=INITIAL, final_trial_duration=FINAL, duration_sum=FINAL,
                                   preceding_targets=2, expansion_coefficient=2, fail_fast=False)
                        for goal in DEFAULT_GOALS]
        config.min_load = device_models.MIN_LOAD
        config.max_load = device_models.MAX_LOAD
        config.search_duration_max = 3600.0
        config.warmup_duration = None
        measurer = Measurer(model)
        results = MultipleLossRatioSearch(config=config).search(measurer=measurer, debug=lambda message: None)
        good = True
        for goal, result in results.items():
            lower = result.relevant_lower_bound
            upper = result.relevant_upper_bound
            lower = float(lower) if lower is not None else 0.0
            upper = float(upper) if upper is not None else device_models.MAX_LOAD
            good = good and within(model, goal.loss_ratio, lower, upper)
        return measurer.seconds, measurer.trials, good

    return run, None


def main():
    mlr, why = mlrsearch_runner()
    if why:
        print("MLRsearch not compared: " + why)
    header = "%-16s %14s %14s %14s %11s %11s  %s" % (
        "model", "ours s (n)", "MLRsearch s (n)", "bisection s (n)", "ours/MLR", "ours/bisect", "bounds within width (ours/MLR/bisect)")
    print(header)
    print("-" * len(header))
    ours_all, mlr_all, bis_all, ratio_mlr, ratio_bis = [], [], [], [], []
    failures = []
    for cls in device_models.MODELS:
        ours = run_ours(cls())
        bis = run_bisection(cls())
        ours_all.append(ours[0])
        bis_all.append(bis[0])
        ratio_bis.append(ours[0] / bis[0])
        mlr_text, ratio_text, mlr_good = "-", "-", "-"
        if mlr is not None:
            try:
                mlr_result = mlr(cls())
            except Exception as error:  # pylint: disable=broad-except
                mlr_text, mlr_good = "failed", "failed: %s" % error
            else:
                mlr_all.append(mlr_result[0])
                ratio_mlr.append(ours[0] / mlr_result[0])
                mlr_text = "%.1f (%d)" % mlr_result[:2]
                ratio_text = "%.2f" % ratio_mlr[-1]
                mlr_good = "yes" if mlr_result[2] else "NO"
        if not ours[2]:
            failures.append(cls.name)
        print("%-16s %14s %14s %14s %11s %11.2f  %s/%s/%s" % (
            cls.name, "%.1f (%d)" % ours[:2], mlr_text, "%.1f (%d)" % bis[:2], ratio_text, ratio_bis[-1],
            "yes" if ours[2] else "NO", mlr_good, "yes" if bis[2] else "NO"))
    print("-" * len(header))
    print("%-16s %14.1f %14s %14.1f %11s %11.2f" % (
        "median", statistics.median(ours_all), "%.1f" % statistics.median(mlr_all) if mlr_all else "-",
        statistics.median(bis_all), "%.2f" % statistics.median(ratio_mlr) if ratio_mlr else "-", statistics.median(ratio_bis)))
    print("")
    print("median of per-model ratios in the ratio columns; worst ours/bisection: %.2f (target <= 0.60)" % max(ratio_bis))
    if mlr_all:
        verdict = "fewer" if statistics.median(ours_all) < statistics.median(mlr_all) else "NOT fewer"
        print("median trial seconds: ours %.1f, MLRsearch %.1f: %s than MLRsearch" % (
            statistics.median(ours_all), statistics.median(mlr_all), verdict))
    extra = getattr(device_models, "EXTRA_MODELS", ())
    if extra:
        print("")
        print("outside the medians (loss depends on the trial duration, short trials are optimistic):")
        for cls in extra:
            ours = run_ours(cls())
            bis = run_bisection(cls())
            mlr_text = "-"
            if mlr is not None:
                try:
                    mlr_seconds, mlr_trials, mlr_good = mlr(cls())
                    mlr_text = "%.1f (%d) %s" % (mlr_seconds, mlr_trials, "within width" if mlr_good else "NOT within width")
                except Exception as error:  # pylint: disable=broad-except
                    mlr_text = "failed: %s" % error
            if not ours[2]:
                failures.append(cls.name)
            print("%-16s ours %.1f (%d) %s; MLRsearch %s; bisection %.1f (%d) %s" % (
                cls.name, ours[0], ours[1], "within width" if ours[2] else "NOT within width", mlr_text, bis[0], bis[1],
                "within width" if bis[2] else "NOT within width"))
    if failures:
        print("bounds NOT within the width for: " + ", ".join(failures))
        return 1
    print("every bound of ours is within the width of the true value")
    return 0


if __name__ == "__main__":
    sys.exit(main())
