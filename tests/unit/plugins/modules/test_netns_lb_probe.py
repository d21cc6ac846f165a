"""netns_lb_probe's UDP client, run for real on loopback against a peer that
loses the first copy of one datagram."""

import json
import subprocess
import sys

from ansible_collections.offload.testbed.plugins.modules import netns_lb_probe
from ansible_collections.offload.testbed.tests.unit.plugins.modules.udp_peer import UdpPeer


def backend(drop):
    """Answers "hello N" with its name; swallows the first copy of each N in ``drop``."""
    def answer(data):
        if int(data.split()[1]) in drop and peer.first_copy(data):
            return None
        return b"ltb-srv1"
    peer = UdpPeer(answer)
    return peer


def _client(port, count, timeout, retries):
    argv = [sys.executable, "-c", netns_lb_probe.CLIENT, "udp", "127.0.0.1", str(port), str(count), str(timeout), str(retries)]
    return json.loads(subprocess.run(argv, capture_output=True, universal_newlines=True, timeout=60, check=True).stdout)


def test_a_late_answer_is_asked_for_again_from_the_same_flow():
    peer = backend(drop=[1])
    peer.start()
    out = _client(peer.port, count=3, timeout=2.0, retries=4)
    peer.sock.close()
    assert out == {"hits": {"ltb-srv1": 3}, "answered": 3, "attempts": 3, "resent": 1}
    copies = [port for data, port in peer.seen if data == b"hello 1"]
    # the copy came from the same source port: the same flow through a load balancer
    assert len(copies) == 2 and copies[0] == copies[1]


def test_without_retries_the_attempt_is_unanswered():
    peer = backend(drop=[0])
    peer.start()
    out = _client(peer.port, count=2, timeout=0.5, retries=0)
    peer.sock.close()
    assert out == {"hits": {"ltb-srv1": 1}, "answered": 1, "attempts": 2, "resent": 0}
