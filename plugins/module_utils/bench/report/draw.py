# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's plots drawn as PNG with matplotlib: the bars, the loss plots, the bounds against the number of flows.

What they show is chosen in :mod:`.plots` (as data, tested without matplotlib);
this file only draws. Without matplotlib ``HAS_MATPLOTLIB`` is False,
``MATPLOTLIB_ERROR`` says why, and :func:`flow_plots` is empty.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import traceback

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import plots as plotdata
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
    HAS_MATPLOTLIB = True
    MATPLOTLIB_ERROR = None
except ImportError:
    HAS_MATPLOTLIB = False
    MATPLOTLIB_ERROR = traceback.format_exc()


def png(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90, metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


GOAL_STYLES = ("-", "--", "-.", ":")
# the goals' lines and the repeats' points in colours of their own
GOAL_COLOURS = ("C3", "C4", "C5", "C6")
REPEAT_COLOURS = ("C0", "C1", "C2", "C9", "C8", "C7", "black")


def _rate_axis(axes, divisor, frame_size):
    """x in Mpps or kpps, and on top the same load as Gbps on the wire (L1) at the frame size (none for connections)."""
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _position: "%g" % (value / divisor)))
    if frame_size == units.CONNECTIONS:
        return
    factor = (units.mean_frame_bytes(frame_size) + units.WIRE_OVERHEAD) * 8 / 1e9
    top = axes.secondary_xaxis("top", functions=(lambda pps: pps * factor, lambda gbps: gbps / factor))
    frames = "%d B frame" % frame_size if frame_size != units.IMIX else "imix frames, %.1f B on average," % units.mean_frame_bytes(frame_size)
    top.set_xlabel("Gbps on the wire (L1: %s + 20 B preamble and gap)" % frames, fontsize=8)
    top.tick_params(labelsize=7)


def _goal_artists(axes, searches, divisor, unit):
    """A vertical line per goal at the lower bound (the median over the repeats), its bounds' range shaded, its loss as a dashed level."""
    for index, goal in enumerate(plotdata.goal_lines(searches)):
        colour = GOAL_COLOURS[index % len(GOAL_COLOURS)]
        label = "%s (loss <= %g %%): lower bound %.4g %s" % (goal["name"], 100.0 * goal["loss_ratio"], goal["lower_bound"] / divisor, unit)
        if goal["repeats"] > 1:
            label += ", the median of %d repeats (shaded: their lower to upper bounds)" % goal["repeats"]
        if goal["generator_limited"]:
            label += ", generator-limited"
        axes.axvline(goal["lower_bound"], linestyle=GOAL_STYLES[index % len(GOAL_STYLES)], linewidth=1.4, color=colour, label=label)
        axes.axvspan(goal["low"], goal["high"], color=colour, alpha=0.08, linewidth=0)
        if goal["loss_ratio"] > 0:
            axes.axhline(100.0 * goal["loss_ratio"], linestyle=(0, (1, 3)), linewidth=0.8, color=colour)


def _trial_artists(axes, searches, window):
    several = len(searches) > 1
    for index, search in enumerate(searches):
        trials = [trial for trial in search["trials"] if window[0] <= trial["load"] <= window[1]]
        final = max(trial["duration"] for trial in search["trials"])
        colour = REPEAT_COLOURS[index % len(REPEAT_COLOURS)]
        for kind, marker, filled in (("short trials", "o", False), ("final trials", "s", True)):
            chosen = [trial for trial in trials if (trial["duration"] >= final) == filled]
            if not chosen:
                continue
            label = "repeat %d, %s" % (search.get("repeat", 0), kind) if several else kind
            axes.scatter([trial["load"] for trial in chosen], [100.0 * trial["loss_ratio"] for trial in chosen], marker=marker, s=22,
                         facecolors=colour if filled else "none", edgecolors=colour, linewidths=1, label=label, zorder=3)
    limited = [trial for search in searches for trial in search["trials"] if trial.get("generator_limited") and window[0] <= trial["load"] <= window[1]]
    if limited:
        axes.scatter([trial["load"] for trial in limited], [100.0 * trial["loss_ratio"] for trial in limited], marker="x", s=30, color="black",
                     linewidths=0.8, label="generator-limited trial", zorder=4)


def loss_plot(document, searches):
    """Loss against offered load of one profile's searches (its repeats, one colour each), around the goals' bounds."""
    profile = searches[0]["profile"]
    window = plotdata.loss_window(searches)
    divisor, unit = plotdata.rate_scale(window[1])
    figure, axes = plt.subplots(figsize=(10, 5.2))
    _trial_artists(axes, searches, window)
    handles = len(axes.get_legend_handles_labels()[0])
    trials_legend = axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, title="trials",
                                title_fontsize=7) if handles else None
    _goal_artists(axes, searches, divisor, unit)
    hidden = plotdata.hidden_trials(searches, window)
    if hidden:
        where = units.pps_text(hidden[1]) if hidden[1] == hidden[2] else units.pps_range_text(hidden[1], hidden[2])
        axes.plot([], [], " ", label="not shown: %d trial%s at %s" % (hidden[0], "s" if hidden[0] > 1 else "", where))
    threshold = plotdata.linear_threshold(searches, window)
    axes.set_yscale("symlog", linthresh=threshold)
    axes.set_ylim(-threshold * 0.3, 100.0)
    axes.set_xlim(*window)
    axes.grid(True, which="major", linewidth=0.4, alpha=0.5)
    _rate_axis(axes, divisor, profile["frame_size"])
    axes.set_xlabel("offered load, %s" % (unit[:-3] + "cps" if profile["frame_size"] == units.CONNECTIONS else unit))
    axes.set_ylabel("loss, %% (symlog: linear below %g %%)" % threshold)
    axes.set_title("%s: %s %s %s, %s%s" % (document["datapath"], units.scenario_text(profile), profile["protocol"], units.size_text(profile["frame_size"]),
                                           document["run_id"], ", %d repeats" % len(searches) if len(searches) > 1 else ""), fontsize=9, loc="left")
    goal_handles, goal_labels = [part[handles:] for part in axes.get_legend_handles_labels()]
    axes.legend(goal_handles, goal_labels, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.2), borderaxespad=0, title="goals", title_fontsize=7)
    if trials_legend:
        axes.add_artist(trials_legend)
    figure.subplots_adjust(left=0.08, right=0.78, top=0.86, bottom=0.4)
    return png(figure)


def _bars(axes, positions, found, width, colour, label):
    """One datapath x goal: a bar to the lower bound, a lighter one on to the upper bound, min to max as error bars, hatched when generator-limited."""
    values = [plotdata.bar_values(row) for row in found]
    hatches = ["//" if value[4] else None for value in values]
    lower = [value[0] for value in values]
    bars = axes.bar(positions, lower, width, color=colour, label=label, edgecolor="black", linewidth=0.4)
    axes.bar(positions, [max(0.0, value[1] - value[0]) for value in values], width, bottom=lower, color=colour, alpha=0.35, linewidth=0)
    for patch, hatch in zip(bars, hatches):
        patch.set_hatch(hatch)
    if any(row and row["repeats"] > 1 for row in found):
        axes.errorbar(positions, lower, yerr=[[value[0] - value[2] for value in values], [value[3] - value[0] for value in values]],
                      fmt="none", ecolor="black", elinewidth=0.8, capsize=2)


def bars_plot(rows):
    table = report.latest(rows)
    groups = sorted({(key[1], key[2], key[3]) for key in table}, key=lambda key: units.sized_key(key, 2))
    datapaths = sorted({key[0] for key in table})
    goals = [goal for goal in ("ndr", "pdr") if any(key[4] == goal for key in table)] or sorted({key[4] for key in table})[:2]
    figure, axes = plt.subplots(figsize=(max(8, 1.0 * len(groups) * max(1, len(datapaths)) + 2.5), 3.8))
    width = 0.8 / max(1, len(datapaths) * len(goals))
    divisor, unit = plotdata.rate_scale(max(row["upper_bound"] for row in table.values()))
    for d_index, datapath in enumerate(datapaths):
        for g_index, goal in enumerate(goals):
            offset = (d_index * len(goals) + g_index) * width
            _bars(axes, [index + offset for index in range(len(groups))], [table.get((datapath,) + group + (goal,)) for group in groups], width,
                  "C%d" % (d_index * len(goals) + g_index), "%s %s: lower bound" % (datapath, goal))
    axes.bar([0], [0], 0, color="grey", alpha=0.35, label="lighter: up to the upper bound")
    if any(row["generator_limited"] for row in table.values()):
        axes.bar([0], [0], 0, color="white", edgecolor="black", hatch="//", label="hatched: generator-limited")
    axes.set_xticks([index + 0.4 - width / 2 for index in range(len(groups))])
    axes.set_xticklabels(["%s\n%s %s" % (scenario, protocol, units.size_text(size)) for scenario, protocol, size in groups], fontsize=8)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: "%g" % (value / divisor)))
    axes.set_ylabel("frames/s, %s" % unit)
    axes.grid(True, axis="y", linewidth=0.4, alpha=0.5)
    axes.set_title("Lower bounds per scenario x protocol x frame size%s" % (" (error bars: the repeats' min to max)" if report.repeated(rows) else ""),
                   fontsize=9, loc="left")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    figure.subplots_adjust(left=0.08, right=0.72, top=0.9, bottom=0.16)
    return png(figure)


def plots(documents, rows):
    """``{file name: (caption, PNG bytes)}``: the bars, the loss plot of every run x frame size with trials, and the
    bounds against the number of flows of a run with several flow counts."""
    images = {"bars.png": ("NDR and PDR per scenario x protocol x frame size", bars_plot(rows))}
    # the runs with the most repeats first, then by run id
    for document in sorted(documents, key=lambda document: (-report.planned_repeats(document), document["run_id"])):
        for group in report.searches_by_profile(document, complete=False):
            searches = [search for search in group if search.get("trials")]
            if searches:
                size = searches[0]["profile"]["frame_size"]
                images["loss-%s-%s.png" % (document["run_id"], size)] = (
                    "loss against offered load: %s, %s" % (document["run_id"], units.size_text(size)), loss_plot(document, searches))
    images.update(flow_plots(rows))
    return images


FLOW_MARKERS = ("o", "s", "^", "D")


def _flow_lines(axes, series):
    """A line per series (colour per group, marker and style per goal), the repeats' min to max as error bars, generator-limited points crossed."""
    labels = sorted({item["label"] for item in series})
    goals = []
    for item in series:
        if item["goal"] not in goals:
            goals.append(item["goal"])
    for item in series:
        goal_index = goals.index(item["goal"])
        colour = "C%d" % (labels.index(item["label"]) % 10)
        errors = [[value - low for value, low in zip(item["lower_bound"], item["low"])],
                  [high - value for value, high in zip(item["lower_bound"], item["high"])]]
        axes.errorbar(item["flows"], item["lower_bound"], yerr=errors,
                      marker=FLOW_MARKERS[goal_index % len(FLOW_MARKERS)], linestyle=("-", "--", "-.", ":")[goal_index % 4], color=colour,
                      markersize=4, linewidth=1.2, capsize=2, label="%s, %s (loss <= %g %%)" % (item["label"], item["goal"], 100.0 * item["loss_ratio"]))
    limited = [(flows, value) for item in series for flows, value, flag in zip(item["flows"], item["lower_bound"], item["generator_limited"]) if flag]
    if limited:
        axes.scatter([point[0] for point in limited], [point[1] for point in limited], marker="x", s=40, color="black", linewidths=0.9,
                     label="generator-limited bound", zorder=4)


def flows_plot(series):
    """PNG bytes of each goal's lower bound against the number of flows (log x axis) of the series of :func:`flow_series`."""
    divisor, unit = plotdata.rate_scale(max(value for item in series for value in item["high"] + item["lower_bound"]))
    figure, axes = plt.subplots(figsize=(10, 4.6))
    _flow_lines(axes, series)
    axes.set_xscale("log")
    axes.set_ylim(bottom=0)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: "%g" % (value / divisor)))
    axes.set_xlabel("flows (source addresses), log scale")
    axes.set_ylabel("lower bound, frames/s, %s" % unit)
    axes.grid(True, which="both", linewidth=0.4, alpha=0.5)
    repeats = max(item["repeats"] for item in series)
    axes.set_title("Bounds against the number of flows%s" % (" (the median of the repeats; error bars: their min to max)" if repeats > 1 else ""),
                   fontsize=9, loc="left")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    figure.subplots_adjust(left=0.08, right=0.66, top=0.9, bottom=0.12)
    return png(figure)


def flow_plots(rows):
    """``{"flows.png": (caption, PNG bytes)}`` for the rows of ``bench_report.rows_of`` with a run of several flow counts;
    empty without one, or without matplotlib."""
    series = plotdata.flow_series(report.flow_groups(rows))
    if not series or not HAS_MATPLOTLIB:
        return {}
    return {report.FLOWS_PNG: ("lower bounds against the number of flows (log scale)", flows_plot(series))}
