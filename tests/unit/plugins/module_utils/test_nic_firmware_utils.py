# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/prepare/nic_firmware.py over the verbatim
outputs in tests/fixtures (see tests/fixtures/SOURCES.md)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import nic_firmware as nf
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.flint import parse_flint_query
from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures'))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


# Variant of the recorded ConnectX-3 Pro query with FW (Running): a ConnectX-6 Dx's PSID and versions put in.
CX6DX = parse_mlxfwmanager(fixture('mlxfwmanager_query_cx3pro_running_differs.txt').replace('HP_1380110017', 'MT_0000000436')
                           .replace('2.42.5700', '22.45.3608').replace('2.42.5016', '22.43.1020'))[0]
BF2 = parse_flint_query(fixture('flint_q_bluefield2.txt'))
ETHTOOL = parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt'))


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
    }, 'nic_firmware_images')
    assert errors == [
        "nic_firmware_images: 'ConnectX-6 Lx' is not a PSID; a key is the PSID of a card, such as LNV0000000033 (Lenovo) "
        "or MT_0000000436 (NVIDIA), as mlxfwmanager --query or flint -d PCI q prints it",
        'nic_firmware_images[LNV0000000033].image: missing; give the path of the firmware image (.bin) on the host, '
        'for example /var/tmp/offload-testbed/fw.bin',
        "nic_firmware_images[LNV0000000033].version: '26.47' is not a firmware version; write MAJOR.MINOR.SUBMINOR as flint "
        "prints it, for example 26.47.1026, or drop version to take the image's own",
        "nic_firmware_images[MT_0000000436]: '/fw.bin' is not a mapping; write {image: PATH ON THE HOST} with optionally src "
        "(a file on the controller copied to image) and version",
    ]
    assert nf.validate_images({'LNV0000000033': {'image': '/a.bin', 'version': '26.47.1026'}}) == []


def test_validate_images_refuses_a_lower_case_psid_unknown_keys_and_relative_paths():
    errors = nf.validate_images({'lnv0000000033': {'image': 'fw.bin', 'scr': '/c/fw.bin', 'version': 26.47}}, 'nic_firmware_images')
    assert errors == [
        "nic_firmware_images: 'lnv0000000033' is not a PSID; PSIDs are upper case without spaces: write LNV0000000033",
        "nic_firmware_images[lnv0000000033]: unknown key 'scr'; the keys are image, src, version (and psid in a list) "
        "(did you mean src?)",
        "nic_firmware_images[lnv0000000033].image: 'fw.bin' is not an absolute path; write the full path of the image on the "
        "host, for example /var/tmp/offload-testbed/fw.bin",
        "nic_firmware_images[lnv0000000033].version: 26.47 is not a firmware version; write MAJOR.MINOR.SUBMINOR as flint "
        "prints it, for example 26.47.1026, or drop version to take the image's own",
    ]
    assert nf.validate_images({'LNV0000000033': {'image': '/h/fw.bin', 'src': 'fw.bin'}}, 'x') == [
        "x[LNV0000000033].src: 'fw.bin' is not an absolute path; write the full path of the image on the controller, "
        "for example /var/tmp/offload-testbed/fw.bin"]


def test_validate_images_refuses_one_file_for_two_psids():
    errors = nf.validate_images({
        'LNV0000000033': {'image': '/h/fw.bin', 'src': '/c/fw.bin'},
        'MT_0000000436': {'image': '/h/./fw.bin', 'src': '/c/fw.bin'},
    }, 'nic_firmware_images')
    assert errors == [
        "nic_firmware_images[MT_0000000436].image: '/h/./fw.bin' is also the image of nic_firmware_images[LNV0000000033]; "
        "an image carries one PSID: give each PSID its own file",
        "nic_firmware_images[MT_0000000436].src: '/c/fw.bin' is also the src of nic_firmware_images[LNV0000000033]; "
        "an image carries one PSID: give each PSID its own file",
    ]


def test_the_list_form_names_entries_by_index_and_refuses_two_images_for_one_psid():
    images = [
        {'psid': 'LNV0000000033', 'image': '/h/a.bin'},
        {'psid': 'LNV0000000033', 'image': '/h/b.bin'},
        {'psid': 'ConnectX-6', 'image': '/h/c.bin'},
        {'image': '/h/d.bin'},
        '/h/e.bin',
    ]
    assert nf.validate_images(images, 'nic_firmware_images') == [
        "nic_firmware_images[2].psid: 'ConnectX-6' is not a PSID; give the PSID of a card, such as LNV0000000033 (Lenovo) "
        "or MT_0000000436 (NVIDIA), as mlxfwmanager --query or flint -d PCI q prints it",
        'nic_firmware_images[3].psid: missing; give the PSID of the card the image is for, such as LNV0000000033 (Lenovo) '
        'or MT_0000000436 (NVIDIA), as mlxfwmanager --query or flint -d PCI q prints it',
        "nic_firmware_images[4]: '/h/e.bin' is not a mapping; write {image: PATH ON THE HOST} with optionally src (a file on "
        "the controller copied to image) and version",
        "nic_firmware_images[1].psid: 'LNV0000000033' is also the PSID of nic_firmware_images[0]; a card takes one image: "
        "keep one entry per PSID",
    ]
    assert nf.index_images(images, 'nic_firmware_images') == (
        {'LNV0000000033': images[0]}, {'LNV0000000033': 'nic_firmware_images[0]'})


def test_the_map_form_refuses_a_psid_that_differs_from_its_key_and_what_is_neither_form():
    assert nf.validate_images({'LNV0000000033': {'psid': 'MT_0000000436', 'image': '/h/a.bin'}}, 'x') == [
        "x[LNV0000000033].psid: 'MT_0000000436' differs from its key LNV0000000033; drop psid (the key is the PSID)"]
    assert nf.validate_images('/h/a.bin', 'nic_firmware_images') == [
        "nic_firmware_images: '/h/a.bin' is neither a mapping PSID -> {image, src, version} nor a list of {psid, image, src, "
        "version}; write {LNV0000000033: {image: /var/tmp/offload-testbed/fw.bin}}"]


def test_validate_devices_uses_the_shared_pci_rule_and_refuses_a_card_twice():
    wanted, errors = nf.validate_devices(['0000:32:00.0', '32:00.0', 1920.0, '0000:32:00.0', '0000:B3:00.0'], 'nic_firmware_devices')
    assert wanted == [(0, '0000:32:00.0'), (4, '0000:b3:00.0')]
    assert errors == [
        validate.pci_address('nic_firmware_devices[1]', '32:00.0'),
        validate.pci_address('nic_firmware_devices[2]', 1920.0),
        "nic_firmware_devices[3]: '0000:32:00.0' is listed twice (also nic_firmware_devices[0]); list each card once",
    ]
    assert 'base-60' in errors[1]


NAMES = {'devices': 'nic_firmware_devices', 'images': 'nic_firmware_images'}


def test_device_errors_name_the_cards_the_host_has():
    cards = [{'pci': '0000:32:00.0', 'psid': 'LNV0000000033'}, {'pci': '0000:81:00.0', 'psid': 'MT_0000000436'},
             {'pci': '0000:b3:00.0', 'psid': None}]
    images = {'LNV0000000033': {'image': '/a.bin'}}
    errors = nf.device_errors([(0, '0000:33:00.0'), (1, '0000:32:00.0'), (2, '0000:81:00.0'), (3, '0000:b3:00.0')], cards, images, NAMES)
    assert errors == [
        "nic_firmware_devices[0]: no card at '0000:33:00.0' on this host (mlxfwmanager --query, sysfs vendor 0x15b3); it has "
        "0000:32:00.0 (PSID LNV0000000033), 0000:81:00.0 (PSID MT_0000000436), 0000:b3:00.0 (PSID unknown): list cards by "
        "those addresses, or leave nic_firmware_devices empty to handle every card",
        "nic_firmware_devices[2]: the card at 0000:81:00.0 is PSID MT_0000000436 (NVIDIA) and nic_firmware_images has no image "
        "for it; add one for MT_0000000436 (the image of the card's own vendor line), or drop the card from "
        "nic_firmware_devices",
        "nic_firmware_devices[3]: no tool reported the PSID of the card at 0000:b3:00.0 (mlxfwmanager, flint, ethtool -i, "
        "sysfs board_id); install MFT or mstflint, or drop the card from nic_firmware_devices",
    ]
    assert nf.device_errors([(0, '0000:33:00.0')], [], images, NAMES)[0].endswith(
        'it has no NVIDIA/Mellanox card at all: list cards by those addresses, or leave nic_firmware_devices empty to handle every card')


def read(psid, version, key='src', path='/c/fw.bin'):
    return {'path': path, 'key': key, 'psid': psid, 'fw_version': version, 'error': None}


LNV = 'nic_firmware_images[LNV0000000033]'


def test_image_errors_compare_the_image_with_its_entry_and_cards():
    cards = [{'pci': '0000:32:00.0', 'psid': 'LNV0000000033'}]
    entry = {'image': '/h/fw.bin', 'src': '/c/fw.bin'}
    assert nf.image_errors(LNV, 'LNV0000000033', entry, read('LNV0000000033', '26.47.1026'), cards) == []
    assert nf.image_errors(LNV, 'LNV0000000033', entry, read('MT_0000000158', '26.47.1026'), cards) == [
        "nic_firmware_images[LNV0000000033].src: the image /c/fw.bin is for PSID MT_0000000158 (NVIDIA) but the card at "
        "0000:32:00.0 is LNV0000000033 (Lenovo); point it at the image of the card's own vendor line (firmware is never "
        "burned across PSIDs)"]
    assert 'but it is listed under LNV0000000033 (Lenovo)' in nf.image_errors(
        LNV, 'LNV0000000033', entry, read('MT_0000000158', '26.47.1026'), [])[0]
    assert nf.image_errors(LNV, 'LNV0000000033', dict(entry, version='26.48.1000'),
                           read('LNV0000000033', '26.47.1026', 'image', '/h/fw.bin'), cards) == [
        "nic_firmware_images[LNV0000000033].version: '26.48.1000' but the image /h/fw.bin is 26.47.1026 (flint -i IMAGE q); "
        "burning it cannot give 26.48.1000: set version to 26.47.1026 or drop it"]
    assert nf.image_errors(LNV, 'LNV0000000033', entry, read('LNV0000000033', None), cards) == [
        'nic_firmware_images[LNV0000000033].src: flint -i /c/fw.bin q reports no firmware version; give an image flint can '
        'read, or set nic_firmware_images[LNV0000000033].version']
    failed = dict(read(None, None), error='nic_firmware_images[LNV0000000033].src: /c/fw.bin does not exist on the controller')
    assert nf.image_errors(LNV, 'LNV0000000033', entry, failed, cards) == [failed['error']]


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
    no_suffix = parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt').replace(' (MT_0000000430)', ''))
    device = nf.merge_device('0000:b3:00.0', ethtool=no_suffix, board_id='LNV0000000033\n')
    assert (device['psid'], device['running'], device['sources']) == ('LNV0000000033', '22.29.1016', ['ethtool', 'sysfs'])


def image(psid, version):
    """``flint -i IMAGE q`` of an image: the fixture's layout with the image's PSID and version."""
    text = fixture('flint_q_bluefield2.txt').replace('24.33.1048', version).replace('MT_0000000723', psid)
    return parse_flint_query(text)


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
    where = {'LNV0000000033': 'nic_firmware_images[0]'}
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': image('MT_0000000158', '26.47.1026')}, True, 'nic_firmware_images', where)
    assert plan['refusal'].endswith('fix nic_firmware_images[0] to point at the image of the card\'s own vendor line')
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
    assert 'not read on the host yet' in plan['note']
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': None}, False)
    assert (plan['action'], plan['refusal']) == ('unknown', None)


def test_plan_summary_line():
    plan = nf.plan_device(card(), IMAGES, {'/fw/lnv.bin': image('LNV0000000033', '26.47.1026')}, False)
    assert nf.plan_summary(plan) == ('0000:32:00.0 PSID LNV0000000033 (Lenovo): burned 26.43.1014, running 26.43.1014, '
                                     'wanted 26.47.1026 -> burn+reboot')


@pytest.mark.parametrize('head, executable, kind', [
    (b'PK\x03\x04', False, 'zip'), (b'MFAR', False, 'mfa'), (b'\x7fELF', True, 'program'), (b'#!/b', True, 'program'),
    (b'#!/b', False, 'bin'), (b'\x00\x00\x00\x00', True, 'bin'), (b'', False, 'bin'), (None, False, 'bin'),
])
def test_image_kind_from_the_first_bytes(head, executable, kind):
    assert nf.image_kind(head, executable) == kind


def test_bundle_argv_query_and_update():
    assert nf.bundle_argv('program', '/fw/mlxfwmanager_LES', '/usr/bin/mlxfwmanager', '0000:32:00.0', 'query') == [
        '/fw/mlxfwmanager_LES', '-d', '0000:32:00.0', '--query', '--query-format', 'XML']
    assert nf.bundle_argv('mfa', '/fw/cx6.mfa', '/usr/bin/mlxfwmanager', '0000:32:00.0', 'update') == [
        '/usr/bin/mlxfwmanager', '-i', '/fw/cx6.mfa', '-d', '0000:32:00.0', '-u', '-y', '--no-progress']


def test_bundle_facts_from_the_recorded_xml_query():
    from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager_xml
    devices = parse_mlxfwmanager_xml(fixture('mlxfwmanager_query_xml_cx6lx_update_required.xml'))
    facts = nf.bundle_facts({'path': '/fw/b', 'key': 'image', 'kind': 'program'}, 'MT_0000000575', devices)
    assert (facts['psid'], facts['fw_version'], facts['status'], facts['unread']) == ('MT_0000000575', '26.43.1014', 'Update required', False)
    assert nf.image_errors('images[MT_0000000575]', 'MT_0000000575', {'image': '/fw/b'}, facts, []) == []
    none = nf.bundle_facts({'path': '/fw/b', 'key': 'image', 'kind': 'program'}, 'MT_0000000575', [])
    assert nf.image_errors('images[MT_0000000575]', 'MT_0000000575', {'image': '/fw/b'}, none, [])[0].startswith(
        'images[MT_0000000575].image: the bundle /fw/b has no image for PSID MT_0000000575 (NVIDIA)')


def test_zip_member_by_psid_and_the_refusal_of_a_zip_for_another_psid():
    members = [{'name': 'a.bin', 'psid': 'MT_0000000158', 'fw_version': '16.35.4030'},
               {'name': 'b.bin', 'psid': 'MT_0000000436', 'fw_version': '22.45.3608'}]
    assert nf.zip_member('MT_0000000436', members)['name'] == 'b.bin'
    assert nf.zip_member('LNV0000000033', members) is None
    facts = {'path': '/fw/x.zip', 'key': 'src', 'kind': 'zip', 'members': members[:1], 'member': None}
    assert nf.image_errors('images[MT_0000000436]', 'MT_0000000436', {'image': '/h/x.zip'}, facts, []) == [
        "images[MT_0000000436].src: the zip /fw/x.zip holds images for PSID MT_0000000158 (a.bin), none for MT_0000000436 "
        "(NVIDIA); point it at the download for the card's own vendor line (firmware is never burned across PSIDs)"]
    empty = dict(facts, members=[])
    assert 'is a zip without a firmware image (.bin) in it' in nf.image_errors('images[X]', 'MT_0000000436', {}, empty, [])[0]


def test_an_unread_bundle_plans_nothing_yet_and_is_not_refused():
    facts = {'path': '/fw/b', 'key': 'src', 'kind': 'program', 'unread': True, 'psid': None, 'fw_version': None}
    assert nf.image_errors('images[LNV0000000033]', 'LNV0000000033', {'image': '/h/b'}, facts, []) == []
    plan = nf.plan_device(card(), {'LNV0000000033': {'image': '/h/b'}}, {'LNV0000000033': facts}, False)
    assert (plan['action'], plan['refusal']) == ('unknown', None)


def test_not_running_and_the_message_that_stops_the_later_stages():
    done = dict(card(), burned='26.47.1026', running='26.47.1026', wanted='26.47.1026')
    waiting = dict(card(), burned='26.47.1026', running='26.43.1014', wanted='26.47.1026')
    unburned = dict(card(), pci='0000:33:00.0', wanted='26.47.1026')
    no_image = dict(card(), wanted=None)
    assert nf.not_running([done, waiting, unburned, no_image]) == [waiting, unburned]
    assert nf.verify_message([waiting]).startswith(
        'the cards do not run the planned firmware: 0000:32:00.0 PSID LNV0000000033 (Lenovo) runs 26.43.1014 (burned '
        '26.47.1026), wanted 26.47.1026; the later stages (switchdev, VFs, OVS, the benchmark) must not run on it')
