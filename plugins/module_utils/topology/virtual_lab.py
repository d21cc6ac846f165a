# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the virtual lab: validation of a lab definition, and the
plan of commands that turns the current state (read with the parsers of
``ip.py``, ``ethtool.py`` and ``ovsdb.py``) into the declared one.

A lab definition is a dict::

    {"bridge": "underlay", "datapath_type": "netdev", "fail_mode": "standalone",
     "mtu": 1500, "offloads_off": ["tx", "tso", "gso"],
     "networks": [{"name": "external", "cidr": "10.20.0.0/24", "vlan": 20,
                   "bridge": None}],
     "namespaces": [{"name": "ltb-gen", "links": [
         {"name": "gen0", "peer": "ltb-gen0", "network": "external",
          "address": "10.20.0.3/24", "gateway": None, "mac": None,
          "iface_id": None}], "routes": [{"to": "16.0.0.0/8", "via": "..."}]}],
     "internal_ports": [{"name": "mgt", "network": "control",
                         "address": "10.10.0.3/24"}]}

Nothing here runs a command; plans are lists of argv lists.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import json

from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import OFFLOAD_FEATURES
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import switch_model
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import (
    OVS_BRIDGE, VLAN_MAX, VLAN_MIN, Names, database_name, interface_name, ip_value, mac_address, netns_name, show, vlan_id)

MARK_KEY = "offload-testbed"
MARK_VALUE = "virtual_lab"
# What the names of the lab's interfaces, bridges and namespaces name, for the one rule for names (validate.py).
LINK = "an interface in a namespace (one end of a veth pair)"
PEER = "the host end of a veth pair, an Open vSwitch port too"
INTERNAL = "an Open vSwitch internal port, a kernel interface too"


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

class _Check(object):
    """What one validation run carries: the errors so far, the declared
    networks (name -> subnet, ``None`` when malformed) and the names and
    addresses already taken, each with the variable that took it; ``name``
    (a :class:`validate.Names`) names the user's variables."""

    def __init__(self, name):
        self.name = name
        self.errors = []
        self.nets = {}
        self.seen_ns = set()
        self.seen_if = {}
        self.seen_addr = {}

    def add(self, message):
        """Keep a message (the rules of validate.py return None for a good value)."""
        if message:
            self.errors.append(message)


def _check_lab(c, lab):
    """The settings of the whole lab: bridge, MTU, offloads."""
    c.add(interface_name(c.name("bridge"), lab.get("bridge"), OVS_BRIDGE))
    mtu = lab.get("mtu")
    if mtu is not None and not 68 <= int(mtu) <= 9216:
        c.add("%s: %s is outside 68..9216; use a frame size the veth and the datapath accept, such as 1500" % (c.name("mtu"), mtu))
    for feature in lab.get("offloads_off") or []:
        if feature not in OFFLOAD_FEATURES:
            c.add("%s: %r is not one of %s" % (c.name("offloads_off"), feature, ", ".join(sorted(OFFLOAD_FEATURES))))
    if lab.get("port_type") == "dpdk" and lab.get("datapath_type", "netdev") != "netdev":
        c.add("%s: dpdk needs the userspace datapath, and %s is %r; set %s: netdev"
              % (c.name("port_type"), c.name("datapath_type"), lab.get("datapath_type"), c.name("datapath_type")))


def _check_networks(c, lab):
    """Each network's name, subnet, VLAN and bridge; then no two subnets overlap."""
    for i, net in enumerate(lab.get("networks") or []):
        where = c.name("networks", i)
        name = net.get("name")
        if not name:
            c.add("%s.name: every network needs a name" % where)
            continue
        if name in c.nets:
            c.add("%s.name: network %r is declared twice; give each network its own name" % (where, name))
        cidr = ip_value(ipaddress.ip_network, net.get("cidr"))
        if cidr is None:
            c.add("%s.cidr: %r (network %s) is not a valid CIDR; write the network address and prefix length, "
                  "such as 10.20.0.0/24" % (where, net.get("cidr"), name))
        vlan = net.get("vlan")
        # The shared VLAN rule decides; the message keeps naming the network.
        if vlan is not None and vlan_id("%s.vlan" % where, vlan):
            c.add("%s.vlan: %s (network %s) is outside %d..%d; VLAN 0 and 4095 are reserved, "
                  "leave vlan unset for an untagged network" % (where, show(vlan), name, VLAN_MIN, VLAN_MAX))
        if net.get("bridge") is not None:
            c.add(interface_name("%s.bridge" % where, net["bridge"], OVS_BRIDGE))
        if net.get("mtu") is not None and not 68 <= int(net["mtu"]) <= 9216:
            c.add("%s.mtu: %s (network %s) is outside 68..9216; leave it unset for the lab's mtu" % (where, net["mtu"], name))
        c.nets[name] = cidr
    cidrs = [(n, cidr) for n, cidr in c.nets.items() if cidr is not None]
    for a in range(len(cidrs)):
        for b in range(a + 1, len(cidrs)):
            if cidrs[a][1].version == cidrs[b][1].version and cidrs[a][1].overlaps(cidrs[b][1]):
                c.add("%s: %s (%s) overlaps %s (%s); give each network its own subnet"
                      % (c.name("networks"), cidrs[a][0], cidrs[a][1], cidrs[b][0], cidrs[b][1]))


def _check_address(c, where, addr, iface, cidr, netname):
    """An endpoint's address (``addr`` as written, ``iface`` parsed): inside
    its network's subnet, a host address, not taken."""
    if cidr is not None:
        if iface.ip not in cidr or iface.network.prefixlen != cidr.prefixlen:
            c.add("%s.address: %s is outside its subnet %s (network %s); pick an address in %s with prefix /%d"
                  % (where, addr, cidr, netname, cidr, cidr.prefixlen))
        elif iface.ip in (cidr.network_address, cidr.broadcast_address) and cidr.prefixlen < 31:
            c.add("%s.address: %s is the network or broadcast address of %s; pick a host address" % (where, addr, cidr))
    if str(iface.ip) in c.seen_addr:
        c.add("%s.address: %s is already used by %s; addresses must be unique" % (where, iface.ip, c.seen_addr[str(iface.ip)]))
    c.seen_addr[str(iface.ip)] = where


def _check_endpoint(c, where, item, what):
    """A namespace link or an internal port: name (``what`` it names), network, address, gateway, MAC.

    The address, gateway and MAC are checked only once the network is known
    and the address (when given) is one.
    """
    c.add(interface_name("%s.name" % where, item.get("name"), what))
    if item.get("iface_id") is not None:
        c.add(database_name("%s.iface_id" % where, item["iface_id"], "an OVN logical port name (external_ids:iface-id)"))
    netname = item.get("network")
    if netname not in c.nets:
        c.add("%s.network: %r is not declared in %s; declare it or fix the name" % (where, netname, c.name("networks")))
        return
    cidr = c.nets[netname]
    addr = item.get("address")
    if addr is None:
        return
    iface = ip_value(ipaddress.ip_interface, addr)
    if iface is None:
        c.add("%s.address: %r is not an address with a prefix length, such as 10.20.0.3/24" % (where, addr))
        return
    _check_address(c, where, addr, iface, cidr, netname)
    gateway = item.get("gateway")
    if gateway is not None:
        gw = ip_value(ipaddress.ip_address, gateway)
        if gw is None:
            c.add("%s.gateway: %r is not an IP address" % (where, gateway))
        elif cidr is not None and gw not in cidr:
            c.add("%s.gateway: %s is outside the subnet %s of network %s; a gateway must be on the link"
                  % (where, gateway, cidr, netname))
    mac = item.get("mac")
    if mac is not None:
        error = mac_address("%s.mac" % where, mac)
        if error:
            c.add(error)


def _check_links(c, where, ns):
    """A namespace's veth links: each a valid endpoint, named once in the
    namespace, with a host end no other link or port uses."""
    local_names = set()
    for j, link in enumerate(ns.get("links") or []):
        lwhere = "%s.links[%d]" % (where, j)
        _check_endpoint(c, lwhere, link, LINK)
        if link.get("name") in local_names:
            c.add("%s.name: interface %r is declared twice in namespace %s" % (lwhere, link.get("name"), ns.get("name")))
        local_names.add(link.get("name"))
        peer = link.get("peer")
        if interface_name("%s.peer" % lwhere, peer, PEER):
            c.add(interface_name("%s.peer" % lwhere, peer, PEER))
        elif peer in c.seen_if:
            c.add("%s.peer: host interface %r is already used by %s" % (lwhere, peer, c.seen_if[peer]))
        else:
            c.seen_if[peer] = lwhere


def _check_namespace(c, where, ns):
    """One namespace: its name, links, loopback addresses and routes."""
    name = ns.get("name")
    if netns_name("%s.name" % where, name):
        c.add(netns_name("%s.name" % where, name))
    elif name in c.seen_ns:
        c.add("%s.name: namespace %r is declared twice; each namespace needs its own name" % (where, name))
    c.seen_ns.add(name)
    _check_links(c, where, ns)
    for j, addr in enumerate(ns.get("loopback") or []):
        iface = ip_value(ipaddress.ip_interface, addr)
        if iface is None:
            c.add("%s.loopback[%d]: %r is not an address with a prefix length, such as 16.0.0.188/32" % (where, j, addr))
        elif str(iface.ip) in c.seen_addr:
            c.add("%s.loopback[%d]: %s is already used by %s; addresses must be unique" % (where, j, iface.ip, c.seen_addr[str(iface.ip)]))
        else:
            c.seen_addr[str(iface.ip)] = "%s.loopback[%d]" % (where, j)
    subnets, complete = _link_subnets(c, ns)
    for j, route in enumerate(ns.get("routes") or []):
        rwhere = "%s.routes[%d]" % (where, j)
        if ip_value(ipaddress.ip_network, route.get("to")) is None:
            c.add("%s.to: %r is not a valid CIDR such as 16.0.0.0/8" % (rwhere, route.get("to")))
        via = ip_value(ipaddress.ip_address, route.get("via"))
        if via is None:
            c.add("%s.via: %r is not an IP address" % (rwhere, route.get("via")))
        elif complete:
            _check_via(c, rwhere, ns, via, subnets)


def _link_subnets(c, ns):
    """The (link name, address as an interface) of a namespace's links, and
    whether every address given is sound (else the via check would only
    repeat the address's own error)."""
    subnets = []
    complete = True
    for link in ns.get("links") or []:
        if link.get("address") is None:
            continue
        iface = ip_value(ipaddress.ip_interface, link["address"])
        cidr = c.nets.get(link.get("network"))
        if iface is None or (cidr is not None and (iface.ip not in cidr or iface.network.prefixlen != cidr.prefixlen)):
            complete = False
        else:
            subnets.append((link.get("name"), iface))
    return subnets, complete


def _check_via(c, rwhere, ns, via, subnets):
    """A route's gateway: on the subnet of one of the namespace's links, and
    not the namespace's own address (the kernel refuses both: "Nexthop has
    invalid gateway")."""
    for name, iface in subnets:
        if iface.version == via.version and via == iface.ip:
            c.add("%s.via: %s is the address of link %s of namespace %s itself; route via another host on that link"
                  % (rwhere, via, name, ns.get("name")))
            return
    if any(iface.version == via.version and via in iface.network for _name, iface in subnets):
        return
    links = ", ".join("%s %s" % (name, iface.network) for name, iface in subnets) or "it has no link with an address"
    c.add("%s.via: %s is on none of the links of namespace %s (%s); a route's gateway must be on a link, "
          "so use an address in one of those subnets" % (rwhere, via, ns.get("name"), links))


def validate(lab, prefix=""):
    """Return a list of error messages; empty when the lab is sound.

    ``prefix`` is put before variable names, so the role reports
    ``virtual_lab_networks[1].vlan`` and the module ``networks[1].vlan``.
    Every message names the variable and says how to fix it. VLAN ids and
    MAC addresses follow the shared rules of ``validate.py``.
    """
    c = _Check(Names(prefix=prefix))
    _check_lab(c, lab)
    _check_networks(c, lab)
    for i, ns in enumerate(lab.get("namespaces") or []):
        _check_namespace(c, c.name("namespaces", i), ns)
    for i, port in enumerate(lab.get("internal_ports") or []):
        where = c.name("internal_ports", i)
        _check_endpoint(c, where, port, INTERNAL)
        if port.get("name") in c.seen_if:
            c.add("%s.name: host interface %r is already used by %s" % (where, port.get("name"), c.seen_if[port.get("name")]))
        c.seen_if[port.get("name")] = where
    return c.errors


# --------------------------------------------------------------------------
# Reading state
# --------------------------------------------------------------------------

def parse_ovs_state(bridges_json, ports_json, interfaces_json):
    """Three ``ovs-vsctl --format=json list`` outputs -> the switch model of
    :func:`ovsdb.switch_model` (bridges, ports, interfaces).

    The other outputs the lab reads are parsed by ``ip.py`` (``ip netns
    list``, ``ip -j addr``, ``ip -j route``) and ``ethtool.py``
    (``ethtool -k``).
    """
    return switch_model(bridges_json, ports_json, interfaces_json)


# --------------------------------------------------------------------------
# Planning
# --------------------------------------------------------------------------

def _net_index(lab):
    return dict((n["name"], n) for n in lab.get("networks") or [])


def bridges_of(lab):
    """The bridges the lab uses, the lab bridge first."""
    result = [lab["bridge"]]
    for net in lab.get("networks") or []:
        if net.get("bridge") and net["bridge"] not in result:
            result.append(net["bridge"])
    return result


def _port_place(lab, item):
    net = _net_index(lab)[item["network"]]
    return net.get("bridge") or lab["bridge"], net.get("vlan")


def _ethtool_off(features, current, ns=None, dev=None):
    """ethtool command turning off the features that are on (None: nothing)."""
    on = [f for f in features if current is None or current.get(OFFLOAD_FEATURES[f], True)]
    if not on:
        return None
    cmd = ["ethtool", "-K", dev]
    for feature in on:
        cmd.extend([feature, "off"])
    if ns:
        return ["ip", "netns", "exec", ns] + cmd
    return cmd


def _ip_argv(ns):
    return ["ip", "-n", ns] if ns else ["ip"]


def _mtu_of(lab, item):
    """The MTU of a network's interfaces: the network's own (a tunnel's underlay), else the lab's."""
    net = _net_index(lab).get(item.get("network")) or {}
    return net.get("mtu") or lab.get("mtu")


def _converge_link(lab, ns, dev, item, cur, feats, cmds):
    """Commands that bring one existing or new interface to its declared state.

    ``cur`` is the interface as read (None when it will be created).
    """
    ip = _ip_argv(ns)
    mtu = _mtu_of(lab, item)
    if item.get("mac") and (cur is None or cur["mac"] != item["mac"].lower()):
        cmds.append(ip + ["link", "set", "dev", dev, "address", item["mac"].lower()])
    if mtu and (cur is None or cur["mtu"] != mtu):
        cmds.append(ip + ["link", "set", "dev", dev, "mtu", str(mtu)])
    if cur is None or not cur["up"]:
        cmds.append(ip + ["link", "set", "dev", dev, "up"])
    off = _ethtool_off(lab.get("offloads_off") or [], feats, ns, dev)
    if off:
        cmds.append(off)
    if item.get("address"):
        want = str(ipaddress.ip_interface(item["address"]))
        have = cur["addresses"] if cur else set()
        for addr in sorted(have - set([want])):
            cmds.append(ip + ["addr", "del", addr, "dev", dev])
        if want not in have:
            cmds.append(ip + ["addr", "add", want, "dev", dev])


def _plan_bridges(lab, ovs, ovs_cmds):
    """Create the lab's bridges, or set the datapath and fail mode that differ."""
    for br in bridges_of(lab):
        cur = ovs["bridges"].get(br)
        settings = ["datapath_type=%s" % lab["datapath_type"]]
        if br == lab["bridge"] and lab.get("fail_mode"):
            settings.append("fail_mode=%s" % lab["fail_mode"])
        if cur is None:
            ovs_cmds.append(["add-br", br])
            ovs_cmds.append(["set", "Bridge", br] + settings + ["external_ids:%s=%s" % (MARK_KEY, MARK_VALUE)])
            continue
        wrong = []
        if cur["datapath_type"] != lab["datapath_type"]:
            wrong.append(settings[0])
        if br == lab["bridge"] and lab.get("fail_mode") and cur["fail_mode"] != lab["fail_mode"]:
            wrong.append("fail_mode=%s" % lab["fail_mode"])
        if wrong:
            ovs_cmds.append(["set", "Bridge", br] + wrong)


def dpdk_devargs(lab):
    """The ``dpdk-devargs`` of each wire's outer end on the dpdk port type: DPDK's AF_PACKET poll mode driver
    on the veth (``net_af_packet<N>,iface=<veth>``), N its place among the lab's wires so that it never changes."""
    peers = [link["peer"] for ns in lab.get("namespaces") or [] for link in ns.get("links") or []]
    return dict((peer, "net_af_packet%d,iface=%s" % (i, peer)) for i, peer in enumerate(peers))


def _plan_ovs_port(lab, ovs, ovs_cmds, name, item, iface_type=None, options=None):
    """Put port ``name`` on its network's bridge with its VLAN tag, the lab's
    mark, its ``iface-id``, its interface type (internal ports, and the wires'
    ends on the dpdk port type) and its ``options``."""
    bridge, vlan = _port_place(lab, item)
    cur = ovs["ports"].get(name)
    iface = ovs["interfaces"].get(name, {})
    if cur is not None and cur["bridge"] != bridge:
        ovs_cmds.append(["del-port", cur["bridge"], name])
        cur = None
    if cur is None:
        cmd = ["add-port", bridge, name]
        if vlan:
            cmd.append("tag=%d" % int(vlan))
        ovs_cmds.append(cmd)
        iface = {}
    elif cur["tag"] != (int(vlan) if vlan else None):
        ovs_cmds.append(["set", "Port", name, "tag=%d" % int(vlan)] if vlan else ["remove", "Port", name, "tag", str(cur["tag"])])
    want_ids = {MARK_KEY: MARK_VALUE}
    if item.get("iface_id"):
        want_ids["iface-id"] = item["iface_id"]
    have_ids = iface.get("external_ids", {})
    sets = ["external_ids:%s=%s" % (k, json.dumps(v)) for k, v in sorted(want_ids.items()) if have_ids.get(k) != v]
    have_options = iface.get("options", {})
    sets += ["options:%s=%s" % (k, json.dumps(v)) for k, v in sorted((options or {}).items()) if have_options.get(k) != v]
    if (iface_type or "") != iface.get("type", "") and (iface_type or cur is not None):
        sets.insert(0, "type=%s" % (iface_type or '""'))
    if sets:
        ovs_cmds.append(["set", "Interface", name] + sets)
    if not options and "dpdk-devargs" in have_options:
        ovs_cmds.append(["remove", "Interface", name, "options", "dpdk-devargs"])


def _plan_veth(lab, state, ns, link, links, pre):
    """(Re)create one veth wire when either end is missing, then converge both ends."""
    name, peer, dev = ns["name"], link["peer"], link["name"]
    features = state.get("features", {})
    inside = links.get(dev)
    outside = state["root_links"].get(peer)
    if outside is None or inside is None:
        if inside is not None:
            pre.append(["ip", "-n", name, "link", "del", "dev", dev])
        if outside is not None:
            pre.append(["ip", "link", "del", "dev", peer])
        pre.append(["ip", "link", "add", peer, "type", "veth", "peer", "name", dev, "netns", name])
        inside = outside = None
    _converge_link(lab, None, peer, {"network": link.get("network")}, outside, features.get(("", peer)) if outside else None, pre)
    _converge_link(lab, name, dev, link, inside, features.get((name, dev)) if inside else None, pre)


def _plan_namespace(lab, state, ns, pre, ovs_cmds):
    """One namespace: create it, its loopback, its veth wires and ports, its routes."""
    name = ns["name"]
    exists = name in state["netns"]
    links = state["ns_links"].get(name, {}) if exists else {}
    if not exists:
        pre.append(["ip", "netns", "add", name])
    lo = links.get("lo")
    if lo is None or not lo["up"]:
        pre.append(["ip", "-n", name, "link", "set", "dev", "lo", "up"])
    for addr in ns.get("loopback") or []:
        want = str(ipaddress.ip_interface(addr))
        if lo is None or want not in lo["addresses"]:
            pre.append(["ip", "-n", name, "addr", "add", want, "dev", "lo"])
    devargs = dpdk_devargs(lab) if lab.get("port_type") == "dpdk" else {}
    for link in ns.get("links") or []:
        _plan_veth(lab, state, ns, link, links, pre)
        dpdk = {"dpdk-devargs": devargs[link["peer"]]} if devargs else None
        _plan_ovs_port(lab, state["ovs"], ovs_cmds, link["peer"], link, "dpdk" if dpdk else None, dpdk)
    routes = state["ns_routes"].get(name, {}) if exists else {}
    gateways = [link["gateway"] for link in ns.get("links") or [] if link.get("gateway")]
    if gateways and routes.get("default") != gateways[0]:
        pre.append(["ip", "-n", name, "route", "replace", "default", "via", gateways[0]])
    for route in ns.get("routes") or []:
        dst = str(ipaddress.ip_network(route["to"]))
        if routes.get(dst) != route["via"]:
            pre.append(["ip", "-n", name, "route", "replace", dst, "via", route["via"]])


def plan_present(lab, state):
    """Plan for ``state: present``.

    ``state`` is ``{"netns": set, "root_links": {ifname: link}, "ns_links":
    {ns: {ifname: link}}, "ns_routes": {ns: {dst: gw}}, "features": {(ns or
    "", dev): {feature: on}}, "ovs": parse_ovs_state(...)}``.

    Returns ``(pre, ovs, post)``: ``ip``/``ethtool`` commands to run first,
    ovs-vsctl sub-commands for ONE transaction, then commands for the
    internal ports the transaction creates.
    """
    pre, ovs_cmds, post = [], [], []
    features = state.get("features", {})
    _plan_bridges(lab, state["ovs"], ovs_cmds)
    for ns in lab.get("namespaces") or []:
        _plan_namespace(lab, state, ns, pre, ovs_cmds)
    for port in lab.get("internal_ports") or []:
        _plan_ovs_port(lab, state["ovs"], ovs_cmds, port["name"], port, "internal")
        cur = state["root_links"].get(port["name"])
        _converge_link(lab, None, port["name"], port, cur, features.get(("", port["name"])) if cur else None, post)
    return pre, ovs_cmds, post


def plan_absent(lab, state):
    """Plan for ``state: absent``: remove what the lab declares, nothing else.

    Bridges are removed only when they carry the lab's mark (the lab created
    them) and no port that the lab does not own is left on them.
    """
    pre, ovs_cmds = [], []
    ovs = state["ovs"]
    owned = set()
    for ns in lab.get("namespaces") or []:
        for link in ns.get("links") or []:
            owned.add(link["peer"])
            if link["peer"] in state["root_links"]:
                pre.append(["ip", "link", "del", "dev", link["peer"]])
        if ns["name"] in state["netns"]:
            pre.append(["ip", "netns", "del", ns["name"]])
    for port in lab.get("internal_ports") or []:
        owned.add(port["name"])
    for name in sorted(owned):
        if name in ovs["ports"]:
            ovs_cmds.append(["--if-exists", "del-port", name])
    for br in bridges_of(lab):
        cur = ovs["bridges"].get(br)
        if cur is None or cur["external_ids"].get(MARK_KEY) != MARK_VALUE:
            continue
        if cur["ports"] - owned - set([br]):
            continue
        ovs_cmds.append(["--if-exists", "del-br", br])
    return pre, ovs_cmds, []


def ovs_transaction(sub_commands, timeout=30):
    """Join ovs-vsctl sub-commands into ONE ``ovs-vsctl`` invocation."""
    if not sub_commands:
        return None
    cmd = ["ovs-vsctl", "--timeout=%d" % timeout]
    for sub in sub_commands:
        cmd.append("--")
        cmd.extend(sub)
    return cmd


def summary(lab, state):
    """What the lab looks like, for the module's return value and diff."""
    out = {"namespaces": {}, "internal_ports": {}}
    for ns in lab.get("namespaces") or []:
        links = state["ns_links"].get(ns["name"], {})
        out["namespaces"][ns["name"]] = dict(
            (link["name"], sorted(links[link["name"]]["addresses"]) if link["name"] in links else None)
            for link in ns.get("links") or [])
        if ns["name"] not in state["netns"]:
            out["namespaces"][ns["name"]] = None
    for port in lab.get("internal_ports") or []:
        cur = state["root_links"].get(port["name"])
        out["internal_ports"][port["name"]] = sorted(cur["addresses"]) if cur else None
    return out
