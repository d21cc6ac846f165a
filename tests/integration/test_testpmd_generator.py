"""TestpmdGenerator on a real dpdk-testpmd, real hugepages and a real veth (run as root).

Topology (made here, removed at the end even on failure)::

    netns tpg-i-a: tpg-i-a0 --veth-- tpg-i-b0 :netns tpg-i-b

testpmd sends from tpg-i-a0 (af_packet PMD, qdisc_bypass=0, paced by the generator's tbf on
tpg-i-a0); the frames received are tpg-i-b0's rx_packets. The hugepages are HUGEPAGES more 2 MB
pages than the machine had (others may hold some at the same time: the count goes back down by
what this test added), on a hugetlbfs mounted in a temporary directory; testpmd's runtime
directory /var/run/dpdk/<prefix> and hugepage files go when the generator stops.

1. Trials at two loads through the generator interface: the achieved load within TOLERANCE of
   the asked one, every frame sent arrives, testpmd's own TX count agrees.
2. The same with a second testpmd (rxonly) counting on the receiving veth.
3. A short search through ``offload.testbed.trex_bench`` (ansible-playbook, as
   test_trex_bench_softgen.py runs it) with ``generator: testpmd``: results on disk, the
   generator named in the results file, latency skipped with the reason.
"""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from softgen_lab import ROOT, namespaces, veth_pair

sys.path.insert(0, os.path.join(ROOT, ".tmp", "pytest"))
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_streams  # noqa: E402  pylint: disable=wrong-import-position
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.testpmd import TestpmdGenerator  # noqa: E402  pylint: disable=wrong-import-position

PREFIX = "tpg-i"
NS = namespaces(PREFIX)
TX_IF, RX_IF = "%s-a0" % PREFIX, "%s-b0" % PREFIX
NR_HUGEPAGES = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
HUGEPAGES = 128
TOLERANCE = 0.03
BINARY = "/usr/bin/dpdk-testpmd"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists(BINARY), reason="needs root and dpdk-testpmd (Debian 12: apt install dpdk)")


def _read_pages():
    with open(NR_HUGEPAGES) as handle:
        return int(handle.read())


def _write_pages(count):
    with open(NR_HUGEPAGES, "w") as handle:
        handle.write("%d\n" % count)


@contextlib.contextmanager
def hugepages(pages):
    """``pages`` more 2 MB hugepages on a hugetlbfs in a temporary directory; both undone at the end."""
    before = _read_pages()
    _write_pages(before + pages)
    mount = tempfile.mkdtemp(prefix="tpg-huge-")
    mounted = False
    try:
        got = _read_pages() - before
        assert got >= pages, "the kernel gave %d of %d hugepages (memory too fragmented?)" % (got, pages)
        subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", mount], check=True)
        mounted = True
        yield mount
    finally:
        if mounted:
            subprocess.run(["umount", mount], check=False)
        os.rmdir(mount)
        # what this test added, whatever others reserved meanwhile
        _write_pages(max(0, _read_pages() - pages))


@pytest.fixture(scope="module")
def bench():
    """The veth pair and the hugepages; yields the hugetlbfs mount."""
    with veth_pair(PREFIX), hugepages(HUGEPAGES) as mount:
        yield mount


def options_for(huge_dir, file_prefix):
    return {"binary": BINARY, "tx_namespace": NS["a"], "tx_interface": TX_IF, "rx_namespace": NS["b"], "rx_interface": RX_IF,
            "huge_dir": huge_dir, "file_prefix": file_prefix}


def bench_args(huge_dir, file_prefix, **overrides):
    raw = dict({"generator": "testpmd", "testpmd": options_for(huge_dir, file_prefix), "flows": 1, "frame_sizes": [64],
                "max_load": 300000, "results_dir": "unused"}, **overrides)
    args, errors = spec.check(ArgumentSpecValidator(spec.argument_spec()).validate(raw).validated_parameters)
    assert errors == []
    return args


def qdisc():
    return subprocess.run(["ip", "netns", "exec", NS["a"], "tc", "qdisc", "show", "dev", TX_IF, "root"], capture_output=True, text=True,
                          check=True).stdout


def assert_left_nothing(huge_dir, file_prefix):
    assert not os.path.exists("/var/run/dpdk/%s" % file_prefix)
    assert [name for name in os.listdir(huge_dir) if name.startswith(file_prefix)] == []
    assert "tbf" not in qdisc()


def test_trials_at_two_loads_are_paced_and_counted(bench):  # pylint: disable=redefined-outer-name
    file_prefix = "tpg-i-%d" % os.getpid()
    args = bench_args(bench, file_prefix)
    generator = TestpmdGenerator(args)
    started = time.time()
    try:
        generator.connect()
        assert generator.info()["version"]["version"].startswith("DPDK ")
        generator.load(build_streams(args, 64))
        records = {load: generator.trial(load, 2.0) for load in (20000.0, 200000.0)}
        assert "tbf" in qdisc()
    finally:
        generator.stop()
    for load, record in records.items():
        print("testpmd %.0f pps x 2 s: offered %d, received %d, achieved %.1f pps (%.2f %%), testpmd TX-packets %d, %.3f s"
              % (load, record["offered"], record["received"], record["achieved_load"], 100.0 * record["achieved_load"] / load,
                 record["testpmd_tx_packets"], record["sending_seconds"]))
        assert abs(record["achieved_load"] - load) <= TOLERANCE * load, record
        assert abs(record["offered"] - load * 2.0) <= TOLERANCE * load * 2.0, record
        assert record["received"] == record["offered"], record
        # testpmd counts what went into the af_packet ring; a ring's worth may still wait there at stop
        assert abs(record["testpmd_tx_packets"] - record["offered"]) <= 1024, record
    print("two trials, start-up included: %.1f s" % (time.time() - started))
    assert_left_nothing(bench, file_prefix)


def test_a_receiving_testpmd_counts_what_arrived(bench):  # pylint: disable=redefined-outer-name
    """rx_device: a second testpmd, rxonly on an af_packet port of the receiving veth, counts (a low load: on two CPUs the two
    busy-polling testpmds share them)."""
    file_prefix = "tpg-i-rx-%d" % os.getpid()
    args = bench_args(bench, file_prefix)
    args["testpmd"].update(rx_interface=None, rx_device="net_af_packet1,iface=%s" % RX_IF)
    generator = TestpmdGenerator(args)
    try:
        generator.connect()
        assert generator.info()["receiver"] == "testpmd rxonly on net_af_packet1,iface=%s" % RX_IF
        generator.load(build_streams(args, 128))
        record = generator.trial(10000.0, 2.0)
        assert os.path.isdir("/var/run/dpdk/%s-rx" % file_prefix)
    finally:
        generator.stop()
    print("testpmd 10000 pps x 2 s, 128 B, rxonly receiver: offered %d, received %d, achieved %.1f pps"
          % (record["offered"], record["received"], record["achieved_load"]))
    assert abs(record["achieved_load"] - 10000.0) <= TOLERANCE * 10000.0, record
    assert record["received"] == record["offered"], record
    assert_left_nothing(bench, file_prefix)
    assert not os.path.exists("/var/run/dpdk/%s-rx" % file_prefix)


def collections_path(tmp_path):
    """This checkout as ``offload.testbed`` in a collections path of its own."""
    base = tmp_path / "collections"
    (base / "ansible_collections" / "offload").mkdir(parents=True)
    os.symlink(ROOT, str(base / "ansible_collections" / "offload" / "testbed"))
    return str(base)


def run_playbook(tmp_path, task_args):
    out_file = tmp_path / "result.json"
    play = [{"name": "Bench", "hosts": "localhost", "gather_facts": False, "vars": {"ansible_python_interpreter": sys.executable},
             "tasks": [{"name": "Run the bench", "offload.testbed.trex_bench": task_args, "register": "bench", "ignore_errors": True},
                       {"name": "Save the result", "ansible.builtin.copy": {"content": "{{ bench | to_json }}", "dest": str(out_file), "mode": "0644"}}]}]
    playbook = tmp_path / "bench.yml"
    playbook.write_text(json.dumps(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections_path(tmp_path), ANSIBLE_FORCE_COLOR="0", ANSIBLE_LOCALHOST_WARNING="False",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="False")
    env.pop("ANSIBLE_CONFIG", None)
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,", "-c", "local", str(playbook)],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path), check=False, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out_file.read_text()), proc.stdout


def test_a_search_with_generator_testpmd_through_the_action(bench, tmp_path):  # pylint: disable=redefined-outer-name
    results = tmp_path / "results"
    file_prefix = "tpg-i-run-%d" % os.getpid()
    task_args = {"generator": "testpmd", "testpmd": options_for(bench, file_prefix), "scenario": "routing", "protocol": "udp",
                 "frame_sizes": [64], "flows": 1, "max_load": 100000, "final_duration": 1.0, "initial_duration": 0.5, "warmup_duration": 0.5,
                 "results_dir": str(results), "run_id": "tpg-run", "datapath": "veth", "dut_health": False, "max_trials": 20}
    started = time.time()
    result, stdout = run_playbook(tmp_path, task_args)
    spent = time.time() - started
    assert not result.get("failed"), result.get("msg")
    document = json.loads((results / "tpg-run.json").read_text())
    assert document["status"] == "complete"
    assert document["generator"]["generator"] == "testpmd" and document["generator"]["client"] == "testpmd"
    assert document["generator"]["version"]["version"].startswith("DPDK 22.11")
    search = document["searches"][0]
    assert search["trials"] and search["warmup"]["offered"] > 0
    assert all(trial["received"] == trial["offered"] for trial in search["trials"]), search["trials"]
    assert "measures no latency" in search["latency"]["skipped"]
    ndr = search["result"]["goals"]["ndr"]
    assert ndr["lower_bound"] > 0.0
    assert (results / "results.csv").exists()
    print("trex_bench with testpmd: %d trials, NDR %.1f pps (generator-limited: %s), playbook %.1f s"
          % (len(search["trials"]), ndr["lower_bound"], ndr["generator_limited"], spent))
    assert "trial   0" in stdout, stdout
    assert_left_nothing(bench, file_prefix)
