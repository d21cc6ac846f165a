"""softgen's RPC layer through a real ZeroMQ REQ socket (and a SUB socket for the publisher).

The server runs as ``python -m softgen`` on 127.0.0.1 with two ``null`` ports
(sinks that count frames without a network interface), so no namespace is
needed.
"""
import base64
import contextlib
import json
import os
import random
import signal
import struct
import subprocess
import sys
import time
import zlib

import pytest

zmq = pytest.importorskip("zmq")

from softgen.server import (  # noqa: E402  pylint: disable=wrong-import-position
    ERR_EXECUTE, ERR_INVALID_PARAMS, ERR_INVALID_REQ, ERR_METHOD_NOT_FOUND, ERR_PARSE)
from ansible_collections.offload.testbed.tests.support.free_ports import free_ports  # noqa: E402  pylint: disable=wrong-import-position

SOFTGEN_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "extensions"))

# Ether/IPv4/UDP, 60 bytes (64 on the wire with the FCS)
PKT = bytes.fromhex("ffffffffffff00000000000008004500002e000100004011" + "0000" + "10000001" + "30000001"
                    + "04010000001a0000") + b"x" * 18
VM = {"instructions": [
    {"type": "flow_var", "name": "src", "size": 4, "op": "inc", "init_value": 0x10000001, "min_value": 0x10000001,
     "max_value": 0x100003E8, "step": 1},
    {"type": "write_flow_var", "name": "src", "pkt_offset": 26, "add_value": 0, "is_big_endian": True},
    {"type": "fix_checksum_ipv4", "pkt_offset": 14}], "split_by_var": ""}


def stream_json(pps=10.0, vm=None, mode=None):
    return {"enabled": True, "self_start": True, "isg": 0.0, "flags": 0, "action_count": 0, "next_stream_id": -1,
            "mode": mode or {"type": "continuous", "rate": {"type": "pps", "value": pps}},
            "packet": {"binary": base64.b64encode(PKT).decode(), "meta": ""}, "vm": vm if vm is not None else VM,
            "flow_stats": {"enabled": False}}


class Rpc:
    def __init__(self, ctx, port):  # pylint: disable=redefined-outer-name
        self.sock = ctx.socket(zmq.REQ)
        self.sock.setsockopt(zmq.RCVTIMEO, 5000)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect("tcp://127.0.0.1:%d" % port)
        self.api_h = None
        self.next_id = 1

    def raw(self, payload):
        self.sock.send(payload)
        return self.sock.recv()

    def request(self, method, params=None, api=True, **extra):
        params = dict(params or {})
        if api and self.api_h:
            params.setdefault("api_h", self.api_h)
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        msg.update(extra)
        self.next_id += 1
        return msg

    def call(self, method, params=None, api=True):
        reply = json.loads(self.raw(json.dumps(self.request(method, params, api)).encode()))
        assert reply["jsonrpc"] == "2.0"
        return reply

    def ok(self, method, params=None):
        reply = self.call(method, params)
        assert "error" not in reply, reply
        return reply["result"]

    def err(self, method, params=None, api=True):
        reply = self.call(method, params, api)
        assert "error" in reply, reply
        return reply["error"]


@contextlib.contextmanager
def running_server(extra=()):
    """``python -m softgen`` with two null ports (``extra``: more arguments, ``--astf``), on free ports: its rpc and pub ports,
    a ZeroMQ context and the process."""
    rpc_port, pub = free_ports(2)
    proc = subprocess.Popen(  # pylint: disable=consider-using-with
        [sys.executable, "-m", "softgen", "--rpc-port", str(rpc_port), "--pub-port", str(pub),
         "--port", "p0:-:null0", "--port", "p1:-:null1"] + list(extra), cwd=SOFTGEN_DIR, stderr=subprocess.DEVNULL)
    ctx = zmq.Context()
    probe = Rpc(ctx, rpc_port)
    probe.sock.setsockopt(zmq.RCVTIMEO, 10000)
    assert "result" in probe.call("ping", api=False)
    probe.sock.close(0)
    try:
        yield {"rpc": rpc_port, "pub": pub, "ctx": ctx, "proc": proc}
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        ctx.term()


@pytest.fixture(scope="module")
def server():
    with running_server() as started:
        yield started


@pytest.fixture
def rpc(server):  # pylint: disable=redefined-outer-name
    client = Rpc(server["ctx"], server["rpc"])
    client.api_h = client.ok("api_sync", {"api_vers": [{"type": "core", "major": 4, "minor": 1}]})["api_vers"][0]["api_h"]
    yield client
    # leave both ports free and idle for the next test
    for port_id in (0, 1):
        owner = client.ok("get_port_status", {"port_id": port_id})["owner"]
        if owner:
            handler = client.ok("acquire", {"port_id": port_id, "user": "cleanup", "session_id": 1, "force": True})
            client.ok("stop_traffic", {"port_id": port_id, "handler": handler})
            client.ok("remove_all_streams", {"port_id": port_id, "handler": handler})
            client.ok("release", {"port_id": port_id, "handler": handler})
    client.sock.close(0)


@pytest.fixture
def sub(server):  # pylint: disable=redefined-outer-name
    sock = server["ctx"].socket(zmq.SUB)
    sock.setsockopt(zmq.SUBSCRIBE, b"")
    sock.setsockopt(zmq.RCVTIMEO, 3000)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect("tcp://127.0.0.1:%d" % server["pub"])
    yield sock
    sock.close(0)


def acquire(rpc, port_id=0, user="alice"):  # pylint: disable=redefined-outer-name
    return rpc.ok("acquire", {"port_id": port_id, "user": user, "session_id": 1234, "force": False})


def owned(handler, port_id=0, **params):
    params.update({"port_id": port_id, "handler": handler})
    return params


def wait_for(sock, name, kind=None, timeout=5.0):
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        msg = json.loads(sock.recv())
        seen.append(msg)
        if msg["name"] == name and (kind is None or msg["type"] == kind):
            return msg, seen
    raise AssertionError("no %s/%s message" % (name, kind))


# ------------------------------------------------------------------ handshakes and server info
def test_api_sync_old_handshake(server):  # pylint: disable=redefined-outer-name
    client = Rpc(server["ctx"], server["rpc"])
    result = client.ok("api_sync", {"api_vers": [{"type": "core", "major": 4, "minor": 1}]})
    assert result["api_vers"][0]["type"] == "core"
    assert isinstance(result["api_vers"][0]["api_h"], str) and result["api_vers"][0]["api_h"]
    assert client.err("api_sync", {"api_vers": [{"type": "core", "major": 3, "minor": 0}]})["code"] == ERR_EXECUTE
    assert client.err("api_sync", {})["code"] == ERR_INVALID_PARAMS
    client.sock.close(0)


def test_api_sync_v2_handshake(server):  # pylint: disable=redefined-outer-name
    client = Rpc(server["ctx"], server["rpc"])
    api_h = client.ok("api_sync_v2", {"name": "STL", "major": 5, "minor": 1})["api_h"]
    old = client.ok("api_sync", {"api_vers": [{"type": "core", "major": 4, "minor": 1}]})["api_vers"][0]["api_h"]
    # one handle per client generation, and both are good for any call
    assert api_h != old
    for handle in (api_h, old):
        assert "result" in client.call("get_system_info", {"api_h": handle}, api=False)
    err = client.err("api_sync_v2", {"name": "STL", "major": 99, "minor": 0})
    assert err["code"] == ERR_EXECUTE and "mismatch" in err["specific_err"]
    assert client.err("api_sync_v2", {"name": "STL"})["code"] == ERR_INVALID_PARAMS
    client.sock.close(0)


def test_version_system_info_supported_cmds_ping(rpc):  # pylint: disable=redefined-outer-name
    assert rpc.ok("get_version")["version"].startswith("v")
    info = rpc.ok("get_system_info")
    assert info["port_count"] == 2 and len(info["ports"]) == 2
    for key in ("driver", "pci_addr", "numa", "hw_mac", "description", "is_virtual", "rx"):
        assert key in info["ports"][0]
    assert info["ports"][1]["rx"] == {"caps": ["flow_stats", "latency", "rx_bytes"], "counters": 65536}
    cmds = rpc.ok("get_supported_cmds")
    for method in ("get_version", "get_system_info", "get_supported_cmds", "ping", "acquire", "release", "get_port_status",
                   "get_all_streams", "add_stream", "remove_all_streams", "start_traffic", "stop_traffic", "pause_traffic",
                   "resume_traffic", "update_traffic", "get_global_stats", "get_port_stats", "get_utilization",
                   "clear_stats", "set_l2", "set_l3", "set_vlan", "publish_now", "api_sync", "api_sync_v2"):
        assert method in cmds
    assert "ts" in rpc.call("ping", api=False)["result"]


# ------------------------------------------------------------------ JSON-RPC errors
def test_unknown_method(rpc):  # pylint: disable=redefined-outer-name
    err = rpc.err("no_such_method")
    assert err["code"] == ERR_METHOD_NOT_FOUND
    assert err["message"] == "Method no_such_method not registered"


def test_malformed_requests(rpc):  # pylint: disable=redefined-outer-name
    assert json.loads(rpc.raw(b"{not json"))["error"]["code"] == ERR_PARSE
    assert json.loads(rpc.raw(b'{"jsonrpc": "2.0", "method": "ping"}'))["error"]["code"] == ERR_INVALID_REQ
    reply = json.loads(rpc.raw(b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}'))
    assert reply["error"]["code"] == ERR_INVALID_REQ and reply["id"] == 7


def test_api_handler_checked(rpc):  # pylint: disable=redefined-outer-name
    assert rpc.err("get_system_info", {}, api=False)["code"] == ERR_INVALID_PARAMS
    err = rpc.err("get_system_info", {"api_h": "wrong"})
    assert err["code"] == ERR_EXECUTE and "API verification failed" in err["specific_err"]


def test_bad_params(rpc):  # pylint: disable=redefined-outer-name
    err = rpc.err("get_port_status", {})
    assert err["code"] == ERR_INVALID_PARAMS and err["message"] == "Bad paramters for method"
    assert "port_id" in err["specific_err"]
    assert rpc.err("get_port_status", {"port_id": "zero"})["code"] == ERR_INVALID_PARAMS
    assert rpc.err("get_port_status", {"port_id": 9})["code"] == ERR_EXECUTE
    handler = acquire(rpc)
    assert rpc.err("start_traffic", owned(handler, mul={"type": "pps", "op": "abs"}, duration=1))["code"] == ERR_INVALID_PARAMS
    assert rpc.err("add_stream", owned(handler, stream_id=1, stream={"mode": {}}))["code"] == ERR_INVALID_PARAMS
    bad_vm = {"instructions": [{"type": "write_flow_var", "name": "nope", "pkt_offset": 26}]}
    assert rpc.err("add_stream", owned(handler, stream_id=1, stream=stream_json(vm=bad_vm)))["code"] == ERR_INVALID_PARAMS
    assert rpc.err("set_l3", owned(handler, src_addr="1.2.3", dst_addr="1.2.3.4"))["code"] == ERR_INVALID_PARAMS


def test_start_on_unacquired_port_and_wrong_handler(rpc):  # pylint: disable=redefined-outer-name
    err = rpc.err("start_traffic", {"port_id": 1, "handler": "x", "mul": {"type": "raw", "op": "abs", "value": 1}, "duration": 1})
    assert err["code"] == ERR_EXECUTE and "acquire" in err["specific_err"]
    handler = acquire(rpc, 1)
    err = rpc.err("start_traffic", {"port_id": 1, "handler": handler + "x", "mul": {"type": "raw", "op": "abs", "value": 1}})
    assert err["code"] == ERR_EXECUTE and "not owned" in err["specific_err"]
    err = rpc.err("start_traffic", owned(handler, 1, mul={"type": "raw", "op": "abs", "value": 1}, duration=1))
    assert err["code"] == ERR_EXECUTE and err["specific_err"] == "command 'start' cannot be executed on current state: 'IDLE'"


# ------------------------------------------------------------------ batches and compression
def test_batch_request(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    batch = [rpc.request("add_stream", owned(handler, stream_id=i, stream=stream_json())) for i in (1, 2, 3)]
    batch.append(rpc.request("add_stream", owned(handler, stream_id=1, stream=stream_json())))
    batch.append(rpc.request("nope"))
    replies = json.loads(rpc.raw(json.dumps(batch).encode()))
    assert [r["id"] for r in replies] == [m["id"] for m in batch]
    assert all("result" in r for r in replies[:3])
    assert replies[3]["error"]["code"] == ERR_EXECUTE and "already exists" in replies[3]["error"]["specific_err"]
    assert replies[4]["error"]["code"] == ERR_METHOD_NOT_FOUND
    assert sorted(rpc.ok("get_all_streams", {"port_id": 0})["streams"]) == ["1", "2", "3"]
    assert rpc.ok("get_port_status", {"port_id": 0})["max_stream_id"] == 3


def test_zipped_request_gets_zipped_reply(rpc):  # pylint: disable=redefined-outer-name
    body = json.dumps(rpc.request("get_system_info")).encode()
    reply = rpc.raw(struct.pack(">II", 0xABE85CEA, len(body)) + zlib.compress(body))
    magic, length = struct.unpack(">II", reply[:8])
    assert magic == 0xABE85CEA
    data = zlib.decompress(reply[8:])
    assert len(data) == length and json.loads(data)["result"]["port_count"] == 2


# ------------------------------------------------------------------ ownership and streams
def test_acquire_release_ownership(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc, 0, "alice")
    status = rpc.ok("get_port_status", {"port_id": 0})
    assert status["owner"] == "alice" and status["state"] == "IDLE"
    for key in ("attr", "rx_info", "service", "max_stream_id"):
        assert key in status
    assert status["attr"]["layer_cfg"]["ether"]["src"]
    # TRex's refusals without force: another user, or another session of the same user
    err = rpc.err("acquire", {"port_id": 0, "user": "bob", "session_id": 1, "force": False})
    assert err["code"] == ERR_EXECUTE and err["specific_err"] == "port is already taken by 'alice'"
    err = rpc.err("acquire", {"port_id": 0, "user": "alice", "session_id": 99, "force": False})
    assert err["specific_err"] == "port is already owned by another session of 'alice'"
    stolen = rpc.ok("acquire", {"port_id": 0, "user": "bob", "session_id": 1, "force": True})
    assert stolen != handler
    assert rpc.err("release", owned(handler))["code"] == ERR_EXECUTE
    rpc.ok("release", owned(stolen))
    assert rpc.ok("get_port_status", {"port_id": 0})["owner"] == ""


def test_streams_add_remove(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("add_stream", owned(handler, stream_id=5, stream=stream_json()))
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "STREAMS"
    got = rpc.ok("get_all_streams", {"port_id": 0})["streams"]["5"]
    assert got["packet"]["binary"] == base64.b64encode(PKT).decode() and got["next_stream_id"] == -1
    assert rpc.err("remove_stream", owned(handler, stream_id=6))["code"] == ERR_EXECUTE
    rpc.ok("remove_stream", owned(handler, stream_id=5))
    rpc.ok("add_stream", owned(handler, stream_id=7, stream=stream_json()))
    rpc.ok("remove_all_streams", owned(handler))
    status = rpc.ok("get_port_status", {"port_id": 0})
    assert status["state"] == "IDLE" and not rpc.ok("get_all_streams", {"port_id": 0})["streams"]


# ------------------------------------------------------------------ traffic
def test_start_duration_counts_and_job_done(rpc, sub):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=1)))
    rpc.ok("clear_stats", {"port_id": 0})
    mul = {"type": "pps", "op": "abs", "value": 2000}
    result = rpc.ok("start_traffic", owned(handler, mul=mul, duration=1.0, force=False, core_mask=1))
    assert result["multiplier"] == pytest.approx(2000)
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "TX"
    assert rpc.err("add_stream", owned(handler, stream_id=2, stream=stream_json()))["code"] == ERR_EXECUTE
    msg, _unused = wait_for(sub, "trex-event", 4, timeout=5)
    assert msg["data"]["port_id"] == 0
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "STREAMS"
    time.sleep(0.3)
    stats = rpc.ok("get_port_stats", {"port_id": 0})
    # Never more than rate x duration; a worker starved of the CPU (the unit stage runs beside lint and sanity on two
    # cores) keeps at most 64 frames of credit and sends fewer, so the lower end only says that it sent for the duration.
    assert 1000 <= stats["opackets"] <= 2010
    assert stats["obytes"] == stats["opackets"] * 64
    for key in ("ipackets", "ibytes", "tx_pps", "rx_pps", "tx_bps", "rx_bps", "m_total_tx_pps", "oerrors"):
        assert key in stats
    glob = rpc.ok("get_global_stats")
    for key in ("m_tx_pps", "m_rx_pps", "m_tx_bps", "m_rx_bps", "m_cpu_util", "m_total_tx_pkts", "opackets", "tx_pps"):
        assert key in glob
    assert glob["opackets"] >= stats["opackets"]
    rpc.ok("clear_stats", {})
    assert rpc.ok("get_port_stats", {"port_id": 0})["opackets"] == 0


def test_multiplier_types(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=1)))
    cases = [({"type": "raw", "value": 3}, 3.0),
             ({"type": "pps", "value": 500}, 500.0),
             ({"type": "bps", "value": 1e6}, 1e6 / (64 * 8)),
             ({"type": "bpsl1", "value": 1e6}, 1e6 / (84 * 8)),
             ({"type": "percentage", "value": 1}, 0.01 * 10e9 / (84 * 8))]
    for mul, expected in cases:
        mul["op"] = "abs"
        result = rpc.ok("start_traffic", owned(handler, mul=mul, duration=-1, force=True, core_mask=1))
        assert result["multiplier"] == pytest.approx(expected), mul
        rpc.ok("stop_traffic", owned(handler))


def test_pause_resume_update_stop(rpc, sub):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=100)))
    assert rpc.err("pause_traffic", owned(handler))["code"] == ERR_EXECUTE
    rpc.ok("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}, duration=-1, force=False))
    assert rpc.err("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}))["code"] == ERR_EXECUTE
    rpc.ok("pause_traffic", owned(handler))
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "PAUSE"
    time.sleep(0.3)
    before = rpc.ok("get_port_stats", {"port_id": 0})["opackets"]
    time.sleep(0.4)
    assert rpc.ok("get_port_stats", {"port_id": 0})["opackets"] == before
    rpc.ok("resume_traffic", owned(handler))
    assert rpc.ok("update_traffic", owned(handler, mul={"type": "raw", "op": "add", "value": 1}, force=False))["multiplier"] == 2
    assert rpc.ok("update_traffic", owned(handler, mul={"type": "pps", "op": "abs", "value": 1000}))["multiplier"] == 10
    time.sleep(1.3)
    assert rpc.ok("get_port_stats", {"port_id": 0})["tx_pps"] == pytest.approx(1000, rel=0.2)
    rpc.ok("stop_traffic", owned(handler))
    wait_for(sub, "trex-event", 1)
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "STREAMS"
    assert rpc.err("update_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}))["code"] == ERR_EXECUTE


def test_single_burst(rpc, sub):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc, 1)
    mode = {"type": "single_burst", "total_pkts": 77, "rate": {"type": "pps", "value": 1000}}
    rpc.ok("clear_stats", {"port_id": 1})
    rpc.ok("add_stream", owned(handler, 1, stream_id=1, stream=stream_json(mode=mode)))
    rpc.ok("start_traffic", owned(handler, 1, mul={"type": "raw", "op": "abs", "value": 1}, duration=-1))
    wait_for(sub, "trex-event", 4)
    time.sleep(0.3)
    assert rpc.ok("get_port_stats", {"port_id": 1})["opackets"] == 77


# ------------------------------------------------------------------ L2 / L3 / VLAN / misc
def test_set_l2_l3_vlan(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("set_l2", owned(handler, dst_mac="02:00:00:00:00:99"))
    cfg = rpc.ok("get_port_status", {"port_id": 0})["attr"]["layer_cfg"]
    assert cfg["ether"]["dst"] == "02:00:00:00:00:99" and cfg["ipv4"]["state"] == "none"
    rpc.ok("set_l3", owned(handler, src_addr="10.0.0.1", dst_addr="10.0.0.2"))
    cfg = rpc.ok("get_port_status", {"port_id": 0})["attr"]["layer_cfg"]
    assert cfg["ipv4"] == {"state": "unresolved", "src": "10.0.0.1", "dst": "10.0.0.2"}
    rpc.ok("set_l3", owned(handler, src_addr="10.0.0.1", dst_addr="10.0.0.2", resolved_mac="02:00:00:00:00:aa"))
    cfg = rpc.ok("get_port_status", {"port_id": 0})["attr"]["layer_cfg"]
    assert cfg["ipv4"]["state"] == "resolved" and cfg["ether"]["dst"] == "02:00:00:00:00:aa"
    rpc.ok("set_vlan", owned(handler, vlan=[100]))
    assert rpc.ok("get_port_status", {"port_id": 0})["attr"]["vlan"]["tags"] == [100]
    assert rpc.err("set_vlan", owned(handler, vlan=[1, 2, 3]))["code"] == ERR_INVALID_PARAMS
    rpc.ok("set_vlan", owned(handler, vlan=[]))
    rpc.ok("service", owned(handler, enabled=True))
    assert rpc.ok("get_port_status", {"port_id": 0})["service"] is True
    rpc.ok("set_port_attr", owned(handler, attr={"promiscuous": {"enabled": True}}))
    assert rpc.ok("get_port_status", {"port_id": 0})["attr"]["promiscuous"]["enabled"] is True
    rpc.ok("set_l2", owned(handler, dst_mac="02:00:00:00:00:99"))


def test_utilization_xstats_pgids(rpc):  # pylint: disable=redefined-outer-name
    util = rpc.ok("get_utilization")
    assert len(util["cpu"]) == 2 and len(util["cpu"][0]["history"]) == 20 and "mbuf_stats" in util
    names = rpc.ok("get_port_xstats_names", {"port_id": 0})["xstats_names"]
    values = rpc.ok("get_port_xstats_values", {"port_id": 0})["xstats_values"]
    assert len(names) == len(values)
    assert rpc.ok("get_active_pgids")["ids"] == {"latency": [], "flow_stats": []}
    assert "flow_stats" in rpc.ok("get_pgid_stats", {"pgids": []})


# ------------------------------------------------------------------ publisher
def test_publisher_liveness(sub):  # pylint: disable=redefined-outer-name
    start = time.time()
    count = 0
    while count < 3:
        msg = json.loads(sub.recv())
        if msg["name"] == "trex-global":
            count += 1
            assert "m_tx_pps" in msg["data"] and "opackets-0" in msg["data"] and "ipackets-1" in msg["data"]
    assert time.time() - start < 2.5


def test_publish_now_barrier(rpc, sub):  # pylint: disable=redefined-outer-name
    time.sleep(0.2)  # let the SUB connection settle (slow joiner)
    key = random.getrandbits(32)
    rpc.ok("publish_now", {"key": key, "baseline": True})
    msg, seen = wait_for(sub, "trex-barrier", key, timeout=3)
    assert msg["baseline"] is True
    assert seen[-2]["name"] == "trex-global" and seen[-2]["baseline"] is True
    assert rpc.err("publish_now", {"key": -1, "baseline": True})["code"] == ERR_INVALID_PARAMS


def old_client(server):  # pylint: disable=redefined-outer-name
    """The trex_stl_lib module and a client connected to the module's server, its two ports reset; and a 64-byte UDP packet."""
    api = pytest.importorskip("trex_stl_lib.api")
    client = api.STLClient(server="127.0.0.1", sync_port=server["rpc"], async_port=server["pub"],
                           verbose_level=api.LoggerApi.VERBOSE_QUIET)
    client.connect()
    client.reset(ports=[0, 1])
    pkt = api.STLPktBuilder(pkt=api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP() / (b"x" * 18))
    return api, client, pkt


def test_real_old_client_connects(server):  # pylint: disable=redefined-outer-name
    api, client, pkt = old_client(server)
    try:
        client.add_streams(api.STLStream(packet=pkt, mode=api.STLTXCont(pps=100)), ports=[0])
        client.clear_stats()
        client.start(ports=[0], mult="500pps", duration=1)
        client.wait_on_traffic(ports=[0], timeout=10)
        stats = client.get_stats()
        assert 480 <= stats[0]["opackets"] <= 502
        assert stats["total"]["opackets"] == stats[0]["opackets"] + stats[1]["opackets"]
    finally:
        client.disconnect()


def test_an_old_client_after_a_current_one_never_gets_a_trigger():
    """A server that serves only current clients publishes ``{}`` triggers; an old client's handshake must switch it
    before anything reaches the old client's subscriber, which cannot read a trigger (its subscriber thread crashes on
    a message without a name). The old client's own first call (its barrier, publish_now) is the message that used to
    go out as a trigger: the publisher was waiting in the current form when it came."""
    with running_server() as fresh:
        current = Rpc(fresh["ctx"], fresh["rpc"])
        current.ok("api_sync_v2", {"name": "STL", "major": 5, "minor": 1})
        # the publisher's round in the old form (nobody had spoken) ends within TICK_OLD; the next one waits for
        # messages in the current form, up to 0.5 s, and the old client arrives while it does
        time.sleep(0.7)
        old = Rpc(fresh["ctx"], fresh["rpc"])
        old.api_h = old.ok("api_sync", {"api_vers": [{"type": "core", "major": 4, "minor": 1}]})["api_vers"][0]["api_h"]
        sock = fresh["ctx"].socket(zmq.SUB)
        sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.setsockopt(zmq.RCVTIMEO, 3000)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect("tcp://127.0.0.1:%d" % fresh["pub"])
        time.sleep(0.05)  # the subscription reaches the server, as the old client's does before its barrier
        try:
            received = []
            deadline = time.time() + 3.0
            while time.time() < deadline and not any(b"trex-barrier" in message for message in received):
                old.ok("publish_now", {"key": 7, "baseline": False})
                received.append(sock.recv())
        finally:
            for client in (current, old):
                client.sock.close(0)
            sock.close(0)
    assert b"{}" not in received
    assert any(json.loads(message).get("name") == "trex-barrier" and json.loads(message)["type"] == 7 for message in received)


# ------------------------------------------------------------------ packet capture
def test_capture_start_fetch_stop_remove(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    started = rpc.ok("capture", {"command": "start", "limit": 3, "mode": "fixed", "tx": [0], "rx": [], "filter": "arp"})
    capture_id = started["capture_id"]
    assert abs(started["start_ts"] - time.time()) < 5
    frames = [PKT[:-1] + bytes([i]) for i in range(5)]
    rpc.ok("push_pkts", owned(handler, pkts=[{"binary": base64.b64encode(f).decode()} for f in frames]))
    status = [c for c in rpc.ok("capture", {"command": "status"}) if c["id"] == capture_id][0]
    # fixed mode keeps the first 'limit' frames; the BPF filter is recorded, not applied
    assert (status["state"], status["count"], status["limit"]) == ("ACTIVE", 3, 3)
    assert status["filter"] == {"tx": [0], "rx": [], "bpf": "arp", "bpf_applied": False}
    assert rpc.ok("capture", {"command": "stop", "capture_id": capture_id}) == {"pkt_count": 3}
    first = rpc.ok("capture", {"command": "fetch", "capture_id": capture_id, "pkt_limit": 2})
    assert first["pending"] == 1 and first["start_ts"] == started["start_ts"]
    assert [base64.b64decode(p["binary"]) for p in first["pkts"]] == frames[:2]
    assert [(p["port"], p["origin"], p["index"]) for p in first["pkts"]] == [(0, "TX", 1), (0, "TX", 2)]
    assert first["pkts"][0]["ts"] >= started["start_ts"]
    rest = rpc.ok("capture", {"command": "fetch", "capture_id": capture_id, "pkt_limit": 50})
    assert rest["pending"] == 0 and [base64.b64decode(p["binary"]) for p in rest["pkts"]] == frames[2:3]
    assert rpc.ok("capture", {"command": "remove", "capture_id": capture_id}) == {}
    assert capture_id not in [c["id"] for c in rpc.ok("capture", {"command": "status"})]


def test_capture_cyclic_keeps_the_last_frames(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc, port_id=1)
    capture_id = rpc.ok("capture", {"command": "start", "limit": 2, "mode": "cyclic", "tx": [1], "rx": [1]})["capture_id"]
    frames = [PKT[:-1] + bytes([i]) for i in range(4)]
    rpc.ok("push_pkts", owned(handler, port_id=1, pkts=[{"binary": base64.b64encode(f).decode()} for f in frames]))
    assert rpc.ok("capture", {"command": "stop", "capture_id": capture_id}) == {"pkt_count": 2}
    pkts = rpc.ok("capture", {"command": "fetch", "capture_id": capture_id, "pkt_limit": 10})["pkts"]
    assert [base64.b64decode(p["binary"]) for p in pkts] == frames[2:] and [p["index"] for p in pkts] == [3, 4]
    rpc.ok("capture", {"command": "remove", "capture_id": capture_id})


def test_capture_errors(rpc):  # pylint: disable=redefined-outer-name
    assert rpc.err("capture", {"command": "start", "tx": [], "rx": []})["code"] == ERR_EXECUTE
    assert rpc.err("capture", {"command": "start", "tx": [7]})["code"] == ERR_INVALID_PARAMS
    assert rpc.err("capture", {"command": "start", "rx": [0], "mode": "ring"})["code"] == ERR_INVALID_PARAMS
    assert rpc.err("capture", {"command": "start", "rx": [0], "limit": -1})["code"] == ERR_INVALID_PARAMS
    error = rpc.err("capture", {"command": "stop", "capture_id": 999999})
    assert error["code"] == ERR_EXECUTE and "999999" in error["specific_err"]
    assert rpc.err("capture", {"command": "fetch", "capture_id": 999999, "pkt_limit": 1})["code"] == ERR_EXECUTE
    assert rpc.err("capture", {"command": "remove"})["code"] == ERR_INVALID_PARAMS
    assert rpc.err("capture", {"command": "explode"})["code"] == ERR_INVALID_PARAMS
    assert rpc.err("capture", {})["code"] == ERR_INVALID_PARAMS


def test_push_pkts_puts_the_port_addresses_in_when_asked(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    rpc.ok("set_l2", owned(handler, dst_mac="02:00:00:00:00:99"))
    port_mac = rpc.ok("get_port_status", {"port_id": 0})["attr"]["layer_cfg"]["ether"]["src"]
    capture_id = rpc.ok("capture", {"command": "start", "tx": [0]})["capture_id"]
    encoded = base64.b64encode(PKT).decode()
    reply = rpc.ok("push_pkts", owned(handler, pkts=[{"binary": encoded, "use_port_dst_mac": True, "use_port_src_mac": True},
                                                     {"binary": encoded, "use_port_dst_mac": False, "use_port_src_mac": False}]))
    assert reply["sent"] == 2 and abs(reply["ts"] - time.time()) < 5
    rpc.ok("capture", {"command": "stop", "capture_id": capture_id})
    pkts = [base64.b64decode(p["binary"]) for p in rpc.ok("capture", {"command": "fetch", "capture_id": capture_id, "pkt_limit": 10})["pkts"]]
    rpc.ok("capture", {"command": "remove", "capture_id": capture_id})
    assert pkts[0][:6] == bytes.fromhex("020000000099") and pkts[0][6:12] == bytes.fromhex(port_mac.replace(":", ""))
    assert pkts[0][12:] == PKT[12:] and pkts[1] == PKT


# ------------------------------------------------------------------ flow stats and latency
def flow_stream(pg_id, rule="latency", pkt=PKT, pps=1000.0, mode=None):
    stream = stream_json(pps=pps, mode=mode)
    stream["packet"]["binary"] = base64.b64encode(pkt).decode()
    stream["flow_stats"] = {"enabled": True, "stream_id": pg_id, "rule_type": rule}
    return stream


def test_flow_stats_add_stream_validation(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    err = rpc.err("add_stream", owned(handler, stream_id=1, stream=flow_stream(3, pkt=PKT[:57])))
    assert err["code"] == ERR_EXECUTE
    assert "too small" in err["specific_err"] and "16-byte trailer after the L4 header" in err["specific_err"]
    assert rpc.err("add_stream", owned(handler, stream_id=1, stream=flow_stream(3, rule="bogus")))["code"] == ERR_INVALID_PARAMS
    assert rpc.err("add_stream", owned(handler, stream_id=1, stream=flow_stream("3")))["code"] == ERR_INVALID_PARAMS
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=flow_stream(3, pkt=PKT[:58])))
    # one stream per latency pg_id, one rule type per pg_id, one pg_id per hw_id (pg_id & 0xFFFF)
    for stream in (flow_stream(3), flow_stream(3, rule="stats"), flow_stream(3 + 65536)):
        assert rpc.err("add_stream", owned(handler, stream_id=2, stream=stream))["code"] == ERR_EXECUTE
    rpc.ok("add_stream", owned(handler, stream_id=2, stream=flow_stream(4, rule="stats")))
    rpc.ok("add_stream", owned(handler, stream_id=3, stream=flow_stream(4, rule="stats")))
    rpc.ok("add_stream", owned(handler, stream_id=4, stream=stream_json()))
    assert rpc.ok("get_active_pgids")["ids"] == {"latency": [3], "flow_stats": [4]}
    rpc.ok("remove_stream", owned(handler, stream_id=1))
    rpc.ok("remove_stream", owned(handler, stream_id=2))
    assert rpc.ok("get_active_pgids")["ids"] == {"latency": [], "flow_stats": [4]}
    rpc.ok("remove_all_streams", owned(handler))
    assert rpc.ok("get_active_pgids")["ids"] == {"latency": [], "flow_stats": []}


def test_pgid_stats_wire_shape_counts_and_clear(rpc, sub):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    mode = {"type": "single_burst", "total_pkts": 200, "rate": {"type": "pps", "value": 1000}}
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=flow_stream(9, mode=mode)))
    rpc.ok("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}, duration=-1))
    wait_for(sub, "trex-event", 4)
    stats = rpc.ok("get_pgid_stats", {"pgids": [9]})
    assert set(stats) == {"flow_stats", "latency", "ver_id"}
    flow = stats["flow_stats"]["9"]
    assert set(flow) == {"tp", "tb", "rp", "rb", "tps", "tbs", "rps", "rbs"}
    assert all(set(flow[key]) == {"0", "1"} for key in flow)
    assert flow["tp"] == {"0": 200, "1": 0} and flow["tb"] == {"0": 200 * 64, "1": 0}
    assert flow["rp"] == {"0": 0, "1": 0} and flow["rb"] == {"0": 0, "1": 0}  # null ports receive nothing
    assert stats["flow_stats"]["g"] == {"rx_err": {"0": 0, "1": 0}, "tx_err": {"0": 0, "1": 0}}
    latency = stats["latency"]["9"]
    assert latency["lat"] == {"average": 0.0, "total_max": 0.0, "last_max": 0.0, "jit": 0.0}  # no histogram without RX
    assert latency["er"] == {"drp": 0, "ooo": 0, "dup": 0, "sth": 0, "stl": 0}
    assert stats["latency"]["g"] == {"old_flow": 0, "bad_hdr": 0}
    assert isinstance(stats["ver_id"]["9"], int)
    assert rpc.ok("get_port_stats", {"port_id": 0})["opackets"] >= 200
    assert rpc.ok("get_pgid_stats", {"pgids": []})["flow_stats"]["9"]["tp"]["0"] == 200
    assert set(rpc.ok("get_pgid_stats", {"pgids": [12345]})["flow_stats"]) == {"g"}
    rpc.ok("clear_stats", {})
    assert rpc.ok("get_pgid_stats", {"pgids": [9]})["flow_stats"]["9"]["tp"] == {"0": 0, "1": 0}


def test_flow_stats_through_real_old_client(server):  # pylint: disable=redefined-outer-name
    api, client, pkt = old_client(server)
    try:
        client.add_streams(api.STLStream(packet=pkt, mode=api.STLTXCont(pps=1000),
                                         flow_stats=api.STLFlowLatencyStats(pg_id=5)), ports=[0])
        client.add_streams(api.STLStream(packet=pkt, mode=api.STLTXCont(pps=500), flow_stats=api.STLFlowStats(pg_id=6)),
                           ports=[1])
        small = api.STLPktBuilder(pkt=api.Ether() / api.IP() / api.UDP() / (b"x" * 15))
        with pytest.raises(api.STLError) as refused:  # its str() fails on Python 3.11: read .msg
            client.add_streams(api.STLStream(packet=small, flow_stats=api.STLFlowLatencyStats(pg_id=8)), ports=[0])
        assert "16-byte trailer" in refused.value.msg
        assert client.get_active_pgids() == {"latency": [5], "flow_stats": [6]}
        client.clear_stats()
        client.start(ports=[0, 1], duration=0.5)
        client.wait_on_traffic(ports=[0, 1], timeout=10)
        stats = client.get_stats()
        flow = stats["flow_stats"]
        assert flow[5]["tx_pkts"][0] > 0 and flow[5]["tx_pkts"][1] == 0
        assert flow[5]["tx_bytes"][0] == 64 * flow[5]["tx_pkts"][0]
        assert flow[6]["tx_pkts"][1] > 0 and flow[6]["tx_pkts"]["total"] == flow[6]["tx_pkts"][1]
        assert flow[5]["rx_pkts"]["total"] == 0
        assert stats["latency"][5]["err_cntrs"] == {"dropped": 0, "out_of_order": 0, "dup": 0, "seq_too_high": 0,
                                                    "seq_too_low": 0}
        assert stats["latency"][5]["latency"]["histogram"] == {}
        assert 6 not in stats["latency"]
        assert client.get_pgid_stats([5])["flow_stats"][5]["tx_pkts"][0] == flow[5]["tx_pkts"][0]
    finally:
        client.reset(ports=[0, 1])
        assert client.get_active_pgids() == {"latency": [], "flow_stats": []}
        client.disconnect()


def start_softgen(api, *ports):
    """A softgen process with ``ports`` (``name:-:iface``) and a connected trex_stl_lib client."""
    rpc_port, pub = free_ports(2)
    argv = [sys.executable, "-m", "softgen", "--rpc-port", str(rpc_port), "--pub-port", str(pub)]
    for port in ports:
        argv += ["--port", port]
    proc = subprocess.Popen(argv, cwd=SOFTGEN_DIR, stderr=subprocess.DEVNULL)  # pylint: disable=consider-using-with
    client = api.STLClient(server="127.0.0.1", sync_port=rpc_port, async_port=pub, verbose_level=api.LoggerApi.VERBOSE_QUIET)
    deadline = time.time() + 10
    while True:
        try:
            client.connect()
            return proc, client
        except api.STLError:
            if time.time() > deadline:
                stop_softgen(proc, client)
                raise
            time.sleep(0.2)


def stop_softgen(proc, client):
    if client.is_connected():
        client.disconnect()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
def test_latency_end_to_end_on_loopback():
    """Two ports on the host's ``lo`` (no namespace): what port 0 sends comes back to both ports' trailer filters."""
    api = pytest.importorskip("trex_stl_lib.api")
    proc, client = start_softgen(api, "p0:-:lo", "p1:-:lo")
    try:
        client.reset(ports=[0, 1])
        # a local experimental ethertype: no protocol of the host takes these frames off lo
        pkt = api.STLPktBuilder(pkt=api.Ether(type=0x88B5) / (b"x" * 46))
        client.add_streams(api.STLStream(packet=pkt, mode=api.STLTXSingleBurst(total_pkts=300, pps=1000),
                                         flow_stats=api.STLFlowLatencyStats(pg_id=11)), ports=[0])
        client.start(ports=[0])
        client.wait_on_traffic(ports=[0], timeout=10)
        deadline = time.time() + 5
        while True:
            stats = client.get_pgid_stats()
            if stats["flow_stats"][11]["rx_pkts"]["total"] >= 600 or time.time() > deadline:
                break
            time.sleep(0.1)
        flow, lat = stats["flow_stats"][11], stats["latency"][11]
        assert flow["tx_pkts"][0] == 300 and flow["tx_bytes"][0] == 300 * 64
        assert flow["rx_pkts"][0] == flow["rx_pkts"][1] == 300 and flow["rx_bytes"][1] == 300 * 64
        assert lat["err_cntrs"] == {"dropped": 0, "out_of_order": 0, "dup": 0, "seq_too_high": 0, "seq_too_low": 0}
        assert sum(lat["latency"]["histogram"].values()) == 600
        assert 0 < lat["latency"]["average"] <= lat["latency"]["total_max"]
        assert max(lat["latency"]["histogram"]) <= lat["latency"]["total_max"]
    finally:
        if client.is_connected():
            client.reset(ports=[0, 1])
        stop_softgen(proc, client)


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
def test_latency_received_by_another_server_on_the_same_host():
    """The virtual lab's split: one softgen instance sends the latency stream, another receives it and
    answers get_pgid_stats for that pg_id by id (never in its active pg_ids: it has no such stream)."""
    api = pytest.importorskip("trex_stl_lib.api")
    started = []
    try:
        for _instance in range(2):
            started.append(start_softgen(api, "p0:-:lo"))
        clients = [client for _proc, client in started]
        sender, receiver = clients
        sender.reset(ports=[0])
        pkt = api.STLPktBuilder(pkt=api.Ether(type=0x88B5) / (b"x" * 46))
        sender.add_streams(api.STLStream(packet=pkt, mode=api.STLTXSingleBurst(total_pkts=200, pps=1000),
                                         flow_stats=api.STLFlowLatencyStats(pg_id=12)), ports=[0])
        sender.start(ports=[0])
        sender.wait_on_traffic(ports=[0], timeout=10)
        deadline = time.time() + 5
        while True:
            stats = receiver.get_pgid_stats([12])
            if stats["flow_stats"].get(12, {}).get("rx_pkts", {}).get("total", 0) >= 200 or time.time() > deadline:
                break
            time.sleep(0.1)
        assert stats["flow_stats"][12]["rx_pkts"][0] == 200 and stats["flow_stats"][12]["tx_pkts"][0] == 0
        assert sum(stats["latency"][12]["latency"]["histogram"].values()) == 200
        assert stats["latency"][12]["err_cntrs"]["dropped"] == 0
        assert receiver.get_active_pgids() == {"latency": [], "flow_stats": []}
        assert sender.get_pgid_stats([12])["flow_stats"][12]["tx_pkts"][0] == 200
    finally:
        for proc, client in started:
            stop_softgen(proc, client)


# ------------------------------------------------------------------ what TRex refuses, and how the old owner learns
def test_a_forced_acquire_tells_the_old_owner(rpc, sub):  # pylint: disable=redefined-outer-name
    acquire(rpc, 1, "alice")
    rpc.ok("acquire", {"port_id": 1, "user": "bob", "session_id": 7, "force": True})
    event, _seen = wait_for(sub, "trex-event", 5)
    while event["data"].get("who") != "bob":
        event, _seen = wait_for(sub, "trex-event", 5)
    assert event["data"] == {"port_id": 1, "who": "bob", "session_id": 7, "force": True}


def test_bad_rates_refused_as_trex_refuses_them(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    err = rpc.err("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=-5)))
    assert err["code"] == ERR_INVALID_PARAMS and "negative" in err["specific_err"]
    bad_type = stream_json(mode={"type": "continuous", "rate": {"type": "furlongs", "value": 1}})
    assert rpc.err("add_stream", owned(handler, stream_id=1, stream=bad_type))["code"] == ERR_INVALID_PARAMS
    no_burst = stream_json(mode={"type": "multi_burst", "rate": {"type": "pps", "value": 1}, "ibg": 0.0, "count": 2, "pkts_per_burst": 0})
    assert "pkts_per_burst" in rpc.err("add_stream", owned(handler, stream_id=1, stream=no_burst))["specific_err"]
    # a zero rate is a stream TRex keeps, and a start it refuses
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=0)))
    err = rpc.err("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}, duration=1, force=False))
    assert err["code"] == ERR_EXECUTE and err["specific_err"] == "Effective bandwidth must be positive, got: 0"
    rpc.ok("remove_all_streams", owned(handler))
    # past the port's line rate only with force
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=100)))
    err = rpc.err("start_traffic", owned(handler, mul={"type": "pps", "op": "abs", "value": 2e8}, duration=1, force=False))
    assert "exceeds port line rate" in err["specific_err"]


def test_pause_only_for_continuous_streams_without_duration(rpc):  # pylint: disable=redefined-outer-name
    handler = acquire(rpc)
    assert "cannot be executed on current state: 'IDLE'" in rpc.err("pause_traffic", owned(handler))["specific_err"]
    rpc.ok("add_stream", owned(handler, stream_id=1, stream=stream_json(pps=100)))
    rpc.ok("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}, duration=5.0, force=False))
    assert "duration" in rpc.err("pause_traffic", owned(handler))["specific_err"]
    rpc.ok("stop_traffic", owned(handler))
    rpc.ok("start_traffic", owned(handler, mul={"type": "raw", "op": "abs", "value": 1}, duration=-1, force=False))
    rpc.ok("pause_traffic", owned(handler))
    assert rpc.ok("get_port_status", {"port_id": 0})["state"] == "PAUSE"
    rpc.ok("resume_traffic", owned(handler))
    err = rpc.err("update_traffic", owned(handler, mul={"type": "raw", "op": "sub", "value": 5}, force=False))
    assert err["specific_err"] == "Update request will lower traffic to less than zero"
    rpc.ok("stop_traffic", owned(handler))


def test_current_client_pulls_its_events_in_sequence(server):  # pylint: disable=redefined-outer-name
    client = Rpc(server["ctx"], server["rpc"])
    client.api_h = client.ok("api_sync_v2", {"name": "STL", "major": 5, "minor": 1})["api_h"]
    try:
        assert client.ok("get_async_events", {"session_id": 42, "user": "sub"})["data"] == []
        client.ok("publish_now", {"key": 77, "baseline": False})
        handler = client.ok("acquire", {"port_id": 0, "user": "carol", "session_id": 42, "force": False})
        pulled = client.ok("get_async_events", {"session_id": 42, "user": "sub"})["data"]
        names = [(m["name"], m["type"]) for m in pulled]
        assert names == [("trex-global", 0), ("trex-barrier", 77), ("trex-event", 5)], names
        assert [m["seq"] for m in pulled] == [1, 2, 3]
        client.ok("release", owned(handler))
        again = client.ok("get_async_events", {"session_id": 42, "user": "sub"})["data"]
        assert [(m["name"], m["type"], m["seq"]) for m in again] == [("trex-event", 6, 4)]
        # a dynamic-profile server for the current client: profiles in the port status and the stream list
        status = client.ok("get_port_status", {"port_id": 0, "profile_id": "*"})
        assert status["state_profile"] == {} and status["service_filtered"] is False
        assert "get_profile_list" in client.ok("get_supported_cmds")
        assert client.ok("get_tpg_status", {"port_id": 0}) == {"enabled": False}
    finally:
        client.sock.close(0)
