"""netns_exchange's echo client and server, run for real on loopback.

The functions the module runs in namespaces (module_utils.topology.netns_exchange)
take an empty namespace to run in this one. A hand-written peer on 127.0.0.1
stands in for the other side, so a lost reply can be made to happen on
purpose.
"""

import os
import socket
import struct
import threading

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.topology import netns_exchange
from ansible_collections.offload.testbed.plugins.modules import netns_exchange as netns_exchange_module
from ansible_collections.offload.testbed.tests.support.free_ports import free_port
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.modules.udp_peer import UdpPeer, veth_namespaces


def _run_client(port, count, size, timeout, retries):
    return netns_exchange.echo_client("udp", "127.0.0.1", port, count, size, timeout, retries)


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


def _echo_session(timeout, wait, datagrams, stop=True):
    """A real echo server (the client's ``timeout``, ``wait`` for the first datagram) on loopback:
    ``datagrams`` sent one by one as ``(seconds of silence before it, datagram)``, each answer awaited,
    then STOP unless ``stop`` is false. Returns (the answers, the server's report)."""
    port = free_port(socket.SOCK_DGRAM)
    with netns.start("", netns_exchange.echo_server, "udp", "127.0.0.1", port, timeout, wait) as server:
        server.ready(10)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(5)
            echoed = []
            for pause, msg in datagrams:
                threading.Event().wait(pause)
                s.sendto(msg, ("127.0.0.1", port))
                echoed.append(s.recvfrom(65536)[0])
            if stop:
                s.sendto(b"STOP", ("127.0.0.1", port))
        return echoed, server.result(10)


def _message(seq, size):
    return struct.pack("!Q", seq) + bytes(size - 8)


def test_server_echoes_every_copy_but_counts_each_message_once():
    messages = [b"WARM"] + [_message(i, 32) for i in (0, 0, 1, 2, 2, 2)]
    echoed, report = _echo_session(5.0, 10.0, [(0, msg) for msg in messages])
    assert echoed == messages
    assert report == {"peer": "127.0.0.1", "bytes": 3 * 32, "messages": 3}


def test_server_outlives_a_late_message():
    """A gap longer than the client's wait per message does not end the server."""
    # 0.7 s of silence before the second: longer than one wait (0.5 s), shorter than two.
    messages = [(0, _message(0, 16)), (0.7, _message(1, 16))]
    echoed, report = _echo_session(0.5, 10.0, messages)
    assert echoed == [msg for _pause, msg in messages] and report["messages"] == 2


def test_server_waits_for_a_first_datagram_that_comes_late():
    """The first datagram may come much later than the wait between two (a fresh path through a slow guest)."""
    # 1 s of silence before anything: five times the client's wait, more than twice it.
    echoed, report = _echo_session(0.2, 10.0, [(1.0, _message(0, 16))])
    assert echoed == [_message(0, 16)] and report["messages"] == 1


def test_server_gives_up_once_the_client_stops_sending():
    """After the first datagram, twice the client's wait without one ends the server (no STOP; it waits 30 s
    for a first one)."""
    echoed, report = _echo_session(0.2, 30.0, [(0, b"WARM")], stop=False)
    assert echoed == [b"WARM"]
    assert report == {"peer": "127.0.0.1", "bytes": 0, "messages": 0}


def test_client_warms_up_for_every_try_of_a_message():
    """No answer for longer than one message's wait: the warm-up goes on for timeout x (retries + 1)."""
    peer = UdpPeer(lambda data: None if len(peer.seen) <= 6 else data)  # six warm-up datagrams lost
    peer.start()
    out = _run_client(peer.port, count=1, size=16, timeout=0.4, retries=4)
    peer.join(10)
    assert out == {"sent": 1, "received": 1, "bytes": 16, "warmup": 7, "resent": 0}


def _own_namespace():
    return os.readlink("/proc/self/ns/net")


@pytest.mark.parametrize("protocol", ["tcp", "udp"])
def test_module_exchanges_between_real_namespaces(protocol, monkeypatch):
    """The whole module, server and client each in a namespace; the module process stays in its own."""
    mine = _own_namespace()
    with veth_namespaces(2, "x") as ((server_ns, server_ip), (client_ns, client_ip)):
        args = {"server_namespace": server_ns, "server_address": server_ip, "client_namespace": client_ns,
                "protocol": protocol, "count": 20, "size": 200, "timeout": 2.0}
        result, failed, calls = run_module(netns_exchange_module.main, args, {}, monkeypatch)
    assert _own_namespace() == mine
    assert not failed, result
    assert calls == []  # no ovs_interfaces: no command at all
    assert (result["sent"], result["received"], result["bytes"], result["server_peer"]) == (20, 20, 20 * 200, client_ip)
    assert result["changed"] is False and result["ovs_packets"] == {}
    assert result["warmup"] == (1 if protocol == "udp" else 0)


def test_module_names_a_namespace_that_is_not_there(monkeypatch):
    args = {"server_namespace": "t15n-none-%d" % os.getpid(), "server_address": "10.215.9.1", "client_namespace": ""}
    result, failed, _calls = run_module(netns_exchange_module.main, args, {}, monkeypatch)
    assert failed
    assert result["msg"] == ('echo server in namespace t15n-none-%d did not start: Cannot open network namespace '
                             '"t15n-none-%d": No such file or directory' % (os.getpid(), os.getpid()))


def test_module_reports_a_client_that_cannot_connect(monkeypatch):
    """The client connects to the port next to the server's, where nothing listens: TCP refuses it."""
    real = netns_exchange.echo_client
    monkeypatch.setattr(netns_exchange, "echo_client", lambda protocol, address, port, *rest: real(protocol, address, port + 1, *rest))
    with veth_namespaces(2, "y") as ((server_ns, server_ip), (client_ns, _client_ip)):
        args = {"server_namespace": server_ns, "server_address": server_ip, "client_namespace": client_ns, "timeout": 0.5, "count": 1}
        result, failed, _calls = run_module(netns_exchange_module.main, args, {}, monkeypatch)
    assert failed
    assert result["msg"] == "client in namespace %s failed: ConnectionRefusedError: [Errno 111] Connection refused" % client_ns


EXCHANGE = {"server_namespace": "", "client_namespace": "", "server_address": "127.0.0.1"}


@pytest.mark.parametrize("args, msg", [
    ({"port": 0}, "port: 0 is outside 1..65535; give a TCP/UDP port number, for example 6642"),
    ({"port": 70000}, "port: 70000 is outside 1..65535; give a TCP/UDP port number, for example 6642"),
    ({"server_address": "127.0.0.300"},
     "server_address: '127.0.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4"),
    ({"connect_address": "18.0.0.300"},
     "connect_address: '18.0.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4"),
    ({"min_ratio": 1.5}, "min_ratio: 1.5 is outside 0..1; give the share of the messages that must come back, "
                         "1.0 for all of them or 0.9 for nine in ten"),
    ({"count": 0}, "count: 0 is below 1; send at least 1 message"),
    ({"size": 70000}, "size: 70000 is outside 1..65000; give the bytes per message, 1..65000 over TCP"),
    ({"server_namespace": "ltb-srv1 "}, "server_namespace: 'ltb-srv1 ' has trailing white space, which would be part of the namespace's "
                                        "name (ip netns list shows it); write 'ltb-srv1'"),
    ({"ovs_interfaces": ["gen0", "srv1 "]}, "ovs_interfaces[1]: 'srv1 ' has trailing white space, which the database would keep as part of "
                                            "the name of an Open vSwitch interface (what looks for 'srv1' would not find it); write 'srv1'"),
    ({"size": 4, "protocol": "udp"},
     "size: 4 is outside 8..65000; give the bytes per message, 8..65000 over UDP (each message carries its 8-byte sequence number)"),
])
def test_a_bad_option_is_refused_before_any_traffic(monkeypatch, args, msg):
    monkeypatch.setattr(netns_exchange, "run", lambda params: pytest.fail("the exchange ran"))
    result, failed, calls = run_module(netns_exchange_module.main, dict(EXCHANGE, **args), {}, monkeypatch)
    assert failed and result["msg"] == msg and calls == []
