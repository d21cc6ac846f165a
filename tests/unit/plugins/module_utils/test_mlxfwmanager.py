# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/mlxfwmanager.py: ``mlxfwmanager --query`` as text and XML.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.mlxfwmanager import parse_mlxfwmanager, parse_mlxfwmanager_xml
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_mlxfwmanager_running_differs():
    devices = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6dx_running_differs.txt'))
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
    dev = parse_mlxfwmanager(text)[0]
    assert dev['fw_running'] is None
    assert dev['fw_current'] == '22.45.3608'
    assert set(dev['versions']) == set(['FW', 'PXE', 'UEFI'])


def test_mlxfwmanager_two_devices_and_status():
    # Variant of the fixture: the device block repeated as Device #2 with
    # another PCI name, and a Status line appended to each block.
    block = fixture('mlxfwmanager_query_cx6dx_running_differs.txt').split('Device #1:', 1)[1]
    text = ('Querying Mellanox devices firmware ...\n\nDevice #1:' + block + '     Status:           Update required\n'
            + '\nDevice #2:' + block.replace('03:00.0', '03:00.1') + '     Status:           Up to date\n')
    devices = parse_mlxfwmanager(text)
    assert [d['pci'] for d in devices] == ['03:00.0', '03:00.1']
    assert [d['status'] for d in devices] == ['Update required', 'Up to date']
    assert all(d['fw_running'] == '22.43.1020' for d in devices)
    assert 'Status' not in devices[0]['versions']


@pytest.mark.parametrize('text', ['', None, 'Querying Mellanox devices firmware ...\n', '-E- No devices found\n'])
def test_mlxfwmanager_empty_or_garbage(text):
    assert parse_mlxfwmanager(text) == []


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
    devices = parse_mlxfwmanager_xml(CONSTRUCTED_XML)
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
    text_keys = set(parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6dx_running_differs.txt'))[0])
    xml_keys = set(parse_mlxfwmanager_xml(CONSTRUCTED_XML)[0])
    assert text_keys == xml_keys


def test_mlxfwmanager_xml_with_leading_banner():
    devices = parse_mlxfwmanager_xml('Querying Mellanox devices firmware ...\n' + CONSTRUCTED_XML.split('\n', 1)[1])
    assert [d['pci'] for d in devices] == ['0000:03:00.0', '0000:b3:00.0']


@pytest.mark.parametrize('text', ['', None, 'not xml', '<Devices><Device', '<Devices></Devices>'])
def test_mlxfwmanager_xml_empty_or_garbage(text):
    assert parse_mlxfwmanager_xml(text) == []
