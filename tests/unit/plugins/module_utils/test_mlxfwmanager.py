# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/mlxfwmanager.py: ``mlxfwmanager --query`` as text and XML.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager, parse_mlxfwmanager_xml
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_mlxfwmanager_update_required():
    devices = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6lx_update_required.txt'))
    assert len(devices) == 1
    dev = devices[0]
    assert dev['device_type'] == 'ConnectX6LX'
    assert dev['part_number'] == 'MCX631102AS-ADA_Ax'
    assert dev['description'] == 'ConnectX-6 Lx EN adapter card; 25GbE; Dual-port SFP28; PCIe 4.0 x8; Secure Boot; No Crypto;'
    assert dev['psid'] == 'MT_0000000575'
    assert dev['pci'] == '0002:01:00.0'
    assert dev['base_guid'] == 'e8ebd3030070cf12'
    assert dev['base_mac'] == 'e8ebd370cf12'
    assert (dev['fw_current'], dev['fw_available'], dev['fw_running']) == ('26.33.1048', '26.43.1014', None)
    assert dev['status'] == 'Update required'
    assert dev['versions'] == {
        'FW': {'current': '26.33.1048', 'available': '26.43.1014'},
        'PXE': {'current': '3.6.0502', 'available': '3.7.0500'},
        'UEFI': {'current': '14.26.0017', 'available': '14.36.0016'},
    }


def test_mlxfwmanager_running_differs():
    dev = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx3pro_running_differs.txt'))[0]
    assert (dev['device_type'], dev['psid'], dev['pci']) == ('ConnectX3Pro', 'HP_1380110017', 'mt4103_pci_cr0')
    assert (dev['fw_current'], dev['fw_running'], dev['fw_available']) == ('2.42.5700', '2.42.5016', '2.42.5700')
    assert dev['status'] == 'Up to date'
    assert dev['versions']['CLP'] == {'current': '8025', 'available': '8025'}
    assert dev['versions']['FW (Running)'] == {'current': '2.42.5016', 'available': None}
    # Port1 GUID / Port2 GUID are not the keys parsed; the card has no Base GUID line.
    assert dev['base_guid'] is None


def test_mlxfwmanager_no_matching_image_with_padded_columns():
    # A block of a longer listing (Device #4), columns padded with trailing spaces as mlxup 4.2x prints them.
    dev = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx5_no_matching_image.txt'))[0]
    assert (dev['psid'], dev['pci'], dev['base_guid'], dev['base_mac']) == ('MT_0000000158', 'pci0:6:0:0', None, None)
    assert (dev['fw_current'], dev['fw_available'], dev['status']) == ('16.24.4020', None, 'No matching image found')


def test_mlxfwmanager_query_of_an_update():
    # mlxfwmanager -u prints the query, then its progress; only the device block is parsed.
    devices = parse_mlxfwmanager(fixture('mlxfwmanager_update_cx3.txt'))
    assert [(d['psid'], d['pci'], d['fw_current'], d['fw_available'], d['status']) for d in devices] == [
        ('MT_1170110023', '03:00.0', '2.33.5220', '2.42.5000', 'Update required')]


def test_mlxfwmanager_two_devices():
    # Variant of the recorded query: its device block twice, the second as Device #2 with another PCI name and
    # the Status line of the ConnectX-3 Pro query.
    text = fixture('mlxfwmanager_query_cx6lx_update_required.txt')
    block = text.split('Device #1:', 1)[1]
    second = block.replace('0002:01:00.0', '0002:01:00.1').replace('Update required', 'Up to date')
    devices = parse_mlxfwmanager(text + '\nDevice #2:' + second)
    assert [d['pci'] for d in devices] == ['0002:01:00.0', '0002:01:00.1']
    assert [d['status'] for d in devices] == ['Update required', 'Up to date']
    assert 'Status' not in devices[0]['versions']


@pytest.mark.parametrize('text', ['', None, 'Querying Mellanox devices firmware ...\n', '-E- No devices found\n'])
def test_mlxfwmanager_empty_or_garbage(text):
    assert parse_mlxfwmanager(text) == []


def test_mlxfwmanager_xml_same_as_the_text_of_the_same_card():
    text = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6lx_update_required.txt'))[0]
    xml = parse_mlxfwmanager_xml(fixture('mlxfwmanager_query_xml_cx6lx_update_required.xml'))[0]
    # The XML of the card is, key for key, what its text query says (the fields are checked above).
    assert len(parse_mlxfwmanager_xml(fixture('mlxfwmanager_query_xml_cx6lx_update_required.xml'))) == 1
    assert text == xml


def test_mlxfwmanager_xml_with_leading_banner_and_na():
    # Variant: the banner line before the XML, and N/A where no image is available (as sonic's XML shows it).
    xml = fixture('mlxfwmanager_query_xml_cx6lx_update_required.xml').replace('available="26.43.1014"', 'available="N/A"')
    devices = parse_mlxfwmanager_xml('Querying Mellanox devices firmware ...\n' + xml)
    assert [(d['pci'], d['fw_available']) for d in devices] == [('0002:01:00.0', None)]


@pytest.mark.parametrize('text', ['', None, 'not xml', '<Devices><Device', '<Devices></Devices>'])
def test_mlxfwmanager_xml_empty_or_garbage(text):
    assert parse_mlxfwmanager_xml(text) == []
