"""netns_lb_probe's UDP client, run for real on loopback against a peer that
loses the first copy of one datagram."""

import json
import socket
import subprocess
import sys
import threading

from ansible_collections.offload.testbed.plugins.modules import netns_lb_probe


class Backend(threading.Thread):
    """Answers "hello N" with its name; swallows the first copy of each N in `drop`."""

    def __init__(self, drop):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.drop = set(drop)
        self.seen = []

    def run(self):
        try:
            while True:
                data, peer = self.sock.recvfrom(256)
                self.seen.append((data, peer[1]))
                if int(data.split()[1]) in self.drop and [d for d, _p in self.seen].count(data) == 1:
                    continue
                self.sock.sendto(b"ltb-srv1", peer)
        except OSError:  # the timeout, or the test closing the socket
            pass


def _client(port, count, timeout, retries):
    argv = [sys.executable, "-c", netns_lb_probe.CLIENT, "udp", "127.0.0.1", str(port), str(count), str(timeout), str(retries)]
    return json.loads(subprocess.run(argv, capture_output=True, universal_newlines=True, timeout=60, check=True).stdout)


def test_a_late_answer_is_asked_for_again_from_the_same_flow():
    backend = Backend(drop=[1])
    backend.start()
    out = _client(backend.port, count=3, timeout=2.0, retries=4)
    backend.sock.close()
    assert out == {"hits": {"ltb-srv1": 3}, "answered": 3, "attempts": 3, "resent": 1}
    copies = [port for data, port in backend.seen if data == b"hello 1"]
    # the copy came from the same source port: the same flow through a load balancer
    assert len(copies) == 2 and copies[0] == copies[1]


def test_without_retries_the_attempt_is_unanswered():
    backend = Backend(drop=[0])
    backend.start()
    out = _client(backend.port, count=2, timeout=0.5, retries=0)
    backend.sock.close()
    assert out == {"hits": {"ltb-srv1": 1}, "answered": 1, "attempts": 2, "resent": 0}
