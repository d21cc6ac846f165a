"""netns_exchange's echo client and server, run for real on loopback.

The programs the module starts in namespaces are plain Python; with an empty
namespace they run here. A hand-written peer on 127.0.0.1 stands in for the
other side, so a lost reply can be made to happen on purpose.
"""

import json
import socket
import struct
import subprocess
import sys
import threading

from ansible_collections.offload.testbed.plugins.modules import netns_exchange
from ansible_collections.offload.testbed.tests.unit.plugins.modules.udp_peer import UdpPeer


def _free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_client(port, count, size, timeout, retries):
    argv = [sys.executable, "-c", netns_exchange.CLIENT, "udp", "127.0.0.1", str(port), str(count), str(size), str(timeout), str(retries)]
    done = subprocess.run(argv, capture_output=True, universal_newlines=True, timeout=60, check=True)
    return json.loads(done.stdout)


def lossy_echo(drop):
    """Echoes UDP, but swallows the first copy of each sequence number in ``drop``."""
    def answer(data):
        if data != b"WARM" and struct.unpack("!Q", data[:8])[0] in drop and peer.first_copy(data):
            return None
        return data
    peer = UdpPeer(answer)
    return peer


def copies(peer):
    """How many copies of each sequence number the peer got."""
    counts = {}
    for data, _port in peer.seen:
        if data != b"WARM":
            seq = struct.unpack("!Q", data[:8])[0]
            counts[seq] = counts.get(seq, 0) + 1
    return counts


def test_client_sends_a_message_again_when_its_answer_is_lost():
    peer = lossy_echo(drop=[0, 3])
    peer.start()
    out = _run_client(peer.port, count=5, size=64, timeout=2.0, retries=4)
    peer.join(10)
    assert out == {"sent": 5, "received": 5, "bytes": 5 * 64, "warmup": 1, "resent": 2}
    assert copies(peer) == {0: 2, 1: 1, 2: 1, 3: 2, 4: 1}


def test_client_without_retries_counts_the_lost_message():
    peer = lossy_echo(drop=[1])
    peer.start()
    out = _run_client(peer.port, count=3, size=16, timeout=0.5, retries=0)
    peer.join(10)
    assert out == {"sent": 3, "received": 2, "bytes": 2 * 16, "warmup": 1, "resent": 0}
    assert copies(peer) == {0: 1, 1: 1, 2: 1}


def test_server_echoes_every_copy_but_counts_each_message_once():
    port = _free_udp_port()
    argv = [sys.executable, "-c", netns_exchange.SERVER, "udp", "127.0.0.1", str(port), "3", "32", "5.0"]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, universal_newlines=True)
    try:
        assert server.stdout.readline().strip() == "READY"
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(5)
            messages = [struct.pack("!Q", i) + bytes(24) for i in (0, 0, 1, 2, 2, 2)]
            echoed = []
            for msg in [b"WARM"] + messages:
                s.sendto(msg, ("127.0.0.1", port))
                echoed.append(s.recvfrom(65536)[0])
            s.sendto(b"STOP", ("127.0.0.1", port))
        report = json.loads(server.stdout.read().strip().splitlines()[-1])
    finally:
        server.wait(10)
        server.stdout.close()
    assert echoed == [b"WARM"] + messages
    assert report == {"peer": "127.0.0.1", "bytes": 3 * 32, "messages": 3}


def test_server_outlives_a_late_message():
    """A gap longer than the client's wait per message does not end the server."""
    port = _free_udp_port()
    argv = [sys.executable, "-c", netns_exchange.SERVER, "udp", "127.0.0.1", str(port), "2", "16", "0.5"]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, universal_newlines=True)
    try:
        assert server.stdout.readline().strip() == "READY"
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(5)
            first = struct.pack("!Q", 0) + bytes(8)
            s.sendto(first, ("127.0.0.1", port))
            assert s.recvfrom(65536)[0] == first
            # 0.7 s of silence: longer than one wait (0.5 s), shorter than two.
            threading.Event().wait(0.7)
            second = struct.pack("!Q", 1) + bytes(8)
            s.sendto(second, ("127.0.0.1", port))
            assert s.recvfrom(65536)[0] == second
            s.sendto(b"STOP", ("127.0.0.1", port))
        report = json.loads(server.stdout.read().strip().splitlines()[-1])
    finally:
        server.wait(10)
        server.stdout.close()
    assert report["messages"] == 2
