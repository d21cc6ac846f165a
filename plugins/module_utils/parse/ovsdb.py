# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure helpers for the JSON that ``ovs-vsctl``, ``ovn-nbctl`` and
``ovn-sbctl`` print with ``--format=json`` (RFC 7047 datum notation).

Nothing here runs a command: modules run the tool and pass the text in.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


def decode_datum(value):
    """Turn an OVSDB JSON datum into plain Python.

    ``["set", [a, b]]`` becomes a list, ``["map", [[k, v], ...]]`` a dict,
    ``["uuid", u]`` and ``["named-uuid", u]`` the string ``u``; an empty set
    becomes ``[]``. Atoms are returned as they are.
    """
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        kind, payload = value
        if kind == "set":
            return [decode_datum(item) for item in payload]
        if kind == "map":
            return dict((decode_datum(k), decode_datum(v)) for k, v in payload)
        if kind in ("uuid", "named-uuid"):
            return payload
    return value


def as_list(value):
    """An OVSDB column that may hold zero, one or many atoms, as a list."""
    if isinstance(value, list):
        return value
    return [value]


def parse_table(text):
    """Parse ``<tool> --format=json list|find|--columns=... TABLE`` output.

    Returns a list of dicts, one per row, keyed by column heading, with every
    datum decoded by :func:`decode_datum`. Empty text gives ``[]``.
    """
    text = (text or "").strip()
    if not text:
        return []
    doc = json.loads(text)
    headings = doc.get("headings", [])
    rows = []
    for row in doc.get("data", []):
        rows.append(dict((h, decode_datum(v)) for h, v in zip(headings, row)))
    return rows


def quote_value(value):
    """Quote a string for an ``ovs-vsctl``/``ovn-nbctl`` ``set`` argument.

    OVSDB's command-line syntax treats ``:``, ``,``, ``=``, ``{``, ``}`` and
    blanks as punctuation; a value holding any of them must be written as a
    double-quoted JSON string, or map values such as ``tcp:10.10.0.4:6642``
    are split (the gap the ``openvswitch.openvswitch`` modules left).
    """
    value = str(value)
    if value and all(c.isalnum() or c in "-_./" for c in value):
        return value
    return json.dumps(value)


def _scalar(value):
    """An optional OVSDB column (an empty set when unset) as a value or None."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


def switch_model(bridges_json, ports_json, interfaces_json, open_vswitch_json=None):
    """``ovs-vsctl --format=json list Bridge|Port|Interface [Open_vSwitch]`` -> one model.

    Returns::

        {"open_vswitch": {"other_config": {}, "external_ids": {}},
         "bridges": {name: {"datapath_type", "fail_mode", "external_ids", "other_config", "ports": set}},
         "ports": {name: {"bridge", "tag", "trunks", "vlan_mode", "interfaces", "external_ids", "other_config"}},
         "interfaces": {name: {"type", "external_ids", "options", "other_config"}}}

    Unset optional columns become None (``tag``, ``vlan_mode``) or empty.
    """
    model = {"open_vswitch": {"other_config": {}, "external_ids": {}}, "bridges": {}, "ports": {}, "interfaces": {}}
    for row in parse_table(open_vswitch_json)[:1]:
        model["open_vswitch"] = {"other_config": row.get("other_config") or {}, "external_ids": row.get("external_ids") or {}}
    ifaces_by_uuid = {}
    for row in parse_table(interfaces_json):
        ifaces_by_uuid[row["_uuid"]] = row["name"]
        model["interfaces"][row["name"]] = {
            "type": row.get("type") or "",
            "external_ids": row.get("external_ids") or {},
            "options": row.get("options") or {},
            "other_config": row.get("other_config") or {},
        }
    ports_by_uuid = {}
    for row in parse_table(ports_json):
        tag = _scalar(row.get("tag"))
        ports_by_uuid[row["_uuid"]] = row["name"]
        model["ports"][row["name"]] = {
            "bridge": None,
            "tag": tag if isinstance(tag, int) else None,
            "trunks": sorted(as_list(row.get("trunks") or [])),
            "vlan_mode": _scalar(row.get("vlan_mode")),
            "interfaces": [ifaces_by_uuid.get(u, u) for u in as_list(row.get("interfaces") or [])],
            "external_ids": row.get("external_ids") or {},
            "other_config": row.get("other_config") or {},
        }
    for row in parse_table(bridges_json):
        ports = set(ports_by_uuid.get(u, u) for u in as_list(row.get("ports") or []))
        model["bridges"][row["name"]] = {
            "datapath_type": row.get("datapath_type") or "",
            "fail_mode": _scalar(row.get("fail_mode")) or "",
            "external_ids": row.get("external_ids") or {},
            "other_config": row.get("other_config") or {},
            "ports": ports,
        }
        for port in ports:
            if port in model["ports"]:
                model["ports"][port]["bridge"] = row["name"]
    return model
