# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ovs role's check of where each receive queue is polled, on real ``pmd-rxq-show`` outputs.

``ovs_appctl_pmd_rxq_show_lab_dpdk_one_pmd.txt`` is what the virtual lab's
OVS-DPDK printed right after the ovs role configured it (one PMD thread on
CPU 1, seven wires of one queue each); ``..._dual_numa.txt`` is Open vSwitch's
own test (eight queues of p0 on core 1 of NUMA node 1).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.filter.ovs import FilterModule
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_appctl import parse_pmd_rxq_show
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture

LAB = fixture("ovs_appctl_pmd_rxq_show_lab_dpdk_one_pmd.txt")
# The lab again, run with ovs_other_config {pmd-cpu-mask: "0x1"}: the PMD on core 0, which the role refused.
LAB_CORE0 = fixture("ovs_appctl_pmd_rxq_show_lab_dpdk_pmd_core0.txt")
DUAL_NUMA = fixture("ovs_appctl_pmd_rxq_show_dual_numa.txt")
WIRES = ["ltb-ctl0", "ltb-gen0", "ltb-srv1", "ltb-srv2", "ltb-srv3", "ltb-tsrv0", "ltb-vtep0"]
# The lab's DUT as inventories/virtual/host_vars/lab-dut.yml sets it for `make lab DATAPATH=dpdk`.
LAB_DUT = {"datapath": "dpdk", "pmd_cpu_mask": "0x2", "other_config": {"pmd-maxsleep": "1000"}, "uplink": "",
           "uplink_pmd_rxq_affinity": ""}
rxq_errors = FilterModule().filters()["ovs_pmd_rxq_errors"]


def test_the_lab_capture_has_every_wire_on_the_pmd_of_cpu_1():
    rxqs = parse_pmd_rxq_show(LAB)
    assert [(rxq["port"], rxq["queue"], rxq["core"], rxq["numa"]) for rxq in rxqs] == [(wire, 0, 1, 0) for wire in WIRES]


def test_the_lab_as_configured_passes():
    """Mask 0x2 and CPU 1 declared isolated (ovs_isolated_cpus: "1"): what the role checked on the lab."""
    assert ovs.pmd_rxq_errors(parse_pmd_rxq_show(LAB), LAB_DUT, isolated={1}) == []
    assert rxq_errors(LAB, LAB_DUT, "1") == []


def test_a_queue_outside_the_mask_names_port_queue_core_and_the_mask():
    errors = ovs.pmd_rxq_errors(parse_pmd_rxq_show(LAB), dict(LAB_DUT, pmd_cpu_mask="0xc"))
    assert len(errors) == len(WIRES)
    assert errors[1] == (
        "ovs_pmd_cpu_mask: port ltb-gen0 queue 0 is polled by the PMD thread on core 1 (ovs-appctl dpif-netdev/pmd-rxq-show), "
        "outside the mask 0xc (CPUs 2-3); ovs-vswitchd reads the mask only when it starts: restart it "
        "(ovs-ctl --no-ovsdb-server restart), and give ovs_pmd_cpu_mask CPUs this host has")


def test_a_mask_in_ovs_other_config_is_the_one_in_effect_and_named():
    """ovs_other_config is merged last into other_config: its pmd-cpu-mask is what ovs-vswitchd got."""
    config = dict(LAB_DUT, other_config={"pmd-cpu-mask": "0x1"})
    errors = ovs.pmd_rxq_errors(parse_pmd_rxq_show(LAB), config, isolated={1})
    assert errors and all(error.startswith("ovs_other_config['pmd-cpu-mask']: port ") for error in errors)
    assert "outside the mask 0x1 (CPUs 0)" in errors[0]


def test_the_refusal_the_lab_printed_for_a_mask_on_a_core_that_is_not_isolated():
    config = dict(LAB_DUT, other_config={"pmd-maxsleep": "1000", "pmd-cpu-mask": "0x1"})
    errors = rxq_errors(LAB_CORE0, config, "1")
    assert [error.split(" is polled")[0] for error in errors] == ["ovs_other_config['pmd-cpu-mask']: port %s queue 0" % wire for wire in WIRES]
    assert errors[0] == (
        "ovs_other_config['pmd-cpu-mask']: port ltb-ctl0 queue 0 is polled by the PMD thread on core 0 (ovs-appctl dpif-netdev/pmd-rxq-show), "
        "which is not isolated on this host (isolated: 1); give ovs_other_config['pmd-cpu-mask'] isolated CPUs only, or isolate core 0 "
        "with boot_params (boot_params_isolated_cpus) and reboot")


def test_a_queue_on_a_core_that_is_not_isolated():
    errors = rxq_errors(DUAL_NUMA, {"datapath": "doca", "pmd_cpu_mask": "0x6"}, "2-15,34-47", "dpif-doca/pmd-rxq-show")
    assert len(errors) == 8
    assert errors[7] == (
        "ovs_pmd_cpu_mask: port p0 queue 7 is polled by the PMD thread on core 1 (ovs-appctl dpif-doca/pmd-rxq-show), "
        "which is not isolated on this host (isolated: 2-15,34-47); give ovs_pmd_cpu_mask isolated CPUs only, "
        "or isolate core 1 with boot_params (boot_params_isolated_cpus) and reboot")


def test_nothing_isolated_is_refused_and_unknown_is_not_checked():
    """/sys/devices/system/cpu/isolated of a host that isolates nothing is a newline: no CPU is isolated."""
    assert "(isolated: none)" in rxq_errors(LAB, {"datapath": "dpdk"}, "\n")[0]
    # the role's list of what sysfs isolated (isolated, nohz_full): empty is a host that isolates nothing
    assert "(isolated: none)" in rxq_errors(LAB, {"datapath": "dpdk"}, [])[0]
    assert rxq_errors(LAB, {"datapath": "dpdk"}, ["2-15,34-47", "1"]) == []
    assert rxq_errors(LAB, {"datapath": "dpdk"}, "") == []
    assert rxq_errors(LAB, {"datapath": "dpdk"}) == []


def test_a_queue_of_the_uplink_off_its_pinned_core():
    """The reference bench pinned the uplink's queues (pmd-rxq-affinity) and checked where they were polled."""
    config = {"datapath": "doca", "pmd_cpu_mask": "0x2", "uplink": "p0", "uplink_pmd_rxq_affinity": "0:1,3:2"}
    errors = ovs.pmd_rxq_errors(parse_pmd_rxq_show(DUAL_NUMA), config, isolated={1, 2}, command="dpif-doca/pmd-rxq-show")
    assert errors == [
        "ovs_uplink_pmd_rxq_affinity: port p0 queue 3 is polled by the PMD thread on core 1 (ovs-appctl dpif-doca/pmd-rxq-show), "
        "not by the one on core 2 it is pinned to; put core 2 in ovs_pmd_cpu_mask (a queue pinned outside the mask is moved) "
        "or pin the queue to a core of the mask"]


def test_no_pmd_queue_no_error():
    """The netdev datapath without dpdk ports has no PMD thread: pmd-rxq-show prints its header only (OVS 3.1)."""
    assert rxq_errors("Displaying last 60 seconds pmd usage %\n", LAB_DUT, "1") == []


def test_bad_isolated_cpus_and_bad_config():
    assert rxq_errors(LAB, LAB_DUT, "1-x")[0].startswith("ovs_isolated_cpus: '1-x' is not")
    with pytest.raises(AnsibleFilterError):
        rxq_errors(LAB, "dpdk")
