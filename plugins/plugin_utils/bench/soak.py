# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The soak trial of ``trex_bench``: one long trial at a goal's conditional
throughput (RFC 9971), as FD.io CSIT's soak tests check that a bound found
with short trials holds for minutes.

Pure functions over the searches' results and the generator's reply; the
trial itself runs in ``run.BenchRun.run_soak``. The generator reads its
counters every ``soak_interval`` seconds while the traffic runs
(``Generator.soak_trial``: running totals ``{"t", "offered", "received"}``);
here they become intervals, each with its own loss ratio, the last one
closed by the trial's final counts. A frame in flight at a reading counts in
the interval it arrives in, so one interval's ratio can be a little off
(more frames back than sent: ``excess``; an interval with nothing sent, only late frames, has a loss ratio of 1); the whole trial's is exact.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import statistics

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import loss_of


def soak_goal(goals, name=None):
    """The goal the soak runs at: ``name``, else the goal with the largest loss ratio (the PDR; the first of equals)."""
    if name is not None:
        return next(goal for goal in goals if goal["name"] == name)
    return max(goals, key=lambda goal: goal["loss_ratio"])


def soak_load(entries, goal_name):
    """The median over the repeats of the goal's conditional throughput (its lower bound where a result has none), frames/s."""
    values = []
    for entry in entries:
        result = entry["result"]["goals"][goal_name]
        value = result.get("conditional_throughput")
        values.append(result["lower_bound"] if value is None else value)
    return statistics.median(values) if values else 0.0


def intervals(samples, duration, offered, received):
    """The soak's intervals from the running totals read during the trial and its final counts."""
    points = [{"t": 0.0, "offered": 0, "received": 0}] + [sample for sample in samples if 0.0 < sample["t"] < duration]
    points.append({"t": float(duration), "offered": offered, "received": received})
    result = []
    for start, end in zip(points, points[1:]):
        sent, back = end["offered"] - start["offered"], end["received"] - start["received"]
        loss_ratio, excess = loss_of(sent, back)
        item = {"start": round(start["t"], 3), "end": round(end["t"], 3), "offered": sent, "received": back, "loss_ratio": loss_ratio}
        if excess:
            item["excess"] = excess
        result.append(item)
    return result


def soak_record(goal, load, settings, reply, time_text):
    """The soak entry of the results document: where it ran, what came back, loss over time, and whether the
    whole trial stayed within the goal's loss ratio (``holds``). ``settings`` has ``duration`` and ``interval``."""
    loss_ratio, excess = loss_of(reply["offered"], reply["received"])
    parts = intervals(reply.get("samples") or [], settings["duration"], reply["offered"], reply["received"])
    record = {"goal": goal["name"], "goal_loss_ratio": goal["loss_ratio"], "load": load, "duration": settings["duration"],
              "interval": settings["interval"], "time": time_text, "offered": reply["offered"], "received": reply["received"],
              "loss_ratio": loss_ratio, "holds": loss_ratio <= goal["loss_ratio"], "worst_interval_loss_ratio": max(
                  item["loss_ratio"] for item in parts), "intervals": parts, "skipped": None}
    if excess:
        record["excess"] = excess
    return record


def skipped(goal_name, load, reason):
    """The soak entry of a soak that did not run, and why."""
    return {"goal": goal_name, "load": load, "skipped": reason}
