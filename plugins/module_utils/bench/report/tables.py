# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark report from ``trex_bench`` result files: tables as data, Markdown and HTML text.

Pure functions; the ``bench_report`` module reads the files, draws the PNG
plots with matplotlib and writes what these functions return.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.offload.testbed.plugins.module_utils.bench import stats
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import conditions
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.evidence import bound_trials, evidence_table
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.latency import NOTE as LATENCY_NOTE, latency_table
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.soak import NOTE as SOAK_NOTE, soak_rows_of, soak_table
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import Figures
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import READABLE_SCHEMA_VERSIONS

ADVICE = "run with bench_repeat >= %d to know" % stats.ADVISED_REPEATS
# the flow scale plot's file (bench_report_plots.flow_plots)
FLOWS_PNG = "flows.png"


def compare_error(labels, name="compare"):
    """``None`` when ``labels`` is two or more different datapath labels ``[A, ..., B]`` (or unset), else the message."""
    if labels is None:
        return None
    if len(labels) < 2:
        return ("%s: give two or more datapath labels [A, ..., B] (datapaths or compare.yml variant names; the last is the baseline, "
                "the table shows each / B), got %s" % (name, labels))
    repeated = sorted(set(label for label in labels if labels.count(label) > 1))
    if repeated:
        return ("%s: %r is compared with itself (its speedup over itself is 1); give different labels [A, ..., B], "
                "for example [doca, kernel] or [netdev-emc, netdev-noemc]" % (name, repeated[0]))
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
        "run_id": document["run_id"], "datapath": document["datapath"], "scenario": units.scenario_text(profile),
        "protocol": profile["protocol"], "frame_size": profile["frame_size"], "direction": profile["direction"],
        "goal": name, "loss_ratio": goals[0]["loss_ratio"], "lower_bound": summary["median"],
        "upper_bound": stats.median([goal["upper_bound"] for goal in goals]), "generator_limited": summary["generator_limited"],
        "repeats": summary["repeats"], "repeats_planned": max(planned_repeats(document), summary["repeats"]), "summary": summary,
        "line_rate_gbps": (document.get("search") or {}).get("line_rate_gbps"), "bound_trials": bound_trials(repeats, name),
        "flows": profile.get("flows", 1), "flow_counts": (document.get("search") or {}).get("flow_counts"),
        "conditional_throughput": _median_or_none([goal.get("conditional_throughput") for goal in goals]),
        "conditional_throughputs": [goal.get("conditional_throughput") for goal in goals],
        "irregular": sorted(set(goal.get("irregular") or "irregular" for goal in goals if goal.get("regular") is False)),
    }


def _median_or_none(values):
    """The median of the values given (results before RFC 9971's quantities have none: None)."""
    values = [value for value in values if value is not None]
    return stats.median(values) if values else None


def rows_of(documents):
    """One row per (run, profile, goal) over the complete searches of every readable document.

    ``{"run_id", "datapath", "scenario", "protocol", "frame_size", "direction", "goal", "loss_ratio",
    "lower_bound", "upper_bound", "generator_limited", "repeats", "repeats_planned", "summary", "line_rate_gbps", "flows",
    "flow_counts"}``: ``flows`` the search's flow count, ``flow_counts`` the run's list of them (``search.flow_counts``, None
    for a run of one count);
    ``lower_bound`` is the median of the repeats' lower bounds, ``upper_bound`` the median of their
    upper bounds, ``generator_limited`` true when any repeat's is, ``summary`` what
    ``bench_stats.summarize_bounds`` returns for the complete repeats (recomputed from the searches,
    so a run still in progress shows the repeats done so far; with one repeat the bounds are the
    search's own, as in schema version 1), ``bound_trials`` the trials the repeats' lower bounds rest on.
    """
    rows = []
    for document in documents:
        if not readable(document):
            continue
        for repeats in searches_by_profile(document):
            names = sorted({name for search in repeats for name in search["result"]["goals"]})
            rows += [_goal_row(document, repeats, name) for name in names]
    return sorted(rows, key=lambda row: (row["datapath"], row["scenario"], row["protocol"], units.size_order(row["frame_size"]), row["loss_ratio"],
                                         row["run_id"]))


def latency_rows_of(documents):
    """One row per latency trial of the complete searches (the last run per datapath x scenario x protocol x frame size; of a run of
    several flow counts, its first count's).

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
            key = (document["datapath"], units.scenario_text(profile), profile["protocol"], profile["frame_size"])
            if key in chosen and chosen[key][0]["run_id"] == document["run_id"]:
                continue  # a run of several flow counts: its first count's, as the bounds the speedups compare
            chosen[key] = [dict(point, run_id=document["run_id"], reference_goal=latency.get("reference_goal"),
                                repeat=measured[0].get("repeat", 0)) for point in latency["points"]]
    return sorted(chosen.items(), key=lambda item: units.sized_key(item[0], 3))


def soaks_of(documents):
    """The soak of the last run per datapath x scenario x protocol x frame size (of a run of several flow counts, its first count's)."""
    chosen = {}
    for document in sorted(documents, key=lambda document: document.get("run_id", "")):
        if not readable(document):
            continue
        for repeats in searches_by_profile(document):
            soak, profile = repeats[0].get("soak"), repeats[0]["profile"]
            key = (document["datapath"], units.scenario_text(profile), profile["protocol"], profile["frame_size"])
            if soak and not (key in chosen and chosen[key][0] == document["run_id"]):
                chosen[key] = (document["run_id"], soak)
    return soak_rows_of(chosen)


def latest_rows(rows):
    """The last run's rows per (datapath, scenario, protocol, frame size, goal): run ids sort by time when they end in one.

    One row per key, or with a run of several flow counts (``search.flow_counts``) one per count, in the run's order.
    """
    chosen = {}
    for row in sorted(rows, key=lambda row: row["run_id"]):
        key = (row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["goal"])
        if key in chosen and chosen[key][0]["run_id"] == row["run_id"]:
            chosen[key].append(row)
        else:
            chosen[key] = [row]
    return chosen


def latest(rows):
    """The last run's row per (datapath, scenario, protocol, frame size, goal); of a run of several flow counts, its first count's
    (the speedups and the bars compare those; the bounds and flow scale tables show every count)."""
    return {key: found[0] for key, found in latest_rows(rows).items()}


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

    ``{"a", "b"}``: the medians of the values compared; ``speedup``: median(A) / median(B), None with a ``note`` saying why;
    ``low``, ``high``, ``repeats_a``, ``repeats_b``, ``chance``: ``bench_stats.ratio_interval`` of the repeats'
    values; ``verdict``: ``bench_stats.verdict`` in words; ``note``: the verdict and, if any, the generator limit
    and the repeats still to run. ``basis`` says which values the ratio is of: RFC 9971's conditional throughput
    (as the RFC recommends for comparisons) when every repeat of both sides has one, else the lower bound.
    """
    entry = {"a": left["lower_bound"] if left else None, "b": right["lower_bound"] if right else None, "speedup": None,
             "low": None, "high": None, "repeats_a": left["repeats"] if left else 0, "repeats_b": right["repeats"] if right else 0,
             "chance": None, "verdict": "", "note": _missing_note(left, right, datapath_a, datapath_b)}
    if entry["note"]:
        return entry
    basis, values_a, values_b = _compared(left, right)
    interval = stats.ratio_interval(values_a, values_b)
    entry.update({"basis": basis, "a": stats.median(values_a), "b": stats.median(values_b),
                  "speedup": interval["ratio"], "low": interval["low"], "high": interval["high"], "chance": interval["chance"],
                  "verdict": stats.verdict(interval, datapath_a, datapath_b)})
    notes = (entry["verdict"], _limited_note(left, right, datapath_a, datapath_b), _unfinished_note(left, right, datapath_a, datapath_b))
    entry["note"] = "; ".join(note for note in notes if note)
    return entry


def _compared(left, right):
    """(basis, A's values, B's values) of a comparison: conditional throughputs when both sides have them all, else lower bounds."""
    conditional = [row.get("conditional_throughputs") or [None] for row in (left, right)]
    if all(value for values in conditional for value in values):
        return "conditional throughput", conditional[0], conditional[1]
    return "lower bound", left["summary"]["lower_bounds"], right["summary"]["lower_bounds"]


def speedups(rows, datapath_a, datapath_b, goal="pdr"):
    """The ConnectX-6 Lx reference bench's table: per scenario x protocol x frame size, ``a / b`` of the goal's lower bounds (their medians over the repeats).

    Rows where either side is missing or zero carry ``speedup`` None and a
    ``note``; the others carry the interval and verdict of ``speedup_entry``.
    """
    table = latest(rows)
    keys = sorted({(key[1], key[2], key[3]) for key in table if key[4] == goal and key[0] in (datapath_a, datapath_b)},
                  key=lambda key: units.sized_key(key, 2))
    result = []
    for scenario, protocol, frame_size in keys:
        entry = {"scenario": scenario, "protocol": protocol, "frame_size": frame_size}
        entry.update(speedup_entry(table.get((datapath_a, scenario, protocol, frame_size, goal)),
                                   table.get((datapath_b, scenario, protocol, frame_size, goal)), datapath_a, datapath_b))
        result.append(entry)
    return result


_pps = units.pps_text


def _percent(value):
    return "-" if value is None else "%.1f%%" % (100.0 * value)


def _repeats_cell(row):
    if row["repeats"] < row["repeats_planned"]:
        return "%d of %d" % (row["repeats"], row["repeats_planned"])
    return "%d" % row["repeats"]


def _limited_cell(row):
    """The note of a bound: generator-limited, and RFC 9971's irregular results with why."""
    notes = ["irregular RFC 9971 result (%s)" % ", ".join(row["irregular"])] if row.get("irregular") else []
    summary = row["summary"]
    if summary["generator_limited"]:
        if summary["repeats"] > 1 and summary["generator_limited_repeats"] < summary["repeats"]:
            notes.append("generator-limited in %d of %d repeats" % (summary["generator_limited_repeats"], summary["repeats"]))
        else:
            notes.append("generator-limited")
    return "; ".join(notes)


def _throughput_cell(row):
    """RFC 9971's conditional throughput (median over the repeats), "-" for results that have none."""
    return "-" if row.get("conditional_throughput") is None else _pps(row["conditional_throughput"])


def repeated(rows):
    """Whether any row asked for, or has, more than one repeat."""
    return any(row["repeats"] > 1 or row["repeats_planned"] > 1 for row in rows)


def rate_cells(pps, frame_size, line_rate_gbps=None, share=True):
    """``[Mpps or kpps, Gbps on the wire (L1)]`` and, with ``share``, the share of the line rate (``-`` when not known)."""
    cells = [units.rate_text(pps, frame_size), units.gbps_text(units.gbps_l1(pps, frame_size))]
    return cells + [units.share_text(units.line_share(pps, frame_size, line_rate_gbps))] if share else cells


def _row_order(row):
    return (row["datapath"], row["scenario"], row["protocol"], units.size_order(row["frame_size"]), row["flows"], row["loss_ratio"])


def bound_rows(rows):
    """The latest runs' rows in the order of the bounds table: datapath, scenario, protocol, frame size, flows, loss ratio
    (every flow count of a run of several)."""
    return sorted((row for found in latest_rows(rows).values() for row in found), key=_row_order)


def flow_scaled(row):
    """Whether the row's run searched several flow counts (``search.flow_counts``)."""
    return len(row.get("flow_counts") or ()) > 1


def _head_cells(row, flows):
    """The cells that name a bound: datapath, scenario, protocol, frame size, with ``flows`` the flow count, goal, loss ratio."""
    return ([row["datapath"], row["scenario"], row["protocol"], units.size_text(row["frame_size"])] + (["%d" % row["flows"]] if flows else [])
            + [row["goal"], "%g" % row["loss_ratio"]])


def results_table(rows):
    """Header and lines of the bounds table (one line per datapath x scenario x protocol x frame size x goal; with a run of
    several flow counts, a ``flows`` column and a line per flow count too).

    With one repeat everywhere the table of schema version 1 (lower and upper bound of the one search);
    with repeats the median lower bound, its min to max, spread, riqr, the repeats and the median upper bound.
    The lower bound comes with its Gbps on the wire (L1) and its share of the line rate.
    """
    order = bound_rows(rows)
    flows = any(flow_scaled(row) for row in order)
    head = ["datapath", "scenario", "protocol", "frame"] + (["flows"] if flows else []) + ["goal", "loss ratio"]
    if not repeated(order):
        header = head + ["lower bound", "Gbps (L1)", "line share", "upper bound", "conditional throughput", "note"]
        return header, [_head_cells(row, flows)
                        + rate_cells(row["lower_bound"], row["frame_size"], row["line_rate_gbps"])
                        + [_pps(row["upper_bound"]), _throughput_cell(row), _limited_cell(row)]
                        for row in order]
    header = head + ["lower bound (median)", "Gbps (L1)", "line share", "min to max", "spread", "riqr", "repeats", "upper bound (median)",
                     "conditional throughput (median)", "note"]
    lines = []
    for row in order:
        summary = row["summary"]
        several = summary["repeats"] > 1
        lines.append(_head_cells(row, flows)
                     + rate_cells(row["lower_bound"], row["frame_size"], row["line_rate_gbps"])
                     + [units.pps_range_text(summary["min"], summary["max"]) if several else "-",
                        _percent(summary["spread"]) if several else "-", _percent(summary["riqr"]), _repeats_cell(row),
                        _pps(row["upper_bound"]), _throughput_cell(row), _limited_cell(row)])
    return header, lines


GBPS_NOTE = ("Rates are frames/s (Mpps, kpps) of frames of the given frame size, FCS included. Gbps (L1) is the rate on the wire, layer 1: "
             "frames/s x (frame size + 20 B of preamble, start delimiter and inter-frame gap) x 8 bits; 14.88 Mpps of 64 B frames are "
             "10.00 Gbps (L1), the frames alone (layer 2) 7.62 Gbps.")
LINE_SHARE_NOTE = ("Line share: the lower bound over the line rate of one port at that frame size, frames/s x (frame size + 20 B) x 8 bits "
                   "over the line rate in bits/s.")


def units_notes(rows):
    """How to read the rates: frames/s, Gbps (L1), line share; how to record the line rate when a run did not."""
    notes = [GBPS_NOTE + " " + LINE_SHARE_NOTE]
    if any(not row.get("line_rate_gbps") for row in latest(rows).values()):
        notes.append("Line share \"-\": the run did not record its line rate (search.line_rate_gbps); set the bench variable "
                     "bench_line_rate_gbps (Gb/s of one DUT port, for example 25 for a ConnectX-6 Lx port) to record it.")
    return notes


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


def flow_groups(rows):
    """The bounds of the latest runs of several flow counts (``search.flow_counts``), for the flow scale table and plot.

    ``[((datapath, scenario, protocol, frame size), [(flows, {goal: row}), ...]), ...]``: the flow counts in ascending order,
    the groups in the bounds table's order; empty when no run shown searched several flow counts.
    """
    groups = {}
    for row in bound_rows(rows):
        if flow_scaled(row):
            counts = groups.setdefault((row["datapath"], row["scenario"], row["protocol"], row["frame_size"]), {})
            counts.setdefault(row["flows"], {})[row["goal"]] = row
    return [(key, sorted(counts.items())) for key, counts in groups.items()]


def _goal_names(groups):
    """The goals of the flow scale groups, lowest loss ratio first."""
    ratios = {name: row["loss_ratio"] for _key, counts in groups for _flows, goals in counts for name, row in goals.items()}
    return sorted(ratios, key=lambda name: (ratios[name], name))


def _scaled_cell(row, fewest):
    """The bound, and beside it its share of the same goal's bound at the fewest flows (``-`` when not measured)."""
    if row is None:
        return "-"
    if fewest is None or row is fewest or not fewest["lower_bound"]:
        return _pps(row["lower_bound"])
    return "%s (%s)" % (_pps(row["lower_bound"]), _percent(row["lower_bound"] / fewest["lower_bound"]))


def flows_table(rows):
    """Header and lines of the flow scale table: per datapath x scenario x protocol x frame size, a line per flow count with every
    goal's lower bound (the median over the repeats) and its share of the bound at the fewest flows."""
    groups = flow_groups(rows)
    names = _goal_names(groups)
    header = ["datapath", "scenario", "protocol", "frame", "flows"] + names + ["note"]
    lines = []
    for key, counts in groups:
        fewest = counts[0][1]
        for flows, goals in counts:
            limited = [name for name in names if name in goals and goals[name]["generator_limited"]]
            lines.append([key[0], key[1], key[2], units.size_text(key[3]), "%d" % flows] + [_scaled_cell(goals.get(name), fewest.get(name)) for name in names]
                         + ["generator-limited: %s" % ", ".join(limited) if limited else ""])
    return header, lines


FLOWS_NOTE = ("Each line is a search of its own at that number of flows (source addresses from src_base, trex_bench flows as a list): the "
              "lower bound of each goal (with repeats, their median) and, in brackets, its share of the same goal's bound at the fewest "
              "flows of the run (its first line).")


def ratio_cell(entry):
    """``16.0x``, ``1.82x (1.33x to 2.40x)`` with an interval from the repeats, ``-`` without a ratio."""
    if entry["speedup"] is None:
        return "-"
    if entry.get("low") is None:
        return "%.1fx" % entry["speedup"]
    return "%s (%s)" % (stats.format_ratio(entry["speedup"]), stats.interval_text(entry))


def speedup_table(entries, datapath_a, datapath_b):
    """Header and lines of the speedup table: medians of A and B with their Gbps (L1), A / B with its interval from the repeats, the verdict as note."""
    header = ["scenario", "protocol", "frame", datapath_a, "%s Gbps (L1)" % datapath_a, datapath_b, "%s Gbps (L1)" % datapath_b,
              "%s / %s" % (datapath_a, datapath_b), "note"]
    lines = []
    for entry in entries:
        lines.append([entry["scenario"], entry["protocol"], units.size_text(entry["frame_size"])] + rate_cells(entry["a"], entry["frame_size"], share=False)
                     + rate_cells(entry["b"], entry["frame_size"], share=False) + [ratio_cell(entry), entry["note"]])
    return header, lines


def speedup_matrix(entries):
    """The reference bench's form: one line per scenario (and frame size when there are several), one column per protocol, A / B in each cell."""
    protocols = sorted({entry["protocol"] for entry in entries})
    sizes = {entry["frame_size"] for entry in entries}
    cells = {(entry["scenario"], entry["frame_size"], entry["protocol"]): ratio_cell(entry) for entry in entries}
    keys = sorted({(entry["scenario"], entry["frame_size"]) for entry in entries}, key=lambda key: units.sized_key(key, 1))
    header = ["scenario"] + (["frame"] if len(sizes) > 1 else []) + protocols
    lines = [[scenario] + ([units.size_text(size)] if len(sizes) > 1 else []) + [cells.get((scenario, size, protocol), "-") for protocol in protocols]
             for scenario, size in keys]
    return header, lines


_BASIS_WORDS = {"conditional throughput": "conditional throughputs (RFC 9971's, at the lower bound)", "lower bound": "lower bounds"}
_BASIS_WHY = ("; the conditional throughput, as RFC 9971 recommends for comparisons, where every repeat of both sides has one, "
              "else the lower bound")


def speedup_notes(entries, datapath_a, datapath_b):
    """Paragraphs under the speedup table: what the ratio and its interval are, and what they show."""
    if not entries:
        return []
    bases = sorted({entry["basis"] for entry in entries if entry.get("basis")}, reverse=True) or ["lower bound"]
    notes = ["%s / %s: the median of %s's %s over the median of %s's, over the repeats of the latest run of each%s."
             % (datapath_a, datapath_b, datapath_a, " (or ".join(_BASIS_WORDS[basis] for basis in bases) + ")" * (len(bases) - 1),
                datapath_b, _BASIS_WHY if "conditional throughput" in bases else "")]
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


def shown_documents(documents, rows):
    """The documents whose runs the bounds table shows (the latest per label, scenario, protocol, frame size and goal)."""
    run_ids = {row["run_id"] for row in latest(rows).values()}
    return [document for document in documents if document.get("run_id") in run_ids]


def _pair_tables(rows, name_a, name_b, goal):
    """The speedup entries of A over B and their two tables: the reference bench's matrix, then the rates and intervals."""
    entries = speedups(rows, name_a, name_b, goal)
    sizes = ", ".join(units.size_text(size) for size in sorted({entry["frame_size"] for entry in entries}, key=units.size_order))
    return entries, [
        ("Speedup of %s over %s per scenario and protocol (%s, %s)" % (name_a, name_b, goal, sizes),) + speedup_matrix(entries)
        + (["%s / %s of the %s lower bounds, in the form of the ConnectX-6 Lx reference bench's results; the interval, the rates and "
            "what it shows are in the next table." % (name_a, name_b, goal)],),
        ("Speedup of %s over %s (%s)" % (name_a, name_b, goal),) + speedup_table(entries, name_a, name_b)
        + (speedup_notes(entries, name_a, name_b) + [GBPS_NOTE],),
    ]


def baseline_matrix(entries_of, baseline):
    """One line per scenario (and frame size), one column per variant and protocol: each variant / the baseline."""
    columns = [(name, protocol) for name, entries in entries_of for protocol in sorted({entry["protocol"] for entry in entries})]
    cells = dict(((name, entry["scenario"], entry["frame_size"], entry["protocol"]), ratio_cell(entry))
                 for name, entries in entries_of for entry in entries)
    keys = sorted({(entry["scenario"], entry["frame_size"]) for _name, entries in entries_of for entry in entries}, key=lambda key: units.sized_key(key, 1))
    several = len({size for _scenario, size in keys}) > 1
    header = ["scenario"] + (["frame"] if several else []) + ["%s / %s %s" % (name, baseline, protocol) for name, protocol in columns]
    lines = [[scenario] + ([units.size_text(size)] if several else []) + [cells.get((name, scenario, size, protocol), "-") for name, protocol in columns]
             for scenario, size in keys]
    return header, lines


def _compare_tables(rows, compare, goal):
    """With two labels, A over B; with more, first every variant over the last (the baseline) in one table, then each pair's."""
    baseline = compare[-1]
    entries_of = []
    tables = []
    for name in compare[:-1]:
        entries, pair = _pair_tables(rows, name, baseline, goal)
        entries_of.append((name, entries))
        tables += pair
    if len(compare) > 2:
        tables.insert(0, ("Speedup of %s over %s (%s)" % (", ".join(compare[:-1]), baseline, goal),) + baseline_matrix(entries_of, baseline)
                      + (["Each variant's %s lower bounds over %s's, per scenario and protocol; each variant's rates and intervals follow."
                          % (goal, baseline)],))
    return [dict(entry, variant=name, baseline=baseline) for name, entries in entries_of for entry in entries], tables


def tables_of(documents, compare=None, goal="pdr", images=()):
    """The report's sections in order, and the speedup entries (empty without ``compare``).

    The sections are tables ``(heading, header, lines, paragraphs)``: the conditions first, then with ``compare``
    the speedups, the bounds, with runs of several flow counts the bounds against the number of flows, the offload
    evidence and CPU cost at the bounds (when the trials recorded them), the plots (``images``, a list of (caption, file name),
    as ``render.Figures``), the latency and the runs.
    """
    rows = rows_of(documents)
    shown = shown_documents(documents, rows)
    tables = [("Conditions",) + conditions.conditions_table(shown) + (conditions.conditions_notes(shown),)] if shown else []
    entries = []
    if compare:
        entries, compared = _compare_tables(rows, compare, goal)
        tables += compared
    tables.append(("Bounds per datapath, scenario, protocol and frame size",) + results_table(rows) + (results_notes(rows) + units_notes(rows),))
    # one line per bound of the speedups and bars (a run of several flow counts: its first count; the table has no flows column)
    if flow_groups(rows):
        plotted = ["The plot %s shows the same bounds against the number of flows (log scale)." % name for _caption, name in images
                   if name == FLOWS_PNG]
        tables.append(("Bounds against the number of flows",) + flows_table(rows) + ([FLOWS_NOTE] + plotted,))
    evidence = evidence_table(sorted(latest(rows).values(), key=_row_order))
    if evidence:
        tables.append(("Offload evidence and CPU cost at the bounds",) + evidence)
    if images:
        tables.append(Figures(images))
    latency_rows = latency_rows_of(documents)
    if latency_rows:
        notes = ["With repeats: the latency trials of the first repeat that measured them (repeat 0 unless it skipped latency)."] \
            if repeated(rows) else []
        tables.append(("Latency below the PDR",) + latency_table(latency_rows) + ([LATENCY_NOTE] + notes,))
    soaks = soaks_of(documents)
    if soaks:
        tables.append(("Soak at the conditional throughput",) + soak_table(soaks) + ([SOAK_NOTE],))
    if shown:
        tables.append(("Runs",) + conditions.runs_table(shown) + (["The runs of the tables above, one results file each."],))
    return tables, entries
