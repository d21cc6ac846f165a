"""Batched raw-frame transmit.

:class:`TxRing` (preferred): the frames are written once into a
``PACKET_TX_RING`` (TPACKET_V2) shared with the kernel; sending a batch is
flipping the batch's status words to ``TP_STATUS_SEND_REQUEST`` (one strided
memoryview assignment) and one ``send()``; no per-frame system call or copy
from Python. By default each slot starts with a ``virtio_net_hdr``
(``PACKET_VNET_HDR``) whose ``hdr_len`` is the whole frame, so the kernel
copies the small frame into the socket buffer's head. Without it the frame
rides as a page fragment of the ring, and a veth (``__dev_forward_skb``) must
allocate a page and copy it out again (``skb_copy_ubufs``) for every frame:
``benchmarks/generator_ceiling.py`` measures both (``--tx-mode``).

:class:`FrameRing` (fallback): a ring of frames sent with ``sendmmsg(2)``.

Each frame of the ring lives once in one contiguous buffer; the ``mmsghdr``
array is laid out twice (entries ``i`` and ``i + n`` point at the same frame)
so any batch starting anywhere in the ring is one contiguous slice and one
system call. ctypes releases the GIL during the call.

:func:`open_latency_socket`: the receive side of flow stats, an AF_PACKET
socket whose classic BPF filter keeps everything but trailer frames in the kernel.
"""
import array
import ctypes
import ctypes.util
import errno
import math
import mmap
import os
import socket
import struct

SOL_PACKET = 263
PACKET_QDISC_BYPASS = 20
PACKET_VERSION = 10
PACKET_TX_RING = 13
PACKET_VNET_HDR = 15
VNET_HDR_LEN = 10  # struct virtio_net_hdr
TPACKET_V2 = 1
TP_STATUS_SEND_REQUEST = 1
TPACKET2_DATA = 32  # TPACKET_ALIGN(sizeof(struct tpacket2_hdr)): where a TX frame's data starts
TX_RING_MAX_BYTES = 64 * 1024 * 1024
ETH_P_ALL = 0x0003
ETH_P_ARP = 0x0806
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
SKF_AD_PKTTYPE = 0xFFFFF004  # SKF_AD_OFF (-0x1000) + SKF_AD_PKTTYPE (4): the ancillary "packet type" word
CLONE_NEWNET = 0x40000000
MAX_BATCH = 1024  # UIO_MAXIOV
# how a port worker transmits: TX ring with frames copied into the skb head (default),
# TX ring with frames as page fragments, or sendmmsg(2)
TX_MODES = ("ring", "ring-frags", "sendmmsg")

_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_LIBC.sendmmsg.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_uint, ctypes.c_int]
_LIBC.sendmmsg.restype = ctypes.c_int
_LIBC.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_LIBC.setns.restype = ctypes.c_int


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


class MsgHdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.POINTER(IoVec)),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]


class MMsgHdr(ctypes.Structure):
    _fields_ = [("hdr", MsgHdr), ("len", ctypes.c_uint)]


MMSG_SIZE = ctypes.sizeof(MMsgHdr)


def enter_netns(name):
    """Move the calling process (before it starts threads) into network namespace ``name``."""
    if not name or name == "-":
        return
    path = name if name.startswith("/") else os.path.join("/var/run/netns", name)
    fd = os.open(path, os.O_RDONLY)
    try:
        if _LIBC.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, "setns({0}): {1}".format(path, os.strerror(err)))
    finally:
        os.close(fd)


def open_tx_socket(iface):
    """An AF_PACKET socket bound to ``iface`` that only transmits (protocol 0 receives nothing)."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    sock.bind((iface, 0))
    try:
        sock.setsockopt(SOL_PACKET, PACKET_QDISC_BYPASS, 1)
    except OSError:
        pass
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * 1024 * 1024)
    except OSError:
        pass
    return sock


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.c_void_p)]


# classic BPF: drop what this host sends (PACKET_OUTGOING), pass frames whose byte at (length - 16) is 0xAB
TRAILER_BPF = (
    (0x20, 0, 0, SKF_AD_PKTTYPE),   # ld [pkttype]
    (0x15, 6, 0, PACKET_OUTGOING),  # jeq #PACKET_OUTGOING, drop
    (0x80, 0, 0, 0),                # ld len
    (0x14, 0, 0, 16),               # sub #16
    (0x07, 0, 0, 0),                # tax
    (0x50, 0, 0, 0),                # ldb [x + 0]  (out of the frame: the filter returns 0)
    (0x15, 0, 1, 0xAB),             # jeq #0xab, pass, drop
    (0x06, 0, 0, 0x40000),          # pass: ret #262144
    (0x06, 0, 0, 0),                # drop: ret #0
)


def open_latency_socket(iface):
    """An AF_PACKET socket on ``iface`` that only receives incoming frames carrying a flow-stats trailer.

    The filter runs in the kernel, so the data traffic never reaches Python; it
    is attached before the socket is bound to a protocol, so no unfiltered frame
    is queued in between.
    """
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    try:
        prog = (SockFilter * len(TRAILER_BPF))(*[SockFilter(*ins) for ins in TRAILER_BPF])
        fprog = SockFprog(len(TRAILER_BPF), ctypes.addressof(prog))
        sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, bytes(memoryview(fprog)))
        sock.bind((iface, ETH_P_ALL))
    except OSError:
        sock.close()
        raise
    return sock


class FrameRing:
    """Frames ready to send; ``send(fd, n)`` sends the next ``n`` frames of the ring."""

    def __init__(self, frames):
        if not frames:
            raise ValueError("empty ring")
        self.count = len(frames)
        self.lengths = [len(f) for f in frames]
        self.nbytes = sum(self.lengths)
        self._buf = ctypes.create_string_buffer(b"".join(frames), self.nbytes)
        self._iov = (IoVec * self.count)()
        self._msgs = (MMsgHdr * (2 * self.count))()
        base = ctypes.addressof(self._buf)
        off = 0
        for i, length in enumerate(self.lengths):
            self._iov[i].base = base + off
            self._iov[i].len = length
            off += length
        iov_size = ctypes.sizeof(IoVec)
        iov_base = ctypes.addressof(self._iov)
        for i in range(2 * self.count):
            hdr = self._msgs[i].hdr
            hdr.iov = ctypes.cast(iov_base + (i % self.count) * iov_size, ctypes.POINTER(IoVec))
            hdr.iovlen = 1
        self._msgs_addr = ctypes.addressof(self._msgs)
        # prefix sums of frame lengths over the doubled ring, to count bytes of a batch in O(1)
        self._prefix = [0]
        for i in range(2 * self.count):
            self._prefix.append(self._prefix[-1] + self.lengths[i % self.count])
        self.pos = 0
        # a fieldengine.FlowCycle: the frames of the next slots are written from it before they are sent
        self.cycle = None

    def _refill(self, n):
        """Write the cycle's next ``n`` frames into the slots from ``pos`` on (every frame of a cycle has its slot's length)."""
        for i, frame in enumerate(self.cycle.peek(n)):
            slot = (self.pos + i) % self.count
            ctypes.memmove(self._iov[slot].base, frame, self.lengths[slot])

    def send(self, fd, n):
        """Send up to ``n`` frames; return (frames sent, bytes sent). Raises OSError only when none was sent."""
        n = min(n, self.count, MAX_BATCH)
        if n <= 0:
            return 0, 0
        if self.cycle is not None:
            self._refill(n)
        sent = _LIBC.sendmmsg(fd, self._msgs_addr + self.pos * MMSG_SIZE, n, 0)
        if sent < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        if self.cycle is not None:
            self.cycle.advance(sent)
        nbytes = self._prefix[self.pos + sent] - self._prefix[self.pos]
        self.pos = (self.pos + sent) % self.count
        return sent, nbytes


_ONES = memoryview(array.array("I", [TP_STATUS_SEND_REQUEST] * MAX_BATCH))
_ZEROS = bytes(4 * MAX_BATCH)


class TxRing:
    """Frames pre-written into a kernel TX ring of their own socket; ``send(_, n)`` queues the next ``n``.

    The ring holds a multiple of the frame count when it fits in
    ``TX_RING_MAX_BYTES``, so the flow sequence has no seam at the wrap.
    ``linear``: each frame is copied into its socket buffer's head (a
    ``virtio_net_hdr`` with ``hdr_len`` = frame length precedes it in the slot);
    ``self.vnet`` is 0 when that was not asked or the kernel refused it, and the
    frame then stays a fragment of the ring's page.
    """

    def __init__(self, iface, frames, max_bytes=TX_RING_MAX_BYTES, linear=True):
        if not frames:
            raise ValueError("empty ring")
        self.count = len(frames)
        frame_size = 64
        while frame_size < TPACKET2_DATA + VNET_HDR_LEN + max(len(f) for f in frames):
            frame_size *= 2
        per_block, block_size = self._geometry(frame_size, self.count)
        blocks = self.count // math.gcd(per_block, self.count)
        while per_block * blocks < 4 * MAX_BATCH:
            blocks *= 2
        if block_size * blocks > max_bytes:
            blocks = max(1, max_bytes // block_size)
        self.slots = per_block * blocks
        self.sock = open_tx_socket(iface)
        try:
            # before the ring: the kernel refuses PACKET_VNET_HDR on a socket that has one
            self.vnet = VNET_HDR_LEN if linear else 0
            if self.vnet:
                try:
                    self.sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
                except OSError:
                    self.vnet = 0
            self.sock.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V2)
            self.sock.setsockopt(SOL_PACKET, PACKET_TX_RING, struct.pack("IIII", block_size, blocks, frame_size, self.slots))
            self.map = mmap.mmap(self.sock.fileno(), block_size * blocks, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except OSError:
            self.sock.close()
            raise
        self.lengths = [len(f) for f in frames]
        self.nbytes = sum(self.lengths)
        self.frame_size = frame_size
        for slot in range(self.slots):
            self._write_slot(slot, frames[slot % self.count])
        self.stride = frame_size // 4
        self.status = memoryview(self.map).cast("I")
        self._prefix = [0]
        for slot in range(self.slots):
            self._prefix.append(self._prefix[-1] + self.lengths[slot % self.count])
        self.pos = 0
        # a fieldengine.FlowCycle: the frames of the next slots are written from it before they are sent
        self.cycle = None

    def _write_slot(self, slot, frame):
        off = slot * self.frame_size
        struct.pack_into("II", self.map, off, 0, self.vnet + len(frame))
        if self.vnet:
            # virtio_net_hdr: no checksum offload, no GSO, hdr_len = the whole frame (copied into the skb's head)
            struct.pack_into("=BBHHHH", self.map, off + TPACKET2_DATA, 0, 0, len(frame), 0, 0, 0)
        data = off + TPACKET2_DATA + self.vnet
        self.map[data:data + len(frame)] = frame

    @staticmethod
    def _geometry(frame_size, count):
        """(frames per block, block size): blocks as large as 64 KiB (the kernel walks them faster than
        single pages) while the ring stays a small multiple of ``count``."""
        if frame_size >= mmap.PAGESIZE:
            return 1, frame_size
        base = mmap.PAGESIZE // frame_size
        best = base
        for per_block in range(base * (16 * mmap.PAGESIZE // frame_size // base), base - 1, -base):
            if per_block * count // math.gcd(per_block, count) <= max(8 * MAX_BATCH, count):
                best = per_block
                break
        return best, best * frame_size

    def send(self, _fd, n):
        """Queue and transmit up to ``n`` frames; return (frames, bytes). (0, 0) while the kernel still owns the slots."""
        n = min(n, MAX_BATCH, self.slots - self.pos)
        if n <= 0:
            return 0, 0
        seg = self.status[self.pos * self.stride:(self.pos + n) * self.stride:self.stride]
        if seg.tobytes() != _ZEROS[:4 * n]:
            self.sock.send(b"", socket.MSG_DONTWAIT)
            return 0, 0
        if self.cycle is not None:
            # the slots are free (the kernel sent them): the cycle's next frames go in before they are marked
            for i, frame in enumerate(self.cycle.take(n)):
                self._write_slot(self.pos + i, frame)
        seg[:] = _ONES[:n]
        # From here the frames are the kernel's: it sends each slot marked TP_STATUS_SEND_REQUEST once, and
        # one it could not send yet (ENOBUFS, a full queue) stays marked and goes at the next flush. So
        # they count as sent and the ring moves on even when this flush fails: before, a failed flush left
        # the ring where it was, the frames the kernel had sent were marked again and sent twice, counted
        # once (a receiver that counted more than was sent).
        nbytes = self._prefix[self.pos + n] - self._prefix[self.pos]
        self.pos = (self.pos + n) % self.slots
        try:
            self.sock.send(b"")
        except OSError as error:
            if error.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise
        return n, nbytes

    def close(self):
        self.status.release()
        self.map.close()
        self.sock.close()
