"""The TRex stateless server protocol: JSON-RPC 2.0 over ZeroMQ REP plus a PUB publisher.

Method names, parameters, replies and error codes follow TRex's RPC server
(``src/stx/common/trex_rpc_cmds_common.cpp``, ``src/stx/stl/trex_stl_rpc_cmds.cpp``,
``src/rpc-server/trex_rpc_jsonrpc_v2_parser.cpp``) closely enough for the
unmodified ``trex_stl_lib`` (old, ``api_sync``) and ``trex.stl.api`` (new,
``api_sync_v2``) clients. Frames are produced by one :mod:`softgen.portworker`
process per port.
"""
import base64
import json
import logging
import os
import queue
import random
import socket
import string
import struct
import subprocess
import sys
import threading
import time
import zlib

import zmq

from softgen.events import CURRENT, MIXED_SILENCE, OLD, TICK_OLD, TRIGGER, Generations, Sessions
from softgen.fieldengine import DEFAULT_RING_CAP, FCS, FieldEngineError, Program
from softgen.latency import TRAILER_LEN, RateMeter, merge_latency, trailer_room

LOG = logging.getLogger("softgen")

VERSION = "v2.89-softgen"
API_VERSIONS = {"STL": (5, 1), "core": (4, 1), "ASTF": (2, 0)}
ZIP_MAGIC = 0xABE85CEA

ERR_PARSE = -32700
ERR_INVALID_REQ = -32600
ERR_METHOD_NOT_FOUND = -32601
ERR_INVALID_PARAMS = -32602
ERR_INTERNAL = -32603
ERR_EXECUTE = -32000

EV_PORT_STARTED = 0
EV_PORT_STOPPED = 1
EV_PORT_PAUSED = 2
EV_PORT_RESUMED = 3
EV_PORT_JOB_DONE = 4
EV_PORT_ACQUIRED = 5
EV_PORT_RELEASED = 6
EV_PORT_ERROR = 7
EV_PORT_ATTR_CHG = 8
EV_SERVER_STOPPED = 100
# the profile events of TRex's dynamic profiles (softgen has one profile per port, "_")
PROFILE_EVENTS = {EV_PORT_STARTED: 10, EV_PORT_STOPPED: 11, EV_PORT_PAUSED: 12, EV_PORT_RESUMED: 13, EV_PORT_JOB_DONE: 14}
DEFAULT_PROFILE = "_"

COUNTERS = ("opackets", "obytes", "oerrors", "ipackets", "ibytes", "ierrors")
RATE_WINDOW = 1.0


class RpcError(Exception):
    """An error reply: ``code`` is the JSON-RPC code, ``specific`` TRex's ``specific_err``."""

    MESSAGES = {ERR_INVALID_PARAMS: "Bad paramters for method", ERR_EXECUTE: "Failed To Execute Method",
                ERR_INTERNAL: "Internal Server Error"}

    def __init__(self, code, specific):
        super().__init__(specific)
        self.code = code
        self.specific = specific

    def to_json(self):
        return {"code": self.code, "message": self.MESSAGES.get(self.code, "error"), "specific_err": self.specific}


def parse_err(msg):
    return RpcError(ERR_INVALID_PARAMS, msg)


def exec_err(msg):
    return RpcError(ERR_EXECUTE, msg)


_JSON_TYPES = {int: "int", float: "real", str: "string", bool: "boolean", list: "array", dict: "object", type(None): "null"}


def _param(params, name, kind, default=Ellipsis):
    """TRex-style typed parameter lookup (``parse_int``, ``parse_string``, ...)."""
    if name not in params or params[name] is None:
        if default is not Ellipsis:
            return default
        raise parse_err("field '{0}' is missing".format(name))
    value = params[name]
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "uint": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
        "double": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "string": isinstance(value, str),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }[kind]
    if not ok:
        raise parse_err("'{0}' is '{1}', expecting '{2}'".format(name, _JSON_TYPES.get(type(value), "unknown"), kind))
    return value


def _token():
    return "".join(random.choice(string.ascii_letters + string.digits) for _i in range(8))


def _valid_ipv4(addr):
    try:
        socket.inet_aton(addr)
    except (OSError, TypeError):
        return False
    return addr.count(".") == 3


def _valid_mac(mac):
    parts = mac.split(":") if isinstance(mac, str) else []
    return len(parts) == 6 and all(len(p) == 2 and all(c in string.hexdigits for c in p) for p in parts)


class Port:
    """Server-side state of one TRex port and the handle of its worker process."""

    def __init__(self, index, name, netns, iface):
        self.index = index
        self.name = name
        self.netns = netns
        self.iface = iface
        self.lock = threading.RLock()
        self.owner = ""
        self.handler = None
        self.session_id = None
        self.generation = None
        self.streams = {}
        self.state = "IDLE"
        self.service = False
        self.service_filtered = False
        self.mac = "00:00:00:00:00:00"
        self.speed_gbps = 10
        self.dst_mac = "ff:ff:ff:ff:ff:ff"
        self.dst_configured = False
        self.ipv4 = {"state": "none"}
        self.ipv6 = {"enabled": False}
        self.vlan = []
        self.promiscuous = False
        self.multicast = False
        self.link_up = True
        self.rx_queue = {"is_active": False, "count": 0, "size": 0}
        self.mult = 1.0
        self.duration = -1.0
        self.run_id = 0
        self.refreshed = None
        self.ack_cond = threading.Condition()
        self.ack_sent = self.ack_done = 0
        self.base_pps = 0.0
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.offsets = dict.fromkeys(COUNTERS, 0)
        self.cpu = 0.0
        self.history = []
        self.rates = {"tx_pps": 0.0, "rx_pps": 0.0, "tx_bps": 0.0, "rx_bps": 0.0, "cpu_util": 0.0}
        # flow stats reported by the worker (per hw_id): TX [packets, bytes], RX snapshots, rates, max since last read
        self.pg_gen = 0
        self.pg_tx = {}
        self.pg_rx = {}
        self.pg_rates = {}
        self.pg_last_max = {}
        self.proc = None
        self.hello = threading.Event()
        self.last_error = None

    # -------------------------------------------------------------- worker
    def spawn(self, ring_cap, on_event, tx_mode="ring"):
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [sys.executable, "-m", "softgen.portworker", "--netns", self.netns or "-", "--iface", self.iface,
               "--ring-cap", str(ring_cap), "--tx-mode", tx_mode]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)  # pylint: disable=consider-using-with
        threading.Thread(target=self._read_loop, args=(on_event,), daemon=True, name="port%d-reader" % self.index).start()

    def _read_loop(self, on_event):
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            on_event(self, event)
        on_event(self, {"ev": "exit", "rc": self.proc.wait()})

    def send(self, **cmd):
        if self.proc is None or self.proc.poll() is not None:
            raise exec_err("port {0}: worker process is not running".format(self.index))
        try:
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise exec_err("port {0}: worker process is gone".format(self.index)) from exc

    def call(self, timeout=2.0, **cmd):
        """Send ``cmd`` and return once the worker carried it out and reported its counters (TRex's DP barrier)."""
        with self.ack_cond:
            self.ack_sent += 1
            ack = self.ack_sent
        self.send(ack=ack, **cmd)
        with self.ack_cond:
            if not self.ack_cond.wait_for(lambda: self.ack_done >= ack, timeout):
                LOG.warning("port %d: the worker did not confirm '%s' within %.1f s", self.index, cmd.get("cmd"), timeout)

    def acked(self, ack):
        with self.ack_cond:
            self.ack_done = max(self.ack_done, ack)
            self.ack_cond.notify_all()

    def stop_worker(self):
        if self.proc is None:
            return
        try:
            self.send(cmd="quit")
        except RpcError:
            pass
        try:
            self.proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    # -------------------------------------------------------------- stats
    def update_counters(self, event):
        with self.lock:
            for key in COUNTERS:
                self.counters[key] = event.get(key, 0)
            now = event.get("ts", time.monotonic())
            self.history.append((now, self.counters["opackets"], self.counters["obytes"], self.counters["ipackets"],
                                 self.counters["ibytes"], event.get("cpu", 0.0)))
            while len(self.history) > 2 and now - self.history[1][0] >= RATE_WINDOW:
                self.history.pop(0)
            first = self.history[0]
            span = now - first[0]
            if span > 0:
                self.rates = {"tx_pps": (self.counters["opackets"] - first[1]) / span,
                              "tx_bps": 8.0 * (self.counters["obytes"] - first[2]) / span,
                              "rx_pps": (self.counters["ipackets"] - first[3]) / span,
                              "rx_bps": 8.0 * (self.counters["ibytes"] - first[4]) / span,
                              "cpu_util": min(100.0, 100.0 * (event.get("cpu", 0.0) - first[5]) / span)}

    def update_pg(self, report, now):
        """Take the worker's flow stats (``pg`` of its stats event) unless they predate the last clear."""
        with self.lock:
            if report.get("gen") != self.pg_gen:
                return
            self.pg_tx = {int(hw): counts for hw, counts in report.get("tx", {}).items()}
            self.pg_rx = {int(hw): snap for hw, snap in report.get("rx", {}).items()}
            for hw_id in set(self.pg_tx) | set(self.pg_rx):
                tx = self.pg_tx.get(hw_id, (0, 0))
                rx = self.pg_rx.get(hw_id, {"rp": 0, "rb": 0})
                self.pg_rates.setdefault(hw_id, RateMeter(RATE_WINDOW)).add(now, (tx[0], tx[1], rx["rp"], rx["rb"]))
            for hw_id, snap in self.pg_rx.items():
                self.pg_last_max[hw_id] = max(self.pg_last_max.get(hw_id, 0.0), snap["wmax"])

    def pg_stats(self, hw_id, reset_last_max):
        """(tx packets, tx bytes, rx packets, rx bytes), their rates, the RX snapshot or None, and the max latency
        since the previous read of ``hw_id`` on this port."""
        with self.lock:
            tx = self.pg_tx.get(hw_id, (0, 0))
            snap = self.pg_rx.get(hw_id)
            counts = (tx[0], tx[1], snap["rp"] if snap else 0, snap["rb"] if snap else 0)
            meter = self.pg_rates.get(hw_id)
            rates = meter.rates() if meter else (0.0,) * 4
            last_max = self.pg_last_max.pop(hw_id, 0.0) if reset_last_max else self.pg_last_max.get(hw_id, 0.0)
        return counts, rates, snap, last_max

    def pg_clear(self, hw_ids=None):
        """Forget the flow stats of ``hw_ids`` (all when None) here and in the worker."""
        with self.lock:
            self.pg_gen += 1
            for table in (self.pg_tx, self.pg_rx, self.pg_rates, self.pg_last_max):
                for hw_id in list(table) if hw_ids is None else hw_ids:
                    table.pop(hw_id, None)
            gen = self.pg_gen
        try:
            self.send(cmd="pg_clear", gen=gen, hw_ids=hw_ids)
        except RpcError:
            pass  # a worker that is gone reports nothing more

    def stats(self):
        with self.lock:
            values = {key: self.counters[key] - self.offsets[key] for key in COUNTERS}
            rates = dict(self.rates)
        if self.state not in ("TX", "PAUSE") and rates["tx_pps"] < 0.5:
            rates["tx_pps"] = rates["tx_bps"] = 0.0
        values.update(rates)
        return values

    def clear(self):
        with self.lock:
            self.offsets = dict(self.counters)

    # -------------------------------------------------------------- JSON views
    def layer_cfg(self):
        ether = {"src": self.mac, "dst": self.dst_mac,
                 "state": "configured" if self.dst_configured or self.ipv4["state"] == "resolved" else "unconfigured"}
        if self.ipv4["state"] == "none":
            ether["state"] = "configured"
        return {"ether": ether, "ipv4": dict(self.ipv4), "ipv6": dict(self.ipv6)}

    def attr(self):
        return {"speed": self.speed_gbps, "link": {"up": self.link_up}, "promiscuous": {"enabled": self.promiscuous},
                "multicast": {"enabled": self.multicast}, "fc": {"mode": 0}, "vlan": {"tags": list(self.vlan)},
                "rx_filter_mode": "hw", "layer_cfg": self.layer_cfg(), "src_mac": self.mac, "src_ipv4": self.ipv4.get("src"),
                "dest": self.dst_mac}

    def info(self):
        return {"index": self.index, "driver": "net_softgen", "pci_addr": "{0}/{1}".format(self.netns or "-", self.iface),
                "numa": 0, "hw_mac": self.mac, "description": "softgen {0} ({1})".format(self.name, self.iface)[:40],
                "rx": {"caps": ["rx_bytes"], "counters": 0}, "is_fc_supported": False, "is_led_supported": False,
                "is_link_supported": False, "is_prom_supported": True, "is_vxlan_supported": False, "is_virtual": True,
                "supp_speeds": [self.speed_gbps * 1000], "cores": [self.index], "speed": self.speed_gbps}


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


class SoftGenServer:
    """The RPC server, the publisher and the ports."""

    def __init__(self, ports, rpc_port=4501, pub_port=4500, bind="127.0.0.1", ring_cap=DEFAULT_RING_CAP, tx_mode="ring"):
        self.ports = [Port(i, name, netns, iface) for i, (name, netns, iface) in enumerate(ports)]
        # pg_id -> {"latency": bool, "ver": ver_id, "streams": {(port, stream id), ...}}
        self.pgids = {}
        self.next_ver = 1
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
        self.next_capture_id = 1
        self.request_serial = 0
        self.methods = {}
        for attr in dir(self):
            if attr.startswith("rpc_"):
                self.methods[attr[4:]] = getattr(self, attr)
        self.noapi = {"api_sync", "api_sync_v2", "get_version", "ping", "get_async_events"}
        self.owned = {"add_stream", "remove_stream", "remove_all_streams", "start_traffic", "stop_traffic", "pause_traffic",
                      "resume_traffic", "update_traffic", "set_l2", "set_l3", "set_vlan", "set_port_attr", "service",
                      "set_rx_feature", "remove_rx_filters", "release", "conf_ipv6", "validate"}

    # ================================================================ lifecycle
    def start_ports(self, timeout=10.0):
        for port in self.ports:
            port.spawn(self.ring_cap, self.on_worker_event, self.tx_mode)
        deadline = time.time() + timeout
        for port in self.ports:
            if not port.hello.wait(max(0.1, deadline - time.time())):
                raise RuntimeError("port {0} ({1}:{2}) did not start: {3}".format(port.index, port.netns, port.iface, port.last_error))
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

    def global_snapshot(self):
        """``trex-global`` data: global keys plus per-port keys with a ``-<port>`` suffix."""
        data = self.global_stats()
        for port in self.ports:
            stats = port.stats()
            for key in COUNTERS:
                data["{0}-{1}".format(key, port.index)] = stats[key]
            data["m_total_tx_bps-%d" % port.index] = stats["tx_bps"]
            data["m_total_tx_pps-%d" % port.index] = stats["tx_pps"]
            data["m_total_rx_bps-%d" % port.index] = stats["rx_bps"]
            data["m_total_rx_pps-%d" % port.index] = stats["rx_pps"]
            data["m_cpu_util-%d" % port.index] = stats["cpu_util"]
        return data

    def global_stats(self):
        per_port = [p.stats() for p in self.ports]
        tot = {k: sum(s[k] for s in per_port) for k in COUNTERS + ("tx_pps", "tx_bps", "rx_pps", "rx_bps")}
        cpu = max([s["cpu_util"] for s in per_port] or [0.0])
        tx_pps = tot["tx_pps"]
        return {
            "m_cpu_util": cpu, "m_cpu_util_raw": cpu, "m_bw_per_core": (tot["tx_bps"] / 1e9) / max(1, len(self.ports)),
            "m_rx_cpu_util": 0.0, "m_rx_core_pps": 0.0, "m_platform_factor": 1.0,
            "m_tx_bps": tot["tx_bps"], "m_rx_bps": tot["rx_bps"], "m_tx_pps": tx_pps, "m_rx_pps": tot["rx_pps"],
            "m_tx_cps": 0.0, "m_tx_expected_cps": 0.0, "m_tx_expected_pps": tx_pps, "m_tx_expected_bps": tot["tx_bps"],
            "m_rx_drop_bps": max(0.0, tot["tx_bps"] - tot["rx_bps"]) if tot["rx_bps"] else 0.0,
            "m_active_flows": 0, "m_open_flows": 0, "m_total_tx_pkts": tot["opackets"], "m_total_rx_pkts": tot["ipackets"],
            "m_total_tx_bytes": tot["obytes"], "m_total_rx_bytes": tot["ibytes"], "m_total_clients": 0, "m_total_servers": 0,
            "m_active_sockets": 0, "m_socket_util": 0.0, "m_total_nat_time_out": 0, "m_total_nat_no_fid": 0,
            "m_total_nat_active": 0, "m_total_nat_open": 0, "m_total_nat_learn_error": 0, "m_total_queue_full": 0,
            "m_total_queue_drop": 0, "m_rx_bw_per_core": 0.0,
            "opackets": tot["opackets"], "ipackets": tot["ipackets"], "obytes": tot["obytes"], "ibytes": tot["ibytes"],
            "tx_pps": tx_pps, "rx_pps": tot["rx_pps"], "tx_bps": tot["tx_bps"], "rx_bps": tot["rx_bps"],
        }

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
        if kind == "done":
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
        if major != API_VERSIONS[name][0]:
            raise exec_err("{0} API mismatch: server version is {1}.{2}, client major is {3}".format(
                name, API_VERSIONS[name][0], API_VERSIONS[name][1], major))
        self.generations.heard(CURRENT)
        return {"api_h": self.api_h[CURRENT]}

    def rpc_get_version(self, _params):
        return {"version": VERSION, "build_date": time.strftime("%b %d %Y"), "build_time": "00:00:00",
                "built_by": "softgen", "mode": "STL"}

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

    def rpc_get_owner(self, params):
        return {"owner": self.port_of(params).owner}

    def rpc_shutdown(self, params):
        _param(params, "user", "string")
        force = _param(params, "force", "bool", False)
        for port in self.ports:
            if port.owner and port.owner != params["user"] and not force:
                raise exec_err("port {0} is owned by '{1}' - specify 'force' for override".format(port.index, port.owner))
        self.event(EV_SERVER_STOPPED, {"cause": "shutdown by RPC"})
        self.shutdown()
        return {}

    # ================================================================ stats methods
    def refresh(self, ports=None):
        """Fresh counters from the workers (what TRex reads from the NIC when asked), once per request: the current
        client asks for the global and each port's statistics in one batch."""
        for port in self.ports if ports is None else ports:
            if port.refreshed != self.request_serial and port.proc is not None and port.proc.poll() is None:
                port.call(timeout=1.0, cmd="sync")
                port.refreshed = self.request_serial

    def rpc_get_global_stats(self, _params):
        self.refresh()
        return self.global_stats()

    def rpc_get_port_stats(self, params):
        port = self.port_of(params)
        self.refresh([port])
        stats = port.stats()
        out = dict(stats)
        out.update({"m_total_tx_bps": stats["tx_bps"], "m_total_tx_pps": stats["tx_pps"], "m_total_rx_bps": stats["rx_bps"],
                    "m_total_rx_pps": stats["rx_pps"], "m_cpu_util": stats["cpu_util"]})
        return out

    def rpc_get_port_xstats_names(self, params):
        self.port_of(params)
        return {"xstats_names": ["rx_good_packets", "tx_good_packets", "rx_good_bytes", "tx_good_bytes", "rx_errors", "tx_errors"]}

    def rpc_get_port_xstats_values(self, params):
        stats = self.port_of(params).stats()
        return {"xstats_values": [stats["ipackets"], stats["opackets"], stats["ibytes"], stats["obytes"],
                                  stats["ierrors"], stats["oerrors"]]}

    def rpc_get_utilization(self, _params):
        cpu = []
        for port in self.ports:
            util = port.stats()["cpu_util"]
            cpu.append({"history": [round(util, 1)] * 20, "ports": [port.index, -1]})
        return {"cpu": cpu, "mbuf_stats": {}}

    def rpc_clear_stats(self, params):
        targets = [self.port_of(params)] if "port_id" in params else self.ports
        for port in targets:
            port.clear()
            port.pg_clear()
        return {}

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
            entry = self.pgids[pg_id] = {"latency": rule == "latency", "ver": self.next_ver, "streams": set()}
            self.next_ver += 1
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

    def rpc_get_active_pgids(self, _params):
        ids = {"latency": [], "flow_stats": []}
        for pg_id, entry in sorted(self.pgids.items()):
            ids["latency" if entry["latency"] else "flow_stats"].append(pg_id)
        return {"ids": ids}

    def rpc_get_pgid_stats(self, params):
        wanted = _param(params, "pgids", "array")
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in wanted):
            raise parse_err("'pgids' must be a list of integers")
        flow_stats, lat_stats, ver_id = {}, {}, {}
        known = {pg_id & 0xFFFF for pg_id in self.pgids}
        rx_err = {}
        received = set()
        old_flow = bad_hdr = 0
        for port in self.ports:
            with port.lock:
                snaps = dict(port.pg_rx)
            received |= set(snaps)
            rx_err[str(port.index)] = sum(s["rp"] for hw, s in snaps.items() if hw not in known)
            old_flow += sum(s["old_flow"] for s in snaps.values())
            bad_hdr += sum(s["bad_hdr"] for s in snaps.values())
        # A pg_id asked for by id that this server does not send but its ports
        # received is reported as a latency pg_id: the virtual lab sends from
        # one softgen instance and receives on another, on one host and clock.
        pg_ids = [p for p in wanted if p in self.pgids or (p & 0xFFFF) in received] if wanted else sorted(self.pgids)
        for pg_id in pg_ids:
            entry = self.pgids.get(pg_id, {"latency": True, "ver": 0})
            per_port = {key: {} for key in ("tp", "tb", "rp", "rb", "tps", "tbs", "rps", "rbs")}
            snaps = []
            last_max = 0.0
            for port in self.ports:
                counts, rates, snap, port_max = port.pg_stats(pg_id & 0xFFFF, entry["latency"])
                key = str(port.index)
                for name, value in zip(("tp", "tb", "rp", "rb"), counts):
                    per_port[name][key] = value
                for name, value, scale in zip(("tps", "tbs", "rps", "rbs"), rates, (1, 8, 1, 8)):
                    per_port[name][key] = round(value * scale, 2)  # packets/s, bits/s
                if snap is not None:
                    snaps.append(snap)
                last_max = max(last_max, port_max)
            flow_stats[str(pg_id)] = per_port
            ver_id[str(pg_id)] = entry["ver"]
            if entry["latency"]:
                lat_stats[str(pg_id)] = merge_latency(snaps, last_max)
        flow_stats["g"] = {"rx_err": rx_err, "tx_err": {str(port.index): 0 for port in self.ports}}
        lat_stats["g"] = {"old_flow": old_flow, "bad_hdr": bad_hdr}
        return {"flow_stats": flow_stats, "latency": lat_stats, "ver_id": ver_id}

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
        port.state = "PAUSE"
        self.port_event(EV_PORT_PAUSED, port)
        return {}

    def rpc_resume_traffic(self, params):
        port = self.port_of(params)
        self._verify_state(port, ("PAUSE",), "resume")
        port.send(cmd="resume")
        port.state = "TX"
        self.port_event(EV_PORT_RESUMED, port)
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
                port.send(cmd="capture", on=on)

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
            capture_id = self.next_capture_id
            self.next_capture_id += 1
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
