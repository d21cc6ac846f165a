# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""offload_facts: the parsers over real outputs (tests/unit/plugins/modules/fixtures/offload_facts/README.md says where each was
printed) and the arithmetic of two readings (offloaded and software shares, receive queue spread)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.offload.testbed.plugins.module_utils.bench import offload_facts as of
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "modules", "fixtures", "offload_facts")
SHARED = os.path.join(HERE, "..", "..", "..", "fixtures")


def fixture(name, where=FIXTURES):
    with open(os.path.join(where, name)) as handle:
        return handle.read()


def test_tc_filters_in_software_only_count_their_packets_as_software():
    filters = of.parse_tc_filters(fixture("tc_s_filter_show_ingress_not_in_hw_two_flower.txt"))
    assert sorted(filters) == ["flower/802.1Q/10/0/0x1", "flower/802.1Q/20/0/0x1"]
    assert filters["flower/802.1Q/10/0/0x1"] == {"in_hw": False, "in_hw_count": None, "skip_sw": False, "skip_hw": False,
                                                 "packets": 1, "bytes": 42, "hw_packets": None, "sw_packets": None}
    assert of.tc_summary(filters) == {"filters": 2, "in_hw": 0, "not_in_hw": 2, "skip_sw": 0, "skip_hw": 0,
                                      "in_hw_packets": 0, "not_in_hw_packets": 1}


def test_a_skip_sw_filter_in_hardware_counts_its_hardware_packets():
    filters = of.parse_tc_filters(fixture("tc_s_filter_show_skip_sw_in_hw_hardware_stats.txt"))
    assert filters == {"flower/802.1Q/8/0/0x1": {"in_hw": True, "in_hw_count": 1, "skip_sw": True, "skip_hw": False, "packets": 439622505,
                                                 "bytes": 29894330340, "hw_packets": 439622505, "sw_packets": 0}}
    assert of.tc_summary(filters)["in_hw_packets"] == 439622505 and of.tc_summary(filters)["not_in_hw_packets"] == 0


def test_flags_on_the_handle_line_and_without_statistics():
    filters = of.parse_tc_filters(fixture("tc_filter_show_vxlan_calico_ingress_flower_in_hw_bpf_not_in_hw.txt"))
    assert filters["flower/ip/1/0/0x2"]["in_hw"] is True and filters["flower/ip/1/0/0x2"]["in_hw_count"] == 1
    assert filters["bpf/all/49152/0/0x1"]["in_hw"] is False and filters["bpf/all/49152/0/0x1"]["packets"] is None
    assert of.tc_summary(filters)["in_hw"] == 1 and of.tc_summary(filters)["not_in_hw"] == 1


def test_no_filter_is_an_empty_reading():
    # tc -s filter show dev ltb-gen0 ingress on this machine's lab veth printed nothing
    assert of.parse_tc_filters("") == {} and of.tc_summary({})["filters"] == 0 and of.tc_summary(None) is None


def test_conntrack_counts_flowtable_and_hardware_offload():
    assert of.parse_conntrack(fixture("conntrack_L_flowtable_offload_ubicloud.txt")) == {"entries": 6, "offload": 5, "hw_offload": 0}
    assert of.parse_conntrack(fixture("proc_net_nf_conntrack_hw_offload_openwrt.txt")) == {"entries": 1, "offload": 0, "hw_offload": 1}


def test_queue_counters_across_drivers():
    virtio = of.parse_queue_counters(fixture("ethtool_S_virtio_net_two_queues.txt"))
    assert virtio == {"counter": "rx_queue_N_packets", "packets": {"0": 10282181, "1": 10401806}}
    iavf = of.parse_queue_counters(fixture("ethtool_S_iavf_four_queues.txt"))
    assert iavf == {"counter": "rx-N.packets", "packets": {"0": 0, "1": 0, "2": 142, "3": 0}}
    assert of.parse_queue_counters(fixture("ethtool_S_i40e_grep_rx01_joe_damato.txt"))["packets"] == {"0": 57112, "1": 31256}
    mlx5 = of.parse_queue_counters(fixture("ethtool_S_mlx5_grep_rx_packets_63_rings.txt"))
    # rx_packets and rx_packets_phy are the port's totals, no queue
    assert mlx5["counter"] == "rxN_packets" and len(mlx5["packets"]) == 63 and mlx5["packets"]["0"] == 221870072
    veth = of.parse_queue_counters(fixture("ethtool_S_veth_lab_host.txt"))
    assert veth == {"counter": "rx_queue_N_xdp_packets", "packets": {"0": 0}}
    assert of.parse_queue_counters("NIC statistics:\n     peer_ifindex: 2\n") is None


def test_queue_spread_of_two_readings():
    # the mlx5 rings since the driver loaded, against zero: ring 0 carried 221.9 of the rings' 231.5 million, 60.38 x their mean
    mlx5 = of.parse_queue_counters(fixture("ethtool_S_mlx5_grep_rx_packets_63_rings.txt"))
    zero = {"counter": "rxN_packets", "packets": dict((queue, 0) for queue in mlx5["packets"])}
    spread = of.queue_spread(zero, mlx5)
    assert spread["queue_count"] == 63 and spread["queues_with_traffic"] == 63 and spread["max_over_mean"] == 60.382
    iavf = of.parse_queue_counters(fixture("ethtool_S_iavf_four_queues.txt"))
    spread = of.queue_spread(dict(iavf, packets=dict((queue, 0) for queue in iavf["packets"])), iavf)
    assert spread["queues_with_traffic"] == 1 and spread["max_over_mean"] == 4.0 and spread["packets"] == 142


def test_a_veth_that_counted_nothing_says_why():
    veth = of.parse_queue_counters(fixture("ethtool_S_veth_lab_host.txt"))
    spread = of.queue_spread(veth, veth)
    assert spread["max_over_mean"] is None and spread["note"] == of.VETH_NOTE
    assert of.rx_queue_use({"queues": {"ltb-gen0": veth}}, {"queues": {"ltb-gen0": veth, "gone0": None}}) == {"gone0": None, "ltb-gen0": spread}
    assert of.rx_queue_use({}, {}) is None


def test_flows_by_datapath_layer():
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")))
    assert of.flows_by_dp({}, flows) == {"tc": {"flows": 2, "flows_with_packets": 1, "packets": 153, "offloaded": 2},
                                         "ovs": {"flows": 1, "flows_with_packets": 1, "packets": 200, "offloaded": 0}}
    dummy = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_dummy_offload.txt", SHARED)))
    assert of.flows_by_dp({}, dummy)["dummy"]["offloaded"] >= 1
    # without -m there is no layer, nor ufid: the match is the key
    cx6 = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_offloaded_cx6_tc.txt", SHARED)))
    assert list(of.flows_by_dp({}, cx6)) == ["unknown"] and of.flows_by_dp(None, cx6) is None


def reading(flows=None, pmd=None, tc=None, all_flows=False):
    return {"flows": flows, "all_flows": all_flows, "pmd": pmd, "tc": tc, "conntrack": None, "queues": None}


def test_a_userspace_datapath_with_nothing_offloaded_is_all_software():
    before = reading({}, {"main": {"packets_received": 3847}, "pmd1": {"numa": 0, "core": 1, "packets_received": 10}})
    after = reading({}, {"main": {"packets_received": 3847}, "pmd1": {"numa": 0, "core": 1, "packets_received": 1000010}})
    record = of.offload_use(before, after)
    assert record["offloaded_packets"] == 0 and record["software_packets"] == 1000000
    assert record["offloaded_share"] == 0.0 and record["software_share"] == 1.0
    assert record["sources"] == {"offloaded": "dump_flows", "software": "pmd_stats", "tc": None} and record["notes"] == []
    # no flow of the TC layer and no tc filter read: the TC count is not known, without a note (TC carries no userspace flow)
    assert record["tc_packets"] is None and record["tc_share"] is None


def test_offloaded_flows_against_the_pmd_threads():
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")))
    later = dict((key, dict(flow, packets=flow["packets"] + (9847 if flow["offloaded"] == "yes" else 0))) for key, flow in flows.items())
    record = of.offload_use(reading(flows, {"pmd0": {"packets_received": 0}}), reading(later, {"pmd0": {"packets_received": 153}}))
    assert record["offloaded_packets"] == 19694 and record["software_packets"] == 153
    assert record["offloaded_share"] == 0.9923 and record["flows_by_dp"]["tc"]["packets"] == 19694


def test_kernel_datapath_all_flows_and_tc():
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")))
    record = of.offload_use(reading({}, all_flows=True), reading(flows, all_flows=True))
    # new flows count all their packets: 153 offloaded (tc), 200 left in the kernel datapath (ovs)
    assert (record["offloaded_packets"], record["software_packets"]) == (153, 200) and record["sources"]["software"] == "dump_flows"
    tc_before = of.parse_tc_filters(fixture("tc_s_filter_show_ingress_not_in_hw_two_flower.txt"))
    record = of.offload_use(reading(tc={"enp0s3": {}}), reading(tc={"enp0s3": tc_before}))
    assert record["sources"] == {"offloaded": "tc", "software": "tc", "tc": "tc"} and record["software_share"] == 1.0
    assert record["tc"]["enp0s3"]["not_in_hw_packets"] == 1
    # every packet counted came from the tc filters: TC carried them all, and the note says what the total leaves out
    assert (record["tc_packets"], record["tc_share"]) == (1, 1.0) and any("dp:ovs" in note for note in record["notes"])


def test_nothing_known_says_so():
    record = of.offload_use(reading(), reading())
    assert record["offloaded_share"] is None and len(record["notes"]) == 2
    assert of.offload_use(None, reading()) is None


def test_a_deleted_and_added_flow_counts_from_zero():
    before = {"a": {"dp": "tc", "offloaded": "yes", "packets": 500}}
    after = {"a": {"dp": "tc", "offloaded": "yes", "packets": 20}}
    assert of.flows_by_dp(before, after)["tc"]["packets"] == 20


def test_evidence_of_a_dut_health_result_and_device_names():
    health = {"flow_counters": {}, "all_flows": False, "pmd": {}, "offload_facts": {"tc": {"p0": {}}, "conntrack": None, "queues": {}}}
    assert of.evidence_of(health) == {"flows": {}, "all_flows": False, "pmd": {}, "tc": {"p0": {}}, "conntrack": None, "queues": {}}
    assert of.evidence_of(None) is None
    assert of.split_device("ltb-gen/ltb-gen0") == ("ltb-gen", "ltb-gen0") and of.split_device("eth0") == (None, "eth0")


OVS_TC = os.path.join(SHARED, "ovs_tc")


def test_a_tc_flow_not_in_hardware_prints_dp_tc_without_offloaded():
    # hw-offload=true on veths: the flower rule stays in software (not_in_hw), Open vSwitch prints dp:tc and no offloaded:
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt", OVS_TC)))
    assert flows["f8c9546b-6bfc-46a9-b901-a44f39bfff71"] == {"dp": "tc", "offloaded": None, "packets": 1}
    assert flows["a1957f09-85c5-4240-a690-4eb0bbcc467a"] == {"dp": "ovs", "offloaded": None, "packets": 0}
    assert of.flows_by_dp({}, flows) == {"tc": {"flows": 1, "flows_with_packets": 1, "packets": 1, "offloaded": 0},
                                         "ovs": {"flows": 2, "flows_with_packets": 0, "packets": 0, "offloaded": 0}}


def test_the_kernel_datapath_with_tc_in_software_has_a_tc_share_and_no_hardware_share():
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt", OVS_TC)))
    # new flows count all their packets: the one packet of the dp:tc flow, none on the dp:ovs ones
    record = of.offload_use(reading({}, all_flows=True), reading(flows, all_flows=True))
    assert (record["offloaded_packets"], record["software_packets"], record["tc_packets"]) == (0, 1, 1)
    assert (record["offloaded_share"], record["software_share"], record["tc_share"]) == (0.0, 1.0, 1.0)
    assert record["sources"] == {"offloaded": "dump_flows", "software": "dump_flows", "tc": "dump_flows"} and record["notes"] == []
    # a trial that adds 3000 packets to the dp:tc flow and 1000 to the dp:ovs flow that outputs to p2
    grown = {"f8c9546b-6bfc-46a9-b901-a44f39bfff71": 3000, "a1957f09-85c5-4240-a690-4eb0bbcc467a": 1000}
    later = dict((key, dict(flow, packets=flow["packets"] + grown.get(key, 0))) for key, flow in flows.items())
    record = of.offload_use(reading(flows, all_flows=True), reading(later, all_flows=True))
    assert (record["offloaded_packets"], record["software_packets"], record["tc_packets"]) == (0, 4000, 3000)
    assert (record["offloaded_share"], record["tc_share"]) == (0.0, 0.75)


def test_a_connectx_bench_has_both_shares():
    # the ConnectX-6 flows of OVN issue #207 (two dp:tc offloaded:yes, one dp:ovs) beside the not_in_hw dp:tc flow of
    # the veth fixture, as one dump: the in_hw flow counts in both shares, the not_in_hw one in the TC share only
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")))
    flows.update(of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_more_tc_not_in_hw_veth.txt", OVS_TC))))
    record = of.offload_use(reading({}, all_flows=True), reading(flows, all_flows=True))
    assert (record["offloaded_packets"], record["software_packets"], record["tc_packets"]) == (153, 201, 154)
    assert (record["offloaded_share"], record["tc_share"]) == (0.4322, 0.435)
    assert record["flows_by_dp"]["tc"] == {"flows": 3, "flows_with_packets": 2, "packets": 154, "offloaded": 2}


def test_tc_filters_in_software_count_in_tc_and_not_in_hardware():
    filters = of.parse_tc_filters(fixture("tc_s_filter_show_flower_skip_hw_not_in_hw_ovs_ct.txt", OVS_TC))
    assert filters == {"flower/ip/3/0/0x1": {"in_hw": False, "in_hw_count": None, "skip_sw": False, "skip_hw": True,
                                             "packets": 101, "bytes": 151500, "hw_packets": None, "sw_packets": None}}
    in_hw = of.parse_tc_filters(fixture("tc_s_filter_show_skip_sw_in_hw_hardware_stats.txt"))
    record = of.offload_use(reading(tc={"eth0": {}, "p0": {}}), reading(tc={"eth0": filters, "p0": in_hw}))
    assert record["sources"] == {"offloaded": "tc", "software": "tc", "tc": "tc"}
    assert (record["offloaded_packets"], record["software_packets"], record["tc_packets"]) == (439622505, 101, 439622606)
    assert (record["offloaded_share"], record["tc_share"]) == (1.0, 1.0) and record["tc"]["eth0"]["not_in_hw_packets"] == 101


def test_offloaded_flows_only_leave_the_tc_count_unknown_and_say_why():
    flows = of.flow_counters(parse_dump_flows(fixture("ovs_dpctl_dump_flows_m_tc_and_ovs_ovn207.txt")))
    offloaded = dict((key, flow) for key, flow in flows.items() if flow["offloaded"] == "yes")
    record = of.offload_use(reading({}), reading(offloaded))
    assert record["tc_packets"] is None and record["tc_share"] is None and record["sources"]["tc"] is None
    assert any(note.startswith("packets in TC not known") and "all_flows" in note for note in record["notes"])
    # every flow in one reading only is not every flow in both: nothing is counted from the missing ones
    record = of.offload_use(reading(offloaded), reading(flows, all_flows=True))
    assert record["sources"]["software"] is None and record["tc_packets"] is None


def test_a_tc_count_above_the_total_is_capped():
    # the flow dump (dut_health) and the tc filters (offload_facts) are read a moment apart: 105 packets more in the filters
    in_hw = of.parse_tc_filters(fixture("tc_s_filter_show_skip_sw_in_hw_hardware_stats.txt"))
    flows = {"u": {"dp": "tc", "offloaded": "yes", "packets": 439622400}}
    record = of.offload_use(reading({}, tc={"p0": {}}), reading(flows, tc={"p0": in_hw}))
    assert (record["offloaded_packets"], record["software_packets"], record["tc_packets"]) == (439622400, 0, 439622505)
    assert record["tc_share"] == 1.0 and any("capped at 1.0" in note for note in record["notes"])
