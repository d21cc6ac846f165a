"""The flows of an ASTF profile carried out with the kernel's sockets: counters, one program's steps, TCP and UDP flows.

TRex runs a profile's programs in its own TCP/UDP stack; softgen runs them
with the sockets of the namespace its port lives in, so the DUT between the
ports sees real connections (handshakes, NAT and load balancer state). The
counters keep TRex's names (``tcps_connattempt``, ``tcps_connects``,
``tcps_closed``, ``udps_connects``, ... and the flow table's
``m_active_flows``), counted where a socket shows them (``tcps_closed`` and
``udps_closed`` include the flows that broke off, as TRex's); a few more that TRex
does not have start with ``sg_`` (first-byte latency, the most concurrent
flows).
"""
import asyncio
import random
import socket
import struct
import time

from softgen.astf_program import address

# how long a flow waits for its peer at each step (connect, a receive) before it counts as dropped
FLOW_TIMEOUT = 5.0
IP_TRANSPARENT = 19
TCP_COUNTERS = ("tcps_connattempt", "tcps_connects", "tcps_accepts", "tcps_closed", "tcps_conndrops", "tcps_drops",
                "tcps_sndbyte", "tcps_rcvbyte", "tcps_sndtotal", "tcps_rcvtotal")
UDP_COUNTERS = ("udps_connects", "udps_accepts", "udps_closed", "udps_sndpkt", "udps_rcvpkt", "udps_sndbyte", "udps_rcvbyte",
                "udps_keepdrops")
FLOW_COUNTERS = ("m_active_flows", "m_est_flows", "sg_active_flows_max", "sg_first_byte_count", "sg_first_byte_usec_sum",
                 "sg_first_byte_usec_max", "err_flow_overflow")
COUNTERS = TCP_COUNTERS + UDP_COUNTERS + FLOW_COUNTERS


class FlowError(Exception):
    """A flow that did not finish: its peer closed, reset, or did not answer in time."""


class Counters:
    """One side's counters, in total and per template group (``tg_id``; 0 is the profile's default group)."""

    def __init__(self):
        self.total = dict.fromkeys(COUNTERS, 0)
        self.groups = {}

    def add(self, tg_id, name, value=1):
        for table in (self.total, self.groups.setdefault(tg_id, dict.fromkeys(COUNTERS, 0))):
            table[name] += value
            if name == "m_active_flows":
                table["sg_active_flows_max"] = max(table["sg_active_flows_max"], table["m_active_flows"])

    def first_byte(self, tg_id, usec):
        for table in (self.total, self.groups.setdefault(tg_id, dict.fromkeys(COUNTERS, 0))):
            table["sg_first_byte_count"] += 1
            table["sg_first_byte_usec_sum"] += usec
            table["sg_first_byte_usec_max"] = max(table["sg_first_byte_usec_max"], usec)

    def clear(self):
        """Zero every counter but the flows open now (``m_active_flows`` counts what exists, not what happened)."""
        active = {tg_id: table["m_active_flows"] for tg_id, table in self.groups.items()}
        self.__init__()
        for tg_id, count in active.items():
            if count:
                self.add(tg_id, "m_active_flows", count)

    def snapshot(self):
        return {"total": dict(self.total), "groups": {str(tg_id): dict(table) for tg_id, table in self.groups.items()}}


class Program:
    """One run of a program on one flow: ``send``/``recv`` are the flow's, the steps are the profile's."""

    def __init__(self, program, counters, tg_id, send, recv, started):
        self.steps = program["commands"]
        self.counters = counters
        self.tg_id = tg_id
        self.send = send
        self.recv = recv
        self.started = started
        self.received = 0
        self.first_byte = None
        self.reset = False
        self.no_close = False

    async def run(self):
        variables = {}
        position = 0
        while position < len(self.steps):
            step = self.steps[position]
            name = step["name"]
            if name == "jmp_nz":
                variables[step["id"]] = variables.get(step["id"], 0) - 1
                if variables[step["id"]] > 0:
                    position += step["offset"]
                    continue
            elif name == "set_var":
                variables[step["id"]] = step["val"]
            else:
                await self.do(step)
            position += 1

    async def do(self, step):
        name = step["name"]
        if name in ("tx", "tx_msg"):
            await self.send(step["data"])
        elif name in ("rx", "rx_msg"):
            await self.wait_rx(step["min_bytes" if name == "rx" else "min_pkts"], step.get("clear", False))
        elif name == "delay":
            await asyncio.sleep(step["usec"] / 1e6)
        elif name == "delay_rnd":
            await asyncio.sleep(random.uniform(step["min_usec"], step["max_usec"]) / 1e6)
        elif name == "reset":
            self.reset = True
        elif name == "nc":
            self.no_close = True

    async def wait_rx(self, need, clear):
        while self.received < need:
            got = await asyncio.wait_for(self.recv(), FLOW_TIMEOUT)
            if got is None:
                raise FlowError("the peer closed after %d of %d" % (self.received, need))
            if self.first_byte is None and self.started is not None:
                self.first_byte = time.monotonic()
                self.counters.first_byte(self.tg_id, int((self.first_byte - self.started) * 1e6))
            self.received += got
        if clear:
            self.received = 0


def client_socket(kind, source):
    """A non-blocking socket bound to ``source`` (any address of the client range: ``IP_TRANSPARENT``, the worker's
    local routes deliver the replies)."""
    sock = socket.socket(socket.AF_INET, kind)
    sock.setblocking(False)
    sock.setsockopt(socket.SOL_IP, IP_TRANSPARENT, 1)
    sock.bind((source, 0))
    return sock


def flow_addresses(template, serial, rng):
    """The flow's client and server addresses (the ``serial``-th of each range, or a random one of a ``rand`` range)
    and its destination port."""
    client = template["client"]

    def pick(ip_range):
        return address(ip_range, rng.randrange(ip_range["count"]) if ip_range["random"] else serial)
    return pick(client["clients"]), pick(client["servers"]), client["port"]


async def tcp_client(loop, template, serial, counters, rng):
    """One TCP connection of a client template: connect, the program, close (or reset)."""
    tg_id = template["tg_id"]
    source, server, port = flow_addresses(template, serial, rng)
    counters.add(tg_id, "tcps_connattempt")
    started = time.monotonic()
    sock = None
    try:
        sock = client_socket(socket.SOCK_STREAM, source)
        await asyncio.wait_for(loop.sock_connect(sock, (server, port)), FLOW_TIMEOUT)
    except (OSError, asyncio.TimeoutError):
        # TRex's tcps_closed includes the drops
        counters.add(tg_id, "tcps_conndrops")
        counters.add(tg_id, "tcps_closed")
        if sock is not None:
            sock.close()
        return
    counters.add(tg_id, "tcps_connects")
    await tcp_session(loop, sock, template["client"]["program"], counters, tg_id, started)


async def tcp_session(loop, sock, program, counters, tg_id, started=None):
    """A connected TCP socket through its program, then closed: ``tcps_closed`` (TRex's includes the drops), and
    ``tcps_drops`` when it broke off."""
    counters.add(tg_id, "m_active_flows")
    counters.add(tg_id, "m_est_flows")

    async def send(data):
        await loop.sock_sendall(sock, data)
        counters.add(tg_id, "tcps_sndbyte", len(data))
        counters.add(tg_id, "tcps_sndtotal")

    async def recv():
        data = await loop.sock_recv(sock, 65536)
        if not data:
            return None
        counters.add(tg_id, "tcps_rcvbyte", len(data))
        counters.add(tg_id, "tcps_rcvtotal")
        return len(data)

    run = Program(program, counters, tg_id, send, recv, started)
    try:
        await run.run()
        if run.no_close:
            while await asyncio.wait_for(recv(), FLOW_TIMEOUT) is not None:
                pass
    except (OSError, FlowError, asyncio.TimeoutError):
        counters.add(tg_id, "tcps_drops")
    finally:
        counters.add(tg_id, "tcps_closed")
        if run.reset:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        counters.add(tg_id, "m_active_flows", -1)
        counters.add(tg_id, "m_est_flows", -1)


async def udp_client(loop, template, serial, counters, rng):
    """One UDP flow of a client template: its datagrams to the server and the answers, on a connected socket."""
    tg_id = template["tg_id"]
    source, server, port = flow_addresses(template, serial, rng)
    started = time.monotonic()
    try:
        sock = client_socket(socket.SOCK_DGRAM, source)
        sock.connect((server, port))
    except OSError:
        counters.add(tg_id, "udps_keepdrops")
        return
    counters.add(tg_id, "udps_connects")

    async def send(data):
        await loop.sock_sendall(sock, data)
        counters.add(tg_id, "udps_sndpkt")
        counters.add(tg_id, "udps_sndbyte", len(data))

    async def recv():
        data = await loop.sock_recv(sock, 65536)
        counters.add(tg_id, "udps_rcvpkt")
        counters.add(tg_id, "udps_rcvbyte", len(data))
        return 1

    await udp_run(Program(template["client"]["program"], counters, tg_id, send, recv, started), sock)


async def udp_run(run, sock):
    counters, tg_id = run.counters, run.tg_id
    counters.add(tg_id, "m_active_flows")
    try:
        await run.run()
    except (OSError, FlowError, asyncio.TimeoutError):
        counters.add(tg_id, "udps_keepdrops")
    finally:
        counters.add(tg_id, "udps_closed")
        if sock is not None:
            sock.close()
        counters.add(tg_id, "m_active_flows", -1)
