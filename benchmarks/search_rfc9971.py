# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Trial seconds of the search with RFC 9971 goals against MLRsearch 1.2.1, side by side, per model family.

Run from the repository root:  .venv/bin/python benchmarks/search_rfc9971.py

Four goal sets, each of two goals (loss ratio 0 and 0.5 %), width 0.5 %,
1 s initial trials: exceed ratio 0 with one final trial per load, and exceed
ratio 0.5 with 21 s of trials per load (FD.io CSIT's setting), each with
final trials of 1 s and of 10 s. The devices are the model families of
benchmarks/search_efficiency.py (tests/support/device_models.py).

Per family and goal set it prints the median trial seconds of ours and of
MLRsearch and their ratio, the floor (benchmarks/search_floor.py: the fewest
trial seconds any search could spend on the device known in advance, for the
families whose loss depends on the load alone) and its ratio to MLRsearch,
then the median of the family medians and the median of the families'
ratios. Every
result of ours is checked by the RFC's own rules on its own trials
(plugin_utils/bench/rfc9971.py): its lower bound classifies as a lower
bound, its upper bound as an upper bound (or is max load), and no smaller
load as an upper bound; "not RFC" counts the results that fail that.
"<floor" counts the results that spent less than the floor: each one reported
a higher edge than the device's lowest (a dip of loss no trial met), which the
floor does not allow.
"""

from __future__ import absolute_import, division, print_function

import importlib.util
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_SPEC = importlib.util.spec_from_file_location("search_efficiency", os.path.join(HERE, "search_efficiency.py"))
efficiency = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(efficiency)

_FLOOR_SPEC = importlib.util.spec_from_file_location("search_floor", os.path.join(HERE, "search_floor.py"))
search_floor = importlib.util.module_from_spec(_FLOOR_SPEC)
_FLOOR_SPEC.loader.exec_module(search_floor)

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971  # noqa: E402
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search  # noqa: E402
from ansible_collections.offload.testbed.tests.support import device_models  # noqa: E402

WIDTH = 0.005
INITIAL = 1.0


def goal_sets():
    """(label, goals): exceed 0 and 0.5 (21 s per load), finals of 1 s and 10 s."""
    sets = []
    for exceed in (0.0, 0.5):
        for final in (1.0, 10.0):
            total = final if exceed == 0.0 else max(21.0, final)
            goals = [{"name": name, "loss_ratio": ratio, "exceed_ratio": exceed, "final_duration": final, "duration_sum": total,
                      "initial_duration": INITIAL, "width": WIDTH} for name, ratio in (("ndr", 0.0), ("pdr", 0.005))]
            sets.append(("exceed %g, final %g s, sum %g s" % (exceed, final, total), goals))
    return sets


def ours(goals):
    def run(model):
        result = search(model, device_models.MAX_LOAD, goals=goals, min_load=device_models.MIN_LOAD, final_duration=goals[0]["final_duration"],
                        width=WIDTH, initial_duration=INITIAL, max_trials=20000)
        return result["trial_seconds"], not rfc9971.nonconformities(result["goals"], result["trials"], goals, device_models.MAX_LOAD)
    return run


def table(label, goals, mlrsearch):
    """One goal set: per family the median trial seconds of ours and MLRsearch; returns (median of medians ours, MLRsearch)."""
    print("")
    print(label)
    columns = ("family", "n", "ours", "MLRsearch", "ours/MLR", "floor", "floor/MLR", "not RFC", "<floor")
    header = "%-15s %3s %11s %11s %9s %8s %9s %8s %7s" % columns
    print(header)
    print("-" * len(header))
    run = ours(goals)
    medians = {"ours": [], "mlr": [], "ratios": []}
    for family, members in efficiency.families():
        mine = [run(factory()) for _label, factory in members]
        theirs = [mlrsearch(factory())[0] for _label, factory in members]
        floors = [search_floor.floor_seconds(factory(), goals) for _label, factory in members]
        mine_median, their_median = statistics.median(entry[0] for entry in mine), statistics.median(theirs)
        inside = family not in efficiency.OUTSIDE_MEDIANS
        if inside:
            medians["ours"].append(mine_median)
            medians["mlr"].append(their_median)
            medians["ratios"].append(mine_median / their_median)
        off = sum(not entry[1] for entry in mine)
        under = sum(floor is not None and entry[0] < floor for entry, floor in zip(mine, floors))
        floor = "%8.1f %9.2f" % (statistics.median(floors), statistics.median(floors) / their_median) if None not in floors else "%8s %9s" % ("-", "-")
        if family.startswith("noisy"):
            estimate = search_floor.noisy_oracle(members[0][1], goals)[0]
            floor = "%8s %9.2f" % ("~%.1f" % estimate, estimate / their_median)
        note = "" if inside else "  (outside the medians)"
        print("%-15s %3d %11.1f %11.1f %9.2f %s %8d %7d%s" % (family, len(members), mine_median, their_median, mine_median / their_median, floor,
                                                              off, under, note))
    print("-" * len(header))
    overall = statistics.median(medians["ours"]), statistics.median(medians["mlr"]), statistics.median(medians["ratios"])
    print("%-19s %11.1f %11.1f %9.2f   (median of the families' ratios %.2f, worst %.2f)"
          % ("median of medians", overall[0], overall[1], overall[0] / overall[1], overall[2], max(medians["ratios"])))
    return overall


def main():
    summary = []
    for label, goals in goal_sets():
        mlrsearch, why = efficiency.mlrsearch_runner(goals)
        if mlrsearch is None:
            print("MLRsearch not compared: " + why)
            return 1
        summary.append((label, table(label, goals, mlrsearch)))
    print("")
    print("ours/MLRsearch at the median of the family medians: " + "; ".join("%s %.2f" % (label, mine / theirs) for label, (mine, theirs, _r) in summary))
    print("median of the families' ratios ours/MLRsearch: " + "; ".join("%s %.2f" % (label, ratios) for label, (_m, _t, ratios) in summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
