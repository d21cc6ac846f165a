"""TRex's service mode and capture methods: service, RX features and queue, push_pkts, capture.

``src/stx/common/trex_rpc_cmds_common.cpp``: service, set_rx_feature,
get_rx_queue_pkts, push_pkts, capture (start, stop, fetch, remove, status);
``src/stx/stl/trex_stl_rpc_cmds.cpp``: remove_rx_filters, get_tpg_status.
"""
import base64
import time

from softgen.protocol import _param, exec_err, parse_err


class ServiceMixin:
    """The service mode and capture methods of :class:`softgen.server.SoftGenServer` (a mixin: ``self`` is the server)."""

    # ================================================================ service mode
    def rpc_service(self, params):
        port = self.port_of(params)
        enabled = _param(params, "enabled", "bool")
        filtered = _param(params, "filtered", "bool", False)
        if filtered:
            _param(params, "mask", "uint")
        port.service = enabled
        port.service_filtered = enabled and filtered
        return {}

    def rpc_get_tpg_status(self, params):
        """Tagged packet groups (TRex v2.89+) are not implemented: always disabled, as on a server that never enabled them."""
        if "port_id" in params:
            self.port_of(params)
        else:
            _param(params, "username", "string")
        return {"enabled": False}

    def rpc_set_rx_feature(self, params):
        port = self.port_of(params)
        kind = _param(params, "type", "string")
        enabled = _param(params, "enabled", "bool")
        if kind == "queue":
            size = _param(params, "size", "uint", 0) if enabled else 0
            port.rx_queue = {"is_active": enabled, "count": 0, "size": size}
        elif kind not in ("server", "capwap_proxy"):
            raise parse_err("unknown rx feature '{0}'".format(kind))
        return {}

    def rpc_get_rx_queue_pkts(self, params):
        self.port_of(params)
        return {"pkts": []}

    def rpc_remove_rx_filters(self, params):
        self.port_of(params)
        return {}

    def rpc_push_pkts(self, params):
        port = self.port_of(params)
        pkts = _param(params, "pkts", "array")
        frames = []
        for pkt in pkts:
            data = pkt.get("binary") if isinstance(pkt, dict) else pkt
            if not isinstance(data, str):
                raise parse_err("'pkts' entries must carry base64 'binary'")
            if isinstance(pkt, dict) and (pkt.get("use_port_dst_mac") or pkt.get("use_port_src_mac")):
                # the client asks the server to put the port's own addresses in (bytes or PacketBuffer pushes)
                try:
                    frame = bytearray(base64.b64decode(data))
                except (ValueError, TypeError) as exc:
                    raise parse_err("'pkts' entry is not base64: {0}".format(exc)) from exc
                if len(frame) >= 12:
                    if pkt.get("use_port_dst_mac"):
                        frame[0:6] = bytes(int(x, 16) for x in port.dst_mac.split(":"))
                    if pkt.get("use_port_src_mac"):
                        frame[6:12] = bytes(int(x, 16) for x in port.mac.split(":"))
                data = base64.b64encode(bytes(frame)).decode()
            frames.append(data)
        port.send(cmd="push", pkts=frames)
        now = time.time()
        for data in frames:
            self.capture_frame(port.index, "TX", data, now)
        return {"sent": len(frames), "ts": now}

    # ================================================================ packet capture
    # TRex's ``capture`` method (start, stop, fetch, remove, status), as the
    # client's start_capture/stop_capture/fetch_capture_packets and its
    # service framework (resolve(), ARP, ICMP) use it. RX: every frame that
    # arrives on a capturing port (the worker opens an ETH_P_ALL socket only
    # while a capture wants the port). TX: the frames pushed with push_pkts
    # (service mode); stream traffic is not copied. The BPF filter is kept and
    # reported but NOT applied: frames are captured unfiltered, and the
    # client's services pick theirs out again (STLServiceFilter.lookup).
    def capture_frame(self, port_index, origin, data, ts):
        for cap in self.captures.values():
            if cap["state"] != "ACTIVE" or port_index not in (cap["rx"] if origin == "RX" else cap["tx"]):
                continue
            if len(cap["pkts"]) >= cap["limit"]:
                if cap["mode"] == "fixed":
                    continue
                cap["pkts"].pop(0)
            cap["count"] += 1
            cap["pkts"].append({"binary": data, "ts": ts, "port": port_index, "origin": origin, "index": cap["count"]})

    def _capture_ports_changed(self):
        wanted = set()
        for cap in self.captures.values():
            if cap["state"] == "ACTIVE":
                wanted.update(cap["rx"])
        for port in self.ports:
            on = port.index in wanted
            if on != getattr(port, "capturing", False):
                port.capturing = on
                port.call(cmd="capture", on=on)

    def _capture_of(self, params):
        capture_id = _param(params, "capture_id", "uint")
        if capture_id not in self.captures:
            raise exec_err("capture ID {0} does not exist".format(capture_id))
        return self.captures[capture_id]

    def _capture_ports(self, params, name):
        ports = _param(params, name, "array", [])
        for port_id in ports:
            if not isinstance(port_id, int) or isinstance(port_id, bool) or not 0 <= port_id < len(self.ports):
                raise parse_err("'{0}' has an invalid port id {1!r}".format(name, port_id))
        return set(ports)

    def rpc_capture(self, params):
        command = _param(params, "command", "string")
        if command == "start":
            limit = _param(params, "limit", "uint", 1000)
            mode = _param(params, "mode", "string", "fixed")
            if mode not in ("fixed", "cyclic"):
                raise parse_err("'mode' must be 'fixed' or 'cyclic', not '{0}'".format(mode))
            tx_ports, rx_ports = self._capture_ports(params, "tx"), self._capture_ports(params, "rx")
            if not tx_ports and not rx_ports:
                raise exec_err("capture must have at least one TX or RX port")
            if limit == 0:
                raise parse_err("'limit' must be a positive number")
            capture_id = next(self.capture_ids)
            now = time.time()
            self.captures[capture_id] = {"id": capture_id, "state": "ACTIVE", "limit": limit, "mode": mode, "tx": tx_ports,
                                         "rx": rx_ports, "filter": _param(params, "filter", "string", ""), "start_ts": now,
                                         "pkts": [], "count": 0}
            self._capture_ports_changed()
            return {"capture_id": capture_id, "start_ts": now}
        if command == "status":
            return [{"id": cap["id"], "state": cap["state"], "limit": cap["limit"], "mode": cap["mode"], "count": cap["count"],
                     "bytes": sum(len(pkt["binary"]) * 3 // 4 for pkt in cap["pkts"]),
                     "filter": {"tx": sorted(cap["tx"]), "rx": sorted(cap["rx"]), "bpf": cap["filter"], "bpf_applied": False}}
                    for cap in self.captures.values()]
        if command == "stop":
            cap = self._capture_of(params)
            cap["state"] = "STOPPED"
            self._capture_ports_changed()
            return {"pkt_count": len(cap["pkts"])}
        if command == "fetch":
            cap = self._capture_of(params)
            pkt_limit = _param(params, "pkt_limit", "uint", 50)
            pkts, cap["pkts"] = cap["pkts"][:pkt_limit], cap["pkts"][pkt_limit:]
            return {"pkts": pkts, "pending": len(cap["pkts"]), "start_ts": cap["start_ts"]}
        if command == "remove":
            self._capture_of(params)
            del self.captures[params["capture_id"]]
            self._capture_ports_changed()
            return {}
        raise parse_err("unknown capture command '{0}'".format(command))
