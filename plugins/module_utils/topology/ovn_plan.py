# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning of ``offload.testbed.ovn_topology``: the desired model (from
``ovn_topology_schema.validate``) against the current one (from
``ovn_nb.parse_nb``), in Python, into the database commands of ONE
``ovn-nbctl`` transaction.

The commands are generic (``create``/``set``/``add``/``remove``/``destroy``);
new rows are named with ``--id=@name``. Each is a :class:`Command` that also
says which top-level object it belongs to and what it does to which row, so
that the summary and the diff are computed from the list of commands rather
than kept in step by hand.

Every column of child rows (the ports of a switch or router, the gateway
chassis of a router port, the static routes and NAT rules of a router, the
load balancers attached to either) is made to match by one helper,
:meth:`_Planner.reconcile`, driven by a :class:`_Column` that says how that
kind of child is found, created and updated.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re
from collections import namedtuple

from ansible.module_utils.six import string_types

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_addr import cached_by_text, nat_label, route_label, text
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import quote_value

# thousands of NAT rules and ports repeat the same few types, chassis and protocols
_quote = cached_by_text(quote_value)

SUMMARY_KINDS = ("switches", "switch_ports", "routers", "router_ports", "static_routes", "nat", "load_balancers")
VERBS = ("created", "updated", "deleted")

_HEXLIKE_RE = re.compile(r"^[0-9a-fA-F-]{4,}$")
_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# Declared fields compared with the current row, and the column each sets.
LSP_FIELDS = (("type", "type"), ("addresses", "addresses"), ("options", "options"), ("tag", "tag_request"))
LRP_FIELDS = (("mac", "mac"), ("networks", "networks"))
NAT_FIELDS = (("logical_port", "logical_port"), ("external_mac", "external_mac"))
LB_FIELDS = (("vips", "vips"), ("protocol", "protocol"))
GC_FIELDS = (("priority", "priority"),)


class Command(namedtuple("Command", ("argv", "owner", "effects"))):
    """One database command of the transaction.

    ``argv``: its words, as they follow ``--`` on the ``ovn-nbctl`` command
    line; ``owner``: the top-level object it belongs to, ``(label, name,
    uuid)`` (one diff entry each); ``effects``: what it does, ``(kind, verb,
    row)`` triples with ``kind`` one of :data:`SUMMARY_KINDS` and ``verb`` one
    of :data:`VERBS`. The summary counts distinct rows.
    """

    __slots__ = ()


def summarize(commands):
    """How many rows of each kind the commands create, update and delete."""
    summary = dict((kind, dict((verb, 0) for verb in VERBS)) for kind in SUMMARY_KINDS)
    seen = set()
    for command in commands:
        for effect in command.effects:
            if effect not in seen:
                seen.add(effect)
                summary[effect[0]][effect[1]] += 1
    return summary


class _JSONString(str):
    """A column value always written as a JSON string (NAT addresses)."""


def _is_ref(value):
    return value.startswith("@") or bool(_UUID_RE.match(value))


def _value(value):
    """A column value in the syntax of ``ovn-nbctl`` database commands."""
    if isinstance(value, _JSONString):
        return json.dumps(text(value))
    if isinstance(value, string_types):
        return _quote(value)
    if value is None:
        return "[]"
    if isinstance(value, int):
        return "%d" % value
    if isinstance(value, dict):
        return "{%s}" % ",".join("%s=%s" % (quote_value(k), quote_value(v)) for k, v in sorted(value.items()))
    return "[%s]" % ",".join(v if _is_ref(v) else quote_value(v) for v in value)


def _cols(pairs, skip_empty=False):
    """``column=value`` words; with ``skip_empty``, unset and empty values are left out (a create)."""
    return ["%s=%s" % (column, _value(value)) for column, value in pairs if not (skip_empty and _empty(value))]


def _empty(value):
    return value is None or (not value and not isinstance(value, int))


def _sort_key(item):
    key = item[0]
    return tuple(text(part) for part in key) if isinstance(key, tuple) else text(key)


def _lsp_view(port):
    view = {"type": port["type"], "addresses": list(port["addresses"]), "options": dict(port["options"])}
    if port["tag"] is not None:
        view["tag"] = port["tag"]
    return view


def _lrp_view(port, gateway_chassis):
    view = {"mac": port["mac"], "networks": list(port["networks"])}
    if gateway_chassis:
        view["gateway_chassis"] = dict(gateway_chassis)
    return view


def _lb_view(lb):
    return {"vips": dict(lb["vips"]), "protocol": lb["protocol"]}


# A top-level table: its kind in the models and the summary, its table, and the label of its diff entries.
_Top = namedtuple("_Top", ("kind", "table", "label"))
LOAD_BALANCERS = _Top("load_balancers", "Load_Balancer", "load_balancer")
ROUTERS = _Top("routers", "Logical_Router", "router")
SWITCHES = _Top("switches", "Logical_Switch", "switch")

# A row whose column of child rows is reconciled: kind, table, UUID (None when
# this transaction creates it) and how commands name it.
_Parent = namedtuple("_Parent", ("kind", "table", "uuid", "ref"))


class _Column(object):
    """How the rows of one column of child rows are found, created and updated.

    ``kind``: summary kind of the child rows, or None when a change of the
    column counts as an update of its parent; ``state``: the kind of the rows
    in the current model (None: every referenced row counts as known);
    ``exact``: rows that are not declared go even without purge.
    """

    kind = state = None
    exact = False

    def __init__(self, planner):
        self.planner = planner

    def index(self, current):
        """{key: [uuid, ...]} of the known rows the column holds."""
        index = {}
        for uuid in current:
            if self.known(uuid):
                index.setdefault(self.key(self.planner.state[self.state][uuid], uuid), []).append(uuid)
        return index

    def key(self, row, uuid):
        return row["key"]

    def known(self, uuid):
        return self.state is None or uuid in self.planner.state[self.state]

    def locate(self, key, index, parent):
        """The existing row for ``key`` and, when it hangs from another parent, that parent."""
        return (index.get(key) or [None])[0], None

    def create(self, key, want):
        raise NotImplementedError

    def update(self, key, want, uuid, effect):
        """Emit what makes the existing row ``uuid`` what ``want`` declares."""

    def spare(self, uuid):
        """Whether a row the column holds but the declaration does not name stays."""
        return False


class _Ports(_Column):
    """The ports of a switch or router, found by name in whichever parent holds them."""

    top = table = symbol = None
    fields = ()

    def key(self, row, uuid):
        return row["name"]

    def locate(self, key, index, parent):
        uuid = self.planner.existing(self.kind, key)
        old_parent = self.planner.port_parent.get((self.kind, uuid)) if uuid else None
        return uuid, (old_parent if old_parent != parent.uuid else None)

    def spare(self, uuid):
        return uuid in self.planner.claimed

    def pairs(self, name, port):
        return [("name", name)] + [(column, port[field]) for field, column in self.fields]

    def create(self, key, want):
        return self.planner.create(self.table, self.symbol, self.pairs(key, want), self.kind)

    def update(self, key, want, uuid, effect):
        self.planner.update(self.table, self.planner.ref(self.kind, uuid), self.planner.state[self.kind][uuid], want, self.fields, effect)


class _SwitchPorts(_Ports):
    top, kind, state, table, symbol, fields = SWITCHES, "switch_ports", "switch_ports", "Logical_Switch_Port", "lsp", LSP_FIELDS


class _RouterPorts(_Ports):
    top, kind, state, table, symbol, fields = ROUTERS, "router_ports", "router_ports", "Logical_Router_Port", "lrp", LRP_FIELDS

    def _gateway_chassis(self, name, port, lrp):
        wanted = sorted((chassis, {"priority": priority}) for chassis, priority in port["gateway_chassis"].items())
        current = self.planner.state[self.kind][lrp.uuid]["gateway_chassis"] if lrp.uuid else []
        return self.planner.sync(_GatewayChassis(self.planner, name), lrp, "gateway_chassis", current, wanted)

    def pairs(self, name, port):
        gcs = self._gateway_chassis(name, port, _Parent(self.kind, self.table, None, None))
        return _Ports.pairs(self, name, port) + [("gateway_chassis", gcs)]

    def update(self, key, want, uuid, effect):
        _Ports.update(self, key, want, uuid, effect)
        self._gateway_chassis(key, want, _Parent(self.kind, self.table, uuid, self.planner.ref(self.kind, uuid)))


class _GatewayChassis(_Column):
    """The gateway chassis of one router port, by chassis name; exactly as declared."""

    state = "gateway_chassis"
    exact = True

    def __init__(self, planner, port_name):
        _Column.__init__(self, planner)
        self.port_name = port_name

    def key(self, row, uuid):
        return row["chassis"]

    def create(self, key, want):
        pairs = [("name", "%s-%s" % (self.port_name, key)), ("chassis_name", key), ("priority", want["priority"])]
        return self.planner.create("Gateway_Chassis", "gc", pairs)

    def update(self, key, want, uuid, effect):
        self.planner.update("Gateway_Chassis", uuid, self.planner.state[self.state][uuid], want, GC_FIELDS, effect)


class _StaticRoutes(_Column):
    kind = state = "static_routes"

    def key(self, row, uuid):
        # a route of another route table is never declared: with purge it goes
        return row["key"] if row["route_table"] == "" else ("table", row["route_table"], uuid)

    def create(self, key, want):
        policy, prefix, nexthop, output_port = key
        pairs = [("ip_prefix", prefix), ("nexthop", nexthop), ("policy", None if policy == "dst-ip" else policy),
                 ("output_port", output_port)]
        return self.planner.create("Logical_Router_Static_Route", "sr", pairs, self.kind)


class _NAT(_Column):
    kind = state = "nat"

    def create(self, key, want):
        pairs = [("type", key[0]), ("external_ip", _JSONString(key[1])), ("logical_ip", _JSONString(key[2])),
                 ("logical_port", want["logical_port"]), ("external_mac", want["external_mac"])]
        return self.planner.create("NAT", "nat", pairs, self.kind)

    def update(self, key, want, uuid, effect):
        self.planner.update("NAT", uuid, self.planner.state[self.state][uuid], want, NAT_FIELDS, effect)


class _LoadBalancerRefs(_Column):
    """The load balancers attached to a switch or router (references, not rows of their own)."""

    def index(self, current):
        return dict((uuid, [uuid]) for uuid in current)

    def locate(self, key, index, parent):
        token = self.planner.lb_token[key]
        return (token if token in index else None), None

    def create(self, key, want):
        return self.planner.lb_token[key]


class _Planner(object):

    def __init__(self, desired, state, purge):
        self.desired = desired
        self.state = state
        self.purge = purge
        self.commands = []
        self.owner = None
        self.counters = {}
        self.lb_token = {}
        self.destroyed = set()
        self.by_name = {}
        for kind in ("switches", "switch_ports", "routers", "router_ports", "load_balancers"):
            index = {}
            for uuid in sorted(state[kind]):
                index.setdefault(state[kind][uuid]["name"], []).append(uuid)
            self.by_name[kind] = index
        self.port_parent = {}  # (port kind, port uuid) -> parent uuid
        self.claimed = set()  # existing port rows that a declared port (maybe of another parent) takes over
        for kind, port_kind in (("switches", "switch_ports"), ("routers", "router_ports")):
            for uuid, row in state[kind].items():
                for port in row["ports"]:
                    self.port_parent[(port_kind, port)] = uuid
            for parent in desired[kind].values():
                self.claimed.update(u for u in (self.existing(port_kind, name) for name in parent["ports"]) if u is not None)
        self.lb_names = dict((uuid, row["name"]) for uuid, row in state["load_balancers"].items())

    # -- naming rows ---------------------------------------------------------------------------
    def sym(self, prefix):
        n = self.counters.get(prefix, 0)
        self.counters[prefix] = n + 1
        return "@%s%d" % (prefix, n)

    def existing(self, kind, name):
        uuids = self.by_name[kind].get(name)
        return uuids[0] if uuids else None

    def ref(self, kind, uuid):
        """How a command names an existing row: its name when unique and not
        mistakable for a UUID, else its UUID."""
        name = self.state[kind][uuid].get("name")
        if name and len(self.by_name[kind].get(name, ())) == 1 and not _HEXLIKE_RE.match(name) and not name.startswith("@"):
            return name
        return uuid

    # -- commands ------------------------------------------------------------------------------
    def emit(self, argv, *effects):
        self.commands.append(Command(list(argv), self.owner, tuple(effects)))

    def create(self, table, prefix, pairs, kind=None):
        """Emit the create of a row named by a new ``@`` symbol; returns the symbol."""
        token = self.sym(prefix)
        self.emit(["--id=%s" % token, "create", table] + _cols(pairs, skip_empty=True), *([(kind, "created", token)] if kind else []))
        return token

    def update(self, table, ref, current, want, fields, effect):
        """Emit one ``set`` of the columns whose declared value differs from the current one."""
        cols = _cols((column, want[field]) for field, column in fields if current[field] != want[field])
        if cols:
            self.emit(["set", table, ref] + cols, effect)

    # -- child rows ------------------------------------------------------------------------------
    def reconcile(self, column, parent, current, wanted):
        """Make the child rows of one column of ``parent`` what ``wanted``
        (``[(key, want)]``) declares: emits the creates and updates of the child
        rows (and a moved port's removal from its old parent). Returns
        ``(add, remove)``, the references the parent's column gains and loses."""
        index = column.index(current)
        holds = set(current)
        effect = (parent.kind, "updated", parent.uuid)
        add, kept = [], set()
        for key, want in wanted:
            uuid, old_parent = column.locate(key, index, parent)
            if uuid is None:
                add.append(column.create(key, want))
                continue
            kept.add(uuid)
            if uuid not in holds:  # only a port is found outside the column: it moves here
                if old_parent is not None and old_parent not in self.destroyed:
                    self.emit(["remove", column.top.table, self.ref(column.top.kind, old_parent), "ports", uuid],
                              (column.kind, "updated", uuid))
                add.append(uuid)
            column.update(key, want, uuid, (column.kind, "updated", uuid) if column.kind else effect)
        remove = []
        if self.purge or column.exact:
            remove = [u for u in current if u not in kept and column.known(u) and not column.spare(u)]
        return add, remove

    def attach(self, column, parent, name, add, remove):
        """Emit the ``add`` and ``remove`` of an existing parent's column."""
        effect = (parent.kind, "updated", parent.uuid)
        if add:
            moved = [(column.kind, "updated", u) for u in add if not u.startswith("@")] if column.kind else [effect]
            self.emit(["add", parent.table, parent.ref, name] + add, *moved)
        if remove:
            self.emit(["remove", parent.table, parent.ref, name] + remove,
                      *([(column.kind, "deleted", u) for u in remove] if column.kind else [effect]))

    def sync(self, column, parent, name, current, wanted):
        """:meth:`reconcile` and, for an existing parent, :meth:`attach`; returns what is added."""
        add, remove = self.reconcile(column, parent, current, wanted)
        if parent.uuid is not None:
            self.attach(column, parent, name, add, remove)
        return add

    # -- top-level objects -----------------------------------------------------------------------
    def plan_top(self, top, plan_one):
        """Plan each declared object of a top-level table; with purge, destroy the others."""
        for name in sorted(self.desired[top.kind]):
            uuid = self.existing(top.kind, name)
            self.owner = (top.label, name, uuid)
            plan_one(top, name, self.desired[top.kind][name], uuid)
        if not self.purge:
            return
        rows = self.state[top.kind]
        for uuid in sorted(rows, key=lambda u: (rows[u]["name"], u)):
            name = rows[uuid]["name"]
            if not self._kept(top, name, uuid):
                self.owner = (top.label, name, uuid)
                self.emit(["destroy", top.table, self.ref(top.kind, uuid)], (top.kind, "deleted", uuid))
                self.destroyed.add(uuid)

    def _kept(self, top, name, uuid):
        """Whether the row ``uuid`` (None: a row to create) is the one declared as ``name``."""
        return name in self.desired[top.kind] and self.existing(top.kind, name) == uuid

    def plan_load_balancer(self, top, name, lb, uuid):
        if uuid is None:
            pairs = [("name", name), ("protocol", lb["protocol"]), ("vips", lb["vips"])]
            self.lb_token[name] = self.create(top.table, "lb", pairs, top.kind)
            return
        self.lb_token[name] = uuid
        self.update(top.table, self.ref(top.kind, uuid), self.state[top.kind][uuid], lb, LB_FIELDS, (top.kind, "updated", uuid))

    def _child_columns(self, top, want):
        """(column name, column, wanted) of each column of child rows of a switch or router."""
        lbs = ("load_balancer", _LoadBalancerRefs(self), [(n, None) for n in want["load_balancers"]])
        ports = sorted(want["ports"].items(), key=_sort_key)
        if top is SWITCHES:
            return [("ports", _SwitchPorts(self), ports), lbs]
        return [("ports", _RouterPorts(self), ports),
                ("static_routes", _StaticRoutes(self), sorted(want["static_routes"].items(), key=_sort_key)),
                ("nat", _NAT(self), sorted(want["nat"].items(), key=_sort_key)), lbs]

    def plan_parent(self, top, name, want, uuid):
        """A switch or router: its child rows, then its own create, or the add/remove of its columns."""
        row = self.state[top.kind][uuid] if uuid else None
        parent = _Parent(top.kind, top.table, uuid, self.ref(top.kind, uuid) if uuid else None)
        changes = [(column_name, column, self.reconcile(column, parent, row[column_name] if row else [], wanted))
                   for column_name, column, wanted in self._child_columns(top, want)]
        if row is not None:
            for column_name, column, (add, remove) in changes:
                self.attach(column, parent, column_name, add, remove)
            return
        cols = [("name", name)] + [(column_name, add) for column_name, _column, (add, _remove) in changes]
        moved = [(column.kind, "updated", u) for _name, column, (add, _remove) in changes if column.kind
                 for u in add if not u.startswith("@")]
        self.emit(["create", top.table] + _cols(cols, skip_empty=True), (top.kind, "created", name), *moved)

    # -- the diff ----------------------------------------------------------------------------------
    def diff(self, commands):
        """One before/after entry per top-level object that the commands change, in their order."""
        entries, seen = [], set()
        views = {"load_balancer": self._lb_views, "switch": self._switch_views, "router": self._router_views}
        for command in commands:
            if command.owner in seen:
                continue
            seen.add(command.owner)
            label, name, uuid = command.owner
            before, after = views[label](name, uuid)
            header = "%s %s" % (label, name)
            entries.append({"before_header": header, "after_header": header,
                            "before": before if before is not None else {}, "after": after if after is not None else {}})
        return entries

    def _lb_views(self, name, uuid):
        before = _lb_view(self.state["load_balancers"][uuid]) if uuid else None
        return before, (_lb_view(self.desired["load_balancers"][name]) if self._kept(LOAD_BALANCERS, name, uuid) else None)

    def _lb_names_of(self, row):
        return sorted(self.lb_names.get(u, u) for u in row["load_balancer"])

    def _lbs_after(self, row, wanted):
        kept = set() if self.purge or row is None else set(self.lb_names.get(u, u) for u in row["load_balancer"] if u not in self.destroyed)
        return sorted(set(wanted) | kept)

    def _after(self, top, name, uuid, before, desired_view):
        """The after view of a switch or router: as declared, plus (without
        purge) what it holds and the declaration does not name."""
        if not self._kept(top, name, uuid):
            return None
        want = self.desired[top.kind][name]
        after = desired_view(want)
        if before is not None and not self.purge:
            for key, value in before.items():
                if isinstance(value, dict):
                    for child, view in value.items():
                        after[key].setdefault(child, view)
                elif key != "load_balancers":
                    after[key] = sorted(set(after[key]) | set(value))
        after["load_balancers"] = self._lbs_after(self.state[top.kind][uuid] if uuid else None, want["load_balancers"])
        return after

    def _switch_views(self, name, uuid):
        before = None
        if uuid:
            row, ports = self.state["switches"][uuid], self.state["switch_ports"]
            before = {"ports": dict((ports[u]["name"], _lsp_view(ports[u])) for u in row["ports"] if u in ports),
                      "load_balancers": self._lb_names_of(row)}
        return before, self._after(SWITCHES, name, uuid, before, lambda want: {
            "ports": dict((pname, _lsp_view(port)) for pname, port in want["ports"].items())})

    def _router_views(self, name, uuid):
        before = self._router_before(self.state["routers"][uuid]) if uuid else None
        return before, self._after(ROUTERS, name, uuid, before, lambda want: {
            "ports": dict((pname, _lrp_view(port, port["gateway_chassis"])) for pname, port in want["ports"].items()),
            "static_routes": sorted(route_label(k) for k in want["static_routes"]),
            "nat": sorted(nat_label(k) for k in want["nat"])})

    def _router_before(self, row):
        ports = {}
        for u in row["ports"]:
            port = self.state["router_ports"].get(u)
            if port is not None:
                gcs = [self.state["gateway_chassis"].get(g) for g in port["gateway_chassis"]]
                ports[port["name"]] = _lrp_view(port, dict((gc["chassis"], gc["priority"]) for gc in gcs if gc is not None))
        routes = self.state["static_routes"]
        return {"ports": ports, "static_routes": sorted(route_label(routes[u]["key"]) for u in row["static_routes"] if u in routes),
                "nat": sorted(nat_label(self.state["nat"][u]["key"]) for u in row["nat"] if u in self.state["nat"]),
                "load_balancers": self._lb_names_of(row)}


def plan(desired, state, purge=False):
    """Compare the desired model (``validate``) with the current one
    (``parse_nb``). Returns a dict with ``commands`` (a list of argv lists,
    one database command each, all for ONE ``ovn-nbctl`` transaction),
    ``summary`` (created/updated/deleted per object kind) and ``diff`` (one
    before/after entry per object that changes)."""
    planner = _Planner(desired, state, purge)
    planner.plan_top(LOAD_BALANCERS, planner.plan_load_balancer)
    planner.plan_top(ROUTERS, planner.plan_parent)
    planner.plan_top(SWITCHES, planner.plan_parent)
    commands = planner.commands
    return {"commands": [command.argv for command in commands], "summary": summarize(commands), "diff": planner.diff(commands)}
