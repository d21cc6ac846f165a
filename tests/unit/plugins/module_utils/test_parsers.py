# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parsers.py.

Every file in tests/fixtures is a verbatim tool output (see
tests/fixtures/SOURCES.md); each is parsed here and checked field by field.
Inline texts below are either variants of those fixtures (marked as such) or
built from a structure documented in SOURCES.md (marked as such).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import cpulist as cpulists, parsers

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


# Which test consumes which fixture; test_every_fixture_is_covered keeps this
# list in step with the directory.
COVERED = {
    'ethtool_i_mlx5e_rep_switchdev.txt': parsers.parse_ethtool_info,
    'ethtool_i_mlx5_core_legacy.txt': parsers.parse_ethtool_info,
    'flint_q_bluefield2.txt': parsers.parse_flint_query,
    'flint_burn_psid_mismatch.txt': parsers.parse_flint_psid_mismatch,
    'mlxfwmanager_query_cx6dx_running_differs.txt': parsers.parse_mlxfwmanager,
    'grubby_info_all_fedora37.txt': parsers.parse_grubby_info,
    'devlink_dev_eswitch_show_two_pfs.txt': parsers.parse_devlink_eswitch,
    'devlink_dev_eswitch_show_old_iproute2.txt': parsers.parse_devlink_eswitch,
    'devlink_port_show_mlx5_vf_rep.txt': parsers.parse_devlink_ports,
    'devlink_port_show_ice_switchdev.txt': parsers.parse_devlink_ports,
    'ovs_dpctl_dump_flows_offloaded_cx6_tc.txt': parsers.parse_dump_flows,
    'ovs_dpctl_dump_flows_m_dummy_offload.txt': parsers.parse_dump_flows,
    'ovs_appctl_pmd_rxq_show_dual_numa.txt': parsers.parse_pmd_rxq_show,
}


def test_every_fixture_is_covered():
    on_disk = set(name for name in os.listdir(FIXTURES) if name.endswith('.txt'))
    assert on_disk == set(COVERED)


@pytest.mark.parametrize('name', sorted(COVERED))
def test_every_fixture_parses_to_something(name):
    assert COVERED[name](fixture(name))


# ------------------------------------------------------------------ ethtool -i

def test_ethtool_info_switchdev_rep():
    assert parsers.parse_ethtool_info(fixture('ethtool_i_mlx5e_rep_switchdev.txt')) == {
        'driver': 'mlx5e_rep',
        'version': '5.9.0',
        'firmware_version': '22.28.1002',
        'psid': 'MT_0000000430',
        'bus_info': '0000:b3:00.0',
    }


def test_ethtool_info_legacy():
    assert parsers.parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt')) == {
        'driver': 'mlx5_core',
        'version': '5.0-0',
        'firmware_version': '22.29.1016',
        'psid': 'MT_0000000430',
        'bus_info': '0000:b3:00.0',
    }


def test_ethtool_info_without_psid_suffix():
    # Variant of ethtool_i_mlx5_core_legacy.txt with the (PSID) suffix removed.
    text = fixture('ethtool_i_mlx5_core_legacy.txt').replace(' (MT_0000000430)', '')
    info = parsers.parse_ethtool_info(text)
    assert info['firmware_version'] == '22.29.1016'
    assert info['psid'] is None
    assert info['driver'] == 'mlx5_core'


@pytest.mark.parametrize('psid', ['LNV0000000025', 'DEL0000000016', 'HPE0000000009', 'MT_0000000723'])
def test_ethtool_info_oem_psid(psid):
    # Variant of the legacy fixture with an OEM PSID in place of MT_0000000430.
    text = fixture('ethtool_i_mlx5_core_legacy.txt').replace('MT_0000000430', psid)
    info = parsers.parse_ethtool_info(text)
    assert info['psid'] == psid
    assert info['firmware_version'] == '22.29.1016'


def test_ethtool_info_list_of_lines():
    lines = fixture('ethtool_i_mlx5e_rep_switchdev.txt').splitlines()
    assert parsers.parse_ethtool_info(lines)['driver'] == 'mlx5e_rep'


@pytest.mark.parametrize('text', ['', None, 'garbage\nno colon here\n'])
def test_ethtool_info_empty_or_garbage(text):
    assert parsers.parse_ethtool_info(text) == {
        'driver': None, 'version': None, 'firmware_version': None, 'psid': None, 'bus_info': None,
    }


# -------------------------------------------------------------------- flint q

def test_flint_query_bluefield2():
    info = parsers.parse_flint_query(fixture('flint_q_bluefield2.txt'))
    assert info['image_type'] == 'FS4'
    assert info['fw_version'] == '24.33.1048'
    assert info['fw_release_date'] == '29.4.2022'
    assert info['product_version'] == '24.33.1048'
    assert info['rom_info'] == [
        'type=UEFI Virtio net version=21.2.10 cpu=AMD64',
        'type=UEFI Virtio blk version=22.2.10 cpu=AMD64',
        'type=UEFI version=14.26.17 cpu=AMD64,AARCH64',
        'type=PXE version=3.6.502 cpu=AMD64',
    ]
    assert info['description'] == 'UID                GuidsNumber'
    assert info['base_guid'] == '08c0eb030053eaec'
    assert info['base_guid_count'] == 16
    assert info['base_mac'] == '08c0eb53eaec'
    assert info['base_mac_count'] == 16
    assert info['image_vsd'] is None
    assert info['device_vsd'] is None
    assert info['psid'] == 'MT_0000000723'
    assert info['security_attributes'] == 'secure-fw'
    assert info['errors'] == []


def test_flint_query_running_version_key():
    # Variant of flint_q_bluefield2.txt with the extra line flint prints when
    # the running firmware differs from the burned one.
    text = fixture('flint_q_bluefield2.txt').replace(
        'FW Version:            24.33.1048\n',
        'FW Version:            24.35.1012\nFW Version(Running):   24.33.1048\n')
    info = parsers.parse_flint_query(text)
    assert info['fw_version'] == '24.35.1012'
    assert info['fw_version_running'] == '24.33.1048'


def test_flint_query_on_psid_mismatch_error():
    info = parsers.parse_flint_query(fixture('flint_burn_psid_mismatch.txt'))
    assert info['fw_version'] is None
    assert info['psid'] is None
    assert info['product_version'] is None
    assert info['errors'] == [
        'PSID mismatch. The PSID on flash (LNV0000000025) differs from the PSID in the given image (MT_0000000158).'
    ]


def test_flint_psid_mismatch():
    assert parsers.parse_flint_psid_mismatch(fixture('flint_burn_psid_mismatch.txt')) == {
        'flash_psid': 'LNV0000000025',
        'image_psid': 'MT_0000000158',
    }


def test_flint_psid_mismatch_absent():
    assert parsers.parse_flint_psid_mismatch(fixture('flint_q_bluefield2.txt')) is None
    assert parsers.parse_flint_psid_mismatch('') is None


@pytest.mark.parametrize('text', ['', None, '   \n\n', '!!! nothing useful\n   indented orphan\n'])
def test_flint_query_empty_or_garbage(text):
    assert parsers.parse_flint_query(text) == {'fw_version': None, 'psid': None, 'product_version': None, 'errors': []}


# --------------------------------------------------------------- mlxfwmanager

def test_mlxfwmanager_running_differs():
    devices = parsers.parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6dx_running_differs.txt'))
    assert len(devices) == 1
    dev = devices[0]
    assert dev['device_type'] == 'ConnectX6DX'
    assert dev['part_number'] == 'MCX623106AC-CDA_Ax'
    assert dev['description'] == 'ConnectX-6 Dx EN adapter card; 100GbE; Dual-port QSFP56; PCIe 4.0 x16; Crypto and Secure Boot'
    assert dev['psid'] == 'MT_0000000436'
    assert dev['pci'] == '03:00.0'
    assert dev['base_guid'] == '1c34da030073458a'
    assert dev['base_mac'] == '1c34da73458a'
    assert dev['fw_current'] == '22.45.3608'
    assert dev['fw_running'] == '22.43.1020'
    assert dev['fw_available'] is None
    assert dev['status'] is None
    assert dev['versions'] == {
        'FW': {'current': '22.45.3608', 'available': None},
        'FW (Running)': {'current': '22.43.1020', 'available': None},
        'PXE': {'current': '3.6.0204', 'available': None},
        'UEFI': {'current': '14.22.0016', 'available': None},
    }


def test_mlxfwmanager_without_running_line():
    # Variant of the fixture without the FW (Running) line (no pending reset).
    text = '\n'.join(line for line in fixture('mlxfwmanager_query_cx6dx_running_differs.txt').splitlines()
                     if 'FW (Running)' not in line)
    dev = parsers.parse_mlxfwmanager(text)[0]
    assert dev['fw_running'] is None
    assert dev['fw_current'] == '22.45.3608'
    assert set(dev['versions']) == set(['FW', 'PXE', 'UEFI'])


def test_mlxfwmanager_two_devices_and_status():
    # Variant of the fixture: the device block repeated as Device #2 with
    # another PCI name, and a Status line appended to each block.
    block = fixture('mlxfwmanager_query_cx6dx_running_differs.txt').split('Device #1:', 1)[1]
    text = ('Querying Mellanox devices firmware ...\n\nDevice #1:' + block + '     Status:           Update required\n'
            + '\nDevice #2:' + block.replace('03:00.0', '03:00.1') + '     Status:           Up to date\n')
    devices = parsers.parse_mlxfwmanager(text)
    assert [d['pci'] for d in devices] == ['03:00.0', '03:00.1']
    assert [d['status'] for d in devices] == ['Update required', 'Up to date']
    assert all(d['fw_running'] == '22.43.1020' for d in devices)
    assert 'Status' not in devices[0]['versions']


@pytest.mark.parametrize('text', ['', None, 'Querying Mellanox devices firmware ...\n', '-E- No devices found\n'])
def test_mlxfwmanager_empty_or_garbage(text):
    assert parsers.parse_mlxfwmanager(text) == []


# NOT a captured fixture: constructed from the structure SOURCES.md documents
# for `mlxfwmanager --query --query-format XML` (root <Devices>, each
# <Device pciName type psid partNumber> holding <Versions><FW current available/>
# ...</Versions> and a <Status>). Values are taken from the text fixtures.
CONSTRUCTED_XML = """<?xml version="1.0" encoding="UTF-8" ?>
<Devices>
  <Device pciName="0000:03:00.0" type="ConnectX6DX" psid="MT_0000000436" partNumber="MCX623106AC-CDA_Ax">
    <Versions>
      <FW current="22.45.3608" available="N/A"/>
      <PXE current="3.6.0204" available="N/A"/>
      <UEFI current="14.22.0016" available="N/A"/>
    </Versions>
    <Status>No matching image found</Status>
  </Device>
  <Device pciName="0000:b3:00.0" type="ConnectX6DX" psid="LNV0000000025" partNumber="MCX623106AN-CDA_Ax">
    <Versions>
      <FW current="22.29.1016" available="22.45.3608"/>
    </Versions>
    <Status>Update required</Status>
  </Device>
</Devices>
"""


def test_mlxfwmanager_xml_constructed():
    devices = parsers.parse_mlxfwmanager_xml(CONSTRUCTED_XML)
    assert len(devices) == 2
    first, second = devices
    assert first['pci'] == '0000:03:00.0'
    assert first['device_type'] == 'ConnectX6DX'
    assert first['psid'] == 'MT_0000000436'
    assert first['part_number'] == 'MCX623106AC-CDA_Ax'
    assert first['fw_current'] == '22.45.3608'
    assert first['fw_available'] is None
    assert first['fw_running'] is None
    assert first['status'] == 'No matching image found'
    assert first['versions'] == {
        'FW': {'current': '22.45.3608', 'available': None},
        'PXE': {'current': '3.6.0204', 'available': None},
        'UEFI': {'current': '14.22.0016', 'available': None},
    }
    assert second['psid'] == 'LNV0000000025'
    assert second['fw_current'] == '22.29.1016'
    assert second['fw_available'] == '22.45.3608'
    assert second['status'] == 'Update required'


def test_mlxfwmanager_xml_same_keys_as_text():
    text_keys = set(parsers.parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6dx_running_differs.txt'))[0])
    xml_keys = set(parsers.parse_mlxfwmanager_xml(CONSTRUCTED_XML)[0])
    assert text_keys == xml_keys


def test_mlxfwmanager_xml_with_leading_banner():
    devices = parsers.parse_mlxfwmanager_xml('Querying Mellanox devices firmware ...\n' + CONSTRUCTED_XML.split('\n', 1)[1])
    assert [d['pci'] for d in devices] == ['0000:03:00.0', '0000:b3:00.0']


@pytest.mark.parametrize('text', ['', None, 'not xml', '<Devices><Device', '<Devices></Devices>'])
def test_mlxfwmanager_xml_empty_or_garbage(text):
    assert parsers.parse_mlxfwmanager_xml(text) == []


# -------------------------------------------------------------------- devlink

def test_devlink_eswitch_two_pfs():
    assert parsers.parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_two_pfs.txt')) == {
        'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
        'pci/0000:08:00.1': {'mode': 'legacy', 'inline-mode': 'none', 'encap-mode': 'basic'},
    }


def test_devlink_eswitch_old_iproute2():
    assert parsers.parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_old_iproute2.txt')) == {
        'pci/0000:05:00.0': {'mode': 'legacy'},
    }


def test_devlink_eswitch_mon_prefix_and_other_handles():
    # Variants of the fixture lines: a `devlink mon` prefix and non-PCI handles.
    text = '\n'.join([
        '[eswitch,get] pci/0000:08:00.0: mode switchdev inline-mode none encap-mode basic',
        'auxiliary/mlx5_core.eth.0: mode legacy',
        'netdevsim/netdevsim10: mode switchdev inline-mode none encap-mode none',
    ])
    assert parsers.parse_devlink_eswitch(text) == {
        'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
        'auxiliary/mlx5_core.eth.0': {'mode': 'legacy'},
        'netdevsim/netdevsim10': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'none'},
    }


@pytest.mark.parametrize('text', ['', None, 'devlink answers: Operation not supported\n', 'kernel answers: No such device\n'])
def test_devlink_eswitch_empty_or_garbage(text):
    assert parsers.parse_devlink_eswitch(text) == {}


def test_devlink_ports_mlx5_vf_rep():
    assert parsers.parse_devlink_ports(fixture('devlink_port_show_mlx5_vf_rep.txt')) == [{
        'handle': 'pci/0000:06:00.0/1',
        'type': 'eth',
        'netdev': 'pf0vf0',
        'flavour': 'pcivf',
        'controller': 0,
        'pfnum': 0,
        'vfnum': 0,
        'external': False,
        'splittable': False,
        'hw_addr': '00:00:00:00:00:00',
        'function': {'hw_addr': '00:00:00:00:00:00', 'roce': 'enable'},
    }]


def test_devlink_ports_ice_switchdev():
    ports = parsers.parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))
    assert ports == [
        {
            'handle': 'pci/0000:08:00.0/0',
            'type': 'eth',
            'netdev': 'enp8s0f0np0',
            'flavour': 'physical',
            'port': 0,
            'splittable': True,
            'lanes': 8,
            'pfnum': None,
            'vfnum': None,
            'hw_addr': None,
        },
        {
            'handle': 'pci/0000:08:00.0/2',
            'type': 'eth',
            'netdev': 'enp8s0f0npf0vf0',
            'flavour': 'pcivf',
            'controller': 0,
            'pfnum': 0,
            'vfnum': 0,
            'external': False,
            'splittable': False,
            'hw_addr': '1a:33:f2:e7:64:d8',
            'function': {'hw_addr': '1a:33:f2:e7:64:d8'},
        },
    ]
    assert isinstance(ports[1]['pfnum'], int) and isinstance(ports[1]['vfnum'], int)


@pytest.mark.parametrize('text', ['', None, 'garbage\n  function:\n    hw_addr 00:11:22:33:44:55\n'])
def test_devlink_ports_empty_or_garbage(text):
    assert parsers.parse_devlink_ports(text) == []


# devlink -j output. NOT captured: built from the keys iproute2's devlink
# prints (sections "dev" and "port", the same attribute names as the text
# output), with values from the text fixtures.
ESWITCH_JSON = json.dumps({'dev': {
    'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'},
    'pci/0000:08:00.1': {'mode': 'legacy', 'inline-mode': 'none', 'encap-mode': 'basic'},
}})
PORTS_JSON = json.dumps({'port': {
    'pci/0000:08:00.0/0': {'type': 'eth', 'netdev': 'enp8s0f0np0', 'flavour': 'physical', 'port': 0, 'splittable': True, 'lanes': 8},
    'pci/0000:08:00.0/2': {'type': 'eth', 'netdev': 'enp8s0f0npf0vf0', 'flavour': 'pcivf', 'controller': 0, 'pfnum': 0, 'vfnum': 0,
                           'external': False, 'splittable': False, 'function': {'hw_addr': '1a:33:f2:e7:64:d8'}},
}})


def test_devlink_eswitch_json_matches_text():
    assert parsers.parse_devlink_eswitch_json(ESWITCH_JSON) == parsers.parse_devlink_eswitch(fixture('devlink_dev_eswitch_show_two_pfs.txt'))


def test_devlink_eswitch_json_mode_only_and_extra_keys():
    text = json.dumps({'dev': {'netdevsim/netdevsim1': {'mode': 'legacy'}, 'auxiliary/x.0': {'encap': 'enable'}}})
    assert parsers.parse_devlink_eswitch_json(text) == {
        'netdevsim/netdevsim1': {'mode': 'legacy'},
        'auxiliary/x.0': {'mode': None, 'encap': 'enable'},
    }


def test_devlink_ports_json_matches_text():
    assert parsers.parse_devlink_ports_json(PORTS_JSON) == parsers.parse_devlink_ports(fixture('devlink_port_show_ice_switchdev.txt'))


def test_devlink_ports_json_accepts_decoded_dict():
    ports = parsers.parse_devlink_ports_json(json.loads(PORTS_JSON))
    assert [p['handle'] for p in ports] == ['pci/0000:08:00.0/0', 'pci/0000:08:00.0/2']
    assert ports[1]['hw_addr'] == '1a:33:f2:e7:64:d8'


@pytest.mark.parametrize('text', ['', None, 'not json', '[1, 2]', '{"dev": []}', '{"other": {}}'])
def test_devlink_json_empty_or_garbage(text):
    assert parsers.parse_devlink_eswitch_json(text) == {}
    assert parsers.parse_devlink_ports_json(text) == []


# --------------------------------------------------------------------- grubby

def test_grubby_info_all():
    entries = parsers.parse_grubby_info(fixture('grubby_info_all_fedora37.txt'))
    assert [e['index'] for e in entries] == [0, 1, 2, 3]
    common_args = ['ro', 'rootflags=subvol=root', 'rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1', 'rhgb', 'quiet']
    root = 'UUID=65c70529-e9ad-4778-9001-18fe8c525285'
    assert entries[0] == {
        'index': 0,
        'kernel': '/boot/vmlinuz-6.5.12-100.fc37.x86_64',
        'args': ['$tuned_params'] + common_args,
        'root': root,
        'initrd': '/boot/initramfs-6.5.12-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.12-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.12-100.fc37.x86_64',
    }
    assert entries[1] == {
        'index': 1,
        'kernel': '/boot/vmlinuz-6.5.10-100.fc37.x86_64',
        'args': common_args + ['$tuned_params'],
        'root': root,
        'initrd': '/boot/initramfs-6.5.10-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.10-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.10-100.fc37.x86_64',
    }
    assert entries[2] == {
        'index': 2,
        'kernel': '/boot/vmlinuz-6.5.7-100.fc37.x86_64',
        'args': common_args + ['$tuned_params'],
        'root': root,
        'initrd': '/boot/initramfs-6.5.7-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.7-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.7-100.fc37.x86_64',
    }
    assert entries[3] == {
        'index': 3,
        'kernel': '/boot/vmlinuz-0-rescue-c44543d15b2c4e898912c2497f734e67',
        'args': common_args,
        'root': root,
        'initrd': '/boot/initramfs-0-rescue-c44543d15b2c4e898912c2497f734e67.img',
        'title': 'Fedora Linux (0-rescue-c44543d15b2c4e898912c2497f734e67) 36 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-0-rescue',
    }


def test_grubby_info_single_entry_missing_fields():
    # Variant: the first entry only, without initrd and title lines.
    text = '\n'.join(fixture('grubby_info_all_fedora37.txt').splitlines()[:4])
    assert parsers.parse_grubby_info(text) == [{
        'index': 0,
        'kernel': '/boot/vmlinuz-6.5.12-100.fc37.x86_64',
        'args': ['$tuned_params', 'ro', 'rootflags=subvol=root', 'rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1', 'rhgb', 'quiet'],
        'root': 'UUID=65c70529-e9ad-4778-9001-18fe8c525285',
        'initrd': None,
        'title': None,
        'id': None,
    }]


@pytest.mark.parametrize('text', ['', None, 'index=4\nnon linux entry\n', 'garbage\nkernel=/boot/vmlinuz-x\n'])
def test_grubby_info_empty_or_garbage(text):
    assert parsers.parse_grubby_info(text) == []


# --------------------------------------------------------------- pmd-rxq-show

def test_pmd_rxq_show_dual_numa():
    rxqs = parsers.parse_pmd_rxq_show(fixture('ovs_appctl_pmd_rxq_show_dual_numa.txt'))
    assert len(rxqs) == 8
    for queue, rxq in enumerate(rxqs):
        assert rxq == {
            'numa': 1, 'core': 1, 'port': 'p0', 'queue': queue, 'usage': None, 'enabled': True, 'isolated': False,
        }


def test_pmd_rxq_show_with_usage_and_disabled():
    # Variant of the fixture: numbers instead of NOT AVAIL, one disabled
    # queue, and a queue on the second PMD thread.
    text = fixture('ovs_appctl_pmd_rxq_show_dual_numa.txt')
    text = text.replace('queue-id:  0 (enabled)   pmd usage: NOT AVAIL', 'queue-id:  0 (enabled)   pmd usage: 43 %')
    text = text.replace('queue-id:  1 (enabled)', 'queue-id:  1 (disabled)')
    text += '  port: vf0               queue-id:  0 (enabled)   pmd usage:  7 %\n'
    rxqs = parsers.parse_pmd_rxq_show(text)
    assert rxqs[0]['usage'] == 43
    assert rxqs[1]['enabled'] is False
    assert rxqs[-1] == {'numa': 0, 'core': 2, 'port': 'vf0', 'queue': 0, 'usage': 7, 'enabled': True, 'isolated': False}


@pytest.mark.parametrize('text', ['', None, 'Displaying last 60 seconds pmd usage %\n', 'ovs-appctl: cannot connect\n'])
def test_pmd_rxq_show_empty_or_garbage(text):
    assert parsers.parse_pmd_rxq_show(text) == []


# ----------------------------------------------------------------- dump-flows

def test_dump_flows_cx6_tc():
    flows = parsers.parse_dump_flows(fixture('ovs_dpctl_dump_flows_offloaded_cx6_tc.txt'))
    assert flows == [
        {
            'match': 'recirc_id(0),in_port(3),eth(src=88:2a:5e:a9:30:af,dst=08:c0:eb:3e:84:82),eth_type(0x0800),ipv4(frag=no)',
            'packets': 57110,
            'bytes': 7618112,
            'used': '0.250s',
            'offloaded': None,
            'dp': None,
            'actions': '2',
            'ufid': None,
        },
        {
            'match': 'recirc_id(0),in_port(3),eth(src=88:2a:5e:a9:30:c6,dst=01:80:c2:00:00:0e),eth_type(0x88cc)',
            'packets': 0,
            'bytes': 0,
            'used': '6.420s',
            'offloaded': None,
            'dp': None,
            'actions': 'drop',
            'ufid': None,
        },
    ]


def test_dump_flows_m_dummy_offload():
    assert parsers.parse_dump_flows(fixture('ovs_dpctl_dump_flows_m_dummy_offload.txt')) == [{
        'match': 'recirc_id(0),in_port(p1),packet_type(ns=0,id=0),eth(),eth_type(0x0800),ipv4(),udp()',
        'packets': 1,
        'bytes': 106,
        'used': '0.0s',
        'offloaded': 'yes',
        'dp': 'dummy',
        'actions': 'p2',
        'ufid': None,
    }]


def test_dump_flows_ufid_doca_partial_and_headers():
    # Variant of the -m fixture: a ufid prefix, dp:doca, a partial flow with
    # flags, and the "flow-dump from" header lines OVS prints per thread.
    line = fixture('ovs_dpctl_dump_flows_m_dummy_offload.txt').strip()
    text = '\n'.join([
        'flow-dump from the main thread:',
        'ufid:2b2a6a7e-7c4c-4d69-9f8c-6b6e0c2a5f11, ' + line.replace('dp:dummy', 'dp:doca'),
        'flow-dump from pmd on cpu core: 2',
        line.replace('offloaded:yes, dp:dummy', 'flags:SP., offloaded:partial, dp:ovs').replace('actions:p2', 'actions:set(eth(src=00:00:00:00:00:01)),p2'),
    ])
    flows = parsers.parse_dump_flows(text)
    assert len(flows) == 2
    assert flows[0]['ufid'] == '2b2a6a7e-7c4c-4d69-9f8c-6b6e0c2a5f11'
    assert flows[0]['match'].startswith('recirc_id(0),in_port(p1)')
    assert flows[0]['dp'] == 'doca'
    assert flows[0]['offloaded'] == 'yes'
    assert flows[1]['offloaded'] == 'partial'
    assert flows[1]['dp'] == 'ovs'
    assert flows[1]['actions'] == 'set(eth(src=00:00:00:00:00:01)),p2'


@pytest.mark.parametrize('text', ['', None, 'flow-dump from the main thread:\n', 'ovs-vswitchd: datapath not found (Invalid argument)\n'])
def test_dump_flows_empty_or_garbage(text):
    assert parsers.parse_dump_flows(text) == []


# --------------------------------------------------------- doca_kernel_names

def test_doca_kernel_names_caret_from_seed():
    assert parsers.doca_kernel_names('5.14.0-611.47.1.sl9_7^2.x86_64') == {
        'pack': '5.14.0.611.47.1.sl9.7.2.x86.64',
        'repo_id': 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64',
        'package': 'doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64',
    }


@pytest.mark.parametrize('kver, pack, repo_id', [
    ('5.14.0-427.13.1.el9_4.x86_64', '5.14.0.427.13.1.el9.4.x86.64', 'doca-kernel-5.14.0-427.13.1.el9_4.x86_64'),
    ('6.1.0+rt5-amd64', '6.1.0.rt5.amd64', 'doca-kernel-6.1.0.rt5-amd64'),
    ('5.15.0-1~rc1_x86_64', '5.15.0.1.rc1.x86.64', 'doca-kernel-5.15.0-1.rc1_x86_64'),
    ('6.8.0-31-generic', '6.8.0.31.generic', 'doca-kernel-6.8.0-31-generic'),
    (' 5.14.0-611.47.1.sl9_7^2.x86_64\n', '5.14.0.611.47.1.sl9.7.2.x86.64', 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64'),
])
def test_doca_kernel_names_special_chars(kver, pack, repo_id):
    names = parsers.doca_kernel_names(kver)
    assert names == {'pack': pack, 'repo_id': repo_id, 'package': 'doca-kernel-' + pack}


@pytest.mark.parametrize('kver', ['', '   ', None])
def test_doca_kernel_names_empty(kver):
    with pytest.raises(ValueError):
        parsers.doca_kernel_names(kver)


# ------------------------------------------------------------ CPUs / siblings

def _siblings_2x16x2():
    """Thread siblings of the seed's servers: 2 sockets x 16 cores x 2 threads (cpu N and N+32)."""
    table = {}
    for cpu in range(32):
        table[cpu] = set([cpu, cpu + 32])
        table[cpu + 32] = set([cpu, cpu + 32])
    return table


def test_expand_siblings_seed_layout():
    result = cpulists.expand_siblings(set(range(2, 16)), _siblings_2x16x2())
    assert result == set(range(2, 16)) | set(range(34, 48))
    assert cpulists.cpulist(result) == '2-15,34-47'


def test_expand_siblings_transitive_and_string_forms():
    # 1 -> 2 -> 3 chain, keys as strings and values as cpulist strings
    # (what thread_siblings_list gives).
    siblings = {'1': '1-2', '2': '2-3', '3': [3], 7: '7'}
    assert cpulists.expand_siblings([1], siblings) == set([1, 2, 3])
    assert cpulists.expand_siblings('7', siblings) == set([7])


def test_expand_siblings_unknown_cpu_and_empty():
    assert cpulists.expand_siblings(set([5]), {}) == set([5])
    assert cpulists.expand_siblings(set(), _siblings_2x16x2()) == set()
    assert cpulists.expand_siblings(None, None) == set()


@pytest.mark.parametrize('cpus, text', [
    (set(), ''),
    (set([0]), '0'),
    (set([0, 1]), '0-1'),
    (set([0, 2, 4]), '0,2,4'),
    (set(range(2, 16)) | set(range(34, 48)), '2-15,34-47'),
    (set([1, 2, 3, 5, 7, 8]), '1-3,5,7-8'),
])
def test_cpulist_round_trip(cpus, text):
    assert cpulists.cpulist(cpus) == text
    assert cpulists.parse_cpulist(text) == cpus
    assert cpulists.cpulist(cpulists.parse_cpulist(text)) == text


def test_cpulist_accepts_unsorted_duplicates_and_strings():
    assert cpulists.cpulist([5, 3, 4, 3, '6']) == '3-6'


def test_parse_cpulist_forms():
    assert cpulists.parse_cpulist(' 2-4 , 8\n') == set([2, 3, 4, 8])
    assert cpulists.parse_cpulist('0-9:2/5') == set([0, 1, 5, 6])
    assert cpulists.parse_cpulist(None) == set()


@pytest.mark.parametrize('text', ['a-b', '3-1', '1-', '-1', '0x3', '1-4:0/2', '1;2'])
def test_parse_cpulist_garbage(text):
    with pytest.raises(ValueError):
        cpulists.parse_cpulist(text)


@pytest.mark.parametrize('cpus', [['x'], [True]])
def test_cpulist_garbage(cpus):
    with pytest.raises(ValueError):
        cpulists.cpulist(cpus)
