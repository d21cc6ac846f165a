# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark report from ``trex_bench`` result files: tables as data, Markdown and HTML text.

Pure functions; the ``bench_report`` module reads the files, draws the PNG
plots with matplotlib and writes what these functions return.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html
import json

from ansible_collections.offload.testbed.plugins.module_utils import bench_stats as stats
from ansible_collections.offload.testbed.plugins.module_utils.bench_schema import READABLE_SCHEMA_VERSIONS

ADVICE = "run with bench_repeat >= %d to know" % stats.ADVISED_REPEATS


def compare_error(labels, name="compare"):
    """``None`` when ``labels`` is two different datapath labels ``[A, B]`` (or unset), else the message."""
    if labels is None:
        return None
    if len(labels) != 2:
        return ("%s: give two datapath labels [A, B] (datapaths or compare.yml variant names; the table shows A / B), got %s"
                % (name, labels))
    if labels[0] == labels[1]:
        return ("%s: %r is compared with itself (its speedup over itself is 1); give two different labels [A, B], "
                "for example [doca, kernel] or [netdev-emc, netdev-noemc]" % (name, labels[0]))
    return None


def readable(document):
    """Whether this collection reads the document's schema version (1: one search per profile; 2: with repeats)."""
    return document.get("schema_version") in READABLE_SCHEMA_VERSIONS


def planned_repeats(document):
    """``search.repeat`` of the document: the repeats asked per profile (1 in schema version 1)."""
    return int((document.get("search") or {}).get("repeat") or 1)


def searches_by_profile(document, complete=True):
    """The searches of a document grouped by profile, each group in repeat order (``repeat`` absent: 0).

    ``complete``: only the complete searches with a result (empty groups are left out).
    """
    groups, order = {}, []
    for search in document.get("searches", []):
        if complete and (search.get("status") != "complete" or not search.get("result")):
            continue
        key = json.dumps(search["profile"], sort_keys=True)
        if key not in groups:
            order.append(key)
            groups[key] = []
        groups[key].append(search)
    return [sorted(groups[key], key=lambda search: search.get("repeat", 0)) for key in order]


def _goal_row(document, repeats, name):
    goals = [search["result"]["goals"][name] for search in repeats if name in search["result"]["goals"]]
    summary = stats.summarize_bounds([goal["lower_bound"] for goal in goals], goals[0]["loss_ratio"],
                                     [bool(goal["generator_limited"]) for goal in goals])
    profile = repeats[0]["profile"]
    return {
        "run_id": document["run_id"], "datapath": document["datapath"], "scenario": profile["scenario"],
        "protocol": profile["protocol"], "frame_size": profile["frame_size"], "direction": profile["direction"],
        "goal": name, "loss_ratio": goals[0]["loss_ratio"], "lower_bound": summary["median"],
        "upper_bound": stats.median([goal["upper_bound"] for goal in goals]), "generator_limited": summary["generator_limited"],
        "repeats": summary["repeats"], "repeats_planned": max(planned_repeats(document), summary["repeats"]), "summary": summary,
    }


def rows_of(documents):
    """One row per (run, profile, goal) over the complete searches of every readable document.

    ``{"run_id", "datapath", "scenario", "protocol", "frame_size", "direction", "goal", "loss_ratio",
    "lower_bound", "upper_bound", "generator_limited", "repeats", "repeats_planned", "summary"}``:
    ``lower_bound`` is the median of the repeats' lower bounds, ``upper_bound`` the median of their
    upper bounds, ``generator_limited`` true when any repeat's is, ``summary`` what
    ``bench_stats.summarize_bounds`` returns for the complete repeats (recomputed from the searches,
    so a run still in progress shows the repeats done so far; with one repeat the bounds are the
    search's own, as in schema version 1).
    """
    rows = []
    for document in documents:
        if not readable(document):
            continue
        for repeats in searches_by_profile(document):
            names = sorted({name for search in repeats for name in search["result"]["goals"]})
            rows += [_goal_row(document, repeats, name) for name in names]
    return sorted(rows, key=lambda row: (row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["loss_ratio"], row["run_id"]))


def latency_rows_of(documents):
    """One row per latency trial of the complete searches (the last run per datapath x scenario x protocol x frame size).

    With repeats, the trials of the first repeat that measured latency (repeat 0 unless its latency was skipped):
    each repeat has a PDR of its own, and loads at fractions of different PDRs do not belong in one table.
    """
    chosen = {}
    for document in sorted(documents, key=lambda document: document.get("run_id", "")):
        if not readable(document):
            continue
        for repeats in searches_by_profile(document):
            measured = [search for search in repeats if (search.get("latency") or {}).get("points")]
            if not measured:
                continue
            profile, latency = measured[0]["profile"], measured[0]["latency"]
            key = (document["datapath"], profile["scenario"], profile["protocol"], profile["frame_size"])
            chosen[key] = [dict(point, run_id=document["run_id"], reference_goal=latency.get("reference_goal"),
                                repeat=measured[0].get("repeat", 0)) for point in latency["points"]]
    return sorted(chosen.items())


def _us(value):
    return "-" if value is None else "%.0f" % value


def latency_table(latency_rows):
    """Header and lines: per latency trial, the load and min/avg/max/99th percentile in microseconds."""
    header = ["datapath", "scenario", "protocol", "frame", "load", "min us", "avg us", "max us", "99% <= us", "latency frames back"]
    lines = []
    for (datapath, scenario, protocol, frame_size), points in latency_rows:
        for point in sorted(points, key=lambda point: point["fraction"]):
            lines.append([datapath, scenario, protocol, "%d B" % frame_size,
                          "%s (%.0f%% of %s)" % (_pps(point["load"]), point["fraction"] * 100, point.get("reference_goal") or "-"),
                          _us(point["min_us"]), _us(point["avg_us"]), _us(point["max_us"]), _us((point.get("percentiles_us") or {}).get("99")),
                          "%s / %s" % tuple("-" if point.get(key) is None else point[key] for key in ("latency_received", "latency_sent"))])
    return header, lines


def latest(rows):
    """The last run's row per (datapath, scenario, protocol, frame size, goal): run ids sort by time when they end in one."""
    chosen = {}
    for row in sorted(rows, key=lambda row: row["run_id"]):
        chosen[(row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["goal"])] = row
    return chosen


def _missing_note(left, right, datapath_a, datapath_b):
    """Why a pair has no ratio, or "" when it has one."""
    if left is None or right is None:
        return "not measured on %s" % (datapath_a if left is None else datapath_b)
    for name, row in ((datapath_a, left), (datapath_b, right)):
        if row["lower_bound"] <= 0.0:
            return "%s misses the goal at the lowest load%s" % (name, " (median of %d repeats)" % row["repeats"] if row["repeats"] > 1 else "")
    return ""


def _limited_note(left, right, datapath_a, datapath_b):
    limited = [name for name, row in ((datapath_a, left), (datapath_b, right)) if row["generator_limited"]]
    if not limited:
        return ""
    if limited == [datapath_a]:
        return "generator-limited on %s: the speedup is at least this" % datapath_a
    return "generator-limited on %s" % ", ".join(limited)


def _unfinished_note(left, right, datapath_a, datapath_b):
    return "; ".join("%d of %d repeats of %s done" % (row["repeats"], row["repeats_planned"], name)
                     for name, row in ((datapath_a, left), (datapath_b, right)) if row["repeats"] < row["repeats_planned"])


def speedup_entry(left, right, datapath_a, datapath_b):
    """One line of the speedup table from the rows of A and B (either None when not measured).

    ``{"a", "b"}``: the median lower bounds; ``speedup``: median(A) / median(B), None with a ``note`` saying why;
    ``low``, ``high``, ``repeats_a``, ``repeats_b``, ``chance``: ``bench_stats.ratio_interval`` of the repeats'
    lower bounds; ``verdict``: ``bench_stats.verdict`` in words; ``note``: the verdict and, if any, the generator limit
    and the repeats still to run.
    """
    entry = {"a": left["lower_bound"] if left else None, "b": right["lower_bound"] if right else None, "speedup": None,
             "low": None, "high": None, "repeats_a": left["repeats"] if left else 0, "repeats_b": right["repeats"] if right else 0,
             "chance": None, "verdict": "", "note": _missing_note(left, right, datapath_a, datapath_b)}
    if entry["note"]:
        return entry
    interval = stats.ratio_interval(left["summary"]["lower_bounds"], right["summary"]["lower_bounds"])
    entry.update({"speedup": interval["ratio"], "low": interval["low"], "high": interval["high"], "chance": interval["chance"],
                  "verdict": stats.verdict(interval, datapath_a, datapath_b)})
    notes = (entry["verdict"], _limited_note(left, right, datapath_a, datapath_b), _unfinished_note(left, right, datapath_a, datapath_b))
    entry["note"] = "; ".join(note for note in notes if note)
    return entry


def speedups(rows, datapath_a, datapath_b, goal="pdr"):
    """The ConnectX-6 Lx reference bench's table: per scenario x protocol x frame size, ``a / b`` of the goal's lower bounds (their medians over the repeats).

    Rows where either side is missing or zero carry ``speedup`` None and a
    ``note``; the others carry the interval and verdict of ``speedup_entry``.
    """
    table = latest(rows)
    keys = sorted({(key[1], key[2], key[3]) for key in table if key[4] == goal and key[0] in (datapath_a, datapath_b)})
    result = []
    for scenario, protocol, frame_size in keys:
        entry = {"scenario": scenario, "protocol": protocol, "frame_size": frame_size}
        entry.update(speedup_entry(table.get((datapath_a, scenario, protocol, frame_size, goal)),
                                   table.get((datapath_b, scenario, protocol, frame_size, goal)), datapath_a, datapath_b))
        result.append(entry)
    return result


def _pps(value):
    if value is None:
        return "-"
    if value >= 1e6:
        return "%.2f Mpps" % (value / 1e6)
    if value >= 1e3:
        return "%.1f kpps" % (value / 1e3)
    return "%.0f pps" % value


def _percent(value):
    return "-" if value is None else "%.1f%%" % (100.0 * value)


def _repeats_cell(row):
    if row["repeats"] < row["repeats_planned"]:
        return "%d of %d" % (row["repeats"], row["repeats_planned"])
    return "%d" % row["repeats"]


def _limited_cell(row):
    summary = row["summary"]
    if not summary["generator_limited"]:
        return ""
    if summary["repeats"] > 1 and summary["generator_limited_repeats"] < summary["repeats"]:
        return "generator-limited in %d of %d repeats" % (summary["generator_limited_repeats"], summary["repeats"])
    return "generator-limited"


def repeated(rows):
    """Whether any row asked for, or has, more than one repeat."""
    return any(row["repeats"] > 1 or row["repeats_planned"] > 1 for row in rows)


def results_table(rows):
    """Header and lines of the bounds table (one line per datapath x scenario x protocol x frame size x goal).

    With one repeat everywhere the table of schema version 1 (lower and upper bound of the one search);
    with repeats the median lower bound, its min to max, spread, riqr, the repeats and the median upper bound.
    """
    order = sorted(latest(rows).values(), key=lambda row: (row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["loss_ratio"]))
    if not repeated(order):
        header = ["datapath", "scenario", "protocol", "frame", "goal", "loss ratio", "lower bound", "upper bound", "note"]
        return header, [[row["datapath"], row["scenario"], row["protocol"], "%d B" % row["frame_size"], row["goal"], "%g" % row["loss_ratio"],
                         _pps(row["lower_bound"]), _pps(row["upper_bound"]), _limited_cell(row)] for row in order]
    header = ["datapath", "scenario", "protocol", "frame", "goal", "loss ratio", "lower bound (median)", "min to max", "spread", "riqr", "repeats",
              "upper bound (median)", "note"]
    lines = []
    for row in order:
        summary = row["summary"]
        several = summary["repeats"] > 1
        lines.append([row["datapath"], row["scenario"], row["protocol"], "%d B" % row["frame_size"], row["goal"], "%g" % row["loss_ratio"],
                      _pps(row["lower_bound"]), "%s to %s" % (_pps(summary["min"]), _pps(summary["max"])) if several else "-",
                      _percent(summary["spread"]) if several else "-", _percent(summary["riqr"]), _repeats_cell(row),
                      _pps(row["upper_bound"]), _limited_cell(row)])
    return header, lines


def results_notes(rows):
    """Paragraphs under the bounds table: how to read it (the latest runs', as in the table)."""
    if not rows:
        return []
    if not repeated(latest(rows).values()):
        return ["Every bound rests on one search (one repeat): no spread was measured (the virtual lab's bounds move by up to "
                "55 %% between runs); %s how far they move here." % ADVICE]
    return ["Each repeat is a whole search of its own. Lower bound (median): the median of the repeats' lower bounds; min to max: "
            "their range; spread: (max - min) / median; riqr: the relative interquartile range (Q3 - Q1) / median, with 4 repeats or "
            "more, the quartiles interpolated linearly between the sorted bounds (Hyndman and Fan's type 7, numpy's default); "
            "upper bound (median): the median of the repeats' upper bounds. A spread of 20 % says that the repeats' bounds lay in a "
            "range 20 % of the median wide: a difference between two rows smaller than their spreads is not shown by them. "
            "Repeats \"3 of 5\": 3 of the 5 repeats asked for are done (the run has not finished)."]


def speedup_table(entries, datapath_a, datapath_b):
    """Header and lines of the speedup table: medians of A and B, A / B with its interval from the repeats, the verdict as note."""
    header = ["scenario", "protocol", "frame", datapath_a, datapath_b, "%s / %s" % (datapath_a, datapath_b), "note"]
    lines = []
    for entry in entries:
        if entry["speedup"] is None:
            ratio = "-"
        elif entry.get("low") is None:
            ratio = "%.1fx" % entry["speedup"]
        else:
            ratio = "%s (%s)" % (stats.format_ratio(entry["speedup"]), stats.interval_text(entry))
        lines.append([entry["scenario"], entry["protocol"], "%d B" % entry["frame_size"], _pps(entry["a"]), _pps(entry["b"]), ratio, entry["note"]])
    return header, lines


def speedup_notes(entries, datapath_a, datapath_b):
    """Paragraphs under the speedup table: what the ratio and its interval are, and what they show."""
    if not entries:
        return []
    notes = ["%s / %s: the median of %s's lower bounds over the median of %s's, over the repeats of the latest run of each."
             % (datapath_a, datapath_b, datapath_a, datapath_b)]
    if any(entry.get("low") is not None for entry in entries):
        notes.append("In brackets, the interval from the repeats: the lowest and the highest ratio any two repeats give, min(%s) / max(%s) "
                     "to max(%s) / min(%s) (\"at least\" when a bound of %s is 0). It leaves out 1 exactly when the ranges of the two "
                     "variants' bounds do not overlap: the difference is then larger than the spread of the repeats. Two variants that do "
                     "not differ give ranges that far apart by chance 2 a! b! / (a + b)! of the time with a and b repeats: 10 %% with 3 "
                     "each, 2.9 %% with 4, 0.8 %% with 5, if the repeats are independent; a drift between the runs of %s and those of %s "
                     "(one runs after the other) is not part of that chance."
                     % (datapath_a, datapath_b, datapath_a, datapath_b, datapath_b, datapath_a, datapath_b))
    if any(entry["speedup"] is not None and entry.get("low") is None for entry in entries):
        notes.append("A ratio without an interval rests on one search of each side: no spread was measured; %s whether the difference "
                     "is larger than the spread." % ADVICE)
    return notes


def _table_parts(table):
    """``(heading, header, lines)`` or ``(heading, header, lines, paragraphs)`` -> the four."""
    heading, header, lines = table[:3]
    return heading, header, lines, list(table[3]) if len(table) > 3 else []


def markdown(title, tables, images):
    """``tables``: list of (heading, header, lines[, paragraphs]); ``images``: list of (caption, file name)."""
    out = ["# %s" % title, ""]
    for table in tables:
        heading, header, lines, paragraphs = _table_parts(table)
        out += ["## %s" % heading, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(str(cell) for cell in line) + " |" for line in lines]
        out.append("")
        for paragraph in paragraphs:
            out += [paragraph, ""]
    if images:
        out += ["## Plots", ""]
        for caption, name in images:
            out += ["![%s](%s)" % (caption, name), ""]
    return "\n".join(out)


def to_html(title, tables, images):
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>%s</title>" % esc(title),
           "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}</style>",
           "</head><body>", "<h1>%s</h1>" % esc(title)]
    for table in tables:
        heading, header, lines, paragraphs = _table_parts(table)
        out.append("<h2>%s</h2><table><tr>%s</tr>" % (esc(heading), "".join("<th>%s</th>" % esc(str(cell)) for cell in header)))
        out += ["<tr>%s</tr>" % "".join("<td>%s</td>" % esc(str(cell)) for cell in line) for line in lines]
        out.append("</table>")
        out += ["<p>%s</p>" % esc(paragraph) for paragraph in paragraphs]
    if images:
        out.append("<h2>Plots</h2>")
        for caption, name in images:
            out.append("<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>" % (esc(name), esc(caption), esc(caption)))
    out.append("</body></html>")
    return "\n".join(out)
