# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/flint.py: ``flint q`` and the PSID mismatch error.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.flint import parse_flint_psid_mismatch, parse_flint_query
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_flint_query_bluefield2():
    info = parse_flint_query(fixture('flint_q_bluefield2.txt'))
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
    info = parse_flint_query(fixture('flint_q_fs4_running_differs.txt'))
    assert (info['fw_version'], info['fw_version_running'], info['psid']) == ('20.35.1012', '20.34.1002', 'MT_0000000228')


def test_flint_query_of_a_connectx6_lx_and_of_an_image():
    card = parse_flint_query(fixture('flint_q_cx6lx.txt'))
    assert (card['fw_version'], card['psid'], card['base_mac'], card['base_mac_count']) == ('26.33.1048', 'MT_0000000575', 'e8ebd370cf12', 4)
    assert 'fw_version_running' not in card
    image = parse_flint_query(fixture('mstflint_i_image_q_cx4lx.txt'))
    assert (image['fw_version'], image['product_version'], image['psid'], image['base_guid']) == (
        '14.32.1912', 'rel-14_32_1912', 'MT_0000000267', None)


def test_flint_burn_outputs_parse_to_no_query():
    for name in ('flint_burn_cx6_downgrade.txt', 'mstflint_burn_cx4lx.txt'):
        info = parse_flint_query(fixture(name))
        assert (info['fw_version'], info['psid'], info['errors']) == (None, None, []), name
        assert parse_flint_psid_mismatch(fixture(name)) is None
    assert parse_flint_query(fixture('mstflint_cannot_open_device.txt'))['errors'] == [
        'Cannot open Device: 41:00.0. Invalid argument. MFE_GENERAL_ERROR']


def test_flint_query_on_psid_mismatch_error():
    info = parse_flint_query(fixture('flint_burn_psid_mismatch.txt'))
    assert info['fw_version'] is None
    assert info['psid'] is None
    assert info['product_version'] is None
    assert info['errors'] == [
        'PSID mismatch. The PSID on flash (LNV0000000025) differs from the PSID in the given image (MT_0000000158).'
    ]


def test_flint_psid_mismatch():
    assert parse_flint_psid_mismatch(fixture('flint_burn_psid_mismatch.txt')) == {
        'flash_psid': 'LNV0000000025',
        'image_psid': 'MT_0000000158',
    }


def test_flint_psid_mismatch_absent():
    assert parse_flint_psid_mismatch(fixture('flint_q_bluefield2.txt')) is None
    assert parse_flint_psid_mismatch('') is None


@pytest.mark.parametrize('text', ['', None, '   \n\n', '!!! nothing useful\n   indented orphan\n'])
def test_flint_query_empty_or_garbage(text):
    assert parse_flint_query(text) == {'fw_version': None, 'psid': None, 'product_version': None, 'errors': []}
