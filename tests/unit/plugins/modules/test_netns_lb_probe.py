"""netns_lb_probe's UDP client, run for real on loopback against a peer that
loses the first copy of one datagram; and the module across real namespaces."""

import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.topology import netns_lb_probe
from ansible_collections.offload.testbed.plugins.modules import netns_lb_probe as netns_lb_probe_module
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.modules.udp_peer import UdpPeer, veth_namespaces


def backend(drop):
    """Answers "hello N" with its name; swallows the first copy of each N in ``drop``."""
    def answer(data):
        if int(data.split()[1]) in drop and peer.first_copy(data):
            return None
        return b"ltb-srv1"
    peer = UdpPeer(answer)
    return peer


def _client(port, count, timeout, retries):
    """The probe client as the module runs it: in a forked child (here in this namespace)."""
    return netns.call("", netns_lb_probe.probe_client, "udp", "127.0.0.1", port, count, timeout, retries, timeout=60)


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


def test_module_counts_the_backend_that_answers_and_names_the_starved_one(monkeypatch):
    """Real namespaces, no load balancer: the VIP is the first backend's own address, so the second gets nothing."""
    mine = os.readlink("/proc/self/ns/net")
    with veth_namespaces(3, "l") as ((srv1, ip1), (srv2, ip2), (client_ns, _ip)):
        args = {"client_namespace": client_ns, "vip": ip1, "port": 8080, "count": 4, "timeout": 1.0,
                "backends": [{"namespace": srv1, "address": ip1}, {"namespace": srv2, "address": ip2}]}
        tcp, tcp_failed, calls = run_module(netns_lb_probe_module.main, args, {}, monkeypatch)
        udp, udp_failed, _calls = run_module(netns_lb_probe_module.main, dict(args, protocol="udp"), {}, monkeypatch)
    assert os.readlink("/proc/self/ns/net") == mine
    assert calls == []
    for result, failed, proto in ((tcp, tcp_failed, "TCP"), (udp, udp_failed, "UDP")):
        assert failed
        assert result["hits"] == {srv1: 4, srv2: 0}
        assert (result["answered"], result["attempts"], result["resent"]) == (4, 4, 0)
        assert result["msg"] == "%s %s:8080: 4 of 4 attempts answered; backends below 1 answers: %s" % (proto, ip1, srv2)


def test_module_names_the_backend_that_cannot_listen(monkeypatch):
    """An address the backend's namespace does not have: bind fails, and the message says where."""
    with veth_namespaces(2, "m") as ((srv1, ip1), (client_ns, _ip)):
        args = {"client_namespace": client_ns, "vip": ip1, "port": 8080,
                "backends": [{"namespace": srv1, "address": ip1}, {"namespace": client_ns, "address": ip1}]}
        result, failed, _calls = run_module(netns_lb_probe_module.main, args, {}, monkeypatch)
    assert failed
    assert result["msg"] == "server in namespace %s did not start: OSError: [Errno 99] Cannot assign requested address" % client_ns


PROBE = {"client_namespace": "", "vip": "18.0.0.188", "port": 8080, "backends": [{"namespace": "ltb-srv1", "address": "16.0.0.1"}]}


@pytest.mark.parametrize("args, msg", [
    ({"port": 0}, "port: 0 is outside 1..65535; give a TCP/UDP port number, for example 6642"),
    ({"vip": "18.0.0.300"}, "vip: '18.0.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4"),
    ({"backends": [{"namespace": "ltb-srv1", "address": "16.0.0"}]},
     "backends[0].address: '16.0.0' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4"),
    ({"backends": []}, "backends: [] is empty; list at least one backend as {namespace: NS, address: IP}"),
    ({"backends": [{"namespace": "ltb/srv1", "address": "16.0.0.1"}]},
     "backends[0].namespace: 'ltb/srv1' is no network namespace name (ip netns takes 1 to 255 characters, no '/', not '.' or '..', and a "
     "name with white space breaks the command lines it goes into); use letters, digits, '-', '_' and '.'"),
    ({"client_namespace": " ltb-gen"}, "client_namespace: ' ltb-gen' has leading white space, which would be part of the namespace's name "
                                       "(ip netns list shows it); write 'ltb-gen'"),
    ({"min_ratio": 2.0}, "min_ratio: 2.0 is outside 0..1; give the share of the attempts that must get an answer, "
                         "1.0 for all of them or 0.9 for nine in ten"),
    ({"count": 0}, "count: 0 is below 1; send at least 1 connection or datagram"),
])
def test_a_bad_option_is_refused_before_any_probe(monkeypatch, args, msg):
    monkeypatch.setattr(netns_lb_probe, "run", lambda params: pytest.fail("the probe ran"))
    result, failed, calls = run_module(netns_lb_probe_module.main, dict(PROBE, **args), {}, monkeypatch)
    assert failed and result["msg"] == msg and calls == []
