# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two ``ovn-nbctl`` calls of ``offload.testbed.ovn_topology`` and what
the first one returns.

* :func:`base_args`: the argv prefix (database, TLS files, timeout) both share;
* :func:`read_args`: the read, ONE ``ovn-nbctl --format=json`` call with one
  ``list`` per table of :data:`READ_COLUMNS`;
* :func:`parse_nb`: that output as the current model, rows keyed by UUID, with
  addresses normalised like the declaration's (``ovn_topology_addr``);
* :func:`write_args`: the write, every planned database command after ``--``,
  so that ``ovn-nbctl`` runs them as one transaction.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.module_utils.six.moves import shlex_quote

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_addr import (
    nat_key,
    normalize_backends,
    normalize_endpoint,
    normalize_ip,
    normalize_ip_or_prefix,
    normalize_network,
    route_key,
    text,
)
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import as_list, decode_datum

# Columns read from the Northbound database, table by table (one ``list`` each).
READ_COLUMNS = (
    ("Logical_Switch", ("_uuid", "name", "ports", "load_balancer")),
    ("Logical_Switch_Port", ("_uuid", "name", "type", "addresses", "options", "tag_request")),
    ("Logical_Router", ("_uuid", "name", "ports", "static_routes", "nat", "load_balancer")),
    ("Logical_Router_Port", ("_uuid", "name", "mac", "networks", "gateway_chassis")),
    ("Gateway_Chassis", ("_uuid", "name", "chassis_name", "priority")),
    ("Logical_Router_Static_Route", ("_uuid", "ip_prefix", "nexthop", "policy", "output_port", "route_table")),
    ("NAT", ("_uuid", "type", "external_ip", "logical_ip", "logical_port", "external_mac")),
    ("Load_Balancer", ("_uuid", "name", "vips", "protocol")),
)


def base_args(ovn_nbctl="ovn-nbctl", nb_db=None, private_key=None, certificate=None, ca_cert=None, timeout=None):
    """The ``ovn-nbctl`` argv prefix shared by the read and the write."""
    args = [ovn_nbctl]
    if nb_db:
        args.append("--db=%s" % nb_db)
    for flag, path in (("-p", private_key), ("-c", certificate), ("-C", ca_cert)):
        if path:
            args.extend([flag, path])
    if timeout:
        args.append("--timeout=%d" % int(timeout))
    return args


def read_args():
    """Arguments (after :func:`base_args`) of the single read."""
    args = ["--format=json"]
    for table, columns in READ_COLUMNS:
        args.extend(["--", "--columns=%s" % ",".join(columns), "list", table])
    return args


def write_args(commands):
    """Arguments (after :func:`base_args`) of the single write: every command,
    each after ``--``, so ``ovn-nbctl`` runs them in one transaction."""
    args = []
    for command in commands:
        args.append("--")
        args.extend(command)
    return args


def command_text(command):
    """One planned command as a string, as it would follow ``--`` on an
    ``ovn-nbctl`` command line."""
    return " ".join(shlex_quote(token) for token in command)


def _split_json_docs(output):
    decoder = json.JSONDecoder()
    docs = []
    output = output or ""
    pos = 0
    end = len(output)
    while True:
        while pos < end and output[pos].isspace():
            pos += 1
        if pos >= end:
            break
        doc, pos = decoder.raw_decode(output, pos)
        docs.append(doc)
    return docs


def _rows(doc):
    headings = doc.get("headings", [])
    return [dict((h, decode_datum(v)) for h, v in zip(headings, row)) for row in doc.get("data", [])]


def _opt(value):
    """An optional column (set of 0 or 1 atom) as the atom or None."""
    if isinstance(value, list):
        return value[0] if value else None
    return value


# How each table's row becomes a row of the current model (``uuid`` is added to each).
ROW_MODELS = (
    ("switches", "Logical_Switch", lambda r: {
        "name": r["name"], "ports": as_list(r["ports"]), "load_balancer": as_list(r["load_balancer"])}),
    ("switch_ports", "Logical_Switch_Port", lambda r: {
        "name": r["name"], "type": r["type"], "addresses": sorted(set(as_list(r["addresses"]))),
        "options": dict(r["options"]) if isinstance(r["options"], dict) else {}, "tag": _opt(r["tag_request"])}),
    ("routers", "Logical_Router", lambda r: {
        "name": r["name"], "ports": as_list(r["ports"]), "static_routes": as_list(r["static_routes"]),
        "nat": as_list(r["nat"]), "load_balancer": as_list(r["load_balancer"])}),
    ("router_ports", "Logical_Router_Port", lambda r: {
        "name": r["name"], "mac": text(r["mac"]).lower(),
        "networks": sorted(set(normalize_network(n) for n in as_list(r["networks"]))),
        "gateway_chassis": as_list(r["gateway_chassis"])}),
    ("gateway_chassis", "Gateway_Chassis", lambda r: {
        "name": r["name"], "chassis": r["chassis_name"], "priority": r["priority"]}),
    ("static_routes", "Logical_Router_Static_Route", lambda r: {
        "route_table": r["route_table"],
        "key": route_key(normalize_ip_or_prefix(r["ip_prefix"]), normalize_ip(r["nexthop"]), _opt(r["policy"]), _opt(r["output_port"]))}),
    ("nat", "NAT", lambda r: {
        "key": nat_key(r["type"], r["external_ip"], r["logical_ip"]), "logical_port": _opt(r["logical_port"]),
        "external_mac": (_opt(r["external_mac"]) or "").lower() or None}),
    ("load_balancers", "Load_Balancer", lambda r: {
        "name": r["name"], "protocol": _opt(r["protocol"]) or "tcp",
        "vips": dict((normalize_endpoint(k), normalize_backends(v)) for k, v in (r["vips"] or {}).items())}),
)


def parse_nb(output):
    """Parse the output of the read into the current model::

        {"switches": {uuid: {...}}, "switch_ports": {uuid: {...}}, ...}

    each row a dict of decoded, normalised columns plus ``uuid``.
    """
    docs = _split_json_docs(output)
    if len(docs) != len(READ_COLUMNS):
        raise ValueError("expected %d JSON tables from ovn-nbctl, got %d" % (len(READ_COLUMNS), len(docs)))
    raw = dict((table, _rows(doc)) for (table, _columns), doc in zip(READ_COLUMNS, docs))
    state = {}
    for kind, table, model in ROW_MODELS:
        state[kind] = dict((r["_uuid"], dict(model(r), uuid=r["_uuid"])) for r in raw[table])
    return state
