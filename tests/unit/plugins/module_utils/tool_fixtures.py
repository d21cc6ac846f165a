# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The captured tool outputs the parser tests read, and which parser of
module_utils reads each one.

Every file in tests/fixtures is a verbatim tool output (see
tests/fixtures/SOURCES.md). Inline texts in the tests are either variants of
those fixtures (marked as such) or built from a structure documented in
SOURCES.md (marked as such). tests/unit/plugins/modules/fixtures/virtual_lab
holds the ip, ethtool and ovs outputs of a lab the virtual_lab_net module
built (see the README there).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.offload.testbed.plugins.module_utils import dpdk_devbind, hugepages
from ansible_collections.offload.testbed.plugins.module_utils.devlink import parse_devlink_eswitch, parse_devlink_ports
from ansible_collections.offload.testbed.plugins.module_utils.ethtool import parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.flint import parse_flint_psid_mismatch, parse_flint_query
from ansible_collections.offload.testbed.plugins.module_utils.grubby import parse_grubby_info
from ansible_collections.offload.testbed.plugins.module_utils.mlxfwmanager import parse_mlxfwmanager
from ansible_collections.offload.testbed.plugins.module_utils.ovs_appctl import parse_pmd_rxq_show
from ansible_collections.offload.testbed.plugins.module_utils.ovs_dpctl import parse_dump_flows
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import testpmd

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))
LAB_FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'modules', 'fixtures', 'virtual_lab'))

# fixture -> the parser that reads it; test_tool_fixtures.py keeps this in
# step with the directory.
PARSER_OF = {
    # the testpmd generator (test_testpmd.py)
    'testpmd_startup_af_packet.txt': testpmd.parse_startup,
    'testpmd_startup_no_free_hugepages.txt': testpmd.parse_startup,
    'testpmd_startup_no_such_iface.txt': testpmd.parse_startup,
    'testpmd_txonly_show_port_stats.txt': testpmd.parse_port_stats,
    'testpmd_rxonly_show_port_stats.txt': testpmd.parse_port_stats,
    'testpmd_txonly_stop.txt': testpmd.parse_forward_stats,
    'testpmd_rxonly_stop.txt': testpmd.parse_forward_stats,
    # dpdk_host (test_hugepages.py, test_dpdk_devbind.py)
    'dpdk_devbind_status_firecracker_virtio.txt': dpdk_devbind.parse_status,
    'dpdk_ip_o_route_firecracker.txt': dpdk_devbind.active_interfaces,
    'lspci_Dvmmnnk_firecracker_virtio.txt': dpdk_devbind.parse_lspci,
    'lspci_Dvmmnnk_xl710_vfio.txt': dpdk_devbind.parse_lspci,
    'dpdk_proc_meminfo_firecracker.txt': hugepages.parse_meminfo,
    'dpdk_node0_meminfo_firecracker.txt': hugepages.parse_meminfo,
    'dpdk_proc_cpuinfo_flags_firecracker.txt': hugepages.parse_flags,
    'dpdk_proc_mounts_hugetlbfs_firecracker.txt': hugepages.parse_mounts,
    'ethtool_i_mlx5e_rep_switchdev.txt': parse_ethtool_info,
    'ethtool_i_mlx5_core_legacy.txt': parse_ethtool_info,
    'flint_q_bluefield2.txt': parse_flint_query,
    'flint_burn_psid_mismatch.txt': parse_flint_psid_mismatch,
    'mlxfwmanager_query_cx6dx_running_differs.txt': parse_mlxfwmanager,
    'grubby_info_all_fedora37.txt': parse_grubby_info,
    'devlink_dev_eswitch_show_two_pfs.txt': parse_devlink_eswitch,
    'devlink_dev_eswitch_show_old_iproute2.txt': parse_devlink_eswitch,
    'devlink_port_show_mlx5_vf_rep.txt': parse_devlink_ports,
    'devlink_port_show_ice_switchdev.txt': parse_devlink_ports,
    'ovs_dpctl_dump_flows_offloaded_cx6_tc.txt': parse_dump_flows,
    'ovs_dpctl_dump_flows_m_dummy_offload.txt': parse_dump_flows,
    'ovs_appctl_pmd_rxq_show_dual_numa.txt': parse_pmd_rxq_show,
}

# Captured answers that no parser reads: test_testpmd.py replays them as what
# testpmd prints to the commands the generator sends (fixture -> what it is).
TRANSCRIPTS = {
    'testpmd_txonly_start.txt': "testpmd's answer to start in txonly mode",
}


def fixture(name):
    """The text of tests/fixtures/NAME."""
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def lab_fixture(name):
    """The text of tests/unit/plugins/modules/fixtures/virtual_lab/NAME."""
    with open(os.path.join(LAB_FIXTURES, name)) as handle:
        return handle.read()
