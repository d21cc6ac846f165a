# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the ovs and ovn_controller roles: thin wrappers of module_utils.ovs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils import ovs, validate


def ovs_switch_spec(config):
    """The ovs role's variables (no prefix) -> the ovs_switch declaration."""
    try:
        return ovs.role_switch(config)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("ovs_switch_spec: %s" % exc)


def ovs_errors(config, isolated=None, prefix="ovs_"):
    """Errors in the ovs role's variables, each naming the variable.

    ``isolated`` is the host's isolated CPUs: ``ovs_isolated_cpus`` as the
    user wrote it (a cpulist or a list of CPU ids), or the text of
    /sys/devices/system/cpu/isolated; None or "" when unknown (not checked).
    """
    if isolated is None or isolated == "":
        return ovs.validate_role(config, isolated=None, prefix=prefix)
    if isinstance(isolated, (list, tuple, set)):
        isolated = ",".join(str(cpu) for cpu in isolated)
    isolated_set, error = validate.cpu_list("%sisolated_cpus" % prefix, isolated)
    if error:
        return [error] + ovs.validate_role(config, isolated=None, prefix=prefix)
    return ovs.validate_role(config, isolated=isolated_set, prefix=prefix)


def ovs_dpdk_memory_errors(config, meminfo, initialized=False, prefix="ovs_"):
    """Hugepages missing for DPDK on the dpdk datapath (``meminfo``: /proc/meminfo; ``initialized``:
    ``Open_vSwitch:dpdk_initialized``), named as the user wrote the variable."""
    return ovs.dpdk_memory_errors(config, meminfo, initialized, prefix=prefix)


def ovn_controller_errors(config, prefix="ovn_controller_"):
    """Errors in the ovn_controller role's variables (no prefix in ``config``), each naming the variable."""
    if isinstance(config, dict):
        return ovs.controller_errors(config, prefix=prefix)
    raise AnsibleFilterError("ovn_controller_errors expects a dict of the role's variables, got %s" % type(config).__name__)


class FilterModule(object):
    """offload.testbed ovs filters."""

    def filters(self):
        return {"ovs_switch_spec": ovs_switch_spec, "ovs_errors": ovs_errors, "ovs_dpdk_memory_errors": ovs_dpdk_memory_errors,
                "ovn_controller_errors": ovn_controller_errors}
