"""TRex's traffic control methods: start, stop, pause, resume, update and validate a port's traffic.

``src/stx/stl/trex_stl_rpc_cmds.cpp``: start_traffic, stop_traffic,
pause_traffic, resume_traffic, update_traffic, validate, with TRex's
multiplier (``calculate_effective_factor``) and port state checks.
"""
import time

from softgen.protocol import EV_PORT_PAUSED, EV_PORT_RESUMED, EV_PORT_STARTED, EV_PORT_STOPPED, _param, exec_err, parse_err
from softgen.rpc_streams import stream_pps


class TrafficMixin:
    """The traffic methods of :class:`softgen.server.SoftGenServer` (a mixin: ``self`` is the server)."""

    # ================================================================ traffic control
    def _factor(self, port, mul):
        """TRex's ``calculate_effective_factor_internal``: the multiplier of the port's streams that ``mul`` asks for."""
        kind = _param(mul, "type", "string")
        value = float(_param(mul, "value", "double"))
        pps, l2, l1 = self._profile(port)
        if kind == "raw":
            return value
        if kind not in ("pps", "bps", "bpsl1", "percentage"):
            raise parse_err("'type' must be one of ['raw', 'bps', 'bpsl1', 'pps', 'percentage'], not '{0}'".format(kind))
        if pps <= 0:
            raise exec_err("Effective bandwidth must be positive, got: 0")
        if kind == "percentage" and mul.get("op", "abs") != "abs":
            return port.mult * value / 100.0
        target = {"pps": (value, pps), "bps": (value, l2), "bpsl1": (value, l1),
                  "percentage": (value / 100.0 * port.speed_gbps * 1e9, l1)}[kind]
        return target[0] / target[1]

    def _effective_factor(self, port, mul, force):
        """TRex's ``calculate_effective_factor``: the factor, refused past the line rate (unless ``force``) or at zero."""
        factor = self._factor(port, mul)
        l1 = self._profile(port)[2] * factor
        line = port.speed_gbps * 1e9
        if not force and l1 > line:
            raise exec_err("Expected L1 B/W: '{0:g} Gbps' exceeds port line rate: '{1:g} Gbps'".format(l1 / 1e9, line / 1e9))
        if l1 <= 0:
            raise exec_err("Effective bandwidth must be positive, got: {0:g}".format(l1))
        if factor <= 0:
            raise exec_err("Factor must be positive, got: {0:g}".format(factor))
        return factor

    @staticmethod
    def _verify_state(port, states, command):
        if port.state not in states:
            raise exec_err("command '{0}' cannot be executed on current state: '{1}'".format(command, port.state))

    def rpc_start_traffic(self, params):
        port = self.port_of(params)
        mul = _param(params, "mul", "object")
        duration = float(_param(params, "duration", "double", -1.0))
        force = _param(params, "force", "bool", False)
        _param(mul, "type", "string")
        _param(mul, "value", "double")
        if port.state in ("TX", "PAUSE") and force:
            self._stop(port, publish=True)
        self._verify_state(port, ("STREAMS",), "start")
        factor = self._effective_factor(port, mul, force)
        specs = []
        for sid, stream in port.streams.items():
            if not stream.get("enabled", True):
                continue
            pg_id = self._pg_id_of(stream)
            specs.append({"id": sid, "packet": self._frame(port, stream), "vm": stream.get("vm"),
                          "pps": stream_pps(stream, port.speed_gbps) * factor, "mode": stream["mode"],
                          "isg": stream.get("isg", 0), "next": stream.get("next_stream_id", -1),
                          "self_start": stream.get("self_start", True), "seed": stream.get("random_seed"),
                          "pg": {"hw_id": pg_id & 0xFFFF} if pg_id is not None else None})
        port.run_id += 1
        port.send(cmd="start", streams=specs, duration=duration, run=port.run_id)
        port.mult = factor
        port.duration = duration
        port.state = "TX"
        self.port_event(EV_PORT_STARTED, port)
        return {"multiplier": factor, "ts": time.time()}

    def _stop(self, port, publish):
        port.call(cmd="stop")
        port.state = "STREAMS" if port.streams else "IDLE"
        if publish:
            self.port_event(EV_PORT_STOPPED, port)

    def rpc_stop_traffic(self, params):
        port = self.port_of(params)
        if port.state in ("TX", "PAUSE"):
            self._stop(port, publish=True)
        return {}

    def rpc_pause_traffic(self, params):
        """TRex's pause: continuous streams started without a duration only; the reply comes once the worker stopped sending."""
        port = self.port_of(params)
        self._verify_state(port, ("TX",), "pause")
        if any(s["mode"]["type"] != "continuous" for s in port.streams.values() if s.get("enabled", True)):
            raise exec_err(" pause is supported when all streams are in continues mode ")
        if port.duration > 0:
            raise exec_err(" pause is supported when duration is not enable is start command ")
        port.call(cmd="pause")
        return self._enter(port, "PAUSE", EV_PORT_PAUSED)

    def rpc_resume_traffic(self, params):
        port = self.port_of(params)
        self._verify_state(port, ("PAUSE",), "resume")
        port.send(cmd="resume")
        return self._enter(port, "TX", EV_PORT_RESUMED)

    def _enter(self, port, state, event):
        """The port in ``state``, said to the subscribers with ``event``; the RPC's empty reply."""
        port.state = state
        self.port_event(event, port)
        return {}

    def rpc_update_traffic(self, params):
        port = self.port_of(params)
        mul = _param(params, "mul", "object")
        force = _param(params, "force", "bool", False)
        self._verify_state(port, ("TX", "PAUSE"), "update")
        op = _param(mul, "op", "string", "abs")
        if op not in ("abs", "add", "sub"):
            raise parse_err("'op' must be one of ['abs', 'add', 'sub'], not '{0}'".format(op))
        new = self._effective_factor(port, mul, force)
        factor = {"abs": new, "add": port.mult + new, "sub": port.mult - new}[op]
        if factor <= 0:
            raise exec_err("Update request will lower traffic to less than zero")
        port.send(cmd="rate", factor=factor / port.mult)
        port.mult = factor
        return {"multiplier": factor}

    def rpc_validate(self, params):
        port = self.port_of(params)
        pps, l2, l1 = self._profile(port)
        return {"rate": {"max_pps": pps, "max_bps_l2": l2, "max_bps_l1": l1,
                         "max_line_util": l1 / (port.speed_gbps * 1e9) * 100.0 if port.speed_gbps else 0.0},
                "graph": {"expected_duration": -1, "events_count": 0, "events": []}}
