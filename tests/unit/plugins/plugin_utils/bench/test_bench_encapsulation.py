"""trex_bench's encapsulations: the frames read back by scapy's dissectors, the field engine's frames
(softgen's) with every checksum right and inner and outer flows in step, and the option's refusals."""
import ipaddress

import pytest
from scapy.contrib.geneve import GENEVE
from scapy.contrib.mpls import MPLS
from scapy.layers.inet import GRE, IP, TCP, UDP
from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
from scapy.layers.vxlan import VXLAN

from ansible_collections.offload.testbed.extensions.softgen.fieldengine import Program
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import headers
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import profile as bp
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec

from test_bench_spec import validate


def checked(encapsulation, **task):
    """``spec.check``'s args for ``encapsulation`` (errors must be none)."""
    refused, args, errors = validate(dict({"results_dir": "/tmp/r", "encapsulation": encapsulation, "frame_sizes": [128]}, **task))
    assert refused == [] and errors == []
    return args


def _recomputed(packet, layer, index):
    copy = packet.copy()
    copy.getlayer(layer, index).chksum = None
    return Ether(bytes(copy)).getlayer(layer, index).chksum


@pytest.mark.parametrize("protocol", ["udp", "tcp"])
def test_a_vxlan_frame_is_what_scapy_reads_as_vxlan_with_the_scenario_outside_and_the_inner_packet_inside(protocol):
    args = checked({"type": "vxlan"}, protocol=protocol)
    streams = bp.build_streams(args, 128, 1)
    frame = Ether(streams[0]["frame"])
    assert len(streams[0]["frame"]) == 124 and args["encapsulation"] == {
        "type": "vxlan", "vni": 99, "udp_port": 4789, "inner_src_base": "172.16.0.1", "inner_dst_base": "172.17.0.1", "outer_flows": True}
    assert (frame[IP].src, frame[IP].dst, frame[IP].proto, frame[UDP].dport, frame[UDP].sport, frame[UDP].chksum) == (
        "16.0.0.1", "48.0.0.1", 17, 4789, 49152, 0)
    assert frame[VXLAN].vni == 99 and frame[VXLAN].flags == 0x08
    inner = frame[VXLAN].payload
    assert isinstance(inner, Ether) and (inner.src, inner.dst) == ("02:00:00:00:00:01", "02:00:00:00:00:02")
    assert (inner[IP].src, inner[IP].dst, inner[IP].len) == ("172.16.0.1", "172.17.0.1", 124 - 50 - 14)
    l4 = inner[TCP] if protocol == "tcp" else inner[UDP]
    assert (l4.sport, l4.dport) == (1025, 5001)
    assert _recomputed(frame, IP, 1) == frame[IP].chksum and _recomputed(frame, IP, 2) == inner[IP].chksum
    assert _recomputed(frame, TCP if protocol == "tcp" else UDP, 1 if protocol == "tcp" else 2) == l4.chksum


def test_a_geneve_frame_is_what_scapy_reads_as_geneve_carrying_ethernet():
    args = checked({"type": "geneve", "vni": 5000})
    frame = Ether(bp.build_streams(args, 128, 1)[0]["frame"])
    assert frame[UDP].dport == 6081 and frame[GENEVE].vni == 5000 and frame[GENEVE].proto == 0x6558 and frame[GENEVE].optionlen == 0
    assert frame[GENEVE].payload[IP].src == "172.16.0.1" and frame[GENEVE].payload[UDP].dport == 5001


def test_an_mpls_over_gre_frame_carries_one_label_then_the_inner_ipv4_packet():
    args = checked({"type": "mplsogre", "label": 1000})
    frame = Ether(bp.build_streams(args, 128, 1)[0]["frame"])
    assert frame[IP].proto == 47 and frame[GRE].proto == 0x8847 and frame[GRE].chksum_present == 0
    label = frame[MPLS]
    assert (label.label, label.s, label.ttl) == (1000, 1, 64)
    inner = IP(bytes(label.payload))
    assert (inner.src, inner.dst, inner.len) == ("172.16.0.1", "172.17.0.1", 124 - 14 - 20 - 8)
    assert args["encapsulation"] == {"type": "mplsogre", "label": 1000, "inner_src_base": "172.16.0.1", "inner_dst_base": "172.17.0.1",
                                     "outer_flows": True}


def test_a_qinq_frame_has_the_s_tag_before_the_c_tag_and_the_scenario_s_packet():
    args = checked({"type": "qinq", "s_vlan": 100}, vlan=200, frame_sizes=[64, "imix"])
    frame = Ether(bp.build_streams(args, 64, 1)[0]["frame"])
    assert frame.type == 0x88A8 and frame[Dot1AD].vlan == 100 and frame[Dot1Q].vlan == 200
    assert frame[IP].src == "16.0.0.1" and len(bytes(frame)) == 60 and args["encapsulation"] == {"type": "qinq", "s_vlan": 100}


def _frames(stream, count):
    """The first ``count`` frames softgen's field engine makes of a stream (the program as the client sends it)."""
    program = {"instructions": []}
    for ins in stream["vm"]:
        if ins["type"] == "flow_var":
            program["instructions"].append({"type": "flow_var", "name": ins["name"], "size": ins["size"], "op": ins["op"],
                                            "init_value": ins["min"], "min_value": ins["min"], "max_value": ins["max"]})
        elif ins["type"] == "write":
            program["instructions"].append({"type": "write_flow_var", "name": ins["name"], "pkt_offset": ins["offset"]})
        elif ins["type"] == "fix_checksum_ipv4":
            program["instructions"].append({"type": "fix_checksum_ipv4", "pkt_offset": ins["offset"]})
        else:
            program["instructions"].append({"type": "fix_checksum_hw", "l2_len": ins["l3_offset"], "l3_len": ins["l4_offset"] - ins["l3_offset"],
                                            "l4_type": ins["l4_type"]})
    return Program(program, len(stream["frame"])).frames(stream["frame"], 0, count)


@pytest.mark.parametrize("kind", ["vxlan", "geneve", "mplsogre"])
@pytest.mark.parametrize("protocol", ["udp", "tcp"])
def test_the_field_engine_varies_inner_and_outer_flows_in_step_with_every_checksum_right(kind, protocol):
    args = checked({"type": kind}, protocol=protocol, flows=100)
    stream = bp.build_streams(args, 256, 100)[0]
    frames = [Ether(frame) for frame in _frames(stream, 101)]
    inner_l3 = IP if kind != "mplsogre" else None
    for index, frame in enumerate(frames[:100]):
        inner = frame.getlayer(IP, 2) if inner_l3 else IP(bytes(frame[MPLS].payload))
        assert frame[IP].src == "16.0.0.%d" % (index + 1) and inner.src == "172.16.0.%d" % (index + 1)
        assert _recomputed(frame, IP, 1) == frame[IP].chksum
        inner_l4 = inner[TCP] if protocol == "tcp" else inner[UDP]
        fresh = inner.copy()
        fresh[TCP if protocol == "tcp" else UDP].chksum = None
        fresh[IP].chksum = None
        assert IP(bytes(fresh)).chksum == inner.chksum and (IP(bytes(fresh))[TCP if protocol == "tcp" else UDP].chksum == inner_l4.chksum)
        if kind != "mplsogre":
            assert frame[UDP].sport == 49152 + index and frame[UDP].chksum == 0
    assert frames[100][IP].src == "16.0.0.1"


def test_one_tunnel_keeps_the_outer_header_and_varies_the_inner_packet_and_the_entropy_port():
    args = checked({"type": "vxlan", "outer_flows": False}, flows=20000)
    stream = bp.build_streams(args, 128, 20000)[0]
    assert [ins["name"] for ins in stream["vm"] if ins["type"] == "flow_var"] == ["inner_src", "entropy"]
    assert not [ins for ins in stream["vm"] if ins["type"] == "fix_checksum_ipv4"]
    frames = [Ether(frame) for frame in _frames(stream, 16385)]
    assert {frame[IP].src for frame in frames} == {"16.0.0.1"}
    assert frames[16383][UDP].sport == 65535 and frames[16384][UDP].sport == 49152
    assert frames[16384].getlayer(IP, 2).src == str(ipaddress.IPv4Address("172.16.0.1") + 16384)


def test_the_reverse_direction_swaps_the_inner_addresses_too():
    args = checked({"type": "geneve"}, direction="bidir")
    forward, reverse = (Ether(stream["frame"]) for stream in bp.build_streams(args, 128, 1))
    assert (reverse[IP].src, reverse.getlayer(IP, 2).src, reverse.getlayer(IP, 2).dst) == (forward[IP].dst, "172.17.0.1", "172.16.0.1")


def test_the_latency_frame_is_tunnelled_with_room_for_the_trailer():
    args = checked({"type": "vxlan"}, frame_sizes=[96])
    frame = bp.build_latency_frame(args, 96)
    assert Ether(frame)[VXLAN].vni == 99 and len(frame) + bp.FCS == 96 + bp.LATENCY_TRAILER


def test_the_profile_records_the_encapsulation_and_plain_runs_keep_their_fingerprint():
    plain = checked(None)
    assert "encapsulation" not in bp.profile(plain, 128) and bp.fingerprint(plain) == bp.fingerprint(dict(plain, encapsulation=None))
    tunnelled = checked({"type": "vxlan"})
    assert bp.profile(tunnelled, 128)["encapsulation"]["vni"] == 99 and bp.fingerprint(tunnelled) != bp.fingerprint(plain)


@pytest.mark.parametrize("task, needle", [
    ({"encapsulation": {"type": "vxlan"}, "frame_sizes": [64, 95]},
     "frame_sizes: 64, 95 too small for udp in vxlan (the smallest frame is 96 bytes with FCS); give sizes of 96 bytes or more"),
    ({"encapsulation": {"type": "vxlan"}, "frame_sizes": ["imix"]}, "(imix has 64-byte frames)"),
    ({"encapsulation": {"type": "mplsogre"}, "protocol": "tcp", "frame_sizes": [80]}, "too small for tcp in mplsogre (the smallest frame is 86 bytes"),
    ({"encapsulation": {"type": "vxlan", "vni": 16777216}}, "encapsulation.vni: 16777216 is outside 0..16777215 (24 bits), the vxlan network identifier"),
    ({"encapsulation": {"type": "geneve", "udp_port": 0}}, "encapsulation.udp_port: 0"),
    ({"encapsulation": {"type": "mplsogre", "label": 3}}, "encapsulation.label: 3 is outside 16..1048575"),
    ({"encapsulation": {"type": "vxlan", "inner_dst_base": "172.17.0"}}, "encapsulation.inner_dst_base: '172.17.0' is not an IPv4 address"),
    ({"encapsulation": {"type": "qinq"}}, "encapsulation.s_vlan: qinq needs the S-tag's VLAN ID"),
    ({"encapsulation": {"type": "qinq", "s_vlan": 100}}, "vlan: qinq needs the C-tag"),
    ({"encapsulation": {"type": "qinq", "s_vlan": 4095}, "vlan": 3}, "encapsulation.s_vlan: 4095 is outside 1..4094"),
    ({"encapsulation": {"type": "qinq", "s_vlan": 5, "vni": 7}, "vlan": 3}, "encapsulation: vni is not used by qinq; drop it"),
    ({"encapsulation": {"type": "vxlan"}, "generator": "testpmd", "testpmd": {"tx_interface": "a", "rx_interface": "b"}, "flows": 1},
     "encapsulation: vxlan is not supported by generator testpmd"),
])
def test_a_bad_encapsulation_is_refused_naming_the_option(task, needle):
    refused, _args, errors = validate(dict({"results_dir": "/tmp/r", "frame_sizes": [128]}, **task))
    assert refused == [] and any(needle in error for error in errors), errors


def test_the_smallest_frames_are_those_of_the_headers():
    assert [headers.smallest_frame("udp", None, {"type": kind}) for kind in ("vxlan", "geneve", "mplsogre")] == [96, 96, 74]
    assert headers.smallest_frame("tcp", 5, {"type": "qinq", "s_vlan": 1}) == 14 + 8 + 20 + 20 + 4
    assert spec.MIN_FRAME == 64
