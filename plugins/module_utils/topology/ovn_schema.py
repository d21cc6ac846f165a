# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Validation of the declaration of ``offload.testbed.ovn_topology``.

:func:`validate` checks the switches, routers and load balancers without
touching the database; every error is collected, each naming the object as
the user wrote it and the field (``routers[lr0].nat[1].logical_ip: ...``),
and they are raised together in one :class:`TopologyError`. It returns the
desired model the planner compares with the database. The fields of each
object and their types are checked first, by ``ovn_fields``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json

from ansible.module_utils.six import string_types

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_addr import (
    as_network,
    format_endpoint,
    is_mac,
    nat_key,
    nat_label,
    normalize_endpoint,
    normalize_prefix,
    parse_cidr,
    parse_endpoint,
    parse_ip,
    route_key,
    route_label,
    text,
)
from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_fields import blank, check_names, coerce_item, opt_str, str_map
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import database_name, mac_address, vlan_id

ADDRESS_KEYWORDS = ("unknown", "router", "dynamic")
LB_PROTOCOLS = ("tcp", "udp", "sctp")
NAT_TYPES = ("dnat_and_snat", "snat", "dnat")
ROUTE_POLICIES = ("dst-ip", "src-ip")
TOPOLOGY_KEYS = ("switches", "routers", "load_balancers")

# A switch port field that only one port type has, and the option it sets: (field, option, port type).
TYPE_FIELDS = (("router_port", "router-port", "router"), ("network_name", "network_name", "localnet"))


class TopologyError(Exception):
    """Raised with the list of every validation error found."""

    def __init__(self, errors):
        self.errors = list(errors)
        super(TopologyError, self).__init__("; ".join(self.errors))


def _claim_port(name, where, port_owner, errors):
    if name in port_owner:
        errors.append("%s.name: the port name %s is used twice (also %s)" % (where, name, port_owner[name]))
    else:
        port_owner[name] = where


def _lb_refs(where, names, lb_names, errors):
    out = []
    for name in names or []:
        name = text(name)
        if name not in lb_names:
            errors.append("%s.load_balancers: %s is not a declared load balancer" % (where, name))
        elif name not in out:
            out.append(name)
    return out


# -- switches ----------------------------------------------------------------------------------

def _check_addresses(where, addresses, errors):
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
        elif first != "dynamic":
            problem = mac_address("%s.addresses[%d]" % (where, index), first)
            if problem:
                errors.append(problem)
        for token in rest:
            if token != "dynamic" and parse_ip(token) is None:
                errors.append("%s.addresses[%d]: %r is not an IP address" % (where, index, token))


def _validate_switch_port(sw_name, port, errors):
    where = "switches[%s].ports[%s]" % (sw_name, port["name"])
    ptype = text(port.get("type") or "")
    addresses = port.get("addresses")
    if addresses is None:
        addresses = ["router"] if ptype == "router" else []
    addresses = [text(a).strip() for a in addresses]
    _check_addresses(where, addresses, errors)
    options = str_map(port.get("options"))
    for field, option, needed in TYPE_FIELDS:
        value = opt_str(port.get(field))
        if ptype == needed and not value and option not in options:
            errors.append("%s.%s: a port of type %s needs %s" % (where, field, needed, field))
        elif ptype != needed and value:
            errors.append("%s.%s: only a port of type %s has a %s (type is %r)" % (where, field, needed, field, ptype))
        if value:
            options[option] = value
        problem = database_name("%s.%s" % (where, field), value, "the %s" % field.replace("_", " ")) if value else None
        if problem:
            errors.append(problem)
    tag = port.get("tag")
    problem = None if tag is None else vlan_id("%s.tag" % where, tag)
    if problem:
        errors.append(problem)
    return {"type": ptype, "addresses": sorted(set(addresses)), "options": options, "tag": tag}


def _validate_switch(sw_name, switch, lb_names, router_ports, port_owner, errors):
    ports = {}
    for pname, port in check_names(switch.get("ports"), "switches[%s].ports" % sw_name, errors, "switch_port"):
        _claim_port(pname, "switches[%s].ports[%s]" % (sw_name, pname), port_owner, errors)
        norm = _validate_switch_port(sw_name, port, errors)
        peer = norm["options"].get("router-port")
        if norm["type"] == "router" and peer and peer not in router_ports:
            errors.append("switches[%s].ports[%s].router_port: the router port %s does not exist in any declared router"
                          % (sw_name, pname, peer))
        ports[pname] = norm
    return {"ports": ports, "load_balancers": _lb_refs("switches[%s]" % sw_name, switch.get("load_balancers"), lb_names, errors)}


# -- routers -----------------------------------------------------------------------------------

def _validate_gateway_chassis(where, items, errors):
    gateway_chassis = {}
    for index, gwc in enumerate(items or []):
        gwc = coerce_item(gwc, "gateway_chassis", "%s.gateway_chassis[%d]" % (where, index), errors)
        if gwc is None:
            continue
        chassis = opt_str(gwc.get("chassis"))
        if not chassis:
            errors.append("%s.gateway_chassis[%d].chassis: a chassis name is required" % (where, index))
            continue
        problem = database_name("%s.gateway_chassis[%d].chassis" % (where, index), chassis, "a chassis name (its system-id)")
        if problem:
            errors.append(problem)
        priority = gwc.get("priority")
        priority = 0 if priority is None else priority
        if not 0 <= priority <= 32767:
            errors.append("%s.gateway_chassis[%s].priority: %d is not in 0-32767" % (where, chassis, priority))
        if chassis in gateway_chassis:
            errors.append("%s.gateway_chassis[%s].chassis: %s is listed twice" % (where, chassis, chassis))
        gateway_chassis[chassis] = priority
    return gateway_chassis


def _validate_router_port(lr_name, port, errors):
    """The normalised port and its networks as ``ipaddress`` interfaces."""
    where = "routers[%s].ports[%s]" % (lr_name, port["name"])
    mac = port.get("mac")
    if blank(mac):
        errors.append("%s.mac: a router port needs a MAC address" % where)
        mac = ""
    elif not is_mac(text(mac).strip()):
        errors.append("%s.mac: %r is not a MAC address" % (where, text(mac)))
    else:
        problem = mac_address("%s.mac" % where, text(mac).strip())
        if problem:
            errors.append(problem)
    interfaces = []
    if not port.get("networks"):
        errors.append("%s.networks: a router port needs at least one network (address/prefix length)" % where)
    for index, network in enumerate(port.get("networks") or []):
        iface = parse_cidr(network)
        if iface is None:
            errors.append("%s.networks[%d]: %r is not a CIDR (address/prefix length)" % (where, index, text(network)))
        else:
            interfaces.append(iface)
    norm = {"mac": text(mac).strip().lower(), "networks": sorted(set(text(i) for i in interfaces)),
            "gateway_chassis": _validate_gateway_chassis(where, port.get("gateway_chassis"), errors)}
    return norm, interfaces


def _validate_router_ports(lr_name, router, errors, port_owner):
    """The router's ports and every network of them as (port name, interface)."""
    where = "routers[%s]" % lr_name
    ports = {}
    all_ifaces = []
    for pname, port in check_names(router.get("ports"), where + ".ports", errors, "router_port"):
        _claim_port(pname, "%s.ports[%s]" % (where, pname), port_owner, errors)
        ports[pname], ifaces = _validate_router_port(lr_name, port, errors)
        for iface in ifaces:
            for other_name, other in all_ifaces:
                if other.version == iface.version and other.network.overlaps(iface.network):
                    errors.append("%s.ports[%s].networks: %s overlaps %s of port %s" % (where, pname, iface, other, other_name))
            all_ifaces.append((pname, iface))
    return ports, all_ifaces


def _route_nexthop(rwhere, nexthop, prefix, lr_name, ifaces, errors):
    """The normalised nexthop of a route, or None when it is no IP address."""
    if text(nexthop) == "discard":
        return "discard"
    hop = parse_ip(nexthop)
    if hop is None:
        errors.append("%s.nexthop: %r is not an IP address" % (rwhere, text(nexthop)))
        return None
    if not any(iface.version == hop.version and hop in iface.network for _name, iface in ifaces):
        errors.append("%s.nexthop: %s is in no network of the ports of router %s" % (rwhere, hop, lr_name))
    norm_prefix = normalize_prefix(prefix) if prefix is not None else None
    if norm_prefix is not None and parse_ip(norm_prefix.split("/")[0]).version != hop.version:
        errors.append("%s.nexthop: %s and the prefix %s are of different IP versions" % (rwhere, hop, prefix))
    return text(hop)


def _validate_route(where, index, route, lr_name, ports, ifaces, errors):
    """The key of one static route, or None when it has an error."""
    rwhere = "%s.static_routes[%s]" % (where, route.get("prefix") if isinstance(route, dict) and route.get("prefix") else index)
    route = coerce_item(route, "static_route", rwhere, errors)
    if route is None:
        return None, rwhere
    prefix = route.get("prefix")
    norm_prefix = normalize_prefix(prefix) if prefix is not None else None
    if norm_prefix is None:
        errors.append("%s.prefix: %r is not an IP prefix (address/prefix length)" % (rwhere, prefix))
    policy = text(route.get("policy") or "dst-ip")
    if policy not in ROUTE_POLICIES:
        errors.append("%s.policy: %r is not one of %s" % (rwhere, policy, ", ".join(ROUTE_POLICIES)))
    if blank(route.get("nexthop")):
        errors.append("%s.nexthop: a static route needs a nexthop" % rwhere)
        return None, rwhere
    nexthop = _route_nexthop(rwhere, route.get("nexthop"), prefix, lr_name, ifaces, errors)
    output_port = opt_str(route.get("output_port"))
    if output_port and output_port not in ports:
        errors.append("%s.output_port: %s is not a port of router %s" % (rwhere, output_port, lr_name))
    if norm_prefix is None or nexthop is None:
        return None, rwhere
    return route_key(norm_prefix, nexthop, policy, output_port), rwhere


def _nat_address(nwhere, field, value, network_ok, errors):
    """A NAT rule's address (or, with ``network_ok``, network) as an ``ipaddress`` object, or None."""
    if blank(value):
        errors.append("%s.%s: a NAT rule needs both external_ip and logical_ip" % (nwhere, field))
        return None
    value = text(value)
    if network_ok and "/" in value:
        if normalize_prefix(value) is None:
            errors.append("%s.%s: %r is not an IP address or network" % (nwhere, field, value))
            return None
        return as_network(value)
    addr = parse_ip(value)
    if addr is None:
        errors.append("%s.%s: %r is not an IP address" % (nwhere, field, value))
    return addr


def _validate_nat(nwhere, nat, reach, errors):
    """(key, distributed columns) of one NAT rule, or None when it has an error."""
    nat = coerce_item(nat, "nat", nwhere, errors)
    if nat is None:
        return None
    ntype = text(nat.get("type") or "")
    if ntype not in NAT_TYPES:
        errors.append("%s.type: %r is not one of %s" % (nwhere, ntype, ", ".join(NAT_TYPES)))
    ext = _nat_address(nwhere, "external_ip", nat.get("external_ip"), False, errors)
    log = _nat_address(nwhere, "logical_ip", nat.get("logical_ip"), ntype == "snat", errors)
    if ext is not None and log is not None and ext.version != log.version:
        errors.append("%s.logical_ip: %s and the external_ip %s are of different IP versions"
                      % (nwhere, text(nat["logical_ip"]), text(nat["external_ip"])))
        log = None
    logical_port = opt_str(nat.get("logical_port"))
    problem = database_name("%s.logical_port" % nwhere, logical_port, "a logical port name") if logical_port is not None else None
    if problem:
        errors.append(problem)
    external_mac = opt_str(nat.get("external_mac"))
    if external_mac is not None and not is_mac(external_mac):
        errors.append("%s.external_mac: %r is not a MAC address" % (nwhere, external_mac))
    if (external_mac is None) != (logical_port is None):
        errors.append("%s.external_mac: external_mac and logical_port go together" % nwhere)
    if external_mac is not None and ntype != "dnat_and_snat":
        errors.append("%s.external_mac: only a dnat_and_snat rule has external_mac and logical_port" % nwhere)
    if ext is not None and ntype in NAT_TYPES:
        problem = reach.external_problem(nwhere, ntype, ext)
        if problem:
            errors.append(problem)
    if ext is None or log is None or ntype not in NAT_TYPES:
        return None
    problem = reach.problem(nwhere, text(nat["logical_ip"]).strip(), log)
    if problem:
        errors.append(problem)
    key = nat_key(ntype, nat["external_ip"], nat["logical_ip"])
    return key, {"logical_port": logical_port, "external_mac": external_mac.lower() if external_mac else None}


class _Reach(object):
    """Where a router can deliver packets: the networks of its ports and the
    prefixes of its static routes. A ``dst-ip`` route reaches the prefix it
    names (unless it discards); a ``src-ip`` route matches on the source, so
    it may carry packets anywhere."""

    def __init__(self, lr_name, ifaces, routes, ports=None):
        self.lr_name = lr_name
        self.ifaces = list(ifaces)
        self.gateway_ports = set(name for name, port in (ports or {}).items() if port.get("gateway_chassis"))
        self.networks = [(name, iface.network) for name, iface in ifaces]
        self.prefixes = [prefix for policy, prefix, nexthop, _port in routes if policy == "dst-ip" and nexthop != "discard"]
        self.anywhere = any(policy == "src-ip" for policy, _prefix, _nexthop, _port in routes)
        self.nets = [net for _name, net in self.networks] + [as_network(prefix) for prefix in self.prefixes]

    def reaches(self, target):
        """Whether an address (or some address of a network) is reached."""
        if self.anywhere:
            return True
        if isinstance(target, (ipaddress.IPv4Network, ipaddress.IPv6Network)):
            return any(net.version == target.version and net.overlaps(target) for net in self.nets)
        return any(net.version == target.version and target in net for net in self.nets)

    def external_problem(self, nwhere, ntype, ext):
        """Why a NAT rule's external address could never work, or None.

        An external address outside every network of the router stays
        accepted: it is routed to the gateway from outside (the reference
        bench's 18.0.0.188). One that is an address of a router port is the
        router's own (except the gateway port's address as the source of an
        snat rule, the usual "masquerade"), and one inside the network of an
        internal port (a port without gateway_chassis, on a router that has a
        gateway port) would be answered on the inside, never on the gateway."""
        for name, iface in self.ifaces:
            if iface.version == ext.version and iface.ip == ext:
                if ntype == "snat" and name in self.gateway_ports:
                    return None
                return ("%s.external_ip: %s is the address of port %s of router %s; the router answers for it itself, "
                        "so the NAT rule could never receive a packet; use a free address of the gateway port's network "
                        "or one routed to the gateway from outside" % (nwhere, ext, name, self.lr_name))
        if not self.gateway_ports:
            return None
        for name, iface in self.ifaces:
            if name not in self.gateway_ports and iface.version == ext.version and ext in iface.network:
                gateways = ", ".join("%s %s" % (gw, gw_iface.network) for gw, gw_iface in self.ifaces
                                     if gw in self.gateway_ports) or "none"
                return ("%s.external_ip: %s is inside %s, the network of internal port %s of router %s, so the NAT "
                        "rule could never be reached through the gateway port; use an address of the gateway port's "
                        "network (%s) or one routed to the gateway from outside"
                        % (nwhere, ext, iface.network, name, self.lr_name, gateways))
        return None

    def problem(self, nwhere, logical, target):
        """Why the router could never deliver packets to a NAT rule's logical address, or None."""
        if self.reaches(target):
            return None
        host = not isinstance(target, (ipaddress.IPv4Network, ipaddress.IPv6Network)) or target.num_addresses == 1
        networks = ", ".join("%s %s" % (name, net) for name, net in self.networks) or "it has none"
        return ("%s.logical_ip: %s %s no network of router %s (%s) and %s its static routes (%s), so the router could never "
                "deliver the translated packets; use an address in one of those networks or add a static route toward %s"
                % (nwhere, logical, "is in" if host else "overlaps", self.lr_name, networks, "under none of" if host else "none of",
                   ", ".join(self.prefixes) or "it has none", logical))


def _validate_router(lr_name, router, lb_names, errors, port_owner):
    where = "routers[%s]" % lr_name
    ports, ifaces = _validate_router_ports(lr_name, router, errors, port_owner)
    routes = {}
    for index, route in enumerate(router.get("static_routes") or []):
        key, rwhere = _validate_route(where, index, route, lr_name, ports, ifaces, errors)
        if key in routes:
            errors.append("%s: the route %s is declared twice" % (rwhere, route_label(key)))
        if key is not None:
            routes[key] = True
    nats = {}
    reach = _Reach(lr_name, ifaces, routes, ports)
    for index, nat in enumerate(router.get("nat") or []):
        nwhere = "%s.nat[%d]" % (where, index)
        checked = _validate_nat(nwhere, nat, reach, errors)
        if checked is None:
            continue
        key, columns = checked
        if key in nats:
            errors.append("%s: the NAT rule %s is declared twice" % (nwhere, nat_label(key)))
        nats[key] = columns
    lbs = _lb_refs(where, router.get("load_balancers"), lb_names, errors)
    return {"ports": ports, "static_routes": routes, "nat": nats, "load_balancers": lbs}


# -- load balancers ----------------------------------------------------------------------------

def _backend_problems(where, field, index, backend, parsed, vip_text, vip):
    problems = []
    if parsed[0].version != vip[0].version:
        problems.append("%s.%s[%d]: %s is IPv%d but the vip %s is IPv%d"
                        % (where, field, index, text(backend).strip(), parsed[0].version, text(vip_text), vip[0].version))
    if (parsed[1] is None) != (vip[1] is None):
        problems.append("%s.%s[%d]: %s must %s a port, like the vip %s"
                        % (where, field, index, text(backend).strip(), "have" if vip[1] is not None else "not have", text(vip_text)))
    return problems


def _validate_vip(where, vip_text, backends, vip_field, backends_field, errors):
    """Check one VIP and its backends; return (vip, backends) normalised or None."""
    vip = None
    if blank(vip_text):
        errors.append("%s.%s: a load balancer needs a VIP (address or address:port)" % (where, vip_field))
    else:
        vip = parse_endpoint(vip_text)
        if vip is None:
            errors.append("%s.%s: %r is not an IP address or IP:port" % (where, vip_field, text(vip_text)))
    if isinstance(backends, string_types):
        backends = backends.split(",")
    backends = [b for b in (backends or []) if not blank(b)]
    if not backends:
        errors.append("%s.%s: a load balancer needs at least one backend" % (where, backends_field))
    normalized = []
    for index, backend in enumerate(backends):
        parsed = parse_endpoint(backend)
        if parsed is None:
            errors.append("%s.%s[%d]: %r is not an IP address or IP:port" % (where, backends_field, index, text(backend)))
            continue
        if vip is not None:
            errors.extend(_backend_problems(where, backends_field, index, backend, parsed, vip_text, vip))
        normalized.append(normalize_endpoint(backend))
    if vip is None:
        return None
    return format_endpoint(*vip), ",".join(normalized)


def _validate_lb(lb, errors):
    where = "load_balancers[%s]" % lb["name"]
    protocol = text(lb.get("protocol") or "tcp")
    if protocol not in LB_PROTOCOLS:
        errors.append("%s.protocol: %r is not one of %s" % (where, protocol, ", ".join(LB_PROTOCOLS)))
    if lb.get("vips") is None:
        checked = _validate_vip(where, lb.get("vip"), lb.get("backends"), "vip", "backends", errors)
        return {"vips": dict([checked]) if checked else {}, "protocol": protocol}
    if lb.get("vip") is not None or lb.get("backends") is not None:
        errors.append("%s.vips: give either vip and backends, or vips, not both" % where)
    if not lb["vips"]:
        errors.append("%s.vips: a load balancer needs at least one VIP" % where)
    vips = {}
    for vip_text, backends in lb["vips"].items():
        if backends is not None and not isinstance(backends, (list, tuple) + string_types):
            errors.append("%s.vips[%s]: %r is not a list of backends" % (where, vip_text, backends))
            continue
        checked = _validate_vip(where, vip_text, backends, "vips", "vips[%s]" % vip_text, errors)
        if checked is not None:
            if checked[0] in vips:
                errors.append("%s.vips[%s]: the VIP is declared twice" % (where, vip_text))
            vips[checked[0]] = checked[1]
    return {"vips": vips, "protocol": protocol}


# -- the whole declaration ---------------------------------------------------------------------

def load_topology_text(topology):
    """The ``topology`` option: JSON text of a mapping with (some of) the keys
    switches, routers and load_balancers, each a list. Returns that mapping
    with every key present; raises :class:`TopologyError` naming ``topology``."""
    try:
        data = json.loads(topology)
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
    lbs = dict((name, _validate_lb(lb, errors))
               for name, lb in check_names(params.get("load_balancers"), "load_balancers", errors, "load_balancer"))
    port_owner = {}
    routers = dict((name, _validate_router(name, router, set(lbs), errors, port_owner))
                   for name, router in check_names(params.get("routers"), "routers", errors, "router"))
    router_ports = set(pname for router in routers.values() for pname in router["ports"])
    switches = dict((name, _validate_switch(name, switch, set(lbs), router_ports, port_owner, errors))
                    for name, switch in check_names(params.get("switches"), "switches", errors, "switch"))
    if errors:
        raise TopologyError(errors)
    return {"switches": switches, "routers": routers, "load_balancers": lbs}
