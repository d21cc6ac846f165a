# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of playbooks/site.yml: thin wrappers of module_utils.host.inventory
and module_utils.host.emulated."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils.host import emulated as emulated_host
from ansible_collections.offload.testbed.plugins.module_utils.host import inventory as inventory_check


def bench_placeholders(hostvars, hosts, names):
    """Placeholders among the variables ``names`` of the inventory's ``hosts``."""
    values = []
    for host in hosts:
        for name in names:
            if name in hostvars[host]:
                values.append((host, name, hostvars[host][name]))
    return inventory_check.placeholders(values)


def emulated_host_errors(values, resolved, root, emulators):
    """Every way the virtual lab's host stages could touch the real machine."""
    if not isinstance(resolved, dict):
        raise AnsibleFilterError('emulated_host_errors expects the resolved programs as a dict, got %s' % type(resolved).__name__)
    return emulated_host.errors(values, resolved, root, emulators)


def emulated_host_programs(values):
    """The programs the guard must find on the host's PATH."""
    return emulated_host.programs(values)


class FilterModule(object):
    """offload.testbed site filters."""

    def filters(self):
        return {'bench_placeholders': bench_placeholders, 'emulated_host_errors': emulated_host_errors,
                'emulated_host_programs': emulated_host_programs}
