# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the ``offload.testbed.ovn_topology`` module.

Nothing here runs a command. The module:

1. calls :func:`validate` on its parameters (no database access; every error
   is collected, each naming the object and the field);
2. runs ``read_args()`` once (one ``ovn-nbctl --format=json`` call with one
   ``list`` per table) and gives the output to :func:`parse_nb`;
3. calls :func:`plan`, which compares the declaration with the database in
   Python (dicts and sets, no per-object command) and returns the ``ovn-nbctl``
   database commands of ONE transaction (generic ``create``/``set``/``add``/
   ``remove``/``destroy`` commands; new rows are named with ``--id=@name``);
4. runs ``write_args(commands)`` once, unless in check mode.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json
import re

from ansible.module_utils.six import string_types, text_type
from ansible.module_utils.six.moves import shlex_quote

from ansible_collections.offload.testbed.plugins.module_utils.ovsdb import as_list, decode_datum, quote_value


MAC_RE = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")
ADDRESS_KEYWORDS = ("unknown", "router", "dynamic")
LB_PROTOCOLS = ("tcp", "udp", "sctp")
NAT_TYPES = ("dnat_and_snat", "snat", "dnat")
ROUTE_POLICIES = ("dst-ip", "src-ip")

SUMMARY_KINDS = ("switches", "switch_ports", "routers", "router_ports", "static_routes", "nat", "load_balancers")

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

_HEXLIKE_RE = re.compile(r"^[0-9a-fA-F-]{4,}$")


class TopologyError(Exception):
    """Raised with the list of every validation error found."""

    def __init__(self, errors):
        self.errors = list(errors)
        super(TopologyError, self).__init__("; ".join(self.errors))


# ---------------------------------------------------------------------------
# address helpers
# ---------------------------------------------------------------------------

def _text(value):
    return text_type(value)


def is_mac(value):
    return isinstance(value, string_types) and bool(MAC_RE.match(value))


def _cached_by_text(func):
    """Memoise a one-argument function for string arguments: a topology of
    thousands of VIPs, NAT rules and backends repeats the same addresses."""
    cache = {}

    def wrapper(value):
        if not isinstance(value, string_types):
            return func(value)
        try:
            return cache[value]
        except KeyError:
            result = cache[value] = func(value)
            return result
    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
    return wrapper


@_cached_by_text
def parse_ip(value):
    """An ``ipaddress`` address or None."""
    try:
        return ipaddress.ip_address(_text(value).strip())
    except ValueError:
        return None


def parse_cidr(value):
    """An ``ipaddress`` interface for ``address/length`` (host bits allowed) or None."""
    value = _text(value).strip()
    if "/" not in value:
        return None
    try:
        return ipaddress.ip_interface(value)
    except ValueError:
        return None


def normalize_prefix(value):
    """``48.0.0.1/16`` -> ``48.0.0.0/16``; a full-length prefix -> the bare address
    (what ``ovn-nbctl lr-route-add`` stores). None when it is not a prefix."""
    value = _text(value).strip()
    try:
        net = ipaddress.ip_network(value, strict=False)
    except ValueError:
        return None
    if net.prefixlen == net.max_prefixlen:
        return _text(net.network_address)
    return _text(net)


@_cached_by_text
def normalize_ip(value):
    addr = parse_ip(value)
    return _text(addr) if addr is not None else _text(value).strip()


def normalize_ip_or_prefix(value):
    value = _text(value).strip()
    if "/" in value:
        norm = normalize_prefix(value)
        return norm if norm is not None else value
    return normalize_ip(value)


@_cached_by_text
def parse_endpoint(value):
    """``1.2.3.4:80``, ``[fd00::1]:80``, ``1.2.3.4`` or ``fd00::1`` ->
    ``(address, port)``; port is None when absent. None when invalid."""
    value = _text(value).strip()
    port = None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest:
            if not rest.startswith(":"):
                return None
            port = rest[1:]
        addr = parse_ip(host)
        if addr is None or addr.version != 6:
            return None
    elif value.count(":") == 1:
        host, port = value.split(":")
        addr = parse_ip(host)
        if addr is None or addr.version != 4:
            return None
    else:
        addr = parse_ip(value)
        if addr is None:
            return None
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            return None
        port = int(port)
    return addr, port


def format_endpoint(addr, port):
    if port is None:
        return _text(addr)
    if addr.version == 6:
        return "[%s]:%d" % (addr, port)
    return "%s:%d" % (addr, port)


@_cached_by_text
def normalize_endpoint(value):
    parsed = parse_endpoint(value)
    return _text(value).strip() if parsed is None else format_endpoint(*parsed)


def normalize_backends(value):
    """A backends string (comma separated) as the normalised string."""
    items = [item for item in _text(value).split(",") if item.strip()]
    return ",".join(normalize_endpoint(item) for item in items)


# ---------------------------------------------------------------------------
# validation and normalisation of the declaration
# ---------------------------------------------------------------------------

def _opt_str(value):
    if value is None:
        return None
    return _text(value)


def _str_map(value):
    return dict((_text(k), _text(v)) for k, v in (value or {}).items())


# The fields of each kind of declared object and their types: "str", "int",
# "dict" (of strings), "strs" (list of strings; a string is split on commas)
# or ("list", kind). The module's argument_spec leaves these lists as
# ``elements: dict`` and this module checks them, so that every message names
# the object (``switches[sw0].ports[port1].tag``) and so that thousands of
# rules are checked quickly.
FIELDS = {
    "switch": {"name": "str", "ports": ("list", "switch_port"), "load_balancers": "strs"},
    "switch_port": {"name": "str", "type": "str", "addresses": "addresses", "router_port": "str", "network_name": "str",
                    "tag": "int", "options": "dict"},
    "router": {"name": "str", "ports": ("list", "router_port"), "static_routes": ("list", "static_route"),
               "nat": ("list", "nat"), "load_balancers": "strs"},
    "router_port": {"name": "str", "mac": "str", "networks": "strs", "gateway_chassis": ("list", "gateway_chassis")},
    "gateway_chassis": {"chassis": "str", "priority": "int"},
    "static_route": {"prefix": "str", "nexthop": "str", "output_port": "str", "policy": "str"},
    "nat": {"type": "str", "external_ip": "str", "logical_ip": "str", "logical_port": "str", "external_mac": "str"},
    "load_balancer": {"name": "str", "vip": "str", "backends": "strs", "vips": "dict", "protocol": "str"},
}


def _scalar_text(value, where, errors):
    if isinstance(value, (dict, list, tuple, bool)):
        errors.append("%s: %r is not a string" % (where, value))
        return None
    return _text(value)


def _coerce(item, kind, where, errors):
    """Check one declared object against :data:`FIELDS`; return a copy with
    its values converted (None for a field that is absent)."""
    if not isinstance(item, dict):
        errors.append("%s: %r is not a dictionary" % (where, item))
        return None
    fields = FIELDS[kind]
    out = {}
    for key in item:
        if key not in fields:
            errors.append("%s.%s: unknown field (known fields: %s)" % (where, key, ", ".join(sorted(fields))))
    for key, ftype in fields.items():
        value = item.get(key)
        fwhere = "%s.%s" % (where, key)
        if value is None:
            out[key] = None
        elif ftype == "str":
            out[key] = _scalar_text(value, fwhere, errors)
        elif ftype == "int":
            if isinstance(value, bool):
                errors.append("%s: %r is not an integer" % (fwhere, value))
                out[key] = None
                continue
            try:
                out[key] = int(value)
            except (TypeError, ValueError):
                errors.append("%s: %r is not an integer" % (fwhere, value))
                out[key] = None
        elif ftype == "dict":
            if not isinstance(value, dict):
                errors.append("%s: %r is not a dictionary" % (fwhere, value))
                out[key] = None
            else:
                out[key] = value
        elif ftype in ("strs", "addresses"):
            if isinstance(value, string_types):
                # like Ansible's list type: "a,b" is ["a", "b"]; an address entry ("MAC IP") holds no comma
                value = [v.strip() for v in value.split(",")] if ftype == "strs" else [value]
            if not isinstance(value, (list, tuple)):
                errors.append("%s: %r is not a list" % (fwhere, value))
                out[key] = None
                continue
            out[key] = [_scalar_text(v, "%s[%d]" % (fwhere, i), errors) for i, v in enumerate(value)]
        else:
            if not isinstance(value, (list, tuple)):
                errors.append("%s: %r is not a list" % (fwhere, value))
                out[key] = None
            else:
                out[key] = list(value)
    return out


def _check_names(items, where, errors, kind):
    """Return (name, coerced item) of the items that have a name; report
    missing and duplicate names and malformed items."""
    seen = set()
    out = []
    if items is not None and not isinstance(items, (list, tuple)):
        errors.append("%s: %r is not a list" % (where, items))
        return out
    for index, item in enumerate(items or []):
        label = item.get("name") if isinstance(item, dict) and item.get("name") is not None else index
        item = _coerce(item, kind, "%s[%s]" % (where, label), errors)
        if item is None:
            continue
        name = item.get("name")
        if name is None or _text(name).strip() == "":
            errors.append("%s[%d].name: a name is required" % (where, index))
            continue
        name = _text(name)
        if name in seen:
            errors.append("%s[%s].name: %s is declared twice" % (where, name, name))
            continue
        seen.add(name)
        out.append((name, item))
    return out


def _validate_switch_port(sw_name, port, errors):
    where = "switches[%s].ports[%s]" % (sw_name, port["name"])
    ptype = _text(port.get("type") or "")
    addresses = port.get("addresses")
    if addresses is None:
        addresses = ["router"] if ptype == "router" else []
    addresses = [_text(a).strip() for a in addresses]
    for index, entry in enumerate(addresses):
        tokens = entry.split()
        if not tokens:
            errors.append("%s.addresses[%d]: an address entry may not be empty" % (where, index))
            continue
        if len(tokens) == 1 and tokens[0] in ADDRESS_KEYWORDS:
            continue
        first, rest = tokens[0], tokens[1:]
        if first != "dynamic" and not is_mac(first):
            errors.append("%s.addresses[%d]: %r is not a MAC address" % (where, index, first))
        for token in rest:
            if token != "dynamic" and parse_ip(token) is None:
                errors.append("%s.addresses[%d]: %r is not an IP address" % (where, index, token))
    options = _str_map(port.get("options"))
    router_port = _opt_str(port.get("router_port"))
    network_name = _opt_str(port.get("network_name"))
    if ptype == "router":
        if not router_port and "router-port" not in options:
            errors.append("%s.router_port: a port of type router needs router_port" % where)
    elif router_port:
        errors.append("%s.router_port: only a port of type router has a router_port (type is %r)" % (where, ptype))
    if ptype == "localnet":
        if not network_name and "network_name" not in options:
            errors.append("%s.network_name: a port of type localnet needs network_name" % where)
    elif network_name:
        errors.append("%s.network_name: only a port of type localnet has a network_name (type is %r)" % (where, ptype))
    if router_port:
        options["router-port"] = router_port
    if network_name:
        options["network_name"] = network_name
    tag = port.get("tag")
    if tag is not None:
        try:
            tag = int(tag)
        except (TypeError, ValueError):
            errors.append("%s.tag: %r is not a VLAN ID" % (where, tag))
            tag = None
        else:
            if not 0 <= tag <= 4095:
                errors.append("%s.tag: %d is not a VLAN ID (0-4095)" % (where, tag))
    return {
        "type": ptype,
        "addresses": sorted(set(addresses)),
        "options": options,
        "tag": tag,
    }


def _validate_router_port(lr_name, port, errors):
    where = "routers[%s].ports[%s]" % (lr_name, port["name"])
    mac = port.get("mac")
    if mac is None or _text(mac).strip() == "":
        errors.append("%s.mac: a router port needs a MAC address" % where)
        mac = ""
    elif not is_mac(_text(mac).strip()):
        errors.append("%s.mac: %r is not a MAC address" % (where, _text(mac)))
    mac = _text(mac).strip().lower()
    networks = []
    interfaces = []
    if not port.get("networks"):
        errors.append("%s.networks: a router port needs at least one network (address/prefix length)" % where)
    for index, network in enumerate(port.get("networks") or []):
        iface = parse_cidr(network)
        if iface is None:
            errors.append("%s.networks[%d]: %r is not a CIDR (address/prefix length)" % (where, index, _text(network)))
            continue
        networks.append(_text(iface))
        interfaces.append(iface)
    gateway_chassis = {}
    for index, gwc in enumerate(port.get("gateway_chassis") or []):
        gwc = _coerce(gwc, "gateway_chassis", "%s.gateway_chassis[%d]" % (where, index), errors)
        if gwc is None:
            continue
        chassis = _opt_str(gwc.get("chassis"))
        if not chassis:
            errors.append("%s.gateway_chassis[%d].chassis: a chassis name is required" % (where, index))
            continue
        priority = gwc.get("priority")
        priority = 0 if priority is None else priority
        try:
            priority = int(priority)
        except (TypeError, ValueError):
            errors.append("%s.gateway_chassis[%s].priority: %r is not an integer" % (where, chassis, priority))
            continue
        if not 0 <= priority <= 32767:
            errors.append("%s.gateway_chassis[%s].priority: %d is not in 0-32767" % (where, chassis, priority))
        if chassis in gateway_chassis:
            errors.append("%s.gateway_chassis[%s].chassis: %s is listed twice" % (where, chassis, chassis))
        gateway_chassis[chassis] = priority
    return {"mac": mac, "networks": sorted(set(networks)), "gateway_chassis": gateway_chassis}, interfaces


def _validate_vip(where, vip_text, backends, vip_field, backends_field, errors):
    """Check one VIP and its backends; return (vip, backends) normalised or None."""
    vip = None
    if vip_text is None or _text(vip_text).strip() == "":
        errors.append("%s.%s: a load balancer needs a VIP (address or address:port)" % (where, vip_field))
    else:
        vip = parse_endpoint(vip_text)
        if vip is None:
            errors.append("%s.%s: %r is not an IP address or IP:port" % (where, vip_field, _text(vip_text)))
    if isinstance(backends, string_types):
        backends = backends.split(",")
    backends = [b for b in (backends or []) if b is not None and _text(b).strip() != ""]
    if not backends:
        errors.append("%s.%s: a load balancer needs at least one backend" % (where, backends_field))
    normalized = []
    for index, backend in enumerate(backends):
        parsed = parse_endpoint(backend)
        if parsed is None:
            errors.append("%s.%s[%d]: %r is not an IP address or IP:port" % (where, backends_field, index, _text(backend)))
            continue
        if vip is not None:
            if parsed[0].version != vip[0].version:
                errors.append("%s.%s[%d]: %s is IPv%d but the vip %s is IPv%d"
                              % (where, backends_field, index, _text(backend).strip(), parsed[0].version, _text(vip_text), vip[0].version))
            if (parsed[1] is None) != (vip[1] is None):
                errors.append("%s.%s[%d]: %s must %s a port, like the vip %s"
                              % (where, backends_field, index, _text(backend).strip(), "have" if vip[1] is not None else "not have", _text(vip_text)))
        normalized.append(normalize_endpoint(backend))
    if vip is None:
        return None
    return format_endpoint(*vip), ",".join(normalized)


def _validate_lb(lb, errors):
    where = "load_balancers[%s]" % lb["name"]
    protocol = _text(lb.get("protocol") or "tcp")
    if protocol not in LB_PROTOCOLS:
        errors.append("%s.protocol: %r is not one of %s" % (where, protocol, ", ".join(LB_PROTOCOLS)))
    vips = {}
    if lb.get("vips") is not None:
        if lb.get("vip") is not None or lb.get("backends") is not None:
            errors.append("%s.vips: give either vip and backends, or vips, not both" % where)
        if not lb["vips"]:
            errors.append("%s.vips: a load balancer needs at least one VIP" % where)
        for vip_text, backends in lb["vips"].items():
            if backends is not None and not isinstance(backends, (list, tuple) + string_types):
                errors.append("%s.vips[%s]: %r is not a list of backends" % (where, vip_text, backends))
                continue
            checked = _validate_vip(where, vip_text, backends, "vips", "vips[%s]" % vip_text, errors)
            if checked is not None:
                if checked[0] in vips:
                    errors.append("%s.vips[%s]: the VIP is declared twice" % (where, vip_text))
                vips[checked[0]] = checked[1]
    else:
        checked = _validate_vip(where, lb.get("vip"), lb.get("backends"), "vip", "backends", errors)
        if checked is not None:
            vips[checked[0]] = checked[1]
    return {"vips": vips, "protocol": protocol}


def route_key(prefix, nexthop, policy, output_port):
    return (policy or "dst-ip", prefix, nexthop, output_port or None)


def route_label(key):
    policy, prefix, nexthop, output_port = key
    text = "%s via %s" % (prefix, nexthop)
    if output_port:
        text += " port %s" % output_port
    if policy != "dst-ip":
        text += " (%s)" % policy
    return text


def nat_label(key):
    return "%s %s %s" % key


def _validate_router(lr_name, router, lb_names, errors, port_owner):
    where = "routers[%s]" % lr_name
    ports = {}
    all_ifaces = []  # (port name, interface)
    for pname, port in _check_names(router.get("ports"), where + ".ports", errors, "router_port"):
        _claim_port(pname, "%s.ports[%s]" % (where, pname), port_owner, errors)
        norm, ifaces = _validate_router_port(lr_name, port, errors)
        ports[pname] = norm
        for iface in ifaces:
            for other_name, other in all_ifaces:
                if other.version == iface.version and other.network.overlaps(iface.network):
                    errors.append("%s.ports[%s].networks: %s overlaps %s of port %s"
                                  % (where, pname, iface, other, other_name))
            all_ifaces.append((pname, iface))
    routes = {}
    for index, route in enumerate(router.get("static_routes") or []):
        rwhere = "%s.static_routes[%s]" % (where, route.get("prefix") if isinstance(route, dict) and route.get("prefix") else index)
        route = _coerce(route, "static_route", rwhere, errors)
        if route is None:
            continue
        prefix = route.get("prefix")
        nexthop = route.get("nexthop")
        norm_prefix = normalize_prefix(prefix) if prefix is not None else None
        if prefix is None or norm_prefix is None:
            errors.append("%s.prefix: %r is not an IP prefix (address/prefix length)" % (rwhere, prefix))
        policy = _text(route.get("policy") or "dst-ip")
        if policy not in ROUTE_POLICIES:
            errors.append("%s.policy: %r is not one of %s" % (rwhere, policy, ", ".join(ROUTE_POLICIES)))
        if nexthop is None or _text(nexthop).strip() == "":
            errors.append("%s.nexthop: a static route needs a nexthop" % rwhere)
            continue
        if _text(nexthop) == "discard":
            norm_nexthop = "discard"
        else:
            hop = parse_ip(nexthop)
            if hop is None:
                errors.append("%s.nexthop: %r is not an IP address" % (rwhere, _text(nexthop)))
                continue
            norm_nexthop = _text(hop)
            if not any(iface.version == hop.version and hop in iface.network for _name, iface in all_ifaces):
                errors.append("%s.nexthop: %s is in no network of the ports of router %s" % (rwhere, hop, lr_name))
            if norm_prefix is not None and parse_ip(norm_prefix.split("/")[0]).version != hop.version:
                errors.append("%s.nexthop: %s and the prefix %s are of different IP versions" % (rwhere, hop, prefix))
        output_port = _opt_str(route.get("output_port"))
        if output_port and output_port not in ports:
            errors.append("%s.output_port: %s is not a port of router %s" % (rwhere, output_port, lr_name))
        if norm_prefix is None:
            continue
        key = route_key(norm_prefix, norm_nexthop, policy, output_port)
        if key in routes:
            errors.append("%s: the route %s is declared twice" % (rwhere, route_label(key)))
        routes[key] = True
    nats = {}
    for index, nat in enumerate(router.get("nat") or []):
        nwhere = "%s.nat[%d]" % (where, index)
        nat = _coerce(nat, "nat", nwhere, errors)
        if nat is None:
            continue
        ntype = _text(nat.get("type") or "")
        if ntype not in NAT_TYPES:
            errors.append("%s.type: %r is not one of %s" % (nwhere, ntype, ", ".join(NAT_TYPES)))
        ext = nat.get("external_ip")
        log = nat.get("logical_ip")
        ok = True
        if ext is None or _text(ext).strip() == "":
            errors.append("%s.external_ip: a NAT rule needs both external_ip and logical_ip" % nwhere)
            ok = False
        elif parse_ip(ext) is None:
            errors.append("%s.external_ip: %r is not an IP address" % (nwhere, _text(ext)))
            ok = False
        if log is None or _text(log).strip() == "":
            errors.append("%s.logical_ip: a NAT rule needs both external_ip and logical_ip" % nwhere)
            ok = False
        elif ntype == "snat" and "/" in _text(log):
            if normalize_prefix(log) is None:
                errors.append("%s.logical_ip: %r is not an IP address or network" % (nwhere, _text(log)))
                ok = False
        elif parse_ip(log) is None:
            errors.append("%s.logical_ip: %r is not an IP address" % (nwhere, _text(log)))
            ok = False
        if ok and parse_ip(ext).version != parse_ip(_text(log).split("/")[0]).version:
            errors.append("%s.logical_ip: %s and the external_ip %s are of different IP versions" % (nwhere, _text(log), _text(ext)))
            ok = False
        logical_port = _opt_str(nat.get("logical_port"))
        external_mac = _opt_str(nat.get("external_mac"))
        if external_mac is not None and not is_mac(external_mac):
            errors.append("%s.external_mac: %r is not a MAC address" % (nwhere, external_mac))
        if (external_mac is None) != (logical_port is None):
            errors.append("%s.external_mac: external_mac and logical_port go together" % nwhere)
        if external_mac is not None and ntype != "dnat_and_snat":
            errors.append("%s.external_mac: only a dnat_and_snat rule has external_mac and logical_port" % nwhere)
        if not ok or ntype not in NAT_TYPES:
            continue
        key = (ntype, normalize_ip(ext), normalize_ip_or_prefix(log))
        if key in nats:
            errors.append("%s: the NAT rule %s is declared twice" % (nwhere, nat_label(key)))
        nats[key] = {"logical_port": logical_port, "external_mac": external_mac.lower() if external_mac else None}
    lbs = _lb_refs(where, router.get("load_balancers"), lb_names, errors)
    return {"ports": ports, "static_routes": routes, "nat": nats, "load_balancers": lbs}


def _lb_refs(where, names, lb_names, errors):
    out = []
    for name in names or []:
        name = _text(name)
        if name not in lb_names:
            errors.append("%s.load_balancers: %s is not a declared load balancer" % (where, name))
        elif name not in out:
            out.append(name)
    return out


def _claim_port(name, where, port_owner, errors):
    if name in port_owner:
        errors.append("%s.name: the port name %s is used twice (also %s)" % (where, name, port_owner[name]))
    else:
        port_owner[name] = where


TOPOLOGY_KEYS = ("switches", "routers", "load_balancers")


def load_topology_text(text):
    """The ``topology`` option: JSON text of a mapping with (some of) the keys
    switches, routers and load_balancers, each a list. Returns that mapping
    with every key present; raises :class:`TopologyError` naming ``topology``."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise TopologyError(["topology: not valid JSON (%s); give a JSON object with switches, routers and load_balancers" % exc])
    if not isinstance(data, dict):
        raise TopologyError(["topology: the JSON must be an object with switches, routers and load_balancers, not %s" % type(data).__name__])
    errors = ["topology.%s: unknown key; the keys are %s" % (key, ", ".join(TOPOLOGY_KEYS)) for key in sorted(data) if key not in TOPOLOGY_KEYS]
    errors += ["topology.%s: must be a list" % key for key in TOPOLOGY_KEYS if not isinstance(data.get(key, []), list)]
    if errors:
        raise TopologyError(errors)
    return dict((key, data.get(key) or []) for key in TOPOLOGY_KEYS)


def validate(params):
    """Check and normalise the declaration; raise :class:`TopologyError` with
    every problem found. Returns the desired model::

        {"switches": {name: {"ports": {name: {type, addresses, options, tag}},
                             "load_balancers": [names]}},
         "routers": {name: {"ports": {name: {mac, networks, gateway_chassis}},
                            "static_routes": {key: True}, "nat": {key: {...}},
                            "load_balancers": [names]}},
         "load_balancers": {name: {"vips": {vip: backends}, "protocol": p}}}
    """
    errors = []
    lbs = {}
    for name, lb in _check_names(params.get("load_balancers"), "load_balancers", errors, "load_balancer"):
        lbs[name] = _validate_lb(lb, errors)
    lb_names = set(lbs)
    port_owner = {}
    routers = {}
    for name, router in _check_names(params.get("routers"), "routers", errors, "router"):
        routers[name] = _validate_router(name, router, lb_names, errors, port_owner)
    router_ports = set()
    for router in routers.values():
        router_ports.update(router["ports"])
    switches = {}
    for sw_name, switch in _check_names(params.get("switches"), "switches", errors, "switch"):
        ports = {}
        for pname, port in _check_names(switch.get("ports"), "switches[%s].ports" % sw_name, errors, "switch_port"):
            _claim_port(pname, "switches[%s].ports[%s]" % (sw_name, pname), port_owner, errors)
            norm = _validate_switch_port(sw_name, port, errors)
            peer = norm["options"].get("router-port")
            if norm["type"] == "router" and peer and peer not in router_ports:
                errors.append("switches[%s].ports[%s].router_port: the router port %s does not exist in any declared router"
                              % (sw_name, pname, peer))
            ports[pname] = norm
        switches[sw_name] = {
            "ports": ports,
            "load_balancers": _lb_refs("switches[%s]" % sw_name, switch.get("load_balancers"), lb_names, errors),
        }
    if errors:
        raise TopologyError(errors)
    return {"switches": switches, "routers": routers, "load_balancers": lbs}


# ---------------------------------------------------------------------------
# reading the database
# ---------------------------------------------------------------------------

def base_args(ovn_nbctl="ovn-nbctl", nb_db=None, private_key=None, certificate=None, ca_cert=None, timeout=None):
    """The ``ovn-nbctl`` argv prefix shared by the read and the write."""
    args = [ovn_nbctl]
    if nb_db:
        args.append("--db=%s" % nb_db)
    if private_key:
        args.extend(["-p", private_key])
    if certificate:
        args.extend(["-c", certificate])
    if ca_cert:
        args.extend(["-C", ca_cert])
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


def _split_json_docs(text):
    decoder = json.JSONDecoder()
    docs = []
    text = text or ""
    pos = 0
    end = len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        doc, pos = decoder.raw_decode(text, pos)
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


def parse_nb(text):
    """Parse the output of the read into the current model::

        {"switches": {uuid: {...}}, "switch_ports": {uuid: {...}}, ...}

    each row a dict of decoded, normalised columns plus ``uuid``.
    """
    docs = _split_json_docs(text)
    if len(docs) != len(READ_COLUMNS):
        raise ValueError("expected %d JSON tables from ovn-nbctl, got %d" % (len(READ_COLUMNS), len(docs)))
    raw = {}
    for (table, _columns), doc in zip(READ_COLUMNS, docs):
        raw[table] = _rows(doc)
    state = {}
    state["switches"] = dict(
        (r["_uuid"], {"uuid": r["_uuid"], "name": r["name"], "ports": as_list(r["ports"]), "load_balancer": as_list(r["load_balancer"])})
        for r in raw["Logical_Switch"])
    state["switch_ports"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"], "name": r["name"], "type": r["type"],
            "addresses": sorted(set(as_list(r["addresses"]))),
            "options": dict(r["options"]) if isinstance(r["options"], dict) else {},
            "tag": _opt(r["tag_request"]),
        }) for r in raw["Logical_Switch_Port"])
    state["routers"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"], "name": r["name"], "ports": as_list(r["ports"]), "static_routes": as_list(r["static_routes"]),
            "nat": as_list(r["nat"]), "load_balancer": as_list(r["load_balancer"]),
        }) for r in raw["Logical_Router"])
    state["router_ports"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"], "name": r["name"], "mac": _text(r["mac"]).lower(),
            "networks": sorted(set(_normalize_network(n) for n in as_list(r["networks"]))),
            "gateway_chassis": as_list(r["gateway_chassis"]),
        }) for r in raw["Logical_Router_Port"])
    state["gateway_chassis"] = dict(
        (r["_uuid"], {"uuid": r["_uuid"], "name": r["name"], "chassis": r["chassis_name"], "priority": r["priority"]})
        for r in raw["Gateway_Chassis"])
    state["static_routes"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"], "route_table": r["route_table"],
            "key": route_key(normalize_ip_or_prefix(r["ip_prefix"]), normalize_ip(r["nexthop"]), _opt(r["policy"]), _opt(r["output_port"])),
        }) for r in raw["Logical_Router_Static_Route"])
    state["nat"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"],
            "key": (r["type"], normalize_ip(r["external_ip"]), normalize_ip_or_prefix(r["logical_ip"])),
            "logical_port": _opt(r["logical_port"]),
            "external_mac": (_opt(r["external_mac"]) or "").lower() or None,
        }) for r in raw["NAT"])
    state["load_balancers"] = dict(
        (r["_uuid"], {
            "uuid": r["_uuid"], "name": r["name"],
            "vips": dict((normalize_endpoint(k), normalize_backends(v)) for k, v in (r["vips"] or {}).items()),
            "protocol": _opt(r["protocol"]) or "tcp",
        }) for r in raw["Load_Balancer"])
    return state


def _normalize_network(value):
    iface = parse_cidr(value)
    return _text(iface) if iface is not None else _text(value)


# ---------------------------------------------------------------------------
# planning
# ---------------------------------------------------------------------------

def _q(value):
    return quote_value(value)


def _set(values):
    return "[%s]" % ",".join(_q(v) if not _is_ref(v) else v for v in values)


def _is_ref(value):
    return value.startswith("@") or bool(_UUID_RE.match(value))


_UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def _map(values):
    return "{%s}" % ",".join("%s=%s" % (_q(k), _q(v)) for k, v in sorted(values.items()))


def _lsp_columns(port, only=None):
    cols = []
    if only is None or "type" in only:
        if only is not None or port["type"]:
            cols.append("type=%s" % _q(port["type"]))
    if only is None or "addresses" in only:
        if only is not None or port["addresses"]:
            cols.append("addresses=%s" % _set(port["addresses"]))
    if only is None or "options" in only:
        if only is not None or port["options"]:
            cols.append("options=%s" % _map(port["options"]))
    if only is None or "tag" in only:
        if port["tag"] is not None:
            cols.append("tag_request=%d" % port["tag"])
        elif only is not None:
            cols.append("tag_request=[]")
    return cols


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


class _Planner(object):

    def __init__(self, desired, state, purge):
        self.desired = desired
        self.state = state
        self.purge = purge
        self.commands = []
        self.summary = dict((kind, {"created": 0, "updated": 0, "deleted": 0}) for kind in SUMMARY_KINDS)
        self.diff = []
        self.counters = {}
        self.by_name = {}
        for kind in ("switches", "switch_ports", "routers", "router_ports", "load_balancers"):
            index = {}
            for uuid in sorted(state[kind]):
                index.setdefault(state[kind][uuid]["name"], []).append(uuid)
            self.by_name[kind] = index
        # parent of each port row
        self.port_parent = {}
        for kind, port_kind in (("switches", "switch_ports"), ("routers", "router_ports")):
            for uuid, row in state[kind].items():
                for port in row["ports"]:
                    self.port_parent[(port_kind, port)] = uuid
        self.lb_names = dict((uuid, row["name"]) for uuid, row in state["load_balancers"].items())
        self.destroyed = set()
        # existing port rows that a declared port (maybe of another parent) takes over
        self.claimed = set()
        for kind, port_kind in (("switches", "switch_ports"), ("routers", "router_ports")):
            for parent in desired[kind].values():
                for name in parent["ports"]:
                    uuid = self.existing(port_kind, name)
                    if uuid is not None:
                        self.claimed.add(uuid)

    # -- helpers ---------------------------------------------------------
    def sym(self, prefix):
        n = self.counters.get(prefix, 0)
        self.counters[prefix] = n + 1
        return "@%s%d" % (prefix, n)

    def ref(self, kind, uuid):
        """How a command names an existing row: its name when unique and not
        mistakable for a UUID, else its UUID."""
        name = self.state[kind][uuid].get("name")
        if name and len(self.by_name[kind].get(name, ())) == 1 and not _HEXLIKE_RE.match(name) and not name.startswith("@"):
            return name
        return uuid

    def add(self, *tokens):
        self.commands.append(list(tokens))

    def count(self, kind, what, n=1):
        self.summary[kind][what] += n

    def record_diff(self, header, before, after):
        self.diff.append({"before_header": header, "after_header": header,
                          "before": before if before is not None else {},
                          "after": after if after is not None else {}})

    def existing(self, kind, name):
        uuids = self.by_name[kind].get(name)
        return uuids[0] if uuids else None

    # -- load balancers ----------------------------------------------------
    def plan_load_balancers(self):
        self.lb_token = {}
        for name in sorted(self.desired["load_balancers"]):
            lb = self.desired["load_balancers"][name]
            uuid = self.existing("load_balancers", name)
            if uuid is None:
                token = self.sym("lb")
                self.add("--id=%s" % token, "create", "Load_Balancer", "name=%s" % _q(name),
                         "protocol=%s" % lb["protocol"], "vips=%s" % _map(lb["vips"]))
                self.lb_token[name] = token
                self.count("load_balancers", "created")
                self.record_diff("load_balancer %s" % name, None, _lb_view(lb))
                continue
            self.lb_token[name] = uuid
            row = self.state["load_balancers"][uuid]
            cols = []
            if row["vips"] != lb["vips"]:
                cols.append("vips=%s" % _map(lb["vips"]))
            if row["protocol"] != lb["protocol"]:
                cols.append("protocol=%s" % lb["protocol"])
            if cols:
                self.add("set", "Load_Balancer", self.ref("load_balancers", uuid), *cols)
                self.count("load_balancers", "updated")
                self.record_diff("load_balancer %s" % name, _lb_view(row), _lb_view(lb))
        if self.purge:
            for uuid in sorted(self.state["load_balancers"], key=lambda u: (self.lb_names[u], u)):
                name = self.lb_names[uuid]
                if name in self.desired["load_balancers"] and self.existing("load_balancers", name) == uuid:
                    continue
                self.add("destroy", "Load_Balancer", self.ref("load_balancers", uuid))
                self.destroyed.add(uuid)
                self.count("load_balancers", "deleted")
                self.record_diff("load_balancer %s" % name, _lb_view(self.state["load_balancers"][uuid]), None)

    def _lb_attachments(self, kind, table, uuid, row, wanted):
        """Commands for the load_balancer column of an existing switch/router;
        returns (changed, after-view names)."""
        # A load balancer destroyed with purge is also removed explicitly from
        # the rows that reference it: ovsdb-server 3.1 does not always drop the
        # weak reference when the referencing row changes in the same transaction.
        current = list(row["load_balancer"])
        current_names = dict((self.lb_names.get(u, u), u) for u in current)
        missing = [self.lb_token[name] for name in wanted if name not in current_names
                   or self.lb_token[name] != current_names[name]]
        extra = []
        if self.purge:
            wanted_tokens = set(self.lb_token[name] for name in wanted)
            extra = [u for u in current if u not in wanted_tokens]
        ref = self.ref(kind, uuid)
        if missing:
            self.add("add", table, ref, "load_balancer", *missing)
        if extra:
            self.add("remove", table, ref, "load_balancer", *extra)
        after = sorted(set(wanted) | (set() if self.purge else set(self.lb_names.get(u, u) for u in current if u not in self.destroyed)))
        return bool(missing or extra), after

    # -- ports (shared by switches and routers) ------------------------------
    def _port_rows(self, parent_kind, port_kind, table, parent_uuid, name):
        """The existing row for port ``name`` and, when it hangs from another
        parent, that parent's UUID."""
        uuid = self.existing(port_kind, name)
        if uuid is None:
            return None, None
        parent = self.port_parent.get((port_kind, uuid))
        if parent == parent_uuid:
            return uuid, None
        return uuid, parent

    # -- switches --------------------------------------------------------------
    def plan_switches(self):
        ports_state = self.state["switch_ports"]
        for sw_name in sorted(self.desired["switches"]):
            switch = self.desired["switches"][sw_name]
            sw_uuid = self.existing("switches", sw_name)
            row = self.state["switches"][sw_uuid] if sw_uuid else None
            new_tokens = []
            changed = False
            before_ports = {}
            after_ports = {}
            if row:
                for puuid in row["ports"]:
                    if puuid in ports_state:
                        before_ports[ports_state[puuid]["name"]] = _lsp_view(ports_state[puuid])
            for pname in sorted(switch["ports"]):
                port = switch["ports"][pname]
                after_ports[pname] = _lsp_view(port)
                puuid, old_parent = self._port_rows("switches", "switch_ports", "Logical_Switch", sw_uuid, pname)
                if puuid is None:
                    token = self.sym("lsp")
                    self.add("--id=%s" % token, "create", "Logical_Switch_Port", "name=%s" % _q(pname), *_lsp_columns(port))
                    new_tokens.append(token)
                    self.count("switch_ports", "created")
                    changed = True
                    continue
                current = ports_state[puuid]
                moved = old_parent is not None or row is None
                if moved:
                    if old_parent is not None and old_parent not in self.destroyed:
                        self.add("remove", "Logical_Switch", self.ref("switches", old_parent), "ports", puuid)
                    new_tokens.append(puuid)
                diff_cols = [c for c in ("type", "addresses", "options", "tag") if current[c] != port[c]]
                if diff_cols:
                    self.add("set", "Logical_Switch_Port", self.ref("switch_ports", puuid), *_lsp_columns(port, diff_cols))
                if diff_cols or moved:
                    self.count("switch_ports", "updated")
                    changed = True
            if row is None:
                cols = ["name=%s" % _q(sw_name)]
                if new_tokens:
                    cols.append("ports=%s" % _set(new_tokens))
                if switch["load_balancers"]:
                    cols.append("load_balancer=%s" % _set([self.lb_token[n] for n in switch["load_balancers"]]))
                self.add("create", "Logical_Switch", *cols)
                self.count("switches", "created")
                self.record_diff("switch %s" % sw_name, None,
                                 {"ports": after_ports, "load_balancers": sorted(switch["load_balancers"])})
                continue
            ref = self.ref("switches", sw_uuid)
            if new_tokens:
                self.add("add", "Logical_Switch", ref, "ports", *new_tokens)
            if self.purge:
                extra = [u for u in row["ports"] if u in ports_state and u not in self.claimed]
                if extra:
                    self.add("remove", "Logical_Switch", ref, "ports", *extra)
                    self.count("switch_ports", "deleted", len(extra))
                    changed = True
            else:
                for name, view in before_ports.items():
                    after_ports.setdefault(name, view)
            lb_changed, lb_after = self._lb_attachments("switches", "Logical_Switch", sw_uuid, row, switch["load_balancers"])
            if lb_changed:
                self.count("switches", "updated")
                changed = True
            if changed:
                before_lbs = sorted(self.lb_names.get(u, u) for u in row["load_balancer"])
                self.record_diff("switch %s" % sw_name, {"ports": before_ports, "load_balancers": before_lbs},
                                 {"ports": after_ports, "load_balancers": lb_after})
        if self.purge:
            for uuid in sorted(self.state["switches"], key=lambda u: (self.state["switches"][u]["name"], u)):
                name = self.state["switches"][uuid]["name"]
                if name in self.desired["switches"] and self.existing("switches", name) == uuid:
                    continue
                self._destroy_switch(uuid)

    def _destroy_switch(self, uuid):
        row = self.state["switches"][uuid]
        self.add("destroy", "Logical_Switch", self.ref("switches", uuid))
        self.destroyed.add(uuid)
        self.count("switches", "deleted")
        ports = dict((self.state["switch_ports"][u]["name"], _lsp_view(self.state["switch_ports"][u]))
                     for u in row["ports"] if u in self.state["switch_ports"])
        self.record_diff("switch %s" % row["name"],
                         {"ports": ports, "load_balancers": sorted(self.lb_names.get(u, u) for u in row["load_balancer"])}, None)

    # -- routers ---------------------------------------------------------------
    def _gateway_chassis_of(self, lrp_uuid):
        out = {}
        for gc in self.state["router_ports"][lrp_uuid]["gateway_chassis"]:
            row = self.state["gateway_chassis"].get(gc)
            if row is not None:
                out[row["chassis"]] = (gc, row["priority"])
        return out

    def _create_gateway_chassis(self, pname, chassis, priority):
        token = self.sym("gc")
        self.add("--id=%s" % token, "create", "Gateway_Chassis", "name=%s" % _q("%s-%s" % (pname, chassis)),
                 "chassis_name=%s" % _q(chassis), "priority=%d" % priority)
        return token

    def _router_views(self, row):
        ports = {}
        for u in row["ports"]:
            if u in self.state["router_ports"]:
                gcs = dict((c, p) for c, (_u, p) in self._gateway_chassis_of(u).items())
                ports[self.state["router_ports"][u]["name"]] = _lrp_view(self.state["router_ports"][u], gcs)
        routes = sorted(route_label(self.state["static_routes"][u]["key"]) for u in row["static_routes"] if u in self.state["static_routes"])
        nats = sorted(nat_label(self.state["nat"][u]["key"]) for u in row["nat"] if u in self.state["nat"])
        return {"ports": ports, "static_routes": routes, "nat": nats,
                "load_balancers": sorted(self.lb_names.get(u, u) for u in row["load_balancer"])}

    def plan_routers(self):
        ports_state = self.state["router_ports"]
        for lr_name in sorted(self.desired["routers"]):
            router = self.desired["routers"][lr_name]
            lr_uuid = self.existing("routers", lr_name)
            row = self.state["routers"][lr_uuid] if lr_uuid else None
            changed = False
            new_ports = []
            for pname in sorted(router["ports"]):
                port = router["ports"][pname]
                puuid, old_parent = self._port_rows("routers", "router_ports", "Logical_Router", lr_uuid, pname)
                if puuid is None:
                    gcs = [self._create_gateway_chassis(pname, c, p) for c, p in sorted(port["gateway_chassis"].items())]
                    token = self.sym("lrp")
                    cols = ["name=%s" % _q(pname), "mac=%s" % _q(port["mac"]), "networks=%s" % _set(port["networks"])]
                    if gcs:
                        cols.append("gateway_chassis=%s" % _set(gcs))
                    self.add("--id=%s" % token, "create", "Logical_Router_Port", *cols)
                    new_ports.append(token)
                    self.count("router_ports", "created")
                    changed = True
                    continue
                current = ports_state[puuid]
                moved = old_parent is not None or row is None
                if moved:
                    if old_parent is not None and old_parent not in self.destroyed:
                        self.add("remove", "Logical_Router", self.ref("routers", old_parent), "ports", puuid)
                    new_ports.append(puuid)
                port_changed = moved
                cols = []
                if current["mac"] != port["mac"]:
                    cols.append("mac=%s" % _q(port["mac"]))
                if current["networks"] != port["networks"]:
                    cols.append("networks=%s" % _set(port["networks"]))
                lrp_ref = self.ref("router_ports", puuid)
                if cols:
                    self.add("set", "Logical_Router_Port", lrp_ref, *cols)
                    port_changed = True
                have = self._gateway_chassis_of(puuid)
                add_gc = []
                for chassis, priority in sorted(port["gateway_chassis"].items()):
                    if chassis not in have:
                        add_gc.append(self._create_gateway_chassis(pname, chassis, priority))
                    elif have[chassis][1] != priority:
                        self.add("set", "Gateway_Chassis", have[chassis][0], "priority=%d" % priority)
                        port_changed = True
                if add_gc:
                    self.add("add", "Logical_Router_Port", lrp_ref, "gateway_chassis", *add_gc)
                    port_changed = True
                drop_gc = [have[c][0] for c in sorted(have) if c not in port["gateway_chassis"]]
                if drop_gc:
                    self.add("remove", "Logical_Router_Port", lrp_ref, "gateway_chassis", *drop_gc)
                    port_changed = True
                if port_changed:
                    self.count("router_ports", "updated")
                    changed = True
            # static routes
            new_routes = []
            have_routes = {}
            if row:
                for u in row["static_routes"]:
                    r = self.state["static_routes"].get(u)
                    if r is not None:
                        key = r["key"] if r["route_table"] == "" else ("table", r["route_table"], u)
                        have_routes.setdefault(key, []).append(u)
            for key in sorted(router["static_routes"], key=lambda k: tuple(_text(x) for x in k)):
                if key in have_routes:
                    continue
                token = self.sym("sr")
                policy, prefix, nexthop, output_port = key
                cols = ["ip_prefix=%s" % _q(prefix), "nexthop=%s" % _q(nexthop)]
                if policy != "dst-ip":
                    cols.append("policy=%s" % policy)
                if output_port:
                    cols.append("output_port=%s" % _q(output_port))
                self.add("--id=%s" % token, "create", "Logical_Router_Static_Route", *cols)
                new_routes.append(token)
            drop_routes = []
            for key, uuids in sorted(have_routes.items(), key=lambda kv: tuple(_text(x) for x in kv[0])):
                if key in router["static_routes"]:
                    drop_routes.extend(uuids[1:] if self.purge else [])
                elif self.purge:
                    drop_routes.extend(uuids)
            # NAT
            new_nats = []
            have_nats = {}
            if row:
                for u in row["nat"]:
                    n = self.state["nat"].get(u)
                    if n is not None:
                        have_nats.setdefault(n["key"], []).append(u)
            nat_updated = 0
            for key in sorted(router["nat"]):
                want = router["nat"][key]
                if key in have_nats:
                    uuid = have_nats[key][0]
                    cur = self.state["nat"][uuid]
                    cols = []
                    if cur["logical_port"] != want["logical_port"]:
                        cols.append("logical_port=%s" % (_q(want["logical_port"]) if want["logical_port"] else "[]"))
                    if cur["external_mac"] != want["external_mac"]:
                        cols.append("external_mac=%s" % (_q(want["external_mac"]) if want["external_mac"] else "[]"))
                    if cols:
                        self.add("set", "NAT", uuid, *cols)
                        nat_updated += 1
                    continue
                token = self.sym("nat")
                cols = ["type=%s" % key[0], "external_ip=%s" % json.dumps(key[1]), "logical_ip=%s" % json.dumps(key[2])]
                if want["logical_port"]:
                    cols.append("logical_port=%s" % _q(want["logical_port"]))
                if want["external_mac"]:
                    cols.append("external_mac=%s" % _q(want["external_mac"]))
                self.add("--id=%s" % token, "create", "NAT", *cols)
                new_nats.append(token)
            drop_nats = []
            for key, uuids in sorted(have_nats.items()):
                if key in router["nat"]:
                    drop_nats.extend(uuids[1:] if self.purge else [])
                elif self.purge:
                    drop_nats.extend(uuids)
            self.count("static_routes", "created", len(new_routes))
            self.count("static_routes", "deleted", len(drop_routes))
            self.count("nat", "created", len(new_nats))
            self.count("nat", "updated", nat_updated)
            self.count("nat", "deleted", len(drop_nats))
            if new_routes or drop_routes or new_nats or drop_nats or nat_updated:
                changed = True
            if row is None:
                cols = ["name=%s" % _q(lr_name)]
                if new_ports:
                    cols.append("ports=%s" % _set(new_ports))
                if new_routes:
                    cols.append("static_routes=%s" % _set(new_routes))
                if new_nats:
                    cols.append("nat=%s" % _set(new_nats))
                if router["load_balancers"]:
                    cols.append("load_balancer=%s" % _set([self.lb_token[n] for n in router["load_balancers"]]))
                self.add("create", "Logical_Router", *cols)
                self.count("routers", "created")
                self.record_diff("router %s" % lr_name, None, self._desired_router_view(router, None))
                continue
            ref = self.ref("routers", lr_uuid)
            if new_ports:
                self.add("add", "Logical_Router", ref, "ports", *new_ports)
            if self.purge:
                extra = [u for u in row["ports"] if u in ports_state and u not in self.claimed]
                if extra:
                    self.add("remove", "Logical_Router", ref, "ports", *extra)
                    self.count("router_ports", "deleted", len(extra))
                    changed = True
            if new_routes:
                self.add("add", "Logical_Router", ref, "static_routes", *new_routes)
            if drop_routes:
                self.add("remove", "Logical_Router", ref, "static_routes", *drop_routes)
            if new_nats:
                self.add("add", "Logical_Router", ref, "nat", *new_nats)
            if drop_nats:
                self.add("remove", "Logical_Router", ref, "nat", *drop_nats)
            lb_changed, lb_after = self._lb_attachments("routers", "Logical_Router", lr_uuid, row, router["load_balancers"])
            if lb_changed:
                self.count("routers", "updated")
                changed = True
            if changed:
                before = self._router_views(row)
                after = self._desired_router_view(router, None if self.purge else before)
                after["load_balancers"] = lb_after
                self.record_diff("router %s" % lr_name, before, after)
        if self.purge:
            for uuid in sorted(self.state["routers"], key=lambda u: (self.state["routers"][u]["name"], u)):
                name = self.state["routers"][uuid]["name"]
                if name in self.desired["routers"] and self.existing("routers", name) == uuid:
                    continue
                self.add("destroy", "Logical_Router", self.ref("routers", uuid))
                self.destroyed.add(uuid)
                self.count("routers", "deleted")
                self.record_diff("router %s" % name, self._router_views(self.state["routers"][uuid]), None)

    def _desired_router_view(self, router, keep):
        ports = dict((name, _lrp_view(p, p["gateway_chassis"])) for name, p in router["ports"].items())
        routes = set(route_label(k) for k in router["static_routes"])
        nats = set(nat_label(k) for k in router["nat"])
        lbs = set(router["load_balancers"])
        if keep:
            for name, view in keep["ports"].items():
                ports.setdefault(name, view)
            routes.update(keep["static_routes"])
            nats.update(keep["nat"])
            lbs.update(keep["load_balancers"])
        return {"ports": ports, "static_routes": sorted(routes), "nat": sorted(nats), "load_balancers": sorted(lbs)}


def plan(desired, state, purge=False):
    """Compare the desired model (:func:`validate`) with the current one
    (:func:`parse_nb`). Returns a dict with ``commands`` (a list of argv
    lists, one database command each, all for ONE ``ovn-nbctl`` transaction),
    ``summary`` (created/updated/deleted per object kind) and ``diff`` (one
    before/after entry per object that changes)."""
    planner = _Planner(desired, state, purge)
    planner.plan_load_balancers()
    planner.plan_routers()
    planner.plan_switches()
    return {"commands": planner.commands, "summary": planner.summary, "diff": planner.diff}


def command_text(command):
    """One planned command as a string, as it would follow ``--`` on an
    ``ovn-nbctl`` command line."""
    return " ".join(shlex_quote(token) for token in command)


# -- the run: shared by the module (run_command) and the action plugin (the connection) -----------


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


def apply_topology(params, run, check_mode=False, diff=False, ovn_nbctl=None, write=None):
    """Validate, read once, plan, write once (not in check mode).

    ``run(argv) -> (rc, stdout, stderr)`` runs a command; ``write``, when
    given, runs the write instead (same signature). Returns the result
    (``changed``, ``commands``, ``summary``, ``diff`` in diff mode); raises
    :class:`ApplyError` before any write when the declaration is invalid or
    the read fails, and when the write fails (then with the planned result).
    """
    if params.get("topology") is not None:
        declared = [key for key in TOPOLOGY_KEYS if params.get(key)]
        if declared:
            raise ApplyError("topology is mutually exclusive with %s: give the declaration one way" % ", ".join(declared))
        try:
            params = dict(params, **load_topology_text(params["topology"]))
        except TopologyError as exc:
            raise ApplyError("invalid OVN topology: %s" % "; ".join(exc.errors), errors=exc.errors)
    try:
        desired = validate(params)
    except TopologyError as exc:
        raise ApplyError("invalid OVN topology: %d error(s): %s" % (len(exc.errors), "; ".join(exc.errors)), errors=exc.errors)

    base = base_args(ovn_nbctl or params.get("ovn_nbctl") or "ovn-nbctl", params.get("nb_db"), params.get("private_key"),
                     params.get("certificate"), params.get("ca_cert"), params.get("timeout"))
    rc, out, err = run(base + read_args())
    if rc != 0:
        raise ApplyError("reading the Northbound database failed: %s" % (err or out).strip(), rc=rc, stdout=out, stderr=err)
    try:
        state = parse_nb(out)
    except ValueError as exc:
        raise ApplyError("cannot parse the output of ovn-nbctl: %s" % exc, stdout=out)

    result = plan(desired, state, params.get("purge", False))
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
