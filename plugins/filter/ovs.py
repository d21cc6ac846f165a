# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the ovs and ovn_controller roles: thin wrappers of module_utils.datapath.ovs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils.bench import health as bench_health
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_appctl import parse_pmd_rxq_show


def ovs_switch_spec(config):
    """The ovs role's variables (no prefix) -> the ovs_switch declaration."""
    try:
        return ovs.role_switch(config)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("ovs_switch_spec: %s" % exc)


def _isolated(isolated, prefix):
    """``(set or None, [error])`` of ``isolated``: ``ovs_isolated_cpus`` as the user wrote it (a cpulist), or a list of
    CPU ids or cpulists (what the host's sysfs lists: an empty list is a host that isolates nothing); None or "" when
    unknown (not checked)."""
    if isolated is None or isolated == "":
        return None, []
    if isinstance(isolated, (list, tuple, set)):
        isolated = ",".join(str(cpu) for cpu in isolated)
        if not isolated:
            return set(), []
    isolated_set, error = validate.cpu_list(validate.Names(prefix=prefix)("isolated_cpus"), isolated)
    return (None, [error]) if error else (isolated_set, [])


def ovs_errors(config, isolated=None, prefix="ovs_"):
    """Errors in the ovs role's variables, each naming the variable.

    ``isolated`` is the host's isolated CPUs: ``ovs_isolated_cpus`` as the
    user wrote it (a cpulist or a list of CPU ids), or the text of
    /sys/devices/system/cpu/isolated; None or "" when unknown (not checked).
    """
    isolated_set, errors = _isolated(isolated, prefix)
    return errors + ovs.validate_role(config, isolated=isolated_set, prefix=prefix)


def ovs_pmd_rxq_errors(text, config, isolated=None, command="dpif-netdev/pmd-rxq-show", prefix="ovs_"):
    """Receive queues polled outside the PMD mask, outside the isolated CPUs or off their pinned core, from the text of
    ``ovs-appctl COMMAND`` (``dpif-netdev/pmd-rxq-show``, ``dpif-doca/pmd-rxq-show``); ``isolated`` as for :func:`ovs_errors`."""
    if not isinstance(config, dict):
        raise AnsibleFilterError("ovs_pmd_rxq_errors expects a dict of the role's variables, got %s" % type(config).__name__)
    isolated_set, errors = _isolated(isolated, prefix)
    return errors + ovs.pmd_rxq_errors(parse_pmd_rxq_show(text), config, isolated=isolated_set, command=command, prefix=prefix)


def ovs_dpdk_memory_errors(config, meminfo, initialized=False, prefix="ovs_"):
    """Hugepages missing for DPDK's EAL on the dpdk and doca datapaths (``meminfo``: /proc/meminfo; ``initialized``:
    ``Open_vSwitch:dpdk_initialized`` or ``doca_initialized``), named as the user wrote the variable."""
    return ovs.dpdk_memory_errors(config, meminfo, initialized, prefix=prefix)


def ovs_hw_tc_offload_devices(config, prefix="ovs_"):
    """The uplink and representors whose hw-tc-offload the role turns on (hw-offload on the system datapath), each with
    the variable that declares it."""
    if not isinstance(config, dict):
        raise AnsibleFilterError("ovs_hw_tc_offload_devices expects a dict of the role's variables, got %s" % type(config).__name__)
    return ovs.hw_tc_offload_devices(config, prefix=prefix)


def ovs_hw_tc_offload_errors(system):
    """Ports of Open vSwitch's kernel datapath with hw-tc-offload off while hw-offload is on, from ``dut_health``'s
    ``system`` (its ``ovs_other_config`` and ``hw_tc_offload``)."""
    if system is not None and not isinstance(system, dict):
        raise AnsibleFilterError("ovs_hw_tc_offload_errors expects dut_health's system, got %s" % type(system).__name__)
    return bench_health.hw_tc_offload_errors(system)


def ovn_controller_errors(config, prefix="ovn_controller_"):
    """Errors in the ovn_controller role's variables (no prefix in ``config``), each naming the variable."""
    if isinstance(config, dict):
        return ovs.controller_errors(config, prefix=prefix)
    raise AnsibleFilterError("ovn_controller_errors expects a dict of the role's variables, got %s" % type(config).__name__)


class FilterModule(object):
    """offload.testbed ovs filters."""

    def filters(self):
        return {"ovs_switch_spec": ovs_switch_spec, "ovs_errors": ovs_errors, "ovs_dpdk_memory_errors": ovs_dpdk_memory_errors,
                "ovs_pmd_rxq_errors": ovs_pmd_rxq_errors, "ovs_hw_tc_offload_devices": ovs_hw_tc_offload_devices,
                "ovs_hw_tc_offload_errors": ovs_hw_tc_offload_errors, "ovn_controller_errors": ovn_controller_errors}
