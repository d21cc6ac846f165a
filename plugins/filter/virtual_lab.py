# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the virtual lab role: thin wrappers of module_utils.topology.virtual_lab."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils.topology import virtual_lab as vl


def virtual_lab_errors(lab, prefix="virtual_lab_"):
    """Errors of a lab definition, each naming the role variable at fault."""
    if not isinstance(lab, dict):
        raise AnsibleFilterError("virtual_lab_errors expects a dict, got %s" % type(lab).__name__)
    return vl.validate(lab, prefix=prefix)


class FilterModule(object):
    """offload.testbed virtual lab filters."""

    def filters(self):
        return {"virtual_lab_errors": virtual_lab_errors}
