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

from ansible_collections.offload.testbed.plugins.module_utils.prepare import dpdk_devbind
from ansible_collections.offload.testbed.plugins.module_utils.prepare import hugepages
from ansible_collections.offload.testbed.plugins.module_utils.bench.bench_host import DOCA_PACKAGES, parse_installed
from ansible_collections.offload.testbed.plugins.module_utils.bench.health import parse_pmd_stats_show
from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import parse_devlink_eswitch, parse_devlink_ports
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.flint import parse_flint_psid_mismatch, parse_flint_query
from ansible_collections.offload.testbed.plugins.module_utils.parse.grubby import parse_grubby_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_appctl import parse_pmd_rxq_show
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import testpmd

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))
LAB_FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'modules', 'fixtures', 'virtual_lab'))

# fixture -> the parser that reads it; test_tool_fixtures.py keeps this in
# step with the directory.
PARSER_OF = {
    # dut_health and offload_facts (test_bench_health.py)
    'ovs_appctl_pmd_stats_show_netdev_main_thread_debian12.txt': parse_pmd_stats_show,
    # the testpmd generator (test_testpmd.py)
    'testpmd_startup_af_packet.txt': testpmd.parse_startup,
    'testpmd_startup_no_free_hugepages.txt': testpmd.parse_startup,
    'testpmd_startup_no_such_iface.txt': testpmd.parse_startup,
    'testpmd_startup_one_lcore.txt': testpmd.parse_startup,
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
    'flint_q_cx6lx.txt': parse_flint_query,
    'flint_q_fs4_running_differs.txt': parse_flint_query,
    'mstflint_i_image_q_cx4lx.txt': parse_flint_query,
    'mstflint_cannot_open_device.txt': parse_flint_query,
    'mlxfwmanager_query_cx6lx_update_required.txt': parse_mlxfwmanager,
    'mlxfwmanager_query_cx3pro_running_differs.txt': parse_mlxfwmanager,
    'mlxfwmanager_query_cx5_no_matching_image.txt': parse_mlxfwmanager,
    'mlxfwmanager_update_cx3.txt': parse_mlxfwmanager,
    'grubby_info_all_fedora37.txt': parse_grubby_info,
    'devlink_dev_eswitch_show_two_pfs.txt': parse_devlink_eswitch,
    'devlink_dev_eswitch_show_old_iproute2.txt': parse_devlink_eswitch,
    'devlink_port_show_mlx5_vf_rep.txt': parse_devlink_ports,
    'devlink_port_show_ice_switchdev.txt': parse_devlink_ports,
    'ovs_dpctl_dump_flows_offloaded_cx6_tc.txt': parse_dump_flows,
    'ovs_dpctl_dump_flows_m_dummy_offload.txt': parse_dump_flows,
    'ovs_appctl_pmd_rxq_show_dual_numa.txt': parse_pmd_rxq_show,
    'ovs_appctl_pmd_rxq_show_lab_dpdk_one_pmd.txt': parse_pmd_rxq_show,
    'ovs_appctl_pmd_rxq_show_lab_dpdk_pmd_core0.txt': parse_pmd_rxq_show,
    # dut_health's bench fingerprint (test_bench_fingerprint.py)
    'dpkg_query_W_abbrev_package_version_debian12.txt': parse_installed,
}

# Captured answers that no parser reads: test_testpmd.py replays them as what
# testpmd prints to the commands the generator sends (fixture -> what it is).
TRANSCRIPTS = {
    'testpmd_txonly_start.txt': "testpmd's answer to start in txonly mode",
    # what the mlnx emulators print (tests/emulators/mlnx, test_mlnx_emulators.py)
    'flint_burn_cx6_downgrade.txt': 'flint burning an image (a downgrade, asked to confirm)',
    'mstflint_burn_cx4lx.txt': 'mstflint burning an image',
    'mlxfwreset_reset_cx4.txt': 'mlxfwreset -y reset',
    'mst_start_cx6lx.txt': 'mst start',
    'mst_status_cx6lx.txt': 'mst status',
    'openibd_restart.txt': '/etc/init.d/openibd restart',
    # what the other emulators print (tests/fixtures/emulated_outputs.yml; tests/unit/test_emulator_outputs.py checks every line)
    'apt_get_install_unable_to_locate_debian12.txt': 'apt-get install of a package no source has',
    'apt_get_install_unsupported_file_debian12.txt': 'apt-get install of a file it cannot take',
    'devlink_dev_eswitch_set_switchdev_failed_mlx5.txt': 'devlink dev eswitch set ... mode switchdev refused by mlx5 (VFs exist)',
    'devlink_invalid_option_stderr_iproute2_6_1.txt': "devlink's refusal of an option it does not know",
    'devlink_kernel_answers_no_such_device_stderr.txt': 'devlink on a device the kernel does not have',
    'dnf_bad_id_for_repo.txt': 'dnf --repo of a repository id it does not have',
    'dnf_enablerepo_unknown_repo.txt': 'dnf --enablerepo of an unknown repository',
    'dnf_install_no_match.txt': 'dnf install of a package no repository has',
    'doca_kernel_support_built_single_package.txt': "doca-kernel-support's last line",
    'dpkg_query_W_status_debian12.txt': 'dpkg-query -W of installed and missing packages',
    'dpkg_query_W_doca_packages_none_debian12.txt': "dpkg-query -W of dut_health's DOCA packages on a host without them (stderr)",
    'ethtool_f_invalid_argument_stderr.txt': 'ethtool -f refused by the driver',
    'ip_j_link_show_no_such_device_stderr.txt': 'ip -j link show of a device that does not exist',
    'ip_link_set_no_such_device_stderr.txt': 'ip link set of a device that does not exist',
    'ip_link_set_vf_mac_invalid_argument_stderr.txt': 'ip link set ... vf N mac refused',
    'ip_link_show_mlx5_pf_vfs.txt': 'ip link show of an mlx5 PF with its VFs',
    'rpm_q_installed_and_missing_rpm_4_18.txt': 'rpm -q of installed and missing packages',
    'rpmbuild_illegal_char_caret_in_name_rpm_4_18.txt': "rpmbuild's refusal of a '^' in a package name",
    'systemctl_start_unit_not_found.txt': 'systemctl start of a unit that does not exist',
    # what the dpdk emulators' modprobe prints for a module the host does not have (tests/emulators/dpdk/modprobe)
    'modprobe_n_not_found_firecracker.txt': 'modprobe -n of a module the kernel does not have',
}


def fixture(name):
    """The text of tests/fixtures/NAME."""
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def lab_fixture(name):
    """The text of tests/unit/plugins/modules/fixtures/virtual_lab/NAME."""
    with open(os.path.join(LAB_FIXTURES, name)) as handle:
        return handle.read()


def system_reads(bin_dir="/usr/bin"):
    """What dut_health's ``system`` reads besides the switch's other_config, versions and NICs, answered as on this
    project's Debian 12 machine: no DOCA package installed, Open vSwitch without DPDK."""
    return {
        (bin_dir + "/ovs-vsctl", "--timeout=5", "--format=json", "--columns=dpdk_version", "list", "Open_vSwitch"): (
            0, fixture("ovs_vsctl_list_open_vswitch_dpdk_version_lab.json"), ""),
        (bin_dir + "/dpkg-query", "-W", "-f", "${db:Status-Abbrev}\t${Package}\t${Version}\n") + DOCA_PACKAGES: (
            1, "", fixture("dpkg_query_W_doca_packages_none_debian12.txt")),
    }
