"""Flow statistics and latency: the frame trailer and its accounting (no sockets, unit-testable).

A frame of a flow-stats stream (``"flow_stats": {"enabled": true, ...}``,
rule type ``latency`` or ``stats``) carries in its last 16 bytes, in network
byte order (similar to TRex's ``flow_stat_payload_header``)::

    magic      uint8   0xAB
    flow_seq   uint8   +1 per start of the sending port (packets of the previous start are "old flow")
    hw_id      uint16  pg_id & 0xFFFF
    seq        uint32  per pg_id on the sending port, from 0 at each start, +1 per frame
    time_stamp uint64  time.monotonic_ns() of the sender just before the send

The sending and the receiving port workers run on the same host, so both
read the same ``CLOCK_MONOTONIC`` (network namespaces do not change it).
"""
import struct

from softgen.fieldengine import l4_checksum

MAGIC = 0xAB
TRAILER = struct.Struct("!BBHIQ")
TRAILER_LEN = struct.calcsize("!BBHIQ")
VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)
SEQ_MOD = 1 << 32
JITTER_GAIN = 16.0


def pack_trailer(flow_seq, hw_id, seq, time_stamp):
    return TRAILER.pack(MAGIC, flow_seq & 0xFF, hw_id & 0xFFFF, seq % SEQ_MOD, time_stamp)


def unpack_trailer(frame):
    """(flow_seq, hw_id, seq, time_stamp) of the frame's trailer, or None without the magic byte."""
    if len(frame) < TRAILER_LEN or frame[-TRAILER_LEN] != MAGIC:
        return None
    return TRAILER.unpack_from(frame, len(frame) - TRAILER_LEN)[1:]


def l4_offsets(frame):
    """(l3 offset, l4 offset, IP protocol, payload offset) of an Ethernet frame, VLAN tags skipped.

    Offsets that do not apply are None; the payload offset is where the data
    after the last header this parser knows (Ethernet, IPv4, IPv6 without
    extension headers, UDP, TCP) starts. None when the headers are cut short.
    """
    if len(frame) < 14:
        return None
    off = 12
    ethertype = struct.unpack_from("!H", frame, off)[0]
    while ethertype in VLAN_TPIDS and len(frame) >= off + 6:
        off += 4
        ethertype = struct.unpack_from("!H", frame, off)[0]
    l3_off = off + 2
    if ethertype == 0x0800 and len(frame) >= l3_off + 20:
        ihl = (frame[l3_off] & 0x0F) * 4
        frag = struct.unpack_from("!H", frame, l3_off + 6)[0] & 0x3FFF
        proto = frame[l3_off + 9] if not frag else None
        l4_off = l3_off + ihl
    elif ethertype == 0x86DD and len(frame) >= l3_off + 40:
        proto = frame[l3_off + 6]
        l4_off = l3_off + 40
    else:
        return None, None, None, l3_off
    if proto == 17:
        payload_off = l4_off + 8
    elif proto == 6 and len(frame) >= l4_off + 13:
        payload_off = l4_off + (frame[l4_off + 12] >> 4) * 4
    elif proto == 6:
        return None
    else:
        return l3_off, l4_off, proto, l4_off
    if payload_off > len(frame):
        return None
    return l3_off, l4_off, proto, payload_off


def trailer_room(frame):
    """True when the last 16 bytes of ``frame`` lie after its L4 header."""
    offsets = l4_offsets(frame)
    return offsets is not None and offsets[3] + TRAILER_LEN <= len(frame)


def fix_l4_checksum(buf):
    """Recompute the UDP or TCP checksum (IPv4 or IPv6, VLAN tags allowed) of ``buf`` in place."""
    offsets = l4_offsets(buf)
    if offsets is None or offsets[2] not in (6, 17):
        return
    l3_off, l4_off, proto, _payload = offsets
    l4_checksum(buf, l3_off, l4_off, 13 if proto == 6 else 11)


def write_trailer(buf, flow_seq, hw_id, seq, time_stamp):
    """Put the trailer into the last 16 bytes of the bytearray ``buf`` and fix its L4 checksum."""
    buf[-TRAILER_LEN:] = pack_trailer(flow_seq, hw_id, seq, time_stamp)
    fix_l4_checksum(buf)


def hist_bucket(usec):
    """TRex's latency histogram key: the lower bound in usec of 0-10, 10-20 .. 90-100, 100-200 .. 900-1000, 1000-2000 .."""
    usec = int(usec)
    if usec < 10:
        return 0
    scale = 10 ** (len(str(usec)) - 1)
    return usec // scale * scale


class LatencyStats:
    """What one port received of one hw_id: counters, latency and sequence errors.

    ``average`` is the plain mean over all samples (TRex applies a low-pass
    filter per sampling period); ``jitter`` follows RFC 3550 appendix A.8
    (J += (|D(i-1,i)| - J) / 16, D the difference of consecutive latencies).
    Sequence errors follow TRex's rules (see the client's get_pgid_stats):
    a seq above the expected one counts the gap as dropped and a
    seq_too_high event; the expected seq minus one is a duplicate; anything
    lower is out of order and takes one back from dropped; both low cases
    count a seq_too_low event.
    """

    def __init__(self):
        self.pkts = 0
        self.bytes = 0
        self.samples = 0
        self.sum_usec = 0.0
        self.total_max = 0.0
        self.window_max = 0.0
        self.jitter = 0.0
        self.last_usec = None
        self.hist = {}
        self.flow_seq = None
        self.prev_flow_seq = None
        self.exp_seq = 0
        self.errors = dict.fromkeys(("drp", "ooo", "dup", "sth", "stl"), 0)
        self.old_flow = 0
        self.bad_hdr = 0

    def add(self, flow_seq, seq, latency_usec, nbytes):
        """Account one received frame (``nbytes`` as counted on the wire)."""
        self.pkts += 1
        self.bytes += nbytes
        if latency_usec < 0:
            self.bad_hdr += 1
            return
        if flow_seq != self.flow_seq:
            if self.flow_seq is not None and flow_seq == self.prev_flow_seq:
                self.old_flow += 1
                return
            self.prev_flow_seq, self.flow_seq = self.flow_seq, flow_seq
            self.exp_seq = 0
            self.last_usec = None
        self._sequence(seq)
        self._latency(latency_usec)

    def _sequence(self, seq):
        diff = (seq - self.exp_seq) % SEQ_MOD
        if diff >= SEQ_MOD // 2:
            diff -= SEQ_MOD
        if diff == 0:
            self.exp_seq = (seq + 1) % SEQ_MOD
        elif diff > 0:
            self.errors["drp"] += diff
            self.errors["sth"] += 1
            self.exp_seq = (seq + 1) % SEQ_MOD
        else:
            if diff == -1:
                self.errors["dup"] += 1
            else:
                self.errors["ooo"] += 1
                self.errors["drp"] = max(0, self.errors["drp"] - 1)
            self.errors["stl"] += 1

    def _latency(self, usec):
        self.samples += 1
        self.sum_usec += usec
        self.total_max = max(self.total_max, usec)
        self.window_max = max(self.window_max, usec)
        if self.last_usec is not None:
            self.jitter += (abs(usec - self.last_usec) - self.jitter) / JITTER_GAIN
        self.last_usec = usec
        key = hist_bucket(usec)
        self.hist[key] = self.hist.get(key, 0) + 1

    def snapshot(self):
        """Cumulative state as JSON data; ``wmax`` is the max since the previous snapshot (then reset)."""
        snap = {"rp": self.pkts, "rb": self.bytes, "n": self.samples, "sum": self.sum_usec, "max": self.total_max,
                "wmax": self.window_max, "jit": self.jitter, "hist": {str(k): v for k, v in self.hist.items()},
                "er": dict(self.errors), "old_flow": self.old_flow, "bad_hdr": self.bad_hdr}
        self.window_max = 0.0
        return snap


def merge_latency(snaps, last_max):
    """The ``latency`` entry of one pg_id (TRex wire shape) from the snapshots of the ports that received it.

    The histogram is left out while empty: the client takes its minimum key.
    """
    hist = {}
    errors = dict.fromkeys(("drp", "ooo", "dup", "sth", "stl"), 0)
    samples = 0
    total = 0.0
    total_max = 0.0
    jitter = 0.0
    most = 0
    for snap in snaps:
        for key, count in snap["hist"].items():
            hist[key] = hist.get(key, 0) + count
        for key in errors:
            errors[key] += snap["er"].get(key, 0)
        samples += snap["n"]
        total += snap["sum"]
        total_max = max(total_max, snap["max"])
        if snap["n"] > most:
            most = snap["n"]
            jitter = snap["jit"]
    lat = {"average": total / samples if samples else 0.0, "total_max": total_max, "last_max": last_max, "jit": jitter}
    if hist:
        lat["histogram"] = hist
    return {"lat": lat, "er": errors}


class RateMeter:
    """Per-second rates of cumulative counters over about ``window`` seconds."""

    def __init__(self, window=1.0):
        self.window = window
        self.history = []

    def add(self, now, values):
        self.history.append((now, tuple(values)))
        while len(self.history) > 2 and now - self.history[1][0] >= self.window:
            self.history.pop(0)

    def rates(self):
        """Rates between the oldest and the newest sample (zeros until two samples are apart in time)."""
        (start, first), (end, last) = self.history[0], self.history[-1]
        span = end - start
        return tuple((b - a) / span if span > 0 else 0.0 for a, b in zip(first, last))
