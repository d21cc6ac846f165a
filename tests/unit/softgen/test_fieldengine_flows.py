"""softgen's field engine past its ring: a million flows in order over one period, checksums right, small programs as before."""
import os
import struct

import pytest

from softgen import fastio
from softgen.fieldengine import DEFAULT_RING_CAP, FlowCycle, NotPatchable, Patcher, Program, build_ring, build_source
from softgen.portworker import NullRing

# the lo_rx fixture of test_fastio, used by name
from test_fastio import ETH_P_LOCAL, fixture_lo_rx, receive  # noqa: F401  # pylint: disable=unused-import
from test_fieldengine import PKT, reference_ipv4_checksum, reference_udp_sum, var, write

MILLION = 1 << 20
SRC = 0x10000001


def flows_vm(flows, *extra):
    """The bench's program (profile.build_vm in the client's form): the source over ``flows`` addresses, the checksums fixed."""
    return {"instructions": [var(vmin=SRC, vmax=SRC + flows - 1), write()] + list(extra)
            + [{"type": "fix_checksum_hw", "l2_len": 14, "l3_len": 20, "l4_type": 11}]}


def source_of(frame):
    return struct.unpack_from("!I", frame, 26)[0]


def assert_checksums(frame):
    assert struct.unpack_from("!H", frame, 24)[0] == reference_ipv4_checksum(frame[14:34])
    assert reference_udp_sum(frame) == 0xFFFF


def test_a_million_flows_come_in_order_over_one_period_with_right_checksums():
    frames, cycle = build_source(PKT, flows_vm(MILLION))
    assert len(frames) == DEFAULT_RING_CAP and cycle.period == MILLION and cycle.patcher is not None
    seen, previous = set(), SRC - 1
    in_order = True
    for _chunk in range(MILLION // DEFAULT_RING_CAP):
        chunk = cycle.take(DEFAULT_RING_CAP)
        sources = [source_of(frame) for frame in chunk]
        in_order = in_order and sources == list(range(previous + 1, previous + 1 + len(sources)))
        previous = sources[-1]
        seen.update(sources)
        for frame in chunk[::4099]:
            assert_checksums(frame)
    assert in_order and len(seen) == MILLION and min(seen) == SRC and max(seen) == SRC + MILLION - 1
    # round and round: the period starts again
    assert source_of(cycle.take(1)[0]) == SRC


def test_the_patched_frames_are_the_generic_frames():
    vm = flows_vm(MILLION, var("d", size=2, vmin=7, vmax=11), write("d", offset=31, big=False), var("t", size=1, vmin=60, vmax=64),
                  write("t", offset=22, add=1))
    program = Program(vm, len(PKT))
    patcher = Patcher(program, PKT)
    for start in (0, 123457, MILLION - 50):
        assert patcher.frames(program.columns(100, start), 100) == program.frames(PKT, start, 100)
    assert all(reference_udp_sum(frame) == 0xFFFF for frame in patcher.frames(program.columns(64, 99), 64))


@pytest.mark.parametrize("instructions", [
    [var(), write(), {"type": "fix_checksum_ipv4", "pkt_offset": 14}, write()],
    [var(), write(offset=24), {"type": "fix_checksum_ipv4", "pkt_offset": 14}],
    [var(size=1, vmin=0x40, vmax=0x4F), write(offset=14), {"type": "fix_checksum_ipv4", "pkt_offset": 14}],
    [var(), {"type": "write_mask_flow_var", "name": "v", "pkt_offset": 26, "pkt_cast_size": 4, "mask": 0xFF, "shift": 0}],
])
def test_what_the_patcher_cannot_build_is_refused_and_built_the_generic_way(instructions):
    program = Program({"instructions": instructions}, len(PKT))
    with pytest.raises(NotPatchable):
        Patcher(program, PKT)
    cycle = FlowCycle(program, PKT, 10)
    assert cycle.patcher is None and cycle.peek(5) == program.frames(PKT, 0, 5)


def test_a_program_within_the_ring_keeps_its_ring():
    for flows in (1000, DEFAULT_RING_CAP):
        frames, cycle = build_source(PKT, flows_vm(flows))
        assert cycle is None and frames == build_ring(PKT, flows_vm(flows)) and len(frames) == flows
    # random sources are drawn for the ring as before, not streamed
    frames, cycle = build_source(PKT, {"instructions": [var(op="random"), write()]}, cap=256, seed=3)
    assert cycle is None and len(frames) == 256


def test_a_smaller_ring_streams_what_it_cannot_hold():
    frames, cycle = build_source(PKT, flows_vm(1000), cap=64)
    assert len(frames) == 64 and cycle.period == 1000
    sources = [source_of(frame) for _lap in range(16) for frame in cycle.take(125)]
    assert sources == [SRC + k % 1000 for k in range(2000)]


def test_frames_not_sent_come_again_first():
    _frames, cycle = build_source(PKT, flows_vm(100000))
    first = cycle.peek(8)
    cycle.advance(3)
    assert cycle.peek(5) == first[3:]


def test_the_null_port_builds_the_cycles_frames_as_it_sends():
    frames, cycle = build_source(PKT, flows_vm(MILLION), cap=1024)
    ring = NullRing(frames)
    ring.cycle = cycle
    sent = sum(ring.send(-1, fastio.MAX_BATCH)[0] for _i in range(10))
    assert sent == 10 * fastio.MAX_BATCH and cycle.position == sent


def counting_cycle(marker, flows, ring_frames):
    """A FlowCycle of loopback frames (test_fastio's: the local ethertype, ``marker``) whose bytes 20..23 count 0..flows-1."""
    frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + ETH_P_LOCAL.to_bytes(2, "big") + marker + bytes(40)
    program = Program({"instructions": [var(vmin=0, vmax=flows - 1), write(offset=20)]}, len(frame))
    return program.frames(frame, 0, ring_frames), FlowCycle(program, frame, ring_frames)


def counts_of(frames):
    return [struct.unpack_from("!I", frame, 20)[0] for frame in frames]


@pytest.mark.skipif(os.geteuid() != 0, reason="AF_PACKET needs CAP_NET_RAW")
@pytest.mark.parametrize("mode", ["ring", "sendmmsg"])
def test_the_rings_send_the_cycle_in_order_past_their_slots(lo_rx, mode):
    marker = os.urandom(6)
    frames, cycle = counting_cycle(marker, 100, 16)
    sock = fastio.open_tx_socket("lo")
    ring = fastio.TxRing("lo", frames) if mode == "ring" else fastio.FrameRing(frames)
    ring.cycle = cycle
    try:
        sent = 0
        while sent < 250:
            sent += ring.send(sock.fileno(), min(7, 250 - sent))[0]
        assert counts_of(receive(lo_rx, marker, sent)) == [k % 100 for k in range(250)]
    finally:
        getattr(ring, "close", lambda: None)()
        sock.close()
