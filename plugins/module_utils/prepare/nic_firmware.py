# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the ``nic_firmware`` module: check what the user wrote,
merge what the tools report about each card, pick the image by PSID, and
plan burn and reset.

Nothing here runs a command; the module feeds in the parsed outputs of
``mlxfwmanager``, ``flint``/``mstflint``, ``ethtool -i`` and sysfs. Every
message names the variable as the user wrote it: the module passes the
names (``nic_firmware_images``, ``nic_firmware_devices``) the role uses.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import os
import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

# OEM PSID prefixes seen on ConnectX cards (the vendor that owns the image line).
PSID_VENDORS = (
    ('MT_', 'NVIDIA'),
    ('LNV', 'Lenovo'),
    ('DEL', 'Dell'),
    ('HPE', 'HPE'),
    ('HP_', 'HPE'),
    ('SM_', 'Supermicro'),
    ('IBM', 'IBM'),
    ('CIS', 'Cisco'),
    ('FJT', 'Fujitsu'),
    ('ORC', 'Oracle'),
)
# The keys of one entry of the images map (psid: in the list form, or equal to the key).
IMAGE_KEYS = ('image', 'src', 'version', 'psid')
# How a vendor ships firmware (image_kind): the image itself (bin), NVIDIA's per-PSID download with the
# image in a zip (zip), or a bundle for mlxfwmanager holding images for several PSIDs: an archive (mfa) or
# the self-extracting program (program, run as mlxfwmanager).
BUNDLES = ('mfa', 'program')

# A PSID is at most 16 characters (the PSID field of the image), upper case as flint prints it.
_PSID_RE = re.compile(r'^[A-Z][A-Z0-9_]{3,15}$')
_VERSION_RE = re.compile(r'^\d+\.\d+\.\d+$')
_PCI_RE = re.compile(r'^(?:(?P<domain>[0-9a-fA-F]{4}):)?(?P<bdf>[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])$')
PSID_EXAMPLE = 'such as LNV0000000033 (Lenovo) or MT_0000000436 (NVIDIA), as mlxfwmanager --query or flint -d PCI q prints it'


def psid_vendor(psid):
    """The vendor a PSID belongs to (``LNV0000000033`` -> ``Lenovo``), ``None`` when unknown."""
    if not psid:
        return None
    for prefix, vendor in PSID_VENDORS:
        if psid.upper().startswith(prefix):
            return vendor
    return None


def psid_text(psid):
    """``LNV0000000033 (Lenovo)``."""
    return '%s (%s)' % (psid, psid_vendor(psid) or 'unknown vendor')


def normalize_pci(address):
    """``03:00.0`` -> ``0000:03:00.0``; lower case; ``None`` when not a PCI address."""
    if address is None:
        return None
    match = _PCI_RE.match(str(address).strip())
    if not match:
        return None
    return '%s:%s' % ((match.group('domain') or '0000').lower(), match.group('bdf').lower())


def version_key(version):
    """``26.47.1026`` -> ``(26, 47, 1026)`` for ordering; ``None`` when not a firmware version."""
    if version is None or not _VERSION_RE.match(str(version).strip()):
        return None
    return tuple(int(part) for part in str(version).strip().split('.'))


def image_kind(head, executable=False):
    """What a firmware file is, from its first bytes: ``zip``, ``mfa``, ``program`` or ``bin``.

    NVIDIA ships one image per PSID as ``fw-...bin.zip``; vendors' bundles for
    mlxfwmanager are an ``.mfa`` archive (magic ``MFAR``) or a self-extracting
    executable (``mlxfwmanager_LES_...``: ELF, or a script).
    """
    head = head or b''
    if head[:4] == b'PK\x03\x04':
        return 'zip'
    if head[:4] == b'MFAR':
        return 'mfa'
    if executable and (head[:4] == b'\x7fELF' or head[:2] == b'#!'):
        return 'program'
    return 'bin'


def bundle_argv(kind, path, mlxfwmanager, pci, action):
    """mlxfwmanager on a bundle for the card at ``pci``: ``query`` (XML) or ``update``.

    A self-extracting bundle is itself mlxfwmanager with its images inside; an
    archive is given to mlxfwmanager with ``-i``. mlxfwmanager picks the image
    of the card's own PSID and never burns another PSID's.
    """
    prefix = [path] if kind == 'program' else [mlxfwmanager, '-i', path]
    tail = ['--query', '--query-format', 'XML'] if action == 'query' else ['-u', '-y', '--no-progress']
    return prefix + ['-d', pci] + tail


def zip_member(psid, members):
    """The image of a zip (``[{name, psid, fw_version, path}]``) for ``psid``; ``None`` when it has none."""
    for member in members or []:
        if member.get('psid') == psid:
            return member
    return None


def bundle_facts(facts, psid, devices):
    """The facts of a bundle for ``psid`` from ``mlxfwmanager -d PCI -i BUNDLE --query --query-format XML``
    (``parse_mlxfwmanager_xml``): the version it holds for the card (``fw_available``) and its status."""
    device = devices[0] if devices else {}
    available = device.get('fw_available')
    facts.update(psid=psid if available else None, fw_version=available, status=device.get('status'), unread=False)
    return facts


def _package_errors(where, psid, facts):
    """What a zip or a bundle says against the PSID it is given for."""
    path = facts.get('path')
    if facts.get('kind') == 'zip' and not facts.get('member'):
        members = facts.get('members') or []
        if not members:
            return ['%s: %s is a zip without a firmware image (.bin) in it; give NVIDIA\'s download for PSID %s as '
                    'shipped (fw-...bin.zip) or the .bin itself' % (where, path, psid)]
        held = ', '.join('%s (%s)' % (member.get('psid') or 'unreadable', member.get('name')) for member in members)
        return ['%s: the zip %s holds images for PSID %s, none for %s; point it at the download for the card\'s own '
                'vendor line (firmware is never burned across PSIDs)' % (where, path, held, psid_text(psid))]
    if facts.get('kind') in BUNDLES and not facts.get('unread') and not facts.get('fw_version'):
        return ['%s: the bundle %s has no image for PSID %s (mlxfwmanager -i BUNDLE --query: %s); give the vendor\'s '
                'bundle for the card\'s own vendor line' % (where, path, psid_text(psid), facts.get('status') or 'no answer')]
    return []


def psid_error(name, psid):
    """The message for a PSID the user wrote that is not one, else ``None``."""
    if isinstance(psid, str) and _PSID_RE.match(psid):
        return None
    if psid in (None, ''):
        return '%s: missing; give the PSID of the card the image is for, %s' % (name, PSID_EXAMPLE)
    text = validate.show(psid)
    if isinstance(psid, str) and _PSID_RE.match(psid.strip().upper()):
        return '%s: %s is not a PSID; PSIDs are upper case without spaces: write %s' % (name, text, psid.strip().upper())
    return '%s: %s is not a PSID; %s' % (name, text, 'a key is the PSID of a card, ' + PSID_EXAMPLE
                                         if not name.endswith('.psid') else 'give the PSID of a card, ' + PSID_EXAMPLE)


def image_entries(images, name='images'):
    """The images as ``[(where, psid, entry)]`` and the errors of their shape and PSIDs.

    Two forms: a mapping PSID -> ``{image, src, version}`` (``where`` is
    ``NAME[PSID]``) or a list of ``{psid, image, src, version}`` (``where``
    is ``NAME[INDEX]``).
    """
    if isinstance(images, dict):
        entries = [('%s[%s]' % (name, psid), psid, entry) for psid, entry in sorted(images.items(), key=lambda item: str(item[0]))]
        errors = [message for message in (psid_error(name, psid) for _where, psid, _entry in entries) if message]
        for where, psid, entry in entries:
            if isinstance(entry, dict) and entry.get('psid') is not None and entry['psid'] != psid:
                errors.append('%s.psid: %s differs from its key %s; drop psid (the key is the PSID)' % (where, validate.show(entry['psid']), psid))
        return entries, errors
    if isinstance(images, list):
        entries = [('%s[%d]' % (name, index), entry.get('psid') if isinstance(entry, dict) else None, entry)
                   for index, entry in enumerate(images)]
        errors = [message for message in (psid_error(where + '.psid', psid) for where, psid, entry in entries if isinstance(entry, dict))
                  if message]
        return entries, errors
    return [], ['%s: %s is neither a mapping PSID -> {image, src, version} nor a list of {psid, image, src, version}; write '
                '{LNV0000000033: {image: /var/tmp/offload-testbed/fw.bin}}' % (name, validate.show(images))]


def index_images(images, name='images'):
    """``(by_psid, where)``: the entry of each good PSID (the first one given) and where the user wrote it."""
    by_psid, where_of = {}, {}
    for where, psid, entry in image_entries(images, name)[0]:
        if isinstance(entry, dict) and psid_error(where, psid) is None and psid not in by_psid:
            by_psid[psid], where_of[psid] = entry, where
    return by_psid, where_of


def _path_errors(where, entry, key, place):
    value = entry.get(key)
    if key == 'image' and value in (None, ''):
        return ['%s.image: missing; give the path of the firmware image (.bin) on the host, '
                'for example /var/tmp/offload-testbed/fw.bin' % where]
    if key == 'src' and value is None:
        return []
    if not isinstance(value, str) or not os.path.isabs(value):
        return ['%s.%s: %s is not an absolute path; write the full path of the image on the %s, '
                'for example /var/tmp/offload-testbed/fw.bin' % (where, key, validate.show(value), place)]
    return []


def entry_errors(where, entry):
    """Form checks of one entry ``{image, src, version}`` of the images."""
    if not isinstance(entry, dict):
        return ['%s: %s is not a mapping; write {image: PATH ON THE HOST} with optionally src (a file on the '
                'controller copied to image) and version' % (where, validate.show(entry))]
    errors = []
    for key in sorted(set(entry) - set(IMAGE_KEYS), key=str):
        close = difflib.get_close_matches(str(key), IMAGE_KEYS, 1)
        errors.append('%s: unknown key %s; the keys are image, src, version (and psid in a list)%s' % (
            where, validate.show(key), ' (did you mean %s?)' % close[0] if close else ''))
    errors.extend(_path_errors(where, entry, 'image', 'host'))
    errors.extend(_path_errors(where, entry, 'src', 'controller'))
    version = entry.get('version')
    if version is not None and version_key(version) is None:
        errors.append('%s.version: %s is not a firmware version; write MAJOR.MINOR.SUBMINOR as flint prints it, '
                      'for example 26.47.1026, or drop version to take the image\'s own' % (where, validate.show(version)))
    return errors


def _shared_errors(entries, bundles=()):
    """One PSID given twice, or one file for two PSIDs: a card takes one image, an image carries one PSID
    (a bundle for mlxfwmanager, whose paths ``bundles`` lists, holds images for several)."""
    errors = []
    bundles = set(os.path.normpath(path) for path in bundles)
    for key in ('psid', 'image', 'src'):
        owner = {}
        for where, psid, entry in entries:
            value = psid if key == 'psid' else entry.get(key)
            if not isinstance(value, str) or not value or (key == 'psid' and psid_error(where, psid)):
                continue
            if key != 'psid' and os.path.normpath(value) in bundles:
                continue
            seen = value if key == 'psid' else os.path.normpath(value)
            if seen not in owner:
                owner[seen] = where
            elif key == 'psid':
                errors.append('%s.psid: %s is also the PSID of %s; a card takes one image: keep one entry per PSID'
                              % (where, validate.show(value), owner[seen]))
            else:
                errors.append('%s.%s: %s is also the %s of %s; an image carries one PSID: give each PSID its own file'
                              % (where, key, validate.show(value), key, owner[seen]))
    return errors


def validate_images(images, name='images', bundles=()):
    """Every form check of the images; returns a list of messages.

    ``images`` maps a PSID to ``{"image": path on the host, "src": path on
    the controller, "version": "xx.yy.zzzz"}`` (``src`` and ``version``
    optional: the image's own version is read with ``flint -i``), or lists
    such entries with their ``psid``. ``bundles`` lists the files known to be
    bundles for mlxfwmanager, which may serve several PSIDs.
    """
    entries, errors = image_entries(images, name)
    for where, _psid, entry in entries:
        errors.extend(entry_errors(where, entry))
    errors.extend(_shared_errors([(where, psid, entry) for where, psid, entry in entries if isinstance(entry, dict)], bundles))
    return errors


def validate_devices(devices, name='devices'):
    """The PCI addresses to handle, each card once: ``(wanted, errors)``.

    ``wanted`` holds ``(index, address)`` of the good ones (lower case), so
    later messages name the entry as the user numbered it.
    """
    wanted, errors, seen = [], [], {}
    for index, pci in enumerate(devices or []):
        where = '%s[%d]' % (name, index)
        message = validate.pci_address(where, pci)
        if message:
            errors.append(message)
        elif pci.lower() in seen:
            errors.append('%s: %s is listed twice (also %s[%d]); list each card once' % (where, validate.show(pci), name, seen[pci.lower()]))
        else:
            seen[pci.lower()] = index
            wanted.append((index, pci.lower()))
    return wanted, errors


def card_list(devices):
    """``0000:32:00.0 (PSID LNV0000000033), 0000:81:00.0 (PSID MT_0000000436)``."""
    return ', '.join('%s (PSID %s)' % (dev['pci'], dev.get('psid') or 'unknown') for dev in devices)


def device_errors(wanted, devices, images, names):
    """The cards the user listed (``validate_devices``) against the cards the host has.

    ``names`` gives the variables as the user wrote them, for :class:`validate.Names`: ``{'devices':
    'nic_firmware_devices', 'images': 'nic_firmware_images'}``.
    """
    found, name = dict((dev['pci'], dev) for dev in devices), validate.Names(names)
    errors = []
    for index, pci in wanted:
        where = name('devices', index)
        dev = found.get(pci)
        if dev is None:
            has = ('it has %s' % card_list(devices)) if devices else 'it has no NVIDIA/Mellanox card at all'
            errors.append('%s: no card at %s on this host (mlxfwmanager --query, sysfs vendor 0x15b3); %s: list cards by '
                          'those addresses, or leave %s empty to handle every card' % (where, validate.show(pci), has, name('devices')))
        elif not dev.get('psid'):
            errors.append('%s: no tool reported the PSID of the card at %s (mlxfwmanager, flint, ethtool -i, sysfs board_id); '
                          'install MFT or mstflint, or drop the card from %s' % (where, pci, name('devices')))
        elif dev['psid'] not in (images or {}):
            errors.append('%s: the card at %s is PSID %s and %s has no image for it; add one for %s (the image of the card\'s '
                          'own vendor line), or drop the card from %s' % (
                              where, pci, psid_text(dev['psid']), name('images'), dev['psid'], name('devices')))
    return errors


def image_errors(name, psid, entry, facts, cards):
    """What the image of entry ``name`` (``nic_firmware_images[LNV0000000033]`` or
    ``nic_firmware_images[0]``) for ``psid`` says against the entry and the host's cards of that PSID.

    ``facts`` are the image's ``flint -i IMAGE q`` facts with ``path``,
    ``key`` (``src``: read on the controller, ``image``: on the host) and
    ``error`` (a message when it could not be read).
    """
    if facts.get('error'):
        return [facts['error']]
    where = '%s.%s' % (name, facts.get('key') or 'image')
    package = _package_errors(where, psid, facts)
    if package or facts.get('unread'):
        return package
    image_psid, own, version = facts.get('psid'), facts.get('fw_version'), entry.get('version')
    if image_psid and image_psid != psid:
        whose = ('the card at %s is' % ', '.join(card['pci'] for card in cards)) if cards else 'it is listed under'
        return ['%s: the image %s is for PSID %s but %s %s; point it at the image of the card\'s own vendor line '
                '(firmware is never burned across PSIDs)' % (where, facts.get('path'), psid_text(image_psid), whose, psid_text(psid))]
    if version_key(version) and version_key(own) and version_key(version) != version_key(own):
        return ['%s.version: %s but the image %s is %s (flint -i IMAGE q); burning it cannot give %s: set version '
                'to %s or drop it' % (name, validate.show(version), facts.get('path'), own, version, own)]
    if version is None and version_key(own) is None:
        return ['%s: flint -i %s q reports no firmware version; give an image flint can read, or set %s.version' % (
            where, facts.get('path'), name)]
    return []


def merge_device(pci, mlxfw=None, flint=None, ethtool=None, board_id=None):
    """One card's facts from whatever the tools gave.

    ``mlxfw`` is a device of ``parse_mlxfwmanager``, ``flint`` a
    ``parse_flint_query`` result, ``ethtool`` a ``parse_ethtool_info``
    result, ``board_id`` the sysfs ``board_id`` text. Returns ``{pci, psid,
    burned, running, sources}``: ``burned`` is the version on flash,
    ``running`` the one the card runs now (the burned one when no tool
    reports a pending image).
    """
    psid = burned = running = None
    sources = []
    if mlxfw:
        psid, burned = mlxfw.get('psid'), mlxfw.get('fw_current')
        running = mlxfw.get('fw_running') or burned
        sources.append('mlxfwmanager')
    # flint knows the flash (and what runs when it differs); ethtool -i only what runs.
    for source, facts, version in (('flint', flint, 'fw_version'), ('ethtool', ethtool, 'firmware_version')):
        if not facts or not (facts.get(version) or facts.get('psid')):
            continue
        psid = psid or facts.get('psid')
        if source == 'flint' and burned is None:
            burned = facts.get(version)
            running = facts.get('fw_version_running') or burned
        elif source == 'ethtool' and running is None:
            running = facts.get(version)
        sources.append(source)
    if board_id and board_id.strip():
        psid = psid or board_id.strip()
        sources.append('sysfs')
    return {'pci': normalize_pci(pci) or pci, 'psid': psid, 'burned': burned, 'running': running, 'sources': sources}


def _refuse(plan, message):
    plan.update(action='refuse', refusal=message)
    return plan


def _pick_image(plan, images, image_facts, name, where):
    """Fill ``image``, ``image_psid`` and ``wanted``; returns False when the plan is settled already."""
    psid = plan['psid']
    label = (where or {}).get(psid) or '%s[%s]' % (name, psid)
    if not psid or psid not in (images or {}):
        plan['action'] = 'no-image'
        plan['note'] = ('%s has no entry for PSID %s' % (name, psid_text(psid)) if psid else
                        'no tool reported the PSID (mlxfwmanager, flint, ethtool -i, sysfs board_id)')
        return False
    entry = images[psid]
    image = entry.get('image')
    facts = (image_facts or {}).get(psid, (image_facts or {}).get(image))
    if facts is None or facts.get('unread'):
        # Check mode before the image is copied (or a bundle, read with the card): read before any burn.
        plan['note'] = 'image %s is not read on the host yet; its PSID is checked before burning' % image
        facts = {}
    plan.update(image=image, image_psid=facts.get('psid'), wanted=entry.get('version') or facts.get('fw_version'),
                kind=facts.get('kind') or 'bin', burn_path=facts.get('burn_path'))
    if facts.get('psid') and facts['psid'] != psid:
        _refuse(plan, '%s: the image %s is for PSID %s but the card is %s; fix %s to point at the image of the '
                'card\'s own vendor line' % (plan['pci'], image, psid_text(facts['psid']), psid_text(psid), label))
        return False
    if plan['wanted'] is None and not facts:
        plan['action'] = 'unknown'
        return False
    if version_key(plan['wanted']) is None:
        _refuse(plan, '%s: no firmware version for image %s (set %s.version or give a readable image)' % (
            plan['pci'], image, label))
        return False
    return True


def plan_device(device, images, image_facts, reset_ok, name='images', where=None):
    """Plan one card. Returns the device dict with ``wanted``, ``image``,
    ``action`` and ``refusal`` added.

    ``image_facts`` maps a PSID (or an image path) to the facts of its image
    (``flint -i IMAGE q``, or for a zip the image in it, for a bundle what
    mlxfwmanager finds in it for the card): its ``psid``, ``fw_version``,
    ``kind`` and the ``burn_path`` of an image taken out of a zip; ``None``
    for an image not on the host yet (check mode before the copy). Actions:
    ``none`` (nothing to do), ``no-image`` (no image for this PSID),
    ``burn`` (flash differs from the wanted version), ``reset`` (flash is
    right, the running firmware is not; ``mlxfwreset``), ``reboot`` (the
    same, but resets are not allowed: a reboot is required), ``burn+reset``
    or ``burn+reboot``; ``unknown`` when the image is absent and has no
    version in ``images``. ``refusal`` is a message when the card must not be
    touched (PSID mismatch, unknown PSID or version). ``name`` is the
    images variable as the user wrote it, ``where`` maps a PSID to the
    place of its entry (``nic_firmware_images[0]``; default ``NAME[PSID]``).
    """
    plan = dict(device)
    plan.update({'wanted': None, 'image': None, 'image_psid': None, 'action': 'none', 'refusal': None, 'note': None,
                 'kind': None, 'burn_path': None})
    if not _pick_image(plan, images, image_facts, name, where):
        return plan
    if device.get('burned') is None:
        return _refuse(plan, '%s: no tool reported the burned firmware version; refusing to burn blind' % device['pci'])
    burn = device['burned'] != plan['wanted']
    running = device.get('running') or device['burned']
    steps = ['burn'] if burn else []
    if burn or running != plan['wanted']:
        steps.append('reset' if reset_ok else 'reboot')
    plan['action'] = '+'.join(steps) if steps else 'none'
    return plan


def plan_summary(plan):
    """One line per device for check mode and logs."""
    return '%s PSID %s: burned %s, running %s, wanted %s -> %s' % (
        plan['pci'], psid_text(plan.get('psid')), plan.get('burned'), plan.get('running'), plan.get('wanted'), plan.get('action'))


def not_running(plans):
    """The cards whose flash or running firmware is not the one planned (after burning and activating)."""
    wrong = []
    for plan in plans:
        running = plan.get('running') or plan.get('burned')
        if plan.get('wanted') and (plan.get('burned'), running) != (plan['wanted'], plan['wanted']):
            wrong.append(plan)
    return wrong


def verify_message(plans):
    """Why the later stages must not start: each card that does not run what was planned."""
    cards = '; '.join('%s PSID %s runs %s (burned %s), wanted %s' % (
        plan['pci'], psid_text(plan.get('psid')), plan.get('running'), plan.get('burned'), plan['wanted']) for plan in plans)
    return ('the cards do not run the planned firmware: %s; the later stages (switchdev, VFs, OVS, the benchmark) must not '
            'run on it: see which reset the card needs with mlxfwreset -d PCI query, or power-cycle the host, then run '
            'the play again' % cards)
