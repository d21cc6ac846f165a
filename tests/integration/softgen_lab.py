"""A two-port softgen bench for integration tests.

``two_port_bridge(prefix)`` builds (and always removes) two namespaces
``<prefix>-a`` and ``<prefix>-b``, each with a veth ``<prefix>-X0`` whose peer
``<prefix>-X1`` is a port of the OVS bridge ``<prefix>-br`` (userspace
datapath, standalone), with IPv6 and tx checksum/TSO/GSO off.
``running_softgen(prefix, log)`` starts softgen with port 0 on
``<prefix>-a0`` and port 1 on ``<prefix>-b0`` and yields its RPC and
publisher ports.
"""
import contextlib
import os
import signal
import subprocess
import sys
import time

from ansible_collections.offload.testbed.tests.support.free_ports import free_ports

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOFTGEN_DIR = os.path.join(ROOT, "extensions")


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def namespaces(prefix):
    return {"a": "%s-a" % prefix, "b": "%s-b" % prefix}


def _cleanup(prefix):
    sh("ovs-vsctl", "--if-exists", "del-br", "%s-br" % prefix, check=False)
    for side, netns in namespaces(prefix).items():
        sh("ip", "link", "del", "%s-%s1" % (prefix, side), check=False)
        sh("ip", "netns", "del", netns, check=False)


@contextlib.contextmanager
def two_port_bridge(prefix):
    bridge = "%s-br" % prefix
    _cleanup(prefix)
    try:
        sh("ovs-vsctl", "add-br", bridge, "--", "set", "bridge", bridge, "datapath_type=netdev", "fail_mode=standalone")
        for side, netns in namespaces(prefix).items():
            inner, outer = "%s-%s0" % (prefix, side), "%s-%s1" % (prefix, side)
            sh("ip", "netns", "add", netns)
            sh("ip", "link", "add", inner, "type", "veth", "peer", "name", outer)
            sh("ip", "link", "set", inner, "netns", netns)
            sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
            sh("sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % outer, check=False)
            sh("ip", "netns", "exec", netns, "ethtool", "-K", inner, "tx", "off", "tso", "off", "gso", "off")
            sh("ethtool", "-K", outer, "tx", "off", "tso", "off", "gso", "off")
            sh("ip", "netns", "exec", netns, "ip", "link", "set", "lo", "up")
            sh("ip", "netns", "exec", netns, "ip", "link", "set", inner, "up")
            sh("ip", "link", "set", outer, "up")
            sh("ovs-vsctl", "add-port", bridge, outer)
        yield bridge
    finally:
        _cleanup(prefix)


@contextlib.contextmanager
def veth_pair(prefix):
    """Namespaces ``<prefix>-a`` and ``<prefix>-b`` wired by one veth, ``<prefix>-a0`` to ``<prefix>-b0`` (no switch)."""
    ns = namespaces(prefix)
    _cleanup(prefix)
    try:
        for netns in ns.values():
            sh("ip", "netns", "add", netns)
            sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
            sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
            sh("ip", "netns", "exec", netns, "ip", "link", "set", "lo", "up")
        sh("ip", "link", "add", "%s-a0" % prefix, "netns", ns["a"], "type", "veth", "peer", "name", "%s-b0" % prefix, "netns", ns["b"])
        for side, netns in ns.items():
            sh("ip", "netns", "exec", netns, "ethtool", "-K", "%s-%s0" % (prefix, side), "tx", "off", "tso", "off", "gso", "off")
            sh("ip", "netns", "exec", netns, "ip", "link", "set", "%s-%s0" % (prefix, side), "up")
        yield ns
    finally:
        _cleanup(prefix)


class SoftgenProcess:
    """softgen on the two ports of a two_port_bridge or veth_pair; ``kill`` and ``start`` again keep its RPC and
    publisher ports. ``cpus`` (``taskset`` list) pins it and its port workers; ``extra``: more arguments (``--astf``)."""

    def __init__(self, prefix, log, cpus=None, extra=()):
        self.prefix = prefix
        self.extra = list(extra)
        self.log = log
        self.cpus = cpus
        self.rpc, self.pub = free_ports(2)
        self.proc = None
        self.starts = 0

    def start(self):
        ns = namespaces(self.prefix)
        self.starts += 1
        log = self.log.with_name("%s.%d" % (self.log.name, self.starts)) if self.starts > 1 else self.log
        pin = ["taskset", "-c", self.cpus] if self.cpus else []
        command = [sys.executable, "-m", "softgen", "--rpc-port", str(self.rpc), "--pub-port", str(self.pub), "--bind", "127.0.0.1",
                   "--port", "p0:%s:%s-a0" % (ns["a"], self.prefix), "--port", "p1:%s:%s-b0" % (ns["b"], self.prefix), "--log-file", str(log)] + self.extra
        self.proc = subprocess.Popen(pin + command, cwd=SOFTGEN_DIR)  # pylint: disable=consider-using-with
        deadline = time.time() + 15
        while time.time() < deadline and "softgen RPC on" not in (log.read_text() if log.exists() else ""):
            assert self.proc.poll() is None, "softgen exited: " + (log.read_text() if log.exists() else "")
            time.sleep(0.1)

    def kill(self):
        """SIGKILL: the generator is gone at once, in the middle of whatever it was sending."""
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def running_softgen(prefix, log, process=False, cpus=None, extra=()):
    """softgen running (``extra``: more of its arguments); yields its RPC and publisher ports, or with ``process`` the
    :class:`SoftgenProcess`."""
    softgen = SoftgenProcess(prefix, log, cpus, extra)
    softgen.start()
    try:
        yield softgen if process else (softgen.rpc, softgen.pub)
    finally:
        softgen.stop()


@contextlib.contextmanager
def capture(namespace, interface, pcap, bpf, snaplen=64):
    """tcpdump writing what ``interface`` in ``namespace`` receives and ``bpf`` selects to ``pcap`` while the block runs
    (a second before it, half a second after it, so that no frame of the block is missed)."""
    tcpdump = subprocess.Popen(  # pylint: disable=consider-using-with
        ["ip", "netns", "exec", namespace, "tcpdump", "-i", interface, "-n", "-s", str(snaplen), "-B", "8192", "-U", "-w", str(pcap)] + bpf.split(),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)
    try:
        yield pcap
    finally:
        time.sleep(0.5)
        tcpdump.send_signal(signal.SIGINT)
        tcpdump.wait(timeout=10)
