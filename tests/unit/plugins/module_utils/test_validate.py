# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/host/validate.py: one rule per concept, each message naming
the variable as written, the bad value and the fix."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

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


# ---------------------------------------------------------------- shares

@pytest.mark.parametrize('value', [0.9, 1, 1.0, 0.05, '0.9'])
def test_fraction_good(value):
    assert validate.fraction('f', value) is None


@pytest.mark.parametrize('value, message', [
    (90, 'f: 90 is a percentage, but this is a share of the memory written as a fraction (above 0, at most 1); write 0.9 for 90 %'),
    (90.0, 'f: 90.0 is a percentage, but this is a share of the memory written as a fraction (above 0, at most 1); write 0.9 for 90 %'),
    ('75', "f: '75' is a percentage, but this is a share of the memory written as a fraction (above 0, at most 1); write 0.75 for 75 %"),
    (1.5, 'f: 1.5 is outside 0..1 (0 excluded); write the share of the memory as a fraction, 0.9 for 90 %'),
    (0, 'f: 0 is outside 0..1 (0 excluded); write the share of the memory as a fraction, 0.9 for 90 %'),
    (-0.5, 'f: -0.5 is outside 0..1 (0 excluded)'),
    (150, 'f: 150 is outside 0..1 (0 excluded)'),
    (True, 'f: True is outside 0..1 (0 excluded)'),
    ('most', "f: 'most' is outside 0..1 (0 excluded)"),
])
def test_fraction_bad(value, message):
    assert validate.fraction('f', value).startswith(message)


# ---------------------------------------------------------------- names

@pytest.mark.parametrize('value', ['eth0', 'enp8s0f1np1', 'a' * 15, 'br-int', 'ens3f0npf0vf1', 'vlan.10', 'wl\u00e4n0', 7])
def test_interface_name_good(value):
    assert validate.interface_name('i', value) is None


@pytest.mark.parametrize('value, message', [
    # the kernel's IFNAMSIZ: 16 bytes with the closing NUL (its own refusal: "Attribute failed policy validation")
    ('a' * 16, "i: 'aaaaaaaaaaaaaaaa' is 16 characters long; the kernel takes at most 15 in the name of a network interface (IFNAMSIZ 16 "
               "with the closing NUL): shorten it, for example to 'aaaaaaaaaaaaaaa'"),
    ('br\u00fccke-unterlage', "i: 'br\u00fccke-unterlage' is 17 bytes in UTF-8 long; the kernel takes at most 15"),
    ('eth0 ', "i: 'eth0 ' has trailing white space, which the kernel refuses in the name of a network interface; write 'eth0'"),
    ('\teth0', "i: '\\teth0' has leading white space, which the kernel refuses in the name of a network interface; write 'eth0'"),
    (' eth0 ', "i: ' eth0 ' has leading and trailing white space"),
    ('eth 0', "i: 'eth 0' holds ' '; the kernel refuses '/', ':' and white space in the name of a network interface: use letters, "
              "digits, '-', '_' and '.'"),
    ('eth0:1', "i: 'eth0:1' holds ':'; the kernel refuses '/', ':' and white space"),
    ('a/b', "i: 'a/b' holds '/'"),
    ('eth%d', "i: 'eth%d' holds '%'; the kernel reads '%' as a pattern it fills in with a number (eth%d)"),
    ('.', "i: '.' is no name the kernel gives a network interface ('.' and '..' are refused)"),
    ('..', "i: '..' is no name the kernel gives"),
    ('', "i: '' is empty; give the name of a network interface"),
    ('   ', "i: '   ' is empty"),
    (None, 'i: None is not a name; write the name of a network interface as text'),
    (['eth0'], "i: ['eth0'] is not a name"),
    (True, 'i: True is not a name'),
    ('eth\x000', "i: 'eth\\x000' holds the control character '\\x00'; write the name of a network interface in printable characters"),
])
def test_interface_name_bad(value, message):
    assert validate.interface_name('i', value).startswith(message)


def test_interface_name_says_what_gets_the_name():
    assert validate.interface_name('ovs_underlay_bridge', 'underlay ', validate.OVS_BRIDGE) == (
        "ovs_underlay_bridge: 'underlay ' has trailing white space, which the kernel refuses in the name of an Open vSwitch bridge, "
        "a kernel interface too; write 'underlay'")


@pytest.mark.parametrize('value', ['ltb-gen', 'a' * 255, 'ns.1'])
def test_netns_name_good(value):
    assert validate.netns_name('n', value) is None


@pytest.mark.parametrize('value, message', [
    ('ltb-gen ', "n: 'ltb-gen ' has trailing white space, which would be part of the namespace's name (ip netns list shows it); "
                 "write 'ltb-gen'"),
    ('a/b', "n: 'a/b' is no network namespace name (ip netns takes 1 to 255 characters, no '/', not '.' or '..', and a name with "
            "white space breaks the command lines it goes into); use letters, digits, '-', '_' and '.'"),
    ('..', "n: '..' is no network namespace name"),
    ('a' * 256, "n: '%s' is no network namespace name" % ('a' * 256)),
    ('ltb gen', "n: 'ltb gen' is no network namespace name"),
    ('', "n: '' is empty; give the name of a network namespace"),
])
def test_netns_name_bad(value, message):
    assert validate.netns_name('n', value).startswith(message)


@pytest.mark.parametrize('value', ['sw0', 'web tier', 'lb-web', 'x' * 300, 'r\u00e9seau'])
def test_database_name_good(value):
    assert validate.database_name('d', value) is None


@pytest.mark.parametrize('value, message', [
    ('sw0 ', "d: 'sw0 ' has trailing white space, which the database would keep as part of a name (what looks for 'sw0' would not "
             "find it); write 'sw0'"),
    ('\nsw0', "d: '\\nsw0' has leading white space"),
    ('sw\x1b0', "d: 'sw\\x1b0' holds the control character '\\x1b'; write a name in printable characters"),
    ('', "d: '' is empty; give a name"),
    ({'name': 'sw0'}, "d: {'name': 'sw0'} is not a name; write a name as text"),
])
def test_database_name_bad(value, message):
    assert validate.database_name('d', value).startswith(message)


@pytest.mark.parametrize('port_type, value, refused', [
    (None, 'a-system-port-name', True), ('', 'a-system-port-name', True), ('internal', 'mgt-of-the-bench', True),
    ('doca', 'pf0hpf-of-the-dpu', True), ('vxlan', 'vxlan-to-the-far-end', True),
    ('dpdk', 'dpdk-uplink-port-0', False), ('patch', 'patch-to-the-integration-bridge', False),
    ('dpdk', 'dpdk0 ', True), ('patch', ' patch0', True),
])
def test_ovs_port_names_follow_the_kernel_where_it_sees_them(port_type, value, refused):
    assert (validate.ovs_port_name('p', value, port_type) is not None) == refused


def test_name_list_names_each_item():
    assert validate.name_list('ifs', ['eth0', 'eth1 ', 'a' * 16], validate.interface_name) == [
        "ifs[1]: 'eth1 ' has trailing white space, which the kernel refuses in the name of a network interface; write 'eth1'",
        "ifs[2]: 'aaaaaaaaaaaaaaaa' is 16 characters long; the kernel takes at most 15 in the name of a network interface (IFNAMSIZ 16 "
        "with the closing NUL): shorten it, for example to 'aaaaaaaaaaaaaaa'"]
    assert validate.name_list('ifs', 'eth0', validate.interface_name) == [
        "ifs: 'eth0' is not a list; write the names as a list, for example [eth0]"]
