"""One TRex port: a process that lives in the port's network namespace.

Started by the server as ``python3 -m softgen.portworker --netns NS --iface IF``.
It enters the namespace with ``setns(2)`` before it opens any socket or starts
any thread, then talks to the server over its stdin/stdout: JSON commands in,
JSON events out (one object per line).

- TX: the streams' frame rings (built by :mod:`softgen.fieldengine`; a program longer than
  the ring, a million flows, refills its slots from a ``FlowCycle`` as they go) are sent
  from an AF_PACKET socket bound to the interface, through a
  ``PACKET_TX_RING`` (``--tx-mode ring``, the default, or ``ring-frags``; see
  :mod:`softgen.fastio`) or with ``sendmmsg`` (``--tx-mode sendmmsg``, and
  where the kernel refuses the ring); a credit (token) bucket per stream sets the rate. ``opackets``/``obytes`` count what
  the kernel accepted, so the achieved rate is reported, not the requested one.
- RX: ``ipackets``/``ibytes`` are the interface's receive counters from
  ``/proc/net/dev`` read inside the namespace: every frame that arrived on the
  port, at any rate, without copying frames to user space. Frames this port
  sent itself are transmit counters there, never receive ones.
- ARP: replies for the port's IPv4 address (``set_l3``), resolves the
  gateway (ARP requests until a reply, then reports the MAC), and answers
  IPv6 neighbour solicitations for the port's IPv6 address (NS -> NA).
- Flow stats / latency (streams with ``flow_stats`` enabled): each frame gets
  the 16-byte trailer of :mod:`softgen.latency` (sequence number and send
  time) and is sent on its own with ``send()`` from the same TX loop and
  credit bucket, so these streams are meant for low rates (TRex's latency
  streams typically run at 1,000 pps). A receive socket with a kernel BPF
  filter passes only incoming frames whose byte at length - 16 is 0xAB, so
  the data traffic never reaches Python. Per pg_id TX and RX counters and
  latency figures go to the server inside the ``stats`` event (``pg``).
- ``iface`` ``null`` (or ``null0``...) is a sink without a socket: frames are
  counted as sent at the requested rate (protocol tests without namespaces);
  it has no RX.
"""
import argparse
import base64
import errno
import json
import os
import queue
import socket
import struct
import sys
import threading
import time

from softgen import fastio
from softgen.fieldengine import DEFAULT_RING_CAP, FCS, FieldEngineError, build_source, inet_checksum
from softgen.latency import LatencyStats, unpack_trailer
from softgen.netif import get_mac, mac_to_bytes, mac_to_str, read_if_counters
from softgen.txstreams import NullRing, NullSink, TrailerRing, TxStream

STATS_INTERVAL = 0.1
# An idle port (not sending, its counters still for QUIET_AFTER s) reports every
# IDLE_STATS_INTERVAL s instead, and its threads block instead of polling: every
# wake-up of an idle worker costs CPU, which in a slow guest is the DUT's too.
# A command wakes the stats thread at once; QUIET_AFTER covers the server's
# rate window (1 s), so its rates have come down to what the port does.
IDLE_STATS_INTERVAL = 1.0
QUIET_AFTER = 3.0


class PortWorker:
    def __init__(self, iface, ring_cap, tx_mode="ring"):
        self.iface = iface
        self.ring_cap = ring_cap
        self.tx_mode = tx_mode
        self.null = iface.startswith("null")
        self.out_lock = threading.Lock()
        self.cmds = queue.Queue()
        self.quit = threading.Event()
        self.stats_wake = threading.Event()
        self.resolve = threading.Event()
        self.counters = {"opackets": 0, "obytes": 0, "oerrors": 0}
        # flow stats: per hw_id TX [packets, bytes] and RX LatencyStats, reset together by "pg_clear"
        self.pg_lock = threading.Lock()
        self.pg_gen = 0
        self.pg_tx = {}
        self.pg_rx = {}
        self.flow_seq = {}
        if self.null:
            self.mac = "02:00:00:00:00:%02x" % (hash(iface) & 0xFF)
            self.tx = NullSink()
            self.ctl = NullSink()
            self.rx_base = (0, 0, 0, 0, 0)
        else:
            self.mac = get_mac(iface)
            self.tx = fastio.open_tx_socket(iface)
            self.ctl = fastio.open_tx_socket(iface)
            self.rx_base = read_if_counters(iface)
        self.mac_raw = mac_to_bytes(self.mac)
        # L3 state, shared with the ARP thread
        self.ip = None
        self.gw = None
        self.gw_mac = None
        self.ipv6 = None
        self.vlan = []
        # capture: an ETH_P_ALL reader runs while the server wants RX frames
        self.capture_stop = None
        # TX state
        self.streams = {}
        self.active = []
        self.running = False
        self.paused = False
        self.end = None
        self.run_id = 0

    # ---------------------------------------------------------------- output
    def emit(self, **event):
        line = json.dumps(event) + "\n"
        with self.out_lock:
            try:
                sys.stdout.write(line)
                sys.stdout.flush()
            except (BrokenPipeError, ValueError):
                self.quit.set()

    def stats(self):
        rx_bytes = rx_pkts = tx_drop = 0
        if not self.null:
            cur = read_if_counters(self.iface)
            rx_bytes = cur[0] - self.rx_base[0]
            rx_pkts = cur[1] - self.rx_base[1]
            tx_drop = cur[4] - self.rx_base[4]
        times = os.times()
        event = {"ev": "stats", "ts": time.monotonic(), "opackets": self.counters["opackets"],
                 "obytes": self.counters["obytes"], "oerrors": self.counters["oerrors"] + tx_drop,
                 "ipackets": rx_pkts, "ibytes": rx_bytes + FCS * rx_pkts, "ierrors": 0,
                 "cpu": times.user + times.system, "running": self.running and not self.paused}
        with self.pg_lock:
            if self.pg_tx or self.pg_rx:
                event["pg"] = {"gen": self.pg_gen, "tx": {str(hw): list(c) for hw, c in self.pg_tx.items()},
                               "rx": {str(hw): acc.snapshot() for hw, acc in self.pg_rx.items()}}
        return event

    def stats_loop(self):
        """Stats every STATS_INTERVAL while the port sends or its counters move, every IDLE_STATS_INTERVAL once
        they have been still for QUIET_AFTER s; a command (``stats_wake``) sends the next one at once."""
        last, moved = None, time.monotonic()
        while not self.quit.is_set():
            event = self.stats()
            counts = tuple(event[key] for key in ("opackets", "obytes", "oerrors", "ipackets", "ibytes", "running"))
            if counts != last or event["running"]:
                last, moved = counts, event["ts"]
            self.emit(**event)
            lively = event["ts"] - moved < QUIET_AFTER
            self.stats_wake.wait(STATS_INTERVAL if lively else IDLE_STATS_INTERVAL)
            if self.stats_wake.is_set():
                self.stats_wake.clear()
                moved = time.monotonic()

    def stdin_loop(self):
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                self.cmds.put(json.loads(line))
            except ValueError:
                self.emit(ev="error", msg="bad command line")
        self.cmds.put({"cmd": "quit"})

    # ---------------------------------------------------------------- L2/L3 services
    def _vlan_hdr(self, ethertype):
        hdr = b""
        for i, tag in enumerate(self.vlan):
            tpid = 0x88A8 if (len(self.vlan) == 2 and i == 0) else 0x8100
            hdr += struct.pack("!HH", tpid, tag)
        return hdr + struct.pack("!H", ethertype)

    def send_ctl(self, frame):
        if self.null:
            return
        try:
            self.ctl.send(frame)
        except OSError:
            pass

    def arp_frame(self, op, dst_mac, target_mac, sender_ip, target_ip):
        return (dst_mac + self.mac_raw + self._vlan_hdr(0x0806)
                + struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + self.mac_raw + sender_ip + target_mac + target_ip)

    def send_arp_request(self):
        if self.ip and self.gw:
            self.send_ctl(self.arp_frame(1, b"\xff" * 6, b"\0" * 6, self.ip, self.gw))

    def send_grat_arp(self):
        if self.ip:
            self.send_ctl(self.arp_frame(1, b"\xff" * 6, b"\0" * 6, self.ip, self.ip))

    def _strip_vlan(self, data):
        off = 12
        ethertype = struct.unpack_from("!H", data, off)[0]
        while ethertype in (0x8100, 0x88A8) and len(data) >= off + 6:
            off += 4
            ethertype = struct.unpack_from("!H", data, off)[0]
        return ethertype, off + 2

    def handle_arp(self, data):
        ethertype, off = self._strip_vlan(data)
        if ethertype != 0x0806 or len(data) < off + 28:
            return
        op = struct.unpack_from("!H", data, off + 6)[0]
        sha = data[off + 8:off + 14]
        spa = data[off + 14:off + 18]
        tpa = data[off + 24:off + 28]
        if self.gw and spa == self.gw and sha != b"\0" * 6:
            mac = mac_to_str(sha)
            if mac != self.gw_mac:
                self.gw_mac = mac
                self.emit(ev="arp", ip=socket.inet_ntoa(spa), mac=mac)
        if op == 1 and self.ip and tpa == self.ip and spa != self.ip:
            self.send_ctl(self.arp_frame(2, sha, sha, self.ip, spa))

    def handle_ipv6(self, data):
        ethertype, off = self._strip_vlan(data)
        if ethertype != 0x86DD or not self.ipv6 or len(data) < off + 64:
            return
        if data[off + 6] != 58 or data[off + 40] != 135:
            return
        target = data[off + 48:off + 64]
        if target != self.ipv6:
            return
        src_ip = data[off + 8:off + 24]
        dst_mac = data[6:12]
        if src_ip == b"\0" * 16:  # DAD probe: answer to all-nodes
            src_ip_reply = socket.inet_pton(socket.AF_INET6, "ff02::1")
            dst_mac = b"\x33\x33\x00\x00\x00\x01"
            flags = 0x20000000
        else:
            src_ip_reply = src_ip
            flags = 0x60000000
        body = struct.pack("!BBHI", 136, 0, 0, flags) + target + struct.pack("!BB", 2, 1) + self.mac_raw
        pseudo = self.ipv6 + src_ip_reply + struct.pack("!I3xB", len(body), 58)
        body = body[:2] + struct.pack("!H", inet_checksum(pseudo + body)) + body[4:]
        ip6 = struct.pack("!IHBB", 0x60000000, len(body), 58, 255) + self.ipv6 + src_ip_reply
        self.send_ctl(dst_mac + self.mac_raw + self._vlan_hdr(0x86DD) + ip6 + body)

    def rx_socket(self, proto, stop=None):
        """An AF_PACKET socket bound to the port for ``proto``: blocking, unless a capture's stop event must be seen."""
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
        sock.bind((self.iface, proto))
        sock.settimeout(0.2 if stop is not None else None)
        return sock

    def rx_loop(self, proto, handler, stop=None, sock=None):
        """``handler(frame)`` for each frame that arrives (not the port's own); ``sock`` an open :meth:`rx_socket`."""
        sock = sock or self.rx_socket(proto, stop)
        try:
            while not self.quit.is_set() and not (stop is not None and stop.is_set()):
                try:
                    data, addr = sock.recvfrom(2048)
                except socket.timeout:
                    continue
                except OSError:
                    break
                if stop is not None and stop.is_set():
                    # the frame a stopped capture's reader was waiting for is the next capture's: that capture's own
                    # reader copies it (handled here too, it was in the next capture twice)
                    break
                if addr[2] == fastio.PACKET_OUTGOING:
                    continue
                handler(data)
        finally:
            sock.close()

    def latency_rx_loop(self):
        """Account every frame the trailer filter lets through (the receive time is taken right after recvfrom)."""
        try:
            sock = fastio.open_latency_socket(self.iface)
        except OSError as exc:
            self.emit(ev="error", msg="flow stats RX unavailable: {0}".format(exc))
            return
        sock.settimeout(None)  # blocking: the worker's exit ends this daemon thread
        try:
            while not self.quit.is_set():
                try:
                    data, addr = sock.recvfrom(65536)
                except socket.timeout:
                    continue
                except OSError:
                    break
                now = time.monotonic_ns()
                trailer = unpack_trailer(data)
                if trailer is None or addr[2] == fastio.PACKET_OUTGOING:
                    continue
                flow_seq, hw_id, seq, stamp = trailer
                with self.pg_lock:
                    acc = self.pg_rx.get(hw_id)
                    if acc is None:
                        acc = self.pg_rx[hw_id] = LatencyStats()
                    acc.add(flow_seq, seq, (now - stamp) / 1000.0, len(data) + FCS)
        finally:
            sock.close()

    def pg_clear(self, gen, hw_ids):
        """Reset the flow stats of ``hw_ids`` (all when None); later reports carry ``gen``."""
        with self.pg_lock:
            self.pg_gen = gen
            for table in (self.pg_tx, self.pg_rx):
                for hw_id in list(table) if hw_ids is None else hw_ids:
                    table.pop(hw_id, None)

    def emit_rx(self, data):
        self.emit(ev="rx", ts=time.time(), data=base64.b64encode(data).decode())

    def set_capture(self, enabled):
        """Copy every arriving frame to the server (``ev: rx``) while a capture wants this port."""
        if self.null:
            return
        if enabled and self.capture_stop is None:
            # the socket is bound before the command is confirmed: a frame pushed once
            # start_capture returned (the client's map_ports) is captured
            self.capture_stop = threading.Event()
            sock = self.rx_socket(fastio.ETH_P_ALL, self.capture_stop)
            threading.Thread(target=self.rx_loop, args=(fastio.ETH_P_ALL, self.emit_rx, self.capture_stop, sock), daemon=True).start()
        elif not enabled and self.capture_stop is not None:
            self.capture_stop.set()
            self.capture_stop = None

    def resolver_loop(self):
        """ARP requests for the gateway every 0.5 s while its MAC is unknown; asleep otherwise, until ``resolve``."""
        while not self.quit.is_set():
            if self.gw and not self.gw_mac:
                self.quit.wait(0.5)
                if self.gw and not self.gw_mac:
                    self.send_arp_request()
            else:
                self.resolve.wait()
                self.resolve.clear()

    # ---------------------------------------------------------------- commands
    def handle_cmd(self, cmd):
        kind = cmd.get("cmd")
        now = time.monotonic()
        if kind == "quit":
            self.quit.set()
        elif kind == "start":
            self.run_id = cmd.get("run", 0)
            self.start(cmd)
        elif kind == "stop":
            if self.running:
                self.running = False
                self.active = []
        elif kind == "pause":
            self.paused = True
        elif kind == "resume":
            if self.paused:
                self.paused = False
                for stream in self.active:
                    stream.last = max(stream.last, now)
        elif kind == "rate":
            factor = float(cmd.get("factor", 1.0))
            for stream in self.streams.values():
                stream.pps *= factor
        elif kind == "l3":
            self.ip = socket.inet_aton(cmd["src"]) if cmd.get("src") else None
            self.gw = socket.inet_aton(cmd["dst"]) if cmd.get("dst") else None
            self.gw_mac = cmd.get("resolved_mac")
            self.send_grat_arp()
            if self.gw and not self.gw_mac:
                self.send_arp_request()
                self.resolve.set()
        elif kind == "l2":
            self.ip = self.gw = self.gw_mac = None
        elif kind == "vlan":
            self.vlan = [int(v) for v in cmd.get("tags", [])]
        elif kind == "ipv6":
            self.ipv6 = socket.inet_pton(socket.AF_INET6, cmd["src"]) if cmd.get("src") else None
        elif kind == "capture":
            self.set_capture(bool(cmd.get("on")))
        elif kind == "pg_clear":
            self.pg_clear(int(cmd.get("gen", 0)), cmd.get("hw_ids"))
        elif kind == "push":
            for pkt in cmd.get("pkts", []):
                frame = base64.b64decode(pkt)
                self.send_ctl(frame)
                self.counters["opackets"] += 1
                self.counters["obytes"] += len(frame) + FCS

    def make_ring(self, frames):
        if self.tx_mode == "sendmmsg":
            return fastio.FrameRing(frames)
        try:
            return fastio.TxRing(self.iface, frames, linear=self.tx_mode == "ring")
        except OSError as exc:
            self.emit(ev="error", msg="PACKET_TX_RING unavailable ({0}); using sendmmsg".format(exc))
            return fastio.FrameRing(frames)

    def close_rings(self):
        for stream in self.streams.values():
            close = getattr(stream.ring, "close", None)
            if close:
                close()
        self.streams = {}

    def start(self, cmd):
        self.close_rings()
        flows = {}
        try:
            for spec in cmd["streams"]:
                frames, cycle = build_source(base64.b64decode(spec["packet"]), spec.get("vm"), self.ring_cap, spec.get("seed"))
                if spec.get("pg"):
                    # a flow-stats stream sends at latency rates: the ring's frames, round and round
                    ring = TrailerRing(frames, self.tx, self.new_flow(flows, spec["pg"]["hw_id"]))
                else:
                    ring = NullRing(frames) if self.null else self.make_ring(frames)
                    ring.cycle = cycle
                self.streams[spec["id"]] = TxStream(spec, ring)
        except (FieldEngineError, ValueError, KeyError) as exc:
            self.emit(ev="error", msg="start failed: {0}".format(exc))
            self.emit(ev="done", run=self.run_id)
            return
        now = time.monotonic()
        self.active = []
        for stream in self.streams.values():
            if stream.self_start:
                stream.activate(now, stream.isg)
                self.active.append(stream)
        duration = cmd.get("duration", -1)
        self.end = now + duration if duration and duration > 0 else None
        self.running = True
        self.paused = False
        self.emit(ev="started", rings={str(k): s.ring.count for k, s in self.streams.items()})

    def new_flow(self, flows, hw_id):
        """The trailer state [flow_seq, hw_id, next seq] of ``hw_id`` for this start: flow_seq + 1, seq from 0.

        Streams of one pg_id on this port share it (``flows``), so seq counts per pg_id.
        """
        if hw_id not in flows:
            self.flow_seq[hw_id] = (self.flow_seq.get(hw_id, 0) + 1) & 0xFF
            flows[hw_id] = [self.flow_seq[hw_id], hw_id, 0]
        return flows[hw_id]

    # ---------------------------------------------------------------- TX loop
    def _send(self, stream, n):
        try:
            sent, nbytes = stream.ring.send(self.tx.fileno(), n)
        except OSError as exc:
            if exc.errno in (errno.ENOBUFS, errno.EAGAIN):
                return 0
            self.counters["oerrors"] += 1
            return 0
        self.counters["opackets"] += sent
        self.counters["obytes"] += nbytes + FCS * sent
        if stream.hw_id is not None and sent:
            with self.pg_lock:
                counts = self.pg_tx.setdefault(stream.hw_id, [0, 0])
                counts[0] += sent
                counts[1] += nbytes + FCS * sent
        return sent

    def _finish_burst(self, stream, now, finished):
        stream.bursts_left -= 1
        if stream.bursts_left > 0:
            stream.remaining = stream.burst
            stream.wait_until = now + stream.ibg
            stream.last = stream.wait_until
            stream.credit = 0.0
            return
        finished.append(stream)
        nxt = self.streams.get(stream.next_id)
        if nxt is not None:
            nxt.activate(now, nxt.isg)
            if nxt not in self.active:
                self.active.append(nxt)

    def tx_step(self):
        now = time.monotonic()
        final = self.end is not None and now >= self.end
        if final:
            now = self.end  # send what was due up to the end of the duration, then stop
        next_due = now + 0.002
        finished = []
        sent_any = False
        for stream in self.active:
            if stream.wait_until > now:
                next_due = min(next_due, stream.wait_until)
                continue
            stream.credit += (now - stream.last) * stream.pps
            stream.last = now
            stream.credit = min(stream.credit, max(64.0, stream.pps * 0.005))
            want = int(stream.credit)
            if stream.remaining is not None:
                want = min(want, stream.remaining)
            if want > 0:
                sent = self._send(stream, want)
                stream.credit -= sent
                # a full kernel ring (sent == 0) is retried at once rather than slept on
                sent_any = True
                if stream.remaining is not None:
                    stream.remaining -= sent
                    if stream.remaining <= 0:
                        self._finish_burst(stream, now, finished)
            elif stream.pps > 0:
                next_due = min(next_due, now + (1.0 - stream.credit) / stream.pps)
        for stream in finished:
            if stream in self.active and stream.bursts_left <= 0 and stream.remaining is not None:
                self.active.remove(stream)
        if final:
            self.active = []
        if not self.active:
            self.running = False
            self.emit(**self.stats())
            self.emit(ev="done", run=self.run_id)
            return
        if not sent_any:
            delay = next_due - time.monotonic()
            if delay > 0:
                time.sleep(min(delay, 0.002))

    def run(self):
        threads = [threading.Thread(target=self.stdin_loop, daemon=True),
                   threading.Thread(target=self.stats_loop, daemon=True)]
        if not self.null:
            threads.append(threading.Thread(target=self.rx_loop, args=(fastio.ETH_P_ARP, self.handle_arp), daemon=True))
            threads.append(threading.Thread(target=self.rx_loop, args=(fastio.ETH_P_IPV6, self.handle_ipv6), daemon=True))
            threads.append(threading.Thread(target=self.resolver_loop, daemon=True))
            threads.append(threading.Thread(target=self.latency_rx_loop, daemon=True))
        for thread in threads:
            thread.start()
        self.emit(ev="hello", mac=self.mac, speed=10, pid=os.getpid())
        while not self.quit.is_set():
            busy = self.running and not self.paused
            try:
                cmd = self.cmds.get_nowait() if busy else self.cmds.get(timeout=IDLE_STATS_INTERVAL)
            except queue.Empty:
                cmd = None
            if cmd is not None:
                self.stats_wake.set()
            while cmd is not None:
                self.handle_cmd(cmd)
                if "ack" in cmd:
                    # the server waits for this: what was sent up to the command is in the counters
                    self.emit(**self.stats())
                    self.emit(ev="ack", id=cmd["ack"])
                try:
                    cmd = self.cmds.get_nowait()
                except queue.Empty:
                    cmd = None
            if self.running and not self.paused:
                self.tx_step()
        self.emit(**self.stats())


# The namespace's kernel sends no ICMP error messages (see silence_icmp_errors).
ICMP_SILENCE = {"/proc/sys/net/ipv4/icmp_msgs_per_sec": "0", "/proc/sys/net/ipv4/icmp_msgs_burst": "0"}


def silence_icmp_errors():
    """A TRex port is no IP host: it answers ARP and neighbour solicitations for its address, nothing else.

    The kernel of the namespace a softgen port lives in is one: it answered
    the bench's UDP to its address (a NAT or LB backend) with ICMP port
    unreachable, up to 1,000 a second, a load on the DUT the bench did not
    ask for; and the ARP refreshes those replies needed came back to the
    receiving ports as frames the bench never sent (a receiver that counted
    more than was sent, a negative loss).  So the worker sets the namespace's
    global ICMP rate limit to zero (``net.ipv4.icmp_msgs_per_sec`` and
    ``icmp_msgs_burst``, per namespace): no destination-unreachable,
    time-exceeded or parameter-problem messages; echo replies are not
    rate-limited and still go out (the lab's ping checks).
    """
    for path, value in ICMP_SILENCE.items():
        try:
            with open(path, "w") as handle:
                handle.write(value)
        except OSError as error:
            sys.stderr.write("softgen portworker: cannot write %s (%s); the namespace's kernel may answer frames with ICMP\n" % (path, error))


def main(argv=None):
    parser = argparse.ArgumentParser(description="softgen port worker")
    parser.add_argument("--netns", default="-")
    parser.add_argument("--iface", required=True)
    parser.add_argument("--ring-cap", type=int, default=DEFAULT_RING_CAP)
    parser.add_argument("--tx-mode", choices=fastio.TX_MODES, default=fastio.TX_MODES[0])
    args = parser.parse_args(argv)
    if os.getpriority(os.PRIO_PROCESS, 0) < 0:
        # the server may run at nice -10 (softgen.__main__.raise_priority): a busy sender must not
        os.setpriority(os.PRIO_PROCESS, 0, 0)
    fastio.enter_netns(args.netns)
    if args.netns != "-":
        silence_icmp_errors()
    worker = PortWorker(args.iface, args.ring_cap, args.tx_mode)
    worker.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
