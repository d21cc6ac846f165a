"""Highest rate softgen sustains at 64-byte frames from one core, next to a plain Python send loop.

Path: two network namespaces joined by one veth pair (``sgb-a0`` <-> ``sgb-b0``),
no OVS in between, so the number is the generator's ceiling and not the
switch's. The sending process (softgen's port workers, or the plain loop) is pinned
to one CPU with ``taskset`` (softgen's RPC/publisher process is not); the veth receive path runs in softirq on
that same CPU, so the figure includes delivering the frames to the peer.

1. plain loop: ``sock.send(frame)`` in a ``while`` loop on an AF_PACKET socket
   bound to ``sgb-a0`` inside ``sgb-a`` for ``--seconds``.
   Its frame goes to ``DST_MAC``, a MAC no interface owns: the peer veth
   counts it and drops it before IP, so neither side pays for an IP stack.
2. softgen: started with ports ``sgb-a/sgb-a0`` and ``sgb-b/sgb-b0``; the
   unmodified ``trex_stl_lib`` client adds a 64-byte UDP stream with a field
   engine over 1,000 source addresses (L2 mode, destination ``DST_MAC`` like the
   plain loop's frame) and starts it at 100 % of line rate
   (14.88 Mpps requested, far above what one core can do); the achieved rate
   is the port's ``opackets`` growth over the steady part of the run, and the
   peer's ``ipackets`` growth shows what arrived. softgen runs once per
   transmit mode (``--tx-mode``): ``ring`` (its default: PACKET_TX_RING, each
   frame copied into its socket buffer's head through a ``virtio_net_hdr``),
   ``ring-frags`` (the same ring, frames left as page fragments, which the veth
   must copy out into a new page per frame) and ``sendmmsg`` (no ring).
3. testpmd (``--testpmd``, on when ``/usr/bin/dpdk-testpmd`` exists): the bench's
   ``TestpmdGenerator`` (plugins/plugin_utils/bench/testpmd.py) on the same wire, same 64-byte
   frames to ``DST_MAC``: ``dpdk-testpmd`` in ``sgb-a`` with txonly forwarding on the af_packet
   PMD on ``sgb-a0`` (``qdisc_bypass=0``), both its lcores on the one CPU, one trial of
   ``--seconds`` at 100 % of line rate (its tbf then passes everything); sent is the frames
   that left ``sgb-a0`` over the trial's seconds, arrived ``sgb-b0``'s ``rx_packets``. It
   needs hugepages: HUGEPAGES more 2 MB pages than the machine has (and as many fewer
   afterwards), on a hugetlbfs mounted in a temporary directory for the run.

Run as root: ``.venv/bin/python benchmarks/generator_ceiling.py``.
"""
import argparse
import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SOFTGEN_DIR = os.path.join(ROOT, "extensions")
NS_A, NS_B = "sgb-a", "sgb-b"
IF_A, IF_B = "sgb-a0", "sgb-b0"
DST_MAC = "02:00:00:00:00:02"
TESTPMD = "/usr/bin/dpdk-testpmd"
NR_HUGEPAGES = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
HUGEPAGES = 64
LINE_RATE_64B = 14880952.0

PLAIN_LOOP = r"""
import socket, sys, time
sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
sock.bind((sys.argv[1], 0))
frame = bytes.fromhex("020000000002020000000001080045000032000100004011f6b8100000013000000104010000001e0000") + b"x" * 18
frame = frame[:60]
seconds = float(sys.argv[2])
sent = 0
start = time.monotonic()
end = start + seconds
while True:
    for _ in range(1000):
        try:
            sock.send(frame)
            sent += 1
        except OSError:
            pass
    if time.monotonic() >= end:
        break
print(sent / (time.monotonic() - start))
"""


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, capture_output=True, text=True)


def link_collection():
    """Make ``ansible_collections.offload.testbed`` importable from this checkout."""
    link_spec = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
    link = importlib.util.module_from_spec(link_spec)
    link_spec.loader.exec_module(link)
    link.link_collection(ROOT)


def cleanup():
    sh("ip", "netns", "del", NS_A, check=False)
    sh("ip", "netns", "del", NS_B, check=False)


def setup():
    cleanup()
    sh("ip", "netns", "add", NS_A)
    sh("ip", "netns", "add", NS_B)
    sh("ip", "link", "add", IF_A, "netns", NS_A, "type", "veth", "peer", "name", IF_B, "netns", NS_B)
    for netns, iface in ((NS_A, IF_A), (NS_B, IF_B)):
        sh("ip", "netns", "exec", netns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("ip", "netns", "exec", netns, "ethtool", "-K", iface, "tx", "off", "tso", "off", "gso", "off")
        sh("ip", "netns", "exec", netns, "ip", "link", "set", iface, "up")


def steer_rx(cpu):
    """RPS on the receiving veth: its softirq runs on another CPU than the generator, as a real peer's would."""
    other = [c for c in range(os.cpu_count() or 1) if c != cpu]
    if not other:
        return None
    sh("ip", "netns", "exec", NS_B, "sh", "-c", "echo %x > /sys/class/net/%s/queues/rx-0/rps_cpus" % (1 << other[0], IF_B))
    return other[0]


def rx_packets(netns, iface):
    out = sh("ip", "netns", "exec", netns, "cat", "/proc/net/dev").stdout
    for line in out.splitlines():
        if line.strip().startswith(iface + ":"):
            return int(line.split(":", 1)[1].split()[1])
    return 0


def plain_loop(cpu, seconds):
    before = rx_packets(NS_B, IF_B)
    out = sh("taskset", "-c", str(cpu), "ip", "netns", "exec", NS_A, sys.executable, "-c", PLAIN_LOOP, IF_A, str(seconds)).stdout
    arrived = rx_packets(NS_B, IF_B) - before
    return float(out.strip()), arrived / seconds


def softgen_ceiling(cpu, seconds, tx_mode):  # pylint: disable=too-many-locals
    sys.path.insert(0, SOFTGEN_DIR)
    from trex_stl_lib import api  # pylint: disable=import-outside-toplevel
    link_collection()
    from ansible_collections.offload.testbed.tests.support.free_ports import free_ports  # pylint: disable=import-outside-toplevel

    rpc, pub = free_ports(2)
    log = tempfile.NamedTemporaryFile(prefix="softgen-bench-", suffix=".log", delete=False)  # pylint: disable=consider-using-with
    log.close()
    proc = subprocess.Popen(  # pylint: disable=consider-using-with
        [sys.executable, "-m", "softgen", "--rpc-port", str(rpc), "--pub-port", str(pub),
         "--port", "p0:%s:%s" % (NS_A, IF_A), "--port", "p1:%s:%s" % (NS_B, IF_B), "--tx-mode", tx_mode,
         "--log-file", log.name], cwd=SOFTGEN_DIR)
    try:
        deadline = time.time() + 15
        while time.time() < deadline:
            with open(log.name, encoding="utf-8") as handle:
                if "softgen RPC on" in handle.read():
                    break
            time.sleep(0.1)
        # the port workers (the processes that build and send frames) go to the one CPU; the RPC server does not
        for child in sh("pgrep", "-P", str(proc.pid), check=False).stdout.split():
            sh("taskset", "-pc", str(cpu), child)
        client = api.STLClient(server="127.0.0.1", sync_port=rpc, async_port=pub, verbose_level=api.LoggerApi.VERBOSE_QUIET)
        client.connect()
        try:
            client.reset(ports=[0, 1])
            # same destination as the plain loop: a MAC nobody owns, so the peer counts and drops each frame early
            client.set_service_mode(ports=[0], enabled=True)
            client.set_l2_mode(port=0, dst_mac=DST_MAC)
            client.set_service_mode(ports=[0], enabled=False)
            vm = api.STLScVmRaw([api.STLVmFlowVar(name="src", min_value="16.0.0.1", max_value="16.0.3.232", size=4, op="inc"),
                                 api.STLVmWrFlowVar(fv_name="src", pkt_offset=26), api.STLVmFixIpv4(offset=14)])
            base = api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12) / (b"x" * 18)
            client.add_streams(api.STLStream(packet=api.STLPktBuilder(pkt=base, vm=vm), mode=api.STLTXCont(pps=1)), ports=[0])
            client.clear_stats()
            client.start(ports=[0], mult="100%", duration=seconds + 2)
            time.sleep(1.5)  # ring built, loop at full speed
            first = client.get_stats()
            t0 = time.monotonic()
            time.sleep(seconds)
            last = client.get_stats()
            span = time.monotonic() - t0
            client.wait_on_traffic(ports=[0], timeout=seconds + 10)
            final = client.get_stats()
        finally:
            client.disconnect()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        os.unlink(log.name)
    tx = (last[0]["opackets"] - first[0]["opackets"]) / span
    rx = (last[1]["ipackets"] - first[1]["ipackets"]) / span
    return tx, rx, last[0]["tx_pps"], final[0]["opackets"], final[1]["ipackets"]


def _pages(count=None):
    if count is not None:
        with open(NR_HUGEPAGES, "w") as handle:
            handle.write("%d\n" % count)
    with open(NR_HUGEPAGES) as handle:
        return int(handle.read())


@contextlib.contextmanager
def hugepages(pages):
    """``pages`` more 2 MB hugepages on a hugetlbfs in a temporary directory; the same count fewer at the end."""
    before = _pages()
    got = _pages(before + pages) - before
    mount = tempfile.mkdtemp(prefix="sgb-huge-")
    try:
        if got < pages:
            raise RuntimeError("the kernel gave %d of %d hugepages" % (got, pages))
        sh("mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", mount)
        try:
            yield mount
        finally:
            sh("umount", mount, check=False)
    finally:
        os.rmdir(mount)
        _pages(max(0, _pages() - pages))


def testpmd_ceiling(cpu, seconds):
    """One trial of the bench's TestpmdGenerator at 100 % of line rate: (pps sent, pps arrived, trial record)."""
    link_collection()
    # pylint: disable=import-outside-toplevel
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_streams
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench.testpmd import TestpmdGenerator

    with hugepages(HUGEPAGES) as mount:
        options = {"binary": TESTPMD, "tx_namespace": NS_A, "tx_interface": IF_A, "rx_namespace": NS_B, "rx_interface": IF_B,
                   "huge_dir": mount, "file_prefix": "sgb-%d" % os.getpid(), "lcores": "0@%d,1@%d" % (cpu, cpu), "peer_mac": DST_MAC}
        raw = {"generator": "testpmd", "testpmd": options, "flows": 1, "frame_sizes": [64], "max_load": LINE_RATE_64B, "results_dir": "unused"}
        args, errors = spec.check(ArgumentSpecValidator(spec.argument_spec()).validate(raw).validated_parameters)
        if errors:
            raise RuntimeError("; ".join(errors))
        generator = TestpmdGenerator(args)
        try:
            generator.connect()
            generator.load(build_streams(args, 64))
            record = generator.trial(LINE_RATE_64B, seconds)
        finally:
            generator.stop()
    return record["achieved_load"], record["received"] / record["sending_seconds"], record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--cpu", type=int, default=(os.cpu_count() or 1) - 1, help="CPU to pin the generator to")
    parser.add_argument("--rps", action="store_true", help="steer the receiving veth's softirq to another CPU (RPS)")
    parser.add_argument("--tx-modes", default="ring,ring-frags,sendmmsg",
                        help="softgen transmit modes to measure, comma-separated; the first is judged against the goal")
    parser.add_argument("--testpmd", action=argparse.BooleanOptionalAction, default=os.path.exists(TESTPMD),
                        help="also measure dpdk-testpmd through the bench's TestpmdGenerator (default: when %s exists)" % TESTPMD)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root (network namespaces)")
    setup()
    rx_cpu = steer_rx(args.cpu) if args.rps else args.cpu
    modes = [mode.strip() for mode in args.tx_modes.split(",") if mode.strip()]
    results = {}
    try:
        plain_tx, plain_rx = plain_loop(args.cpu, args.seconds)
        for mode in modes:
            results[mode] = softgen_ceiling(args.cpu, args.seconds, mode)
        testpmd = testpmd_ceiling(args.cpu, args.seconds) if args.testpmd else None
    finally:
        cleanup()
    print("path: veth pair between netns %s and %s (no OVS), 64-byte frames (60 + FCS), generator pinned to CPU %d, "
          "receive softirq steered to CPU %s" % (NS_A, NS_B, args.cpu, rx_cpu))
    print("plain Python AF_PACKET send loop       : %9.0f pps sent, %9.0f pps arrived" % (plain_tx, plain_rx))
    for mode in modes:
        sg_tx, sg_rx, sg_reported, total_tx, total_rx = results[mode]
        print("softgen --tx-mode %-10s (100%% mult): %9.0f pps sent, %9.0f pps arrived (tx_pps reported %.0f; "
              "totals: opackets %d, peer ipackets %d); %.2fx the plain loop"
              % (mode, sg_tx, sg_rx, sg_reported, total_tx, total_rx, sg_tx / plain_tx if plain_tx else float("nan")))
    best = results[modes[0]][0]
    if testpmd is not None:
        tp_tx, tp_rx, record = testpmd
        print("testpmd txonly (af_packet, tbf at 100%% of line rate): %9.0f pps sent, %9.0f pps arrived (testpmd TX-packets %d, "
              "left %s %d, peer rx_packets %d in %.2f s); %.2fx the plain loop"
              % (tp_tx, tp_rx, record["testpmd_tx_packets"], IF_A, record["offered"], record["received"], record["sending_seconds"],
                 tp_tx / plain_tx if plain_tx else float("nan")))
        print("ratio testpmd / softgen --tx-mode %s: %.2fx" % (modes[0], tp_tx / best if best else float("nan")))
    for mode in modes[1:]:
        print("ratio --tx-mode %s / --tx-mode %s: %.2fx" % (modes[0], mode, best / results[mode][0] if results[mode][0] else float("nan")))
    print("goal >= 500000 pps (--tx-mode %s)      : %s" % (modes[0], "met" if best >= 500000 else "NOT met"))


if __name__ == "__main__":
    main()
