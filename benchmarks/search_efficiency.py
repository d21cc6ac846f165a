# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Trial seconds of the throughput search before and after its last change, against MLRsearch and a plain bisection.

Run from the repository root:  .venv/bin/python benchmarks/search_efficiency.py [--no-seeds]

Every search gets the same simulated devices (tests/support/device_models.py),
the three default goals (NDR, NDR at 1e-5, PDR at 0.5 %),
10 s final trials, 1 s initial trials and a width of 0.5 %.  The searches:

* before: our search as of commit BEFORE_COMMIT, read with ``git show`` into
  a temporary module (nothing of it is copied into the repository); left out,
  with the reason, when git or that commit is not at hand.
* after: today's search, under the contract (every bound confirmed by a
  final trial).  Its algorithm differs from before's by the pure propose
  alone (a goal's proposal changes the search only when its trial runs), so
  after/before is what that change makes.
* 1st-finals: today's search in a temporary module, changed to skip the
  probe: when the first trial (at max_load) missed a goal and forwarded
  something, a final trial half a width below its projection follows at
  once.  The variant was tried and left out of the search: it makes some
  families worse (see first_guess_finals_search).
* after*: today's search under MLRsearch's rule for upper bounds
  (``upper_bound_duration=1``: a 1 s trial that lost too much is one).
* MLRsearch: FD.io CSIT's implementation (PyPI ``MLRsearch``, see
  benchmarks/requirements.txt) with exceed_ratio 0 and duration_sum 10 s, the
  settings that mean what our contract means by a bound.  It counts a short
  lossy trial as an upper bound, which our contract does not allow, so it
  needs fewer 10 s trials by construction: compare it with after*, too.
* bisection: per goal, one 10 s trial at max_load, then halving [min, max]
  with one 10 s trial per step until the width is met.

It prints the seven fixed models, the noisy model over 100 seeds (unless
``--no-seeds``), then each model family over a grid of its parameters at the
median, with the medians of the family medians and the ratios between the
searches.  The families are the yardstick: a change must not make any family
worse at the median than before.
"""

from __future__ import absolute_import, division, print_function

import importlib.util
import os
import statistics
import subprocess
import sys
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
SEARCH_PATH = "plugins/plugin_utils/bench/search.py"
# The search before the pure propose and the full trial records.
BEFORE_COMMIT = "894c50b"


_COLLECTION_LINK.link_collection(ROOT)

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import DEFAULT_GOALS  # noqa: E402
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search  # noqa: E402
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import search_propose  # noqa: E402
from ansible_collections.offload.testbed.tests.support import device_models  # noqa: E402

FINAL = 10.0
INITIAL = 1.0
WIDTH = 0.005
# Loss that depends on the trial duration: MLRsearch and ours read short trials differently.
OUTSIDE_MEDIANS = ("token_bucket",)
YES = {True: "yes", False: "NO"}


def within(model, goal_ratio, lower, upper, width=WIDTH):
    """Whether both bounds are within the width (plus the model's noise) of the true value."""
    true = model.true_value(goal_ratio, device_models.MAX_LOAD, device_models.MIN_LOAD)
    if true == 0.0:
        return lower == 0.0
    tolerance = width + getattr(model, "noise", 0.0)
    return abs(lower - true) <= tolerance * true and abs(upper - true) <= tolerance * true


# -- the searches: each is a runner, model -> (trial seconds, trials, every bound within the width) --


def temporary_module(name, source):
    """A module made from ``source`` that lives only in this process (not in sys.modules, not on disk)."""
    module = types.ModuleType(name)
    exec(compile(source, "<%s>" % name, "exec"), module.__dict__)  # pylint: disable=exec-used
    return module


def before_search():
    """``search`` of the commit BEFORE_COMMIT, or None and the reason."""
    try:
        source = subprocess.check_output(["git", "-C", ROOT, "show", "%s:%s" % (BEFORE_COMMIT, SEARCH_PATH)], stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError) as error:
        return None, "git show %s:%s failed: %s" % (BEFORE_COMMIT, SEARCH_PATH, getattr(error, "output", error))
    return temporary_module("search_before", source.decode("utf-8")).search, None


def first_guess_finals_search():
    """Today's ``search`` with the first-guess finals, in a temporary module: the variant tried and left out.

    When the first trial (at max_load) missed a goal and forwarded something,
    it skips the short probe above the projection and confirms half a width
    below the projection with a final trial at once.  On a cliff that saves
    the probe (1 s); on a device whose loss grows with the load (gradual,
    collapse, loss at any load) the final trial misses far above the edge
    and costs 9 s more than the probe, and the probe's second measurement of
    the capacity is lost.
    """
    with open(os.path.join(ROOT, SEARCH_PATH)) as handle:
        module = temporary_module("search_first_guess_finals", handle.read())
    base = module._Search  # pylint: disable=protected-access

    class FirstGuessFinals(base):
        def propose_cliff(self, view):
            lossy_loads = set(trial["load"] for trial in self.trials if trial["loss_ratio"] > view.ratio)
            load = view.guess * (1.0 - view.width / 2.0)
            if len(lossy_loads) == 1 and not self.probed.get(view.name) and load < view.high and not self.has_final_at(load):
                return search_propose._proposal(load, view.final, "cliff", probed=True)  # pylint: disable=protected-access
            return base.propose_cliff(self, view)

    module._Search = FirstGuessFinals  # pylint: disable=protected-access
    return module.search


def ours_runner(function, upper_bound_duration=None):
    """A runner of one version of our search; ``upper_bound_duration=INITIAL`` is MLRsearch's rule."""
    def run(model):
        result = function(model, device_models.MAX_LOAD, min_load=device_models.MIN_LOAD, final_duration=FINAL, width=WIDTH,
                          initial_duration=INITIAL, upper_bound_duration=upper_bound_duration)
        good = all(within(model, goal["loss_ratio"], goal["lower_bound"], goal["upper_bound"]) for goal in result["goals"].values())
        return result["trial_seconds"], len(result["trials"]), good
    return run


def bisect_goal(model, ratio):
    """One final-duration trial per step; returns (seconds, trials, lower, upper)."""
    def missed(load):
        reply = model(load, FINAL)
        return (reply["offered"] - reply["received"]) / reply["offered"] > ratio

    max_load, min_load = device_models.MAX_LOAD, device_models.MIN_LOAD
    trials = 1
    if not missed(max_load):
        return FINAL * trials, trials, max_load, max_load
    low, high, low_seen = min_load, max_load, False
    while (high - low) / high > WIDTH:
        middle = (low + high) / 2.0
        trials += 1
        if missed(middle):
            high = middle
        else:
            low, low_seen = middle, True
    if not low_seen:
        trials += 1
        if missed(min_load):
            return FINAL * trials, trials, 0.0, min_load
    return FINAL * trials, trials, low, high


def run_bisection(model):
    seconds, trials, good = 0.0, 0, True
    for goal in DEFAULT_GOALS:
        goal_seconds, goal_trials, lower, upper = bisect_goal(model, goal["loss_ratio"])
        seconds += goal_seconds
        trials += goal_trials
        good = good and within(model, goal["loss_ratio"], lower, upper)
    return seconds, trials, good


def default_goal_specs():
    """The default goals with RFC 9971's attributes as this table runs them: exceed ratio 0, one final trial per load."""
    return [dict(goal, exceed_ratio=0.0, final_duration=FINAL, duration_sum=FINAL, initial_duration=INITIAL, width=WIDTH)
            for goal in DEFAULT_GOALS]


def mlrsearch_runner(goals=None):
    """A runner of MLRsearch for ``goals`` (with RFC 9971's attributes; default_goal_specs()), or None and the reason it cannot run."""
    goals = goals or default_goal_specs()
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
        config.goals = [SearchGoal(loss_ratio=goal["loss_ratio"], exceed_ratio=goal["exceed_ratio"], relative_width=goal["width"],
                                   initial_trial_duration=goal["initial_duration"], final_trial_duration=goal["final_duration"],
                                   duration_sum=goal["duration_sum"], preceding_targets=2, expansion_coefficient=2, fail_fast=False)
                        for goal in goals]
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


def runners():
    """The searches to compare, in column order, and the notes on those left out."""
    found, notes = [("after", ours_runner(search))], []
    before, why = before_search()
    if before is None:
        notes.append("before not compared: " + why)
    else:
        found.insert(0, ("before", ours_runner(before)))
        found.append(("before*", ours_runner(before, upper_bound_duration=INITIAL)))
    found += [("after*", ours_runner(search, upper_bound_duration=INITIAL)), ("1st-finals", ours_runner(first_guess_finals_search()))]
    mlr, why = mlrsearch_runner()
    if mlr is None:
        notes.append("MLRsearch not compared: " + why)
    else:
        found.append(("MLRsearch", mlr))
    return found, notes


# The ratios printed, numerator / denominator, when both searches ran: after/before is what the pure propose alone changes.
RATIOS = (("after", "before"), ("after*", "before*"), ("1st-finals", "before"), ("before", "MLRsearch"), ("after", "MLRsearch"),
          ("after*", "MLRsearch"))
SHORT = {"before": "bef", "before*": "bef*", "1st-finals": "1st", "MLRsearch": "MLR"}
# Pairs (after, before) whose family medians must not grow.
NOT_WORSE = (("after", "before"), ("after*", "before*"))


def _ratios(values):
    """The RATIOS between the entries of ``values`` (name -> seconds), each printed in 12 characters, '-' when one is missing."""
    return "".join("%12s" % ("%.2f" % (values[top] / values[bottom]) if top in values and bottom in values and values[bottom] else "-")
                   for top, bottom in RATIOS)


def _ratio_header():
    return "".join("%12s" % ("%s/%s" % (SHORT.get(top, top), SHORT.get(bottom, bottom))) for top, bottom in RATIOS)


def _print_header(header):
    print(header)
    print("-" * len(header))
    return header


# -- the tables -------------------------------------------------------------


def fixed_models(searches):
    """One line per model of device_models.MODELS, then the medians; returns the models whose 'after' bounds are off."""
    names = [name for name, _run in searches] + ["bisection"]
    header = _print_header("%-15s" % "model" + "".join("%12s" % name for name in names) + _ratio_header() + "  within width")
    columns = dict((name, []) for name in names)
    failures = []
    for cls in device_models.MODELS:
        runs = dict((name, run(cls())) for name, run in searches)
        runs["bisection"] = run_bisection(cls())
        for name in names:
            columns[name].append(runs[name][0])
        if not runs["after"][2]:
            failures.append(cls.name)
        print("%-15s" % cls.name + "".join("%12s" % ("%.1f (%d)" % runs[name][:2]) for name in names)
              + _ratios(dict((name, runs[name][0]) for name in names)) + "  " + "/".join(YES[runs[name][2]] for name in names))
    print("-" * len(header))
    medians = dict((name, statistics.median(values)) for name, values in columns.items())
    print("%-15s" % "median" + "".join("%12.1f" % medians[name] for name in names) + _ratios(medians))
    print("(seconds (trials); within width: %s)" % "/".join(names))
    print("worst after/bisection: %.2f (target <= 0.60)" % max(a / b for a, b in zip(columns["after"], columns["bisection"])))
    return failures


def extra_models(searches):
    """The models outside the medians (loss that depends on the trial duration)."""
    print("")
    print("outside the medians (loss depends on the trial duration, short trials are optimistic):")
    for cls in getattr(device_models, "EXTRA_MODELS", ()):
        runs = [(name, run(cls())) for name, run in searches] + [("bisection", run_bisection(cls()))]
        print("%-15s %s" % (cls.name, "; ".join(
            "%s %.1f (%d)%s" % (name, entry[0], entry[1], "" if entry[2] else " NOT within width") for name, entry in runs)))


def families():
    """Each model family over a grid of its parameters: (name, [(label, factory), ...]).

    Capacities are log-spaced from 1.1 to 9.7 Mpps; the noisy families take
    five and thirty seeds.  The grid is the same for every search.
    """
    capacities = [1100000.0 * 1.37 ** step for step in range(8)]
    return [
        ("clean_cliff", [("%.2f Mpps" % (cap / 1e6), lambda cap=cap: device_models.CleanCliff(cap)) for cap in capacities]),
        ("gradual", [("knee %.2f Mpps" % (cap / 1e6), lambda cap=cap: device_models.GradualLoss(knee=cap)) for cap in capacities]
         + [("lost share %.1f" % share, lambda share=share: device_models.GradualLoss(lost_share=share)) for share in (0.1, 0.2, 0.9)]),
        ("soft_knee", [("knee %.2f Mpps" % (cap / 1e6), lambda cap=cap: device_models.SoftKnee(knee=cap)) for cap in capacities[:6]]
         + [("factor %d" % factor, lambda factor=factor: device_models.SoftKnee(factor=factor)) for factor in (1, 3, 20)]),
        ("noisy", [("%.2f Mpps seed %d" % (cap / 1e6, seed), lambda cap=cap, seed=seed: device_models.NoisyCliff(capacity=cap, seed=seed))
                   for cap in capacities for seed in range(5)]),
        ("noisy_0.4%", [("seed %d" % seed, lambda seed=seed: device_models.NoisyCliff(spread=0.004, seed=seed)) for seed in range(30)]),
        ("dip_and_return", [("%.0f Mpps" % (cap / 1e6), lambda cap=cap: device_models.DipAndReturn(capacity=cap))
                            for cap in (3e6, 4e6, 5e6, 6e6, 7e6, 8e6, 9e6, 10e6)]
         + [("band %.2f-%.2f" % band, lambda band=band: device_models.DipAndReturn(band=band)) for band in ((0.5, 0.6), (0.7, 0.9), (0.9, 0.95))]),
        ("token_bucket", [("%.0f Mpps bucket %.1f M" % (rate / 1e6, bucket / 1e6),
                           lambda rate=rate, bucket=bucket: device_models.TokenBucket(rate=rate, bucket=bucket))
                          for rate in (2e6, 4e6, 8e6) for bucket in (1e5, 5e5, 1e6)]),
        ("always_loses", [("%g loss" % loss, lambda loss=loss: device_models.AlwaysLoses(loss)) for loss in (0.001, 0.02, 0.3)]),
    ]


def family_table(searches):
    """Per family, the median trial seconds of every search and their ratios; returns (worse families, off-width instances)."""
    names = [name for name, _run in searches]
    print("")
    print("model families over their parameters (the same grid for every search), median trial seconds:")
    header = _print_header("%-15s %3s" % ("family", "n") + "".join("%11s" % name for name in names) + _ratio_header()
                           + "  %-8s %s" % ("worse", "off width"))
    family_medians = dict((name, []) for name in names)
    worse, off_width = [], []
    for family, members in families():
        runs = dict((name, [run(factory()) for _label, factory in members]) for name, run in searches)
        medians = dict((name, statistics.median(entry[0] for entry in runs[name])) for name in names)
        inside = family not in OUTSIDE_MEDIANS
        if inside:
            for name in names:
                family_medians[name].append(medians[name])
        worse += ["%s (%s)" % (family, after) for after, before in NOT_WORSE if before in medians and medians[after] > medians[before]]
        off_width += ["%s (%s)" % (family, label) for (label, _factory), entry in zip(members, runs["after"]) if not entry[2]]
        more = "/".join("%d" % sum(a[0] > b[0] for a, b in zip(runs[after], runs[before])) for after, before in NOT_WORSE if before in runs) or "-"
        print("%-15s %3d" % (family, len(members)) + "".join("%11.1f" % medians[name] for name in names) + _ratios(medians)
              + "  %-8s %s" % (more, "/".join(str(sum(not entry[2] for entry in runs[name])) for name in names))
              + ("" if inside else "  (outside the medians)"))
    print("-" * len(header))
    overall = dict((name, statistics.median(values)) for name, values in family_medians.items())
    print("%-19s" % "median of medians" + "".join("%11.2f" % overall[name] for name in names) + _ratios(overall))
    print("(worse: instances of the family where after took more trial seconds than before, and after* than before*;"
          " off width: instances per search, %s)" % "/".join(names))
    return worse, off_width


def seeds(searches, count=100):
    """The noisy model of the fixed table over other seeds: how typical its draw (seed 2024) is."""
    print("")
    print("the noisy model over seeds 1..%d (the table's is 2024), trial seconds mean / median: %s" % (count, "; ".join(
        "%s %.1f / %.1f" % (name, statistics.mean(values), statistics.median(values)) for name, values in (
            (name, [run(device_models.NoisyCliff(seed=seed))[0] for seed in range(1, count + 1)]) for name, run in searches))))


def main():
    searches, notes = runners()
    for note in notes:
        print(note)
    print("before: the search of commit %s; after: today's (after/before: the pure propose alone); *: under MLRsearch's rule for"
          " upper bounds (upper_bound_duration=%g); 1st-finals: today's skipping the probe for a final trial below the first guess"
          " (tried, left out)" % (BEFORE_COMMIT, INITIAL))
    print("")
    failures = fixed_models(searches)
    extra_models(searches)
    if "--no-seeds" not in sys.argv[1:]:
        seeds(searches)
    worse, off_width = family_table(searches)
    print("")
    if off_width:
        print("after not within the width of the lowest edge (a dip of loss that no trial met; the bound is at the higher edge) for: "
              + ", ".join(off_width))
    if "before" in dict(searches):
        print("families whose median after is above before's (or after*'s above before*'s): %s" % (", ".join(worse) if worse else "none"))
    if failures:
        print("bounds of after NOT within the width for: " + ", ".join(failures))
        return 1
    print("every bound of after is within the width of the true value on the seven models")
    return 0


if __name__ == "__main__":
    sys.exit(main())
