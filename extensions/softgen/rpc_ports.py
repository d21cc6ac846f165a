"""TRex's port methods: ownership (acquire, release, get_owner), port status and attributes, L2/L3/VLAN/IPv6.

``src/stx/common/trex_rpc_cmds_common.cpp``: acquire, release, get_owner,
get_port_status, set_l2, set_l3, conf_ipv6, set_vlan, set_port_attr.
"""
import socket
import string

from softgen.protocol import (DEFAULT_PROFILE, EV_PORT_ACQUIRED, EV_PORT_ATTR_CHG, EV_PORT_RELEASED, _param, _token,
                              exec_err, parse_err)


def _valid_ipv4(addr):
    try:
        socket.inet_aton(addr)
    except (OSError, TypeError):
        return False
    return addr.count(".") == 3


def _valid_mac(mac):
    parts = mac.split(":") if isinstance(mac, str) else []
    return len(parts) == 6 and all(len(p) == 2 and all(c in string.hexdigits for c in p) for p in parts)


class PortsMixin:
    """The port methods of :class:`softgen.server.SoftGenServer` (a mixin: ``self`` is the server)."""

    # ================================================================ port methods
    def rpc_acquire(self, params):
        """TRex's acquire: a free port, or any port with ``force``; the old owner learns it from the event."""
        port = self.port_of(params)
        user = _param(params, "user", "string")
        force = _param(params, "force", "bool", False)
        session_id = _param(params, "session_id", "uint", 0)
        used_force = bool(port.owner) and force
        if port.owner and not force:
            if port.owner == user:
                raise exec_err("port is already owned by another session of '{0}'".format(user))
            raise exec_err("port is already taken by '{0}'".format(port.owner))
        port.owner = user
        port.session_id = session_id
        port.generation = self.caller
        port.handler = _token()
        self._owners_changed()
        self.event(EV_PORT_ACQUIRED, {"port_id": port.index, "who": user, "session_id": session_id, "force": used_force})
        return port.handler

    def rpc_release(self, params):
        port = self.port_of(params)
        if port.state in ("TX", "PAUSE"):
            self._stop(port, publish=True)
        who, session_id = port.owner, port.session_id
        port.owner = ""
        port.handler = None
        port.session_id = None
        self._owners_changed()
        self.event(EV_PORT_RELEASED, {"port_id": port.index, "who": who, "session_id": session_id})
        return {}

    def _owners_changed(self):
        self.generations.holding(port.generation for port in self.ports if port.owner)

    def rpc_get_port_status(self, params):
        port = self.port_of(params)
        status = {"owner": port.owner, "state": port.state, "service": port.service, "service_filtered": port.service_filtered,
                  "max_stream_id": max([int(k) for k in port.streams] or [0]), "attr": port.attr(),
                  "rx_info": {"queue": dict(port.rx_queue),
                              "grat_arp": {"is_active": port.ipv4["state"] != "none", "interval_sec": 120}}}
        if _param(params, "profile_id", "string", ""):
            status["state_profile"] = {DEFAULT_PROFILE: port.state} if port.streams else {}
        return status

    def rpc_get_owner(self, params):
        return {"owner": self.port_of(params).owner}

    # ================================================================ L2 / L3 / attributes
    def rpc_set_l2(self, params):
        port = self.port_of(params)
        dst = _param(params, "dst_mac", "string")
        if not _valid_mac(dst):
            raise parse_err("'dst_mac' is not a valid MAC address")
        self._writable(port)
        port.dst_mac = dst.lower()
        port.dst_configured = True
        port.ipv4 = {"state": "none"}
        port.send(cmd="l2")
        return {}

    def rpc_set_l3(self, params):
        port = self.port_of(params)
        src = _param(params, "src_addr", "string")
        dst = _param(params, "dst_addr", "string")
        resolved = _param(params, "resolved_mac", "string", None)
        if not _valid_ipv4(src) or not _valid_ipv4(dst):
            raise parse_err("'src_addr' and 'dst_addr' must be IPv4 addresses")
        if resolved is not None and not _valid_mac(resolved):
            raise parse_err("'resolved_mac' is not a valid MAC address")
        self._writable(port)
        port.ipv4 = {"state": "resolved" if resolved else "unresolved", "src": src, "dst": dst}
        if resolved:
            port.dst_mac = resolved.lower()
            port.ipv4["arp"] = port.dst_mac
        port.send(cmd="l3", src=src, dst=dst, resolved_mac=resolved)
        return {}

    def rpc_conf_ipv6(self, params):
        port = self.port_of(params)
        enabled = _param(params, "enabled", "bool")
        src = _param(params, "src_ipv6", "string", "")
        if src:
            try:
                socket.inet_pton(socket.AF_INET6, src)
            except OSError as exc:
                raise parse_err("'src_ipv6' is not an IPv6 address") from exc
        port.ipv6 = {"enabled": enabled, "src": src} if enabled else {"enabled": False}
        port.send(cmd="ipv6", src=src if enabled else None)
        return {}

    def rpc_set_vlan(self, params):
        port = self.port_of(params)
        tags = _param(params, "vlan", "array")
        if len(tags) > 2 or not all(isinstance(t, int) and 0 < t < 4095 for t in tags):
            raise parse_err("'vlan' must be a list of up to two tags in 1..4094")
        self._writable(port)
        port.vlan = list(tags)
        port.send(cmd="vlan", tags=port.vlan)
        return {}

    def rpc_set_port_attr(self, params):
        port = self.port_of(params)
        attr = _param(params, "attr", "object")
        if "promiscuous" in attr:
            port.promiscuous = bool(attr["promiscuous"].get("enabled"))
        if "multicast" in attr:
            port.multicast = bool(attr["multicast"].get("enabled"))
        if "link_status" in attr:
            port.link_up = bool(attr["link_status"].get("up"))
        self.event(EV_PORT_ATTR_CHG, {"port_id": port.index, "attr": port.attr()})
        return {}
