"""TRex's stream methods: add/remove/get streams, the profile list, and the frames and rates of a port's profile.

``src/stx/stl/trex_stl_rpc_cmds.cpp``: add_stream, remove_stream,
remove_all_streams, get_stream_list, get_all_streams, get_stream,
get_profile_list; a stream's ``flow_stats`` registers its pg_id.
"""
import base64

from softgen.fieldengine import FCS, FieldEngineError, Program
from softgen.latency import TRAILER_LEN, trailer_room
from softgen.protocol import DEFAULT_PROFILE, _param, exec_err, parse_err

RATE_TYPES = ("pps", "bps_L1", "bps_L2", "percentage")


def check_rate(mode):
    """TRex's ``parse_rate`` of add_stream: ``mode.rate`` is an object, its value a non-negative number of a known type.

    A rate of zero passes here, as in TRex, and is refused by start_traffic
    ("Effective bandwidth must be positive")."""
    rate = _param(mode, "rate", "object")
    value = _param(rate, "value", "double")
    if value < 0:
        raise parse_err("'value' is '{0}', expecting 'udouble' (a rate cannot be negative)".format(value))
    kind = _param(rate, "type", "string")
    if kind not in RATE_TYPES:
        raise parse_err("'type' must be one of {0}, not '{1}'".format(list(RATE_TYPES), kind))


def stream_pps(stream, speed_gbps):
    """Base packets per second of one stream (before the port multiplier)."""
    rate = stream["mode"]["rate"]
    size = len(base64.b64decode(stream["packet"]["binary"])) + FCS
    value = float(rate["value"])
    kind = rate["type"]
    if kind == "pps":
        return value
    if kind == "bps_L2":
        return value / (8.0 * size)
    if kind == "bps_L1":
        return value / (8.0 * (size + 20))
    if kind == "percentage":
        return value / 100.0 * speed_gbps * 1e9 / (8.0 * (size + 20))
    raise parse_err("unknown rate type '{0}'".format(kind))


class StreamsMixin:
    """The stream methods of :class:`softgen.server.SoftGenServer` (a mixin: ``self`` is the server)."""

    # ================================================================ flow stats / latency
    # TRex's per pg_id statistics: streams with "flow_stats" enabled carry the
    # trailer of softgen.latency (hw_id = pg_id & 0xFFFF); every port counts
    # what it sent and received per hw_id. Bytes include the 4-byte FCS, like
    # the port counters. A latency pg_id belongs to one stream (as in TRex).
    def _pg_register(self, port, sid, stream):
        """Validate ``stream["flow_stats"]`` and, when enabled, record the stream under its pg_id."""
        flow_stats = _param(stream, "flow_stats", "object", {})
        if not _param(flow_stats, "enabled", "bool", False):
            return
        pg_id = _param(flow_stats, "stream_id", "uint")
        rule = _param(flow_stats, "rule_type", "string", "stats")
        if pg_id > 0xFFFFFFFF:
            raise parse_err("'stream_id' (pg_id) {0} does not fit in 32 bits".format(pg_id))
        if rule not in ("stats", "latency"):
            raise parse_err("unknown flow_stats rule_type '{0}' (expecting 'stats' or 'latency')".format(rule))
        pkt = base64.b64decode(stream["packet"]["binary"])
        if not trailer_room(pkt):
            raise exec_err("packet of {0} bytes is too small for flow stats (pg_id {1}): it needs room for a {2}-byte "
                           "trailer after the L4 header".format(len(pkt), pg_id, TRAILER_LEN))
        entry = self.pgids.get(pg_id)
        if entry is not None:
            if entry["latency"] != (rule == "latency"):
                raise exec_err("pg_id {0} is already used with a different rule_type".format(pg_id))
            if entry["latency"]:
                raise exec_err("pg_id {0} is already used: a latency pg_id belongs to one stream".format(pg_id))
        else:
            for other in self.pgids:
                if other & 0xFFFF == pg_id & 0xFFFF:
                    raise exec_err("pg_id {0} and pg_id {1} share hw_id {2} (pg_id & 0xFFFF)".format(
                        pg_id, other, pg_id & 0xFFFF))
            entry = self.pgids[pg_id] = {"latency": rule == "latency", "ver": next(self.ver_ids), "streams": set()}
        entry["streams"].add((port.index, sid))

    def _pg_unregister(self, port, sids):
        """Drop the streams ``sids`` of ``port``; a pg_id without streams is forgotten with its counters."""
        for pg_id, entry in list(self.pgids.items()):
            entry["streams"] -= {(port.index, sid) for sid in sids}
            if not entry["streams"]:
                del self.pgids[pg_id]
                for each in self.ports:
                    each.pg_clear([pg_id & 0xFFFF])

    @staticmethod
    def _pg_id_of(stream):
        flow_stats = stream.get("flow_stats") or {}
        return flow_stats.get("stream_id") if flow_stats.get("enabled") else None

    # TRex's dynamic profiles: the current client learns each port's profiles from get_port_status and
    # get_all_streams, and only stops and clears the profiles it knows (reset included). softgen has one
    # profile per port, "_", the one every client uses unless told otherwise.
    def rpc_get_profile_list(self, params):
        return [DEFAULT_PROFILE] if self.port_of(params).streams else []

    def rpc_get_all_streams(self, params):
        port = self.port_of(params)
        streams = {str(sid): s for sid, s in port.streams.items()}
        return {"streams": streams, "profiles": {DEFAULT_PROFILE: streams} if streams else {}}

    def rpc_get_stream_list(self, params):
        return [str(sid) for sid in self.port_of(params).streams]

    def rpc_get_stream(self, params):
        port = self.port_of(params)
        sid = _param(params, "stream_id", "uint")
        if sid not in port.streams:
            raise exec_err("stream id {0} on port {1} does not exist".format(sid, port.index))
        return {"stream": port.streams[sid]}

    def _writable(self, port):
        if port.state in ("TX", "PAUSE"):
            raise exec_err("port {0} is active - please stop traffic first".format(port.index))

    def rpc_add_stream(self, params):
        port = self.port_of(params)
        profile = _param(params, "profile_id", "string", DEFAULT_PROFILE)
        if profile != DEFAULT_PROFILE:
            raise exec_err("softgen has one profile per port, '{0}'; profile '{1}' is not supported".format(DEFAULT_PROFILE, profile))
        sid = _param(params, "stream_id", "uint")
        stream = _param(params, "stream", "object")
        self._writable(port)
        if sid in port.streams:
            raise exec_err("stream {0} already exists".format(sid))
        mode = _param(stream, "mode", "object")
        kind = _param(mode, "type", "string")
        if kind not in ("continuous", "single_burst", "multi_burst"):
            raise parse_err("bad stream type provided: '{0}'".format(kind))
        if kind == "single_burst":
            _param(mode, "total_pkts", "uint")
        elif kind == "multi_burst":
            _param(mode, "ibg", "double")
            _param(mode, "count", "uint")
            if _param(mode, "pkts_per_burst", "uint") == 0:
                raise parse_err("multi_burst: 'pkts_per_burst' cannot be zero.")
        check_rate(mode)
        packet = _param(stream, "packet", "object")
        try:
            pkt = base64.b64decode(_param(packet, "binary", "string"), validate=True)
        except ValueError as exc:
            raise parse_err("'packet.binary' is not valid base64") from exc
        if len(pkt) < 14 or len(pkt) > 9216:
            raise parse_err("packet size {0} is out of range (14..9216)".format(len(pkt)))
        _param(stream, "enabled", "bool", True)
        _param(stream, "self_start", "bool", True)
        _param(stream, "isg", "double", 0.0)
        _param(stream, "flags", "uint", 0)
        try:
            Program(stream.get("vm"), len(pkt))
        except FieldEngineError as exc:
            raise parse_err(str(exc)) from exc
        stream = dict(stream)
        stream.setdefault("next_stream_id", -1)
        stream.setdefault("flags", 0)
        stream.setdefault("enabled", True)
        stream.setdefault("self_start", True)
        stream_pps(stream, port.speed_gbps)
        self._pg_register(port, sid, stream)
        port.streams[sid] = stream
        port.state = "STREAMS"
        return {}

    def rpc_remove_stream(self, params):
        port = self.port_of(params)
        sid = _param(params, "stream_id", "uint")
        self._writable(port)
        if sid not in port.streams:
            raise exec_err("stream {0} does not exist".format(sid))
        del port.streams[sid]
        self._pg_unregister(port, [sid])
        port.state = "STREAMS" if port.streams else "IDLE"
        return {}

    def rpc_remove_all_streams(self, params):
        port = self.port_of(params)
        self._writable(port)
        self._pg_unregister(port, list(port.streams))
        port.streams = {}
        port.state = "IDLE"
        return {}

    def _frame(self, port, stream):
        pkt = bytearray(base64.b64decode(stream["packet"]["binary"]))
        flags = stream.get("flags", 0)
        if not flags & 1:
            pkt[6:12] = bytes(int(x, 16) for x in port.mac.split(":"))
        if ((flags >> 1) & 3) == 0:
            pkt[0:6] = bytes(int(x, 16) for x in port.dst_mac.split(":"))
        return base64.b64encode(bytes(pkt)).decode()

    def _profile(self, port):
        pps = l2 = l1 = 0.0
        for stream in port.streams.values():
            if not stream.get("enabled", True):
                continue
            size = len(base64.b64decode(stream["packet"]["binary"])) + FCS
            spps = stream_pps(stream, port.speed_gbps)
            pps += spps
            l2 += spps * size * 8
            l1 += spps * (size + 20) * 8
        return pps, l2, l1
