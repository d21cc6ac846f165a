# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench's generator interface (:mod:`.generator`) on DPDK's ``dpdk-testpmd`` (see docs/testpmd_generator.md).

One interactive testpmd (``-i``, commands on its stdin, answers up to its ``testpmd> `` prompt) sends
with ``txonly`` forwarding: one EAL start-up per run, every trial is ``clear port stats all``,
``start``, the trial's seconds, ``stop``, ``show port stats all``. The frames are testpmd's own
IPv4/UDP frames from the bench's addresses and ports (``--tx-ip``, ``--tx-udp``), ``set txpkts``
sizes them. UDP only, one flow, no latency (:class:`~.generator.LatencyUnsupported`).

testpmd has no software rate limiter, so the load of a trial is paced outside it:

* ``testpmd.tx_interface`` (a kernel interface, in ``tx_namespace``): the sending port is the
  af_packet PMD on it with ``qdisc_bypass=0``, so its frames go through the interface's qdisc; the
  generator puts a ``tbf`` there at the trial's load (:func:`tbf_command`). A full qdisc holds the
  PMD's socket back (its send buffer fills), testpmd counts the frames that did not fit as
  ``TX-dropped`` and sends them never; so the frames sent (``offered``) are the interface's
  ``tx_packets`` growth (what passed the qdisc, frames that waited in it included), and
  ``achieved_load`` is that over the seconds between ``start`` and ``stop``.
* ``testpmd.tx_device`` (a PCI address bound to vfio-pci, or a ``--vdev`` of another PMD): no
  pacing. The generator sends at full rate in a trial at ``max_load`` and refuses any other load
  (a :class:`~.generator.BenchError` that says so); ``offered`` is testpmd's ``TX-packets``.

The frames received are the growth of the receiving kernel interface's ``rx_packets``
(``rx_interface``), or the ``RX-packets`` of a second testpmd in ``rxonly`` forwarding on
``rx_device``, read once the count is quiet after the trial.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import math
import os
import re
import select
import shutil
import signal
import subprocess
import time

from ansible_collections.offload.testbed.plugins.module_utils.host.netns import in_namespace

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, Generator, GeneratorLost, LatencyUnsupported, quiet_value
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import FCS, destination
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.spec import testpmd_traffic_errors

PROMPT = "testpmd> "
# The af_packet PMD's port on tx_interface: its frames go through the interface's qdisc.
AF_PACKET_VDEV = "net_af_packet0,iface=%s,qdisc_bypass=0"
# tbf: the bucket holds this much sending time (or one testpmd burst, whichever is more); the
# backlog limit is far above what the PMD's socket has in flight, so the qdisc does not drop.
TBF_BURST_SECONDS = 0.005
TBF_MIN_BURST_FRAMES = 32
TBF_LIMIT_BYTES = 4 * 1024 * 1024
# Root qdiscs the kernel puts on an interface by itself: ``tc qdisc del root`` brings them back.
DEFAULT_QDISCS = ("noqueue", "pfifo_fast", "fq_codel", "mq", "fq", "pfifo")
QUIET_POLL = 0.1
QUIET_MAX = 5.0
COMMAND_TIMEOUT = 15.0
RUNTIME_DIR = "/var/run/dpdk"
PCI_RE = re.compile(r"^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
STATS_RE = re.compile(r"#+ NIC statistics for port (\d+)\s+#+\n(.*?)\n\s*#{20,}", re.S)
FORWARD_RE = re.compile(r"-+ Forward statistics for port (\d+)\s+-+\n(.*?)\n\s*-{20,}", re.S)
COUNTER_RE = re.compile(r"([A-Za-z]+-[A-Za-z]+):\s+(\d+)")
VERSION_RE = re.compile(r"RTE Version: '([^']+)'")
PORT_RE = re.compile(r"^Port (\d+): ([0-9A-Fa-f:]{17})$", re.M)
FAILURE_MARKERS = ("No probed ethernet devices", "EAL: Error", "Cause:", "PANIC", "FATAL", "No free", "failed to initialize", "ioctl failed")


# ---------------------------------------------------------------------------
# testpmd's output
# ---------------------------------------------------------------------------

def _counters(block):
    return {name.lower().replace("-", "_"): int(value) for name, value in COUNTER_RE.findall(block)}


def parse_port_stats(text):
    """``show port stats all``: ``{port: {"rx_packets", "rx_missed", "rx_bytes", "rx_errors", "rx_nombuf", "tx_packets", ...}}``.

    Only the counters (the ``Throughput (since last show)`` lines are rates and have no ``-`` names).
    """
    return {int(port): _counters(block.split("Throughput")[0]) for port, block in STATS_RE.findall(text)}


def parse_forward_stats(text):
    """The ``Forward statistics for port N`` blocks that ``stop`` prints: ``{port: {"rx_packets", "rx_dropped", "tx_packets", "tx_dropped", ...}}``."""
    return {int(port): _counters(block) for port, block in FORWARD_RE.findall(text)}


def parse_startup(text):
    """What testpmd printed up to its first prompt: ``{"version", "ports": {port: MAC}, "errors": [lines]}``.

    testpmd comes up even when its device failed to probe (``No probed ethernet devices``): ``errors``
    holds those lines, and the generator refuses to go on.
    """
    version = VERSION_RE.search(text)
    errors = [line.strip() for line in text.splitlines() if any(marker in line for marker in FAILURE_MARKERS)]
    return {"version": version.group(1) if version else None, "ports": {int(port): mac.lower() for port, mac in PORT_RE.findall(text)},
            "errors": errors}


def answer(text, line):
    """The output of one command: without the echoed command line (testpmd writes ``\\r\\n`` after it) and the prompt."""
    if text.endswith(PROMPT):
        text = text[:-len(PROMPT)]
    echo = line + "\r\n"
    return text[len(echo):] if text.startswith(echo) else text


# ---------------------------------------------------------------------------
# pacing
# ---------------------------------------------------------------------------

def tc_frame_bytes(frame_size):
    """What tc counts of one frame: ``skb->len``, the Ethernet frame without its FCS (no preamble, no gap)."""
    return frame_size - FCS


def tbf_rate_bits(load, frame_size):
    """tbf's ``rate`` in bit/s for ``load`` frames/s of ``frame_size`` bytes (FCS included), rounded up."""
    return int(math.ceil(load * tc_frame_bytes(frame_size) * 8))


def tbf_burst_bytes(load, frame_size):
    """The bucket: TBF_BURST_SECONDS of sending, at least TBF_MIN_BURST_FRAMES frames (one testpmd burst)."""
    frame = tc_frame_bytes(frame_size)
    return int(max(TBF_MIN_BURST_FRAMES * frame, math.ceil(load * frame * TBF_BURST_SECONDS)))


def tbf_command(interface, load, frame_size):
    """``tc qdisc replace`` of the root qdisc of ``interface``: a tbf that passes ``load`` frames/s."""
    return ["tc", "qdisc", "replace", "dev", interface, "root", "tbf", "rate", "%dbit" % tbf_rate_bits(load, frame_size),
            "burst", str(tbf_burst_bytes(load, frame_size)), "limit", str(TBF_LIMIT_BYTES)]


def root_qdisc_kind(text):
    """The kind of the root qdisc in ``tc qdisc show dev IF root`` (``noqueue``, ``tbf``...), or None."""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "qdisc" and "root" in fields:
            return fields[1]
    return None


def unpaced_refusal(load, max_load, where):
    """None when an unpaced generator may run a trial at ``load`` (only at max_load: full rate), else the message."""
    if load >= max_load:
        return None
    return ("testpmd.tx_device %s has no pacing: testpmd has no software rate limiter and the port is not a kernel interface whose "
            "qdisc could pace it, so it sends at full rate only, in a trial at max_load (%.1f pps); it cannot send %.1f pps. "
            "Set warmup_duration: 0 and read the full-rate trial, or send from a kernel interface (testpmd.tx_interface)"
            % (where, max_load, load))


# ---------------------------------------------------------------------------
# command lines
# ---------------------------------------------------------------------------


def device_args(device):
    """EAL arguments of one device: a PCI address (``-a``), else a virtual device (``--vdev``)."""
    return ["-a", device] if PCI_RE.match(device) else ["--vdev", device]


def eal_args(options, lcores, prefix, device):
    """The EAL half of a testpmd command line (before ``--``)."""
    argv = ["-v", "--lcores", lcores, "--file-prefix", prefix]
    if options["huge_dir"]:
        argv += ["--huge-dir", options["huge_dir"]]
    if not PCI_RE.match(device):
        argv.append("--no-pci")
    return argv + device_args(device) + list(options["eal_args"])


def tx_command(options, frame):
    """The sending testpmd's command line; ``frame`` holds ``src_ip``, ``dst_ip``, ``src_port``, ``dst_port``."""
    device = options["tx_device"] or AF_PACKET_VDEV % options["tx_interface"]
    argv = [options["binary"]] + eal_args(options, options["lcores"], options["file_prefix"], device)
    argv += ["--", "-i", "--total-num-mbufs=%d" % options["total_num_mbufs"], "--tx-ip=%s,%s" % (frame["src_ip"], frame["dst_ip"]),
             "--tx-udp=%d,%d" % (frame["src_port"], frame["dst_port"])]
    if options["peer_mac"]:
        argv.append("--eth-peer=0,%s" % options["peer_mac"])
    # stdout line-buffered: testpmd's printf output reaches the pipe before its next prompt
    return in_namespace(options["tx_namespace"], ["stdbuf", "-oL"] + argv)


def rx_command(options):
    """The receiving testpmd's command line (``rx_device``), file prefix ``<file_prefix>-rx``."""
    argv = [options["binary"]] + eal_args(options, options["rx_lcores"], rx_prefix(options), options["rx_device"])
    argv += ["--", "-i", "--total-num-mbufs=%d" % options["total_num_mbufs"]]
    return in_namespace(options["rx_namespace"], ["stdbuf", "-oL"] + argv)


def rx_prefix(options):
    return options["file_prefix"] + "-rx"


TX_SETUP = ("set fwd txonly",)
RX_SETUP = ("set fwd rxonly", "clear port stats all", "start")


def trial_commands(frame_size):
    """What a trial sends the sending testpmd, in order (the trial's seconds pass between ``start`` and ``stop``)."""
    return ["set txpkts %d" % tc_frame_bytes(frame_size), "clear port stats all", "start", "stop", "show port stats all"]


# ---------------------------------------------------------------------------
# one interactive testpmd
# ---------------------------------------------------------------------------

class Console:
    """An interactive testpmd: :meth:`open` returns what it printed up to its first prompt, :meth:`command` one answer."""

    def __init__(self, argv, log=None, popen=subprocess.Popen):
        self.argv = argv
        self.log = log or (lambda line: None)
        self.popen = popen
        self.proc = None
        self.pending = b""
        self.transcript = []

    def open(self, timeout):
        self.proc = self.popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
        return self.until_prompt(timeout)

    def until_prompt(self, timeout):
        """Everything up to the next prompt; GeneratorLost when testpmd exits or stays silent."""
        deadline = time.time() + timeout
        while not self.pending.endswith(PROMPT.encode()):
            left = deadline - time.time()
            ready = select.select([self.proc.stdout], [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                raise GeneratorLost("testpmd did not answer within %.0f s" % timeout, self.tail())
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise GeneratorLost("testpmd exited (status %s)" % self.exit_status(), self.tail())
            self.pending += chunk
        text, self.pending = self.pending.decode("utf-8", "replace"), b""
        self.transcript.append(text)
        return text

    def exit_status(self):
        """The exit status once the closed output says testpmd is ending (None when it has not exited within a second)."""
        try:
            return self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return None

    def tail(self):
        return ("".join(self.transcript[-3:]) + self.pending.decode("utf-8", "replace"))[-4000:]

    def command(self, line, timeout=COMMAND_TIMEOUT):
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (OSError, ValueError) as error:
            raise GeneratorLost("testpmd took no command %r: %s" % (line, error), self.tail())
        return answer(self.until_prompt(timeout), line)

    def close(self, timeout=10.0):
        """``quit``, then SIGTERM and SIGKILL; never raises."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                proc.stdin.write(b"stop\nquit\n")
                proc.stdin.flush()
            proc.wait(timeout=timeout)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                    proc.wait(timeout=timeout)
                    break
                except (OSError, subprocess.TimeoutExpired):
                    continue


def remove_runtime(prefix, huge_dir, runtime_dir=None):
    """What a testpmd of ``prefix`` leaves behind once it exited: its runtime directory (in RUNTIME_DIR) and its hugepage files."""
    path = os.path.join(runtime_dir or RUNTIME_DIR, prefix)
    if prefix and os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    if prefix and huge_dir:
        for name in glob.glob(os.path.join(huge_dir, glob.escape(prefix) + "map_*")):
            try:
                os.unlink(name)
            except OSError:
                pass


def run_command(argv):
    """Run a short command (tc, counters); its stdout. BenchError naming the command when it fails."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise BenchError("%s: %s" % (" ".join(argv), error))
    if done.returncode != 0:
        raise BenchError("%s failed (%d): %s" % (" ".join(argv), done.returncode, (done.stderr or done.stdout).strip()))
    return done.stdout


# ---------------------------------------------------------------------------
# the generator
# ---------------------------------------------------------------------------

def frame_fields(args):
    """The addresses and ports of testpmd's frames: the bench's (``src_base``, the scenario's destination, the UDP ports)."""
    return {"src_ip": args["src_base"], "dst_ip": destination(args), "src_port": args["src_port"], "dst_port": args["dst_port"]}


class TestpmdGenerator(Generator):
    """``dpdk-testpmd`` behind the bench's generator interface (the module's docstring says how it sends and counts).

    ``args`` are the trex_bench arguments (``spec.check``), ``args["testpmd"]`` the testpmd options.
    ``console`` makes a :class:`Console` of a command line, ``run`` runs a short command and returns
    its stdout; both, ``sleep`` and ``clock`` are replaced in unit tests.
    """

    __test__ = False

    def __init__(self, args, log=None, console=Console, run=run_command, sleep=time.sleep, clock=time.time):
        refusals = testpmd_traffic_errors(args)
        if refusals:
            raise BenchError("; ".join(refusals))
        self.args = args
        self.options = dict(args["testpmd"])
        # unique per controller worker process unless given: two runs never share a runtime directory or hugepage files
        self.options["file_prefix"] = self.options["file_prefix"] or "tbench-%d" % os.getpid()
        self.log = log or (lambda line: None)
        self.make_console, self.run, self.sleep, self.clock = console, run, sleep, clock
        self.tx = self.rx = None
        self.frame_size = None
        self.version = None
        self.qdisc_set = False
        options = self.options
        self.paced = bool(options["tx_interface"])
        self.where = "testpmd on %s" % (("%s/%s" % (options["tx_namespace"], options["tx_interface"]) if options["tx_namespace"]
                                         else options["tx_interface"]) if self.paced else options["tx_device"])

    # -- processes -------------------------------------------------------------

    def open_console(self, argv, prefix, ports):
        """A testpmd at its prompt with at least ``ports`` ports; BenchError with its own words when it came up without them."""
        remove_runtime(prefix, self.options["huge_dir"])
        self.log("testpmd: %s" % " ".join(argv))
        console = self.make_console(argv, self.log)
        try:
            text = console.open(self.options["startup_timeout"])
        except GeneratorLost as error:
            console.close()
            remove_runtime(prefix, self.options["huge_dir"])
            errors = parse_startup(error.detail)["errors"]
            failure = BenchError("testpmd did not start (%s): %s%s" % (" ".join(argv), error.reason, ": " + "; ".join(errors) if errors else ""))
            failure.detail = error.detail  # the whole output, for the results file
            raise failure
        started = parse_startup(text)
        if len(started["ports"]) < ports:
            console.close()
            remove_runtime(prefix, self.options["huge_dir"])
            raise BenchError("testpmd (%s) came up without its port: %s" % (" ".join(argv), "; ".join(started["errors"]) or text.strip()[-500:]))
        self.version = started["version"] or self.version
        return console

    def connect(self):
        self.stop()
        options = self.options
        if self.paced:
            self.check_qdisc()
        self.tx = self.open_console(tx_command(options, frame_fields(self.args)), options["file_prefix"], 1)
        for line in TX_SETUP:
            self.tx.command(line)
        if options["rx_device"]:
            self.rx = self.open_console(rx_command(options), rx_prefix(options), 1)
            for line in RX_SETUP:
                self.rx.command(line)

    def check_qdisc(self):
        """The sending interface's root qdisc is the kernel's own (or our tbf), which ``tc qdisc del`` brings back."""
        options = self.options
        kind = root_qdisc_kind(self.run(in_namespace(options["tx_namespace"], ["tc", "qdisc", "show", "dev", options["tx_interface"], "root"])))
        if kind not in DEFAULT_QDISCS + ("tbf", None) or (kind == "tbf" and not self.qdisc_set):
            raise BenchError("testpmd.tx_interface: %s has a root qdisc %s of its own; the generator paces with a tbf in its place and "
                             "removes it afterwards: delete it first (tc qdisc del dev %s root)" % (self.where, kind, options["tx_interface"]))

    def info(self):
        options = self.options
        ports = [0, 1] if options["rx_device"] else [0]
        receiver = ("testpmd rxonly on %s" % options["rx_device"]) if options["rx_device"] else (
            "rx_packets of %s%s" % (options["rx_namespace"] + "/" if options["rx_namespace"] else "", options["rx_interface"]))
        pacing = ("tbf on the root of %s (af_packet PMD, qdisc_bypass=0)" % self.where.split(" on ", 1)[1]) if self.paced else (
            "none: full rate only, in trials at max_load")
        return {"generator": "testpmd", "server": self.where, "client": "testpmd", "ports": ports, "rx_server": None,
                "version": {"version": self.version, "mode": "txonly"}, "binary": options["binary"], "pacing": pacing, "receiver": receiver,
                "file_prefix": options["file_prefix"], "lcores": options["lcores"]}

    def load(self, streams):
        if len(streams) != 1:
            raise BenchError("direction: generator testpmd sends from one port; %d streams asked" % len(streams))
        self.frame_size = len(streams[0]["frame"]) + FCS

    # -- counting --------------------------------------------------------------

    def kernel_counter(self, namespace, interface, name):
        text = self.run(in_namespace(namespace, ["cat", "/sys/class/net/%s/statistics/%s" % (interface, name)]))
        try:
            return int(text.strip())
        except ValueError:
            raise BenchError("%s/%s: no %s counter (%r)" % (namespace or "", interface, name, text.strip()))

    def counts(self):
        """(frames that left the sending interface, or 0 without one; frames received so far)."""
        options = self.options
        sent = self.kernel_counter(options["tx_namespace"], options["tx_interface"], "tx_packets") if self.paced else 0
        if self.rx is not None:
            received = parse_port_stats(self.rx.command("show port stats all")).get(0, {}).get("rx_packets")
            if received is None:
                raise GeneratorLost("the receiving testpmd printed no port statistics", self.rx.tail())
        else:
            received = self.kernel_counter(options["rx_namespace"], options["rx_interface"], "rx_packets")
        return sent, received

    def quiet_counts(self):
        """The counts once two reads QUIET_POLL s apart agree (frames in the qdisc and in flight are in), at most QUIET_MAX s."""
        return quiet_value(self.counts, self.sleep, self.clock, QUIET_POLL, QUIET_MAX)

    # -- trials ----------------------------------------------------------------

    def pace(self, load):
        options = self.options
        self.run(in_namespace(options["tx_namespace"], tbf_command(options["tx_interface"], load, self.frame_size)))
        self.qdisc_set = True

    def trial(self, load, duration):
        if self.tx is None or self.frame_size is None:
            raise GeneratorLost("testpmd is not running")
        if self.paced:
            self.pace(load)
        else:
            refusal = unpaced_refusal(load, self.args["max_load"], self.options["tx_device"])
            if refusal:
                raise BenchError(refusal)
        return self.send(duration, tbf_rate_bits(load, self.frame_size) if self.paced else None)

    def send(self, duration, rate_bits):
        """One trial: the counts around ``start`` ... ``stop``; the trial record."""
        commands = trial_commands(self.frame_size)
        self.tx.command(commands[0])
        sent_before, received_before = self.quiet_counts()
        self.tx.command(commands[1])
        self.tx.command(commands[2])
        # the forwarding core runs once start answers: the trial's seconds count from there to the answer of stop
        started = self.clock()
        self.sleep(max(0.0, started + duration - self.clock()))
        forward = parse_forward_stats(self.tx.command(commands[3])).get(0, {})
        seconds = self.clock() - started
        self.sleep(self.args["settle"])
        sent_after, received_after = self.quiet_counts()
        stats = parse_port_stats(self.tx.command(commands[4])).get(0)
        if stats is None:
            raise GeneratorLost("the sending testpmd printed no port statistics", self.tx.tail())
        offered = sent_after - sent_before if self.paced else stats["tx_packets"]
        return {"offered": offered, "received": received_after - received_before, "achieved_load": offered / seconds, "started": started,
                "sending_seconds": round(seconds, 6), "testpmd_tx_packets": stats["tx_packets"], "testpmd_tx_dropped": forward.get("tx_dropped"),
                "pacing_rate_bits": rate_bits}

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        raise LatencyUnsupported("generator testpmd measures no latency (txonly sends no timestamped frames); use generator trex for latency")

    def free_pg_id(self, first):
        raise LatencyUnsupported("generator testpmd measures no latency (txonly sends no timestamped frames); use generator trex for latency")

    def stop(self):
        options = self.options
        for console, prefix in ((self.tx, options["file_prefix"]), (self.rx, rx_prefix(options))):
            if console is not None:
                console.close()
                remove_runtime(prefix, options["huge_dir"])
        self.tx = self.rx = None
        if self.qdisc_set:
            try:
                self.run(in_namespace(options["tx_namespace"], ["tc", "qdisc", "del", "dev", options["tx_interface"], "root"]))
            except BenchError:
                pass
            self.qdisc_set = False
