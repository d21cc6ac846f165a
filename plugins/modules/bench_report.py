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
  - Writes O(output_dir)/report.md and O(output_dir)/report.html with the bounds of every goal per datapath, scenario,
    protocol and frame size, and, with O(compare), the speedup table of one datapath against another in the form of the ConnectX-6 Lx reference bench's results.
  - With repeats (C(repeat) of M(offload.testbed.trex_bench), schema version 2) every bound is the median of the repeats' bounds, shown with
    their min to max, spread (max - min) / median, relative interquartile range (4 repeats or more; quartiles by linear
    interpolation, Hyndman and Fan's type 7) and the number of repeats. The speedup is median(A) / median(B) with the
    interval min(A) / max(B) to max(A) / min(B) and a verdict in words; the interval leaves out 1 when the ranges of
    the two sides do not overlap (the difference is larger than the spread of the repeats). The report explains both
    under the tables. With one repeat the tables are those of one search per bound, and the report says that no spread
    was measured.
  - The latency table shows, per profile, the latency trials of the first repeat that measured them (repeat 0 normally).
  - Draws PNG plots with matplotlib (needed on the host that runs the module, usually the controller); loss against
    offered load for every trial of every search (one plot per run and frame size, one colour per repeat), and NDR/PDR
    bars per scenario x protocol x frame size, one group per datapath, the median with the repeats' min to max as error bars.
  - Rewrites a file only when its content changes, so a second run with the same results reports no change.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Reports what would change without writing.
  diff_mode:
    support: none
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
      - Two labels C([A, B]) of the results' C(datapath) (a datapath, or a variant name of C(playbooks/compare.yml) such as
        C(netdev-emc)); the speedup table shows A / B of the latest run of each label (the medians of their repeats).
      - The two labels must differ; a label compared with itself is refused.
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
  description: Files of the report.
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
    - The speedup table with O(compare), one entry per scenario x protocol x frame size; empty without O(compare).
    - C(a), C(b) are the medians of the repeats' lower bounds of A and B (with one repeat, the bound), C(speedup) is C(a) / C(b),
      or null when a side is not measured or its median is 0 (C(note) says which).
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
      verdict: "doca is 16.0x system (14.0x to 18.0x over 5 repeats each): larger than the spread"
      note: "doca is 16.0x system (14.0x to 18.0x over 5 repeats each): larger than the spread"
"""

import io
import json
import os
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils import bench_report as report
from ansible_collections.offload.testbed.plugins.module_utils.bench_schema import READABLE_SCHEMA_VERSIONS

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
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


def loss_plot(document, searches):
    """Loss against offered load of one profile's searches (its repeats, one colour each)."""
    profile = searches[0]["profile"]
    figure, axes = plt.subplots(figsize=(7, 4))
    several = len(searches) > 1
    for index, search in enumerate(searches):
        trials = search["trials"]
        final = max(trial["duration"] for trial in trials)
        colour = {"color": "C%d" % (index % 10)} if several else {}
        size = {"s": 16} if several else {}
        for kind, marker, selected in (("short trials", "o", [t for t in trials if t["duration"] < final]),
                                       ("final trials", "s", [t for t in trials if t["duration"] >= final])):
            label = "repeat %d, %s" % (search.get("repeat", 0), kind) if several else kind
            axes.scatter([t["load"] for t in selected], [100.0 * t["loss_ratio"] for t in selected], marker=marker, label=label, **dict(colour, **size))
        for name, goal in (search.get("result") or {}).get("goals", {}).items():
            axes.axvline(goal["lower_bound"], linestyle=":", linewidth=1, **colour)
            if index == 0:
                axes.annotate(name, (goal["lower_bound"], 0), rotation=90, fontsize=7)
    axes.set_xlabel("offered load, frames/s")
    axes.set_ylabel("loss, %")
    axes.set_title("%s: %s %s %d B (%s%s)" % (document["datapath"], profile["scenario"], profile["protocol"], profile["frame_size"], document["run_id"],
                                              ", %d repeats" % len(searches) if several else ""), fontsize=9)
    axes.legend(fontsize=6 if several else 7)
    return png(figure)


def bars_plot(rows):
    table = report.latest(rows)
    groups = sorted({(key[1], key[2], key[3]) for key in table})
    datapaths = sorted({key[0] for key in table})
    goals = [goal for goal in ("ndr", "pdr") if any(key[4] == goal for key in table)] or sorted({key[4] for key in table})[:2]
    figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(groups) * max(1, len(datapaths))), 4))
    width = 0.8 / max(1, len(datapaths) * len(goals))
    for d_index, datapath in enumerate(datapaths):
        for g_index, goal in enumerate(goals):
            offset = (d_index * len(goals) + g_index) * width
            found = [table.get((datapath,) + group + (goal,)) for group in groups]
            values = [row["lower_bound"] if row else 0.0 for row in found]
            # the repeats' min to max around the median (none with one repeat)
            errors = [[row["lower_bound"] - row["summary"]["min"] if row else 0.0 for row in found],
                      [row["summary"]["max"] - row["lower_bound"] if row else 0.0 for row in found]]
            axes.bar([index + offset for index in range(len(groups))], values, width, label="%s %s" % (datapath, goal),
                     yerr=errors if any(row and row["repeats"] > 1 for row in found) else None, capsize=2)
    axes.set_xticks([index + 0.4 - width / 2 for index in range(len(groups))])
    axes.set_xticklabels(["%s %s %d B" % group for group in groups], fontsize=7, rotation=20)
    axes.set_ylabel("frames/s")
    axes.legend(fontsize=7)
    figure.tight_layout()
    return png(figure)


def plots(documents, rows):
    """``{file name: (caption, PNG bytes)}``: the bars, and the loss plot of every run x frame size with trials."""
    images = {"bars.png": ("NDR and PDR per scenario x protocol x frame size", bars_plot(rows))}
    for document in documents:
        for group in report.searches_by_profile(document, complete=False):
            searches = [search for search in group if search.get("trials")]
            if searches:
                size = searches[0]["profile"]["frame_size"]
                images["loss-%s-%d.png" % (document["run_id"], size)] = (
                    "loss against offered load: %s, %d B" % (document["run_id"], size), loss_plot(document, searches))
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
    if not os.path.isdir(params["results_dir"]):
        module.fail_json(msg="results_dir: %s is not a directory" % params["results_dir"])
    if params["plots"] and not HAS_MATPLOTLIB:
        module.fail_json(msg=missing_required_lib("matplotlib") + " (or set plots: false)", exception=MATPLOTLIB_ERROR)
    output_dir = params["output_dir"] or os.path.join(params["results_dir"], "report")
    documents, skipped = read_documents(params["results_dir"])
    rows = report.rows_of(documents)
    tables = [("Bounds per datapath, scenario, protocol and frame size",) + report.results_table(rows) + (report.results_notes(rows),)]
    latency_rows = report.latency_rows_of(documents)
    if latency_rows:
        notes = ["With repeats: the latency trials of the first repeat that measured them (repeat 0 unless it skipped latency)."] \
            if report.repeated(rows) else []
        tables.append(("Latency below the PDR",) + report.latency_table(latency_rows) + (notes,))
    entries = []
    if params["compare"]:
        name_a, name_b = params["compare"]
        entries = report.speedups(rows, name_a, name_b, params["compare_goal"])
        tables.insert(0, ("Speedup of %s over %s (%s)" % (name_a, name_b, params["compare_goal"]),)
                      + report.speedup_table(entries, name_a, name_b) + (report.speedup_notes(entries, name_a, name_b),))
    images = plots(documents, rows) if params["plots"] and rows else {}
    captions = [(caption, name) for name, (caption, _data) in sorted(images.items())]
    files = {
        "report.md": report.markdown(params["title"], tables, captions).encode("utf-8"),
        "report.html": report.to_html(params["title"], tables, captions).encode("utf-8"),
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
    module.exit_json(**result)


if __name__ == "__main__":
    main()
