"""The server side of an ASTF profile with the kernel's sockets: a listener per associated port, a program per flow.

TRex's server side answers by destination port (the template's ``assoc``),
whatever address the client reached it at (a load balancer's backend, a NAT's
inside address). softgen listens on every address (``0.0.0.0``) of the port's
namespace; :mod:`softgen.astfworker` makes every address that arrives on the
port's interface local to it. A UDP answer leaves from the address the flow
was sent to (``IP_PKTINFO``), as a NAT or a load balancer expects its reply.
"""
import asyncio
import socket
import struct

from softgen.astf_flows import IP_TRANSPARENT, Program, tcp_session, udp_run

IP_PKTINFO = 8


def listening_socket(kind, port):
    sock = socket.socket(socket.AF_INET, kind)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # answers leave from the address the client reached, which the namespace's output routes do not know as local
    sock.setsockopt(socket.SOL_IP, IP_TRANSPARENT, 1)
    sock.setblocking(False)
    sock.bind(("0.0.0.0", port))
    if kind == socket.SOCK_STREAM:
        sock.listen(4096)
    else:
        sock.setsockopt(socket.SOL_IP, IP_PKTINFO, 1)
    return sock


class Servers:
    """The listeners of one profile's server templates and the flows they accepted."""

    def __init__(self, loop, counters):
        self.loop = loop
        self.counters = counters
        self.sockets = []
        self.tasks = set()
        self.udp_flows = {}

    def open(self, templates):
        """Listen for every template's associated ports (one listener per protocol and port; the first template wins)."""
        taken = set()
        for template in templates:
            kind = socket.SOCK_DGRAM if template["udp"] else socket.SOCK_STREAM
            for port in template["server"]["ports"]:
                if (kind, port) in taken:
                    continue
                taken.add((kind, port))
                sock = listening_socket(kind, port)
                self.sockets.append(sock)
                if kind == socket.SOCK_STREAM:
                    self.spawn(self.accept_loop(sock, template))
                else:
                    self.loop.add_reader(sock.fileno(), self.on_datagram, sock, template)

    def spawn(self, coro):
        task = self.loop.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def accept_loop(self, sock, template):
        tg_id = template["tg_id"]
        while True:
            conn, _peer = await self.loop.sock_accept(sock)
            conn.setblocking(False)
            self.counters.add(tg_id, "tcps_accepts")
            self.counters.add(tg_id, "tcps_connects")
            self.spawn(tcp_session(self.loop, conn, template["server"]["program"], self.counters, tg_id))

    def on_datagram(self, sock, template):
        try:
            data, ancillary, _flags, peer = sock.recvmsg(65536, socket.CMSG_SPACE(12))
        except (BlockingIOError, InterruptedError):
            return
        local = None
        for level, kind, value in ancillary:
            if level == socket.SOL_IP and kind == IP_PKTINFO:
                local = socket.inet_ntoa(value[8:12])
        key = (peer, local, sock.fileno())
        flow = self.udp_flows.get(key)
        if flow is None:
            flow = self.udp_flows[key] = asyncio.Queue()
            tg_id = template["tg_id"]
            self.counters.add(tg_id, "udps_accepts")
            self.counters.add(tg_id, "udps_connects")
            self.spawn(self.udp_flow(sock, template, key, flow))
        flow.put_nowait(data)

    async def udp_flow(self, sock, template, key, inbox):
        peer, local, _fd = key
        tg_id = template["tg_id"]
        counters = self.counters
        source = [(socket.SOL_IP, IP_PKTINFO, struct.pack("=I4s4s", 0, socket.inet_aton(local), b"\0" * 4))] if local else []

        async def send(data):
            sock.sendmsg([data], source, 0, peer)
            counters.add(tg_id, "udps_sndpkt")
            counters.add(tg_id, "udps_sndbyte", len(data))

        async def recv():
            data = await inbox.get()
            counters.add(tg_id, "udps_rcvpkt")
            counters.add(tg_id, "udps_rcvbyte", len(data))
            return 1

        try:
            await udp_run(Program(template["server"]["program"], counters, tg_id, send, recv, None), None)
        finally:
            self.udp_flows.pop(key, None)

    def close(self):
        for sock in self.sockets:
            try:
                self.loop.remove_reader(sock.fileno())
            except (ValueError, OSError):
                pass
            sock.close()
        self.sockets = []
        for task in list(self.tasks):
            task.cancel()
        self.udp_flows = {}
