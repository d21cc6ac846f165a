# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""bench_report_evidence: the cells of the offload evidence table from trial records as the bench writes them (offload_use,
cpu_use, queue_spread over readings of real outputs; the whole way through in plugin_utils/bench/test_bench_offload.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import evidence as ev
from ansible_collections.offload.testbed.plugins.module_utils.bench import offload_facts as of
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture as tool_fixture


def offload(offloaded, software, conntrack=None):
    """A DOCA datapath's record: PMD threads and a flow offloaded:yes, dp:doca (no TC layer, so no TC share)."""
    before = {"flows": {"f": {"dp": "doca", "offloaded": "yes", "packets": 0}}, "all_flows": False, "pmd": {"pmd1": {"packets_received": 0}},
              "tc": None, "conntrack": None, "queues": None}
    after = dict(before, flows={"f": {"dp": "doca", "offloaded": "yes", "packets": offloaded}}, pmd={"pmd1": {"packets_received": software}},
                 conntrack=conntrack)
    return of.offload_use(before, after)


def kernel_tc(grown_tc, grown_ovs, in_hw=0):
    """A kernel datapath record with hw-offload, every flow dumped: the flows of the veth fixture (one dp:tc not_in_hw, two
    dp:ovs), the dp:tc flow grown by ``grown_tc`` packets, the dp:ovs one to p2 by ``grown_ovs``, and a dp:tc offloaded:yes
    flow (a ConnectX's) by ``in_hw``."""
    flows = of.flow_counters(parse_dump_flows(tool_fixture("ovs_tc/ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt")))
    flows["hw"] = {"dp": "tc", "offloaded": "yes", "packets": 0}
    grown = {"f8c9546b-6bfc-46a9-b901-a44f39bfff71": grown_tc, "a1957f09-85c5-4240-a690-4eb0bbcc467a": grown_ovs, "hw": in_hw}
    later = dict((key, dict(flow, packets=flow["packets"] + grown.get(key, 0))) for key, flow in flows.items())
    reading = {"all_flows": True, "pmd": {}, "tc": None, "conntrack": None, "queues": None}
    return of.offload_use(dict(reading, flows=flows), dict(reading, flows=later))


def cpu(share, others, cycles, packets):
    return {"pmd_threads": [{"name": "pmd-c01/id:5", "share": share}], "others": others,
            "pmd_stats": [{"thread": "pmd1", "processing_cycles": cycles, "packets": packets}]}


def search(trials, index):
    return {"trials": trials, "result": {"goals": {"pdr": {"lower_bound_trial": index}}}}


def test_the_trials_at_the_bound_one_per_repeat():
    first, second = {"load": 1.0}, {"load": 2.0}
    assert ev.bound_trials([search([first, second], 1), search([first], 0), search([second], None)], "pdr") == [second, first]
    assert ev.bound_trials([search([first], 0)], "ndr") == []


def test_medians_over_the_repeats_and_the_cells():
    trials = [{"offload": offload(90, 10), "cpu": cpu(1.0, 0.4, 2000, 10)}, {"offload": offload(80, 20), "cpu": cpu(0.98, 0.6, 3000, 10)},
              {"offload": offload(97, 3, {"entries": 10, "offload": 0, "hw_offload": 8}), "cpu": cpu(0.99, 0.5, 2500, 10)}]
    found = ev.evidence_of(trials)
    assert found["offloaded_share"] == 0.9 and not found["software_only"]
    assert ev.offloaded_cell(found) == "90.0 % offloaded" and ev.cores_cell(found) == "0.99 PMD + 0.50 other"
    assert found["cycles_per_packet"] == 250.0
    # 1 Mpps of 64 B is 0.672 Gb/s on the wire, over 1.49 cores
    assert ev.per_core_cell(found, 1e6, 64) == "0.451 Gbps"
    assert ev.note_cell(found) == "conntrack: 8 of 10 entries in the NIC (HW_OFFLOAD), 0 in a flowtable (OFFLOAD)"


def test_nothing_offloaded_is_said_plainly():
    found = ev.evidence_of([{"offload": offload(0, 1000)}])
    assert found["software_only"] and ev.offloaded_cell(found) == ev.SOFTWARE_ONLY == "0 % offloaded, every packet in software"
    assert ev.cores_cell(found) == "-" and ev.per_core_cell(found, 1e6, 64) == "-"


def test_unknown_and_unrecorded():
    unknown = ev.evidence_of([{"offload": of.offload_use(of.evidence_of({}) or {}, {})}])
    assert ev.offloaded_cell(unknown) == "not known" and "not known" in ev.note_cell(unknown)
    nothing = ev.evidence_of([{"load": 1.0}])
    assert not nothing["recorded"] and ev.offloaded_cell(nothing) == "-" and ev.spread_cell(nothing) == "-"


def test_spread_per_device():
    iavf = {"counter": "rx-N.packets", "packets": {"0": 0, "1": 0, "2": 142, "3": 0}}
    zero = dict(iavf, packets=dict((queue, 0) for queue in iavf["packets"]))
    even = {"counter": "rxN_packets", "packets": {"0": 500, "1": 500}}
    trial = {"rx_queues": of.rx_queue_use({"queues": {"p0": zero, "p1": dict(even, packets={"0": 0, "1": 0})}},
                                          {"queues": {"p0": iavf, "p1": even}})}
    assert ev.spread_cell(ev.evidence_of([trial])) == "p0: 4.00 (1 of 4 queues); p1: 1.00 (2 of 2 queues)"


def test_no_table_without_evidence():
    row = {"datapath": "netdev", "scenario": "routing", "protocol": "udp", "frame_size": 64, "goal": "pdr", "lower_bound": 1e5,
           "bound_trials": [{"load": 1e5}]}
    assert ev.evidence_table([row]) is None
    header, lines, notes = ev.evidence_table([dict(row, bound_trials=[{"offload": offload(0, 10)}])])
    assert dict(zip(header, lines[0]))["offloaded"] == ev.SOFTWARE_ONLY and len(notes) == 2


def test_the_tc_share_stands_beside_the_hardware_share():
    lab = ev.evidence_of([{"offload": kernel_tc(3000, 1000)}, {"offload": kernel_tc(4000, 0)}, {"offload": kernel_tc(1000, 1000)}])
    # 0.75, 1.0 and 0.5 of the packets in TC: the median 0.75; none in hardware
    assert lab["offloaded_share"] == 0.0 and lab["tc_share"] == 0.75 and lab["software_only"]
    assert ev.offloaded_cell(lab) == "0.0 % in hardware, 75.0 % in TC"
    connectx = ev.evidence_of([{"offload": kernel_tc(1000, 1000, in_hw=8000)}])
    assert ev.offloaded_cell(connectx) == "80.0 % in hardware, 90.0 % in TC" and not connectx["software_only"]
    # records without a TC count (a DOCA datapath, results of an older bench) keep the hardware share alone
    doca = ev.evidence_of([{"offload": offload(90, 10)}, {"offload": dict(offload(80, 20), tc_share=None)}])
    assert doca["tc_share"] is None and ev.offloaded_cell(doca) == "85.0 % offloaded"
    assert ev.offloaded_cell({"offloaded_share": 0.5, "software_only": False, "notes": []}) == "50.0 % offloaded"


def test_the_kernel_lab_table_says_where_its_packets_ran():
    row = {"datapath": "system", "scenario": "routing", "protocol": "udp", "frame_size": 64, "goal": "pdr", "lower_bound": 1e5,
           "bound_trials": [{"offload": kernel_tc(4000, 0)}]}
    header, lines, notes = ev.evidence_table([row])
    assert dict(zip(header, lines[0]))["offloaded"] == "0.0 % in hardware, 100.0 % in TC"
    assert "in TC" in notes[0] and "not_in_hw" in notes[0]
    assert notes[1].startswith("Every packet of the trials at the bounds of system ran in software") and "skip_hw" in notes[1]
