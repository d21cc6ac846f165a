# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The offload evidence around every trial, end to end: BenchRun records ``offload``, ``rx_queues`` and ``cpu`` from dut_health
(and offload_facts) readings, the store validates them against docs/results-schema.json, and the report shows them next to the
bounds.

The readings are shaped as the modules return them: counters that grow between the reading before and after each trial, the
queue counters parsed from a real ``ethtool -S`` (fixtures/offload_facts/README.md).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as report
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import evidence
from ansible_collections.offload.testbed.plugins.module_utils.bench.offload_facts import flow_counters, parse_queue_counters
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import FakeGenerator, bench, on_disk

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "modules", "fixtures", "offload_facts")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def cpu_times(step, busy0, busy1, interval=1200):
    """/proc/stat lines after ``step`` intervals of 12 s (1200 ticks per CPU): CPU 0 busy ``busy0`` of them, CPU 1 ``busy1``."""
    cpus = {"cpu0": busy0 * step, "cpu1": busy1 * step}
    times = dict((name, {"user": user, "nice": 0, "system": 0, "idle": interval * step - user, "iowait": 0, "irq": 0, "softirq": 0, "steal": 0})
                 for name, user in cpus.items())
    times["cpu"] = dict((key, times["cpu0"][key] + times["cpu1"][key]) for key in times["cpu0"])
    return times


def readings(offloaded_per_trial=0, queues=None):
    """``health()`` of the bench: the n-th dut_health reading (one before and one after every trial), a PMD thread on CPU 1 that
    polls all the time and receives 1,000,000 packets per interval for 2e9 processing cycles, the other CPU half busy, and
    ``offloaded_per_trial`` packets on a ``dp:doca`` flow."""
    state = {"n": 0}

    def health():
        n = state["n"]
        state["n"] += 1
        reading = {"pid": 1, "start_time": 5, "restarts": 0, "core_dumps": [], "offloaded_flows": 1 if offloaded_per_trial else 0,
                   "offloaded_flows_with_packets": 1 if offloaded_per_trial else 0, "all_flows": False,
                   "flow_counters": {"f1": {"dp": "doca", "offloaded": "yes", "packets": offloaded_per_trial * n}} if offloaded_per_trial else {},
                   "pmd": {"main": {"packets_received": 3}, "pmd1": {"numa": 0, "core": 1, "packets_received": 1000000 * n,
                                                                     "idle_cycles": 10 ** 9 * n, "processing_cycles": 2 * 10 ** 9 * n}},
                   "cpu": {"clk_tck": 100, "monotonic": 100.0 + 12.0 * n, "times": cpu_times(n, 600, 1200),
                           "pmd_threads": [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 1200 * n, "cpu": 1}]}}
        if queues is not None:
            reading["offload_facts"] = {"tc": None, "conntrack": None, "queues": queues(n)}
        return reading
    return health


def kernel_lab(tc_per_trial, ovs_per_trial):
    """``health()`` of a DUT on the kernel datapath with hw-offload and no NIC to offload to, every flow dumped: the flows of
    tests/fixtures/ovs_tc/ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt (one dp:tc not in hardware, two dp:ovs), the dp:tc
    one carrying ``tc_per_trial`` packets a trial and the dp:ovs one to p2 ``ovs_per_trial``; no PMD thread."""
    with open(os.path.join(HERE, "..", "..", "..", "..", "fixtures", "ovs_tc", "ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt")) as handle:
        flows = flow_counters(parse_dump_flows(handle.read()))
    per_trial = {"f8c9546b-6bfc-46a9-b901-a44f39bfff71": tc_per_trial, "a1957f09-85c5-4240-a690-4eb0bbcc467a": ovs_per_trial}
    state, base = {"n": 0}, readings()

    def health():
        n = state["n"]
        state["n"] += 1
        reading = base()
        reading.update(all_flows=True, pmd={}, offloaded_flows=0, offloaded_flows_with_packets=0,
                       flow_counters=dict((key, dict(flow, packets=flow["packets"] + per_trial.get(key, 0) * n)) for key, flow in flows.items()))
        reading["cpu"]["pmd_threads"] = []
        return reading
    return health


def veth(_n):
    return {"ltb-gen0": parse_queue_counters(fixture("ethtool_S_veth_lab_host.txt"))}


def virtio(n):
    """The virtio_net device of the fixture, each trial adding 3 packets to queue 0 for every one on queue 1."""
    counters = parse_queue_counters(fixture("ethtool_S_virtio_net_two_queues.txt"))
    counters["packets"] = {"0": counters["packets"]["0"] + 750000 * n, "1": counters["packets"]["1"] + 250000 * n}
    return {"eth1": counters}


def run_with(tmp_path, health, datapath="netdev"):
    run, _store = bench(tmp_path, FakeGenerator(), datapath=datapath)
    run.health = health
    run.run()
    return on_disk(tmp_path)


def test_the_virtual_lab_records_every_packet_in_software(tmp_path):
    document = run_with(tmp_path, readings(queues=veth))
    trial = document["searches"][0]["trials"][0]
    assert trial["offload"]["offloaded_share"] == 0.0 and trial["offload"]["software_share"] == 1.0
    assert trial["offload"]["sources"] == {"offloaded": "dump_flows", "software": "pmd_stats", "tc": None}
    assert trial["offload"]["tc_packets"] is None and trial["offload"]["tc_share"] is None
    assert trial["offload"]["software_packets"] == 1000000 and trial["offload"]["flows_by_dp"] == {}
    assert trial["rx_queues"]["ltb-gen0"]["max_over_mean"] is None and "veth" in trial["rx_queues"]["ltb-gen0"]["note"]
    assert trial["cpu"]["pmd_stats"][0]["cycles_per_packet"] == 2000.0 and trial["cpu"]["others"] == 0.5
    tables, _entries = report.tables_of([document])
    heading, header, lines, notes = [table for table in tables if table[0] == "Offload evidence and CPU cost at the bounds"][0]
    line = dict(zip(header, lines[0]))
    assert line["offloaded"] == evidence.SOFTWARE_ONLY and line["cores used"] == "1.00 PMD + 0.50 other"
    assert line["cycles per packet (PMD)"] == "2000" and line["RX queue spread (max / mean)"] == "ltb-gen0: no packet counted per queue (veth)"
    assert any(note.startswith("Every packet of the trials at the bounds of netdev ran in software") for note in notes)
    # the table comes right after the bounds table
    names = [table[0] for table in tables if isinstance(table, tuple)]
    assert names[names.index("Bounds per datapath, scenario, protocol and frame size") + 1] == heading


def test_an_offloaded_datapath_shows_its_share_and_queue_spread(tmp_path):
    document = run_with(tmp_path, readings(offloaded_per_trial=9000000, queues=virtio), datapath="doca")
    trial = document["searches"][0]["trials"][0]
    assert trial["offload"]["offloaded_share"] == 0.9 and trial["offload"]["flows_by_dp"]["doca"]["packets"] == 9000000
    assert trial["rx_queues"]["eth1"]["queues"] == {"0": 750000, "1": 250000} and trial["rx_queues"]["eth1"]["max_over_mean"] == 1.5
    rows = report.bound_rows(report.rows_of([document]))
    header, lines, notes = evidence.evidence_table(rows)
    line = dict(zip(header, lines[0]))
    assert line["offloaded"] == "90.0 % offloaded" and line["RX queue spread (max / mean)"] == "eth1: 1.50 (2 of 2 queues)"
    assert not any("ran in software" in note for note in notes)


def test_results_without_evidence_have_no_evidence_table(tmp_path):
    document = run_with(tmp_path, None)
    tables, _entries = report.tables_of([document])
    assert "Offload evidence and CPU cost at the bounds" not in [table[0] for table in tables if isinstance(table, tuple)]
    assert all("offload" not in trial for trial in document["searches"][0]["trials"])


def test_the_kernel_datapath_with_tc_in_software_records_its_tc_share(tmp_path):
    document = run_with(tmp_path, kernel_lab(3000000, 1000000), datapath="system")
    trial = document["searches"][0]["trials"][0]
    assert trial["offload"]["sources"] == {"offloaded": "dump_flows", "software": "dump_flows", "tc": "dump_flows"}
    assert (trial["offload"]["offloaded_packets"], trial["offload"]["software_packets"], trial["offload"]["tc_packets"]) == (0, 4000000, 3000000)
    assert (trial["offload"]["offloaded_share"], trial["offload"]["tc_share"]) == (0.0, 0.75)
    assert trial["offload"]["flows_by_dp"]["tc"] == {"flows": 1, "flows_with_packets": 1, "packets": 3000000, "offloaded": 0}
    header, lines, notes = evidence.evidence_table(report.bound_rows(report.rows_of([document])))
    line = dict(zip(header, lines[0]))
    assert line["offloaded"] == "0.0 % in hardware, 75.0 % in TC" and line["cores used"] == "0.00 PMD + 1.50 other"
    assert any(note.startswith("Every packet of the trials at the bounds of system ran in software") for note in notes)
