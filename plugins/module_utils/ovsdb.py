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
