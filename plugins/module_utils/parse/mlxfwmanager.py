# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of ``mlxfwmanager`` outputs: ``mlxfwmanager --query`` as text and as XML.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import xml.etree.ElementTree as ET

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, na, norm_key


_MLXFW_KEYS = {
    'device_type': 'device_type',
    'part_number': 'part_number',
    'description': 'description',
    'psid': 'psid',
    'pci_device_name': 'pci',
    'base_guid': 'base_guid',
    'base_mac': 'base_mac',
    'status': 'status',
}
_MLXFW_KV_RE = re.compile(r'^\s*(?P<key>[A-Za-z][A-Za-z0-9 ()/._-]*?)\s*:\s*(?P<value>.*)$')
_MLXFW_ROW_RE = re.compile(r'^\s*(?P<name>\S.*?)\s+(?P<current>\S+)\s+(?P<available>\S+)\s*$')


def _mlxfw_device():
    device = dict((name, None) for name in _MLXFW_KEYS.values())
    device.update({'fw_current': None, 'fw_running': None, 'fw_available': None, 'versions': {}})
    return device


def _mlxfw_finish(device):
    fw = device['versions'].get('FW', {})
    running = device['versions'].get('FW (Running)', {})
    device['fw_current'] = fw.get('current')
    device['fw_available'] = fw.get('available')
    device['fw_running'] = running.get('current')
    return device


def parse_mlxfwmanager(text):
    """Parse ``mlxfwmanager --query`` / ``mlxfwmanager -d DEV`` text output.

    Returns a list of devices, each with ``device_type``, ``part_number``,
    ``description``, ``psid``, ``pci``, ``base_guid``, ``base_mac``,
    ``status``, ``versions`` (``{name: {current, available}}``) and
    ``fw_current``, ``fw_running``, ``fw_available``. ``fw_running`` is
    ``None`` when there is no ``FW (Running)`` line (the running firmware is
    the burned one). ``N/A`` becomes ``None``.
    """
    devices = []
    device = None
    in_versions = False
    for line in lines(text):
        stripped = line.strip()
        if not stripped or set(stripped) == set('-'):
            continue
        if re.match(r'^Device\s*#\d+\s*:?$', stripped):
            if device is not None:
                devices.append(_mlxfw_finish(device))
            device = _mlxfw_device()
            in_versions = False
            continue
        match = _MLXFW_KV_RE.match(line)
        if match:
            key = norm_key(match.group('key'))
            if key == 'versions':
                in_versions = device is not None
                continue
            if key in _MLXFW_KEYS:
                if device is None or (key == 'device_type' and device['device_type'] is not None):
                    if device is not None:
                        devices.append(_mlxfw_finish(device))
                    device = _mlxfw_device()
                device[_MLXFW_KEYS[key]] = na(match.group('value'))
                in_versions = False
            continue
        if in_versions:
            row = _MLXFW_ROW_RE.match(line)
            if row:
                device['versions'][row.group('name')] = {
                    'current': na(row.group('current')),
                    'available': na(row.group('available')),
                }
    if device is not None:
        devices.append(_mlxfw_finish(device))
    return devices


def parse_mlxfwmanager_xml(text):
    """Parse ``mlxfwmanager --query --query-format XML``.

    The root is ``<Devices>``; each ``<Device pciName type psid partNumber>``
    holds ``<Versions>`` with one element per image (``<FW current=..
    available=../>``, ``<PXE .../>``, ...), ``<MACs Base_Mac=../>``,
    ``<GUIDs Base_Guid=../>``, a ``<Status>`` and a ``<Description>``. Returns the
    same list as :func:`parse_mlxfwmanager`. Unparsable text gives ``[]``.
    """
    text = '\n'.join(lines(text))
    start = text.find('<')
    if start < 0:
        return []
    try:
        root = ET.fromstring(text[start:].strip())
    except ET.ParseError:
        return []
    nodes = [root] if root.tag == 'Device' else root.iter('Device')
    devices = []
    for node in nodes:
        device = _mlxfw_device()
        device['pci'] = na(node.get('pciName'))
        device['device_type'] = na(node.get('type'))
        device['psid'] = na(node.get('psid'))
        device['part_number'] = na(node.get('partNumber'))
        device['description'] = na(node.get('description') or node.findtext('Description'))
        device['status'] = na(node.findtext('Status'))
        for tag, attribute, key in (('MACs', 'Base_Mac', 'base_mac'), ('GUIDs', 'Base_Guid', 'base_guid')):
            element = node.find(tag)
            device[key] = na(element.get(attribute)) if element is not None else None
        versions = node.find('Versions')
        for image in (versions if versions is not None else []):
            name = image.tag
            if re.sub(r'[^a-z]', '', name.lower()) == 'fwrunning':
                name = 'FW (Running)'
            device['versions'][name] = {
                'current': na(image.get('current')),
                'available': na(image.get('available')),
            }
        devices.append(_mlxfw_finish(device))
    return devices
