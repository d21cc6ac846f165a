# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark report from ``trex_bench`` result files: tables as data, Markdown and HTML text.

Pure functions; the ``bench_report`` module reads the files, draws the PNG
plots with matplotlib and writes what these functions return.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html

from ansible_collections.offload.testbed.plugins.module_utils.bench_schema import SCHEMA_VERSION


def rows_of(documents):
    """One row per (run, frame size, goal) of the complete searches.

    ``{"run_id", "datapath", "scenario", "protocol", "frame_size", "direction",
    "goal", "loss_ratio", "lower_bound", "upper_bound", "generator_limited"}``.
    """
    rows = []
    for document in documents:
        if document.get("schema_version") != SCHEMA_VERSION:
            continue
        for search in document.get("searches", []):
            if search.get("status") != "complete" or not search.get("result"):
                continue
            profile = search["profile"]
            for name, goal in search["result"]["goals"].items():
                rows.append({
                    "run_id": document["run_id"], "datapath": document["datapath"], "scenario": profile["scenario"],
                    "protocol": profile["protocol"], "frame_size": profile["frame_size"], "direction": profile["direction"],
                    "goal": name, "loss_ratio": goal["loss_ratio"], "lower_bound": goal["lower_bound"],
                    "upper_bound": goal["upper_bound"], "generator_limited": goal["generator_limited"],
                })
    return sorted(rows, key=lambda row: (row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["loss_ratio"], row["run_id"]))


def latency_rows_of(documents):
    """One row per latency trial of the complete searches (the last run per datapath x scenario x protocol x frame size)."""
    chosen = {}
    for document in sorted(documents, key=lambda document: document.get("run_id", "")):
        if document.get("schema_version") != SCHEMA_VERSION:
            continue
        for search in document.get("searches", []):
            latency = search.get("latency") or {}
            if search.get("status") != "complete" or not latency.get("points"):
                continue
            profile = search["profile"]
            key = (document["datapath"], profile["scenario"], profile["protocol"], profile["frame_size"])
            chosen[key] = [dict(point, run_id=document["run_id"], reference_goal=latency.get("reference_goal")) for point in latency["points"]]
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


def speedups(rows, datapath_a, datapath_b, goal="pdr"):
    """Seed 000's table: per scenario x protocol x frame size, ``a / b`` of the goal's lower bound.

    Rows where either side is missing, zero, or generator-limited carry
    ``speedup`` None and a ``note``.
    """
    table = latest(rows)
    keys = sorted({(key[1], key[2], key[3]) for key in table if key[4] == goal and key[0] in (datapath_a, datapath_b)})
    result = []
    for scenario, protocol, frame_size in keys:
        left = table.get((datapath_a, scenario, protocol, frame_size, goal))
        right = table.get((datapath_b, scenario, protocol, frame_size, goal))
        entry = {"scenario": scenario, "protocol": protocol, "frame_size": frame_size,
                 "a": left["lower_bound"] if left else None, "b": right["lower_bound"] if right else None, "speedup": None, "note": ""}
        if left is None or right is None:
            entry["note"] = "not measured on %s" % (datapath_a if left is None else datapath_b)
        elif right["lower_bound"] <= 0.0 or left["lower_bound"] <= 0.0:
            entry["note"] = "%s misses the goal at the lowest load" % (datapath_a if left["lower_bound"] <= 0.0 else datapath_b)
        else:
            entry["speedup"] = left["lower_bound"] / right["lower_bound"]
            limited = [name for name, row in ((datapath_a, left), (datapath_b, right)) if row["generator_limited"]]
            if limited:
                entry["note"] = "generator-limited on %s: the speedup is at least this" % ", ".join(limited) if limited == [datapath_a] \
                    else "generator-limited on %s" % ", ".join(limited)
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


def results_table(rows):
    """Header and lines of the bounds table (one line per datapath x scenario x protocol x frame size x goal)."""
    header = ["datapath", "scenario", "protocol", "frame", "goal", "loss ratio", "lower bound", "upper bound", "note"]
    lines = []
    order = sorted(latest(rows).values(), key=lambda row: (row["datapath"], row["scenario"], row["protocol"], row["frame_size"], row["loss_ratio"]))
    for row in order:
        lines.append([row["datapath"], row["scenario"], row["protocol"], "%d B" % row["frame_size"], row["goal"], "%g" % row["loss_ratio"],
                      _pps(row["lower_bound"]), _pps(row["upper_bound"]), "generator-limited" if row["generator_limited"] else ""])
    return header, lines


def speedup_table(entries, datapath_a, datapath_b):
    header = ["scenario", "protocol", "frame", datapath_a, datapath_b, "%s / %s" % (datapath_a, datapath_b), "note"]
    lines = [[entry["scenario"], entry["protocol"], "%d B" % entry["frame_size"], _pps(entry["a"]), _pps(entry["b"]),
              "%.1fx" % entry["speedup"] if entry["speedup"] is not None else "-", entry["note"]] for entry in entries]
    return header, lines


def markdown(title, tables, images):
    """``tables``: list of (heading, header, lines); ``images``: list of (caption, file name)."""
    out = ["# %s" % title, ""]
    for heading, header, lines in tables:
        out += ["## %s" % heading, "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(str(cell) for cell in line) + " |" for line in lines]
        out.append("")
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
    for heading, header, lines in tables:
        out.append("<h2>%s</h2><table><tr>%s</tr>" % (esc(heading), "".join("<th>%s</th>" % esc(str(cell)) for cell in header)))
        out += ["<tr>%s</tr>" % "".join("<td>%s</td>" % esc(str(cell)) for cell in line) for line in lines]
        out.append("</table>")
    if images:
        out.append("<h2>Plots</h2>")
        for caption, name in images:
            out.append("<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>" % (esc(name), esc(caption), esc(caption)))
    out.append("</body></html>")
    return "\n".join(out)
