# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the tunnel_offload role: thin wrappers of module_utils.datapath.tunnel_offload."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils.datapath import tunnel_offload


def _config(config, name):
    if not isinstance(config, dict):
        raise AnsibleFilterError("%s expects a dict of the role's variables, got %s" % (name, type(config).__name__))
    return config


def tunnel_offload_errors(config, prefix="tunnel_offload_"):
    """Errors in the role's variables (no prefix in ``config``), each naming the variable."""
    return tunnel_offload.validate(_config(config, "tunnel_offload_errors"), prefix=prefix)


def tunnel_offload_switch(config):
    """The ovs_switch declaration of the tunnel bridge and its ports."""
    return tunnel_offload.switch(_config(config, "tunnel_offload_switch"))


def tunnel_offload_underlay(config):
    """Each underlay device with the MTU and features it gets."""
    return tunnel_offload.underlay_requests(_config(config, "tunnel_offload_underlay"))


class FilterModule(object):
    """offload.testbed tunnel_offload filters."""

    def filters(self):
        return {"tunnel_offload_errors": tunnel_offload_errors, "tunnel_offload_switch": tunnel_offload_switch,
                "tunnel_offload_underlay": tunnel_offload_underlay}
