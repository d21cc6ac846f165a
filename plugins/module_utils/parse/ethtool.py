# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of ``ethtool`` outputs: ``ethtool -i`` (driver and firmware) and
``ethtool -k`` (offload features), and the names ``ethtool -K`` takes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, na

# ethtool -K feature name -> the line ethtool -k prints for it.
OFFLOAD_FEATURES = {
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "sg": "scatter-gather",
}

_FW_PSID_RE = re.compile(r'^(?P<version>.*?)\s*\((?P<psid>[^()]+)\)\s*$')


def parse_ethtool_info(text):
    """Parse ``ethtool -i IFACE``.

    Returns ``{driver, version, firmware_version, psid, bus_info}``. ``psid``
    comes from the ``(PSID)`` suffix of ``firmware-version`` (mlx5 prints
    ``22.29.1016 (MT_0000000430)``; OEM cards ``LNV...``, ``DEL...``) and is
    ``None`` when there is no suffix.
    """
    raw = {}
    for line in lines(text):
        if ':' not in line:
            continue
        key, value = line.split(':', 1)
        raw[key.strip().lower()] = value.strip()
    firmware = na(raw.get('firmware-version'))
    psid = None
    if firmware:
        match = _FW_PSID_RE.match(firmware)
        if match:
            firmware = na(match.group('version'))
            psid = na(match.group('psid'))
    return {
        'driver': na(raw.get('driver')),
        'version': na(raw.get('version')),
        'firmware_version': firmware,
        'psid': psid,
        'bus_info': na(raw.get('bus-info')),
    }


def parse_ethtool_features(text):
    """``ethtool -k DEV`` -> {feature line name: bool on}.

    Features printed ``[fixed]`` count as their value; lines that are not
    ``name: on`` or ``name: off`` are skipped.
    """
    feats = {}
    for line in lines(text):
        if ":" not in line or line.startswith("Features for"):
            continue
        key, _sep, rest = line.partition(":")
        value = rest.strip().split(" ")[0]
        if value in ("on", "off"):
            feats[key.strip()] = value == "on"
    return feats


_FEATURE_RE = re.compile(r'^(?P<name>[^:\s][^:]*):\s+(?P<value>on|off)(?:\s+\[(?P<note>[^\]]*)\])?\s*$')


def parse_ethtool_features_detail(text):
    """``ethtool -k DEV`` (or the ``Actual changes:`` lines of ``ethtool -K``) -> {name: detail}.

    Each detail is ``{"on": bool, "fixed": bool, "requested": bool or None}``:
    ``fixed`` for a line printed ``[fixed]`` (the driver does not let it
    change), ``requested`` the value of an ``[requested on]`` /
    ``[requested off]`` suffix (what was asked and did not happen), ``None``
    without one. Lines that are no ``name: on|off`` are skipped, as
    :func:`parse_ethtool_features` does.
    """
    feats = {}
    for line in lines(text):
        match = _FEATURE_RE.match(line.strip())
        if not match or line.startswith("Features for"):
            continue
        note = (match.group('note') or '').split()
        requested = None
        if len(note) == 2 and note[0] == 'requested' and note[1] in ('on', 'off'):
            requested = note[1] == 'on'
        feats[match.group('name').strip()] = {
            'on': match.group('value') == 'on',
            'fixed': note == ['fixed'],
            'requested': requested,
        }
    return feats
