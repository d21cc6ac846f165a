"""What a port worker sends for TRex's ``start_traffic``: each stream's schedule and the frame sources without a TX ring.

:class:`TxStream` is the scheduling state of one stream (continuous, single
or multi burst, ``next_stream_id``); :class:`NullRing` and :class:`NullSink`
stand in for the ring and the socket of a ``null`` port; :class:`TrailerRing`
sends a flow-stats stream's frames with the latency trailer of
:mod:`softgen.latency`. The rings of real ports are :mod:`softgen.fastio`'s.
"""
import socket
import time

from softgen import fastio
from softgen.latency import write_trailer


class NullSink:
    """Stand-in for the TX socket of a ``null`` port."""

    @staticmethod
    def fileno():
        return -1

    def send(self, data, _flags=0):
        return len(data)

    def close(self):
        pass


class TxStream:
    """Scheduling state of one stream on this port."""

    def __init__(self, spec, ring):
        self.sid = spec["id"]
        self.ring = ring
        self.pps = float(spec["pps"])
        mode = spec.get("mode", {})
        self.mode = mode.get("type", "continuous")
        self.isg = float(spec.get("isg", 0)) / 1e6
        self.next_id = spec.get("next", -1)
        self.self_start = spec.get("self_start", True)
        self.hw_id = spec["pg"]["hw_id"] if spec.get("pg") else None
        self.burst = None
        self.bursts = 1
        self.ibg = 0.0
        if self.mode == "single_burst":
            self.burst = int(mode.get("total_pkts", 1))
        elif self.mode == "multi_burst":
            self.burst = int(mode.get("pkts_per_burst", 1))
            self.bursts = int(mode.get("count", 1))
            self.ibg = float(mode.get("ibg", 0)) / 1e6
        self.remaining = None
        self.bursts_left = 0
        self.credit = 0.0
        self.last = 0.0
        self.wait_until = 0.0

    def activate(self, now, delay):
        self.remaining = self.burst
        self.bursts_left = self.bursts
        self.credit = 0.0
        self.wait_until = now + delay
        self.last = self.wait_until


class NullRing:
    """Ring for a ``null`` port: sends nothing, accepts everything (with a ``cycle``, its frames are built as for a real port)."""

    def __init__(self, frames):
        self.count = len(frames)
        self.lengths = [len(f) for f in frames]
        self.pos = 0
        self.cycle = None

    def send(self, _fd, n):
        n = min(n, fastio.MAX_BATCH)
        if self.cycle is not None:
            self.cycle.take(n)
        nbytes = 0
        for _i in range(n):
            nbytes += self.lengths[self.pos]
            self.pos = (self.pos + 1) % self.count
        return n, nbytes


class TrailerRing:
    """Frames of a flow-stats stream: each send takes the field engine's next frame, writes the trailer
    (flow_seq, hw_id, next seq, send time) into its last 16 bytes, fixes the L4 checksum and sends it
    with ``send()`` on the port's socket (the null port's sink counts it)."""

    def __init__(self, frames, sock, flow):
        self.frames = frames
        self.count = len(frames)
        self.sock = sock
        self.flow = flow
        self.pos = 0

    def send(self, _fd, n):
        """Send up to ``n`` frames; return (frames, bytes). Raises OSError only when none was sent."""
        sent = nbytes = 0
        flow_seq, hw_id, seq = self.flow
        for _i in range(min(n, fastio.MAX_BATCH)):
            buf = bytearray(self.frames[self.pos])
            write_trailer(buf, flow_seq, hw_id, seq + sent, time.monotonic_ns())
            try:
                self.sock.send(buf, socket.MSG_DONTWAIT)
            except OSError:
                if not sent:
                    raise
                break
            sent += 1
            nbytes += len(buf)
            self.pos = (self.pos + 1) % self.count
        self.flow[2] = seq + sent
        return sent, nbytes
