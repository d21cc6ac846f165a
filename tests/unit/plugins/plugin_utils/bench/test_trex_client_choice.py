# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which TRex client ``client``/``client_path`` load, the messages when one cannot be imported, and the
adapter's calls on each client generation (the real current client runs in a subprocess,
current_trex_client.py: its scapy cannot share this process with trex-stl-lib's)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import types
from unittest import mock

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec, trex
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, GeneratorLost

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "current_trex_client.py")
TREX_MODULES = ("trex", "trex.stl", "trex.stl.api", "lbr_trex_client")
PORT_L3 = [{"src": "10.0.0.1", "gateway": "10.0.0.2"}, {"src": "10.1.0.1", "gateway": "10.1.0.2"}]


def package(base, name, api_text="STLClient = 'the current client'\n"):
    """A stand-in trex/stl/api.py under ``base``; returns ``base``."""
    stl = base / "trex" / "stl"
    stl.mkdir(parents=True)
    (base / "trex" / "__init__.py").write_text("")
    (stl / "__init__.py").write_text("")
    (stl / "api.py").write_text(api_text.replace("the current client", name))
    return base


@pytest.fixture(name="clean_import")
def fixture_clean_import(monkeypatch):
    """sys.path and the trex modules as they were before the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in TREX_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    yield monkeypatch
    for name in TREX_MODULES:
        sys.modules.pop(name, None)


def test_client_trex_needs_no_client_path():
    validated = ArgumentSpecValidator(spec.argument_spec()).validate({"client": "trex", "max_load": 1000, "results_dir": "/tmp/r"})
    assert validated.error_messages == []
    args, errors = spec.check(validated.validated_parameters)
    assert errors == []
    assert (args["client"], args["client_path"]) == ("trex", None)


def test_without_client_path_the_current_client_comes_from_lbr_trex_client(tmp_path, clean_import):
    """lbr_trex_client puts its interactive directory on sys.path when imported, as PyPI's package does."""
    site = tmp_path / "site"
    interactive = package(site / "lbr_trex_client" / "interactive", "from PyPI")
    (site / "lbr_trex_client" / "__init__.py").write_text(
        "import os, sys\nsys.path.append(os.path.join(os.path.dirname(__file__), 'interactive'))\n")
    clean_import.syspath_prepend(str(site))
    api = trex.load_client("trex", None)
    assert api.STLClient == "from PyPI"
    assert api.__file__ == str(interactive / "trex" / "stl" / "api.py")
    assert "lbr_trex_client" in sys.modules


def test_client_path_is_used_without_lbr_trex_client(tmp_path, clean_import):
    clean_import.setitem(sys.modules, "lbr_trex_client", None)  # importing it would fail
    api = trex.load_client("trex", str(package(tmp_path, "from client_path")))
    assert api.STLClient == "from client_path"
    assert sys.path[0] == str(tmp_path)


def test_a_missing_current_client_says_how_to_install_it(clean_import):
    clean_import.setitem(sys.modules, "lbr_trex_client", None)
    with pytest.raises(BenchError) as failed:
        trex.load_client("trex", None)
    message = str(failed.value)
    assert message.startswith("client trex: cannot import lbr_trex_client in the controller's Python %s" % sys.executable)
    assert "install it with 'pip install lbr-trex-client'" in message
    assert "or set client_path to a TRex install's scripts/automation/trex_control_plane/interactive" in message


@pytest.mark.usefixtures("clean_import")
def test_a_client_path_that_does_not_import_says_what_to_do(tmp_path):
    package(tmp_path, "x", api_text="raise ImportError('No module named zmq')\n")
    with pytest.raises(BenchError) as failed:
        trex.load_client("trex", str(tmp_path))
    message = str(failed.value)
    assert message.startswith("client trex: cannot import trex.stl.api")
    assert "(No module named zmq)" in message
    assert "check that client_path %s is the scripts/automation/trex_control_plane/interactive of a TRex release" % tmp_path in message
    assert "or unset client_path and 'pip install lbr-trex-client'" in message


def test_a_client_path_without_trex_says_so(tmp_path):
    with pytest.raises(BenchError, match="client_path: %s holds no trex/stl package.*leave it unset for PyPI's lbr-trex-client" % tmp_path):
        trex.load_client("trex", str(tmp_path))


def test_a_missing_old_client_says_how_to_install_either(monkeypatch):
    monkeypatch.setitem(sys.modules, "trex_stl_lib.api", None)
    with pytest.raises(BenchError) as failed:
        trex.load_client("trex_stl_lib", None)
    message = str(failed.value)
    assert message.startswith("client trex_stl_lib: cannot import trex_stl_lib.api")
    assert "install it with 'pip install trex-stl-lib pyzmq scapy', or set client: trex" in message
    assert "'pip install lbr-trex-client'" in message


# The calls TRexGenerator makes on a client of the current generation, with the arguments it passes.
ADAPTER_CALLS = [
    ["__init__", [], {"server": "gen", "sync_port": 4501, "async_port": 4500, "verbose_level": "error"}],
    ["connect", [], {}], ["get_all_ports", [], {}], ["reset", [], {"ports": [0, 1]}],
    ["set_service_mode", [], {"ports": [0, 1], "enabled": True}], ["set_l3_mode", [0, "10.0.0.1", "10.0.0.2"], {}],
    ["get_server_version", [], {}], ["remove_all_streams", [], {"ports": [0, 1]}], ["add_streams", ["stream"], {"ports": [0]}],
    ["clear_stats", [], {"ports": [0, 1]}], ["get_stats", [], {"ports": [0, 1]}],
    ["start", [], {"ports": [0], "mult": "100.000000pps", "duration": 1.0, "force": True}],
    ["wait_on_traffic", [], {"ports": [0], "timeout": 1.0}], ["get_pgid_stats", [[100]], {}],
    ["stop", [], {"ports": [0, 1]}], ["disconnect", [], {}],
]
BENCH_STREAM = {"frame": "02" * 60, "vm": [{"type": "flow_var", "name": "src", "min": 1, "max": 100, "size": 4, "op": "inc"},
                                           {"type": "write", "name": "src", "offset": 26},
                                           {"type": "fix_checksum_hw", "l3_offset": 14, "l4_offset": 34, "l4_type": 11}]}


@pytest.mark.skipif(importlib.util.find_spec("lbr_trex_client") is None, reason="pip install lbr-trex-client")
def test_the_current_client_from_pypi_takes_every_call_of_the_adapter():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    done = subprocess.run([sys.executable, HELPER, "api"], input=json.dumps({"calls": ADAPTER_CALLS, "stream": BENCH_STREAM}),
                          capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.strip().splitlines()[-1])
    assert reply["api"].endswith(os.path.join("lbr_trex_client", "interactive", "trex", "stl", "api.py"))
    assert "scapy-2.4.3" in reply["scapy"]
    assert reply["refused"] == {}
    # no LoggerApi: the adapter gives this client a level name ("error")
    assert reply["has_logger_api"] is False
    assert reply["guard"]["timeout_before"] == 5
    assert reply["guard"]["timeout_after"] == reply["subscriber_timeout"] == trex.SUBSCRIBER_TIMEOUT
    # a connection lost during an API call: SIGINT to this process as the client comes, nothing once disarmed
    assert reply["lost"]["as_it_comes"] == {"signals": ["SIGINT"], "cause": "the server went away"}
    assert reply["lost"]["disarmed"] == {"signals": [], "cause": "the server went away"}
    # the process lived on (the client's own handler sends it SIGTERM) and the connection is marked lost
    [cause] = reply["guard"]["crash_causes"]
    assert cause.startswith("the TRex client's subscriber thread crashed:") and "RuntimeError: the subscriber broke" in cause
    assert [(ins["type"], ins.get("pkt_offset"), ins.get("l2_len"), ins.get("l3_len")) for ins in reply["stream"]] == [
        ("flow_var", None, None, None), ("write_flow_var", 26, None, None), ("fix_checksum_hw", None, 14, 20)]


def test_the_current_client_s_astf_api_loads_after_the_old_client_in_one_process():
    """A loop of the bench runs its items in one Ansible worker: the virtual lab's stateful search (the current client's
    ASTF API) comes after searches with the old client, whose pyzmq TRex's own ZeroMQ binding must not meet."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path for path in sys.path if path))
    done = subprocess.run([sys.executable, HELPER, "after-old"], input="{}", capture_output=True, text=True, timeout=120, check=False, env=env)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.strip().splitlines()[-1])
    assert reply["old"].endswith(os.path.join("trex_stl_lib", "api.py")) and reply["client"] == "ASTFClient"
    assert reply["astf"].endswith(os.path.join("lbr_trex_client", "interactive", "trex", "astf", "api.py"))
    assert os.path.join("external_libs", "pyzmq-ctypes", "zmq", "context.py") in reply["zmq"]


def test_the_old_clients_subscriber_is_guarded():
    api = pytest.importorskip("trex_stl_lib.api")
    client = api.STLClient(server="127.0.0.1", verbose_level=api.LoggerApi.VERBOSE_QUIET)
    subscriber = client.conn.async_connection
    assert subscriber.get_timeout_sec() == 3

    def broken_run():
        raise ValueError("bad frame from the publisher")

    subscriber._run = broken_run
    trex.disarm(client)
    causes = []
    client.conn.is_connected = lambda: True
    client.conn.mark_for_disconnect = causes.append
    assert subscriber.get_timeout_sec() == trex.SUBSCRIBER_TIMEOUT
    client.event_handler.on_async_timeout(trex.SUBSCRIBER_TIMEOUT)
    subscriber._run()
    assert causes[0] == "Connection lost - Subscriber timeout: no data from the TRex server for more than 10 seconds"
    assert causes[1].startswith("the TRex client's subscriber thread crashed:") and "ValueError: bad frame from the publisher" in causes[1]


@pytest.mark.parametrize("disarmed", [False, True])
def test_the_old_clients_connection_signals_its_process_only_as_it_comes(disarmed):
    """A lost connection during an API call (every call turns ``sigint_on_conn_lost`` on) sends SIGINT to the
    process, the Ansible worker, whose handler ends it; a disarmed client only marks the connection lost."""
    api = pytest.importorskip("trex_stl_lib.api")
    client = api.STLClient(server="127.0.0.1", verbose_level=api.LoggerApi.VERBOSE_QUIET)
    if disarmed:
        trex.disarm(client)
    got = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: got.append(signum))
    try:
        client.conn.sigint_on_conn_lost_enable()
        client.conn.mark_for_disconnect("the server went away")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert got == ([] if disarmed else [signal.SIGINT])
    assert client.conn.is_marked_for_disconnect() and client.conn.get_disconnection_cause() == "the server went away"


def test_a_client_of_neither_layout_is_left_alone():
    client = types.SimpleNamespace(conn=types.SimpleNamespace(async_=types.SimpleNamespace()))
    trex.disarm(client)
    trex.disarm(object())
    assert vars(client.conn.async_) == {}


def generator(client_kind, **args):
    base = {"client": client_kind, "server": "127.0.0.1", "sync_port": 4501, "async_port": 4500, "ports": [0, 1], "port_l3": PORT_L3}
    base.update(args)
    return trex.TRexGenerator(None, base)


def current_client():
    """A client whose port objects are its children: their calls are in its ``method_calls``, in order."""
    client = mock.Mock()
    client.ports = {0: client.port0, 1: client.port1}
    return client


def test_the_current_client_sets_l3_in_service_mode():
    """Its set_l3_mode refuses a port outside service mode. Every port gets its address before any resolves (a port whose
    gateway is the other port is answered only once that port has its address), then the client resolves them together."""
    bench = generator("trex")
    bench.client = current_client()
    bench.set_l3()
    assert bench.client.method_calls == [
        mock.call.set_service_mode(ports=[0, 1], enabled=True),
        mock.call.port0.set_l3_mode("10.0.0.1", "10.0.0.2"), mock.call.port1.set_l3_mode("10.1.0.1", "10.1.0.2"),
        mock.call.resolve(ports=[0, 1]),
        mock.call.set_service_mode(ports=[0, 1], enabled=False)]


def test_service_mode_is_left_when_a_gateway_does_not_resolve():
    bench = generator("trex")
    bench.client = current_client()
    bench.client.resolve.side_effect = RuntimeError("Port 0 - *** could not resolve 10.0.0.2")
    with pytest.raises(RuntimeError):
        bench.set_l3()
    assert bench.client.method_calls[-1] == mock.call.set_service_mode(ports=[0, 1], enabled=False)


@pytest.fixture(name="listener")
def fixture_listener():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


@pytest.mark.parametrize("client_kind, level", [("trex", "error"), ("trex_stl_lib", "quiet")])
def test_each_client_gets_its_verbose_level(listener, client_kind, level):
    made = []

    class Client:
        def __init__(self, **kwargs):
            made.append(kwargs)

        def connect(self):
            raise RuntimeError("no handshake")

    api = types.SimpleNamespace(STLClient=Client, LoggerApi=types.SimpleNamespace(VERBOSE_QUIET="quiet"))
    bench = trex.TRexGenerator(api, {"client": client_kind, "server": "127.0.0.1", "sync_port": listener, "async_port": listener})
    with pytest.raises(GeneratorLost, match="did not complete the handshake: no handshake .*client '%s'" % client_kind):
        bench.open_client("server", "127.0.0.1", listener, listener, [0])
    assert made == [{"server": "127.0.0.1", "sync_port": listener, "async_port": listener, "verbose_level": level}]


class Timeout(Exception):
    """The client's timeout error (STLTimeoutError, TRexTimeoutError)."""


@pytest.mark.parametrize("name", ["STLTimeoutError", "TRexTimeoutError"])
def test_the_wait_for_the_traffic_reads_the_sending_server_every_slice(name):
    bench = generator("trex_stl_lib")
    bench.api = types.SimpleNamespace(**{name: Timeout})
    bench.client = mock.Mock()
    bench.client.wait_on_traffic.side_effect = [Timeout(), Timeout(), None]
    bench.wait_on_traffic([0], 30)
    assert bench.client.method_calls == [
        mock.call.wait_on_traffic(ports=[0], timeout=trex.ALIVE_READ), mock.call.get_stats(ports=[0]),
        mock.call.wait_on_traffic(ports=[0], timeout=trex.ALIVE_READ), mock.call.get_stats(ports=[0]),
        mock.call.wait_on_traffic(ports=[0], timeout=trex.ALIVE_READ)]


def test_a_sending_server_that_restarted_under_the_trial_loses_it_at_the_next_read():
    bench = generator("trex_stl_lib")
    bench.api = types.SimpleNamespace(STLTimeoutError=Timeout)
    bench.client = mock.Mock()
    bench.client.wait_on_traffic.side_effect = Timeout()
    bench.client.get_stats.side_effect = RuntimeError("API verification failed - API handler provided mismatch for class: 'STL'")
    with pytest.raises(GeneratorLost) as lost:
        bench._call(bench.wait_on_traffic, [0], 30)
    assert lost.value.reason == "127.0.0.1:4501: API verification failed - API handler provided mismatch for class: 'STL'"
    assert bench.client.wait_on_traffic.call_count == 1


def test_the_wait_for_the_traffic_ends_with_the_clients_timeout(monkeypatch):
    bench = generator("trex_stl_lib")
    bench.api = types.SimpleNamespace(STLTimeoutError=Timeout)
    bench.client = mock.Mock()
    bench.client.wait_on_traffic.side_effect = Timeout()
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(trex.time, "time", lambda: next(clock))
    with pytest.raises(Timeout):
        bench.wait_on_traffic([0], 25)
    assert bench.client.wait_on_traffic.call_count == 3


def test_a_trial_records_the_profile_s_own_packet_groups_from_both_servers():
    """A profile's flow-stats and latency streams (trex_profile.packet_group): each trial records their counts, read from
    the sending server and from the receiving one before and after it."""
    rx_server = {"server": "127.0.0.1", "sync_port": 4511, "async_port": 4510, "ports": [0]}
    bench = generator("trex_stl_lib", ports=[0], port_l3=None, rx_server=rx_server, settle=0.0)
    bench.api = types.SimpleNamespace(STLTimeoutError=Timeout)
    bench.client, bench.rx_client = mock.Mock(), mock.Mock()
    bench.groups = [{"pg_id": 12, "kind": "stats"}]
    bench.tx_ports = [(0, 1.0)]
    bench.client.get_stats.return_value = {0: {"opackets": 2000}}
    bench.rx_client.get_stats.return_value = {0: {"ipackets": 0}}
    bench.client.get_pgid_stats.side_effect = [{"flow_stats": {12: {"tx_pkts": {"total": n}}}} for n in (500, 2500)]
    bench.rx_client.get_pgid_stats.side_effect = [{"flow_stats": {12: {"rx_pkts": {"total": n}}}} for n in (400, 2390)]
    reply = bench.send({0: "1"}, 1.0)
    assert reply["packet_groups"] == [{"pg_id": 12, "kind": "stats", "sent": 2000, "received": 1990}]
    assert bench.client.get_pgid_stats.call_args_list == [mock.call([12]), mock.call([12])]
