"""The TRex stateless server protocol: JSON-RPC 2.0 over ZeroMQ REP plus a PUB publisher.

Method names, parameters, replies and error codes follow TRex's RPC server
(``src/stx/common/trex_rpc_cmds_common.cpp``, ``src/stx/stl/trex_stl_rpc_cmds.cpp``,
``src/rpc-server/trex_rpc_jsonrpc_v2_parser.cpp``) closely enough for the
unmodified ``trex_stl_lib`` (old, ``api_sync``) and ``trex.stl.api`` (new,
``api_sync_v2``) clients. Frames are produced by one :mod:`softgen.portworker`
process per port.

This module is the core (sockets, publisher, dispatch, the common methods);
the methods of each TRex API area are mixins: :mod:`softgen.rpc_ports`,
:mod:`softgen.rpc_streams`, :mod:`softgen.rpc_traffic`, :mod:`softgen.rpc_stats`
and :mod:`softgen.rpc_service`; a port's state is :mod:`softgen.port`.
"""
import itertools
import json
import logging
import queue
import socket
import struct
import threading
import time
import zlib

import zmq

from softgen.events import CURRENT, MIXED_SILENCE, OLD, TICK_OLD, TRIGGER, Generations, Sessions
from softgen.fieldengine import DEFAULT_RING_CAP
from softgen.port import Port
from softgen.protocol import (DEFAULT_PROFILE, ERR_EXECUTE, ERR_INTERNAL, ERR_INVALID_PARAMS, ERR_INVALID_REQ, ERR_METHOD_NOT_FOUND,
                              ERR_PARSE, EV_PORT_ATTR_CHG, EV_PORT_JOB_DONE, EV_SERVER_STOPPED, PROFILE_EVENTS,
                              RpcError, _param, _token, exec_err, parse_err)
from softgen.rpc_astf import AstfMixin
from softgen.rpc_astf_traffic import AstfTrafficMixin
from softgen.rpc_ports import PortsMixin
from softgen.rpc_service import ServiceMixin
from softgen.rpc_stats import StatsMixin
from softgen.rpc_streams import StreamsMixin
from softgen.rpc_traffic import TrafficMixin

# what callers import from here: __main__ (SoftGenServer), tests/unit/softgen/test_rpc.py (the error codes)
__all__ = ["ERR_EXECUTE", "ERR_INVALID_PARAMS", "ERR_INVALID_REQ", "ERR_METHOD_NOT_FOUND", "ERR_PARSE",
           "Port", "RpcError", "SoftGenServer"]

LOG = logging.getLogger("softgen")

VERSION = "v2.89-softgen"
API_VERSIONS = {"STL": (5, 1), "core": (4, 1), "ASTF": (2, 3)}
ZIP_MAGIC = 0xABE85CEA


class SoftGenServer(PortsMixin, StreamsMixin, TrafficMixin, StatsMixin, ServiceMixin, AstfMixin, AstfTrafficMixin):
    """The RPC server, the publisher and the ports; the methods of each TRex API area come from its mixin (``softgen.rpc_*``).

    ``astf``: the server runs TRex's advanced stateful mode (``t-rex-64 --astf``) instead of the stateless one;
    ``astf_side``: ``client`` or ``server`` makes every port that side (TRex: even ports clients, odd servers)."""

    def __init__(self, ports, rpc_port=4501, pub_port=4500, bind="127.0.0.1", ring_cap=DEFAULT_RING_CAP, tx_mode="ring",
                 astf=False, astf_side=None):
        self.ports = [Port(i, name, netns, iface) for i, (name, netns, iface) in enumerate(ports)]
        # pg_id -> {"latency": bool, "ver": ver_id, "streams": {(port, stream id), ...}}
        self.pgids = {}
        self.ver_ids = itertools.count(1)  # the ver_id of each new pg_id
        self.rpc_addr = "tcp://{0}:{1}".format(bind, rpc_port)
        self.pub_addr = "tcp://{0}:{1}".format(bind, pub_port)
        self.ring_cap = ring_cap
        self.tx_mode = tx_mode
        # one API handle per client generation: every call then says which generation made it
        self.api_h = {generation: _token() for generation in (OLD, CURRENT)}
        self.generations = Generations()
        self.sessions = Sessions()
        self.caller = OLD
        self.start_time = time.time()
        self.ctx = zmq.Context()
        self.rep = None
        self.pub = None
        self.stop_flag = threading.Event()
        self.pub_cond = threading.Condition()
        self.pub_queue = []
        self.lock = threading.RLock()
        self.state_events = queue.Queue()
        self.captures = {}
        self.capture_ids = itertools.count(1)
        self.request_serial = 0
        self.methods = {}
        for attr in dir(self):
            if attr.startswith("rpc_"):
                self.methods[attr[4:]] = getattr(self, attr)
        self.noapi = {"api_sync", "api_sync_v2", "get_version", "ping", "get_async_events"}
        self.owned = {"add_stream", "remove_stream", "remove_all_streams", "start_traffic", "stop_traffic", "pause_traffic",
                      "resume_traffic", "update_traffic", "set_l2", "set_l3", "set_vlan", "set_port_attr", "service",
                      "set_rx_feature", "remove_rx_filters", "release", "conf_ipv6", "validate"}
        self.mode = "ASTF" if astf else "STL"
        self.astf_sides = []
        if astf:
            self.astf_setup(astf_side)

    # ================================================================ lifecycle
    def start_ports(self, timeout=10.0):
        for port in self.ports:
            port.spawn(self.ring_cap, self.on_worker_event, self.tx_mode)
        deadline = time.time() + timeout
        for port in self.ports:
            if not port.hello.wait(max(0.1, deadline - time.time())):
                raise RuntimeError("port {0} ({1}:{2}) did not start: {3}".format(port.index, port.netns, port.iface, port.last_error))
        if self.astf_sides:
            self.astf_start_workers(timeout)
        # TRex's default loopback config: port i sends to port i^1
        for port in self.ports:
            peer = port.index ^ 1
            if peer < len(self.ports):
                port.dst_mac = self.ports[peer].mac

    def bind(self):
        """Bind the RPC and publisher sockets (raises ``zmq.ZMQError`` when an address is taken)."""
        self.rep = self.ctx.socket(zmq.REP)
        self.rep.setsockopt(zmq.LINGER, 0)
        self.pub = self.ctx.socket(zmq.PUB)
        self.pub.setsockopt(zmq.LINGER, 0)
        try:
            self.rep.bind(self.rpc_addr)
            self.pub.bind(self.pub_addr)
        except zmq.ZMQError:
            self.rep.close(0)
            self.pub.close(0)
            self.rep = self.pub = None
            raise

    def serve_forever(self):
        if self.rep is None:
            self.bind()
        rep = self.rep
        publisher = threading.Thread(target=self.publisher_loop, daemon=True, name="publisher")
        publisher.start()
        threading.Thread(target=self.state_event_loop, daemon=True, name="events").start()
        LOG.info("softgen RPC on %s, publisher on %s, %d port(s)", self.rpc_addr, self.pub_addr, len(self.ports))
        try:
            while not self.stop_flag.is_set():
                if not rep.poll(1000):  # a wake-up a second while idle; the stop flag is seen within it
                    continue
                raw = rep.recv()
                rep.send(self.handle_raw(raw))
        finally:
            rep.close(0)
            self.stop_flag.set()
            with self.pub_cond:
                self.pub_cond.notify_all()
            publisher.join(3)
            self.state_events.put((None, None))
            for port in self.ports:
                port.stop_worker()
            for side in self.astf_sides:
                side.stop_worker()
            self.ctx.term()

    def shutdown(self):
        self.stop_flag.set()

    # ================================================================ publisher
    def publish(self, name, kind, data, baseline=False):
        """Send a message now: on the publisher (old clients) and to every current client's session queue."""
        message = {"name": name, "type": kind, "data": data, "baseline": baseline}
        if name == "trex-event":
            LOG.debug("event %s %s", kind, data)
        self.sessions.add(message)
        with self.pub_cond:
            self.pub_queue.append(message)
            self.pub_cond.notify()

    def event(self, ev_type, data):
        self.publish("trex-event", ev_type, data)

    def port_event(self, ev_type, port):
        """A traffic event of ``port``, also as the event of its (only) profile: the current client keeps the
        state of each profile (``<port>._``) and sees a port as active until its profile's event says otherwise."""
        self.event(ev_type, {"port_id": port.index})
        self.event(PROFILE_EVENTS[ev_type], {"port_id": port.index, "profile_id": DEFAULT_PROFILE})

    def publisher_loop(self):
        """The publisher thread, in the form the clients that listen need (see :mod:`softgen.events`)."""
        pub = self.pub  # bound by bind(); used by this thread only from here on
        next_tick = 0.0
        try:
            while not self.stop_flag.is_set():
                mode = self.generations.mode()
                if mode == "mixed":
                    # a silence the current clients notice, then everything at once
                    self.stop_flag.wait(MIXED_SILENCE)
                    items = self._take(0)
                elif mode == CURRENT:
                    items = self._take(0.5)
                    if items and not self.generations.while_current_only(lambda: pub.send(TRIGGER)):
                        # an old client arrived meanwhile: they go out in its form, next round
                        self._put_back(items)
                    continue
                else:
                    items = self._take(max(0.0, next_tick - time.time()))
                for item in items:
                    pub.send_string(json.dumps(item))
                if mode == "mixed" or time.time() >= next_tick:
                    pub.send_string(json.dumps({"name": "trex-global", "type": 0, "data": self.global_snapshot(), "baseline": False}))
                    next_tick = time.time() + TICK_OLD
        finally:
            pub.close(0)

    def _put_back(self, items):
        """``items`` taken but not sent: first in the queue again."""
        with self.pub_cond:
            self.pub_queue = items + self.pub_queue

    def _take(self, wait):
        """The queued messages, waiting up to ``wait`` s for one."""
        with self.pub_cond:
            if not self.pub_queue and wait:
                self.pub_cond.wait(wait)
            items, self.pub_queue = self.pub_queue, []
        return items

    # ================================================================ worker events
    def on_worker_event(self, port, event):
        """A worker's event, on its reader thread: counters at once; what changes port state on the events thread,
        so that a reader never waits for the lock an RPC holds while it waits for the worker (``Port.call``)."""
        kind = event.get("ev")
        if kind == "stats":
            port.update_counters(event)
            if "pg" in event:
                port.update_pg(event["pg"], event.get("ts", time.monotonic()))
        elif kind == "ack":
            port.acked(event.get("id", 0))
        elif kind == "hello":
            port.mac = event.get("mac", port.mac)
            port.speed_gbps = event.get("speed", port.speed_gbps)
            port.hello.set()
        elif kind in ("done", "arp", "rx"):
            self.state_events.put((port, event))
        elif kind == "error":
            LOG.warning("port %d: %s", port.index, event.get("msg"))
            port.last_error = event.get("msg")
        elif kind == "exit":
            LOG.warning("port %d: worker exited with %s", port.index, event.get("rc"))
            port.last_error = "worker exited with {0}".format(event.get("rc"))
            port.link_up = False
            port.acked(float("inf"))

    def state_event_loop(self):
        """The events thread: job done, ARP resolved and captured frames, in the order the workers sent them."""
        while True:
            port, event = self.state_events.get()
            if port is None:
                return
            with self.lock:
                self.on_state_event(port, event)

    def on_state_event(self, port, event):
        kind = event["ev"]
        if kind in ("astf_done", "astf_timer"):
            self.astf_on_done(port, event)
        elif kind == "astf_cleared":
            self.astf_cleared(event["profile_id"])
        elif kind == "done":
            if event.get("run") == port.run_id and port.state in ("TX", "PAUSE"):
                port.state = "STREAMS" if port.streams else "IDLE"
                self.port_event(EV_PORT_JOB_DONE, port)
        elif kind == "arp":
            if port.ipv4.get("state") != "none" and port.ipv4.get("dst") == event.get("ip") and port.ipv4.get("arp") != event["mac"]:
                port.dst_mac = event["mac"]
                port.ipv4["state"] = "resolved"
                port.ipv4["arp"] = event["mac"]
                self.event(EV_PORT_ATTR_CHG, {"port_id": port.index, "attr": port.attr()})
        else:
            self.capture_frame(port.index, "RX", event.get("data", ""), event.get("ts", time.time()))

    # ================================================================ JSON-RPC dispatch
    def handle_raw(self, raw):
        self.request_serial += 1
        zipped = False
        if len(raw) >= 8 and struct.unpack(">I", raw[:4])[0] == ZIP_MAGIC:
            zipped = True
            try:
                raw = zlib.decompress(raw[8:])
            except zlib.error:
                raw = b""
        try:
            request = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": ERR_PARSE, "message": "Bad JSON Format"}}
        else:
            if isinstance(request, list):
                reply = [self.handle_one(r) for r in request]
                if not request:
                    reply = {"jsonrpc": "2.0", "id": None, "error": {"code": ERR_INVALID_REQ, "message": "Empty batch"}}
            else:
                reply = self.handle_one(request)
        out = json.dumps(reply).encode()
        if zipped and len(out) >= 256:
            out = struct.pack(">II", ZIP_MAGIC, len(out)) + zlib.compress(out)
        return out

    def handle_one(self, request):
        if not isinstance(request, dict) or request.get("id") is None:
            return {"jsonrpc": "2.0", "id": None, "error": {"code": ERR_INVALID_REQ, "message": "Missing 'id' field"}}
        msg_id = request["id"]
        if request.get("jsonrpc") != "2.0":
            return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": ERR_INVALID_REQ, "message": "Invalid JSONRPC Version"}}
        method = request.get("method")
        if not isinstance(method, str) or not method:
            return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": ERR_INVALID_REQ, "message": "Missing Method Name"}}
        func = self.methods.get(method)
        LOG.debug("rpc %s %s", method, request.get("params"))
        if func is None:
            return {"jsonrpc": "2.0", "id": msg_id,
                    "error": {"code": ERR_METHOD_NOT_FOUND, "message": "Method {0} not registered".format(method)}}
        params = request.get("params")
        if params is None:
            params = {}
        try:
            if not isinstance(params, dict):
                raise parse_err("'params' must be an object")
            with self.lock:
                if method not in self.noapi:
                    self.caller = self.verify_api(params)
                if method in self.owned:
                    self.verify_owner(params)
                result = func(params)
        except RpcError as exc:
            return {"jsonrpc": "2.0", "id": msg_id, "error": exc.to_json()}
        except Exception as exc:  # pylint: disable=broad-except
            LOG.exception("internal error in %s", method)
            return {"jsonrpc": "2.0", "id": msg_id, "error": RpcError(ERR_INTERNAL, str(exc)).to_json()}
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def port_of(self, params):
        port_id = _param(params, "port_id", "uint")
        if port_id >= len(self.ports):
            raise exec_err("invalid port id - should be between 0 and {0}".format(len(self.ports) - 1))
        return self.ports[port_id]

    def verify_api(self, params):
        """The client generation whose API handle ``params`` carries (TRex's API verification)."""
        api_h = _param(params, "api_h", "string")
        for generation, handle in self.api_h.items():
            if api_h == handle:
                self.generations.heard(generation)
                return generation
        raise exec_err("API verification failed - API handler provided mismatch for class: 'STL'")

    def verify_owner(self, params):
        handler = _param(params, "handler", "string")
        port = self.port_of(params)
        if not port.handler:
            raise exec_err("please acquire the port before modifying port state")
        if handler != port.handler:
            raise exec_err("port is not owned by you or your current executing session")
        return port

    # ================================================================ common methods
    def rpc_api_sync(self, params):
        vers = _param(params, "api_vers", "array")
        if len(vers) != 1 or not isinstance(vers[0], dict):
            raise parse_err("'api_vers' should be a list of size 1")
        ver = vers[0]
        kind = _param(ver, "type", "string")
        if kind != "core":
            raise parse_err("'type' must be one of ['core']")
        major = _param(ver, "major", "int")
        _param(ver, "minor", "int")
        if major != API_VERSIONS["core"][0]:
            raise exec_err("API version mismatch: server major {0}, client major {1}".format(API_VERSIONS["core"][0], major))
        self.generations.heard(OLD)
        return {"api_vers": [{"type": "core", "api_h": self.api_h[OLD]}]}

    def rpc_api_sync_v2(self, params):
        name = _param(params, "name", "string")
        major = _param(params, "major", "int")
        _param(params, "minor", "int")
        if name not in API_VERSIONS:
            raise exec_err("unknown API class '{0}'".format(name))
        if (name == "ASTF") != (self.mode == "ASTF"):
            raise exec_err("RPC configuration mismatch - server RPC configuration: '{0}', client RPC configuration: '{1}'".format(
                self.mode, name))
        if major != API_VERSIONS[name][0]:
            raise exec_err("{0} API mismatch: server version is {1}.{2}, client major is {3}".format(
                name, API_VERSIONS[name][0], API_VERSIONS[name][1], major))
        self.generations.heard(CURRENT)
        return {"api_h": self.api_h[CURRENT]}

    def rpc_get_version(self, _params):
        return {"version": VERSION, "build_date": time.strftime("%b %d %Y"), "build_time": "00:00:00",
                "built_by": "softgen", "mode": self.mode}

    def rpc_ping(self, _params):
        return {"ts": time.time()}

    def rpc_get_system_info(self, _params):
        return {"hostname": socket.gethostname(), "uptime": time.strftime("%b %d %Y @ %H:%M:%S", time.localtime(self.start_time)),
                "dp_core_count": max(1, len(self.ports)), "dp_core_count_per_port": 1, "core_type": "softgen (Python AF_PACKET)",
                "is_multiqueue_mode": False, "port_count": len(self.ports), "ports": [p.info() for p in self.ports]}

    def rpc_get_supported_cmds(self, _params):
        return sorted(self.methods)

    def rpc_publish_now(self, params):
        """A barrier: fresh statistics, then ``trex-barrier`` with the caller's key."""
        key = _param(params, "key", "uint")
        baseline = _param(params, "baseline", "bool")
        self.refresh()
        self.publish("trex-global", 0, self.global_snapshot(), baseline)
        self.publish("trex-barrier", key, {}, baseline)
        return {}

    def rpc_get_async_events(self, params):
        """The current client's pull of the messages published since its session's last pull."""
        session_id = _param(params, "session_id", "uint")
        _param(params, "user", "string")
        self.generations.heard(CURRENT)
        messages = self.sessions.pull(session_id)
        if messages:
            LOG.debug("session %s pulls seq %d..%d", session_id, messages[0]["seq"], messages[-1]["seq"])
        return {"data": messages}

    def rpc_shutdown(self, params):
        _param(params, "user", "string")
        force = _param(params, "force", "bool", False)
        for port in self.ports:
            if port.owner and port.owner != params["user"] and not force:
                raise exec_err("port {0} is owned by '{1}' - specify 'force' for override".format(port.index, port.owner))
        self.event(EV_SERVER_STOPPED, {"cause": "shutdown by RPC"})
        self.shutdown()
        return {}
