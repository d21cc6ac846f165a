"""module_utils.host.netns: functions run in forked children inside network namespaces."""
import os
import signal
import socket
import time

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.topology import netns_exchange
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.netns import NetnsError
from ansible_collections.offload.testbed.tests.unit.plugins.modules.udp_peer import UdpPeer, veth_namespaces


def own_namespace():
    return os.readlink("/proc/self/ns/net")


def fail():
    raise ValueError("no such thing")


def sleep(seconds):
    time.sleep(seconds)


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def returns_early(ready):
    return "done"


def test_call_returns_what_the_function_returns_in_json_types():
    assert netns.call("", divmod, 7, 2) == [3, 1]
    with pytest.raises(TypeError, match="only timeout"):
        netns.call("", dict, a=1)
    assert netns.call("", os.getpid) != os.getpid()


def test_call_reports_the_exception_as_its_last_traceback_line():
    with pytest.raises(NetnsError, match=r"^ValueError: no such thing$"):
        netns.call("", fail)


def test_call_kills_a_child_that_does_not_answer_in_time():
    started = time.monotonic()
    with pytest.raises(NetnsError, match=r"^no answer within 0.3 s$"):
        netns.call("", sleep, 30, timeout=0.3)
    assert time.monotonic() - started < 5


def test_a_child_that_dies_says_how():
    with pytest.raises(NetnsError, match=r"^ended without an answer \(killed by signal 9\)$"):
        netns.call("", die)


def test_a_server_that_returns_before_it_listens():
    child = netns.start("", returns_early)
    with pytest.raises(NetnsError, match="returned before it listened"):
        child.ready(5)
    assert child.returncode is not None


def test_kill_reaps_and_may_be_called_twice():
    child = netns.start("", lambda ready, seconds: (ready(), time.sleep(seconds)), 30)
    child.ready(5)
    child.kill()
    child.kill()
    assert child.returncode == -signal.SIGKILL
    with pytest.raises(OSError):
        os.kill(child.pid, 0)


@pytest.mark.parametrize("name, message", [
    ("a/b", 'Invalid netns name "a/b"'),
    ("..", 'Invalid netns name ".."'),
    ("t15n-missing", 'Cannot open network namespace "t15n-missing": No such file or directory'),
])
def test_enter_refuses_what_ip_netns_exec_refuses(name, message):
    with pytest.raises(NetnsError) as exc:
        netns.enter(name)
    assert str(exc.value) == message
    with pytest.raises(NetnsError) as exc:
        netns.call(name, os.getpid)
    assert str(exc.value) == message


def test_enter_with_no_name_stays():
    mine = own_namespace()
    netns.enter("")
    assert own_namespace() == mine


def test_setns_goes_through_os_setns_where_python_has_it(monkeypatch):
    seen = []
    monkeypatch.setattr(os, "setns", lambda fd, nstype: seen.append(nstype), raising=False)
    netns._setns(0)
    assert seen == [netns.CLONE_NEWNET]


def test_setns_through_libc_reports_errno(monkeypatch):
    monkeypatch.delattr(os, "setns", raising=False)
    with pytest.raises(OSError) as exc:
        netns._setns(-1)  # not a descriptor: EBADF, and no namespace changes
    assert exc.value.errno == 9


def test_the_child_enters_the_namespace_and_the_caller_stays():
    mine = own_namespace()
    with veth_namespaces(1, "n") as [(name, address)]:
        inside = netns.call(name, own_namespace)
        addresses = netns.call(name, socket.gethostbyname, address)
        assert netns.call(name, netns.snmp_counters)["Ip"]["Forwarding"] in (1, 2)
    assert inside != mine
    assert own_namespace() == mine
    assert addresses == address


def test_counters_of_a_namespace_that_is_not_there_are_empty():
    assert netns.counters("t15n-missing") == {}
    here = netns.counters("")
    assert {"Ip", "Udp", "Tcp"} <= set(here) and isinstance(here["Udp"]["InDatagrams"], int)


def test_listen_binds_tcp_and_udp():
    tcp = netns.listen("tcp", "127.0.0.1", 0, 1.5, backlog=4)
    udp = netns.listen("udp", "::1", 0, 2.0) if socket.has_ipv6 else netns.listen("udp", "127.0.0.1", 0, 2.0)
    try:
        assert (tcp.type, tcp.gettimeout(), udp.type, udp.gettimeout()) == (socket.SOCK_STREAM, 1.5, socket.SOCK_DGRAM, 2.0)
        assert tcp.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR)
    finally:
        tcp.close()
        udp.close()
    assert netns.family("fd00::1") == socket.AF_INET6 and netns.family("10.0.0.1") == socket.AF_INET


def test_udp_ask_skips_answers_it_does_not_accept_and_asks_again():
    answers = iter([b"late", b"right", None])
    peer = UdpPeer(lambda data: next(answers))
    peer.start()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        answer, resent = netns.udp_ask(sock, b"q", ("127.0.0.1", peer.port), 3.0, 5, b"right".__eq__)
        # "late" did not end the wait: the copy sent after one step got "right"
        assert (answer, resent) == (b"right", 1)
        # the copies came from the one socket
        assert len(set(port for _data, port in peer.seen)) == 1
        answer, resent = netns.udp_ask(sock, b"q", ("127.0.0.1", peer.port), 0.3, 0, bool)
        assert answer is None and resent == 0
    peer.sock.close()


def test_moved_errors_keeps_error_and_discard_counters_that_moved():
    before = {"Udp": {"InDatagrams": 5, "InCsumErrors": 1, "NoPorts": 0}, "Ip": {"InDiscards": 2}, "Icmp": {"InErrors": 0}}
    after = {"Udp": {"InDatagrams": 9, "InCsumErrors": 4, "NoPorts": 2, "RcvbufErrors": 7}, "Ip": {"InDiscards": 2},
             "Icmp": {"InErrors": 3}}
    # a counter that was not there before has no delta; Icmp is not read
    assert netns_exchange.moved_errors("client", before, after) == {"client UdpInCsumErrors": 3, "client UdpNoPorts": 2}


def test_the_options_every_traffic_module_has():
    spec = netns.argument_spec(port=dict(type="int", default=1))
    assert sorted(spec) == ["min_ratio", "port", "protocol", "retries", "timeout"]
    assert spec["protocol"] == dict(type="str", choices=["tcp", "udp"], default="tcp")
    good = {"port": 5201, "retries": 0, "timeout": 0.1, "min_ratio": 1.0}
    assert netns.traffic_errors(good) == []
    assert netns.traffic_errors(dict(good, retries=-1)) == ["retries: -1 is below 0; give 0 (every message sent once) or more"]
    assert netns.traffic_errors(dict(good, timeout=0)) == [
        "timeout: 0 is not above 0; give the seconds to wait for an answer, for example 5"]


@pytest.mark.parametrize("port", [0, 70000, -1])
def test_a_port_outside_1_to_65535_is_refused_with_its_value(port):
    errors = netns.traffic_errors({"port": port, "retries": 4, "timeout": 5.0, "min_ratio": 1.0})
    assert errors == ["port: %d is outside 1..65535; give a TCP/UDP port number, for example 6642" % port]


@pytest.mark.parametrize("ratio", [1.5, -0.1])
def test_a_min_ratio_outside_0_to_1_is_refused(ratio):
    errors = netns.traffic_errors({"port": 1, "retries": 4, "timeout": 5.0, "min_ratio": ratio})
    assert errors == ["min_ratio: %s is outside 0..1; give the share of the messages that must come back, 1.0 for all of them "
                      "or 0.9 for nine in ten" % ratio]


def test_addresses_are_dotted_ipv4_or_ipv6_without_a_lookup():
    assert netns.address_error("vip", "18.0.0.188") is None and netns.address_error("vip", "fd00::4") is None
    assert netns.address_error("server_address", "127.0.0.300") == (
        "server_address: '127.0.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4")
    assert netns.address_error("vip", "fd00::4::1").startswith("vip: 'fd00::4::1' is not an IPv6 address;")
    assert netns.address_error("vip", "localhost").startswith("vip: 'localhost' is not an IPv4 address;")


class FakeModule(object):
    params = {"x": 1}

    def fail_json(self, msg):
        raise RuntimeError(msg)


def test_drive_fails_the_module_with_the_error_or_what_went_wrong():
    assert netns.drive(FakeModule(), lambda p: {"error": None, "x": p["x"]}, "probe driver") == {"error": None, "x": 1}
    with pytest.raises(RuntimeError, match="^server in namespace a did not start: b$"):
        netns.drive(FakeModule(), lambda p: {"error": "server in namespace a did not start: b"}, "probe driver")

    def cannot_fork(params):
        raise OSError(11, "Resource temporarily unavailable")
    with pytest.raises(RuntimeError, match=r"^traffic driver failed: \[Errno 11\] Resource temporarily unavailable$"):
        netns.drive(FakeModule(), cannot_fork, "traffic driver")


def test_in_namespace_prefixes_ip_netns_exec_and_copies_without_a_namespace():
    argv = ['iperf3', '--server']
    assert netns.in_namespace('tenant-b', argv) == ['ip', 'netns', 'exec', 'tenant-b', 'iperf3', '--server']
    assert netns.in_namespace(None, argv) == argv and netns.in_namespace('', argv) is not argv


def test_namespace_error_takes_the_machine_s_own_namespace_and_names_a_bad_one():
    assert netns.namespace_error("client_namespace", "") is None
    assert netns.namespace_error("client_namespace", "ltb-gen") is None
    assert netns.namespace_error("backends[1].namespace", "a/b") == validate.netns_name("backends[1].namespace", "a/b")
    assert netns.namespace_error("backends[1].namespace", "a/b").startswith("backends[1].namespace: 'a/b'")
