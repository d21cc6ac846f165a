"""softgen against the calls of TRex's stateless tutorials, with both TRex client generations.

Each generation runs ``trex_calls.py`` (in a process of its own: the two
clients bring different scapy versions) against one softgen whose ports 0
and 1 are the ends of one veth pair between two namespaces made here:
connect, reset, L3 mode in service mode, single and multi bursts with exact
counts, continuous traffic with a duration and ``mult`` strings, update,
pause and resume, the field engine with named offsets, flow and latency
statistics, a second client on an owned port, bad rates, bad ports. Every
feature must behave as on TRex (the script's assertions say how).

The heartbeat test starves softgen's CPU: softgen and two CPU-bound loads
at nice -20 share the last CPU, the client runs on the others, a 4 s trial
runs, and each generation must stay connected throughout. softgen's
server runs SCHED_RR (its workers do not), which no ordinary load outranks.
The client runs in a session of its own: with the scheduler's autogroups
(sched_autogroup_enabled), a session's tasks share one weight over all CPUs
in proportion to their load, so in the session of the nice -20 loads the
client would get well under 1% of its free CPU as soon as anything else runs
there (the OVN build beside it in `make test`), and the test took minutes.
"""
import json
import os
import subprocess
import sys

import pytest

from softgen_lab import running_softgen, veth_pair
from trex_calls import FEATURES

PREFIX = "sgc"
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trex_calls.py")
GENERATIONS = ("old", "current")


def run_calls(ports, generation, features=FEATURES, cpus=None):
    rpc, pub = ports
    pin = ["taskset", "-c", cpus] if cpus else []
    out = subprocess.run(pin + [sys.executable, SCRIPT, "--client", generation, "--rpc", str(rpc), "--pub", str(pub),
                                "--features", ",".join(features)], capture_output=True, text=True, timeout=600, check=False, start_new_session=True)
    results = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    for result in results:
        print("%-8s %-24s %s %s" % (generation, result["feature"], "ok  " if result["ok"] else "FAIL", result["detail"].splitlines()[0]))
    assert [r["feature"] for r in results] == list(features), "rc %d\n%s\n%s" % (out.returncode, out.stdout[-3000:], out.stderr[-3000:])
    return results


@pytest.fixture(scope="module")
def wire():
    with veth_pair(PREFIX) as ns:
        yield ns


@pytest.mark.parametrize("generation", GENERATIONS)
def test_tutorial_calls_behave_as_on_trex(wire, tmp_path, generation):  # pylint: disable=redefined-outer-name,unused-argument
    with running_softgen(PREFIX, tmp_path / "softgen.log") as ports:
        results = run_calls(ports, generation)
    failed = ["%s: %s" % (r["feature"], r["detail"]) for r in results if not r["ok"]]
    assert not failed, "\n\n".join(failed)


def _hogs(cpu, count=2):
    return [subprocess.Popen(["taskset", "-c", cpu, "nice", "-n", "-20", "yes"], stdout=subprocess.DEVNULL)  # pylint: disable=consider-using-with
            for _i in range(count)]


@pytest.mark.parametrize("generation", GENERATIONS)
def test_heartbeat_survives_a_starved_cpu(wire, tmp_path, generation):  # pylint: disable=redefined-outer-name,unused-argument
    cpus = sorted(os.sched_getaffinity(0))
    assert len(cpus) >= 2, "the test needs two CPUs: softgen and the load on one, the client on another"
    loaded, free = str(cpus[-1]), ",".join(str(c) for c in cpus[:-1])
    with running_softgen(PREFIX, tmp_path / "softgen.log", cpus=loaded) as ports:
        hogs = _hogs(loaded)
        try:
            results = run_calls(ports, generation, ("connect", "reset", "long_trial", "disconnect"), cpus=free)
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
    failed = ["%s: %s" % (r["feature"], r["detail"]) for r in results if not r["ok"]]
    assert not failed, "\n\n".join(failed)
