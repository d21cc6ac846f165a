"""bench_report_conditions: what the results files carry to reproduce a number, per datapath label and per run."""
import copy

from ansible_collections.offload.testbed.plugins.module_utils.bench.report import conditions
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import Code

CMDLINE = "BOOT_IMAGE=(hd0,gpt2)/vmlinuz-5.14.0-611.47.1.sl9_7^2.x86_64 intel_iommu=on iommu=pt default_hugepagesz=1G hugepagesz=1G hugepages=32 " \
          "nohz_full=2-15,34-47 rcu_nocbs=2-15,34-47"
NIC = {"driver": "mlx5_core", "version": "24.10-1.1.4", "firmware_version": "26.47.1026", "psid": "LNV0000000033", "bus_info": "0000:32:00.0"}


def trial(load, loss_ratio, duration, minute=0):
    return {"load": load, "loss_ratio": loss_ratio, "duration": duration, "offered": int(load * duration), "generator_limited": False,
            "time": "2026-12-01T10:%02d:00Z" % minute}


def lab_document(datapath="doca", scenario="routing", protocol="udp", run_id=None, nics=True, line_rate=25):
    """A results file as the bench writes it on the ConnectX-6 Lx reference bench (one search at 64 B, bounds 10 and 12 Mpps)."""
    profile = {"scenario": scenario, "protocol": protocol, "frame_size": 64, "direction": "uni", "flows": 100, "vlan": None, "ports": [0, 1]}
    search = {"width": 0.005, "final_duration": 10, "initial_duration": 1, "max_load": 37200000, "min_load": 37200, "warmup_duration": 2,
              "warmup_load": 3720000, "settle": 0.5, "repeat": 1, "latency_loads": [0.1, 0.5, 0.9], "latency_pps": 1000, "latency_duration": 10}
    if line_rate:
        search["line_rate_gbps"] = line_rate
    goals = {"ndr": {"lower_bound": 10e6, "upper_bound": 10.05e6, "loss_ratio": 0.0, "generator_limited": False},
             "pdr": {"lower_bound": 12e6, "upper_bound": 12.06e6, "loss_ratio": 0.005, "generator_limited": False}}
    trials = [trial(37.2e6, 0.6, 1, 1), trial(10e6, 0.0, 10, 2), trial(10.05e6, 1e-6, 10, 3), trial(12e6, 0.004, 10, 4), trial(12.06e6, 0.006, 10, 5)]
    return {
        "schema_version": 2, "run_id": run_id or "%s-%s-%s-20261201T100000" % (datapath, scenario, protocol), "datapath": datapath,
        "created": "2026-12-01T10:00:00Z", "updated": "2026-12-01T10:20:00Z", "status": "complete", "search": search,
        "goals": [{"name": "ndr", "loss_ratio": 0.0}, {"name": "pdr", "loss_ratio": 0.005}],
        "generator": {"client": "trex_stl_lib", "version": {"version": "v3.06", "mode": "STL"}, "ports": [0, 1]},
        "metadata": {"dut_host": "dut01", "dut_system": {
            "hostname": "dut01", "kernel": "5.14.0-611.47.1.sl9_7^2.x86_64", "cmdline": CMDLINE, "ovs_version": "ovs-vswitchd (Open vSwitch) 3.3.8",
            "ovn_version": "ovn-controller 24.03.8", "ovs_other_config": {"hw-offload": "true", "doca-init": "true"},
            "nics": {"ens3f0np0": dict(NIC)} if nics else {}}},
        "searches": [{"profile": profile, "repeat": 0, "status": "complete", "result": {"goals": goals}, "trials": trials}],
    }


def test_the_conditions_of_one_run():
    document = lab_document()
    assert conditions.dut_host(document) == "dut01"
    assert conditions.dut_host(dict(document, metadata={"dut_host": "lab-dut", "dut_system": {"hostname": "vm"}})) == "lab-dut (hostname vm)"
    assert conditions.other_config(document) == "doca-init=true, hw-offload=true" and isinstance(conditions.other_config(document), Code)
    assert conditions.nics(document) == "ens3f0np0: mlx5_core 24.10-1.1.4, firmware 26.47.1026, PSID LNV0000000033, 0000:32:00.0"
    assert conditions.nics(lab_document(nics=False)) == "not recorded: set bench_dut_interfaces"
    assert conditions.generator(document) == "trex_stl_lib v3.06 (STL), ports 0, 1"
    assert conditions.durations(document["search"]) == "initial 1 s, final 10 s, warm-up 2 s at 3.72 Mpps"
    assert conditions.width(document["search"]) == "0.005 (bounds within 0.5 %)"
    assert conditions.line_rate(document["search"]) == "25 Gb/s per port"
    assert conditions.line_rate({}) == "not recorded: set bench_line_rate_gbps"
    assert conditions.latency(document["search"]) == "at 10, 50, 90 % of the PDR, 1000 frames/s, 10 s each"


def test_a_nic_part_not_known_is_a_dash():
    assert conditions.nic_text("eth0", {"driver": "virtio_net"}) == "eth0: virtio_net, firmware -, PSID -, -"


def test_profile_values_are_distinct_and_sorted():
    document = lab_document()
    other = copy.deepcopy(document["searches"][0])
    other["profile"]["frame_size"] = 1518
    document["searches"] = [other] + document["searches"]
    assert conditions.profile_values(document, "frame_size", lambda size: "%d B" % size) == "64 B, 1518 B"
    assert conditions.profile_values(document, "vlan") == "-"


def test_the_table_has_a_column_per_label_and_values_once():
    documents = [lab_document("system", line_rate=None, nics=False), lab_document("doca"), lab_document("doca", protocol="tcp")]
    header, lines = conditions.conditions_table(documents)
    assert header == ["condition", "doca", "system"]
    table = {line[0]: line[1:] for line in lines}
    assert [line[0] for line in lines][:9] == ["DUT host", "kernel", "kernel command line", "Open vSwitch", "OVN", "Open_vSwitch other_config",
                                               "NIC: driver, firmware, PSID, bus", "hw-tc-offload of the kernel datapath's ports (with hw-offload)",
                                               "generator"]
    assert table["kernel"] == ["5.14.0-611.47.1.sl9_7^2.x86_64"] * 2
    assert table["kernel command line"] == [CMDLINE, CMDLINE] and isinstance(table["kernel command line"][0], Code)
    assert table["Open vSwitch"] == ["ovs-vswitchd (Open vSwitch) 3.3.8"] * 2
    assert table["line rate"] == ["25 Gb/s per port", "not recorded: set bench_line_rate_gbps"]
    # the runs in run id order: doca-routing-tcp before doca-routing-udp
    assert table["protocols"] == ["tcp; udp", "udp"]
    assert table["runs"] == ["doca-routing-tcp-20261201T100000; doca-routing-udp-20261201T100000", "system-routing-udp-20261201T100000"]
    # when the trials ended, not when the file was created or last rewritten
    assert table["measured (first to last trial)"] == ["2026-12-01T10:01:00Z to 2026-12-01T10:05:00Z"] * 2
    notes = conditions.conditions_notes(documents)
    assert any("bench_line_rate_gbps" in note for note in notes) and any("bench_dut_interfaces" in note for note in notes)
    assert len(conditions.conditions_notes(documents[1:])) == 1


def test_the_runs_table_has_a_line_per_run():
    header, lines = conditions.runs_table([lab_document("doca")])
    assert header == ["run id", "datapath", "scenario", "protocol", "frame sizes", "repeats", "status", "first trial", "last trial"]
    assert lines == [["doca-routing-udp-20261201T100000", "doca", "routing", "udp", "64 B", "1", "complete", "2026-12-01T10:01:00Z",
                      "2026-12-01T10:05:00Z"]]


def test_a_resumed_run_that_measured_nothing_reports_the_same():
    # a second converge resumes the finished run: the document's updated and resumed change, its trials do not
    document = lab_document()
    again = copy.deepcopy(document)
    again.update(updated="2026-12-02T08:00:00Z", resumed=1)
    assert conditions.conditions_table([again]) == conditions.conditions_table([document])
    assert conditions.runs_table([again]) == conditions.runs_table([document])


def test_the_compare_variant_is_shown_as_given():
    document = lab_document("netdev-noemc")
    document["metadata"]["compare_variant"] = {"name": "netdev-noemc", "datapath": "netdev", "other_config": {"emc-insert-inv-prob": "0"}}
    table = dict((line[0], line[1]) for line in conditions.conditions_table([document])[1])
    assert table["compare.yml variant"] == 'datapath=netdev, name=netdev-noemc, other_config={"emc-insert-inv-prob": "0"}'
    assert conditions.conditions_table([lab_document()])[1][21] == ["compare.yml variant", "-"]


def test_hw_tc_offload_of_the_kernel_datapaths_ports():
    """dut_health reads it with hw-offload on (the ConnectX-6 Dx ASAP2 bench); the reference bench's OVS-DOCA has no such ports."""
    document = lab_document(datapath="system-hw-offload")
    document["metadata"]["dut_system"]["hw_tc_offload"] = {"ens1f0npf0vf0": False, "ens1f0np0": True, "ens1f0npf0vf1": None}
    assert conditions.hw_tc_offload(document) == "ens1f0np0 on, ens1f0npf0vf0 off, ens1f0npf0vf1 not listed"
    assert conditions.hw_tc_offload(lab_document()) == "-"
    table = dict(conditions.conditions_table([document])[1][i] for i in range(len(conditions.CONDITIONS)))
    assert table["hw-tc-offload of the kernel datapath's ports (with hw-offload)"] == "ens1f0np0 on, ens1f0npf0vf0 off, ens1f0npf0vf1 not listed"


def test_a_comparison_falls_back_to_lower_bounds_when_a_side_has_no_conditional_throughput():
    from ansible_collections.offload.testbed.plugins.module_utils.bench.report import tables as bench_report  # pylint: disable=import-outside-toplevel
    summary = {"lower_bounds": [2.0, 2.0], "repeats": 2, "generator_limited": False, "generator_limited_repeats": 0}
    row = {"lower_bound": 2.0, "repeats": 2, "repeats_planned": 2, "summary": summary, "generator_limited": False}
    newer = dict(row, conditional_throughputs=[1.9, 1.9])
    older = dict(row, summary=dict(summary, lower_bounds=[1.0, 1.0]), lower_bound=1.0, conditional_throughputs=[None, None])
    entry = bench_report.speedup_entry(newer, older, "a", "b")
    assert (entry["basis"], entry["speedup"]) == ("lower bound", 2.0)
    both = bench_report.speedup_entry(newer, dict(older, conditional_throughputs=[0.95, 0.95]), "a", "b")
    assert (both["basis"], both["speedup"]) == ("conditional throughput", 2.0)
