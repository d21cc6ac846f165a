"""The calls of TRex's stateless tutorials, made with one TRex client generation against a server.

Run as ``python trex_calls.py --client old|current --rpc PORT --pub PORT [--features a,b,...]``;
prints one JSON line per feature: ``{"feature": name, "ok": bool, "detail": text}``. The
integration tests run it against softgen in a process of its own, because the two client
generations cannot share one (each brings its own scapy). Port 0 and port 1 of the server must
be wired to each other (a veth pair): what one sends the other receives.

``old`` is PyPI's ``trex-stl-lib`` with the collection's named-offset layer
(``plugin_utils/bench/trex_compat.py``, what the bench installs); ``current`` is TRex v3's
client as PyPI's ``lbr-trex-client`` ships it.
"""
import argparse
import json
import os
import sys
import time
import traceback
import warnings

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SRC, DST = "10.98.0.1", "10.98.0.2"
# profiles written here in TRex's format, after those TRex ships in scripts/stl
PROFILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profiles")


def load(client):
    """The client API module of ``client``."""
    warnings.simplefilter("ignore")
    if client == "current":
        import lbr_trex_client  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        from trex.stl import api as current  # pylint: disable=import-outside-toplevel,import-error
        return current
    sys.path.insert(0, os.path.join(ROOT, ".tmp", "pytest"))
    sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
    import conftest  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from trex_stl_lib import api  # pylint: disable=import-outside-toplevel
    # a crashed subscriber of this client calls os.killpg(os.getppid(), SIGTERM): the group of the test
    # that runs this script; here a lost connection is a failed feature, nothing more
    os.killpg = lambda _pgid, _sig: None
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench import trex_compat  # pylint: disable=import-outside-toplevel
    trex_compat.install()
    return api


class Calls:
    """One client, the features as methods (``f_<name>``); each raises AssertionError when it differs from TRex."""

    def __init__(self, api, generation, rpc, pub):
        self.api = api
        self.generation = generation
        self.rpc, self.pub = rpc, pub
        self.client = self.new_client("bench")

    def new_client(self, user):
        verbose = "error" if self.generation == "current" else self.api.LoggerApi.VERBOSE_QUIET
        return self.api.STLClient(username=user, server="127.0.0.1", sync_port=self.rpc, async_port=self.pub, verbose_level=verbose)

    # ---------------------------------------------------------------- helpers
    def base(self, size=18):
        api = self.api
        return api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12) / (b"x" * size)

    def stream(self, mode, vm=None, flow_stats=None, size=18):
        api = self.api
        return api.STLStream(packet=api.STLPktBuilder(pkt=self.base(size), vm=vm), mode=mode, flow_stats=flow_stats)

    def load(self, *streams, port=0):
        self.client.reset(ports=[0, 1])
        self.client.add_streams(list(streams), ports=[port])
        self.client.clear_stats()

    def counts(self):
        stats = self.client.get_stats()
        return stats[0]["opackets"], stats[1]["ipackets"]

    def run_to_end(self, timeout=30, **start):
        self.client.start(ports=[0], **start)
        self.client.wait_on_traffic(ports=[0], timeout=timeout)
        time.sleep(0.3)
        return self.counts()

    def expect_error(self, call, *args, **kwargs):
        try:
            call(*args, **kwargs)
        except Exception as error:  # pylint: disable=broad-except
            return str(getattr(error, "msg", None) or error)
        raise AssertionError("%s was accepted" % getattr(call, "__name__", call))

    # ---------------------------------------------------------------- features
    def f_connect(self):
        self.client.connect()
        assert self.client.is_connected()
        info = self.client.get_server_system_info()
        assert info["port_count"] >= 2, info
        return "server %s, %d ports" % (self.client.get_server_version().get("version"), info["port_count"])

    def f_reset(self):
        self.client.reset(ports=[0, 1])
        assert sorted(self.client.get_acquired_ports()) == [0, 1]
        return "acquired %s" % self.client.get_acquired_ports()

    def f_rx_caps(self):
        """Each port says what it counts on RX, as TRex's get_system_info does: per pg_id statistics and latency too."""
        ports = self.client.get_server_system_info()["ports"][:2]
        caps = [(port["rx"]["caps"], port["rx"]["counters"]) for port in ports]
        for names, counters in caps:
            assert {"flow_stats", "latency", "rx_bytes"} <= set(names) and counters > 0, caps
        return "rx caps %s, %d counters" % (", ".join(caps[0][0]), caps[0][1])

    def f_map_ports(self):
        """The two ports are wired to each other: each generation's port mapping finds both directions."""
        if self.generation == "old":
            from trex_stl_lib.trex_stl_std import stl_map_ports  # pylint: disable=import-outside-toplevel,import-error
            table = stl_map_ports(self.client, ports=[0, 1])
        else:
            table = self.client.map_ports(ports=[0, 1])
        assert table["map"] == {0: 1, 1: 0} and [tuple(pair) for pair in table["bi"]] == [(0, 1)] and not table["unknown"], table
        return "map %s, bi %s" % (table["map"], table["bi"])

    def f_l3_service_mode(self):
        client = self.client
        client.set_service_mode(ports=[0, 1], enabled=True)
        try:
            unresolved = []
            for port, src, dst in ((0, SRC, DST), (1, DST, SRC)):
                if self.generation == "old":
                    assert client.ports[port].set_l3_mode(src, dst)
                    continue
                # the current client resolves at once: port 0's gateway is port 1, which has no address yet
                try:
                    client.set_l3_mode(port, src, dst)
                except self.api.TRexError:
                    unresolved.append(port)
            if unresolved:
                client.resolve(ports=unresolved)
            deadline = time.time() + 10
            while time.time() < deadline:
                for port in (0, 1):
                    client.ports[port].sync()
                cfgs = [client.ports[port].get_layer_cfg() for port in (0, 1)]
                if all(cfg["ipv4"]["state"] == "resolved" for cfg in cfgs):
                    break
                time.sleep(0.2)
            assert all(cfg["ipv4"]["state"] == "resolved" for cfg in cfgs), cfgs
            assert cfgs[0]["ether"]["dst"] == cfgs[1]["ether"]["src"], cfgs
        finally:
            client.set_service_mode(ports=[0, 1], enabled=False)
        return "port 0 resolved %s to %s" % (DST, cfgs[0]["ether"]["dst"])

    def f_single_burst(self):
        self.load(self.stream(self.api.STLTXSingleBurst(total_pkts=777, pps=5000)))
        sent, received = self.run_to_end()
        assert (sent, received) == (777, 777), (sent, received)
        return "sent %d received %d" % (sent, received)

    def f_multi_burst(self):
        mode = self.api.STLTXMultiBurst(pkts_per_burst=50, count=7, ibg=20000.0, pps=5000)
        self.load(self.stream(mode))
        sent, received = self.run_to_end()
        assert (sent, received) == (350, 350), (sent, received)
        return "sent %d received %d" % (sent, received)

    def f_continuous_mult_strings(self):
        out = []
        for mult, pps in (("4kpps", 4000.0), ("0.002%", 0.00002 * 10e9 / (64 + 20) / 8)):
            self.load(self.stream(self.api.STLTXCont(pps=100)))
            sent, received = self.run_to_end(mult=mult, duration=1.5)
            expected = pps * 1.5
            # never more than asked; less only by what a stalled generator could not send
            assert 0.8 * expected <= sent <= 1.02 * expected, (mult, sent, expected)
            assert received == sent, (mult, sent, received)
            out.append("%s: %d of %d" % (mult, sent, expected))
        return ", ".join(out)

    def f_update(self):
        self.load(self.stream(self.api.STLTXCont(pps=1000)))
        self.client.start(ports=[0], mult="1")
        time.sleep(1.0)
        self.client.update(ports=[0], mult="4")
        time.sleep(0.2)
        before, started = self.counts()[0], time.monotonic()
        time.sleep(1.0)
        after, ended = self.counts()[0], time.monotonic()
        self.client.stop(ports=[0])
        # the reads take time of their own: the span between them bounds the rate from both sides
        rate = (after - before) / (ended - started)
        assert 2800 <= rate <= 4000 * 1.05, rate
        return "%.0f frames/s after update x4 of 1,000" % rate

    def f_pause_resume(self):
        self.load(self.stream(self.api.STLTXCont(pps=10000)))
        client = self.client
        client.start(ports=[0])
        time.sleep(0.5)
        client.pause(ports=[0])
        paused = self.counts()[0]
        time.sleep(0.7)
        still = self.counts()[0]
        assert still == paused, "%d frames after pause" % (still - paused)
        client.resume(ports=[0])
        time.sleep(0.5)
        resumed = self.counts()[0]
        client.stop(ports=[0])
        assert resumed > still + 1000, (still, resumed)
        return "paused at %d, %d after 0.7 s, %d after resume" % (paused, still, resumed)

    def captured(self, run, layer, limit=1000):
        """The frames with ``layer`` port 1 captured while ``run()`` ran (the client's capture, in service mode), dissected
        (the kernel's own frames on the wire, an IPv6 router solicitation, are left out)."""
        client = self.client
        client.set_service_mode(ports=[1], enabled=True)
        try:
            capture = client.start_capture(rx_ports=[1], limit=limit)
            run()
            packets = []
            client.stop_capture(capture["id"], output=packets)
        finally:
            client.set_service_mode(ports=[1], enabled=False)
        return [frame for frame in (self.api.Ether(pkt["binary"]) for pkt in packets) if layer in frame]

    def checksum_right(self, frame):
        """The frame's (outermost) IPv4 header checksum is what scapy computes."""
        header = self.api.IP(bytes(frame[self.api.IP]))
        sent_checksum = header.chksum
        del header.chksum
        return self.api.IP(bytes(header)).chksum == sent_checksum

    def f_field_engine(self):
        api = self.api
        vm = api.STLScVmRaw([api.STLVmFlowVar(name="src", min_value="16.0.0.1", max_value="16.0.0.100", size=4, op="inc"),
                             api.STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
                             api.STLVmFixIpv4(offset="IP")])
        self.load(self.stream(api.STLTXSingleBurst(total_pkts=300, pps=3000), vm=vm))
        frames = self.captured(self.run_to_end, api.UDP)
        sources = set()
        for frame in frames:
            sources.add(frame[api.IP].src)
            assert self.checksum_right(frame), "bad IPv4 checksum from %s" % frame[api.IP].src
        assert len(sources) == 100, sorted(sources)[:5]
        return "%d captured, %d distinct sources" % (len(frames), len(sources))

    # ------------------------------------------------- profiles in TRex's format (profiles/)
    def load_profile(self, name, **tunables):
        """``profiles/<name>.py`` loaded as ``start -f <name>.py -t ...`` loads it, its streams on port 0."""
        profile = self.api.STLProfile.load_py(os.path.join(PROFILES, name + ".py"), direction=0, port_id=0, **tunables)
        self.load(*profile.get_streams())

    def f_profile_imix(self):
        """TRex's IMIX at mult 2: each stream's rate doubled, the mix's sizes in its proportions, every source once."""
        self.load_profile("imix", pps=140, flows=50)
        frames = self.captured(lambda: self.run_to_end(duration=2.0, mult="2"), self.api.UDP, limit=2000)
        sent, received = self.counts()
        # 140, 80 and 20 pps, doubled, for 2 s: 960 frames
        assert 0.85 * 960 <= sent <= 1.02 * 960 and received == sent, (sent, received)
        sizes = sorted({len(frame) + 4 for frame in frames})
        mean = self.client.get_stats()[0]["obytes"] / float(sent)
        assert sizes == [64, 594, 1518] and abs(mean - (28 * 64 + 16 * 594 + 4 * 1518) / 48.0) < 0.05 * 361.8, (sizes, mean)
        sources = {frame[self.api.IP].src for frame in frames}
        assert len(sources) == 50 and all(self.checksum_right(frame) for frame in frames), len(sources)
        return "sent %d received %d, %.1f B a frame, sizes %s, %d sources" % (sent, received, mean, sizes, len(sources))

    def f_profile_vxlan(self):
        """A burst of 17 VXLAN packets, the VNI a tunable: 17 sent, 17 received, each with that VNI and its inner frame."""
        from scapy.layers.vxlan import VXLAN  # pylint: disable=import-outside-toplevel
        self.load_profile("udp_1pkt_vxlan", vni=7)
        frames = self.captured(self.run_to_end, VXLAN)
        assert self.counts() == (17, 17) and len(frames) == 17, (self.counts(), len(frames))
        assert all(frame[VXLAN].vni == 7 and frame[self.api.UDP].dport == 4789 and self.api.IP in frame[VXLAN].payload for frame in frames)
        return "17 VXLAN frames of VNI 7, inner %s" % frames[0][VXLAN].payload.summary()

    def f_profile_mpls(self):
        """Two MPLS labels before IPv4 at 500 pps for 1 s: the label stack and the inner packet arrive as sent."""
        from scapy.contrib.mpls import MPLS  # pylint: disable=import-outside-toplevel
        self.load_profile("udp_1pkt_mpls", pps=500)
        frames = self.captured(lambda: self.run_to_end(duration=1.0), MPLS)
        sent, received = self.counts()
        assert 0.85 * 500 <= sent <= 1.02 * 500 and received == sent == len(frames), (sent, received, len(frames))
        first = frames[0]
        labels = [(first[MPLS].label, first[MPLS].s, first[MPLS].ttl), (first[MPLS].payload.label, first[MPLS].payload.s, first[MPLS].payload.ttl)]
        inner = self.api.IP(bytes(first[MPLS].payload.payload))
        assert labels == [(17, 0, 255), (0, 1, 12)] and (inner.src, inner.dst) == ("16.0.0.1", "48.0.0.1"), (labels, inner.summary())
        return "sent %d received %d, labels %s" % (sent, received, labels)

    def f_profile_tuple_gen(self):
        """The tuple generator over 5 clients x 3 ports at 128 bytes: 15 frames, every (address, port) pair once."""
        api = self.api
        self.load_profile("udp_1pkt_tuple_gen", clients=5, ports=3, size=128)
        frames = self.captured(self.run_to_end, api.UDP)
        pairs = sorted((frame[api.IP].src, frame[api.UDP].sport) for frame in frames)
        expected = sorted(("16.0.0.%d" % client, 1025 + port) for client in range(1, 6) for port in range(3))
        assert self.counts() == (15, 15) and pairs == expected, (self.counts(), pairs)
        assert all(len(frame) + 4 == 128 and self.checksum_right(frame) for frame in frames)
        return "15 frames, pairs %s .. %s" % (pairs[0], pairs[-1])

    def f_profile_latency(self):
        """A flow-stats stream and a latency stream of one profile: both packet groups counted, the latency measured."""
        self.load_profile("udp_1pkt_latency", pps=1000, pg_id=12)
        self.run_to_end(duration=1.0)
        stats = self.client.get_pgid_stats([12, 13])
        flow, latency = stats["flow_stats"][12], stats["latency"][13]["latency"]
        assert 0.85 * 1000 <= flow["tx_pkts"][0] == flow["rx_pkts"][1], flow
        assert stats["flow_stats"][13]["rx_pkts"][1] >= 0.95 * stats["flow_stats"][13]["tx_pkts"][0] > 0, stats["flow_stats"][13]
        assert 0 < latency["average"] < 1e6, latency
        return "pg_id 12: %d frames; pg_id 13: average %.0f us" % (flow["rx_pkts"][1], latency["average"])

    def f_flow_stats(self):
        api = self.api
        self.load(self.stream(api.STLTXSingleBurst(total_pkts=500, pps=5000), flow_stats=api.STLFlowStats(pg_id=7)))
        self.run_to_end()
        stats = self.client.get_pgid_stats([7])["flow_stats"][7]
        tx, rx = stats["tx_pkts"][0], stats["rx_pkts"][1]
        assert (tx, rx) == (500, 500), stats
        return "pg_id 7: tx %d rx %d" % (tx, rx)

    def f_latency_stats(self):
        api = self.api
        self.load(self.stream(api.STLTXCont(pps=1000), flow_stats=api.STLFlowLatencyStats(pg_id=8)))
        self.run_to_end(duration=1.0)
        stats = self.client.get_pgid_stats([8])
        latency = stats["latency"][8]["latency"]
        flow = stats["flow_stats"][8]
        assert flow["rx_pkts"][1] >= 0.95 * flow["tx_pkts"][0] > 0, flow
        assert 0 < latency["average"] < 1e6 and latency["total_max"] >= latency["average"], latency
        assert stats["latency"][8]["err_cntrs"]["dropped"] <= 0.05 * flow["tx_pkts"][0], stats["latency"][8]["err_cntrs"]
        return "pg_id 8: %d frames, average %.0f us, max %d us" % (flow["rx_pkts"][1], latency["average"], latency["total_max"])

    def f_second_client(self):
        other = self.new_client("intruder")
        other.connect()
        try:
            refused = self.expect_error(other.acquire, ports=[0])
            assert "bench" in refused, refused
            other.acquire(ports=[0], force=True)
            deadline = time.time() + 5
            while 0 in self.client.get_acquired_ports() and time.time() < deadline:
                time.sleep(0.1)
            assert 0 not in self.client.get_acquired_ports(), "the first client was not told"
            other.release(ports=[0])
        finally:
            other.disconnect()
        self.client.acquire(ports=[0], force=True)
        return "refused: %s; forced, and the first client let go of port 0" % refused.strip().splitlines()[-1]

    def f_bad_rates(self):
        api = self.api
        self.client.reset(ports=[0, 1])
        negative = self.expect_error(self.client.add_streams, self.stream(api.STLTXCont(pps=-5)), ports=[0])
        self.client.reset(ports=[0, 1])
        try:
            zero_stream = self.stream(api.STLTXCont(pps=0))
        except Exception as error:  # pylint: disable=broad-except
            return "negative: %s; zero refused by the client: %s" % (negative.strip().splitlines()[-1], error)
        self.client.add_streams(zero_stream, ports=[0])
        zero = self.expect_error(self.client.start, ports=[0])
        assert "positive" in zero, zero
        return "negative: %s; zero: %s" % (negative.strip().splitlines()[-1], zero.strip().splitlines()[-1])

    def f_bad_ports(self):
        refused = self.expect_error(self.client.start, ports=[7])
        return "port 7: %s" % refused.strip().splitlines()[-1]

    def f_long_trial(self):
        """A trial of 4 s at 2 kpps (the starvation test loads the machine meanwhile)."""
        self.load(self.stream(self.api.STLTXCont(pps=100)))
        sent, _received = self.run_to_end(mult="2kpps", duration=4)
        assert self.client.is_connected() and sent > 0, sent
        return "sent %d, still connected" % sent

    def f_disconnect(self):
        assert self.client.is_connected()
        self.client.disconnect()
        return "disconnected"


FEATURES = ("connect", "rx_caps", "reset", "map_ports", "l3_service_mode", "single_burst", "multi_burst", "continuous_mult_strings", "update",
            "pause_resume", "field_engine", "profile_imix", "profile_vxlan", "profile_mpls", "profile_tuple_gen", "profile_latency",
            "flow_stats", "latency_stats", "second_client", "bad_rates", "bad_ports", "disconnect")


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--client", choices=("old", "current"), required=True)
    parser.add_argument("--rpc", type=int, required=True)
    parser.add_argument("--pub", type=int, required=True)
    parser.add_argument("--features", default=",".join(FEATURES))
    args = parser.parse_args(argv)
    calls = Calls(load(args.client), args.client, args.rpc, args.pub)
    for name in args.features.split(","):
        try:
            detail, ok = getattr(calls, "f_" + name)(), True
        except Exception as error:  # pylint: disable=broad-except
            detail, ok = "%s: %s\n%s" % (type(error).__name__, getattr(error, "msg", None) or error, traceback.format_exc()), False
        print(json.dumps({"feature": name, "ok": ok, "detail": detail}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
