"""CPU an idle softgen takes: its server and its port workers, with nothing to send, this tree next to another.

An idle generator is most of a bench's life (between trials, while the DUT is
prepared and checked), and in the VM lab its guest shares the host's cores with
the DUT's: every wake-up of an idle worker costs them. Each softgen here runs
with two ports on a veth pair in this namespace (``sgi0``/``sgi1`` and
``sgi2``/``sgi3``, up, no address), is left ``--settle`` s to start, and then
its CPU time (user + system, from /proc) is read over ``--seconds`` s, for the
server process and for its workers together. The other tree is a git revision
of this repository (``--baseline``, default the commit before softgen's idle
workers wake seldom), its ``extensions`` taken with ``git archive``.

Run as root: ``.venv/bin/python benchmarks/softgen_idle.py``.
"""
import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TICK = os.sysconf("SC_CLK_TCK")
VETHS = (("sgi0", "sgi1"), ("sgi2", "sgi3"))


def cpu_seconds(pid):
    """User + system CPU seconds of one process, from /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / float(TICK)


def children(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout
    return [int(line) for line in out.split()]


@contextlib.contextmanager
def veths():
    for a, b in VETHS:
        subprocess.run(["ip", "link", "add", a, "type", "veth", "peer", "name", b], check=True)
        for name in (a, b):
            subprocess.run(["ip", "link", "set", name, "up"], check=True)
    try:
        yield [a for a, _b in VETHS]
    finally:
        for a, _b in VETHS:
            subprocess.run(["ip", "link", "del", a], check=False)


def measure(extensions, ports, settle, seconds):
    """(server CPU s, workers' CPU s, workers) of an idle softgen from ``extensions`` over ``seconds``."""
    argv = [sys.executable, "-m", "softgen", "--rpc-port", "4631", "--pub-port", "4630", "--priority", "normal"]
    for i, port in enumerate(ports):
        argv += ["--port", "p%d:-:%s" % (i, port)]
    proc = subprocess.Popen(argv, cwd=extensions, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(settle)
        workers = children(proc.pid)
        before = (cpu_seconds(proc.pid), sum(cpu_seconds(w) for w in workers))
        time.sleep(seconds)
        after = (cpu_seconds(proc.pid), sum(cpu_seconds(w) for w in workers))
    finally:
        proc.terminate()
        proc.wait(10)
    return after[0] - before[0], after[1] - before[1], len(workers)


def baseline_tree(revision, into):
    archive = subprocess.run(["git", "-C", ROOT, "archive", revision, "extensions"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return os.path.join(into, "extensions")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="c68b2fd~1", help="the git revision to compare with")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--settle", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, veths() as ports:
        trees = (("this tree", os.path.join(ROOT, "extensions")), (args.baseline, baseline_tree(args.baseline, tmp)))
        rows = [(name,) + measure(path, ports, args.settle, args.seconds) for name, path in trees]
    print("idle softgen, two ports, CPU seconds over %g s" % args.seconds)
    for name, server, workers, count in rows:
        print("  %-12s server %.2f s (%.1f %% of a core), %d workers %.2f s (%.1f %%)"
              % (name, server, 100 * server / args.seconds, count, workers, 100 * workers / args.seconds))
    (_n, s_new, w_new, _c), (_o, s_old, w_old, _d) = rows
    print("ratio this tree / %s: server %.2f, workers %.2f, together %.2f"
          % (args.baseline, s_new / s_old if s_old else float("nan"), w_new / w_old if w_old else float("nan"),
             (s_new + w_new) / (s_old + w_old) if s_old + w_old else float("nan")))


if __name__ == "__main__":
    main()
