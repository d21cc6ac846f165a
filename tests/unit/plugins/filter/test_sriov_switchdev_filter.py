# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/filter/sriov_switchdev.py as playbooks call it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.filter.sriov_switchdev import FilterModule

FILTERS = FilterModule().filters()


def test_errors_name_the_variable():
    errors = FILTERS['sriov_switchdev_errors']
    assert errors([{'name': 'ens3f0np0', 'pci': '0000:32:00.0'}], 8, {0: '50:54:00:00:00:06', 1: 'b2:23:54:c4:4c:cf'}) == []
    assert errors([{'name': 'ens3f0np0'}, {'name': 'ens3f0np0'}], 0, {}) == [
        "sriov_switchdev_pfs[1].name: 'ens3f0np0' is listed twice (also sriov_switchdev_pfs[0]); list each PF once"]
    assert errors([{'name': 'ens3f0np0'}], 0, {}, {'sriov_switchdev_unit': '/etc/systemd/system/sriov'}) == [
        "sriov_switchdev_unit: '/etc/systemd/system/sriov' does not end with .service (systemd takes a service unit only from a file "
        'named *.service); name it for example /etc/systemd/system/offload-testbed-sriov-switchdev.service']
    assert errors([], 0, {})[0].startswith('sriov_switchdev_pfs is empty')
    assert errors(['ens3f0np0'], 0, {}) == []
    with pytest.raises(AnsibleFilterError):
        errors('ens3f0np0', 0, {})


def test_nm_devices():
    assert FILTERS['sriov_switchdev_nm_devices']([{'name': 'ens3f0np0'}, {'name': 'enp8s0f1np1'}]) == [
        'interface-name:ens3f0*', 'interface-name:enp8s0f1*']
