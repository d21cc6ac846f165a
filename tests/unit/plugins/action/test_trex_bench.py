# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The trex_bench action with a stand-in TRex client that forwards through a device model.

The stand-in keeps the client's calls (connect, reset, add_streams, start with a
``"<n>pps"`` multiplier, wait_on_traffic, get_stats with per-port
``opackets``/``ipackets``) and answers them from a device model of
tests/support/device_models.py; the DUT's health comes from a
table. Real packets are the integration test's job (test_trex_bench_softgen.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import socket
import sys
import types
from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible_collections.offload.testbed.plugins.action import trex_bench as action_mod
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec, trex
from ansible_collections.offload.testbed.tests.support import device_models as dm

jsonschema = pytest.importorskip("jsonschema")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CAPACITY = 50000.0


class FakeClient:
    """Just enough of STLClient; ``model`` decides what port 1 receives."""

    instances = []
    ports_available = [0, 1]
    ceiling = None
    fail_after = None
    wire_total = 0  # frames that arrived at a separate receiving server (rx_server)
    rx_reads = 0  # reads of the receiving server's counters so far
    rx_restart_at = None  # the read at which the receiving server answers as a restarted server does
    latency_supported = True
    pg_seen = {}  # pg_id -> (sent, received) of latency frames, kept by whichever server receives

    def __init__(self, server, sync_port, async_port, verbose_level):
        self.server = server
        self.model = dm.CleanCliff(capacity=CAPACITY)
        self.streams = {}
        self.stats = {}
        self.starts = []
        self.latency_starts = []
        self.connected = False
        self.role = "rx" if FakeClient.instances and sync_port != FakeClient.instances[0].sync_port else "tx"
        self.sync_port = sync_port
        FakeClient.instances.append(self)

    def connect(self):
        self.connected = True

    def disconnect(self):
        self.connected = False

    def get_all_ports(self):
        return [0, 1, 2] if self.role == "rx" else list(self.ports_available)

    def reset(self, ports):
        self.streams = {}

    def get_server_version(self):
        return {"version": "fake", "mode": "STL"}

    def remove_all_streams(self, ports):
        for port in ports:
            self.streams.pop(port, None)

    def add_streams(self, stream, ports):
        if stream[2].get("flow_stats") is not None and not self.latency_supported:
            raise RuntimeError("flow_stats is not supported by this server")
        for port in ports:
            self.streams.setdefault(port, []).append(stream)

    def clear_stats(self, ports):
        self.stats = {}

    @staticmethod
    def pps_of(stream):
        mode = stream[2]["mode"]
        return mode[2]["pps"]

    def start(self, ports, mult, duration, force):
        if self.fail_after is not None and len(self.starts) >= self.fail_after:
            raise RuntimeError("connection to the server lost")
        assert ports[0] in self.streams
        if mult == "1":
            # absolute stream rates (a latency trial): the latency frames go through the same model
            load = sum(self.pps_of(stream) for stream in self.streams[ports[0]])
            self.latency_starts.append([(self.pps_of(stream), stream[2].get("flow_stats")) for stream in self.streams[ports[0]]])
        else:
            assert mult.endswith("pps")
            load = float(mult[:-3])
        self.starts.append((load, duration))
        sent_rate = min(load, self.ceiling) if self.ceiling else load
        reply = self.model(sent_rate, duration)
        self.stats = {ports[0]: {"opackets": reply["offered"], "ipackets": 0}, 1: {"opackets": 0, "ipackets": reply["received"]}}
        FakeClient.wire_total += reply["received"]
        for stream in self.streams[ports[0]]:
            flow = stream[2].get("flow_stats")
            if flow is not None and mult == "1":
                sent = int(round(self.pps_of(stream) * duration))
                FakeClient.pg_seen[flow[2]["pg_id"]] = (sent, int(sent * reply["received"] / max(reply["offered"], 1)))

    def get_pgid_stats(self, pgids):
        """The translated shape of the client's get_pgid_stats: latency from the receiving side."""
        out = {"latency": {"global": {"old_flow": 0, "bad_hdr": 0}}, "flow_stats": {"global": {}}}
        for pg_id in pgids:
            if pg_id not in FakeClient.pg_seen:
                continue  # a group nobody sent is unknown to the server
            sent, received = FakeClient.pg_seen[pg_id]
            if self.role == "tx":
                out["flow_stats"][pg_id] = {"tx_pkts": {0: sent, "total": sent}, "rx_pkts": {"total": 0}}
            if self.role == "rx" or not any(client.role == "rx" for client in FakeClient.instances):
                rx = {"total": received}
                out["flow_stats"].setdefault(pg_id, {"tx_pkts": {"total": 0}})["rx_pkts"] = rx
                # 98 % in 10-19 us, the rest in 100-199 us
                slow = received // 50
                out["latency"][pg_id] = {
                    "latency": {"average": 14.0, "total_max": 150.0, "total_min": 10, "jitter": 3.0, "last_max": 150.0,
                                "histogram": {10: received - slow, 100: slow} if received else {}},
                    "err_cntrs": {"dropped": sent - received, "dup": 0, "out_of_order": 0, "seq_too_high": 0, "seq_too_low": 0}}
        return out

    def wait_on_traffic(self, ports, timeout):
        return None

    def get_stats(self, ports):
        if self.role == "rx":
            FakeClient.rx_reads += 1
            if FakeClient.rx_reads == FakeClient.rx_restart_at:
                # softgen's (and TRex's) answer to a client of the server before its restart
                raise RuntimeError("API verification failed - API handler provided mismatch for class: 'STL'")
            # running totals spread over the backends, never cleared by the bench
            share = FakeClient.wire_total // len(ports)
            return {port: {"opackets": 0, "ipackets": share + (FakeClient.wire_total - share * len(ports) if index == 0 else 0)}
                    for index, port in enumerate(ports)}
        # counters read as zero after clear_stats, as the client's do
        return {port: self.stats.get(port, {"opackets": 0, "ipackets": 0}) for port in ports}

    def stop(self, ports):
        return None


class FakeTimeout(Exception):
    """The client's timeout error."""


class Recorded(tuple):
    """(kind, args, kwargs) that also takes attributes, as the client's objects do."""


def fake_api():
    def record(kind):
        return lambda *args, **kwargs: Recorded((kind, args, kwargs))
    return types.SimpleNamespace(
        STLClient=FakeClient, LoggerApi=types.SimpleNamespace(VERBOSE_QUIET="quiet"), STLTimeoutError=FakeTimeout,
        STLVmFlowVar=record("flow_var"), STLVmWrFlowVar=record("write"), STLVmFixChecksumHw=record("fix"),
        STLScVmRaw=record("vm"), STLPktBuilder=record("pkt"), STLStream=record("stream"), STLTXCont=record("cont"),
        STLFlowLatencyStats=record("latency"))


def _listening_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture
def listener():
    """Something listening where the generator's RPC port is expected."""
    yield from _listening_port()


@pytest.fixture
def rx_listener():
    """Something listening where the receiving server's (rx_server) RPC port is expected."""
    yield from _listening_port()


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    """The stand-in's counters are quiet at once: no polling pauses between reads."""
    monkeypatch.setattr(trex, "QUIET_POLL", 0.0)


@pytest.fixture(autouse=True)
def reset_fake():
    FakeClient.instances = []
    FakeClient.ports_available = [0, 1]
    FakeClient.ceiling = None
    FakeClient.fail_after = None
    FakeClient.wire_total = 1000
    FakeClient.rx_reads = 0
    FakeClient.rx_restart_at = None
    FakeClient.latency_supported = True
    FakeClient.pg_seen = {}


class Health:
    """dut_health replies in order; the last one repeats."""

    def __init__(self, replies=None):
        self.replies = list(replies or [])
        self.calls = 0
        self.args_seen = []

    def __call__(self, module_name, module_args, task_vars):
        assert module_name == "offload.testbed.dut_health"
        self.calls += 1
        self.args_seen.append(module_args)
        base = {"pid": 42, "start_time": 7, "restarts": None, "core_dumps": [], "offloaded_flows": 0,
                "offloaded_flows_with_packets": 0, "pmd": {}, "changed": False}
        if module_args.get("system"):
            base["system"] = {"hostname": "dut", "kernel": "6.1.0", "cmdline": "quiet", "ovs_version": "3.1.0", "ovn_version": None}
        if self.replies:
            base.update(self.replies.pop(0) if len(self.replies) > 1 else self.replies[0])
        return base


def make_action(args, health=None, check_mode=False):
    task = mock.MagicMock()
    task.args = args
    task.async_val = 0
    task.check_mode = check_mode
    task.action = "offload.testbed.trex_bench"
    connection = mock.MagicMock()
    connection._shell.tmpdir = None
    action = action_mod.ActionModule(task, connection, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None)
    action._execute_module = health or Health()
    return action


def bench_args(port, tmp_path, **overrides):
    args = {"server": "127.0.0.1", "sync_port": port, "async_port": port, "frame_sizes": [64], "max_load": 100000,
            "final_duration": 10, "initial_duration": 1, "warmup_duration": 1, "settle": 0,
            "results_dir": str(tmp_path / "results"), "run_id": "unit", "datapath": "netdev", "metadata": {"nic": "ConnectX-6 Lx"},
            "latency_loads": []}
    args.update(overrides)
    return args


def check_args(raw):
    """The errors the action reports for ``raw``: the argument spec's conversion, then spec.check."""
    validated = ArgumentSpecValidator(spec.argument_spec()).validate(raw)
    assert not validated.error_messages, validated.error_messages
    return spec.check(validated.validated_parameters)[1]


def run(action):
    return action.run(task_vars={"inventory_hostname": "dut01"})


def validate(path):
    with open(os.path.join(ROOT, "docs", "results-schema.json")) as handle:
        schema = json.load(handle)
    with open(path) as handle:
        document = json.load(handle)
    jsonschema.validate(document, schema)
    return document


def test_bad_input_fails_before_any_client(tmp_path, monkeypatch):
    loader = mock.Mock(side_effect=AssertionError("the client must not be loaded"))
    monkeypatch.setattr(action_mod, "load_client", loader)
    result = run(make_action(bench_args(1, tmp_path, frame_sizes=[32], width=0.7, goals=[{"name": "pdr", "loss_ratio": 1.5}])))
    assert result["failed"] is True and "nothing was sent" in result["msg"]
    for needle in ("frame_sizes: 32 outside 64..9216", "width: 0.7", "goals[0].loss_ratio: 1.5"):
        assert needle in result["msg"]
    assert not os.path.exists(str(tmp_path / "results"))


def test_a_wrong_choice_is_refused_by_the_argument_spec(tmp_path, monkeypatch):
    monkeypatch.setattr(action_mod, "load_client", mock.Mock(side_effect=AssertionError("the client must not be loaded")))
    with pytest.raises(AnsibleActionFail) as refused:
        run(make_action(bench_args(1, tmp_path, scenario="mesh")))
    assert "scenario" in str(refused.value) and "mesh" in str(refused.value)
    assert not os.path.exists(str(tmp_path / "results"))


@pytest.mark.parametrize("check_mode", [False, True])
def test_a_results_dir_that_cannot_hold_results_is_refused_before_the_generator_is_touched(tmp_path, monkeypatch, check_mode):
    monkeypatch.setattr(action_mod, "load_client", mock.Mock(side_effect=AssertionError("the client must not be loaded")))
    results = tmp_path / "results"
    results.write_text("a file where the results should go\n")
    result = run(make_action(bench_args(1, tmp_path), check_mode=check_mode))
    assert result["failed"] is True and result["msg"] == (
        "trex_bench: results_dir: %s cannot hold the results: %s; give a directory the controller's user can write, or a path to create"
        % (results, "it is not a directory" if check_mode else "File exists"))
    assert results.read_text() == "a file where the results should go\n"


def test_check_mode_does_not_make_the_results_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(action_mod, "load_client", mock.Mock(side_effect=AssertionError("the client must not be loaded")))
    result = run(make_action(bench_args(1, tmp_path), check_mode=True))
    assert not result.get("failed") and result["changed"] is False and result["msg"].startswith("check mode: arguments are valid")
    assert os.listdir(str(tmp_path)) == []


def test_no_generator_reachable(tmp_path, monkeypatch):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    result = run(make_action(bench_args(port, tmp_path)))
    assert result["failed"] is True
    assert "no generator reachable: nothing answers at 127.0.0.1:%d" % port in result["msg"]
    assert FakeClient.instances == []


def test_generator_without_the_ports(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.ports_available = [0]
    result = run(make_action(bench_args(listener, tmp_path, ports=[0, 1])))
    assert result["failed"] is True and "ports: the generator at 127.0.0.1 has no port(s) 1; it has [0]" in result["msg"]
    assert FakeClient.instances[0].starts == []


def test_missing_client_library_is_a_clear_error(tmp_path):
    result = run(make_action(bench_args(1, tmp_path, client="trex", client_path=str(tmp_path))))
    assert result["failed"] is True and "client_path: %s holds no trex/stl package" % tmp_path in result["msg"]


def test_check_mode_sends_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(action_mod, "load_client", mock.Mock(side_effect=AssertionError("no client in check mode")))
    result = run(make_action(bench_args(1, tmp_path), check_mode=True))
    assert result["changed"] is False and "no traffic sent" in result["msg"]
    assert not os.path.exists(str(tmp_path / "results"))


def test_a_run_finds_the_capacity_writes_every_trial_and_sets_stats(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    health = Health()
    lines = []
    monkeypatch.setattr(action_mod.display, "display", lambda msg, *args, **kwargs: lines.append(msg))
    result = run(make_action(bench_args(listener, tmp_path, dut_interfaces=["ens3f0np0"]), health=health))
    assert not result.get("failed"), result.get("msg")
    assert result["changed"] is True and result["resumed"] is False
    assert health.args_seen[0] == {"system": True, "interfaces": ["ens3f0np0"]} and health.args_seen[1] == {"system": False}
    ndr = result["searches"][0]["goals"]["ndr"]
    assert ndr["lower_bound"] <= CAPACITY <= ndr["upper_bound"] and (ndr["upper_bound"] - ndr["lower_bound"]) / ndr["upper_bound"] <= 0.005
    document = validate(result["results_file"])
    search = document["searches"][0]
    assert document["status"] == "complete" and document["metadata"]["nic"] == "ConnectX-6 Lx"
    assert document["metadata"]["dut_system"]["kernel"] == "6.1.0" and document["metadata"]["dut_host"] == "dut01"
    client = FakeClient.instances[0]
    # the warm-up first (max_load / 10), then exactly the search's trials
    assert client.starts[0] == (10000.0, 1.0)
    assert [value for trial in search["trials"] for value in (trial["load"], trial["duration"])] == pytest.approx(
        [value for start in client.starts[1:] for value in start], rel=1e-9)
    assert health.calls == 1 + 2 * len(search["trials"])
    trial_lines = [line for line in lines if "pps x" in line and "trial" in line]
    assert len(trial_lines) == len(search["trials"]) and "left ~" in trial_lines[0]
    stats = result["ansible_stats"]
    entry = stats["data"]["trex_bench"]["unit"][0]
    assert stats["aggregate"] is True and entry["goals"]["ndr"]["lower_bound_pps"] == ndr["lower_bound"]
    assert entry["goals"]["ndr"]["upper_bound_pps"] == ndr["upper_bound"] and entry["goals"]["ndr"]["lower_bound_line_share"] is None
    assert entry["results_file"] == result["results_file"] and entry["report"] == str(tmp_path / "results" / "report" / "report.html")
    assert (entry["scenario"], entry["protocol"], entry["frame_size"], entry["datapath"]) == ("routing", "udp", 64, "netdev")


def test_upper_bounds_by_mlrsearch_rule_when_asked(tmp_path, monkeypatch, listener):
    # upper_bound_duration reaches the search: an upper bound rests on a short lossy trial,
    # the lower bound still on a final one, and the setting is in the results file.
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    result = run(make_action(bench_args(listener, tmp_path, upper_bound_duration=1, dut_health=False)))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    search = document["searches"][0]
    assert document["search"]["upper_bound_duration"] == 1.0
    ndr = search["result"]["goals"]["ndr"]
    assert search["trials"][ndr["lower_bound_trial"]]["duration"] == 10.0
    at_upper = [trial for trial in search["trials"] if trial["load"] == ndr["upper_bound"]]
    # the first trial at the upper bound was short and lost frames (a final one may follow: PDR's lower bound)
    assert at_upper and at_upper[0]["duration"] == 1.0 and at_upper[0]["loss_ratio"] > 0.0
    assert ndr["lower_bound"] <= CAPACITY <= ndr["upper_bound"]
    # PDR's upper bound rests on a short trial only, which the contract's rule would not accept
    pdr = search["result"]["goals"]["pdr"]
    assert [trial["duration"] for trial in search["trials"] if trial["load"] == pdr["upper_bound"]] == [1.0]
    contract = run(make_action(bench_args(listener, tmp_path, run_id="contract", dut_health=False)))
    assert "upper_bound_duration" not in validate(contract["results_file"])["search"]
    assert search["result"]["trial_seconds"] < contract["searches"][0]["trial_seconds"]


def test_generator_ceiling_is_labelled(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.ceiling = 30000.0
    result = run(make_action(bench_args(listener, tmp_path, max_load=40000, dut_health=False)))
    assert not result.get("failed"), result.get("msg")
    ndr = result["searches"][0]["goals"]["ndr"]
    assert ndr["lower_bound"] == 40000.0 and ndr["generator_limited"] is True
    document = validate(result["results_file"])
    assert all(trial["generator_limited"] for trial in document["searches"][0]["trials"])


def test_a_crash_keeps_the_trials_and_the_same_run_id_resumes(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.fail_after = 4  # warm-up and three trials, then the generator is gone
    result = run(make_action(bench_args(listener, tmp_path, reconnects=0)))
    assert result["failed"] is True
    path = str(tmp_path / "results" / "unit.json")
    assert "connection to the server lost" in result["msg"] and "\n" not in result["msg"]
    assert "3 finished trials are in %s; resume with the same run_id (unit)" % path in result["msg"]
    partial = validate(path)
    assert partial["status"] == "failed" and len(partial["searches"][0]["trials"]) == 3

    FakeClient.fail_after = None
    resumed = run(make_action(bench_args(listener, tmp_path)))
    assert not resumed.get("failed"), resumed.get("msg")
    assert resumed["resumed"] is True
    document = validate(path)
    trials = document["searches"][0]["trials"]
    client = FakeClient.instances[-1]
    assert [value for trial in trials[3:] for value in (trial["load"], trial["duration"])] == pytest.approx(
        [value for start in client.starts[1:] for value in start], rel=1e-9)
    assert document["resumed"] == 1 and document["status"] == "complete"

    done = run(make_action(bench_args(listener, tmp_path)))
    assert done["changed"] is False and FakeClient.instances[-1].starts == []
    with open(str(tmp_path / "results" / "results.csv")) as handle:
        assert len(handle.read().splitlines()) == 1 + 3


def test_a_restart_of_ovs_vswitchd_makes_the_trial_invalid_and_retried(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    # initial read, then trial 0 before/after (restart!), then healthy from the retry on
    health = Health([{}, {}, {"pid": 43, "start_time": 9}, {"pid": 43, "start_time": 9}])
    result = run(make_action(bench_args(listener, tmp_path), health=health))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    invalid = document["searches"][0]["invalid_trials"]
    assert len(invalid) == 1 and "ovs-vswitchd restarted during the trial (pid 42 -> 43)" in invalid[0]["invalid"][0]
    assert document["searches"][0]["trials"][0]["load"] == invalid[0]["load"]


def test_a_dut_that_keeps_crashing_stops_the_run(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())

    class Crashing(Health):
        def __call__(self, module_name, module_args, task_vars):
            reply = Health.__call__(self, module_name, module_args, task_vars)
            reply["pid"] = 100 + self.calls
            return reply
    result = run(make_action(bench_args(listener, tmp_path, retries=1), health=Crashing()))
    assert result["failed"] is True
    assert "the DUT was not healthy during 2 attempt(s)" in result["msg"] and "resume" in result["msg"]
    assert len(validate(result["results_file"])["searches"][0]["invalid_trials"]) == 2


def test_ovs_not_running_is_refused_before_traffic(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    result = run(make_action(bench_args(listener, tmp_path), health=Health([{"pid": None}])))
    assert result["failed"] is True and "ovs-vswitchd is not running on dut01" in result["msg"]
    assert FakeClient.instances[0].starts == []


def test_profile_streams_become_trex_streams():
    api = fake_api()
    stream = {"frame": b"x" * 60, "vm": [{"type": "flow_var", "name": "src", "min": 1, "max": 9, "size": 4, "op": "inc"},
                                         {"type": "write", "name": "src", "offset": 26},
                                         {"type": "fix_checksum_hw", "l3_offset": 14, "l4_offset": 34, "l4_type": 11}]}
    kind, _args, kwargs = trex.to_trex_stream(api, stream)
    assert kind == "stream"
    pkt = kwargs["packet"]
    assert pkt[2]["pkt_buffer"] == b"x" * 60
    program = pkt[2]["vm"][1][0]
    assert [item[0] for item in program] == ["flow_var", "write", "fix"]
    assert program[1][2] == {"fv_name": "src", "pkt_offset": 26}


def test_checksum_fix_compiles_with_the_ip_header_offset():
    """trex-stl-lib 0.3 compiles a numeric l3_offset as l2_len=0 (it reads only layer names): the
    server would then checksum the Ethernet header. The stream the bench builds carries l2_len=14."""
    import trex_stl_lib.api as real_api
    frame = bytes.fromhex("020000000002020000000001080045000032000100004011f6b8300000011200bc04010000001e0000") + b"x" * 18
    stream = {"frame": frame[:60], "vm": [{"type": "flow_var", "name": "src", "min": 805306369, "max": 805306468, "size": 4, "op": "inc"},
                                          {"type": "write", "name": "src", "offset": 26},
                                          {"type": "fix_checksum_hw", "l3_offset": 14, "l4_offset": 34, "l4_type": 11}]}
    compiled = trex.to_trex_stream(real_api, stream).to_json()["vm"]["instructions"]
    assert compiled[-1] == {"type": "fix_checksum_hw", "l2_len": 14, "l3_len": 20, "l4_type": 11}


def test_receiving_ports_on_a_second_server(tmp_path, monkeypatch, listener, rx_listener):
    """The virtual lab's generator: one server sends from the client port, another receives on the backends."""
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    args = bench_args(listener, tmp_path, ports=[0], rx_server={"server": "127.0.0.1", "sync_port": rx_listener, "ports": [0, 1, 2]},
                      scenario="lb", lb_vip="18.0.0.172", dut_health=False)
    result = run(make_action(args))
    assert not result.get("failed"), result.get("msg")
    assert [client.role for client in FakeClient.instances] == ["tx", "rx"]
    ndr = result["searches"][0]["goals"]["ndr"]
    assert ndr["lower_bound"] <= CAPACITY <= ndr["upper_bound"]
    document = validate(result["results_file"])
    assert document["generator"]["rx_server"]["ports"] == [0, 1, 2]
    assert all(trial["received"] <= trial["offered"] for trial in document["searches"][0]["trials"])


def test_a_receiving_server_that_restarted_costs_the_trial_in_progress_and_is_named(tmp_path, monkeypatch, listener, rx_listener):
    """A receiving server restarted (by its supervision) between two reads: its counters began again, so the
    trial is not measured; the bench reconnects to both servers and runs it again."""
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.rx_restart_at = 9
    args = bench_args(listener, tmp_path, ports=[0], rx_server={"server": "127.0.0.1", "sync_port": rx_listener, "ports": [0, 1, 2]},
                      scenario="lb", lb_vip="18.0.0.172", dut_health=False)
    result = run(make_action(args))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    [interrupted] = document["searches"][0]["interrupted_trials"]
    assert interrupted["reason"] == "127.0.0.1:%d: API verification failed - API handler provided mismatch for class: 'STL'" % rx_listener
    assert interrupted["attempt"] == 1 and "RuntimeError: API verification failed" in interrupted["detail"]
    assert [trial.get("interrupted_before") for trial in document["searches"][0]["trials"]].count(1) == 1
    assert [client.role for client in FakeClient.instances] == ["tx", "rx", "tx", "rx"]


def test_rx_server_needs_its_ports(tmp_path):
    errors = check_args({"max_load": 1, "results_dir": "r", "ports": [0, 1], "rx_server": {"server": "gen", "ports": []}})
    assert any(error.startswith("ports: [0, 1] must be the one transmitting port") for error in errors)
    assert any(error.startswith("rx_server.ports: []") for error in errors)


def test_current_client_is_imported_from_client_path(tmp_path, monkeypatch):
    package = tmp_path / "trex" / "stl"
    package.mkdir(parents=True)
    (tmp_path / "trex" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "api.py").write_text("STLClient = 'the current client'\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in ("trex", "trex.stl", "trex.stl.api"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    api = trex.load_client("trex", str(tmp_path))
    assert api.STLClient == "the current client"
    for name in ("trex", "trex.stl", "trex.stl.api"):
        sys.modules.pop(name, None)


def test_client_prints_go_to_display_not_stdout(monkeypatch, capsys):
    """What the TRex client prints itself (from any thread) must not reach the worker's stdout."""
    shown = []
    out = trex.ClientOutput(shown.append)
    out.start()
    try:
        print("\n    2026-11-30 00:22:59 - [local][warning]   - CPU util. is high: 91.1%")
        sys.stdout.write("partial ")
    finally:
        out.stop()
    assert capsys.readouterr().out == ""
    assert shown == ["TRex client: 2026-11-30 00:22:59 - [local][warning]   - CPU util. is high: 91.1%",
                     "TRex client: partial"]
    assert sys.stdout is not out


def test_latency_at_fractions_of_the_pdr_after_the_search(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    lines = []
    monkeypatch.setattr(action_mod.display, "display", lambda msg, *args, **kwargs: lines.append(msg))
    args = bench_args(listener, tmp_path, latency_loads=[0.5, 0.9], latency_pps=1000, latency_duration=5)
    result = run(make_action(args))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    search = document["searches"][0]
    pdr = search["result"]["goals"]["pdr"]["lower_bound"]
    latency = search["latency"]
    assert latency["reference_goal"] == "pdr" and latency["reference_load"] == pdr and latency["skipped"] is None
    client = FakeClient.instances[0]
    # two trials at absolute rates after the search: the traffic minus the latency stream, and the latency stream
    assert [start[1] for start in client.starts[-2:]] == [5.0, 5.0]
    assert client.latency_starts == [
        [(pytest.approx(0.5 * pdr - 1000.0), None), (1000.0, ("latency", (), {"pg_id": 100}))],
        [(pytest.approx(0.9 * pdr - 1000.0), None), (1000.0, ("latency", (), {"pg_id": 101}))],
    ]
    first = latency["points"][0]
    assert first["fraction"] == 0.5 and first["load"] == pytest.approx(0.5 * pdr) and first["pg_id"] == 100
    assert first["latency_sent"] == 5000 and first["latency_received"] == 5000 and first["loss_ratio"] == 0.0
    assert first["offered"] == first["received"] == pytest.approx(0.5 * pdr * 5, abs=1)
    assert (first["min_us"], first["avg_us"], first["max_us"], first["jitter_us"]) == (10.0, 14.0, 150.0, 3.0)
    # 98 % of the frames in 10-19 us, 2 % in 100-199 us: percentiles are the high ends of their ranges
    assert first["percentiles_us"] == {"50": 20.0, "90": 20.0, "99": 200.0, "99.9": 200.0}
    assert first["histogram"] == {"10": 4900, "100": 100} and first["frame_size"] == 64
    assert result["searches"][0]["latency"]["points"][1]["pg_id"] == 101
    assert any("latency at 90% of pdr" in line and "99% <= 200 us" in line for line in lines)
    # the same run id again: nothing is measured twice
    again = run(make_action(args))
    assert again["changed"] is False and FakeClient.instances[-1].starts == []
    assert validate(again["results_file"])["searches"][0]["latency"]["points"] == latency["points"]


def test_a_generator_without_latency_streams_still_gives_the_throughput(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.latency_supported = False
    warnings = []
    monkeypatch.setattr(action_mod.display, "warning", lambda msg, *args, **kwargs: warnings.append(msg))
    result = run(make_action(bench_args(listener, tmp_path, latency_loads=[0.5])))
    assert not result.get("failed"), result.get("msg")
    latency = validate(result["results_file"])["searches"][0]["latency"]
    assert latency["points"] == [] and latency["skipped"] == "the generator refused a latency stream: flow_stats is not supported by this server"
    assert warnings == ["trex_bench unit 64 B: no latency: the generator refused a latency stream: flow_stats is not supported by this server"]
    # the search's streams were put back
    assert all(stream[2].get("flow_stats") is None for stream in FakeClient.instances[0].streams[0])


def test_latency_comes_from_the_receiving_server(tmp_path, monkeypatch, listener, rx_listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    args = bench_args(listener, tmp_path, ports=[0], rx_server={"server": "127.0.0.1", "sync_port": rx_listener, "ports": [0, 1, 2]},
                      scenario="lb", lb_vip="18.0.0.172", dut_health=False, latency_loads=[0.1], protocol="tcp")
    result = run(make_action(args))
    assert not result.get("failed"), result.get("msg")
    point = validate(result["results_file"])["searches"][0]["latency"]["points"][0]
    # sent counted by the transmitting server, latency and received by the receiving one
    assert point["latency_sent"] == point["latency_received"] > 0 and point["max_us"] == 150.0
    # a 64-byte TCP frame has no room for the 16-byte trailer: the latency frames are 54 + 16 + 4 bytes
    assert point["frame_size"] == 74


def test_latency_arguments_are_checked():
    errors = check_args({"max_load": 1000, "results_dir": "r", "latency_loads": [0, 1.5], "latency_pps": -1, "latency_duration": 0,
                         "latency_pg_id": 70000})
    assert any(error.startswith("latency_loads: [0, 1.5] must be a list of fractions of the PDR in (0, 1]") for error in errors)
    assert any(error.startswith("latency_pps: -1 must be a rate in frames/s above 0") for error in errors)
    assert any(error.startswith("latency_duration: 0 must be a positive number of seconds") for error in errors)
    assert any(error.startswith("latency_pg_id: 70000 must be an integer in 0..60000") for error in errors)


def test_a_line_rate_is_a_positive_number_of_gigabits():
    errors = check_args({"max_load": 1000, "results_dir": "r", "line_rate_gbps": 0})
    assert [error for error in errors if error.startswith("line_rate_gbps:")] == [
        "line_rate_gbps: 0 must be the line rate of one DUT port in Gb/s (> 0), e.g. 25 for a ConnectX-6 Lx port; "
        "leave it unset when it is not known (the report then shows no share of line rate)"]
    assert not check_args({"max_load": 1000, "results_dir": "r", "line_rate_gbps": 25})


def test_a_generator_that_ignores_the_latency_stream_is_not_reported_as_latency(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    monkeypatch.setattr(FakeClient, "get_pgid_stats", lambda self, pgids: {"latency": {"global": {}}, "flow_stats": {"global": {}}})
    monkeypatch.setattr(action_mod.display, "warning", lambda msg, *args, **kwargs: None)
    result = run(make_action(bench_args(listener, tmp_path, latency_loads=[0.5, 0.9])))
    assert not result.get("failed"), result.get("msg")
    latency = validate(result["results_file"])["searches"][0]["latency"]
    assert latency["points"] == [] and latency["skipped"].startswith("the generator reported no latency statistics for packet group 100")
    # one latency trial, then no more
    assert len(FakeClient.instances[0].latency_starts) == 1


def test_latency_skips_packet_groups_the_generator_already_knows(tmp_path, monkeypatch, listener):
    """The receiving server keeps every group's counters; an earlier run's group 100 must not be reused."""
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    FakeClient.pg_seen[100] = (30, 30)
    result = run(make_action(bench_args(listener, tmp_path, latency_loads=[0.5, 0.9])))
    assert not result.get("failed"), result.get("msg")
    document = validate(result["results_file"])
    assert [point["pg_id"] for point in document["searches"][0]["latency"]["points"]] == [101, 102]
    assert document["latency_next_pg_id"] == 103


class HealthAndEvidence(Health):
    """dut_health as Health, and offload_facts with the tc filters, conntrack and receive queues it was asked for."""

    def __init__(self):
        super(HealthAndEvidence, self).__init__()
        self.evidence_args = []

    def __call__(self, module_name, module_args, task_vars):
        if module_name != "offload.testbed.offload_facts":
            return super(HealthAndEvidence, self).__call__(module_name, module_args, task_vars)
        self.evidence_args.append(module_args)
        count = len(self.evidence_args)
        return {"changed": False, "tc": {"p0": {}}, "conntrack": {"entries": 2, "offload": 0, "hw_offload": 2},
                "queues": {"eth1": {"counter": "rx_queue_N_packets", "packets": {"0": 100 * count, "1": 100 * count}}}, "notes": []}


def test_offload_evidence_is_read_around_every_trial_when_asked(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    modules = HealthAndEvidence()
    result = run(make_action(bench_args(listener, tmp_path, dut_tc_devices=["p0"], dut_queue_devices=["eth1"], dut_conntrack=True,
                                        dut_all_flows=True), health=modules))
    assert not result.get("failed"), result.get("msg")
    assert modules.evidence_args[0] == {"dump_flows": "none", "pmd_stats_command": "", "tc_devices": ["p0"], "queue_devices": ["eth1"],
                                        "conntrack": True}
    # the first dut_health reading (system, before the run) reads no evidence; every trial's before and after does
    assert modules.args_seen[0]["system"] is True and "all_flows" not in modules.args_seen[0]
    assert all(args.get("all_flows") is True for args in modules.args_seen[1:]) and len(modules.evidence_args) == modules.calls - 1
    trial = validate(result["results_file"])["searches"][0]["trials"][0]
    assert trial["rx_queues"]["eth1"]["max_over_mean"] == 1.0 and trial["rx_queues"]["eth1"]["queues_with_traffic"] == 2
    assert trial["offload"]["conntrack"]["hw_offload"] == 2 and trial["offload"]["tc"] == {"p0": {
        "filters": 0, "in_hw": 0, "not_in_hw": 0, "skip_sw": 0, "skip_hw": 0, "in_hw_packets": 0, "not_in_hw_packets": 0}}


def test_without_evidence_options_only_dut_health_runs(tmp_path, monkeypatch, listener):
    monkeypatch.setattr(action_mod, "load_client", lambda client, client_path: fake_api())
    modules = HealthAndEvidence()
    result = run(make_action(bench_args(listener, tmp_path), health=modules))
    assert not result.get("failed"), result.get("msg")
    assert modules.evidence_args == [] and all("all_flows" not in args for args in modules.args_seen)
    trial = validate(result["results_file"])["searches"][0]["trials"][0]
    assert "rx_queues" not in trial and trial["offload"]["offloaded_share"] is None
