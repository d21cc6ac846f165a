"""A lost generator, as a user meets it: ``ansible-playbook playbooks/site.yml --tags benchmark`` on the
virtual lab, and a softgen server killed with ``kill -9`` in the middle of the search.

The lab's generator is two softgen instances (inventories/virtual/group_vars/generator.yml): routing sends
from "servers" (RPC 4511) and "client" (RPC 4501) receives. Each runs under the trex_server role's daemon
helper, which starts a killed server again as systemd's Restart=on-failure does the unit on a real bench.

* Both servers killed in turn, the receiving one first, on either client: the play ends with the run
  complete, each kill cost the trial in progress (recorded as interrupted, naming the server it lost)
  and nothing else.
* The receiving server stopped for good: the play ends with trex_bench's one-line message, the results
  file closed as failed; the server is started again afterwards.

Never "A worker was found in a dead state": the TRex client's self-signalling (SIGINT to its process when a
connection is lost during a call; SIGTERM from its subscriber) must not reach the Ansible worker.

The lab is the one on this machine when there is one (molecule default's verify runs this test on the lab
its converge built; `make test` runs it there); without one the test builds it with site.yml and tears it
down at the end.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
STATE_DIR = "/var/lib/offload-testbed/trex_server"
DAEMON = os.path.join(STATE_DIR, "trex-server-daemon")
# routing in the virtual lab: "servers" sends, "client" receives (host_vars/lab-dut.yml, bench_scenario_vars)
SENDING, RECEIVING = ("servers", 4511), ("client", 4501)
DEAD_WORKER = "A worker was found in a dead state"
BENCH = {"bench_scenarios": ["routing"], "bench_protocols": ["udp"], "bench_repeat": 1, "bench_latency_loads": [], "bench_final_duration": 1}


def lab_is_up():
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout.split()
    bridge = subprocess.run(["ovs-vsctl", "--timeout=5", "br-exists", "underlay"], capture_output=True, check=False)
    return "ltb-gen" in namespaces and bridge.returncode == 0


def playbook(env, *args, timeout=1200):
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "inventories/virtual", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def answers(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def lab(playbook_env):
    """The virtual lab with its generator under the daemon helper of this checkout; torn down only if built here."""
    built = not lab_is_up()
    if built:
        done = playbook(playbook_env, "playbooks/site.yml", "--skip-tags", "benchmark")
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    generator = playbook(playbook_env, "playbooks/site.yml", "--tags", "generator", timeout=300)
    assert generator.returncode == 0, generator.stdout[-4000:] + generator.stderr
    yield playbook_env
    if built:
        playbook(playbook_env, "playbooks/teardown.yml")


def server_pid(rpc_port):
    """The pid of the softgen serving ``rpc_port`` (its daemon's child), or None."""
    found = subprocess.run(["pgrep", "-f", "softgen --rpc-port %d " % rpc_port], capture_output=True, text=True, check=False)
    pids = [int(pid) for pid in found.stdout.split()]
    return pids[0] if pids else None


def document(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def search_of(path):
    doc = document(path)
    return doc["searches"][0] if doc and doc.get("searches") else {"trials": [], "interrupted_trials": []}


def wait_until(what, bench, deadline=300):
    """Poll ``what()`` until it is true, while the play runs; fails when the play ends first or time runs out."""
    end = time.time() + deadline
    while time.time() < end:
        value = what()
        if value:
            return value
        assert bench.poll() is None, "the play ended before the moment to act came:\n" + bench.communicate()[0][-4000:]
        time.sleep(0.2)
    pytest.fail("waited %d s in vain" % deadline)


def start_bench(env, results, extra):
    variables = dict(BENCH, bench_results_dir=str(results), bench_run_suffix="-loss", **extra)
    return subprocess.Popen([os.path.join(BIN, "ansible-playbook"), "-i", "inventories/virtual", "playbooks/site.yml", "--tags", "benchmark",
                             "-e", json.dumps(variables)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def kill_mid_search(bench, path, rpc_port, trials):
    """Once ``trials`` trials are on disk, ``kill -9`` the server of ``rpc_port``; the trials on disk then, and its pid."""
    wait_until(lambda: len(search_of(path)["trials"]) >= trials, bench)
    pid = server_pid(rpc_port)
    before = search_of(path)["trials"]
    os.kill(pid, signal.SIGKILL)
    return before, pid


@pytest.mark.parametrize("client", ["trex_stl_lib", "trex"])
def test_a_killed_receiving_and_then_sending_generator_cost_one_trial_each(lab, tmp_path, client):  # pylint: disable=redefined-outer-name
    """On either client: PyPI's trex-stl-lib (the default) and TRex v3's (lbr-trex-client)."""
    path = tmp_path / "results" / "netdev-routing-udp-loss.json"
    bench = start_bench(lab, tmp_path / "results", {"bench_client": client})
    try:
        first, killed_rx = kill_mid_search(bench, path, RECEIVING[1], 3)
        # the bench is back: the interrupted trial, then two measured ones after it
        wait_until(lambda: search_of(path)["interrupted_trials"] and len(search_of(path)["trials"]) >= len(first) + 2, bench)
        second, killed_tx = kill_mid_search(bench, path, SENDING[1], len(first) + 2)
        output = bench.communicate(timeout=900)[0]
    finally:
        if bench.poll() is None:
            bench.kill()
    assert DEAD_WORKER not in output
    assert bench.returncode == 0, output[-6000:]
    doc = document(path)
    assert doc["status"] == "complete" and doc["error"] is None
    search = doc["searches"][0]
    lost = search["interrupted_trials"]
    assert [trial["reason"].split(": ", 1)[0] for trial in lost] == ["127.0.0.1:%d" % RECEIVING[1], "127.0.0.1:%d" % SENDING[1]], lost
    # the trials finished before each kill are kept as they were; two trials were run again after reconnecting
    assert search["trials"][:len(first)] == first and search["trials"][:len(second)] == second
    assert sum(trial.get("interrupted_before", 0) for trial in search["trials"]) == 2
    assert search["result"]["goals"]["ndr"]["lower_bound"] > 0 and doc["generator"]["client"] == client
    # the supervision started both servers again
    assert server_pid(RECEIVING[1]) not in (None, killed_rx) and server_pid(SENDING[1]) not in (None, killed_tx)
    assert "interrupted (127.0.0.1:%d: " % RECEIVING[1] in output and "interrupted (127.0.0.1:%d: " % SENDING[1] in output


def test_a_generator_that_does_not_come_back_ends_the_run_with_one_line(lab, tmp_path):  # pylint: disable=redefined-outer-name
    path = tmp_path / "results" / "netdev-routing-udp-loss.json"
    bench = start_bench(lab, tmp_path / "results", {"bench_reconnects": 1, "bench_reconnect_delay": 1, "bench_retries": 0})
    try:
        wait_until(lambda: len(search_of(path)["trials"]) >= 3, bench)
        stopped = subprocess.run([DAEMON, "stop", STATE_DIR, RECEIVING[0]], capture_output=True, text=True, check=False)
        assert stopped.stdout.strip() == "stopped", stopped.stdout + stopped.stderr
        output = bench.communicate(timeout=600)[0]
    finally:
        if bench.poll() is None:
            bench.kill()
        subprocess.run([DAEMON, "start", STATE_DIR, RECEIVING[0]], capture_output=True, check=False)
    assert DEAD_WORKER not in output
    assert bench.returncode != 0
    doc = document(path)
    assert doc["status"] == "failed"
    assert doc["error"].startswith("the generator at 127.0.0.1:%d (receiving: 127.0.0.1:%d) was lost 2 time(s) in a row during the trial at "
                                   % (SENDING[1], RECEIVING[1])), doc["error"]
    assert doc["error"].endswith("resume with the same run_id (netdev-routing-udp-loss) once the generator is back")
    assert "trex_bench: " + doc["error"] in output
    # the trial under way, interrupted; the failed reconnection is the second time lost
    [interrupted] = doc["searches"][0]["interrupted_trials"]
    assert interrupted["reason"].startswith("127.0.0.1:%d: " % RECEIVING[1]), interrupted["reason"]
    deadline = time.time() + 60
    while not answers(RECEIVING[1]) and time.time() < deadline:
        time.sleep(0.5)
    assert answers(RECEIVING[1]), "the receiving server did not start again"
