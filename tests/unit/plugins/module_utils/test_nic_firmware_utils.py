# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/nic_firmware.py over the verbatim
outputs in tests/fixtures (see tests/fixtures/SOURCES.md)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import nic_firmware as nf
from ansible_collections.offload.testbed.plugins.module_utils import parsers

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


CX6DX = parsers.parse_mlxfwmanager(fixture('mlxfwmanager_query_cx6dx_running_differs.txt'))[0]
BF2 = parsers.parse_flint_query(fixture('flint_q_bluefield2.txt'))
ETHTOOL = parsers.parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt'))


@pytest.mark.parametrize('psid, vendor', [
    ('MT_0000000436', 'NVIDIA'), ('LNV0000000033', 'Lenovo'), ('DEL0000000027', 'Dell'),
    ('HPE0000000014', 'HPE'), ('ZZZ0000000001', None), (None, None), ('', None),
])
def test_psid_vendor(psid, vendor):
    assert nf.psid_vendor(psid) == vendor


@pytest.mark.parametrize('address, norm', [
    ('03:00.0', '0000:03:00.0'), ('0000:32:00.0', '0000:32:00.0'), ('0000:B3:00.1', '0000:b3:00.1'),
    ('mlx5_0', None), (None, None), ('32:00', None),
])
def test_normalize_pci(address, norm):
    assert nf.normalize_pci(address) == norm


def test_version_key_orders_numerically():
    assert nf.version_key('26.47.1026') > nf.version_key('26.9.9999')
    assert nf.version_key('N/A') is None and nf.version_key(None) is None


def test_validate_images_names_the_entry():
    errors = nf.validate_images({
        'ConnectX-6 Lx': {'image': '/a.bin'},
        'LNV0000000033': {'version': '26.47'},
        'MT_0000000436': '/fw.bin',
    })
    assert errors == [
        "images[ConnectX-6 Lx]: 'ConnectX-6 Lx' is not a PSID (such as MT_0000000436 or LNV0000000033)",
        'images[LNV0000000033].image: the path of the firmware image (.bin) on the host is required',
        "images[LNV0000000033].version: '26.47' is not a firmware version such as 26.47.1026",
        'images[MT_0000000436]: must be a dict with image (path of the .bin) and optionally version',
    ]
    assert nf.validate_images({'LNV0000000033': {'image': '/a.bin', 'version': '26.47.1026'}}) == []


def test_merge_prefers_mlxfwmanager_burned_and_running():
    device = nf.merge_device('03:00.0', mlxfw=CX6DX, flint=BF2, ethtool=ETHTOOL, board_id='XX')
    assert device == {'pci': '0000:03:00.0', 'psid': 'MT_0000000436', 'burned': '22.45.3608', 'running': '22.43.1020',
                      'sources': ['mlxfwmanager', 'flint', 'ethtool', 'sysfs']}


def test_merge_falls_back_to_flint_then_ethtool_then_sysfs():
    assert nf.merge_device('0000:08:00.0', flint=BF2) == {
        'pci': '0000:08:00.0', 'psid': 'MT_0000000723', 'burned': '24.33.1048', 'running': '24.33.1048', 'sources': ['flint']}
    # ethtool -i knows only what runs (and the PSID suffix); nothing on flash.
    assert nf.merge_device('0000:b3:00.0', ethtool=ETHTOOL) == {
        'pci': '0000:b3:00.0', 'psid': 'MT_0000000430', 'burned': None, 'running': '22.29.1016', 'sources': ['ethtool']}
    no_suffix = parsers.parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt').replace(' (MT_0000000430)', ''))
    device = nf.merge_device('0000:b3:00.0', ethtool=no_suffix, board_id='LNV0000000033\n')
    assert (device['psid'], device['running'], device['sources']) == ('LNV0000000033', '22.29.1016', ['ethtool', 'sysfs'])


def image(psid, version):
    """``flint -i IMAGE q`` of an image: the fixture's layout with the image's PSID and version."""
    text = fixture('flint_q_bluefield2.txt').replace('24.33.1048', version).replace('MT_0000000723', psid)
    return parsers.parse_flint_query(text)


def card(psid='LNV0000000033', burned='26.43.1014', running=None):
    return {'pci': '0000:32:00.0', 'psid': psid, 'burned': burned, 'running': running or burned, 'sources': ['mlxfwmanager']}


IMAGES = {'LNV0000000033': {'image': '/fw/lnv.bin'}}


@pytest.mark.parametrize('device, reset_ok, action', [
    (card(), False, 'burn+reboot'),
    (card(), True, 'burn+reset'),
    (card(burned='26.47.1026', running='26.43.1014'), True, 'reset'),
    (card(burned='26.47.1026', running='26.43.1014'), False, 'reboot'),
    (card(burned='26.47.1026'), False, 'none'),
    # Burned newer than wanted: the wanted version is burned back.
    (card(burned='26.48.1000'), True, 'burn+reset'),
])
def test_plan_burns_only_when_burned_or_running_differs(device, reset_ok, action):
    plan = nf.plan_device(device, IMAGES, {'/fw/lnv.bin': image('LNV0000000033', '26.47.1026')}, reset_ok)
    assert (plan['action'], plan['wanted'], plan['refusal']) == (action, '26.47.1026', None)


def test_plan_refuses_an_image_of_another_oem_line():
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': image('MT_0000000158', '26.47.1026')}, True)
    assert plan['action'] == 'refuse'
    assert plan['refusal'] == ("0000:32:00.0: the image /fw/lnv.bin is for PSID MT_0000000158 (NVIDIA) but the card is "
                               "LNV0000000033 (Lenovo); fix images[LNV0000000033] to point at the image of the card's own vendor line")


def test_plan_version_from_images_wins_over_the_image():
    images = {'LNV0000000033': {'image': '/fw/lnv.bin', 'version': '26.43.1014'}}
    plan = nf.plan_device(card(), images, {'/fw/lnv.bin': image('LNV0000000033', '26.47.1026')}, False)
    assert (plan['wanted'], plan['action']) == ('26.43.1014', 'none')


def test_plan_without_image_or_psid_does_nothing():
    plan = nf.plan_device(card(psid='DEL0000000027'), IMAGES, {}, True)
    assert (plan['action'], plan['refusal']) == ('no-image', None)
    assert plan['note'] == 'images has no entry for PSID DEL0000000027 (Dell)'
    plan = nf.plan_device(card(psid=None), IMAGES, {}, True)
    assert plan['action'] == 'no-image' and 'no tool reported the PSID' in plan['note']


def test_plan_refuses_to_burn_blind():
    plan = nf.plan_device(card(burned=None, running='26.43.1014'), IMAGES, {'/fw/lnv.bin': image('LNV0000000033', '26.47.1026')}, True)
    assert plan['action'] == 'refuse' and 'no tool reported the burned firmware version' in plan['refusal']
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': {'psid': 'LNV0000000033', 'fw_version': None}}, True)
    assert plan['action'] == 'refuse' and 'no firmware version for image /fw/lnv.bin' in plan['refusal']


def test_plan_of_an_image_not_copied_yet():
    plan = nf.plan_device(card(), {'LNV0000000033': {'image': '/fw/lnv.bin', 'version': '26.47.1026'}}, {'/fw/lnv.bin': None}, False)
    assert (plan['action'], plan['wanted']) == ('burn+reboot', '26.47.1026')
    assert 'not on the host yet' in plan['note']
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': None}, False)
    assert (plan['action'], plan['refusal']) == ('unknown', None)


def test_plan_summary_line():
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': image('LNV0000000033', '26.47.1026')}, False)
    assert nf.plan_summary(plan) == ('0000:32:00.0 PSID LNV0000000033 (Lenovo): burned 26.43.1014, running 26.43.1014, '
                                     'wanted 26.47.1026 -> burn+reboot')
