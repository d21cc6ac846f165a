"""softgen.fastio transmit paths on the loopback interface: every mode puts the exact frames on the wire, in order."""
import errno
import os
import socket

import pytest

from softgen import fastio

ETH_P_LOCAL = 0x88B5  # local experimental ethertype: no protocol handler takes it


def frames_with(marker, sizes):
    """Frames of the given lengths: broadcast header, the local ethertype, the marker, the index, a fill byte per index."""
    out = []
    for index, size in enumerate(sizes):
        head = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + ETH_P_LOCAL.to_bytes(2, "big") + marker + bytes([index])
        out.append(head + bytes([index + 1]) * (size - len(head)))
    return out


def receive(sock, marker, count):
    """The first ``count`` incoming frames on ``sock`` that carry ``marker`` (loopback shows each frame twice:
    outgoing and incoming)."""
    seen = []
    while len(seen) < count:
        data, addr = sock.recvfrom(16384)
        if addr[2] != fastio.PACKET_OUTGOING and data[14:20] == marker:
            seen.append(data)
    return seen


@pytest.fixture(name="lo_rx")
def fixture_lo_rx():
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_LOCAL))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
    sock.bind(("lo", ETH_P_LOCAL))
    sock.settimeout(5.0)
    yield sock
    sock.close()


SIZES = [60, 61, 64, 100, 128, 1000, 1514, 60]


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
@pytest.mark.parametrize("linear, vnet", [(True, fastio.VNET_HDR_LEN), (False, 0)], ids=["ring", "ring-frags"])
def test_tx_ring_sends_the_exact_frames(lo_rx, linear, vnet):
    marker = os.urandom(6)
    frames = frames_with(marker, SIZES)
    ring = fastio.TxRing("lo", frames, linear=linear)
    try:
        # the virtio_net_hdr is taken on this kernel when asked for, and only then
        assert ring.vnet == vnet
        sent = []
        while len(sent) < 3 * len(frames):  # three passes over the flow sequence
            n, nbytes = ring.send(None, 3 * len(frames) - len(sent))
            assert nbytes == sum(len(frames[(len(sent) + i) % len(frames)]) for i in range(n))
            sent += [frames[(len(sent) + i) % len(frames)] for i in range(n)]
        assert receive(lo_rx, marker, len(sent)) == sent
    finally:
        ring.close()


class FlushFails:
    """The ring's socket, whose next flushes put the marked frames on the wire and then fail with ENOBUFS
    (what a full queue makes the kernel report while it keeps the frames it could not send)."""

    def __init__(self, sock, failures):
        self.sock = sock
        self.failures = failures

    def send(self, data, *flags):
        sent = self.sock.send(data, *flags)
        if self.failures:
            self.failures -= 1
            raise OSError(errno.ENOBUFS, "No buffer space available")
        return sent

    def __getattr__(self, name):
        return getattr(self.sock, name)


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
def test_a_failed_flush_sends_no_frame_twice(lo_rx):
    marker = os.urandom(6)
    frames = frames_with(marker, SIZES)
    ring = fastio.TxRing("lo", frames)
    real = ring.sock
    ring.sock = FlushFails(real, failures=2)
    try:
        counted = attempts = 0
        while counted < 2 * len(frames):
            attempts += 1
            assert attempts < 1000, "the ring stopped sending after a failed flush (%d of %d frames counted)" % (counted, 2 * len(frames))
            try:
                n, _nbytes = ring.send(None, min(3, 2 * len(frames) - counted))
            except OSError as error:
                # as the port worker takes it (PortWorker._send): ENOBUFS counts nothing and is tried again
                assert error.errno == errno.ENOBUFS
                n = 0
            counted += n
        assert receive(lo_rx, marker, counted) == [frames[i % len(frames)] for i in range(counted)]
        lo_rx.settimeout(0.3)
        with pytest.raises(socket.timeout):
            receive(lo_rx, marker, 1)  # nothing more than what was counted
    finally:
        ring.sock = real
        ring.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
def test_frame_ring_sendmmsg_sends_the_exact_frames(lo_rx):
    marker = os.urandom(6)
    frames = frames_with(marker, SIZES)
    ring = fastio.FrameRing(frames)
    sock = fastio.open_tx_socket("lo")
    try:
        sent = []
        while len(sent) < 2 * len(frames):
            n, nbytes = ring.send(sock.fileno(), 5)
            assert n > 0
            assert nbytes == sum(len(frames[(len(sent) + i) % len(frames)]) for i in range(n))
            sent += [frames[(len(sent) + i) % len(frames)] for i in range(n)]
        assert receive(lo_rx, marker, len(sent)) == sent
    finally:
        sock.close()


def test_tx_modes_default_first():
    assert fastio.TX_MODES[0] == "ring"
    assert set(fastio.TX_MODES) == {"ring", "ring-frags", "sendmmsg"}
