# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench's generator interface (:mod:`.generator`) on the TRex stateless client.

Two client generations speak to a TRex server; ``client`` chooses, :func:`load_client` imports:

* ``client: trex_stl_lib`` (the default): PyPI's ``trex-stl-lib`` 0.3, the old API, which the
  virtual lab's software generator and older servers speak. It runs on the system's scapy, under
  which it cannot resolve named offsets (``pkt_offset="IP.src"``); :mod:`.trex_compat` gives it
  them back.
* ``client: trex``: ``trex.stl.api``, the client of TRex v3.x. Without ``client_path`` it is
  PyPI's ``lbr-trex-client`` (TRex's ``interactive`` directory repackaged; ``import
  lbr_trex_client`` puts it on ``sys.path``); with ``client_path``, the ``interactive`` directory
  of a TRex install (the server's own release). Its ``trex`` package puts the scapy (2.4.3,
  patched), ZeroMQ binding and YAML TRex ships first on ``sys.path``, and unloads the packages of
  those libraries a process had already imported, but not their modules: in one Ansible task
  whose loop runs the old client first (``trex_stl_lib`` imports PyPI's pyzmq), TRex's own
  ``zmq.context`` then imported ``_check_ptr`` from the other ``zmq.error`` and failed.
  :func:`_forget_other_copies` unloads those modules too, so a loop may run the current
  client's stateful search after the old client's searches (the virtual lab's matrix does);
  the reverse order is not supported.

The adapter keeps every difference between them here. Both clients signal the process they run
in, which in a bench is the controller's Ansible worker, whose handlers of SIGINT and SIGTERM end
it at once ("A worker was found in a dead state"):

* while an API call runs, a lost connection makes the connection object send SIGINT to its own
  process (``mark_for_disconnect`` when ``sigint_on_conn_lost`` is on, which every API call of
  both clients turns on), meant to interrupt the call's ZeroMQ wait;
* the PyPI client's subscriber, when its thread fails, calls ``os.killpg(os.getppid(), SIGTERM)``:
  the process group of the worker's parent, ``ansible-playbook`` itself; its ``on_async_timeout``
  handler raises ``TypeError: bad operand type for unary +: 'str'`` (a string concatenation split
  over two statements), so a subscriber that waits more than 3 s for the server's publisher (a
  busy machine) gets there;
* the current client's ``subscriber crashed`` handler sends SIGTERM to its own process.

:func:`disarm` takes these away from every client instance the bench makes, before it connects:
the connection never sends SIGINT (a call to a silent server ends with the client's RPC timeout
instead), a subscriber timeout or crash marks the connection lost, the next call of the bench
raises, and the trial becomes a :class:`GeneratorLost`, which the bench retries after
reconnecting. A server that restarted in between answers with another API handle, so its first
call after the restart fails the same way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import io
import os
import socket
import sys
import time
import traceback
import warnings

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, Generator, GeneratorLost, LatencyUnsupported, quiet_value
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.latency import group_trial, pg_known
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import trex_compat, trex_profile

# Seconds without a message from the server's publisher before the client
# declares the connection lost (the PyPI client's own is 3 s, which a busy
# two-core machine exceeds while the generator sends; the current client's 5 s
# is raised to it too, see disarm).
SUBSCRIBER_TIMEOUT = 10
# The current client (TRex v3.x) on PyPI: importing it puts its ``trex`` package on sys.path.
CURRENT_CLIENT_PACKAGE = "lbr_trex_client"
CURRENT_CLIENT_PIP = "lbr-trex-client"
# Where a TRex install keeps its client (client_path).
INTERACTIVE_DIR = "scripts/automation/trex_control_plane/interactive"
# After the traffic stops: poll the receive counters this often, until two
# reads agree, for at most this long beyond ``settle``.
QUIET_POLL = 0.1
QUIET_MAX = 5.0
# While the traffic runs, the sending server's counters are read this often (an RPC, which a
# server that restarted meanwhile fails: it answers only clients of its own API handle).
ALIVE_READ = 1.0


def error_text(error):
    """The message of an exception; trex_stl_lib 0.3's STLError.__str__ breaks on Python 3.11, its ``msg`` does not."""
    return getattr(error, "msg", None) or str(error) or type(error).__name__


def first_line(text):
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else str(text)


def _client_path_first(client_path):
    """Put ``client_path`` (a TRex install's interactive directory) first on sys.path."""
    path = os.path.abspath(os.path.expanduser(client_path))
    if not os.path.isdir(os.path.join(path, "trex", "stl")):
        raise BenchError("client_path: %s holds no trex/stl package; point it at trex-core's "
                         "%s of the server's version, or leave it unset for PyPI's %s" % (path, INTERACTIVE_DIR, CURRENT_CLIENT_PIP))
    if path not in sys.path:
        sys.path.insert(0, path)
    return path


def _import_failed(client, name, error, fix):
    return BenchError("client %s: cannot import %s in the controller's Python %s (%s); %s"
                      % (client, name, sys.executable, error_text(error), fix))


# the libraries TRex's client brings its own copies of (its trex/__init__.py's ext_libs)
TREX_EXT_LIBS = ("texttable", "yaml", "scapy", "zmq", "simpy", "trex_openssl", "dpkt", "repoze")


def _forget_other_copies(client_path):
    """Unload every module of the libraries TRex's client brings (``TREX_EXT_LIBS``) that is not its own copy, before its
    ``trex`` package loads them (it unloads their packages only, see the module's docstring)."""
    ext_libs = os.environ.get("TREX_EXT_LIBS") or (os.path.join(client_path, os.pardir, os.pardir, os.pardir, "external_libs") if client_path else "")
    if "trex" in sys.modules or not ext_libs or not os.path.isdir(ext_libs):
        # loaded already, or a client whose libraries are not where TRex's are (nothing of theirs to tell apart)
        return
    ext_libs = os.path.abspath(ext_libs)
    for name, loaded in list(sys.modules.items()):
        if name.split(".")[0] in TREX_EXT_LIBS and not os.path.abspath(getattr(loaded, "__file__", None) or "").startswith(ext_libs):
            del sys.modules[name]


def _import_current(client_path, module="trex.stl.api"):
    """``module`` (``trex.stl.api``, or ``trex.astf.api`` for stateful traffic) from ``client_path``, or from PyPI's
    lbr-trex-client when it is unset."""
    if client_path:
        path = _client_path_first(client_path)
        fix = "check that client_path %s is the %s of a TRex release, or unset client_path and 'pip install %s'" % (
            path, INTERACTIVE_DIR, CURRENT_CLIENT_PIP)
    else:
        fix = "install it with 'pip install %s' (TRex v3.x's client from PyPI), or set client_path to a TRex install's %s" % (
            CURRENT_CLIENT_PIP, INTERACTIVE_DIR)
        try:
            importlib.import_module(CURRENT_CLIENT_PACKAGE)
        except Exception as error:  # pylint: disable=broad-except
            raise _import_failed("trex", CURRENT_CLIENT_PACKAGE, error, fix)
    try:
        with warnings.catch_warnings():
            # the scapy 2.4.3 it brings warns about the cryptography it finds (TripleDES moved): nothing the bench uses
            warnings.simplefilter("ignore")
            _forget_other_copies(client_path)
            return importlib.import_module(module)
    except Exception as error:  # pylint: disable=broad-except
        raise _import_failed("trex", module, error, fix)


def load_client(client, client_path, stateful=False):
    """The TRex client API module chosen by ``client``/``client_path`` (see the module's docstring); ``stateful``: the
    current client's ASTF API (the old client has none).

    The old client comes with :func:`.trex_compat.install` applied (named offsets under upstream scapy).
    """
    if client == "trex":
        return _import_current(client_path, "trex.astf.api" if stateful else "trex.stl.api")
    try:
        api = importlib.import_module("trex_stl_lib.api")
    except Exception as error:  # pylint: disable=broad-except
        raise _import_failed(client, "trex_stl_lib.api", error, "install it with 'pip install trex-stl-lib pyzmq scapy', "
                             "or set client: trex for TRex v3.x's client ('pip install %s')" % CURRENT_CLIENT_PIP)
    trex_compat.install()
    return api


def check_reachable(server, sync_port, fix):
    """Raise :class:`BenchError` (not worth retrying at once) when nothing answers at the server's RPC port; ``fix``
    says what to check."""
    try:
        socket.create_connection((server, sync_port), timeout=5).close()
    except (OSError, socket.timeout) as error:
        raise BenchError("no generator reachable: nothing answers at %s:%d (%s); %s" % (server, sync_port, error, fix))


def server_version(client):
    """The version, mode and build date a connected TRex client's server reports (None when it does not say)."""
    try:
        version = client.get_server_version()
        return {key: version.get(key) for key in ("version", "mode", "build_date") if key in version}
    except Exception:  # pylint: disable=broad-except
        return None


def port_shares(streams):
    """``[(port, share)]``: each transmitting port once, in the streams' order, with the part of the load its streams send."""
    shares = {}
    for stream in streams:
        shares[stream["port"]] = shares.get(stream["port"], 0.0) + stream["share"]
    return list(shares.items())


def to_trex_stream(api, stream, pps=1):
    """A TRex stream from ``profile.build_streams`` data (rate ``pps``; 1 pps is scaled by start's mult)."""
    if "trex" in stream:
        return trex_profile.at_rate(stream, pps)
    instructions = []
    for ins in stream["vm"]:
        if ins["type"] == "flow_var":
            instructions.append(api.STLVmFlowVar(name=ins["name"], min_value=ins["min"], max_value=ins["max"], size=ins["size"], op=ins["op"]))
        elif ins["type"] == "write":
            instructions.append(api.STLVmWrFlowVar(fv_name=ins["name"], pkt_offset=ins["offset"]))
        elif ins["type"] == "fix_checksum_ipv4":
            instructions.append(api.STLVmFixIpv4(offset=ins["offset"]))
        elif ins["type"] == "fix_checksum_hw":
            fix = api.STLVmFixChecksumHw(l3_offset=ins["l3_offset"], l4_offset=ins["l4_offset"], l4_type=ins["l4_type"])
            # trex-stl-lib 0.3 (PyPI) ignores a numeric l3_offset: it compiles l2_len=0, so the server
            # would checksum the Ethernet header as IPv4 and every varied frame would leave with bad IPv4
            # and UDP/TCP checksums (a conntrack on the DUT drops them). The current client sets
            # l2_len from l3_offset itself; setting it here is the same for both.
            fix.l2_len = ins["l3_offset"]
            instructions.append(fix)
    builder = api.STLPktBuilder(pkt_buffer=stream["frame"], vm=api.STLScVmRaw(instructions) if instructions else None)
    return api.STLStream(packet=builder, mode=api.STLTXCont(pps=pps))


class ClientOutput(io.TextIOBase):
    """The TRex client prints some events itself (``CPU util. is high`` from its
    subscriber thread), which an Ansible worker must not write to stdout. While
    the bench runs, stdout is this object: each complete line goes to ``log``."""

    def __init__(self, log):
        super(ClientOutput, self).__init__()
        self._log = log
        self._saved = None
        self._partial = ""
        self._busy = False

    def start(self):
        self._saved, sys.stdout = sys.stdout, self

    def stop(self):
        if self._saved is not None:
            sys.stdout, self._saved = self._saved, None
        if self._partial.strip():
            self._log("TRex client: %s" % self._partial.strip())
        self._partial = ""

    def writable(self):
        return True

    def write(self, text):
        if self._busy or self._saved is None:
            # the log itself writing (outside a worker, display writes to stdout): pass it through
            return (self._saved or sys.__stdout__).write(text)
        self._busy = True
        try:
            lines = (self._partial + text).split("\n")
            self._partial = lines.pop()
            for line in lines:
                if line.strip():
                    self._log("TRex client: %s" % line.strip())
        finally:
            self._busy = False
        return len(text)


def _guard_pypi_subscriber(client, conn, subscriber):
    """trex-stl-lib 0.3: a timeout or a crash of ``conn.async_connection`` marks the connection lost; it waits SUBSCRIBER_TIMEOUT s."""

    def on_async_timeout(timeout_sec):
        if conn.is_connected():
            conn.mark_for_disconnect("Connection lost - Subscriber timeout: no data from the TRex server for more than %s seconds" % timeout_sec)

    def run_guarded(run=subscriber._run):
        try:
            run()
        except Exception:  # pylint: disable=broad-except
            if conn.is_connected():
                conn.mark_for_disconnect("the TRex client's subscriber thread crashed:\n%s" % traceback.format_exc())

    client.event_handler.on_async_timeout = on_async_timeout
    subscriber._run = run_guarded
    subscriber.get_timeout_sec = lambda: SUBSCRIBER_TIMEOUT


def _guard_current_subscriber(client, conn, subscriber):
    """The current client (``conn.async_``, a ``TRexSubscriber``).

    Its timeout (5 s unless the client was made with ``async_timeout``) is raised to
    SUBSCRIBER_TIMEOUT. It names the wait in the message of a lost connection; that the
    server's events stopped, the subscriber learns from its ``get_async_events`` call, which
    fails after the client's RPC timeout (``sync_timeout``, 3 s by default).
    Its ``subscriber crashed`` event marks the connection lost instead of sending SIGTERM to
    the process (the Ansible worker).
    """
    if subscriber.get_timeout_sec() < SUBSCRIBER_TIMEOUT:
        subscriber.set_timeout_sec(SUBSCRIBER_TIMEOUT)
    events = getattr(getattr(client, "ctx", None), "event_handler", None)
    if events is None or not hasattr(events, "register_event_handler"):
        return

    def on_crash(_error):
        if conn.is_connected():
            conn.mark_for_disconnect("the TRex client's subscriber thread crashed:\n%s" % traceback.format_exc())

    events.register_event_handler("subscriber crashed", on_crash)


def _never_signal(conn):
    """The connection never sends SIGINT to its process: every API call of both clients runs
    ``sigint_on_conn_lost_enable``, which on this instance leaves ``sigint_on_conn_lost`` off."""
    if conn is None or not hasattr(conn, "sigint_on_conn_lost_enable"):
        return
    conn.sigint_on_conn_lost = False
    conn.sigint_on_conn_lost_enable = lambda: None


def disarm(client):
    """Take from ``client`` every way it has of signalling its process (the module's docstring).

    The connection never sends SIGINT (:func:`_never_signal`); the PyPI client's subscriber
    (``conn.async_connection``) marks a timeout or a crash as a lost connection and waits
    SUBSCRIBER_TIMEOUT s (:func:`_guard_pypi_subscriber`); the current client's (``conn.async_``)
    likewise (:func:`_guard_current_subscriber`). Parts of neither layout are left alone.
    """
    conn = getattr(client, "conn", None)
    _never_signal(conn)
    old = getattr(conn, "async_connection", None)
    if old is not None and hasattr(old, "_run") and getattr(client, "event_handler", None) is not None:
        _guard_pypi_subscriber(client, conn, old)
        return
    current = getattr(conn, "async_", None)
    if current is not None and hasattr(current, "get_timeout_sec") and hasattr(current, "set_timeout_sec"):
        _guard_current_subscriber(client, conn, current)


class TRexGenerator(Generator):
    """A TRex server (and optionally a second one whose ports receive) behind the bench's generator interface.

    ``args`` are the trex_bench arguments: server, sync_port, async_port,
    client, ports, port_l3, rx_server, settle.
    """

    def __init__(self, api, args):
        self.api = api
        self.args = args
        self.client = None
        self.rx_client = None
        self.tx_ports = []
        self.rx_ports = []
        self.streams = []
        self.groups = []
        # the servers as a lost one is named: the sending one's address, the receiving one's, and both
        self.tx_where = "%s:%d" % (args["server"], args["sync_port"])
        rx_server = args.get("rx_server")
        self.rx_where = "%s:%d" % (rx_server["server"], rx_server["sync_port"]) if rx_server else self.tx_where
        self.where = self.tx_where + (" (receiving: %s)" % self.rx_where if rx_server else "")

    def open_client(self, where, server, sync_port, async_port, ports):
        """A connected client of the server at ``server``, which must have ``ports``."""
        check_reachable(server, sync_port, "check %s and its sync_port, and that the TRex server runs on the generator host" % where)
        # trex_stl_lib 0.3 takes a LoggerApi level, the current client a level name
        verbose = self.api.LoggerApi.VERBOSE_QUIET if self.args["client"] == "trex_stl_lib" else "error"
        client = self.api.STLClient(server=server, sync_port=sync_port, async_port=async_port, verbose_level=verbose)
        disarm(client)
        try:
            client.connect()
        except Exception as error:  # pylint: disable=broad-except
            raise GeneratorLost("the TRex server at %s:%d/%d did not complete the handshake: %s (does the client '%s' match the server's "
                                "version? is async_port right?)" % (server, sync_port, async_port, first_line(error_text(error)), self.args["client"]),
                                error_text(error))
        available = list(client.get_all_ports())
        missing = [port for port in ports if port not in available]
        if missing:
            self._disconnect(client)
            prefix = "ports" if where == "server" else "rx_server.ports"
            raise BenchError("%s: the generator at %s has no port(s) %s; it has %s" % (
                prefix, server, ", ".join(str(port) for port in missing), available))
        return client

    def connect(self):
        self.stop()
        args = self.args
        self.client = self.open_client("server", args["server"], args["sync_port"], args["async_port"], args["ports"])
        rx_server = args["rx_server"]
        if rx_server:
            # Only read: the receiving ports keep the configuration of whoever set them up.
            self.rx_client = self.open_client("rx_server", rx_server["server"], rx_server["sync_port"], rx_server["async_port"], rx_server["ports"])
        self._call(self.client.reset, ports=args["ports"])
        if args["port_l3"]:
            self._call(self.set_l3)
        if self.streams:
            self.load(self.streams)

    def _call(self, function, *args, **kwargs):
        """Run a client call; a failure of the client is a lost generator, named by the server of the client
        whose method ``function`` is (the receiving server's for ``rx_client``'s, else the sending one's)."""
        try:
            return function(*args, **kwargs)
        except (BenchError, GeneratorLost):
            raise
        except Exception as error:  # pylint: disable=broad-except
            # a lost connection, an RPC timeout, a server that restarted (another API handle): all the client's own errors
            text = error_text(error)
            where = self.rx_where if self.rx_client is not None and getattr(function, "__self__", None) is self.rx_client else self.tx_where
            raise GeneratorLost("%s: %s" % (where, first_line(text)), "%s: %s\n%s" % (type(error).__name__, text, traceback.format_exc()))

    def set_l3(self):
        """Each port of ``ports`` in L3 mode with its gateway resolved by ARP, which both clients do in service mode only.

        Every port gets its address before any resolves: a port whose gateway is another port of the server (two ports
        wired to each other) is answered only once that port has its address (the current client's ``set_l3_mode``
        resolves at once, so the bench sets the ports' modes itself and resolves them together).
        """
        args = self.args
        client = self.client
        client.set_service_mode(ports=args["ports"], enabled=True)
        try:
            for port, cfg in zip(args["ports"], args["port_l3"]):
                if not client.ports[port].set_l3_mode(cfg["src"], cfg["gateway"]):
                    raise BenchError("port_l3: port %d refused L3 mode %s -> %s" % (port, cfg["src"], cfg["gateway"]))
            if args["client"] == "trex":
                # the current client resolves and raises when it cannot
                client.resolve(ports=args["ports"])
            else:
                self._wait_resolved(client)
        finally:
            client.set_service_mode(ports=args["ports"], enabled=False)

    def _wait_resolved(self, client):
        """trex-stl-lib 0.3: wait for each gateway's ARP resolution (its port objects resolve by themselves)."""
        args = self.args
        for port, cfg in zip(args["ports"], args["port_l3"]):
            deadline = time.time() + 10.0
            while True:
                client.ports[port].sync()
                if client.ports[port].get_layer_cfg()["ipv4"].get("state") == "resolved":
                    break
                if time.time() > deadline:
                    raise BenchError("port_l3: port %d could not resolve its gateway %s by ARP within 10 s" % (port, cfg["gateway"]))
                time.sleep(0.2)

    def info(self):
        info = {"server": self.args["server"], "sync_port": self.args["sync_port"], "client": self.args["client"], "ports": list(self.args["ports"]),
                "rx_server": self.args["rx_server"]}
        info["version"] = server_version(self.client)
        return info

    def load(self, streams):
        self.streams = streams
        # a user's profile's own packet groups (trex_profile.packet_group): each trial records them
        self.groups = [stream["packet_group"] for stream in streams if stream.get("packet_group")]
        self.tx_ports = port_shares(streams)
        self.rx_ports = list(self.args["ports"]) if len(self.tx_ports) > 1 else [self.args["ports"][-1]]
        self._call(self._add_streams, streams)

    def _add_streams(self, streams, load=None):
        """Put ``streams`` on their ports: a port's streams at 1 pps in all, in their shares' proportions, scaled by
        start's multiplier (a pps multiplier sets the port's total), or at ``load`` x share frames/s."""
        self.client.remove_all_streams(ports=self.args["ports"])
        port_share = dict(self.tx_ports)
        for stream in streams:
            pps = stream["share"] / port_share[stream["port"]] if load is None else load * stream["share"]
            self.client.add_streams(to_trex_stream(self.api, stream, pps=pps), ports=[stream["port"]])

    def received(self):
        """ipackets of the receiving ports: since clear_stats, or a running total on rx_server."""
        if self.rx_client is not None:
            stats = self._call(self.rx_client.get_stats, ports=self.args["rx_server"]["ports"])
            return sum(int(stats[port]["ipackets"]) for port in self.args["rx_server"]["ports"])
        stats = self.client.get_stats(ports=self.args["ports"])
        return sum(int(stats[port]["ipackets"]) for port in self.rx_ports)

    def quiet_received(self, at_least=0.0):
        """The receive count once it stops growing: frames still in flight (a DUT's queues on a busy machine
        hold them for longer than ``settle``) are counted in the trial that sent them, not in the next one."""
        if at_least:
            time.sleep(at_least)
        return quiet_value(self.received, time.sleep, time.time, QUIET_POLL, QUIET_MAX)

    def trial(self, load, duration):
        reply = self._call(self.send, {port: "%.6fpps" % (load * share) for port, share in self.tx_ports}, duration)
        reply["achieved_load"] = reply["offered"] / duration
        return reply

    def soak_trial(self, load, duration, interval):
        samples = []
        reply = self._call(self.send, {port: "%.6fpps" % (load * share) for port, share in self.tx_ports}, duration, (interval, samples))
        reply.update(achieved_load=reply["offered"] / duration, samples=samples)
        return reply

    def sampler(self, started, before, interval, samples):
        """What a soak trial does with the counters read between two slices of ``wait_on_traffic``: a running total
        in ``samples`` once ``interval`` s have passed since the last (the ALIVE_READ slices set the pace)."""
        ports = [port for port, _share in self.tx_ports]

        def on_read(stats):
            elapsed = time.time() - started
            if elapsed - (samples[-1]["t"] if samples else 0.0) >= interval:
                samples.append({"t": round(elapsed, 3), "offered": sum(int(stats[port]["opackets"]) for port in ports),
                                "received": self.received() - before})
        return on_read

    def send(self, mults, duration, sampling=None):
        """Start every transmitting port at its multiplier for ``duration`` s; offered and received frames.
        ``sampling`` is ``(interval, samples)`` for a soak trial (``sampler``)."""
        client = self.client
        ports = [port for port, _share in self.tx_ports]
        # the frames of the last trial are all in before this one's window opens
        self.quiet_received()
        client.clear_stats(ports=self.args["ports"])
        before = self.received() if self.rx_client is not None else 0
        groups_before = self.group_stats()
        started = time.time()
        for port in ports:
            client.start(ports=[port], mult=mults[port], duration=duration, force=True)
        self.wait_on_traffic(ports, duration + 30, self.sampler(started, before, *sampling) if sampling else None)
        received = self.quiet_received(self.args["settle"]) - before
        stats = client.get_stats(ports=self.args["ports"])
        offered = sum(int(stats[port]["opackets"]) for port in ports)
        reply = {"offered": offered, "received": received, "started": started}
        if self.groups:
            groups_after = self.group_stats()
            reply["packet_groups"] = [group_trial(group, *(groups_before + groups_after)) for group in self.groups]
        return reply

    def group_stats(self):
        """The sending and the receiving server's ``get_pgid_stats`` of the profile's packet groups (None without any)."""
        if not self.groups:
            return (None, None)
        pg_ids = [group["pg_id"] for group in self.groups]
        tx = self.client.get_pgid_stats(pg_ids)
        return (tx, self.rx_client.get_pgid_stats(pg_ids) if self.rx_client is not None else tx)

    def wait_on_traffic(self, ports, timeout, on_read=None):
        """The client's ``wait_on_traffic`` (the current client also removes its RX filters at the end) in slices of
        ALIVE_READ s, the sending server's counters read between them: a server restarted under the trial (by its
        supervision) fails that read at once, with its new API handle, instead of after the whole ``timeout``.
        ``on_read(stats)`` gets each of those reads."""
        timeout_error = getattr(self.api, "TRexTimeoutError", None) or self.api.STLTimeoutError
        deadline = time.time() + timeout
        while True:
            try:
                return self.client.wait_on_traffic(ports=ports, timeout=ALIVE_READ)
            except timeout_error:
                if time.time() >= deadline:
                    raise
            stats = self.client.get_stats(ports=ports)
            if on_read is not None:
                on_read(stats)

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        """The streams are loaded with absolute rates and started at multiplier 1 (a pps multiplier would
        scale the latency stream with the traffic); the search's streams are put back afterwards."""
        ports = [port for port, _share in self.tx_ports]
        try:
            self._call(self._add_streams, self.streams, load=load - latency_pps)
            marker = self.api.STLStream(packet=self.api.STLPktBuilder(pkt_buffer=frame), mode=self.api.STLTXCont(pps=latency_pps),
                                        flow_stats=self.api.STLFlowLatencyStats(pg_id=pg_id))
            try:
                self.client.add_streams(marker, ports=[ports[0]])
            except Exception as error:  # pylint: disable=broad-except
                raise LatencyUnsupported("the generator refused a latency stream: %s" % error_text(error))
            reply = self._call(self.send, {port: "1" for port in ports}, duration)
            reply["tx_pgid_stats"] = self._call(self.client.get_pgid_stats, [pg_id])
            rx_client = self.rx_client or self.client
            reply["rx_pgid_stats"] = self._call(rx_client.get_pgid_stats, [pg_id])
        finally:
            if self.client is not None:
                self.load(self.streams)
        return reply

    def free_pg_id(self, first):
        """A receiving server keeps the counters of every group it saw (the bench never clears it), also from earlier runs."""
        pg_id = first
        for _attempt in range(1000):
            try:
                known = any(pg_known(client.get_pgid_stats([pg_id]), pg_id) for client in (self.client, self.rx_client) if client is not None)
            except Exception as error:  # pylint: disable=broad-except
                raise LatencyUnsupported("the generator cannot report packet-group statistics (get_pgid_stats): %s" % error_text(error))
            if not known:
                return pg_id
            pg_id += 1
        raise LatencyUnsupported("packet group ids %d..%d are all in use on the generator; set latency_pg_id elsewhere" % (first, pg_id - 1))

    @staticmethod
    def _disconnect(client):
        try:
            client.disconnect()
        except Exception:  # pylint: disable=broad-except
            pass

    def stop(self):
        if self.client is not None:
            try:
                self.client.stop(ports=self.args["ports"])
            except Exception:  # pylint: disable=broad-except
                pass
        for client in (self.client, self.rx_client):
            if client is not None:
                self._disconnect(client)
        self.client = self.rx_client = None
