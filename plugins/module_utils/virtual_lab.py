# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the virtual lab: validation of a lab definition, the state
read from ``ip -j`` / ``ethtool -k`` / ``ovs-vsctl --format=json``, and the
plan of commands that turns the current state into the declared one.

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
import re

from ansible_collections.offload.testbed.plugins.module_utils.ovsdb import switch_model

MARK_KEY = "offload-testbed"
MARK_VALUE = "virtual_lab"
IFNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")
NETNS_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAC_RE = re.compile(r"^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$")
# ethtool -K feature name -> the line ethtool -k prints for it.
OFFLOAD_FEATURES = {
    "tx": "tx-checksumming",
    "rx": "rx-checksumming",
    "tso": "tcp-segmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "sg": "scatter-gather",
}


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------

def _network(cidr):
    try:
        return ipaddress.ip_network(str(cidr), strict=True)
    except ValueError:
        return None


def _interface(addr):
    try:
        return ipaddress.ip_interface(str(addr))
    except ValueError:
        return None


def validate(lab, prefix=""):
    """Return a list of error messages; empty when the lab is sound.

    ``prefix`` is put before variable names, so the role reports
    ``virtual_lab_networks[1].vlan`` and the module ``networks[1].vlan``.
    Every message names the variable and says how to fix it.
    """
    errors = []
    nets = {}
    p = prefix
    if not IFNAME_RE.match(str(lab.get("bridge") or "")):
        errors.append("%sbridge: %r is not a valid bridge name (1-15 characters of letters, digits, '_', '.', '-')" % (p, lab.get("bridge")))
    mtu = lab.get("mtu")
    if mtu is not None and not 68 <= int(mtu) <= 9216:
        errors.append("%smtu: %s is outside 68..9216; use a frame size the veth and the datapath accept, such as 1500" % (p, mtu))
    for feature in lab.get("offloads_off") or []:
        if feature not in OFFLOAD_FEATURES:
            errors.append("%soffloads_off: %r is not one of %s" % (p, feature, ", ".join(sorted(OFFLOAD_FEATURES))))

    for i, net in enumerate(lab.get("networks") or []):
        where = "%snetworks[%d]" % (p, i)
        name = net.get("name")
        if not name:
            errors.append("%s.name: every network needs a name" % where)
            continue
        if name in nets:
            errors.append("%s.name: network %r is declared twice; give each network its own name" % (where, name))
        cidr = _network(net.get("cidr"))
        if cidr is None:
            errors.append("%s.cidr: %r (network %s) is not a valid CIDR; write the network address and prefix length, "
                          "such as 10.20.0.0/24" % (where, net.get("cidr"), name))
        vlan = net.get("vlan")
        if vlan is not None and not 1 <= int(vlan) <= 4094:
            errors.append("%s.vlan: %s (network %s) is outside 1..4094; VLAN 0 and 4095 are reserved, "
                          "leave vlan unset for an untagged network" % (where, vlan, name))
        if net.get("bridge") is not None and not IFNAME_RE.match(str(net["bridge"])):
            errors.append("%s.bridge: %r is not a valid bridge name" % (where, net["bridge"]))
        nets[name] = cidr
    cidrs = [(n, c) for n, c in nets.items() if c is not None]
    for a in range(len(cidrs)):
        for b in range(a + 1, len(cidrs)):
            if cidrs[a][1].version == cidrs[b][1].version and cidrs[a][1].overlaps(cidrs[b][1]):
                errors.append("%snetworks: %s (%s) overlaps %s (%s); give each network its own subnet"
                              % (p, cidrs[a][0], cidrs[a][1], cidrs[b][0], cidrs[b][1]))

    seen_ns = set()
    seen_if = {}
    seen_addr = {}

    def check_endpoint(where, item, ifname_key):
        ifname = item.get(ifname_key)
        if not ifname or not IFNAME_RE.match(str(ifname)):
            errors.append("%s.%s: %r is not a valid interface name (1-15 characters of letters, digits, '_', '.', '-')"
                          % (where, ifname_key, ifname))
        netname = item.get("network")
        if netname not in nets:
            errors.append("%s.network: %r is not declared in %snetworks; declare it or fix the name" % (where, netname, p))
            return
        cidr = nets[netname]
        addr = item.get("address")
        if addr is None:
            return
        iface = _interface(addr)
        if iface is None:
            errors.append("%s.address: %r is not an address with a prefix length, such as 10.20.0.3/24" % (where, addr))
            return
        if cidr is not None:
            if iface.ip not in cidr or iface.network.prefixlen != cidr.prefixlen:
                errors.append("%s.address: %s is outside its subnet %s (network %s); pick an address in %s with prefix /%d"
                              % (where, addr, cidr, netname, cidr, cidr.prefixlen))
            elif iface.ip in (cidr.network_address, cidr.broadcast_address) and cidr.prefixlen < 31:
                errors.append("%s.address: %s is the network or broadcast address of %s; pick a host address" % (where, addr, cidr))
        if str(iface.ip) in seen_addr:
            errors.append("%s.address: %s is already used by %s; addresses must be unique" % (where, iface.ip, seen_addr[str(iface.ip)]))
        seen_addr[str(iface.ip)] = where
        gateway = item.get("gateway")
        if gateway is not None:
            try:
                gw = ipaddress.ip_address(str(gateway))
            except ValueError:
                errors.append("%s.gateway: %r is not an IP address" % (where, gateway))
            else:
                if cidr is not None and gw not in cidr:
                    errors.append("%s.gateway: %s is outside the subnet %s of network %s; a gateway must be on the link"
                                  % (where, gateway, cidr, netname))
        mac = item.get("mac")
        if mac is not None and not MAC_RE.match(str(mac)):
            errors.append("%s.mac: %r is not a MAC address such as 50:54:00:00:00:01" % (where, mac))

    for i, ns in enumerate(lab.get("namespaces") or []):
        where = "%snamespaces[%d]" % (p, i)
        name = ns.get("name")
        if not name or not NETNS_RE.match(str(name)):
            errors.append("%s.name: %r is not a valid namespace name" % (where, name))
        elif name in seen_ns:
            errors.append("%s.name: namespace %r is declared twice; each namespace needs its own name" % (where, name))
        seen_ns.add(name)
        local_names = set()
        for j, link in enumerate(ns.get("links") or []):
            lwhere = "%s.links[%d]" % (where, j)
            check_endpoint(lwhere, link, "name")
            if link.get("name") in local_names:
                errors.append("%s.name: interface %r is declared twice in namespace %s" % (lwhere, link.get("name"), name))
            local_names.add(link.get("name"))
            peer = link.get("peer")
            if not peer or not IFNAME_RE.match(str(peer)):
                errors.append("%s.peer: %r is not a valid interface name for the host end (1-15 characters)" % (lwhere, peer))
            elif peer in seen_if:
                errors.append("%s.peer: host interface %r is already used by %s" % (lwhere, peer, seen_if[peer]))
            else:
                seen_if[peer] = lwhere
        for j, addr in enumerate(ns.get("loopback") or []):
            iface = _interface(addr)
            if iface is None:
                errors.append("%s.loopback[%d]: %r is not an address with a prefix length, such as 16.0.0.188/32" % (where, j, addr))
            elif str(iface.ip) in seen_addr:
                errors.append("%s.loopback[%d]: %s is already used by %s; addresses must be unique" % (where, j, iface.ip, seen_addr[str(iface.ip)]))
            else:
                seen_addr[str(iface.ip)] = "%s.loopback[%d]" % (where, j)
        for j, route in enumerate(ns.get("routes") or []):
            rwhere = "%s.routes[%d]" % (where, j)
            if _network(route.get("to")) is None:
                errors.append("%s.to: %r is not a valid CIDR such as 16.0.0.0/8" % (rwhere, route.get("to")))
            try:
                ipaddress.ip_address(str(route.get("via")))
            except ValueError:
                errors.append("%s.via: %r is not an IP address" % (rwhere, route.get("via")))

    for i, port in enumerate(lab.get("internal_ports") or []):
        where = "%sinternal_ports[%d]" % (p, i)
        check_endpoint(where, port, "name")
        if port.get("name") in seen_if:
            errors.append("%s.name: host interface %r is already used by %s" % (where, port.get("name"), seen_if[port.get("name")]))
        seen_if[port.get("name")] = where
    return errors


# --------------------------------------------------------------------------
# Reading state
# --------------------------------------------------------------------------

def parse_netns_list(text):
    """``ip netns list`` -> set of names (``name (id: 3)`` lines tolerated)."""
    names = set()
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            names.add(line.split()[0])
    return names


def parse_ip_addr_json(text):
    """``ip -j [-n NS] addr show`` -> {ifname: {"mtu", "mac", "up", "addresses", "kind"}}.

    Only global addresses count (``scope global``); link-local ones are the
    kernel's, not the lab's.
    """
    links = {}
    text = (text or "").strip()
    if not text:
        return links
    for item in json.loads(text):
        name = item.get("ifname")
        addrs = set()
        for info in item.get("addr_info", []):
            if info.get("scope") == "global" and info.get("local") is not None:
                addrs.add("%s/%s" % (info["local"], info.get("prefixlen")))
        links[name] = {
            "mtu": item.get("mtu"),
            "mac": (item.get("address") or "").lower(),
            "up": "UP" in (item.get("flags") or []),
            "addresses": addrs,
        }
    return links


def parse_ip_route_json(text):
    """``ip -j route show`` -> {destination: gateway}; ``default`` for the default route."""
    routes = {}
    text = (text or "").strip()
    if not text:
        return routes
    for item in json.loads(text):
        routes[item.get("dst")] = item.get("gateway")
    return routes


def parse_ethtool_features(text):
    """``ethtool -k DEV`` -> {feature line name: bool on}."""
    feats = {}
    for line in (text or "").splitlines():
        if ":" not in line or line.startswith("Features for"):
            continue
        key, _sep, rest = line.partition(":")
        value = rest.strip().split(" ")[0]
        if value in ("on", "off"):
            feats[key.strip()] = value == "on"
    return feats


def parse_ovs_state(bridges_json, ports_json, interfaces_json):
    """Three ``ovs-vsctl --format=json list`` outputs -> the switch model of
    :func:`ovsdb.switch_model` (bridges, ports, interfaces)."""
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


def _ip(ns):
    return ["ip", "-n", ns] if ns else ["ip"]


def _converge_link(lab, ns, dev, item, cur, feats, cmds):
    """Commands that bring one existing or new interface to its declared state.

    ``cur`` is the interface as read (None when it will be created).
    """
    ip = _ip(ns)
    mtu = lab.get("mtu")
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
    ovs = state["ovs"]
    root = state["root_links"]
    features = state.get("features", {})

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

    def ovs_port(name, item, iface_type=None):
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
        if iface_type and iface.get("type") != iface_type:
            sets.insert(0, "type=%s" % iface_type)
        if sets:
            ovs_cmds.append(["set", "Interface", name] + sets)

    for ns in lab.get("namespaces") or []:
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
        for link in ns.get("links") or []:
            peer, dev = link["peer"], link["name"]
            inside = links.get(dev)
            outside = root.get(peer)
            if outside is None or inside is None:
                if inside is not None:
                    pre.append(["ip", "-n", name, "link", "del", "dev", dev])
                if outside is not None:
                    pre.append(["ip", "link", "del", "dev", peer])
                pre.append(["ip", "link", "add", peer, "type", "veth", "peer", "name", dev, "netns", name])
                inside = outside = None
            host_item = {}
            _converge_link(lab, None, peer, host_item, outside, features.get(("", peer)) if outside else None, pre)
            _converge_link(lab, name, dev, link, inside, features.get((name, dev)) if inside else None, pre)
            ovs_port(peer, link)
        routes = state["ns_routes"].get(name, {}) if exists else {}
        gateways = [link["gateway"] for link in ns.get("links") or [] if link.get("gateway")]
        if gateways and routes.get("default") != gateways[0]:
            pre.append(["ip", "-n", name, "route", "replace", "default", "via", gateways[0]])
        for route in ns.get("routes") or []:
            dst = str(ipaddress.ip_network(route["to"]))
            if routes.get(dst) != route["via"]:
                pre.append(["ip", "-n", name, "route", "replace", dst, "via", route["via"]])

    for port in lab.get("internal_ports") or []:
        ovs_port(port["name"], port, "internal")
        cur = root.get(port["name"])
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
            (l["name"], sorted(links[l["name"]]["addresses"]) if l["name"] in links else None)
            for l in ns.get("links") or [])
        if ns["name"] not in state["netns"]:
            out["namespaces"][ns["name"]] = None
    for port in lab.get("internal_ports") or []:
        cur = state["root_links"].get(port["name"])
        out["internal_ports"][port["name"]] = sorted(cur["addresses"]) if cur else None
    return out


_OFCTL_COUNTER_RE = re.compile(r"\b(rx|tx) pkts=(\d+), bytes=(\d+)")


def parse_ofctl_port_stats(text):
    """``ovs-ofctl dump-ports BRIDGE PORT`` -> {"rx_packets", "rx_bytes", "tx_packets", "tx_bytes"}.

    Unlike the Interface table's ``statistics`` column, which OVS refreshes
    every few seconds, these counters are read live from the datapath.
    """
    stats = {}
    for direction, pkts, nbytes in _OFCTL_COUNTER_RE.findall(text or ""):
        stats["%s_packets" % direction] = int(pkts)
        stats["%s_bytes" % direction] = int(nbytes)
    return stats
