# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Trends over the results database: each series of a bench's bounds over its runs, grouped by jumpavg.

A series is one DUT host and datapath label (the bench), one scenario, protocol, frame size, flow count and encapsulation
(the traffic) and one goal, over the runs in the order they were created; its value per run is the goal's conditional
throughput (else its lower bound), every repeat of the run one value. FD.io CSIT's ``jumpavg`` (minimum description
length) splits the series into stretches of one normal distribution each; a stretch whose average is below the one before
is a regression, above it a progression (jumpavg's own words), and each change is given as a fraction of the stretch
before and in units of the larger of the two stretches' standard deviations (the spread of the runs around them).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import traceback

try:
    import jumpavg
    HAS_JUMPAVG, JUMPAVG_ERROR = True, None
except ImportError:  # told by the module when asked for a trend
    jumpavg, HAS_JUMPAVG, JUMPAVG_ERROR = None, False, traceback.format_exc()

from ansible_collections.offload.testbed.plugins.module_utils.bench import fingerprint, results_db

KEY = ("family", "dut_host", "datapath", "scenario", "protocol", "frame_size", "flows", "encapsulation", "goal")


def fingerprint_column(database):
    """The runs' recorded fingerprints, or nulls from a database written before they were (computed from the rest)."""
    runs = database.tables["runs"]
    return runs.c.bench_fingerprint if "bench_fingerprint" not in database.missing else results_db.sa.null().label("bench_fingerprint")


def points(database):
    """Every goal of every search, one dict per (run, search, goal), in the order of the runs' creation."""
    sa, tables = results_db.sa, database.tables
    runs, searches, goals = tables["runs"], tables["searches"], tables["goals"]
    query = (sa.select(runs.c.run, runs.c.run_id, runs.c.created, runs.c.datapath, runs.c.conditions, runs.c.generator,
                       fingerprint_column(database), searches.c.scenario,
                       searches.c.protocol, searches.c.frame_size, searches.c.flows, searches.c.encapsulation, goals.c.goal,
                       goals.c.conditional_throughput, goals.c.lower_bound)
             .select_from(runs.join(searches, searches.c.run == runs.c.run)
                          .join(goals, sa.and_(goals.c.run == searches.c.run, goals.c.search == searches.c.search)))
             .order_by(runs.c.created, runs.c.run, searches.c.search))
    with database.engine.connect() as connection:
        found = [dict(row._mapping) for row in connection.execute(query)]
    benches = {}  # run -> (fingerprint, family): once per run, not per goal
    for point in found:
        conditions = point.pop("conditions") or {}
        point["dut_host"] = conditions.get("dut_host") or conditions.get("inventory_hostname")
        recorded, generator = point.pop("bench_fingerprint"), point.pop("generator")
        if point["run"] not in benches:
            bench = fingerprint.of_columns(recorded, conditions, generator, point["datapath"])
            benches[point["run"]] = (bench, fingerprint.family(bench)[1])
        point["fingerprint"], point["family"] = benches[point["run"]]
        point["value"] = point["conditional_throughput"] if point["conditional_throughput"] is not None else point["lower_bound"]
    return [point for point in found if point["value"] is not None]


def series_of(found):
    """The points grouped into series (``KEY``: one fingerprint family), each a list of runs in order with their values
    (one per repeat) and fingerprints."""
    series = {}
    for point in found:
        runs = series.setdefault(tuple(point[name] for name in KEY), [])
        if not runs or runs[-1]["run"] != point["run"]:
            runs.append({"run": point["run"], "run_id": point["run_id"], "created": point["created"], "values": [],
                         "fingerprint": point["fingerprint"]})
        runs[-1]["values"].append(point["value"])
    return [dict(zip(KEY, key), runs=runs) for key, runs in series.items()]


def stretches(runs):
    """jumpavg's groups of the runs: where each starts and ends (run indexes), its average, deviation and kind."""
    groups, start = [], 0
    for group in jumpavg.classify([run["values"] if len(run["values"]) > 1 else run["values"][0] for run in runs]):
        end = start + len(group.run_list) - 1
        groups.append({"first": start, "last": end, "first_run_id": runs[start]["run_id"], "runs": len(group.run_list),
                       "avg": group.stats.avg, "stdev": group.stats.stdev, "kind": group.comment})
        start = end + 1
    return groups


def changes(runs, groups):
    """Each stretch that differs from the one before: the run it starts at, regression or progression, and its size."""
    found = []
    for before, after in zip(groups, groups[1:]):
        delta = after["avg"] - before["avg"]
        spread = max(before["stdev"], after["stdev"])
        found.append({"run": runs[after["first"]]["run"], "run_id": after["first_run_id"], "created": runs[after["first"]]["created"],
                      "at": after["first"], "kind": "regression" if delta < 0 else "progression", "before": before["avg"],
                      "after": after["avg"], "change": delta / before["avg"] if before["avg"] else None,
                      "spreads": abs(delta) / spread if spread else None,
                      "with": [field for field, _before, _after in fingerprint.differences(
                          runs[after["first"] - 1]["fingerprint"], runs[after["first"]]["fingerprint"])]})
    return found


def trends(database):
    """Every series with its runs, stretches and changes."""
    found = []
    for series in series_of(points(database)):
        groups = stretches(series["runs"])
        found.append(dict(series, stretches=groups, changes=changes(series["runs"], groups)))
    return found


def series_name(series):
    """``lab-dut netdev (bench 3f2a9c1e): routing udp 64 B 100 flows, pdr``: the bench is the fingerprint family."""
    return "%s %s (bench %s): %s %s %s B %s flows%s, %s" % (
        series["dut_host"], series["datapath"], series["family"], series["scenario"], series["protocol"], series["frame_size"], series["flows"],
        " in %s" % series["encapsulation"] if series["encapsulation"] else "", series["goal"])


def change_line(series, change):
    """One line for a change, as ``make history`` prints it, with the fingerprint fields that changed with it."""
    return "%s: %s at run %s (%s), %.1f -> %.1f (%+.1f %%%s)%s" % (
        series_name(series), change["kind"], change["run_id"], change["created"], change["before"], change["after"],
        100.0 * (change["change"] or 0.0), ", %.1f times the spread" % change["spreads"] if change["spreads"] is not None else ", no spread measured",
        "; the bench changed with it: %s" % ", ".join(change["with"]) if change.get("with") else "")


def steady_line(series):
    """One line for a series without a change."""
    return "%s: %d runs, no change (%.1f)" % (series_name(series), len(series["runs"]), series["stretches"][0]["avg"])
