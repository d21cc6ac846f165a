# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""TestpmdGenerator (plugins/plugin_utils/bench/testpmd.py) without testpmd: its parsers on the outputs
dpdk-testpmd 22.11 printed on this project's machine (tests/fixtures/testpmd_*.txt, SOURCES.md), the
command lines and console lines of a trial, the pacing numbers, and what it refuses.

A fake console answers each command with the recorded output of that command; a fake ``run`` answers
tc and the interface counters and records every command line."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec, testpmd
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, GeneratorLost, LatencyUnsupported
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_streams

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "fixtures"))
KERNEL = {"tx_namespace": "tpg-a", "tx_interface": "tpg-a0", "rx_namespace": "tpg-b", "rx_interface": "tpg-b0",
          "huge_dir": "/mnt/huge", "file_prefix": "tpg-u"}
NOQUEUE = "qdisc noqueue 0: root refcnt 2 \n"
# what `tc qdisc show dev tpg-a0 root` printed with the generator's tbf in place (this machine, iproute2 6.1)
TBF = "qdisc tbf 8001: root refcnt 3 rate 9600Kbit burst 2398b lat 1.66s \n"
TX_START = ["ip", "netns", "exec", "tpg-a", "stdbuf", "-oL", "dpdk-testpmd", "-v", "--lcores", "0-1", "--file-prefix", "tpg-u",
            "--huge-dir", "/mnt/huge", "--no-pci", "--vdev", "net_af_packet0,iface=tpg-a0,qdisc_bypass=0", "--", "-i",
            "--total-num-mbufs=8192", "--tx-ip=16.0.0.1,48.0.0.1", "--tx-udp=1025,5001"]


# testpmd ends the echo of the command it read with \r\n, and nothing else; the files hold its output with
# \n only (ansible-test's line-endings rule), and these lines (1-based) are the echoes whose \r goes back.
ECHOED_LINE = {"testpmd_rxonly_show_port_stats.txt": 1, "testpmd_rxonly_stop.txt": 1, "testpmd_startup_no_such_iface.txt": 14,
               "testpmd_txonly_show_port_stats.txt": 1, "testpmd_txonly_start.txt": 1, "testpmd_txonly_stop.txt": 1}


def fixture(name):
    with open(os.path.join(FIXTURES, name), newline="") as handle:
        lines = handle.read().split("\n")
    if name in ECHOED_LINE:
        lines[ECHOED_LINE[name] - 1] += "\r"
    return "\n".join(lines)


def args_of(testpmd_options=None, **overrides):
    raw = dict({"generator": "testpmd", "testpmd": dict(KERNEL, **(testpmd_options or {})), "flows": 1, "max_load": 1000000,
                "results_dir": "/tmp/results", "frame_sizes": [64]}, **overrides)
    result = ArgumentSpecValidator(spec.argument_spec()).validate(raw)
    assert not result.errors.messages, result.errors.messages
    args, errors = spec.check(result.validated_parameters)
    return args, errors


def good_args(testpmd_options=None, **overrides):
    args, errors = args_of(testpmd_options, **overrides)
    assert errors == []
    return args


class World:
    """The interface counters, the clock and every command the generator ran."""

    def __init__(self, qdisc=NOQUEUE, sent=78592, received=78394):
        self.now = 1000.0
        self.counters = {("tpg-a", "tpg-a0", "tx_packets"): 5000, ("tpg-b", "tpg-b0", "rx_packets"): 7000}
        self.qdisc = qdisc
        self.sent, self.received = sent, received
        self.commands = []
        self.consoles = []

    def run(self, argv):
        self.commands.append(list(argv))
        namespace, command = (argv[3], argv[4:]) if argv[:3] == ["ip", "netns", "exec"] else (None, argv)
        if command[:3] == ["tc", "qdisc", "show"]:
            return self.qdisc
        if command[0] == "cat":
            interface, name = command[1].split("/")[-3], command[1].split("/")[-1]
            return "%d\n" % self.counters[(namespace, interface, name)]
        return ""

    def sleep(self, seconds):
        self.now += seconds

    def clock(self):
        return self.now

    def console(self, argv, _log=None):
        made = FakeConsole(self, argv)
        self.consoles.append(made)
        return made

    def traffic(self):
        """What `stop` ends: the frames the trial sent and received (the recorded ones)."""
        self.counters[("tpg-a", "tpg-a0", "tx_packets")] += self.sent
        self.counters[("tpg-b", "tpg-b0", "rx_packets")] += self.received


class FakeConsole:
    """Answers with what testpmd printed for each command (the fixture, echo and prompt included)."""

    RECORDED = {"start": "testpmd_txonly_start.txt", "stop": "testpmd_txonly_stop.txt", "show port stats all": "testpmd_txonly_show_port_stats.txt"}
    RECORDED_RX = {"stop": "testpmd_rxonly_stop.txt", "show port stats all": "testpmd_rxonly_show_port_stats.txt"}

    def __init__(self, world, argv):
        self.world, self.argv = world, argv
        self.rx = "rxonly" in " ".join(argv) or "-rx" in " ".join(argv)
        self.lines = []
        self.closed = False
        self.startup = "testpmd_startup_af_packet.txt"

    def open(self, _timeout):
        return fixture(self.startup)

    def command(self, line, timeout=None):  # pylint: disable=unused-argument
        self.lines.append(line)
        if line == "stop" and not self.rx:
            self.world.sleep(0.002)
            self.world.traffic()
        recorded = (self.RECORDED_RX if self.rx else self.RECORDED).get(line)
        text = fixture(recorded) if recorded else line + "\r\n" + testpmd.PROMPT
        return testpmd.answer(text, line)

    def tail(self):
        return ""

    def close(self):
        self.closed = True


def generator(world, testpmd_options=None, **overrides):
    args = good_args(testpmd_options, **overrides)
    made = testpmd.TestpmdGenerator(args, console=world.console, run=world.run, sleep=world.sleep, clock=world.clock)
    made.load(build_streams(args, 64))
    return made


# ---------------------------------------------------------------------------
# testpmd's output (recorded)
# ---------------------------------------------------------------------------

def test_port_stats_of_the_sending_and_the_receiving_testpmd():
    sent = testpmd.parse_port_stats(fixture("testpmd_txonly_show_port_stats.txt"))
    assert sent == {0: {"rx_packets": 0, "rx_missed": 0, "rx_bytes": 0, "rx_errors": 0, "rx_nombuf": 0,
                        "tx_packets": 78592, "tx_errors": 0, "tx_bytes": 4715520}}
    received = testpmd.parse_port_stats(fixture("testpmd_rxonly_show_port_stats.txt"))
    assert received[0]["rx_packets"] == 78394 and received[0]["rx_bytes"] == 4703640 and received[0]["tx_packets"] == 0


def test_forward_statistics_that_stop_prints():
    assert testpmd.parse_forward_stats(fixture("testpmd_txonly_stop.txt")) == {
        0: {"rx_packets": 0, "rx_dropped": 0, "rx_total": 0, "tx_packets": 78592, "tx_dropped": 0, "tx_total": 78592}}
    assert testpmd.parse_forward_stats(fixture("testpmd_rxonly_stop.txt"))[0]["rx_packets"] == 78394
    # the accumulated block is not a port's
    assert list(testpmd.parse_forward_stats(fixture("testpmd_txonly_stop.txt"))) == [0]


def test_startup_gives_the_version_and_the_ports():
    started = testpmd.parse_startup(fixture("testpmd_startup_af_packet.txt"))
    assert started == {"version": "DPDK 22.11.11", "ports": {0: "b6:2a:46:4c:7c:b8"}, "errors": []}


def test_startup_without_its_device_is_found():
    started = testpmd.parse_startup(fixture("testpmd_startup_no_such_iface.txt"))
    assert started["ports"] == {} and started["version"] is None
    assert started["errors"] == ["rte_pmd_init_internals(): net_af_packet0: ioctl failed (SIOCGIFINDEX):No such device",
                                 "vdev_probe(): failed to initialize net_af_packet0 device", "testpmd: No probed ethernet devices"]


def test_an_answer_is_without_the_echo_and_the_prompt():
    text = fixture("testpmd_txonly_show_port_stats.txt")
    assert text.startswith("show port stats all\r\n") and text.endswith(testpmd.PROMPT)
    body = testpmd.answer(text, "show port stats all")
    assert body.startswith("\n  ######################## NIC statistics for port 0") and not body.endswith(testpmd.PROMPT)
    assert testpmd.answer("set txpkts 60\r\n" + testpmd.PROMPT, "set txpkts 60") == ""


def test_the_root_qdisc_kind():
    assert testpmd.root_qdisc_kind(NOQUEUE) == "noqueue"
    assert testpmd.root_qdisc_kind(TBF) == "tbf"
    assert testpmd.root_qdisc_kind("") is None


# ---------------------------------------------------------------------------
# pacing
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("load, frame_size, bits, burst", [
    (20000, 64, 9600000, 6000),        # 60 bytes as tc counts them (no FCS) x 8 x 20000
    (100000, 64, 48000000, 30000),
    (300000, 64, 144000000, 90000),
    (1000, 64, 480000, 1920),          # the bucket holds one testpmd burst at least
    (1000, 1518, 12112000, 48448),
    (333.3, 100, 255975, 3072),        # rounded up
])
def test_tbf_rate_and_bucket(load, frame_size, bits, burst):
    assert testpmd.tbf_rate_bits(load, frame_size) == bits
    assert testpmd.tbf_burst_bytes(load, frame_size) == burst


def test_tbf_command():
    expected = ["tc", "qdisc", "replace", "dev", "tpg-a0", "root", "tbf", "rate", "48000000bit", "burst", "30000", "limit", "4194304"]
    assert testpmd.tbf_command("tpg-a0", 100000, 64) == expected


def test_unpaced_loads():
    assert testpmd.unpaced_refusal(1000000.0, 1000000.0, "0000:32:00.0") is None
    message = testpmd.unpaced_refusal(500000.0, 1000000.0, "0000:32:00.0")
    assert "has no pacing" in message and "500000.0 pps" in message and "max_load (1000000.0 pps)" in message
    assert "warmup_duration: 0" in message and "testpmd.tx_interface" in message


# ---------------------------------------------------------------------------
# command lines and a trial
# ---------------------------------------------------------------------------

def test_command_lines():
    args = good_args()
    assert testpmd.tx_command(args["testpmd"], testpmd.frame_fields(args)) == TX_START
    options = dict(args["testpmd"], tx_namespace=None, tx_interface=None, tx_device="0000:32:00.0", huge_dir=None, peer_mac="0c:42:a1:00:00:01",
                   eal_args=["-n", "4"])
    assert testpmd.tx_command(options, testpmd.frame_fields(args)) == [
        "stdbuf", "-oL", "dpdk-testpmd", "-v", "--lcores", "0-1", "--file-prefix", "tpg-u", "-a", "0000:32:00.0", "-n", "4", "--", "-i",
        "--total-num-mbufs=8192", "--tx-ip=16.0.0.1,48.0.0.1", "--tx-udp=1025,5001", "--eth-peer=0,0c:42:a1:00:00:01"]
    options = dict(args["testpmd"], rx_interface=None, rx_device="net_af_packet1,iface=tpg-b0")
    assert testpmd.rx_command(options) == [
        "ip", "netns", "exec", "tpg-b", "stdbuf", "-oL", "dpdk-testpmd", "-v", "--lcores", "0-1", "--file-prefix", "tpg-u-rx", "--huge-dir", "/mnt/huge",
        "--no-pci", "--vdev", "net_af_packet1,iface=tpg-b0", "--", "-i", "--total-num-mbufs=8192"]


def test_the_frames_are_the_scenarios():
    args = good_args(scenario="nat", nat_address="10.20.0.9", src_port=2000, dst_port=53)
    assert testpmd.frame_fields(args) == {"src_ip": "16.0.0.1", "dst_ip": "10.20.0.9", "src_port": 2000, "dst_port": 53}


def test_a_paced_trial_sends_these_lines_and_counts_on_the_interfaces():
    world = World()
    gen = generator(world)
    gen.connect()
    tx = world.consoles[0]
    assert tx.argv == TX_START and tx.lines == ["set fwd txonly"]
    world.commands = []
    record = gen.trial(100000, 1.0)
    assert tx.lines[1:] == ["set txpkts 60", "clear port stats all", "start", "stop", "show port stats all"]
    assert world.commands[0] == ["ip", "netns", "exec", "tpg-a", "tc", "qdisc", "replace", "dev", "tpg-a0", "root", "tbf", "rate", "48000000bit",
                                 "burst", "30000", "limit", "4194304"]
    reads = set(tuple(command) for command in world.commands[1:])
    assert reads == {("ip", "netns", "exec", "tpg-a", "cat", "/sys/class/net/tpg-a0/statistics/tx_packets"),
                     ("ip", "netns", "exec", "tpg-b", "cat", "/sys/class/net/tpg-b0/statistics/rx_packets")}
    assert record["offered"] == 78592 and record["received"] == 78394
    assert record["testpmd_tx_packets"] == 78592 and record["testpmd_tx_dropped"] == 0 and record["pacing_rate_bits"] == 48000000
    assert record["sending_seconds"] == pytest.approx(1.002) and record["achieved_load"] == pytest.approx(78592 / 1.002)
    assert record["started"] == pytest.approx(1000.0 + testpmd.QUIET_POLL)


def test_offered_is_what_left_the_interface_not_testpmds_count():
    world = World(sent=78400)   # frames still in the af_packet ring when stop came: testpmd counted 78592
    gen = generator(world)
    gen.connect()
    record = gen.trial(100000, 1.0)
    assert record["offered"] == 78400 and record["testpmd_tx_packets"] == 78592


def test_stop_quits_testpmd_removes_the_qdisc_and_what_testpmd_left(tmp_path, monkeypatch):
    runtime = tmp_path / "run"
    (runtime / "tpg-u").mkdir(parents=True)
    (runtime / "other").mkdir()
    huge = tmp_path / "huge"
    huge.mkdir()
    for name in ("tpg-umap_0", "tpg-umap_1", "othermap_0"):
        (huge / name).write_text("")
    monkeypatch.setattr(testpmd, "RUNTIME_DIR", str(runtime))
    world = World()
    gen = generator(world, {"huge_dir": str(huge)})
    gen.connect()
    gen.trial(20000, 0.5)
    world.commands = []
    gen.stop()
    assert world.consoles[0].closed
    assert world.commands == [["ip", "netns", "exec", "tpg-a", "tc", "qdisc", "del", "dev", "tpg-a0", "root"]]
    assert sorted(os.listdir(str(runtime))) == ["other"] and sorted(os.listdir(str(huge))) == ["othermap_0"]
    world.commands = []
    gen.stop()
    assert world.commands == []


def test_a_receiving_testpmd_counts_with_rxonly():
    world = World()
    gen = generator(world, {"rx_interface": None, "rx_device": "net_af_packet1,iface=tpg-b0"})
    gen.connect()
    rx = world.consoles[1]
    assert rx.lines == ["set fwd rxonly", "clear port stats all", "start"]
    assert "--file-prefix" in rx.argv and rx.argv[rx.argv.index("--file-prefix") + 1] == "tpg-u-rx"
    record = gen.trial(20000, 1.0)
    # the recorded rxonly statistics say 78394 every time: nothing grew
    assert record["received"] == 0 and rx.lines[3:] == ["show port stats all"] * (len(rx.lines) - 3)
    assert gen.info()["ports"] == [0, 1] and gen.info()["receiver"] == "testpmd rxonly on net_af_packet1,iface=tpg-b0"


def test_info_names_the_generator():
    world = World()
    gen = generator(world)
    gen.connect()
    info = gen.info()
    assert info["generator"] == "testpmd" and info["client"] == "testpmd" and info["server"] == "testpmd on tpg-a/tpg-a0"
    assert info["version"] == {"version": "DPDK 22.11.11", "mode": "txonly"} and info["ports"] == [0]
    assert info["pacing"] == "tbf on the root of tpg-a/tpg-a0 (af_packet PMD, qdisc_bypass=0)"
    assert info["receiver"] == "rx_packets of tpg-b/tpg-b0"


def test_the_file_prefix_defaults_to_the_process():
    world = World()
    gen = generator(world, {"file_prefix": None})
    assert gen.options["file_prefix"] == "tbench-%d" % os.getpid()


# ---------------------------------------------------------------------------
# refusals
# ---------------------------------------------------------------------------

def test_no_latency():
    gen = generator(World())
    with pytest.raises(LatencyUnsupported, match="measures no latency"):
        gen.free_pg_id(100)
    with pytest.raises(LatencyUnsupported, match="measures no latency"):
        gen.latency_trial(1000, 1.0, b"", 100, 100)


def test_an_unpaced_device_runs_full_rate_trials_at_max_load_only():
    world = World()
    gen = generator(world, {"tx_namespace": None, "tx_interface": None, "tx_device": "0000:32:00.0"})
    gen.connect()
    world.commands = []
    with pytest.raises(BenchError, match=r"testpmd.tx_device 0000:32:00.0 has no pacing.*cannot send 100000.0 pps"):
        gen.trial(100000, 1.0)
    assert world.commands == [] and world.consoles[0].lines == ["set fwd txonly"]
    record = gen.trial(1000000, 1.0)
    assert record["offered"] == 78592 and record["pacing_rate_bits"] is None
    assert not any(command[:2] == ["tc", "qdisc"] or "tc" in command for command in world.commands)
    assert gen.info()["pacing"] == "none: full rate only, in trials at max_load"


def test_tcp_is_refused_by_the_generator_itself():
    args = good_args()
    args["protocol"] = "tcp"
    with pytest.raises(BenchError, match="protocol: tcp is not supported by generator testpmd: its txonly forwarding sends UDP only"):
        testpmd.TestpmdGenerator(args)


def test_a_testpmd_without_its_port_is_refused():
    world = World()

    def console(argv, log=None):
        made = world.console(argv, log)
        made.startup = "testpmd_startup_no_such_iface.txt"
        return made

    args = good_args()
    gen = testpmd.TestpmdGenerator(args, console=console, run=world.run, sleep=world.sleep, clock=world.clock)
    with pytest.raises(BenchError, match=r"came up without its port: .*ioctl failed \(SIOCGIFINDEX\):No such device"):
        gen.connect()
    assert world.consoles[0].closed


def test_a_qdisc_of_someone_else_is_not_replaced():
    world = World(qdisc="qdisc htb 1: root refcnt 2 r2q 10 default 0 direct_packets_stat 0\n")
    with pytest.raises(BenchError, match=r"testpmd.tx_interface: testpmd on tpg-a/tpg-a0 has a root qdisc htb of its own"):
        generator(world).connect()
    assert world.consoles == []
    with pytest.raises(BenchError, match="root qdisc tbf of its own"):
        generator(World(qdisc=TBF)).connect()


def test_a_trial_before_connect_is_a_lost_generator():
    with pytest.raises(GeneratorLost):
        generator(World()).trial(1000, 1.0)


@pytest.mark.parametrize("testpmd_options, overrides, needle", [
    ({}, {"protocol": "tcp"}, "protocol: tcp is not supported by generator testpmd: its txonly forwarding sends UDP only; use protocol udp"),
    ({}, {"direction": "bidir"}, "direction: bidir is not supported by generator testpmd"),
    ({}, {"flows": 1000}, "flows: 1000 (destinations 1) with generator testpmd: txonly sends one flow; set flows: 1"),
    ({}, {"destinations": 4}, "flows: 1 (destinations 4) with generator testpmd"),
    ({}, {"vlan": 10}, "vlan: 10 is not supported by generator testpmd"),
    ({}, {"ports": [0], "rx_server": {"server": "gen", "ports": [0]}}, "rx_server: a TRex option; generator testpmd counts on"),
    ({"tx_device": "0000:32:00.0"}, {}, "testpmd.tx_interface, testpmd.tx_device: give one of them, the sending port"),
    ({"rx_interface": None}, {}, "testpmd.rx_interface, testpmd.rx_device: give one of them, the receiving port"),
    ({"peer_mac": "0c:42:a1"}, {}, "testpmd.peer_mac: '0c:42:a1' is not a MAC address"),
    ({"lcores": "first"}, {}, "testpmd.lcores: 'first' is not an EAL core list (--lcores), e.g. 0-1, 2,3 or 0@3,1@3"),
    # testpmd 22.11 with -l 0 (tests/fixtures/testpmd_startup_one_lcore.txt): "No cores defined for forwarding"
    ({"lcores": "2"}, {}, "testpmd.lcores: '2' gives testpmd one lcore; it needs two or more, the main lcore (its command line) and at "
                          "least one forwarding lcore"),
    ({"rx_lcores": "3-3"}, {}, "testpmd.rx_lcores: '3-3' gives testpmd one lcore"),
    ({"lcores": "0@3"}, {}, "testpmd.lcores: '0@3' gives testpmd one lcore"),
    ({"file_prefix": "a/b"}, {}, "testpmd.file_prefix: 'a/b' must be letters, digits"),
    ({"total_num_mbufs": 100}, {}, "testpmd.total_num_mbufs: 100 must be an integer of at least 1024"),
    ({"startup_timeout": 0}, {}, "testpmd.startup_timeout: 0 must be a positive number of seconds"),
    ({"binary": ""}, {}, "testpmd.binary: give the dpdk-testpmd program"),
])
def test_the_spec_names_the_option_and_the_value(testpmd_options, overrides, needle):
    _args, errors = args_of(testpmd_options, **overrides)
    assert any(needle in error for error in errors), errors


@pytest.mark.parametrize("lcores, ids", [("0-1", {0, 1}), ("2,3", {2, 3}), ("0@3,1@3", {0, 1}), ("(0,1)@2", {0, 1}), ("0@3", {0}),
                                         ("4-2", set())])
def test_the_lcores_of_an_eal_core_list(lcores, ids):
    assert spec.lcore_ids(lcores) == ids


def test_one_lcore_is_refused_with_what_testpmd_says_of_it():
    said = testpmd.parse_startup(fixture("testpmd_startup_one_lcore.txt"))
    _args, errors = args_of({"lcores": "2"})
    refusal = [error for error in errors if error.startswith("testpmd.lcores")]
    assert len(refusal) == 1 and said["errors"] == ["EAL: Error - exiting with code: 1", "Cause: No cores defined for forwarding"]
    assert '"No cores defined for forwarding"' in refusal[0] and "write two, for example 0-1 or 0@3,1@3" in refusal[0]


def test_two_lcores_on_one_cpu_are_enough():
    _args, errors = args_of({"lcores": "0@3,1@3", "rx_lcores": "0-1"})
    assert not [error for error in errors if "lcore" in error], errors


def test_the_generator_and_its_options_go_together():
    raw = {"results_dir": "/tmp/results", "generator": "testpmd"}
    args, errors = spec.check(ArgumentSpecValidator(spec.argument_spec()).validate(raw).validated_parameters)
    assert errors == ["testpmd: generator testpmd needs its options: testpmd.tx_interface (or tx_device) and testpmd.rx_interface "
                      "(or rx_device), see docs/testpmd_generator.md"]
    raw = {"results_dir": "/tmp/results", "testpmd": KERNEL}
    args, errors = spec.check(ArgumentSpecValidator(spec.argument_spec()).validate(raw).validated_parameters)
    assert args["generator"] == "trex"
    assert errors == ["testpmd: options for generator testpmd, but generator is trex; set generator: testpmd or drop them"]


def test_the_defaults_of_the_testpmd_options():
    options = good_args({"huge_dir": None, "file_prefix": None})["testpmd"]
    assert options == {"binary": "dpdk-testpmd", "tx_namespace": "tpg-a", "tx_interface": "tpg-a0", "tx_device": None, "rx_namespace": "tpg-b",
                       "rx_interface": "tpg-b0", "rx_device": None, "eal_args": [], "huge_dir": None, "file_prefix": None, "lcores": "0-1",
                       "rx_lcores": "0-1", "total_num_mbufs": 8192, "peer_mac": None, "startup_timeout": 60.0}


def test_a_testpmd_that_exits_at_start_up_says_why():
    world = World()

    class Exits(FakeConsole):
        def open(self, _timeout):
            raise GeneratorLost("testpmd exited (status 1)", fixture("testpmd_startup_no_free_hugepages.txt"))

    def console(argv, _log=None):
        made = Exits(world, argv)
        world.consoles.append(made)
        return made

    gen = testpmd.TestpmdGenerator(good_args(), console=console, run=world.run, sleep=world.sleep, clock=world.clock)
    with pytest.raises(BenchError) as raised:
        gen.connect()
    message = str(raised.value)
    assert message.startswith("testpmd did not start (ip netns exec tpg-a stdbuf -oL dpdk-testpmd -v --lcores 0-1 ")
    assert message.endswith("): testpmd exited (status 1): EAL: No free 2048 kB hugepages reported on node 0; EAL: FATAL: Cannot get hugepage "
                            "information.; EAL: Error - exiting with code: 1; Cause: Cannot init EAL: Permission denied")
    assert "\n" not in message and raised.value.detail.startswith("EAL: Detected CPU lcores: 2")
    assert world.consoles[0].closed


def test_each_frame_size_is_set_before_its_trials():
    assert testpmd.trial_commands(64) == ["set txpkts 60", "clear port stats all", "start", "stop", "show port stats all"]
    assert testpmd.trial_commands(1518)[0] == "set txpkts 1514"
    world = World()
    args = good_args(frame_sizes=[64, 128])
    gen = testpmd.TestpmdGenerator(args, console=world.console, run=world.run, sleep=world.sleep, clock=world.clock)
    gen.connect()
    gen.load(build_streams(args, 128))
    gen.trial(1000, 0.5)
    assert world.consoles[0].lines[1] == "set txpkts 124"
    assert world.commands[1][-6:] == ["rate", "992000bit", "burst", "3968", "limit", "4194304"]
