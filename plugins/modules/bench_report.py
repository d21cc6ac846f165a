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
      - The runs compared must have one bench fingerprint (C(bench_fingerprint) of each results file, what C(dut_health) read on
        the DUT when the run started), the datapath's fields aside (C(datapath), C(ovs_other_config.*), C(dpdk_version),
        C(pmd_cpus), C(hw_tc_offload.*)). A difference in any other field (a firmware, a kernel, a NIC, isolated CPUs, hugepages,
        the generator) is refused before anything is written, naming every such field with both values; O(compare_accept)
        accepts named ones.
    type: list
    elements: str
  compare_accept:
    description:
      - Fingerprint fields the compared runs may differ in besides the datapath's, as the refusal names them (for example
        C([nics.ens1f0np0.firmware]) for a comparison that is about a firmware update).
    type: list
    elements: str
    default: []
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

import os

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils.bench import fingerprint, results_db
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.draw import HAS_MATPLOTLIB, MATPLOTLIB_ERROR, plots
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import markdown, to_html
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import READABLE_SCHEMA_VERSIONS, report_dir


def read_documents(results_dir):
    """The readable results documents of the directory, and why the others that should be were skipped (a file that is no
    JSON, a results document of a schema this collection does not read; other JSON files are no results and say nothing)."""
    found, skipped = results_db.read_dir(results_dir)
    unreadable = ["%s: %s" % (os.path.basename(item["file"]), item["why"]) for item in skipped if item["why"].startswith(results_db.UNREADABLE)]
    documents = []
    for path, document in found:
        if report.readable(document):
            documents.append(document)
        else:
            unreadable.append("%s: schema_version %r, this collection reads %s" % (
                os.path.basename(path), document.get("schema_version"), ", ".join(str(version) for version in READABLE_SCHEMA_VERSIONS)))
    return documents, unreadable


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
            "compare_accept": {"type": "list", "elements": "str", "default": []},
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
    compared = report.shown_documents(documents, rows) if params["compare"] else []
    prints = fingerprint.by_label(compared, params["compare"] or [])
    refusal = compared and fingerprint.compare_refusal(prints, params["compare"], params["compare_accept"])
    if refusal:
        module.fail_json(msg=refusal)
    unchecked = fingerprint.unrecorded(prints)
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
    result["warnings"] = ["skipped unreadable result file %s" % item for item in skipped]
    if unchecked:
        result["warnings"].append("compare: some of the compared runs did not record %s; the comparison could not check them (set "
                                  "bench_dut_interfaces for the NICs)" % ", ".join(unchecked))
    if not result["warnings"]:
        del result["warnings"]
    if not ran:
        result["msg"] = ("check mode: %s does not exist yet (no benchmark has written results there); the report would be written to %s: %s"
                         % (params["results_dir"], output_dir, ", ".join(sorted(files))))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
