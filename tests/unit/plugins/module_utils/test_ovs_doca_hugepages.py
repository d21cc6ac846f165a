# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hugepages are checked for the doca datapath as for dpdk: OVS-DOCA runs on DPDK's EAL.

/proc/meminfo is a real one (tests/fixtures/dpdk_proc_meminfo_firecracker.txt: 27 of 456 pages of 2 MB free, 54 MB).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.filter.ovs import FilterModule
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture

MEMINFO = fixture("dpdk_proc_meminfo_firecracker.txt")
# The role's defaults on the doca datapath: doca-init on, dpdk-init off (ovs_dpdk_init follows the dpdk datapath).
DOCA = {"datapath": "doca", "doca_init": True, "dpdk_init": False, "dpdk_socket_mem": ""}
memory_errors = FilterModule().filters()["ovs_dpdk_memory_errors"]


def test_the_doca_datapath_needs_free_hugepages():
    assert ovs.dpdk_memory_errors(dict(DOCA, dpdk_socket_mem="1024"), MEMINFO, False) == [
        "ovs_dpdk_socket_mem: 1024 MB of hugepages for DPDK (OVS-DOCA runs on DPDK's EAL), and the host has 54 MB free "
        "(HugePages_Free 27 of 2048 kB); reserve them first (the dpdk_host role's dpdk_host_hugepages, or boot_params), or ask for less"]
    assert ovs.dpdk_memory_errors(dict(DOCA, dpdk_socket_mem="54"), MEMINFO, False) == []


def test_without_socket_memory_doca_needs_some_hugepages():
    no_free = MEMINFO.replace("HugePages_Free:       27", "HugePages_Free:        0")
    assert memory_errors(DOCA, no_free)[0].startswith("ovs_datapath: doca needs hugepages (OVS-DOCA runs on DPDK's EAL), and the host has 0 MB free")
    assert memory_errors(DOCA, MEMINFO) == []


def test_doca_with_the_eal_initialised_or_doca_init_off_is_not_checked():
    big = dict(DOCA, dpdk_socket_mem="4096")
    assert memory_errors(big, MEMINFO, True) == []
    assert memory_errors(dict(big, doca_init=False), MEMINFO, False) == []
    assert memory_errors(dict(big, doca_init=False, dpdk_init=True), MEMINFO, False)[0].startswith("ovs_dpdk_socket_mem: 4096 MB")


def test_the_kernel_and_userspace_datapaths_are_not_checked():
    for datapath in ("system", "netdev"):
        assert memory_errors(dict(DOCA, datapath=datapath, doca_init=False, dpdk_socket_mem="4096"), MEMINFO) == []
