# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the sriov_switchdev role, wrapping ``module_utils/prepare/sriov.py``.

Each filter is documented in the ``<name>.yml`` file next to this one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.module_utils.prepare import sriov


def sriov_switchdev_errors(pfs, numvfs=0, vf_macs=None, settings=None, directories=None):
    """See :func:`sriov.request_errors`."""
    if not isinstance(pfs, list):
        raise AnsibleFilterError('sriov_switchdev_errors expects the list sriov_switchdev_pfs')
    return sriov.request_errors([pf if isinstance(pf, dict) else {} for pf in pfs], numvfs, vf_macs or {}, settings or {}, directories or [])


def sriov_switchdev_nm_devices(pfs):
    """``interface-name:<stem>*`` per PF name (see :func:`sriov.pf_stem`)."""
    return ['interface-name:%s*' % sriov.pf_stem(pf['name']) for pf in pfs]


class FilterModule(object):
    def filters(self):
        return {
            'sriov_switchdev_errors': sriov_switchdev_errors,
            'sriov_switchdev_nm_devices': sriov_switchdev_nm_devices,
        }
