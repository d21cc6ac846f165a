# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure parsers for host facts and name helpers.

Every function takes the text a tool printed (or plain values) and returns
plain Python. Nothing here runs a command or touches the host, so the same
code serves modules, filters and unit tests.

Parsers are lenient: unknown keys are kept or ignored, missing optional fields
become ``None``, and lines they do not understand are skipped.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
import xml.etree.ElementTree as ET


NOT_AVAILABLE = ('N/A', 'NA', 'NOT AVAIL', '')


def _lines(text):
    """Split text (or a list of lines) into lines; ``None`` gives no lines."""
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        text = '\n'.join(text)
    return text.splitlines()


def _na(value):
    """Strip a value; ``N/A`` and empty become ``None``."""
    if value is None:
        return None
    value = value.strip()
    if value.upper() in NOT_AVAILABLE:
        return None
    return value


def _to_int(value):
    """An int from an int or a decimal string, else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if value is None:
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _norm_key(key):
    """``FW Version(Running)`` -> ``fw_version_running``."""
    return re.sub(r'[^a-z0-9]+', '_', key.strip().lower()).strip('_')


def _pairs(tokens):
    """``['mode', 'switchdev', 'inline-mode', 'none']`` -> dict.

    A trailing key without a value maps to ``None``.
    """
    result = {}
    for i in range(0, len(tokens), 2):
        result[tokens[i]] = tokens[i + 1] if i + 1 < len(tokens) else None
    return result


# ---------------------------------------------------------------- ethtool -i

_FW_PSID_RE = re.compile(r'^(?P<version>.*?)\s*\((?P<psid>[^()]+)\)\s*$')


def parse_ethtool_info(text):
    """Parse ``ethtool -i IFACE``.

    Returns ``{driver, version, firmware_version, psid, bus_info}``. ``psid``
    comes from the ``(PSID)`` suffix of ``firmware-version`` (mlx5 prints
    ``22.29.1016 (MT_0000000430)``; OEM cards ``LNV...``, ``DEL...``) and is
    ``None`` when there is no suffix.
    """
    raw = {}
    for line in _lines(text):
        if ':' not in line:
            continue
        key, value = line.split(':', 1)
        raw[key.strip().lower()] = value.strip()
    firmware = _na(raw.get('firmware-version'))
    psid = None
    if firmware:
        match = _FW_PSID_RE.match(firmware)
        if match:
            firmware = _na(match.group('version'))
            psid = _na(match.group('psid'))
    return {
        'driver': _na(raw.get('driver')),
        'version': _na(raw.get('version')),
        'firmware_version': firmware,
        'psid': psid,
        'bus_info': _na(raw.get('bus-info')),
    }


# ------------------------------------------------------------------ flint q

_FLINT_LINE_RE = re.compile(r'^(?P<key>[A-Za-z][^:]*?):\s*(?P<value>.*)$')
_FLINT_MISMATCH_RE = re.compile(r'PSID on flash \((?P<flash>[^)]*)\) differs from the PSID in the given image \((?P<image>[^)]*)\)')


def parse_flint_query(text):
    """Parse ``flint -d DEV q`` (``mstflint`` prints the same layout).

    Returns a dict with every ``Key: value`` line under a normalized key
    (``FW Version`` -> ``fw_version``, ``FW Version(Running)`` ->
    ``fw_version_running``). ``fw_version``, ``psid`` and ``product_version``
    are always present (``None`` when absent). Continuation lines (as under
    ``Rom Info``) make that key a list. ``Base GUID``/``Base MAC`` rows of the
    ``UID GuidsNumber`` table give ``base_guid`` and ``base_guid_count`` (and
    ``base_mac``/``base_mac_count``). ``-E-`` error lines go to ``errors``.
    """
    result = {'fw_version': None, 'psid': None, 'product_version': None, 'errors': []}
    last = None
    for line in _lines(text):
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith('-E-'):
            result['errors'].append(stripped[3:].strip())
            continue
        if line[0].isspace():
            if last is not None and stripped:
                current = result.get(last)
                if not isinstance(current, list):
                    current = [] if current is None else [current]
                current.append(stripped)
                result[last] = current
            continue
        match = _FLINT_LINE_RE.match(line)
        if not match:
            last = None
            continue
        last = _norm_key(match.group('key'))
        value = _na(match.group('value'))
        words = value.split() if value else []
        if last in ('base_guid', 'base_mac') and len(words) == 2 and words[1].isdigit():
            value = words[0]
            result[last + '_count'] = int(words[1])
        result[last] = value
    return result


def parse_flint_psid_mismatch(text):
    """Find flint's ``PSID mismatch`` error (burning an image for another PSID).

    Returns ``{"flash_psid", "image_psid"}`` or ``None`` when the text has no
    such error. A Lenovo card shows ``LNV...`` on flash and an NVIDIA image
    ``MT_...``.
    """
    for line in _lines(text):
        match = _FLINT_MISMATCH_RE.search(line)
        if match:
            return {'flash_psid': _na(match.group('flash')), 'image_psid': _na(match.group('image'))}
    return None


# ------------------------------------------------------------ mlxfwmanager

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
    for line in _lines(text):
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
            key = _norm_key(match.group('key'))
            if key == 'versions':
                in_versions = device is not None
                continue
            if key in _MLXFW_KEYS:
                if device is None or (key == 'device_type' and device['device_type'] is not None):
                    if device is not None:
                        devices.append(_mlxfw_finish(device))
                    device = _mlxfw_device()
                device[_MLXFW_KEYS[key]] = _na(match.group('value'))
                in_versions = False
            continue
        if in_versions:
            row = _MLXFW_ROW_RE.match(line)
            if row:
                device['versions'][row.group('name')] = {
                    'current': _na(row.group('current')),
                    'available': _na(row.group('available')),
                }
    if device is not None:
        devices.append(_mlxfw_finish(device))
    return devices


def parse_mlxfwmanager_xml(text):
    """Parse ``mlxfwmanager --query --query-format XML``.

    The root is ``<Devices>``; each ``<Device pciName type psid partNumber>``
    holds ``<Versions>`` with one element per image (``<FW current=..
    available=../>``, ``<PXE .../>``, ...) and a ``<Status>``. Returns the same
    list as :func:`parse_mlxfwmanager`. Unparsable text gives ``[]``.
    """
    text = '\n'.join(_lines(text))
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
        device['pci'] = _na(node.get('pciName'))
        device['device_type'] = _na(node.get('type'))
        device['psid'] = _na(node.get('psid'))
        device['part_number'] = _na(node.get('partNumber'))
        device['description'] = _na(node.get('description') or node.findtext('Description'))
        device['status'] = _na(node.findtext('Status'))
        versions = node.find('Versions')
        for image in (versions if versions is not None else []):
            name = image.tag
            if re.sub(r'[^a-z]', '', name.lower()) == 'fwrunning':
                name = 'FW (Running)'
            device['versions'][name] = {
                'current': _na(image.get('current')),
                'available': _na(image.get('available')),
            }
        devices.append(_mlxfw_finish(device))
    return devices


# ------------------------------------------------------------------ devlink

_DEVLINK_HEAD_RE = re.compile(r'^(?:\[[^\]]*\]\s*)?(?P<handle>[A-Za-z0-9_.-]+/\S+?):(?:\s+(?P<rest>.*))?$')
_PORT_INT_KEYS = ('port', 'controller', 'pfnum', 'vfnum', 'sfnum', 'lanes', 'split_group')
_PORT_BOOL_KEYS = ('splittable', 'external')


def parse_devlink_eswitch(text):
    """Parse ``devlink dev eswitch show`` (any iproute2 era) and ``devlink mon``.

    Returns ``{handle: {"mode": .., other printed keys}}``, for example
    ``{"pci/0000:08:00.0": {"mode": "switchdev", "inline-mode": "none",
    "encap-mode": "basic"}}``. Old iproute2 prints only ``mode X`` (or
    ``encap enable``); keys are kept as printed. Handles may be ``pci/..``,
    ``auxiliary/..``, ``netdevsim/..``; a ``[eswitch,get]`` style prefix is
    ignored. ``mode`` is ``None`` when the line has none.
    """
    result = {}
    handle = None
    for line in _lines(text):
        if not line.strip():
            continue
        match = _DEVLINK_HEAD_RE.match(line.strip())
        if match and not line[0].isspace():
            handle = match.group('handle')
            attrs = result.setdefault(handle, {'mode': None})
            attrs.update(_pairs((match.group('rest') or '').split()))
        elif handle is not None and line[0].isspace():
            result[handle].update(_pairs(line.split()))
    return result


def _port_entry(handle, attrs):
    """Normalize one port's attributes (text or JSON) into the port dict."""
    entry = {'handle': handle, 'netdev': None, 'flavour': None, 'pfnum': None, 'vfnum': None, 'hw_addr': None}
    for key, value in attrs.items():
        if key == 'function' and isinstance(value, dict):
            entry['function'] = dict(value)
            continue
        if key in _PORT_INT_KEYS:
            value = _to_int(value)
        elif key in _PORT_BOOL_KEYS and not isinstance(value, bool) and value is not None:
            value = {'true': True, 'false': False}.get(str(value).lower(), value)
        entry[key] = value
    function = entry.get('function') or {}
    if entry['hw_addr'] is None:
        entry['hw_addr'] = function.get('hw_addr')
    return entry


def parse_devlink_ports(text):
    """Parse ``devlink port show``.

    Returns a list of dicts with ``handle``, ``netdev``, ``flavour``,
    ``pfnum``, ``vfnum`` and ``hw_addr`` (``None`` when absent; numbers are
    ints), every other printed key (``type``, ``port``, ``controller``,
    ``splittable``, ...), and ``function`` (a dict) when the port has a
    ``function:`` block; ``hw_addr`` is taken from that block.
    """
    ports = []
    raw = None
    section = None
    for line in _lines(text):
        if not line.strip():
            continue
        if not line[0].isspace():
            match = _DEVLINK_HEAD_RE.match(line.strip())
            if not match:
                raw = None
                continue
            raw = [match.group('handle'), _pairs((match.group('rest') or '').split())]
            ports.append(raw)
            section = None
            continue
        if raw is None:
            continue
        stripped = line.strip()
        if stripped.endswith(':') and len(stripped.split()) == 1:
            section = stripped[:-1]
            raw[1][section] = {}
        elif section is not None:
            raw[1][section].update(_pairs(stripped.split()))
        else:
            raw[1].update(_pairs(stripped.split()))
    return [_port_entry(handle, attrs) for handle, attrs in ports]


def _load_json(text):
    if isinstance(text, dict):
        return text
    text = '\n'.join(_lines(text)).strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def parse_devlink_eswitch_json(text):
    """Parse ``devlink -j dev eswitch show``: ``{"dev": {handle: {"mode": ..}}}``.

    Returns the same shape as :func:`parse_devlink_eswitch`.
    """
    result = {}
    devs = _load_json(text).get('dev') or {}
    if not isinstance(devs, dict):
        return result
    for handle, attrs in devs.items():
        entry = {'mode': None}
        if isinstance(attrs, dict):
            entry.update(attrs)
        result[handle] = entry
    return result


def parse_devlink_ports_json(text):
    """Parse ``devlink -j port show``: ``{"port": {handle: {"type", "netdev", "flavour", ..., "function": {"hw_addr"}}}}``.

    Returns the same list as :func:`parse_devlink_ports`.
    """
    ports = _load_json(text).get('port') or {}
    if not isinstance(ports, dict):
        return []
    return [_port_entry(handle, attrs if isinstance(attrs, dict) else {}) for handle, attrs in ports.items()]


# ------------------------------------------------------------------- grubby

_GRUBBY_FIELDS = ('kernel', 'root', 'initrd', 'title', 'id')


def _grubby_finish(entry):
    if entry is None or not entry.get('kernel') or entry.pop('_non_linux', False):
        return None
    return entry


def parse_grubby_info(text):
    """Parse ``grubby --info=ALL`` (or ``--info=KERNEL``).

    Returns boot entries ``{"index": int, "kernel", "args": [str], "root",
    "initrd", "title", "id"}`` in order. Quotes are removed; words such as
    ``$tuned_params`` are kept verbatim. Entries that are not Linux (``non
    linux entry``, no ``kernel``) are skipped.
    """
    entries = []
    entry = None
    for line in _lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if '=' not in stripped:
            if entry is not None and 'non linux entry' in stripped.lower():
                entry['_non_linux'] = True
            continue
        key, value = stripped.split('=', 1)
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        if key == 'index':
            done = _grubby_finish(entry)
            if done:
                entries.append(done)
            entry = dict((name, None) for name in _GRUBBY_FIELDS)
            entry.update({'index': _to_int(value), 'args': []})
            continue
        if entry is None:
            continue
        if key == 'args':
            entry['args'] = value.split()
        elif key in _GRUBBY_FIELDS:
            entry[key] = value or None
        else:
            entry[key] = value
    done = _grubby_finish(entry)
    if done:
        entries.append(done)
    return entries


# -------------------------------------------------------------- pmd-rxq-show

_PMD_HEAD_RE = re.compile(r'^\s*pmd thread numa_id\s+(?P<numa>-?\d+)\s+core_id\s+(?P<core>\d+)\s*:')
_PMD_RXQ_RE = re.compile(
    r'^\s*port:\s*(?P<port>\S+)\s+queue-id:\s*(?P<queue>\d+)'
    r'(?:\s*\((?P<state>[^)]*)\))?'
    r'(?:\s+pmd usage:\s*(?P<usage>NOT AVAIL|\d+))?'
)


def parse_pmd_rxq_show(text):
    """Parse ``ovs-appctl dpif-netdev/pmd-rxq-show`` (or ``dpif-doca/pmd-rxq-show``).

    Returns one dict per rx queue: ``{"numa": int, "core": int, "port",
    "queue": int, "usage": int or None, "enabled": bool or None,
    "isolated": bool or None}``. ``usage`` is the percentage, ``None`` for
    ``NOT AVAIL``. PMD threads without queues give no entries.
    """
    result = []
    numa = core = isolated = None
    for line in _lines(text):
        head = _PMD_HEAD_RE.match(line)
        if head:
            numa, core, isolated = int(head.group('numa')), int(head.group('core')), None
            continue
        stripped = line.strip()
        if stripped.startswith('isolated'):
            value = stripped.split(':', 1)[-1].strip().lower()
            isolated = {'true': True, 'false': False}.get(value)
            continue
        rxq = _PMD_RXQ_RE.match(line)
        if not rxq:
            continue
        state = rxq.group('state')
        result.append({
            'numa': numa,
            'core': core,
            'port': rxq.group('port'),
            'queue': int(rxq.group('queue')),
            'usage': _to_int(rxq.group('usage')),
            'enabled': None if state is None else state.strip().lower() == 'enabled',
            'isolated': isolated,
        })
    return result


# --------------------------------------------------------------- dump-flows

_FLOW_RE = re.compile(
    r'^(?P<match>.*?),?\s*packets:(?P<packets>\d+),\s*bytes:(?P<bytes>\d+)'
    r'(?P<rest>.*?)(?:,\s*|\s+)actions:(?P<actions>.*)$'
)


def parse_dump_flows(text):
    """Parse ``ovs-appctl dpctl/dump-flows [-m] [type=...]``.

    Returns one dict per flow: ``{"match", "packets": int, "bytes": int,
    "used", "offloaded": "yes"/"partial"/None, "dp": str or None, "actions",
    "ufid"}``. ``dp`` is the datapath that holds the flow (``tc``, ``doca``,
    ``dummy``, ...); ``-m`` prints it. Lines that are not flows (``flow-dump
    from ...``) are skipped.
    """
    flows = []
    for line in _lines(text):
        match = _FLOW_RE.match(line.strip())
        if not match:
            continue
        fields = {}
        for part in match.group('rest').split(','):
            if ':' in part:
                key, value = part.split(':', 1)
                fields[key.strip()] = value.strip()
        flow_match = match.group('match').strip().rstrip(',')
        ufid = None
        if flow_match.startswith('ufid:'):
            ufid, _sep, flow_match = flow_match.partition(',')
            ufid = ufid[len('ufid:'):].strip()
            flow_match = flow_match.strip()
        flows.append({
            'match': flow_match,
            'packets': int(match.group('packets')),
            'bytes': int(match.group('bytes')),
            'used': fields.get('used'),
            'offloaded': fields.get('offloaded') or None,
            'dp': fields.get('dp') or None,
            'actions': match.group('actions').strip(),
            'ufid': ufid,
        })
    return flows


# ------------------------------------------------------------- name helpers

def doca_kernel_names(kver):
    """Names ``doca-kernel-support`` gives a kernel release (``uname -r``).

    ``pack`` replaces every character outside ``[A-Za-z0-9.]`` with ``.``
    (what the fixed ``KVERS_PACK`` line produces, so ``^``, ``+``, ``~`` are
    handled as well as ``_`` and ``-``); ``repo_id`` is ``doca-kernel-`` plus
    the release with only characters outside ``[A-Za-z0-9._-]`` replaced;
    ``package`` is ``doca-kernel-`` plus ``pack``.
    """
    if kver is None or not str(kver).strip():
        raise ValueError('empty kernel release')
    kver = str(kver).strip()
    pack = re.sub(r'[^A-Za-z0-9.]', '.', kver)
    return {
        'pack': pack,
        'repo_id': 'doca-kernel-' + re.sub(r'[^A-Za-z0-9._-]', '.', kver),
        'package': 'doca-kernel-' + pack,
    }
