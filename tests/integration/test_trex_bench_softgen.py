"""End to end: ``offload.testbed.trex_bench`` through ansible-playbook, softgen and a real OVS.

Topology (created here, removed at the end even on failure)::

    netns bnt-a: bnt-a0 --veth-- bnt-a1 \
                                         bnt-br (OVS, datapath_type=netdev, fail_mode=standalone)
    netns bnt-b: bnt-b0 --veth-- bnt-b1 /

softgen port 0 is bnt-a0, port 1 is bnt-b0, both in L3 mode (10.98.0.1 and
10.98.0.2, each the other's gateway). A one-task playbook against localhost
runs the action with UDP routing, one frame size, short trials and a
maximum load the path forwards without loss on a loaded two-core machine
(an OpenFlow meter as a "device" with a cliff made the rerun at the NDR
flaky under CPU contention: the userspace meter polices at processing time,
so a stalled ovs-vswitchd drops a backlog it would have passed); the task's
host is the DUT, whose ovs-vswitchd health is read around every trial. The
test then checks the results file against docs/results-schema.json, re-runs
the run id (resume: nothing measured again), and sends a final-duration trial
at the reported NDR with its own client: it must lose nothing.
"""
import csv
import json
import os
import subprocess
import sys
import threading
import time

import jsonschema
import pytest
import trex_stl_lib.api as trex_api
from scapy.layers.inet import IP, UDP

from softgen_lab import ROOT, capture, namespaces

PREFIX = "bnt"
BRIDGE = "bnt-br"
NS = namespaces(PREFIX)
MAX_LOAD = 3000.0
FINAL = 2.0
INITIAL = 0.5
SOAK = 6.0
LATENCY_TRAILER, LATENCY_MAGIC = 16, 0xAB


def collections_path(tmp_path):
    """This checkout as ``offload.testbed`` in a collections path of its own."""
    base = tmp_path / "collections"
    (base / "ansible_collections" / "offload").mkdir(parents=True)
    os.symlink(ROOT, str(base / "ansible_collections" / "offload" / "testbed"))
    return str(base)


def kill_and_restart_during(run, softgen, results_file, after_trials):
    """Run ``run()`` in a thread; once ``after_trials`` trials are on disk, kill softgen, start it again; ``run()``'s value
    and the trials on disk just before the kill."""
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.update(value=run()))
    worker.start()
    deadline = time.time() + 120
    before = []
    while time.time() < deadline and worker.is_alive():
        try:
            before = json.loads(results_file.read_text())["searches"][0]["trials"]
        except (OSError, ValueError, IndexError, KeyError):
            before = []
        if len(before) >= after_trials:
            break
        time.sleep(0.1)
    assert len(before) >= after_trials, "the run never reached %d trials" % after_trials
    softgen.kill()
    time.sleep(1.0)
    softgen.start()
    worker.join(timeout=300)
    assert "value" in outcome, "the playbook did not finish"
    return outcome["value"], before


def run_playbook(tmp_path, task_args, name):
    out_file = tmp_path / ("%s.result.json" % name)
    playbook = tmp_path / ("%s.yml" % name)
    play = [{
        "name": "Bench",
        "hosts": "localhost",
        "gather_facts": False,
        "vars": {"ansible_python_interpreter": sys.executable},
        "tasks": [
            {"name": "Run the bench", "offload.testbed.trex_bench": task_args, "register": "bench", "ignore_errors": True},
            {"name": "Save the result", "ansible.builtin.copy": {"content": "{{ bench | to_json }}", "dest": str(out_file), "mode": "0644"}},
        ],
    }]
    playbook.write_text(json.dumps(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(tmp_path) if not (tmp_path / "collections").exists()
               else str(tmp_path / "collections"), ANSIBLE_FORCE_COLOR="0", ANSIBLE_HOST_KEY_CHECKING="False",
               ANSIBLE_LOCALHOST_WARNING="False", ANSIBLE_INVENTORY_UNPARSED_WARNING="False")
    env.pop("ANSIBLE_CONFIG", None)
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook)],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), check=False, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out_file.read_text()), proc.stdout


def send_at(rpc, pub, load, duration, frame_size):
    """One trial with our own client, the same frames as the bench."""
    sys.path.insert(0, os.path.join(ROOT, ".tmp", "pytest"))
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator  # pylint: disable=import-outside-toplevel
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec  # pylint: disable=import-outside-toplevel
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_streams  # pylint: disable=import-outside-toplevel
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench.trex import to_trex_stream  # pylint: disable=import-outside-toplevel
    raw = {"server": "127.0.0.1", "ports": [0, 1], "max_load": MAX_LOAD, "results_dir": "unused", "frame_sizes": [frame_size]}
    args, errors = spec.check(ArgumentSpecValidator(spec.argument_spec()).validate(raw).validated_parameters)
    assert not errors
    api = trex_api
    client = api.STLClient(server="127.0.0.1", sync_port=rpc, async_port=pub, verbose_level=api.LoggerApi.VERBOSE_QUIET)
    client.connect()
    try:
        client.reset(ports=[0, 1])
        client.set_service_mode(ports=[0, 1], enabled=True)
        client.ports[0].set_l3_mode("10.98.0.1", "10.98.0.2")
        client.ports[1].set_l3_mode("10.98.0.2", "10.98.0.1")
        deadline = time.time() + 10
        while client.ports[0].get_layer_cfg()["ipv4"].get("state") != "resolved" and time.time() < deadline:
            time.sleep(0.2)
            client.ports[0].sync()
        client.set_service_mode(ports=[0, 1], enabled=False)
        client.add_streams(to_trex_stream(api, build_streams(args, frame_size)[0]), ports=[0])
        client.clear_stats()
        client.start(ports=[0], mult="%fpps" % load, duration=duration)
        client.wait_on_traffic(ports=[0], timeout=duration + 10)
        time.sleep(0.5)
        stats = client.get_stats()
    finally:
        client.disconnect()
    return stats[0]["opackets"], stats[1]["ipackets"]


def check_soak(search, returned):
    """The soak ran at the PDR's conditional throughput for SOAK s, its counters read under traffic in about SOAK / 3 s steps."""
    soak = search["soak"]
    assert returned == soak and soak["skipped"] is None, soak
    assert soak["goal"] == "pdr" and soak["load"] == search["result"]["goals"]["pdr"]["conditional_throughput"] > 0.0, soak
    assert soak["offered"] >= 0.95 * soak["load"] * SOAK, soak
    parts = soak["intervals"]
    assert len(parts) >= 2 and parts[0]["start"] == 0.0 and parts[-1]["end"] == SOAK, parts
    assert sum(part["offered"] for part in parts) == soak["offered"] and all(part["offered"] > 0 for part in parts), parts
    assert soak["holds"] == (soak["loss_ratio"] <= soak["goal_loss_ratio"])
    print("soak: %.1f pps x %.0f s, sent %d received %d, loss ratio %g, intervals %s" % (
        soak["load"], SOAK, soak["offered"], soak["received"], soak["loss_ratio"],
        ", ".join("%.1f-%.1f s: %d/%d" % (part["start"], part["end"], part["received"], part["offered"]) for part in parts)))


def test_trex_bench_routing_udp_through_ovs_survives_a_killed_generator(softgen_process, tmp_path):  # pylint: disable=redefined-outer-name,too-many-locals
    rpc, pub = softgen_process.rpc, softgen_process.pub
    results = tmp_path / "results"
    task_args = {
        "server": "127.0.0.1", "sync_port": rpc, "async_port": pub, "ports": [0, 1],
        "port_l3": [{"src": "10.98.0.1", "gateway": "10.98.0.2"}, {"src": "10.98.0.2", "gateway": "10.98.0.1"}],
        "scenario": "routing", "protocol": "udp", "frame_sizes": [64], "flows": 100,
        "max_load": MAX_LOAD, "final_duration": FINAL, "initial_duration": INITIAL, "warmup_duration": 1.0,
        "results_dir": str(results), "run_id": "bnt-run", "datapath": "netdev", "max_trials": 40,
        "metadata": {"topology": "bnt-br standalone bridge", "generator": "softgen"},
        "reconnects": 4, "reconnect_delay": 1.0,
        # latency through the action and softgen is molecule default's (CI time)
        "latency_loads": [],
        # a short soak: the counters read under traffic through the real client, three intervals
        "soak_duration": SOAK, "soak_interval": SOAK / 3,
    }
    started = time.time()
    (bench, stdout), before_kill = kill_and_restart_during(lambda: run_playbook(tmp_path, task_args, "first"), softgen_process,
                                                           results / "bnt-run.json", after_trials=1)
    spent = time.time() - started
    assert not bench.get("failed"), bench.get("msg")
    assert bench["changed"] is True and bench["resumed"] is False
    assert "trial   0" in stdout and "pps x" in stdout, stdout

    document = json.loads((results / "bnt-run.json").read_text())
    with open(os.path.join(ROOT, "docs", "results-schema.json")) as handle:
        jsonschema.validate(document, json.load(handle))
    assert document["status"] == "complete"
    search = document["searches"][0]
    assert search["profile"]["frame_size"] == 64 and search["warmup"]["offered"] > 0
    assert search["trials"] and all(trial["health_before"]["pid"] == trial["health_after"]["pid"] for trial in search["trials"])
    assert search["invalid_trials"] == []
    # the kill: the trial under way is interrupted and run again; the trials finished before it are kept as they were
    assert search["interrupted_trials"], stdout
    assert search["trials"][:len(before_kill)] == before_kill
    assert any(trial.get("interrupted_before") for trial in search["trials"][len(before_kill):]), search["trials"]
    assert "run again after 1 interruption(s)" in stdout, stdout
    ndr = search["result"]["goals"]["ndr"]
    final_at_ndr = search["trials"][ndr["lower_bound_trial"]]
    assert final_at_ndr["duration"] == FINAL and final_at_ndr["load"] == ndr["lower_bound"] and final_at_ndr["loss_ratio"] == 0.0
    assert ndr["lower_bound"] > 0.0
    with open(str(results / "results.csv")) as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["goal"] for row in rows) == ["ndr", "ndr_1e-5", "pdr"]
    assert float([row for row in rows if row["goal"] == "ndr"][0]["lower_bound_pps"]) == ndr["lower_bound"]
    check_soak(search, bench["searches"][0]["soak"])
    print("trex_bench: %d trials, %.1f trial seconds, NDR %.1f pps (generator-limited: %s); playbook %.1f s" % (
        len(search["trials"]), search["result"]["trial_seconds"], ndr["lower_bound"], ndr["generator_limited"], spent))

    again, stdout = run_playbook(tmp_path, task_args, "again")
    assert not again.get("failed"), again.get("msg")
    assert again["resumed"] is True and again["changed"] is False
    assert again["searches"][0]["goals"]["ndr"]["lower_bound"] == ndr["lower_bound"]
    assert len(json.loads((results / "bnt-run.json").read_text())["searches"][0]["trials"]) == len(search["trials"])
    assert json.loads((results / "bnt-run.json").read_text())["searches"][0]["soak"] == search["soak"], "the resumed run soaked again"

    sent, received = send_at(rpc, pub, ndr["lower_bound"], FINAL, 64)
    assert sent >= 0.99 * ndr["lower_bound"] * FINAL, "sent %d at %.1f pps for %.1f s" % (sent, ndr["lower_bound"], FINAL)
    assert received >= sent, "the rerun at the reported NDR lost %d of %d frames" % (sent - received, sent)


def ovs_counts(iface):
    """``(rx_packets, rx_bytes)`` of an OVS interface: what arrived from the namespace side of its veth."""
    values = []
    for key in ("rx_packets", "rx_bytes"):
        out = subprocess.run(["ovs-vsctl", "get", "Interface", iface, "statistics:%s" % key], capture_output=True, text=True, check=True)
        values.append(int(out.stdout.strip().strip('"')))
    return values


def test_trex_bench_imix_sends_trex_s_mix_through_ovs(softgen, tmp_path):  # pylint: disable=redefined-outer-name
    """``frame_sizes: [imix]``: a search of TRex's IMIX through the real client, softgen and OVS; the frames
    that reach the bridge from the sending port average IMIX's 357.8 B (60, 590 and 1514-byte packets at 28:16:4)."""
    rpc, pub = softgen
    results = tmp_path / "results"
    task_args = {
        "server": "127.0.0.1", "sync_port": rpc, "async_port": pub, "ports": [0, 1],
        "port_l3": [{"src": "10.98.0.1", "gateway": "10.98.0.2"}, {"src": "10.98.0.2", "gateway": "10.98.0.1"}],
        "scenario": "routing", "protocol": "udp", "frame_sizes": ["imix"], "flows": 100, "goals": [{"name": "ndr", "loss_ratio": 0.0}],
        "max_load": MAX_LOAD, "final_duration": FINAL, "initial_duration": INITIAL, "warmup_duration": 1.0,
        "results_dir": str(results), "run_id": "bnt-imix", "datapath": "netdev", "max_trials": 30, "latency_loads": [],
    }
    # OVS refreshes Interface.statistics every few seconds: the counts before and after are read once they settle
    time.sleep(6)
    before = ovs_counts("%s-a1" % PREFIX)
    bench, _stdout = run_playbook(tmp_path, task_args, "imix")
    assert not bench.get("failed"), bench.get("msg")
    time.sleep(6)
    after = ovs_counts("%s-a1" % PREFIX)
    document = json.loads((results / "bnt-imix.json").read_text())
    with open(os.path.join(ROOT, "docs", "results-schema.json")) as handle:
        jsonschema.validate(document, json.load(handle))
    search = document["searches"][0]
    assert search["profile"]["frame_size"] == "imix" and search["status"] == "complete"
    assert search["result"]["goals"]["ndr"]["lower_bound"] > 0.0
    packets, octets = after[0] - before[0], after[1] - before[1]
    offered = search["warmup"]["offered"] + sum(trial["offered"] for trial in search["trials"])
    assert packets >= offered, (packets, offered)
    # IMIX's mean packet without FCS: (28 x 60 + 16 x 590 + 4 x 1514) / 48 = 357.8 B (ARP requests and replies pull it down a little)
    assert 357.8 * 0.97 <= octets / float(packets) <= 357.8 * 1.01, (packets, octets)
    print("trex_bench imix: %d trials, NDR %.1f pps, %d frames at %.1f B on average" % (
        len(search["trials"]), search["result"]["goals"]["ndr"]["lower_bound"], packets, octets / float(packets)))


def captured_frames(pcap):
    """The frames of a capture, dissected by scapy."""
    from scapy.utils import rdpcap  # pylint: disable=import-outside-toplevel
    return list(rdpcap(str(pcap)))


def fresh_checksum(packet, layer):
    """What scapy computes for ``layer``'s checksum in ``packet`` (an IPv4 packet)."""
    copy = packet.copy()
    copy[layer].chksum = None
    if layer is not IP:
        copy[IP].chksum = None
    return IP(bytes(copy))[layer].chksum


def captured_search(softgen_ports, tmp_path, name, bpf, traffic):  # pylint: disable=redefined-outer-name
    """A search with ``traffic`` (the options that say what is sent) through softgen and OVS with NDR and one latency
    point, the receiving namespace capturing what ``bpf`` selects: the results document (checked against the schema)
    and the capture's file."""
    rpc, pub = softgen_ports
    results = tmp_path / "results"
    task_args = dict({
        "server": "127.0.0.1", "sync_port": rpc, "async_port": pub, "ports": [0, 1],
        "port_l3": [{"src": "10.98.0.1", "gateway": "10.98.0.2"}, {"src": "10.98.0.2", "gateway": "10.98.0.1"}],
        "goals": [{"name": "ndr", "loss_ratio": 0.0}], "max_load": MAX_LOAD, "final_duration": 1.0, "initial_duration": INITIAL,
        "warmup_duration": 1.0, "results_dir": str(results), "run_id": "bnt-" + name, "datapath": "netdev", "max_trials": 30,
        "latency_loads": [0.5], "latency_pps": 100, "latency_duration": 1.0,
    }, **traffic)
    with capture(NS["b"], "%s-b0" % PREFIX, tmp_path / "rx.pcap", bpf, snaplen=0) as pcap:
        bench, _stdout = run_playbook(tmp_path, task_args, name)
    assert not bench.get("failed"), bench.get("msg")
    document = json.loads((results / ("bnt-%s.json" % name)).read_text())
    with open(os.path.join(ROOT, "docs", "results-schema.json")) as handle:
        jsonschema.validate(document, json.load(handle))
    return document, pcap


@pytest.mark.parametrize("encapsulation, client", [
    ({"type": "vxlan"}, "trex_stl_lib"),
    ({"type": "mplsogre", "label": 1000, "outer_flows": False}, "trex"),
], ids=["vxlan-old-client", "mplsogre-one-tunnel-current-client"])
def test_trex_bench_tunnelled_flows_reach_the_wire_with_right_checksums(softgen, tmp_path, encapsulation, client):  # pylint: disable=redefined-outer-name
    """``encapsulation``: a search of 100 flows in VXLAN (the old client) and in MPLS over GRE as one tunnel (the current
    client) through softgen and OVS; what the receiving port's namespace captures is the tunnel, with the scenario's
    (or the one tunnel's) outer addresses, the 100 inner sources in step and every checksum right."""
    # pylint: disable=too-many-locals
    from scapy.contrib.mpls import MPLS  # pylint: disable=import-outside-toplevel
    from scapy.layers.vxlan import VXLAN  # pylint: disable=import-outside-toplevel
    traffic = {"client": client, "scenario": "routing", "protocol": "udp", "frame_sizes": [128], "flows": 100, "encapsulation": encapsulation}
    document, pcap = captured_search(softgen, tmp_path, "tunnel", "udp port 4789 or proto 47", traffic)
    search = document["searches"][0]
    assert search["status"] == "complete" and search["profile"]["encapsulation"]["type"] == encapsulation["type"]
    assert search["result"]["goals"]["ndr"]["lower_bound"] > 0.0
    assert search["latency"]["points"][0]["latency_received"] > 0
    frames = captured_frames(pcap)
    offered = search["warmup"]["offered"] + sum(trial["offered"] for trial in search["trials"])
    assert len(frames) >= offered, (len(frames), offered)
    outer_sources, inner_sources, bad = set(), set(), 0
    # the latency stream's frames end in TRex's flow-stats trailer (magic 0xAB, 16 bytes), written over the frame's last bytes
    latency = [frame for frame in frames if bytes(frame)[-LATENCY_TRAILER] == LATENCY_MAGIC]
    assert latency, "no latency frame captured"
    for frame in frames:
        if bytes(frame)[-LATENCY_TRAILER] == LATENCY_MAGIC:
            continue
        if encapsulation["type"] == "vxlan":
            assert frame[VXLAN].vni == 99 and frame[UDP].chksum == 0
            inner = frame[VXLAN].payload[IP]
        else:
            assert frame[MPLS].label == 1000
            inner = IP(bytes(frame[MPLS].payload))
        outer_sources.add(frame[IP].src)
        inner_sources.add(inner.src)
        bad += fresh_checksum(frame[IP], IP) != frame[IP].chksum or fresh_checksum(inner, IP) != inner.chksum \
            or fresh_checksum(inner, UDP) != inner[UDP].chksum
    print("trex_bench %s: %d frames captured (%d latency frames), %d outer and %d inner sources, %d with a bad checksum; NDR %.1f pps" % (
        encapsulation["type"], len(frames), len(latency), len(outer_sources), len(inner_sources), bad, search["result"]["goals"]["ndr"]["lower_bound"]))
    assert bad == 0 and len(inner_sources) == 100 and min(inner_sources) == "172.16.0.1"
    assert len(outer_sources) == (1 if encapsulation.get("outer_flows") is False else 100)


@pytest.mark.parametrize("client", ["trex_stl_lib"])
def test_trex_bench_searches_a_user_s_trex_profile_with_its_tunables(softgen, tmp_path, client):  # pylint: disable=redefined-outer-name
    """``profile: imix.py`` (tests/integration/profiles, TRex's format) with ``tunables``, loaded by the old client (the
    current one loads a profile in the next test): the search scales its three streams in their proportions; the bridge
    sees the profile's average frame and its 40 sources."""
    traffic = {"client": client, "profile": os.path.join(ROOT, "tests", "integration", "profiles", "imix.py"), "tunables": {"pps": 140, "flows": 40}}
    document, pcap = captured_search(softgen, tmp_path, "profile", "udp and not port 4789", traffic)
    search = document["searches"][0]
    record = search["profile"]["trex_profile"]
    assert (record["file"], record["tunables"], record["streams"], record["pps"]) == ("imix.py", {"pps": 140, "flows": 40}, 3, 240.0)
    assert search["status"] == "complete" and search["profile"]["frame_size"] == 362 and len(document["searches"]) == 1
    assert search["result"]["goals"]["ndr"]["lower_bound"] > 0.0 and search["latency"]["points"][0]["latency_received"] > 0
    frames = [bytes(frame) for frame in captured_frames(pcap) if bytes(frame)[-LATENCY_TRAILER] != LATENCY_MAGIC]
    offered = search["warmup"]["offered"] + sum(trial["offered"] for trial in search["trials"])
    sizes = {}
    for frame in frames:
        sizes[len(frame)] = sizes.get(len(frame), 0) + 1
    sources = {IP(frame[14:]).src for frame in frames}
    print("trex_bench profile imix.py (%s): %d frames captured of %d offered, sizes %s, %d sources; NDR %.1f pps" % (
        client, len(frames), offered, sorted(sizes.items()), len(sources), search["result"]["goals"]["ndr"]["lower_bound"]))
    assert len(frames) >= offered and sorted(sizes) == [60, 590, 1514] and len(sources) == 40
    # 28:16:4 within a percent of each trial's count
    assert abs(sizes[60] / float(len(frames)) - 28 / 48.0) < 0.01 and abs(sizes[1514] / float(len(frames)) - 4 / 48.0) < 0.01, sizes


def test_trex_bench_records_a_user_s_profile_s_own_packet_groups(softgen, tmp_path):  # pylint: disable=redefined-outer-name
    """``profile: udp_1pkt_latency.py`` (a flow-stats stream, pg_id 40, and a latency stream, pg_id 41, as TRex's
    ``stl/flow_stats_latency.py``) loaded by the current client: every trial records both groups, the stats group's frames
    in the profile's proportion of the trial's, and a loss-free trial every frame of each group back, the latency
    group's histogram holding them."""
    traffic = {"client": "trex", "profile": os.path.join(ROOT, "tests", "integration", "profiles", "udp_1pkt_latency.py"),
               "tunables": {"pps": 1000, "pg_id": 40}}
    document, _pcap = captured_search(softgen, tmp_path, "groups", "udp port 12", traffic)
    search = document["searches"][0]
    assert search["status"] == "complete" and search["profile"]["trex_profile"]["pps"] == 1100.0
    clean = [trial for trial in search["trials"] if trial["loss_ratio"] == 0]
    assert clean, search["trials"]
    for trial in search["trials"]:
        stats, latency = trial["packet_groups"]
        assert (stats["pg_id"], stats["kind"], latency["pg_id"], latency["kind"]) == (40, "stats", 41, "latency"), trial
        # 1000 of every 1100 frames are the stats group's (the trial's frames: the ports' counters, a few ARP frames aside)
        assert abs(stats["sent"] - trial["offered"] * 1000 / 1100.0) <= 0.01 * trial["offered"] + 5, (stats, trial["offered"])
    for trial in clean:
        stats, latency = trial["packet_groups"]
        assert stats["received"] == stats["sent"] and latency["received"] == latency["sent"] > 0, trial["packet_groups"]
        assert sum(latency["histogram"].values()) == latency["received"] and latency["percentiles_us"]["99"] > 0
    print("trex_bench profile udp_1pkt_latency.py: %d trials, last %s" % (len(search["trials"]), search["trials"][-1]["packet_groups"]))
