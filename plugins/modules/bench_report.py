#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: bench_report
short_description: Write the benchmark report (Markdown, HTML, PNG plots) from trex_bench result files
version_added: 0.1.0
description:
  - Reads every C(*.json) result file of M(offload.testbed.trex_bench) in O(results_dir) (schema C(docs/results-schema.json),
    versions 1 and 2; a file of another version is skipped with a warning).
  - Writes O(output_dir)/report.md and O(output_dir)/report.html, the same tables in both (HTML with a style sheet, captions,
    numbers right aligned, long values such as the kernel command line folded in a C(details) element).
  - The first table is the conditions, one column per datapath label (the results' C(datapath)) of the runs the report shows
    (the latest per label, scenario, protocol and frame size); DUT host, kernel and its command line, Open vSwitch and OVN versions, the
    C(Open_vSwitch) C(other_config), the NICs' driver, firmware and PSID (C(metadata.dut_system.nics); without them the cell says to set
    C(bench_dut_interfaces)), the generator (client, version, ports), the line rate (C(search.line_rate_gbps)), trial durations, width,
    max load, repeats, the profiles' scenarios, protocols, frame sizes, flows, direction and VLAN, the latency trials, the compare.yml
    variant, the run ids and when their first and last trial ended. A last table lists every run with those times.
  - Then, with O(compare), the speedup of each label against the last in the form of the ConnectX-6 Lx reference bench's results (a line per
    scenario, a column per protocol; with three or more labels, first one table of them all), and the full speedup table (both sides
    in Mpps or kpps and in Gbps, the ratio with its interval and verdict).
  - The bounds of every goal per datapath, scenario, protocol and frame size, each lower bound also in Gbps on the wire (L1, the frame with
    its FCS plus 20 B of preamble, start delimiter and inter-frame gap) and as a share of the line rate (C(-) when the run did not record
    C(search.line_rate_gbps); the report says to set the bench variable C(bench_line_rate_gbps)).
  - With repeats (C(repeat) of M(offload.testbed.trex_bench), schema version 2) every bound is the median of the repeats' bounds, shown with
    their min to max, spread (max - min) / median, relative interquartile range (4 repeats or more; quartiles by linear
    interpolation, Hyndman and Fan's type 7) and the number of repeats. The speedup is median(A) / median(B) with the
    interval min(A) / max(B) to max(A) / min(B) and a verdict in words; the interval leaves out 1 when the ranges of
    the two sides do not overlap (the difference is larger than the spread of the repeats). The report explains both
    under the tables. With one repeat the tables are those of one search per bound, and the report says that no spread
    was measured.
  - The latency table shows, per profile, the latency trials of the first repeat that measured them (repeat 0 normally); its 99th
    percentile is read from TRex's latency histogram (the high end of the range that holds it) and shown with that range.
  - The soak table shows, per profile, the soak trial of the last run (O(offload.testbed.trex_bench#module:soak_duration) of
    M(offload.testbed.trex_bench)) with its goal and load, the loss ratio of the whole trial and of its worst interval, and whether
    it held within the goal's loss ratio.
  - Draws PNG plots with matplotlib (needed on the host that runs the module, usually the controller), placed after the bounds table.
    Loss against offered load of the trials of every run shown (one plot per run and frame size, one colour per repeat, short and final
    trials apart, generator-limited trials crossed); the x range set by the goals' bounds and the trials near them (the others counted in
    the legend), the loss on a symlog axis (0 and the smallest losses visible), each goal's lower bound a vertical line named in the
    legend, the load in Gbps (L1) on the top axis. NDR/PDR bars per scenario x protocol x frame size, one group per datapath; a bar to
    the lower bound (the median of the repeats), a lighter one on to the upper bound, the repeats' min to max as error bars,
    generator-limited bounds hatched.
  - Rewrites a file only when its content changes, so a second run with the same results reports no change.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reports what would change without writing.
  diff_mode:
    description: The report is generated; its files are listed in RV(files).
options:
  results_dir:
    description: Directory with the result files.
    type: path
    required: true
  output_dir:
    description: Where the report goes; default O(results_dir)/report.
    type: path
  compare:
    description:
      - Two or more labels C([A, ..., B]) of the results' C(datapath) (a datapath, or a variant name of C(playbooks/compare.yml) such as
        C(netdev-emc)); the last is the baseline. The speedup tables show each label / B of the latest run of each label (the medians
        of their repeats); with more than two labels, one table of every label over B comes first.
      - The labels must differ; a label compared with itself is refused.
    type: list
    elements: str
  compare_goal:
    description: Goal whose lower bounds (medians over the repeats) the speedup table divides.
    type: str
    default: pdr
  title:
    description: Title of the report.
    type: str
    default: offload.testbed benchmark
  plots:
    description: Draw the PNG plots (needs matplotlib).
    type: bool
    default: true
requirements:
  - matplotlib (for O(plots))
"""

EXAMPLES = r"""
- name: Report of the runs in results/
  offload.testbed.bench_report:
    results_dir: "{{ playbook_dir }}/../results"
    compare: [doca, kernel]
  delegate_to: localhost
"""

RETURN = r"""
files:
  description: Files of the report (the plots C(bars.png) and C(loss-<run id>-<frame size>.png) of the runs shown).
  returned: always
  type: list
  elements: str
  sample: [results/report/report.md, results/report/report.html, results/report/bars.png]
runs:
  description: Number of result files read (of a readable schema version).
  returned: always
  type: int
  sample: 2
speedups:
  description:
    - The speedup tables with O(compare), one entry per label other than the baseline x scenario x protocol x frame size; empty
      without O(compare). C(variant) is the entry's label A, C(baseline) the last label B.
    - C(a), C(b) are the medians over the repeats of A and B (with one repeat, the value) of RFC 9971's conditional throughput
      when every repeat of both sides has one, else of the lower bounds (results before schema version 3); C(basis) says which
      (C(conditional throughput) or C(lower bound)). C(speedup) is C(a) / C(b), or null when a side is not measured or its
      median is 0 (C(note) says which).
    - C(low), C(high) are the interval min(A) / max(B) to max(A) / min(B) over the repeats; null with one repeat on a side (no
      spread measured); C(high) is null too when a bound of B is 0 (no upper limit).
    - C(repeats_a), C(repeats_b) are the repeats of each side; C(chance) is how often two variants that do not differ give
      ranges that do not overlap, 2 a! b! / (a + b)! (null without an interval).
    - C(verdict) says in words whether the difference is larger than the spread of the repeats; C(note) is the verdict,
      then the generator limit if any, or why there is no ratio.
  returned: always
  type: list
  elements: dict
  sample:
    - scenario: routing
      protocol: udp
      frame_size: 64
      a: 16000000.0
      b: 1000000.0
      speedup: 16.0
      low: 14.0
      high: 18.0
      repeats_a: 5
      repeats_b: 5
      chance: 0.0079
      basis: conditional throughput
      variant: doca
      baseline: system
      verdict: "doca is 16.0x system (14.0x to 18.0x over 5 repeats each): larger than the spread"
      note: "doca is 16.0x system (14.0x to 18.0x over 5 repeats each): larger than the spread"
"""

import io
import json
import os
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import plots as plotdata
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import markdown, to_html
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import READABLE_SCHEMA_VERSIONS, report_dir

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


def read_documents(results_dir):
    documents, skipped = [], []
    for name in sorted(os.listdir(results_dir)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(results_dir, name)) as handle:
                document = json.load(handle)
        except (OSError, ValueError) as error:
            skipped.append("%s: %s" % (name, error))
            continue
        if not isinstance(document, dict) or "searches" not in document or "run_id" not in document:
            continue
        if not report.readable(document):
            skipped.append("%s: schema_version %r, this collection reads %s" % (
                name, document.get("schema_version"), ", ".join(str(version) for version in READABLE_SCHEMA_VERSIONS)))
            continue
        documents.append(document)
    return documents, skipped


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
    """x in Mpps or kpps, and on top the same load as Gbps on the wire (L1) at the frame size."""
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _position: "%g" % (value / divisor)))
    factor = (frame_size + units.WIRE_OVERHEAD) * 8 / 1e9
    top = axes.secondary_xaxis("top", functions=(lambda pps: pps * factor, lambda gbps: gbps / factor))
    top.set_xlabel("Gbps on the wire (L1: %d B frame + 20 B preamble and gap)" % frame_size, fontsize=8)
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
    axes.set_xlabel("offered load, %s" % unit)
    axes.set_ylabel("loss, %% (symlog: linear below %g %%)" % threshold)
    axes.set_title("%s: %s %s %d B, %s%s" % (document["datapath"], profile["scenario"], profile["protocol"], profile["frame_size"], document["run_id"],
                                             ", %d repeats" % len(searches) if len(searches) > 1 else ""), fontsize=9, loc="left")
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
    groups = sorted({(key[1], key[2], key[3]) for key in table})
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
    axes.set_xticklabels(["%s\n%s %d B" % group for group in groups], fontsize=8)
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
                images["loss-%s-%d.png" % (document["run_id"], size)] = (
                    "loss against offered load: %s, %d B" % (document["run_id"], size), loss_plot(document, searches))
    images.update(plotdata.flow_plots(rows))
    return images


def write_if_changed(path, data, check_mode):
    if os.path.exists(path):
        with open(path, "rb") as handle:
            if handle.read() == data:
                return False
    if not check_mode:
        with open(path, "wb") as handle:
            handle.write(data)
    return True


def results_dir_error(path, check_mode):
    """Why ``path`` cannot be read as a results directory; ``None`` also for a directory that a benchmark
    in check mode has not made yet (the report then says what it would write)."""
    if os.path.isdir(path) or (check_mode and not os.path.exists(path)):
        return None
    if os.path.exists(path):
        return "results_dir: %s is not a directory; give the directory trex_bench writes its results to" % path
    return "results_dir: %s does not exist; run the benchmark first (trex_bench writes its results there), or fix the path" % path


def main():
    module = AnsibleModule(
        argument_spec={
            "results_dir": {"type": "path", "required": True},
            "output_dir": {"type": "path"},
            "compare": {"type": "list", "elements": "str"},
            "compare_goal": {"type": "str", "default": "pdr"},
            "title": {"type": "str", "default": "offload.testbed benchmark"},
            "plots": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    params = module.params
    error = report.compare_error(params["compare"])
    if error:
        module.fail_json(msg=error)
    error = results_dir_error(params["results_dir"], module.check_mode)
    if error:
        module.fail_json(msg=error)
    if params["plots"] and not HAS_MATPLOTLIB:
        module.fail_json(msg=missing_required_lib("matplotlib") + " (or set plots: false)", exception=MATPLOTLIB_ERROR)
    output_dir = params["output_dir"] or report_dir(params["results_dir"])
    ran = os.path.isdir(params["results_dir"])
    documents, skipped = read_documents(params["results_dir"]) if ran else ([], [])
    rows = report.rows_of(documents)
    images = plots(report.shown_documents(documents, rows), rows) if params["plots"] and rows else {}
    tables, entries = report.tables_of(documents, params["compare"], params["compare_goal"], [(caption, name) for name, (caption, _data) in images.items()])
    files = {
        "report.md": markdown(params["title"], tables).encode("utf-8"),
        "report.html": to_html(params["title"], tables).encode("utf-8"),
    }
    files.update({name: data for name, (_caption, data) in images.items()})
    changed = False
    if not os.path.isdir(output_dir):
        changed = True
        if not module.check_mode:
            os.makedirs(output_dir)
    for name, data in sorted(files.items()):
        changed = write_if_changed(os.path.join(output_dir, name), data, module.check_mode) or changed
    result = {"changed": changed, "files": [os.path.join(output_dir, name) for name in sorted(files)], "runs": len(documents), "speedups": entries}
    if skipped:
        result["warnings"] = ["skipped unreadable result file %s" % item for item in skipped]
    if not ran:
        result["msg"] = ("check mode: %s does not exist yet (no benchmark has written results there); the report would be written to %s: %s"
                         % (params["results_dir"], output_dir, ", ".join(sorted(files))))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
