"""softgen's software field engine: the frames it precomputes for a VM program."""
import struct

import pytest

from softgen.fieldengine import FieldEngineError, Program, build_ring, inet_checksum, ipv4_checksum, l4_checksum

PKT = bytes.fromhex("ffffffffffff00000000000008004500002e000100004011" + "0000" + "10000001" + "30000001"
                    + "04010000001a0000") + b"x" * 18


def var(name="v", size=4, op="inc", vmin=0x10000001, vmax=0x100003E8, step=1, init=None):
    return {"type": "flow_var", "name": name, "size": size, "op": op, "init_value": vmin if init is None else init,
            "min_value": vmin, "max_value": vmax, "step": step}


def write(name="v", offset=26, add=0, big=True):
    return {"type": "write_flow_var", "name": name, "pkt_offset": offset, "add_value": add, "is_big_endian": big}


def reference_ipv4_checksum(header):
    header = header[:10] + b"\0\0" + header[12:]
    total = sum(struct.unpack("!10H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def test_inc_over_1000_sources_with_checksum():
    ring = build_ring(PKT, {"instructions": [var(), write(), {"type": "fix_checksum_ipv4", "pkt_offset": 14}]})
    assert len(ring) == 1000
    sources = [struct.unpack_from("!I", f, 26)[0] for f in ring]
    assert sources == list(range(0x10000001, 0x100003E9))
    for frame in (ring[0], ring[500], ring[999]):
        assert struct.unpack_from("!H", frame, 24)[0] == reference_ipv4_checksum(frame[14:34])


def test_dec_step_and_wrap():
    prog = Program({"instructions": [var(size=1, op="dec", vmin=10, vmax=14, init=12, step=2), write(offset=30)]}, len(PKT))
    ring = prog.build(PKT)
    assert [f[30] for f in ring] == [12, 10, 13, 11, 14]


def test_random_is_bounded_and_capped():
    ring = build_ring(PKT, {"instructions": [var(size=2, op="random", vmin=100, vmax=200), write(offset=34)]}, cap=256, seed=5)
    values = [struct.unpack_from("!H", f, 34)[0] for f in ring]
    assert len(ring) == 256 and all(100 <= v <= 200 for v in values) and len(set(values)) > 50


def test_add_value_little_endian_and_mask():
    prog = {"instructions": [var(size=2, vmin=1, vmax=3), write(offset=34, add=0x100, big=False),
                             {"type": "write_mask_flow_var", "name": "v", "pkt_offset": 36, "pkt_cast_size": 1, "mask": 0x0F,
                              "shift": 0, "add_value": 0, "is_big_endian": True}]}
    ring = build_ring(PKT, prog)
    assert [struct.unpack_from("<H", f, 34)[0] for f in ring] == [0x101, 0x102, 0x103]
    assert [f[36] for f in ring] == [(PKT[36] & 0xF0) | v for v in (1, 2, 3)]


def test_tuple_var_and_lcm_cycle():
    tup = {"type": "tuple_flow_var", "name": "t", "ip_min": 0x10000001, "ip_max": 0x10000003, "port_min": 1025,
           "port_max": 1026, "limit_flows": 0, "flags": 0}
    ring = build_ring(PKT, {"instructions": [tup, write("t.ip", 26), write("t.port", 34)]})
    pairs = [(struct.unpack_from("!I", f, 26)[0] & 0xFF, struct.unpack_from("!H", f, 34)[0]) for f in ring]
    assert pairs == [(1, 1025), (2, 1025), (3, 1025), (1, 1026), (2, 1026), (3, 1026)]
    prog = Program({"instructions": [var("a", 1, vmin=0, vmax=3), var("b", 1, vmin=0, vmax=5), write("a", 30), write("b", 31)]},
                   len(PKT))
    assert prog.cycle(10000) == 12


def reference_udp_sum(frame, l3=14, l4=34):
    """The ones' complement sum of a UDP datagram over IPv4 with its pseudo header: 0xFFFF when its checksum is right."""
    src, dst = frame[l3 + 12:l3 + 16], frame[l3 + 16:l3 + 20]
    udp = bytes(frame[l4:]) + b"\0" * (len(frame[l4:]) % 2)
    pseudo = bytes(src + dst) + struct.pack("!BBH", 0, 17, len(frame) - l4)
    total = sum(struct.unpack("!%dH" % ((len(pseudo) + len(udp)) // 2), pseudo + udp))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def test_udp_checksum_in_software():
    frame = bytearray(PKT)
    l4_checksum(frame, 14, 34, 11)
    assert reference_udp_sum(frame) == 0xFFFF  # a correct checksum sums to all ones
    header = bytearray(frame[14:34])
    ipv4_checksum(header, 0)
    assert struct.unpack_from("!H", header, 10)[0] == reference_ipv4_checksum(bytes(header))


@pytest.mark.parametrize("vm", [
    {"instructions": [write("missing")]},
    {"instructions": [var(size=3)]},
    {"instructions": [var(size=1, vmax=300)]},
    {"instructions": [var(), write(offset=58)]},
    {"instructions": [{"type": "no_such_instruction"}]},
    {"instructions": "nope"},
])
def test_bad_programs_are_rejected(vm):
    with pytest.raises(FieldEngineError):
        Program(vm, len(PKT))


def test_inet_checksum_is_rfc_1071s_example():
    """RFC 1071, 3. Numerical Examples: the ones' complement sum of 00 01 f2 03 f4 f5 f6 f7 is ddf2; the checksum its complement."""
    assert inet_checksum(bytes.fromhex("0001f203f4f5f6f7")) == 0xFFFF - 0xDDF2 == 0x220D
    assert inet_checksum(bytes.fromhex("0001f203f4f5f6")) == inet_checksum(bytes.fromhex("0001f203f4f5f600"))
