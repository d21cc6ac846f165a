# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The run of ``offload.testbed.ovn_topology``, shared by the module and the
action plugin; they import :func:`argument_spec`, :func:`apply_topology`,
:class:`ApplyError` and :func:`invocation_value` from here.

Nothing here runs a command itself: the caller gives ``run``. The run

1. checks the declaration with ``ovn_schema.validate`` (no database
   access; every error is collected, each naming the object and the field);
2. runs the read of ``ovn_nb.read_args()`` once (one ``ovn-nbctl
   --format=json`` call with one ``list`` per table) and gives its output to
   ``ovn_nb.parse_nb``;
3. calls ``ovn_plan.plan``, which compares the declaration with the
   database in Python and returns the ``ovn-nbctl`` database commands of ONE
   transaction, the summary and the diff;
4. runs the write of ``ovn_nb.write_args(commands)`` once, unless in check mode.

Tests and tools import the names of those modules from the modules themselves.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_nb import base_args, command_text, parse_nb, read_args, write_args
from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_plan import plan
from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_schema import TOPOLOGY_KEYS, TopologyError, load_topology_text, validate


def argument_spec():
    """The top-level options. The three lists are checked element by element by
    :func:`validate`, against the suboptions the module documents, so that each
    error names its object (``routers[lr0].nat[3].logical_ip``) and so that
    thousands of NAT rules or VIPs are checked in a few milliseconds."""
    return dict(
        nb_db=dict(type="str"),
        private_key=dict(type="path"),
        certificate=dict(type="path"),
        ca_cert=dict(type="path"),
        timeout=dict(type="int", default=30),
        ovn_nbctl=dict(type="str", default="ovn-nbctl"),
        purge=dict(type="bool", default=False),
        topology=dict(type="str"),
        switches=dict(type="list", elements="dict", default=[]),
        routers=dict(type="list", elements="dict", default=[]),
        load_balancers=dict(type="list", elements="dict", default=[]),
    )


class ApplyError(Exception):
    """A failed run: ``msg`` and the fields of the failure (``errors``, ``rc``, ``stdout``...)."""

    def __init__(self, msg, **fields):
        Exception.__init__(self, msg)
        self.msg = msg
        self.fields = fields


def invocation_value(key, value):
    """What "invocation" shows of an option: the declaration only by its size."""
    if value is None:
        return value
    if key in TOPOLOGY_KEYS:
        return "(%d declared)" % len(value)
    if key == "topology":
        return "(%d characters of JSON)" % len(value)
    return value


def desired_model(params):
    """The declaration (the lists, or the ``topology`` JSON text) checked and
    normalised; raises :class:`ApplyError` with every error."""
    if params.get("topology") is not None:
        declared = [key for key in TOPOLOGY_KEYS if params.get(key)]
        if declared:
            raise ApplyError("topology is mutually exclusive with %s: give the declaration one way" % ", ".join(declared))
        try:
            params = dict(params, **load_topology_text(params["topology"]))
        except TopologyError as exc:
            raise ApplyError("invalid OVN topology: %s" % "; ".join(exc.errors), errors=exc.errors)
    try:
        return validate(params)
    except TopologyError as exc:
        raise ApplyError("invalid OVN topology: %d error(s): %s" % (len(exc.errors), "; ".join(exc.errors)), errors=exc.errors)


def read_state(run, base):
    """The one read, parsed; raises :class:`ApplyError` when it fails."""
    rc, out, err = run(base + read_args())
    if rc != 0:
        raise ApplyError("reading the Northbound database failed: %s" % (err or out).strip(), rc=rc, stdout=out, stderr=err)
    try:
        return parse_nb(out)
    except ValueError as exc:
        raise ApplyError("cannot parse the output of ovn-nbctl: %s" % exc, stdout=out)


def apply_topology(params, run, check_mode=False, diff=False, ovn_nbctl=None, write=None):
    """Validate, read once, plan, write once (not in check mode).

    ``run(argv) -> (rc, stdout, stderr)`` runs a command; ``write``, when
    given, runs the write instead (same signature). Returns the result
    (``changed``, ``commands``, ``summary``, ``diff`` in diff mode); raises
    :class:`ApplyError` before any write when the declaration is invalid or
    the read fails, and when the write fails (then with the planned result).
    """
    desired = desired_model(params)
    base = base_args(ovn_nbctl or params.get("ovn_nbctl") or "ovn-nbctl", params.get("nb_db"), params.get("private_key"),
                     params.get("certificate"), params.get("ca_cert"), params.get("timeout"))
    result = plan(desired, read_state(run, base), params.get("purge", False))
    commands = result["commands"]
    ret = dict(changed=bool(commands), commands=[command_text(c) for c in commands], summary=result["summary"])
    if diff and commands:
        ret["diff"] = result["diff"]
    if commands and not check_mode:
        rc, out, err = (write or run)(base + write_args(commands))
        if rc != 0:
            ret.pop("changed")
            raise ApplyError("the Northbound transaction failed: %s" % (err or out).strip(), rc=rc, stdout=out, stderr=err, **ret)
    return ret
