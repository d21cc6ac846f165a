# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/prepare/sriov.py over the verbatim devlink fixtures."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import sriov
from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import parse_devlink_ports

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.mark.parametrize('mode, numvfs, want, steps', [
    ('legacy', 0, 8, [('mode', 'switchdev'), ('numvfs', 8)]),
    ('legacy', 8, 8, [('numvfs', 0), ('mode', 'switchdev'), ('numvfs', 8)]),
    ('switchdev', 4, 8, [('numvfs', 0), ('numvfs', 8)]),
    ('switchdev', 8, 8, []),
    ('switchdev', 8, 0, [('numvfs', 0)]),
])
def test_plan_eswitch_order(mode, numvfs, want, steps):
    assert sriov.plan_eswitch(mode, numvfs, want) == steps


def test_eswitch_mode_from_the_fixtures():
    text = fixture('devlink_dev_eswitch_show_two_pfs.txt')
    assert sriov.eswitch_mode('pci/0000:08:00.0', text, False) == 'switchdev'
    assert sriov.eswitch_mode('pci/0000:08:00.1', text, False) == 'legacy'
    assert sriov.eswitch_mode('pci/0000:05:00.0', fixture('devlink_dev_eswitch_show_old_iproute2.txt'), False) == 'legacy'
    assert sriov.eswitch_mode('pci/0000:09:00.0', text, False) is None
    as_json = json.dumps({'dev': {'pci/0000:08:00.1': {'mode': 'switchdev'}}})
    assert sriov.looks_like_json(as_json) and not sriov.looks_like_json(text)
    assert sriov.eswitch_mode('pci/0000:08:00.1', as_json, True) == 'switchdev'


def test_representors_from_the_fixtures():
    mlx5 = parse_devlink_ports(fixture('devlink_port_show_mlx5_vf_rep.txt'))
    assert sriov.representors(mlx5, 'pci/0000:06:00.0', 1) == {0: 'pf0vf0'}
    assert sriov.representors(mlx5, 'pci/0000:06:00.1', 1) == {}
    ice = parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))
    assert sriov.representors(ice, 'pci/0000:08:00.0', 2) == {0: 'enp8s0f0npf0vf0'}


def test_vf_table_and_link_state():
    link = json.dumps([{'ifname': 'ens3f0np0', 'flags': ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], 'address': '0C:42:A1:00:00:01',
                        'vfinfo_list': [{'vf': 0, 'address': '50:54:00:00:00:06'}, {'vf': 1, 'address': '00:00:00:00:00:00'}]}])
    assert sriov.vf_table(link) == {0: '50:54:00:00:00:06', 1: '00:00:00:00:00:00'}
    assert sriov.link_state(link) == {'address': '0c:42:a1:00:00:01', 'up': True}
    assert sriov.link_state('[]') is None and sriov.vf_table('not json') == {}


def test_mac_table():
    macs, errors = sriov.mac_table({'0': '50:54:00:00:00:06', 1: 'B2:23:54:C4:4C:CF'}, 8)
    assert macs == {0: '50:54:00:00:00:06', 1: 'b2:23:54:c4:4c:cf'} and errors == []
    table = {0: '51:54:00:00:00:06', 9: '50:54:00:00:00:07', 2: 'nope', 3: '50:54:00:00:00:07', 'x': '50:54:00:00:00:08',
             4: 505400000006}
    unused, errors = sriov.mac_table(table, 8, 'sriov_switchdev_vf_macs', 'sriov_switchdev_numvfs')
    assert errors == [
        "sriov_switchdev_vf_macs[0]: '51:54:00:00:00:06' is a multicast address; a port needs a unicast one (an even first octet, "
        "for example 02:54:00:00:00:06)",
        'sriov_switchdev_vf_macs[9]: VF 9 does not exist with 8 VFs (sriov_switchdev_numvfs); use an index 0..7 or raise '
        'sriov_switchdev_numvfs',
        "sriov_switchdev_vf_macs[2]: 'nope' is not a MAC address; write six pairs of hexadecimal digits separated by colons, "
        'for example "50:54:00:00:00:06"',
        "sriov_switchdev_vf_macs: key 'x' is not a VF index; the keys are VF numbers 0..7",
        'sriov_switchdev_vf_macs[4]: 505400000006 is not a MAC address (YAML reads an unquoted value made of decimal groups '
        'separated by colons as a base-60 number; put the value in quotes); write six pairs of hexadecimal digits separated by '
        'colons, for example "50:54:00:00:00:06"',
        'sriov_switchdev_vf_macs: VFs 3 and 9 have the same MAC 50:54:00:00:00:07; give each VF its own',
    ]
    assert sriov.mac_table({0: '50:54:00:00:00:06'}, 0, 'm', 'n')[1] == ['m[0]: VF 0 does not exist with 0 VFs (n); remove it or raise n']
    assert sriov.mac_table(['50:54:00:00:00:06'], 2, 'm')[1][0].startswith("m: ['50:54:00:00:00:06'] is not a table of VF index: MAC")


# What sriov_pf reads of the fake host of tests/emulators/grubby/fake_host.py.
HOST = {
    'sysfs_ok': True, 'pf_path': '/sys/class/net/enp8s0f1np1', 'pf_pci': '0000:08:00.1', 'pf_totalvfs': 8, 'pf_driver': 'mlx5_core',
    'pfs': {'enp8s0f1np1': '0000:08:00.1'}, 'pci_path': '/sys/bus/pci/devices/0000:08:00.1', 'pci_exists': True,
    'pci_netdevs': ['enp8s0f1np1'], 'driver_path': '/sys/bus/pci/drivers/mlx5_core', 'driver_exists': True,
}
WANT = {'pf': 'enp8s0f1np1', 'pci': '0000:08:00.1', 'numvfs': 2, 'vf_macs': {0: '50:54:00:00:00:06'}, 'vf_driver': 'mlx5_core',
        'timeout': 30, 'sysfs_root': '/sys'}
NAMES = {'pf': 'sriov_switchdev_pfs[0].name', 'pci': 'sriov_switchdev_pfs[0].pci', 'numvfs': 'sriov_switchdev_numvfs',
         'vf_macs': 'sriov_switchdev_vf_macs', 'vf_driver': 'sriov_switchdev_vf_driver', 'timeout': 'sriov_switchdev_timeout',
         'sysfs_root': 'sriov_switchdev_sysfs_root'}


@pytest.mark.parametrize('want, host, message', [
    ({'numvfs': 16}, {}, 'sriov_switchdev_numvfs: 16 is outside 0..8, the VFs enp8s0f1np1 can have (sriov_totalvfs); set it to at '
                         'most 8, or raise NUM_OF_VFS in the firmware (mlxconfig -d 0000:08:00.1 set SRIOV_EN=1 NUM_OF_VFS=16) and reset '
                         'the card'),
    ({'numvfs': 4}, {'pf_totalvfs': 0}, 'sriov_switchdev_numvfs: 4 VFs asked, but SR-IOV is off on enp8s0f1np1 (sriov_totalvfs 0); '
                                        'set it to 0, or turn SR-IOV on in the firmware (mlxconfig -d 0000:08:00.1 set SRIOV_EN=1 '
                                        'NUM_OF_VFS=4) and reset the card'),
    ({'numvfs': -1, 'vf_macs': {}}, {}, 'sriov_switchdev_numvfs: -1 is not a VF count; write 0 (no VF) or more (the PF has at most 8, '
                                        'its sriov_totalvfs)'),
    ({'numvfs': True, 'vf_macs': {}}, {}, 'sriov_switchdev_numvfs: True is not a VF count'),
    ({'pci': '08:00.1'}, {}, "sriov_switchdev_pfs[0].pci: '08:00.1' is not a PCI address; write domain:bus:device.function in "
                             'hexadecimal, for example "0000:08:00.1" (lspci -D shows it)'),
    ({'pci': 480.1}, {}, 'sriov_switchdev_pfs[0].pci: 480.1 is not a PCI address (YAML reads an unquoted value'),
    ({'pci': '0000:08:00.0'}, {}, "sriov_switchdev_pfs[0].pci: '0000:08:00.0' is not the PCI address of enp8s0f1np1 (sysfs has "
                                  '0000:08:00.1); write "0000:08:00.1" or leave it unset'),
    ({'pf': 'ens3f0np0', 'pci': '0000:09:00.0'},
     {'pf_pci': None, 'pf_totalvfs': None, 'pci_exists': False, 'pci_netdevs': [], 'pci_path': '/sys/bus/pci/devices/0000:09:00.0',
      'pf_path': '/sys/class/net/ens3f0np0'},
     "sriov_switchdev_pfs[0].name: 'ens3f0np0' is no network device on this host (nothing at /sys/class/net/ens3f0np0); write the "
     'netdev name of the PF (its SR-IOV PFs: enp8s0f1np1; ip -br link lists the netdevs)'),
    ({'pf': 'ens3f0np0', 'pci': '0000:09:00.0'},
     {'pf_pci': None, 'pf_totalvfs': None, 'pci_exists': False, 'pci_netdevs': [], 'pci_path': '/sys/bus/pci/devices/0000:09:00.0'},
     "sriov_switchdev_pfs[0].pci: there is no PCI device '0000:09:00.0' on this host (nothing at /sys/bus/pci/devices/0000:09:00.0); "
     "write the PF's address as lspci -D shows it"),
    ({'pf': 'ens3f0np0'}, {'pf_pci': None, 'pf_totalvfs': None},
     "(0000:08:00.1 is enp8s0f1np1); write the netdev name of the PF"),
    ({'pf': 'enp8s0f1v0', 'pci': None}, {'pf_pci': '0000:08:01.0', 'pf_totalvfs': None},
     "sriov_switchdev_pfs[0].name: 'enp8s0f1v0' is not an SR-IOV PF (its device 0000:08:01.0 has no sriov_totalvfs); write the name "
     'of a PF (this host has enp8s0f1np1)'),
    ({'vf_driver': 'mlx5-core'}, {'driver_exists': False, 'driver_path': '/sys/bus/pci/drivers/mlx5-core'},
     "sriov_switchdev_vf_driver: 'mlx5-core' is no PCI driver of this host (nothing at /sys/bus/pci/drivers/mlx5-core) nor a module of its kernel (the PF's "
     "driver is mlx5_core); write the VFs' driver, mlx5_core for a ConnectX, or load it first (modprobe)"),
    ({'timeout': 0}, {}, 'sriov_switchdev_timeout: 0 is outside 1..3600; give the seconds to wait for the VF netdevs and '
                         'representors, for example 30'),
    ({'vf_macs': {0: '50:54:00:00:00:06', 1: '50:54:00:00:00:06'}}, {},
     'sriov_switchdev_vf_macs: VFs 0 and 1 have the same MAC 50:54:00:00:00:06; give each VF its own'),
    # the one rule for names (validate.py): the kernel's, before sysfs is asked
    ({'pf': 'enp8s0f1np1 ', 'pci': None}, {'pf_pci': None, 'pf_totalvfs': None},
     "sriov_switchdev_pfs[0].name: 'enp8s0f1np1 ' has trailing white space, which the kernel refuses in the name of the PF (its netdev); "
     "write 'enp8s0f1np1'"),
    ({'pf': 'enp8s0f1np1-of-the-dut', 'pci': None}, {'pf_pci': None, 'pf_totalvfs': None},
     "sriov_switchdev_pfs[0].name: 'enp8s0f1np1-of-the-dut' is 22 characters long; the kernel takes at most 15"),
    ({'pf': '../../..', 'pci': None}, {'pf_pci': None, 'pf_totalvfs': None}, "sriov_switchdev_pfs[0].name: '../../..' holds '/'"),
    ({'sysfs_root': '/sy'}, {'sysfs_ok': False}, "sriov_switchdev_sysfs_root: '/sy' has no class/net; point it at where sysfs is "
                                                 'mounted (/sys)'),
])
def test_pf_errors(want, host, message):
    assert sriov.pf_errors(dict(WANT), HOST, NAMES) == []
    errors = sriov.pf_errors(dict(WANT, **want), dict(HOST, **host), NAMES)
    assert any(e.startswith(message) or message in e for e in errors), errors


def test_pf_errors_all_at_once_and_the_module_names():
    errors = sriov.pf_errors(dict(WANT, pci='0000:08:00.0', numvfs=16, vf_macs={20: 'nope'}, timeout=0), HOST)
    assert [e.split(':', 1)[0] for e in errors] == ['timeout', 'pci', 'numvfs', 'vf_macs[20]', 'vf_macs[20]']
    assert sriov.eswitch_error(WANT, 'pci/0000:08:00.1', 'devlink answers: No such device', NAMES) == (
        "sriov_switchdev_pfs[0].pci: '0000:08:00.1' has no eswitch devlink can show (devlink dev eswitch show pci/0000:08:00.1: "
        'devlink answers: No such device); the PF needs a driver with switchdev support (mlx5_core on a ConnectX): check ethtool -i '
        'enp8s0f1np1')


def test_request_errors():
    assert sriov.request_errors([{'name': 'ens3f0np0'}], 8, {0: '50:54:00:00:00:06'}) == []
    assert sriov.request_errors([], 8, {})[0].startswith('sriov_switchdev_pfs is empty')
    pfs = [{'name': 'a', 'pci': '0000:32:00.0'}, {'name': 'a', 'pci': '0000:32:00.0'}, {'name': 'b', 'pci': '0000:32:00.1'}]
    assert sriov.request_errors(pfs, 2, {0: '50:54:00:00:00:06'}) == [
        "sriov_switchdev_pfs[1].name: 'a' is listed twice (also sriov_switchdev_pfs[0]); list each PF once",
        "sriov_switchdev_pfs[1].pci: '0000:32:00.0' is listed twice (also sriov_switchdev_pfs[0].pci); each PF has its own PCI address",
        "sriov_switchdev_vf_macs[0]: '50:54:00:00:00:06' is also the MAC of VF 0 of a (sriov_switchdev_vf_macs[0]); give every VF its "
        'own MAC; both PFs take sriov_switchdev_vf_macs: give sriov_switchdev_pfs[2] its own vf_macs',
    ]
    own = [{'name': 'a'}, {'name': 'b', 'vf_macs': {1: '50:54:00:00:00:06'}, 'numvfs': 2}, {'name': 'c', 'numvfs': 0}]
    assert sriov.request_errors(own, 1, {0: '50:54:00:00:00:06'}) == [
        "sriov_switchdev_pfs[1].vf_macs[1]: '50:54:00:00:00:06' is also the MAC of VF 0 of a (sriov_switchdev_vf_macs[0]); give every "
        'VF its own MAC']


def test_request_errors_settings_and_directories():
    settings = {'sriov_switchdev_nm_unmanaged': True, 'sriov_switchdev_persist': True,
                'sriov_switchdev_nm_unmanaged_devices': ['interface-name:ens3f0*', 'ens3f0np0', 'mac:0c:42:a1:00:00:01', '',
                                                         'interface-name:eth*,except:interface-name:eth0', 'a b'],
                'sriov_switchdev_nm_conf': '/etc/NetworkManager/conf.d/99-sriov',
                'sriov_switchdev_script': 'offload-testbed-sriov-switchdev',
                'sriov_switchdev_unit': '/etc/NetworkManager/conf.d/99-sriov'}
    dirs = [{'item': {'var': 'sriov_switchdev_nm_conf', 'path': '/etc/NetworkManager/conf.d/x.conf'}, 'stat': {'exists': False}},
            {'item': {'var': 'sriov_switchdev_unit', 'path': '/etc/systemd/system/x.service'}, 'stat': {'exists': True, 'isdir': True}}]
    assert sriov.request_errors([{'name': 'a'}], 0, {}, settings, dirs) == [
        "sriov_switchdev_nm_unmanaged_devices[1]: 'ens3f0np0' is no NetworkManager device spec (NetworkManager reads a spec without "
        'a known prefix as a MAC address and matches nothing); write interface-name:ens3f0np0, or one of the prefixes interface-name:, '
        'mac:, type:, driver:, dhcp-plugin:, s390-subchannels:, except:, path:',
        "sriov_switchdev_nm_unmanaged_devices[3]: '' is not one NetworkManager device spec; write one spec per item without spaces or "
        '";", for example interface-name:ens3f0*',
        "sriov_switchdev_nm_unmanaged_devices[5]: 'a b' is not one NetworkManager device spec; write one spec per item without spaces "
        'or ";", for example interface-name:ens3f0*',
        "sriov_switchdev_nm_conf: '/etc/NetworkManager/conf.d/99-sriov' does not end with .conf (NetworkManager reads only *.conf "
        'files in conf.d); name it for example /etc/NetworkManager/conf.d/99-offload-testbed-sriov.conf',
        "sriov_switchdev_script: 'offload-testbed-sriov-switchdev' is not an absolute path of a file; write one such as "
        '/usr/local/sbin/offload-testbed-sriov-switchdev',
        "sriov_switchdev_unit: '/etc/NetworkManager/conf.d/99-sriov' does not end with .service (systemd takes a service unit only "
        'from a file named *.service); name it for example /etc/systemd/system/offload-testbed-sriov-switchdev.service',
        "sriov_switchdev_unit: '/etc/NetworkManager/conf.d/99-sriov' is also sriov_switchdev_nm_conf; each file needs its own path",
        "sriov_switchdev_nm_conf: '/etc/NetworkManager/conf.d/x.conf' cannot be written, its directory /etc/NetworkManager/conf.d does "
        'not exist on this host; create it or write another path; is NetworkManager installed? Without it, set '
        'sriov_switchdev_nm_unmanaged: false',
    ]
    off = dict(settings, sriov_switchdev_nm_unmanaged=False, sriov_switchdev_persist=False)
    assert sriov.request_errors([{'name': 'a'}], 0, {}, off, []) == []


def test_pf_stem_matches_vfs_and_representors():
    assert sriov.pf_stem('ens3f0np0') == 'ens3f0' and sriov.pf_stem('eth2') == 'eth2'
