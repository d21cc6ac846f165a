# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/validate.py: one rule per concept, each message naming
the variable as written, the bad value and the fix."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import validate

BASE60 = ('(YAML reads an unquoted value made of decimal groups separated by colons as a base-60 number; put the value in quotes)')


@pytest.mark.parametrize('value', ['0000:08:00.1', '0000:3B:00.0', 'ffff:ff:1f.7'])
def test_pci_address_good(value):
    assert validate.pci_address('sriov_switchdev_pfs[0].pci', value) is None


@pytest.mark.parametrize('value, shown', [
    ('08:00.1', "'08:00.1'"), ('0000:08:00.8', "'0000:08:00.8'"), ('0000:08:20.1', "'0000:08:20.1'"), ('', "''"), (None, 'None'),
])
def test_pci_address_bad(value, shown):
    assert validate.pci_address('sriov_switchdev_pfs[0].pci', value) == (
        'sriov_switchdev_pfs[0].pci: %s is not a PCI address; write domain:bus:device.function in hexadecimal, for example '
        '"0000:08:00.1" (lspci -D shows it)' % shown)


def test_an_unquoted_pci_address_is_a_base60_number():
    # YAML 1.1 reads 0000:08:00.1 as 8 * 60 + 0.1.
    assert validate.pci_address('nic_pci', 480.1) == (
        'nic_pci: 480.1 is not a PCI address %s; write domain:bus:device.function in hexadecimal, for example "0000:08:00.1" '
        '(lspci -D shows it)' % BASE60)


def test_vlan_id():
    assert validate.vlan_id('bench_vlans.external', 100) is None and validate.vlan_id('v', '4094') is None
    assert validate.vlan_id('bench_vlans.external', 4095) == 'bench_vlans.external: 4095 is outside 1..4094; leave it unset for untagged'
    assert validate.vlan_id('v', True, unset='remove it') == 'v: True is outside 1..4094; remove it'


def test_mac_address():
    assert validate.mac_address('m', '50:54:00:00:00:06') is None and validate.mac_address('m', 'B2:23:54:C4:4C:CF') is None
    assert validate.mac_address('m', '51:54:00:00:00:06') == (
        "m: '51:54:00:00:00:06' is a multicast address; a port needs a unicast one (an even first octet, for example 02:54:00:00:00:06)")
    assert validate.mac_address('m', '51:54:00:00:00:06', unicast=False) is None
    assert validate.mac_address('m', '00:00:00:00:00:00') == (
        "m: '00:00:00:00:00:00' is all zeros; give the port a unicast address such as 02:00:00:00:00:01")
    assert validate.mac_address('m', '50:54:00:00:06') == (
        "m: '50:54:00:00:06' is not a MAC address; write six pairs of hexadecimal digits separated by colons, for example "
        '"50:54:00:00:00:06"')


def test_an_unquoted_mac_is_a_base60_number():
    # YAML 1.1 reads 50:54:00:00:00:06 as a base-60 integer.
    value = ((((50 * 60 + 54) * 60 + 0) * 60 + 0) * 60 + 0) * 60 + 6
    assert validate.mac_address('sriov_switchdev_vf_macs[0]', value) == (
        'sriov_switchdev_vf_macs[0]: %d is not a MAC address %s; write six pairs of hexadecimal digits separated by colons, '
        'for example "50:54:00:00:00:06"' % (value, BASE60))
    assert validate.base60(True) == '' and validate.base60('x') == ''


def test_cpu_list():
    assert validate.cpu_list('c', '2-3,10', set(range(16))) == ({2, 3, 10}, None)
    assert validate.cpu_list('c', 5) == ({5}, None)
    assert validate.cpu_list('c', '2-x')[1] == "c: '2-x' is not a cpulist (not a cpulist item: '2-x'); write CPU ids and ranges such as 2-15,34-47"
    assert validate.cpu_list('c', ['2'])[1] == "c: ['2'] is not a cpulist; write CPU ids and ranges such as 2-15,34-47"
    assert validate.cpu_list('c', '14-17', set(range(16))) == (
        {14, 15, 16, 17}, "c: '14-17' names CPUs 16,17 this host does not have (it has 16 CPUs, 0..15); list only those")


def test_page_sizes():
    assert [validate.page_size_kib(t) for t in ('2M', '1G', '2048k', '1048576kB', '4m', 'big')] == [2048, 1048576, 2048, 1048576, 4096, None]
    assert [validate.size_text(k) for k in (2048, 1048576, 4096, 12)] == ['2M', '1G', '4M', '12K']


def test_hugepage_args():
    tokens = ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=16', 'hugepagesz=2M', 'hugepages=0']
    assert validate.hugepage_args(tokens) == {1048576: 16, 2048: 0}
    assert validate.hugepage_args(['hugepages=512']) == {2048: 512}
    assert validate.hugepage_args(['default_hugepagesz=1G', 'hugepages=4']) == {1048576: 4}
    # A size named without a count is kept with 0 pages, so that it can be refused.
    assert validate.hugepage_args(['hugepagesz=4M']) == {4096: 0}
    assert validate.hugepage_args(['hugepagesz=huge', 'hugepages=2']) == {'huge': 2}
    assert validate.hugepage_args(['quiet', 'hugepages=x']) == {}


def test_hugepages_sizes_and_flags():
    flags = {'pse', 'pdpe1gb'}
    assert validate.hugepages('h', {1048576: 16, 2048: 1024}, 65842352, flags) == []
    assert validate.hugepages('h', {4096: 0, 'huge': 2}) == [
        "h: hugepage size '4M' is not one an x86 CPU can map; use 2M and 1G",
        "h: hugepage size 'huge' is not one an x86 CPU can map; use 2M and 1G"]
    assert validate.hugepages('h', {1048576: 4}, flags={'pse'}) == [
        'h: 4 x 1G pages asked, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; set them to 0']
    assert validate.hugepages('h', {1048576: 0}, flags={'pse'}) == []
    assert validate.hugepages('h', {1048576: 0}, flags={'pse'}, named=True) == [
        'h: hugepage size 1G named, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; remove hugepagesz=1G']


def test_hugepages_all_sizes_together_against_the_memory():
    # 40 x 1G + 10000 x 2M = 59.5 GiB, each alone below 90 % of 62.8 GiB.
    assert validate.hugepages('h', {1048576: 40, 2048: 10000, 'huge': 1}, 65842352, None) == [
        "h: hugepage size 'huge' is not one an x86 CPU can map; use 2M and 1G",
        'h: 10000 x 2M + 40 x 1G = 59.5 GiB of hugepages is above 90% of the host memory (62.8 GiB); reserve at most 56.5 GiB in all']
    assert validate.hugepages('h', {2048: 30000}, 65842352, max_fraction=0.5, fix='set h to at most 16074') == [
        'h: 30000 x 2M = 58.6 GiB of hugepages is above 50% of the host memory (62.8 GiB); set h to at most 16074']


def test_int_in():
    assert validate.int_in('t', 30, 1, 3600, 'fix') is None
    assert validate.int_in('t', 0, 1, 3600, 'give seconds') == 't: 0 is outside 1..3600; give seconds'
    assert validate.int_in('t', True, 0, 3600, 'fix') == 't: True is outside 0..3600; fix'
    assert validate.int_in('t', '30', 1, 3600, 'fix') == "t: '30' is outside 1..3600; fix"
