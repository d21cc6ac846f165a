# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of ``devlink`` outputs: ``devlink dev eswitch show`` and
``devlink port show``, as text and as JSON (``devlink -j``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, pairs, to_int


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
    for line in lines(text):
        if not line.strip():
            continue
        match = _DEVLINK_HEAD_RE.match(line.strip())
        if match and not line[0].isspace():
            handle = match.group('handle')
            attrs = result.setdefault(handle, {'mode': None})
            attrs.update(pairs((match.group('rest') or '').split()))
        elif handle is not None and line[0].isspace():
            result[handle].update(pairs(line.split()))
    return result


def _port_entry(handle, attrs):
    """Normalize one port's attributes (text or JSON) into the port dict."""
    entry = {'handle': handle, 'netdev': None, 'flavour': None, 'pfnum': None, 'vfnum': None, 'hw_addr': None}
    for key, value in attrs.items():
        if key == 'function' and isinstance(value, dict):
            entry['function'] = dict(value)
            continue
        if key in _PORT_INT_KEYS:
            value = to_int(value)
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
    for line in lines(text):
        if not line.strip():
            continue
        if not line[0].isspace():
            match = _DEVLINK_HEAD_RE.match(line.strip())
            if not match:
                raw = None
                continue
            raw = [match.group('handle'), pairs((match.group('rest') or '').split())]
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
            raw[1][section].update(pairs(stripped.split()))
        else:
            raw[1].update(pairs(stripped.split()))
    return [_port_entry(handle, attrs) for handle, attrs in ports]


def _load_json(text):
    if isinstance(text, dict):
        return text
    text = '\n'.join(lines(text)).strip()
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
