# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the ovs role: thin wrappers of module_utils.ovs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils import ovs


def ovs_switch_spec(config):
    """The ovs role's variables (no prefix) -> the ovs_switch declaration."""
    try:
        return ovs.role_switch(config)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("ovs_switch_spec: %s" % exc)


def ovs_errors(config, isolated=None, prefix="ovs_"):
    """Errors in the ovs role's variables, each naming the variable."""
    isolated_set = None
    if isolated is not None and isolated != "":
        isolated_set = ovs.isolated_from_sysfs(isolated) if isinstance(isolated, str) else set(int(c) for c in isolated)
    return ovs.validate_role(config, isolated=isolated_set, prefix=prefix)


class FilterModule(object):
    """offload.testbed ovs filters."""

    def filters(self):
        return {"ovs_switch_spec": ovs_switch_spec, "ovs_errors": ovs_errors}
