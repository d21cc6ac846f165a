"""A UDP peer on loopback for the tests of the netns modules' client programs,
and real network namespaces for the tests that cross them."""

import contextlib
import os
import shutil
import socket
import subprocess
import threading

import pytest


class UdpPeer(threading.Thread):
    """Answers each datagram with ``answer(data)`` (None: swallows it), until STOP, 10 s of silence or close()."""

    def __init__(self, answer):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.answer = answer
        self.seen = []  # (datagram, source port)

    def run(self):
        try:
            while True:
                data, peer = self.sock.recvfrom(65536)
                if data == b"STOP":
                    break
                self.seen.append((data, peer[1]))
                reply = self.answer(data)
                if reply is not None:
                    self.sock.sendto(reply, peer)
        except OSError:  # the timeout, or the test closing the socket
            pass
        finally:
            self.sock.close()

    def first_copy(self, data):
        """Whether ``data`` arrived for the first time (the datagram just seen was its only copy so far)."""
        return [seen for seen, _port in self.seen].count(data) == 1


@contextlib.contextmanager
def veth_namespaces(count, tag):
    """``count`` network namespaces on one subnet, for tests that cross real namespaces.

    Namespace ``i`` (0-based) is ``t15n-<pid><tag><i>`` with address
    ``10.215.<tag byte>.<i + 1>/24``; namespaces 1.. hang on veths off
    namespace 0, which bridges them (a Linux bridge in namespace 0). Yields
    ``[(namespace, address)]``; deletes them all afterwards. Skips the test
    where namespaces cannot be made (not root, no ``ip``).
    """
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("real network namespaces need root and iproute2")
    base = "t15n-%d%s" % (os.getpid() % 100000, tag)
    names = ["%s%d" % (base, i) for i in range(count)]
    subnet = "10.215.%d" % (sum(tag.encode()) % 250)
    made = []

    def ip(*argv, **kwargs):
        ns = kwargs.get("ns")
        cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip"] + list(argv)
        subprocess.run(cmd, check=True, capture_output=True)

    try:
        for name in names:
            ip("netns", "add", name)
            made.append(name)
            ip("link", "set", "lo", "up", ns=name)
        ip("link", "add", "br0", "type", "bridge", ns=names[0])
        ip("addr", "add", "%s.1/24" % subnet, "dev", "br0", ns=names[0])
        ip("link", "set", "br0", "up", ns=names[0])
        for i, name in enumerate(names[1:], 1):
            ip("link", "add", "t15n-%d%s%d" % (os.getpid() % 100000, tag, i), "netns", names[0], "type", "veth",
               "peer", "name", "eth0", "netns", name)
            ip("link", "set", "t15n-%d%s%d" % (os.getpid() % 100000, tag, i), "master", "br0", "up", ns=names[0])
            ip("addr", "add", "%s.%d/24" % (subnet, i + 1), "dev", "eth0", ns=name)
            ip("link", "set", "eth0", "up", ns=name)
    except (OSError, subprocess.CalledProcessError) as exc:
        for name in made:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
        pytest.skip("cannot make network namespaces: %s" % (getattr(exc, "stderr", b"") or exc))
    try:
        yield [(name, "%s.%d" % (subnet, i + 1)) for i, name in enumerate(names)]
    finally:
        for name in made:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
