# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The offload evidence and CPU cost of the benchmark report: what ran where at each bound, and what it cost.

Each bound rests on a trial (``lower_bound_trial`` of the goal); the bench
records with every trial where its packets ran (``offload``), the DUT's CPU
use (``cpu``) and, when read, how the packets spread over the receive queues
(``rx_queues``). This table shows them for the trials at the bounds of the
bounds table, the median over the repeats, next to the throughput: so that
"DOCA 16x" stands next to the proof that its flows were on the card
(docs/offload_evidence.md).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.bench import stats
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import TRIAL_EVIDENCE

SOFTWARE_ONLY = "0 % offloaded, every packet in software"
NOTE = ("Offloaded: the share of the packets of the trial at the bound that the NIC handled, offloaded / (offloaded + software): "
        "offloaded are the packets of the datapath flows marked offloaded:yes (ovs-appctl dpctl/dump-flows -m, dp:doca or dp:tc), else of "
        "the tc filters in_hw; software are the packets the PMD threads received (pmd-stats-show; a packet the NIC handles never reaches "
        "them), else of the flows left in software, else of the tc filters not_in_hw; both counted between the readings before and after "
        "the trial. Where the TC count is known the cell reads \"X % in hardware, Y % in TC\": in TC is the share, over the same total, "
        "of the packets of the datapath flows whose layer is TC (dp:tc) whether in hardware or not (a flower rule not_in_hw, as "
        "tc-policy=skip_hw makes, prints dp:tc without offloaded:yes, so it counts in TC and in software), from every flow dumped (kernel "
        "datapath with hw-offload), else from all the tc filters read (in_hw and not_in_hw); on the kernel datapath the rest ran in the "
        "kernel datapath's own flows (dp:ovs). Cores: the PMD threads' CPU time over the trial's wall time (a busy-polling PMD thread is "
        "1.00 core whether it forwards or not) and the rest of the DUT's busy CPU time (kernel, softirq, the other threads, steal), from "
        "/proc/stat and the threads' /proc stat; Gbps (L1) per core is the bound over both. Cycles per packet: the PMD threads' "
        "processing cycles over the packets they received (pmd-stats-show), the cost of a packet in software. RX queue spread: the "
        "busiest receive queue's packets over the mean of the device's queues during the trial (ethtool -S; 1.00 is even, the number of "
        "queues is all on one). Every figure is the median over the repeats' trials at the bound; \"-\" was not recorded.")


def _median(values):
    values = [value for value in values if value is not None]
    return stats.median(values) if values else None


def bound_trials(repeats, goal):
    """The trials the goal's lower bound rests on, one per repeat that has one (``lower_bound_trial`` of the goal)."""
    trials = []
    for search in repeats:
        index = ((search.get("result") or {}).get("goals") or {}).get(goal, {}).get("lower_bound_trial")
        if index is not None and index < len(search.get("trials") or []):
            trials.append(search["trials"][index])
    return trials


def _pmd_cores(cpu):
    threads = cpu.get("pmd_threads") or []
    shares = [thread.get("share") for thread in threads if thread.get("share") is not None]
    return sum(shares) if shares else (0.0 if cpu.get("others") is not None else None)


def _cycles_per_packet(cpu):
    rows = [row for row in cpu.get("pmd_stats") or [] if row.get("packets")]
    packets = sum(row["packets"] for row in rows)
    return sum(row.get("processing_cycles", 0) for row in rows) / float(packets) if packets else None


def _spread(trials):
    """``{device: (median max_over_mean, median queues with traffic, queue count, note)}`` of the trials' ``rx_queues``."""
    devices = sorted({dev for trial in trials for dev in (trial.get("rx_queues") or {})})
    found = {}
    for dev in devices:
        records = [(trial.get("rx_queues") or {}).get(dev) for trial in trials]
        records = [record for record in records if record]
        if records:
            found[dev] = (_median([record.get("max_over_mean") for record in records]),
                          _median([record.get("queues_with_traffic") for record in records]),
                          records[-1].get("queue_count"), records[-1].get("note"))
    return found


def evidence_of(trials):
    """What the trials at a bound show: ``offloaded_share``, ``tc_share`` (None when no record counted TC's packets, as
    results of an older bench), ``software_only`` (every packet in software), ``pmd_cores``, ``other_cores``,
    ``cycles_per_packet``, ``spread`` (``_spread``), ``notes`` (of the offload records)."""
    offloads = [trial["offload"] for trial in trials if trial.get("offload")]
    cpus = [trial["cpu"] for trial in trials if trial.get("cpu")]
    shares = [record.get("offloaded_share") for record in offloads]
    return {"offloaded_share": _median(shares), "tc_share": _median([record.get("tc_share") for record in offloads]),
            "recorded": any(trial.get(name) for trial in trials for name in TRIAL_EVIDENCE),
            "software_only": bool(offloads) and all(share == 0.0 for share in shares),
            "pmd_cores": _median([_pmd_cores(cpu) for cpu in cpus]), "other_cores": _median([cpu.get("others") for cpu in cpus]),
            "cycles_per_packet": _median([_cycles_per_packet(cpu) for cpu in cpus]), "spread": _spread(trials),
            "notes": sorted({note for record in offloads for note in record.get("notes") or []}),
            "conntrack": ([record["conntrack"] for record in offloads if record.get("conntrack")] or [None])[-1]}


def note_cell(evidence):
    """The offload records' notes, and the conntrack entries offloaded after the last trial at the bound when they were read."""
    notes = list(evidence["notes"])
    conntrack = evidence.get("conntrack")
    if conntrack:
        notes.append("conntrack: %d of %d entries in the NIC (HW_OFFLOAD), %d in a flowtable (OFFLOAD)"
                     % (conntrack.get("hw_offload", 0), conntrack.get("entries", 0), conntrack.get("offload", 0)))
    return "; ".join(notes)


def _percent(share):
    return "not known" if share is None else "%.1f %%" % (100.0 * share)


def offloaded_cell(evidence):
    """``X % in hardware, Y % in TC`` when the TC share is known, else the hardware share alone (``SOFTWARE_ONLY`` at 0)."""
    if evidence.get("tc_share") is not None:
        return "%s in hardware, %s in TC" % (_percent(evidence["offloaded_share"]), _percent(evidence["tc_share"]))
    if evidence["software_only"]:
        return SOFTWARE_ONLY
    if evidence["offloaded_share"] is None:
        return "-" if not evidence["notes"] else "not known"
    return "%.1f %% offloaded" % (100.0 * evidence["offloaded_share"])


def cores_cell(evidence):
    if evidence["pmd_cores"] is None and evidence["other_cores"] is None:
        return "-"
    return "%s PMD + %s other" % tuple("-" if value is None else "%.2f" % value for value in (evidence["pmd_cores"], evidence["other_cores"]))


def per_core_cell(evidence, pps, frame_size):
    cores = (evidence["pmd_cores"] or 0.0) + (evidence["other_cores"] or 0.0)
    gbps = units.gbps_l1(pps, frame_size)
    return units.gbps_text(gbps / cores) if cores and gbps is not None else "-"


def spread_cell(evidence):
    parts = []
    for dev, (ratio, busy, count, note) in sorted(evidence["spread"].items()):
        if ratio is None:
            parts.append("%s: no packet counted per queue" % dev + (" (veth)" if note and "veth" in note else ""))
        else:
            parts.append("%s: %.2f (%g of %d queues)" % (dev, ratio, busy, count))
    return "; ".join(parts) or "-"


def evidence_table(rows):
    """Header, lines and notes of the evidence table, one line per line of the bounds table (``rows``: its rows, the latest
    runs', each with its ``bound_trials``); None when no trial at a bound recorded any evidence (results of an older bench,
    or ``dut_health: false``)."""
    header = ["datapath", "scenario", "protocol", "frame", "goal", "lower bound", "Gbps (L1)", "offloaded", "cores used",
              "Gbps (L1) per core", "cycles per packet (PMD)", "RX queue spread (max / mean)", "note"]
    lines, shown = [], []
    for row in rows:
        evidence = evidence_of(row.get("bound_trials") or [])
        shown.append(evidence)
        lines.append([row["datapath"], row["scenario"], row["protocol"], units.size_text(row["frame_size"]), row["goal"],
                      units.pps_text(row["lower_bound"]), units.gbps_text(units.gbps_l1(row["lower_bound"], row["frame_size"])),
                      offloaded_cell(evidence), cores_cell(evidence), per_core_cell(evidence, row["lower_bound"], row["frame_size"]),
                      "-" if evidence["cycles_per_packet"] is None else "%.0f" % evidence["cycles_per_packet"], spread_cell(evidence),
                      note_cell(evidence)])
    if not any(evidence["recorded"] for evidence in shown):
        return None
    return header, lines, evidence_notes(rows, shown)


def evidence_notes(rows, shown):
    """How to read the table; said plainly when every packet ran in software (the virtual lab)."""
    notes = [NOTE]
    software = sorted({row["datapath"] for row, evidence in zip(rows, shown) if evidence["software_only"]})
    if software:
        notes.append("Every packet of the trials at the bounds of %s ran in software (%s, or 0.0 %% in hardware): no packet was counted "
                     "offloaded (no datapath flow marked offloaded:yes, no tc filter in_hw carried one); on a userspace datapath the PMD "
                     "threads received them all, on the kernel datapath with hw-offload the TC share ran in TC flower rules kept in "
                     "software (tc-policy=skip_hw, not_in_hw). This is what the virtual lab shows: it has no NIC to offload to, and its "
                     "numbers are those of software Open vSwitch." % (", ".join(software), SOFTWARE_ONLY))
    if any(evidence["spread"] and all(value[0] is None for value in evidence["spread"].values()) for evidence in shown):
        notes.append("RX queue spread \"no packet counted per queue\": the driver's per-queue counters did not move during the trial; "
                     "a veth counts per queue only with XDP or GRO on.")
    return notes
