"""TRex's ASTF client drives softgen in ASTF mode: real TCP and UDP connections cross a real OVS between two namespaces.

Topology (tests/integration/softgen_lab.py, removed at the end even on failure)::

    netns sgs-a: sgs-a0 (10.96.0.1) --veth-- OVS sgs-br --veth-- sgs-b0 (10.96.0.2): netns sgs-b

softgen port 0 (even: TRex's client side) is sgs-a0, port 1 (the server side)
sgs-b0. The profile (tests/integration/astf_calls.py) is TRex's http_simple
shape, a GET and its answer on TCP port 80 at 2 connections/s, and a UDP
query and answer on 5353 at 1/s, both times the multiplier, from clients
48.0.0.1-50 to servers 18.0.0.1-4: addresses no interface has, routed through
the other namespace as a DUT's routes would. The client's counters, the
server's, and the SYNs a capture in sgs-b sees must agree.
"""
import json
import os
import re
import subprocess
import sys

import jsonschema

from softgen_lab import ROOT, capture, namespaces, running_softgen, sh
from test_trex_bench_softgen import run_playbook

PREFIX = "sgs"
NS = namespaces(PREFIX)
MULT = 50
DURATION = 2
ASTF_CALLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "astf_calls.py")


# tcpdump -n's line of a SYN: "12:00:00.000001 IP 48.0.0.1.41234 > 18.0.0.1.80: Flags [S], seq 1234567890, win 64240, ..."
SYN_RE = re.compile(r" IP (?P<src>\S+) > (?P<dst>\S+): Flags \[S\], seq (?P<seq>\d+),")


def syns(pcap):
    """The connection attempts (SYN without ACK) in a capture, read by tcpdump: one per source, destination and initial
    sequence number, a SYN the kernel sent again (no SYN-ACK in time, on a loaded machine) being the same attempt."""
    out = sh("tcpdump", "-nr", str(pcap), "tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn", check=False).stdout
    found = [(line, SYN_RE.search(line)) for line in out.splitlines()]
    assert all(match for _line, match in found), [line for line, match in found if not match][:5]
    return len(set(match.group("src", "dst", "seq") for _line, match in found))


def test_the_astf_client_runs_an_http_and_a_udp_template_through_ovs(topology, tmp_path):
    sh("ip", "-n", NS["a"], "addr", "add", "10.96.0.1/24", "dev", "sgs-a0")
    sh("ip", "-n", NS["b"], "addr", "add", "10.96.0.2/24", "dev", "sgs-b0")
    sh("ip", "-n", NS["a"], "route", "add", "18.0.0.0/24", "via", "10.96.0.2")
    sh("ip", "-n", NS["b"], "route", "add", "48.0.0.0/16", "via", "10.96.0.1")
    with running_softgen(PREFIX, tmp_path / "softgen.log", extra=["--astf"]) as (rpc, pub):
        with capture(NS["b"], "sgs-b0", tmp_path / "syn.pcap", "tcp port 80", snaplen=96):
            run = subprocess.run([sys.executable, ASTF_CALLS, "--rpc", str(rpc), "--pub", str(pub), "--clients", "48.0.0.1-48.0.0.50",
                                  "--servers", "18.0.0.1-18.0.0.4", "--mult", str(MULT), "--duration", str(DURATION)],
                                 capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    client, server = out["traffic"]["client"], out["traffic"]["server"]
    tcp = 2 * MULT * DURATION
    udp = 1 * MULT * DURATION
    print("client", client, "\nserver", server, "\nSYNs", syns(tmp_path / "syn.pcap"))
    # every connection the client started was established, carried its request and answer, and closed; the server
    # accepted each, and the wire saw each handshake once
    assert (client["tcps_connattempt"], client["tcps_connects"], client["tcps_closed"]) == (tcp, tcp, tcp)
    assert client.get("tcps_conndrops", 0) == client.get("tcps_drops", 0) == 0
    assert (server["tcps_accepts"], server["tcps_closed"]) == (tcp, tcp)
    assert syns(tmp_path / "syn.pcap") == tcp
    assert client["tcps_sndbyte"] == server["tcps_rcvbyte"] == tcp * 87
    assert client["tcps_rcvbyte"] == server["tcps_sndbyte"] == tcp * 125
    assert (client["udps_connects"], client["udps_closed"], client["udps_rcvpkt"]) == (udp, udp, udp)
    assert (server["udps_accepts"], server["udps_rcvbyte"]) == (udp, udp * len(b"query"))
    assert client["sg_first_byte_count"] == tcp + udp
    assert client["m_active_flows"] == server["m_active_flows"] == 0
    # the profile's states as the client saw them once start, wait_on_traffic and clear_profile returned
    assert out["states"] == [{"_": "STATE_TX"}, {"_": "STATE_ASTF_LOADED"}, {"_": "STATE_IDLE"}]
    assert out["tg_names"] == ["http", "udp"]
    assert out["tg_http"]["http"]["client"]["tcps_connects"] == tcp and "udps_connects" not in out["tg_http"]["http"]["client"]
    assert "latency_pps" in out["latency_refused"]


def test_trex_bench_searches_connections_per_second_through_ovs(topology, tmp_path):
    """``stateful``: trex_bench's search of TCP connections per second with TRex's ASTF client, against softgen --astf with
    both sides (port 0 clients, port 1 servers); every connection a trial offered was a handshake on the wire, and the
    server side accepted every one a trial counted as completed."""
    sh("ip", "-n", NS["a"], "addr", "add", "10.96.0.1/24", "dev", "sgs-a0")
    sh("ip", "-n", NS["b"], "addr", "add", "10.96.0.2/24", "dev", "sgs-b0")
    sh("ip", "-n", NS["a"], "route", "add", "18.0.0.0/24", "via", "10.96.0.2")
    sh("ip", "-n", NS["b"], "route", "add", "48.0.0.0/16", "via", "10.96.0.1")
    results = tmp_path / "results"
    with running_softgen(PREFIX, tmp_path / "softgen.log", extra=["--astf"]) as (rpc, pub):
        task_args = {
            "server": "127.0.0.1", "sync_port": rpc, "async_port": pub, "client": "trex", "ports": [0, 1],
            "scenario": "routing", "protocol": "tcp", "src_base": "48.0.0.1", "flows": 50, "dst_base": "18.0.0.1", "destinations": 4,
            "dst_port": 80, "stateful": {"request_size": 120, "response_size": 1500},
            "goals": [{"name": "ndr", "loss_ratio": 0.0}], "max_load": 2000, "final_duration": 1.0, "initial_duration": 0.5,
            "warmup_duration": 0.5, "results_dir": str(results), "run_id": "sgs-cps", "datapath": "netdev", "max_trials": 12,
        }
        with capture(NS["b"], "sgs-b0", tmp_path / "syn.pcap", "tcp port 80", snaplen=96):
            bench, _stdout = run_playbook(tmp_path, task_args, "cps")
    assert not bench.get("failed"), bench.get("msg")
    document = json.loads((results / "sgs-cps.json").read_text())
    with open(os.path.join(ROOT, "docs", "results-schema.json")) as handle:
        jsonschema.validate(document, json.load(handle))
    search = document["searches"][0]
    assert search["status"] == "complete" and search["profile"]["frame_size"] == "connections"
    assert search["profile"]["stateful"] == {"request_size": 120, "response_size": 1500}
    assert search["result"]["goals"]["ndr"]["lower_bound"] > 0.0
    trials = search["trials"]
    for trial in trials:
        client, server = trial["connections"]["client"], trial["connections"]["server"]
        assert client["tcps_connattempt"] == trial["offered"] and server["tcps_accepts"] >= trial["received"], trial
        assert trial["first_byte_us"]["avg"] > 0 and trial["concurrent_max"] >= 1, trial
    # every connection of the warm-up and the trials opened with a SYN the server side's wire saw
    assert syns(tmp_path / "syn.pcap") == search["warmup"]["offered"] + sum(trial["offered"] for trial in trials)
    print("trex_bench stateful: %d trials, NDR %.1f connections/s" % (len(trials), search["result"]["goals"]["ndr"]["lower_bound"]))
