# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tunnel_offload role's checks across its variables and its Open vSwitch declaration.

A VXLAN or Geneve tunnel adds its headers around every inner frame: the
inner Ethernet header (14 bytes), the tunnel header (8), UDP (8) and the
outer IP header (20 for IPv4, 40 for IPv6). The underlay's MTU must be
the inner MTU plus that, or full-size inner packets do not fit (the
VXLAN offload bench over ConnectX-3 Pro raised its underlay to 1550).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


from ansible_collections.offload.testbed.plugins.module_utils.host import validate as rules
from ansible_collections.offload.testbed.plugins.module_utils.parse.text import to_int as _int

TUNNEL_TYPES = ("vxlan", "geneve")
# inner Ethernet + tunnel header + UDP, before the outer IP header
_ENCAP_BYTES = 14 + 8 + 8
_IP_HEADER = {4: 20, 6: 40}
VNI_MAX = (1 << 24) - 1
# mlx4_core's log_num_mgm_entry_size: 7..12, or -1 for device managed flow steering (the module's own description)
MGM_RANGE = (7, 12)


def overhead(remote_ip):
    """Bytes a VXLAN or Geneve tunnel (without Geneve options) adds to an inner frame, by the outer IP version."""
    version = 6 if ":" in str(remote_ip) else 4
    return _ENCAP_BYTES + _IP_HEADER[version]


def _tunnel_errors(where, tunnel, seen):
    errors = []
    name = tunnel.get("name")
    problem = rules.ovs_port_name("%s.name" % where, name, tunnel.get("type", "vxlan"))
    if problem:
        errors.append(problem)
    elif name in seen:
        errors.append("%s.name: %r is given twice; each tunnel needs its own port name" % (where, name))
    seen.add(name)
    if tunnel.get("type", "vxlan") not in TUNNEL_TYPES:
        errors.append("%s.type: %r is not a tunnel type this role sets up; give one of %s" % (where, tunnel.get("type"), ", ".join(TUNNEL_TYPES)))
    for key in ("remote_ip", "local_ip"):
        value = tunnel.get(key)
        if (value is not None or key == "remote_ip") and rules.ip(value) is None:
            errors.append("%s.%s: %r is not an IP address; give the %s tunnel endpoint's address, such as 10.0.0.20"
                          % (where, key, value, "far" if key == "remote_ip" else "local"))
    errors += _number_errors(where, tunnel)
    return errors


def _number_errors(where, tunnel):
    errors = []
    key = tunnel.get("key", 0)
    if _int(key) is None or not 0 <= _int(key) <= VNI_MAX:
        errors.append("%s.key: %r is not a VNI; give 0 to %d (24 bits), such as 99" % (where, key, VNI_MAX))
    port = tunnel.get("dst_port", 4789)
    if _int(port) is None or not 1 <= _int(port) <= 65535:
        errors.append("%s.dst_port: %r is not a UDP port; give 1 to 65535 (4789 for VXLAN, 6081 for Geneve)" % (where, port))
    return errors


def _underlay_errors(name, underlay, need):
    errors = []
    seen = set()
    for i, item in enumerate(underlay):
        where = name("underlay", i)
        named = [rules.interface_name("%s.device" % where, item.get("device"), "the underlay's network device")]
        named += [rules.netns_name("%s.namespace" % where, item["namespace"])] if item.get("namespace") else []
        errors += [problem for problem in named if problem]
        key = (item.get("namespace") or "", item.get("device"))
        if key in seen:
            errors.append("%s.device: %r is given twice%s" % (where, item.get("device"), " in that namespace" if key[0] else ""))
        seen.add(key)
        mtu = item.get("mtu")
        if mtu is not None and (_int(mtu) is None or _int(mtu) < need):
            errors.append("%s.mtu: %r is below the %d bytes a full-size inner packet needs (%s plus the tunnel overhead);"
                          " give at least %d, or leave it unset for that" % (where, mtu, need, name("inner_mtu"), need))
    return errors


def validate(config, prefix="tunnel_offload_"):
    """Every error in the role's variables (``config`` without the prefix), each naming the variable."""
    name = rules.Names(prefix=prefix)
    errors = [e for e in [rules.interface_name(name("bridge"), config.get("bridge"), rules.OVS_BRIDGE)] if e]
    errors += rules.name_list(name("bridge_ports"), config.get("bridge_ports") or [], rules.ovs_port_name)
    inner = config.get("inner_mtu", 1500)
    if _int(inner) is None or not 68 <= _int(inner) <= 9000:
        errors.append("%s: %r is not an MTU; give 68 to 9000, such as 1500" % (name("inner_mtu"), inner))
    seen = set()
    tunnels = config.get("tunnels") or []
    for i, tunnel in enumerate(tunnels):
        errors += _tunnel_errors(name("tunnels", i), tunnel, seen)
    errors += _underlay_errors(name, config.get("underlay") or [], underlay_mtu(config))
    mgm = config.get("mlx4_log_num_mgm_entry_size")
    if mgm is not None and (_int(mgm) is None or not (_int(mgm) == -1 or MGM_RANGE[0] <= _int(mgm) <= MGM_RANGE[1])):
        errors.append("%s: %r is outside what mlx4_core takes; give -1 (device managed flow steering, which"
                      " VXLAN offload on ConnectX-3 Pro needs) or %d to %d, or leave it unset"
                      % (name("mlx4_log_num_mgm_entry_size"), mgm, MGM_RANGE[0], MGM_RANGE[1]))
    return errors


def underlay_mtu(config):
    """The underlay MTU the tunnels need: the inner MTU plus the largest overhead among them."""
    inner = _int(config.get("inner_mtu", 1500))
    if inner is None:
        inner = 1500
    tunnels = config.get("tunnels") or []
    return inner + max([overhead(t.get("remote_ip", "")) for t in tunnels] or [overhead("")])


def tunnel_port(tunnel):
    """One tunnel as an ovs_switch port declaration."""
    options = {"remote_ip": str(tunnel["remote_ip"]), "key": str(_int(tunnel.get("key", 0))),
               "dst_port": str(_int(tunnel.get("dst_port", 4789)))}
    if tunnel.get("local_ip"):
        options["local_ip"] = str(tunnel["local_ip"])
    return {"name": tunnel["name"], "type": tunnel.get("type", "vxlan"), "options": options}


def switch(config):
    """The ovs_switch declaration of the tunnel bridge: its tunnel ports, then the other ports named."""
    bridge = {"name": config["bridge"], "ports": [tunnel_port(t) for t in config.get("tunnels") or []]}
    bridge["ports"] += [{"name": name} for name in config.get("bridge_ports") or []]
    if config.get("datapath_type"):
        bridge["datapath_type"] = config["datapath_type"]
    return {"bridges": [bridge]}


def underlay_requests(config):
    """Each underlay device with the MTU it gets (its own, or the one the tunnels need) and its features."""
    need = underlay_mtu(config)
    result = []
    for item in config.get("underlay") or []:
        result.append({"device": item["device"], "namespace": item.get("namespace") or None,
                       "mtu": _int(item["mtu"]) if item.get("mtu") is not None else need,
                       "features": dict(config.get("features") or {}, **(item.get("features") or {}))})
    return result
