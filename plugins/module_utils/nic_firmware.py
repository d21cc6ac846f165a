# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the ``nic_firmware`` module: merge what the tools report
about each card, pick the image by PSID, and plan burn and reset.

Nothing here runs a command; the module feeds in the parsed outputs of
``mlxfwmanager``, ``flint``/``mstflint``, ``ethtool -i`` and sysfs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

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

_PSID_RE = re.compile(r'^[A-Z][A-Z0-9_]{2,}[0-9A-Za-z_]*$')
_VERSION_RE = re.compile(r'^\d+\.\d+\.\d+$')
_PCI_RE = re.compile(r'^(?:(?P<domain>[0-9a-fA-F]{4}):)?(?P<bdf>[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])$')


def psid_vendor(psid):
    """The vendor a PSID belongs to (``LNV0000000033`` -> ``Lenovo``), ``None`` when unknown."""
    if not psid:
        return None
    for prefix, vendor in PSID_VENDORS:
        if psid.upper().startswith(prefix):
            return vendor
    return None


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


def validate_images(images):
    """Meaning checks of the PSID -> image map; returns a list of messages.

    ``images`` maps a PSID to ``{"image": path, "version": "xx.yy.zzzz"}``
    (``version`` optional: the image's own version is read with ``flint -i``).
    """
    errors = []
    for psid, entry in sorted((images or {}).items()):
        where = 'images[%s]' % psid
        if not _PSID_RE.match(str(psid)):
            errors.append('%s: %r is not a PSID (such as MT_0000000436 or LNV0000000033)' % (where, psid))
        if not isinstance(entry, dict):
            errors.append('%s: must be a dict with image (path of the .bin) and optionally version' % where)
            continue
        if not entry.get('image'):
            errors.append('%s.image: the path of the firmware image (.bin) on the host is required' % where)
        version = entry.get('version')
        if version is not None and version_key(version) is None:
            errors.append('%s.version: %r is not a firmware version such as 26.47.1026' % (where, version))
    return errors


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
        psid = mlxfw.get('psid')
        burned = mlxfw.get('fw_current')
        running = mlxfw.get('fw_running') or burned
        sources.append('mlxfwmanager')
    if flint and (flint.get('fw_version') or flint.get('psid')):
        psid = psid or flint.get('psid')
        if burned is None:
            burned = flint.get('fw_version')
            running = flint.get('fw_version_running') or burned
        sources.append('flint')
    if ethtool and (ethtool.get('firmware_version') or ethtool.get('psid')):
        psid = psid or ethtool.get('psid')
        if running is None:
            running = ethtool.get('firmware_version')
        sources.append('ethtool')
    if board_id and board_id.strip():
        if psid is None:
            psid = board_id.strip()
        sources.append('sysfs')
    return {'pci': normalize_pci(pci) or pci, 'psid': psid, 'burned': burned, 'running': running, 'sources': sources}


def plan_device(device, images, image_facts, reset_ok):
    """Plan one card. Returns the device dict with ``wanted``, ``image``,
    ``action`` and ``refusal`` added.

    ``image_facts`` maps an image path to its ``parse_flint_query`` result
    (``flint -i IMAGE q``): the image's PSID and version; ``None`` for an
    image not on the host yet (check mode before the copy). Actions:
    ``none`` (nothing to do), ``no-image`` (no image for this PSID),
    ``burn`` (flash differs from the wanted version), ``reset`` (flash is
    right, the running firmware is not; ``mlxfwreset``), ``reboot`` (the
    same, but resets are not allowed: a reboot is required), ``burn+reset``
    or ``burn+reboot``; ``unknown`` when the image is absent and has no
    version in ``images``. ``refusal`` is a message when the card must not be
    touched (PSID mismatch, unknown PSID or version).
    """
    plan = dict(device)
    plan.update({'wanted': None, 'image': None, 'image_psid': None, 'action': 'none', 'refusal': None, 'note': None})
    psid = device.get('psid')
    if not psid:
        plan['action'] = 'no-image'
        plan['note'] = 'no tool reported the PSID (mlxfwmanager, flint, ethtool -i, sysfs board_id)'
        return plan
    entry = (images or {}).get(psid)
    if entry is None:
        plan['action'] = 'no-image'
        plan['note'] = 'images has no entry for PSID %s (%s)' % (psid, psid_vendor(psid) or 'unknown vendor')
        return plan
    image = entry.get('image')
    facts = (image_facts or {}).get(image)
    absent = facts is None
    if absent:
        # Check mode before the image is copied: its PSID is read before any burn.
        plan['note'] = 'image %s is not on the host yet; its PSID is checked before burning' % image
        facts = {}
    plan['image'] = image
    plan['image_psid'] = facts.get('psid')
    plan['wanted'] = entry.get('version') or facts.get('fw_version')
    if facts.get('psid') and facts['psid'] != psid:
        plan['action'] = 'refuse'
        plan['refusal'] = ('%s: the image %s is for PSID %s (%s) but the card is %s (%s); fix images[%s] to point at the '
                           'image of the card\'s own vendor line' % (
                               device['pci'], image, facts['psid'], psid_vendor(facts['psid']) or 'unknown vendor',
                               psid, psid_vendor(psid) or 'unknown vendor', psid))
        return plan
    if plan['wanted'] is None and absent:
        plan['action'] = 'unknown'
        return plan
    if plan['wanted'] is None or version_key(plan['wanted']) is None:
        plan['action'] = 'refuse'
        plan['refusal'] = '%s: no firmware version for image %s (set images[%s].version or give a readable image)' % (
            device['pci'], image, psid)
        return plan
    if device.get('burned') is None:
        plan['action'] = 'refuse'
        plan['refusal'] = '%s: no tool reported the burned firmware version; refusing to burn blind' % device['pci']
        return plan
    burn = device['burned'] != plan['wanted']
    running = device.get('running') or device['burned']
    activate = burn or running != plan['wanted']
    steps = []
    if burn:
        steps.append('burn')
    if activate:
        steps.append('reset' if reset_ok else 'reboot')
    plan['action'] = '+'.join(steps) if steps else 'none'
    return plan


def plan_summary(plan):
    """One line per device for check mode and logs."""
    return '%s PSID %s (%s): burned %s, running %s, wanted %s -> %s' % (
        plan['pci'], plan.get('psid'), psid_vendor(plan.get('psid')) or 'unknown vendor',
        plan.get('burned'), plan.get('running'), plan.get('wanted'), plan.get('action'))
