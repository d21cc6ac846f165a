# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""trex_compat: trex-stl-lib 0.3 resolves named offsets under upstream scapy as the current
client does under TRex's patched scapy (that one runs in a subprocess, current_trex_client.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import json
import os
import subprocess
import sys
import types

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import trex, trex_compat

api = pytest.importorskip("trex_stl_lib.api")
builder_module = pytest.importorskip("trex_stl_lib.trex_stl_packet_builder_scapy")
scapy_all = pytest.importorskip("scapy.all")
vxlan = pytest.importorskip("scapy.layers.vxlan")

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "current_trex_client.py")
HAS_CURRENT_CLIENT = importlib.util.find_spec("lbr_trex_client") is not None
needs_current_client = pytest.mark.skipif(not HAS_CURRENT_CLIENT, reason="the current TRex client (pip install lbr-trex-client) is not installed")
needs_upstream_scapy = pytest.mark.skipif(trex_compat.scapy_sets_offsets(builder_module.Packet), reason="this scapy sets _offset itself")


def ether():
    """An Ethernet header with both addresses (scapy would look the destination up: ARP or ND on this machine's network)."""
    return scapy_all.Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def packets():
    """name -> (packet, {field: (offset, size)}, {layer: offset}); the offsets counted by hand."""
    sa = scapy_all
    return {
        "ether-ip-udp": (ether() / sa.IP(src="16.0.0.1", dst="48.0.0.1") / sa.UDP(sport=1025, dport=5001) / (b"x" * 18),
                         {"IP.src": (26, 4), "IP.dst": (30, 4), "IP.len": (16, 2), "IP.version": (14, 0), "IP.ihl": (14, 0),
                          "IP.tos": (15, 1), "IP:0.ttl": (22, 1), "UDP.dport": (36, 2), "Ether.type": (12, 2)},
                         {"Ethernet": 0, "IP": 14, "UDP": 34}),
        "ether-dot1q-ip-tcp": (ether() / sa.Dot1Q(vlan=20) / sa.IP(src="16.0.0.1") / sa.TCP(flags="A") / (b"x" * 6),
                               {"802|1Q.prio": (14, 0), "802|1Q.vlan": (14, 0), "802|1Q.type": (16, 2), "IP.src": (30, 4),
                                "TCP.dport": (40, 2), "TCP.dataofs": (50, 0), "TCP.flags": (50, 0), "TCP.window": (52, 2)},
                               {"802.1Q": 14, "IP": 18, "TCP": 38}),
        "vxlan": (ether() / sa.IP(src="10.0.0.1") / sa.UDP(sport=4000, dport=4789) / vxlan.VXLAN(vni=42) / ether()
                  / sa.IP(src="16.0.0.1") / sa.UDP() / b"xy",
                  {"IP.src": (26, 4), "IP:1.src": (76, 4), "IP:1.dst": (80, 4), "UDP:1.dport": (86, 2), "Ether:1.dst": (50, 6),
                   "VXLAN.vni": (46, 4)},
                  {"VXLAN": 42, "Ethernet:1": 50, "IP:1": 64, "UDP:1": 84}),
        "ipv6": (ether() / sa.IPv6(src="2001:db8::1", dst="2001:db8::2") / sa.UDP(dport=5001) / b"xy",
                 {"IPv6.src": (22, 16), "IPv6.dst": (38, 16), "IPv6.tc": (14, 0), "IPv6.fl": (15, 0), "IPv6.nh": (20, 1),
                  "UDP.dport": (56, 2)},
                 {"IPv6": 14, "UDP": 54}),
    }


def resolved(source, fields, layers):
    """What the old client's builder resolves ``fields`` and ``layers`` to, from ``source`` (STLPktBuilder's arguments)."""
    return ({name: tuple(api.STLPktBuilder(**source)._name_to_offset(name)) for name in fields},
            {name: api.STLPktBuilder(**source)._pkt_layer_offset(name) for name in layers})


def current_client(request):
    """The reply of current_trex_client.py offsets."""
    done = subprocess.run([sys.executable, HELPER, "offsets"], input=json.dumps(request), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_upstream_scapy
def test_the_old_client_alone_fails_on_a_named_offset():
    """The fault itself, in a process where nothing replaced the builder's methods."""
    frame = bytes(packets()["ether-ip-udp"][0]).hex()
    code = "import sys, trex_stl_lib.api as a; a.STLPktBuilder(pkt_buffer=bytes.fromhex(sys.argv[1]))._name_to_offset('IP.src')"
    done = subprocess.run([sys.executable, "-c", code, frame], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "AttributeError: _offset" in done.stderr


@needs_upstream_scapy
@pytest.mark.parametrize("name", sorted(packets()))
@pytest.mark.parametrize("form", ["pkt", "pkt_buffer"])
def test_named_offsets_are_the_bytes_counted_by_hand(name, form):
    assert trex_compat.install() is True
    packet, fields, layers = packets()[name]
    source = {"pkt": packet} if form == "pkt" else {"pkt_buffer": bytes(packet)}
    assert resolved(source, fields, layers) == (fields, layers)


@needs_upstream_scapy
@needs_current_client
def test_the_current_client_resolves_every_name_the_same():
    trex_compat.install()
    cases = packets()
    request = {"packets": [{"frame": bytes(packet).hex(), "fields": sorted(fields), "layers": sorted(layers)}
                           for packet, fields, layers in cases.values()], "programs": []}
    reply = current_client(request)
    assert "scapy-2.4.3" in reply["scapy"]
    for (packet, fields, layers), current in zip(cases.values(), reply["packets"]):
        old_fields, old_layers = resolved({"pkt_buffer": bytes(packet)}, fields, layers)
        assert {name: tuple(place) for name, place in current["fields"].items()} == old_fields == fields
        assert current["layers"] == old_layers == layers


def flow_var(name):
    return ["STLVmFlowVar", {"name": name, "min_value": 1, "max_value": 100, "size": 4, "op": "inc"}]


def programs():
    """(frame, program with named offsets, the same with numbers) over every instruction that takes a name."""
    sa = scapy_all
    udp = bytes(ether() / sa.IP(src="16.0.0.1", dst="48.0.0.1") / sa.UDP(sport=1025, dport=5001) / (b"x" * 18))
    vlan = bytes(ether() / sa.Dot1Q(vlan=20) / sa.IP(src="16.0.0.1") / sa.UDP() / (b"x" * 14))
    named = [flow_var("src"), ["STLVmWrFlowVar", {"fv_name": "src", "pkt_offset": "IP.src"}],
             flow_var("dst"), ["STLVmWrFlowVar", {"fv_name": "dst", "pkt_offset": "IP.dst"}],
             ["STLVmFixChecksumHw", {"l3_offset": "IP", "l4_offset": "UDP", "l4_type": 11}]]
    numeric = [flow_var("src"), ["STLVmWrFlowVar", {"fv_name": "src", "pkt_offset": 26}],
               flow_var("dst"), ["STLVmWrFlowVar", {"fv_name": "dst", "pkt_offset": 30}]]
    tagged = [["STLVmFlowVar", {"name": "tag", "min_value": 1, "max_value": 100, "size": 2, "op": "inc"}],
              ["STLVmWrMaskFlowVar", {"fv_name": "tag", "pkt_offset": "802|1Q.vlan", "pkt_cast_size": 2, "mask": 0xFFF}],
              ["STLVmFixIpv4", {"offset": "IP"}]]
    tagged_numeric = [tagged[0], ["STLVmWrMaskFlowVar", {"fv_name": "tag", "pkt_offset": 14, "pkt_cast_size": 2, "mask": 0xFFF}],
                      ["STLVmFixIpv4", {"offset": 18}]]
    return [(udp, named, numeric), (vlan, tagged, tagged_numeric)]


def compiled(frame, program):
    instructions = [getattr(api, name)(**kwargs) for name, kwargs in program]
    stream = api.STLStream(packet=api.STLPktBuilder(pkt_buffer=frame, vm=api.STLScVmRaw(instructions)), mode=api.STLTXCont(pps=1))
    return stream.to_json()["vm"]["instructions"]


def placed(instructions):
    """The offsets of compiled instructions: (type, pkt_offset or l2_len/l3_len)."""
    return [(ins["type"], ins.get("pkt_offset"), ins.get("l2_len"), ins.get("l3_len")) for ins in instructions if ins["type"] != "flow_var"]


EXPECTED_PLACES = [[("write_flow_var", 26, None, None), ("write_flow_var", 30, None, None), ("fix_checksum_hw", None, 14, 20)],
                   [("write_mask_flow_var", 14, None, None), ("fix_checksum_ipv4", 18, None, None)]]


@needs_upstream_scapy
def test_a_stream_with_named_offsets_compiles_to_the_numeric_ones():
    trex_compat.install()
    for (frame, named, numeric), expected in zip(programs(), EXPECTED_PLACES):
        assert placed(compiled(frame, named)) == expected
        # instruction by instruction, the same JSON as with numbers (pkt_offset="IP.src" as pkt_offset=26); the
        # numeric program stops before the checksum fix, which trex-stl-lib 0.3 compiles from a number as l2_len 0
        assert compiled(frame, named)[:len(numeric)] == compiled(frame, numeric)


@needs_upstream_scapy
@needs_current_client
def test_the_current_client_compiles_the_named_programs_to_the_same_offsets():
    trex_compat.install()
    request = {"packets": [], "programs": [{"frame": frame.hex(), "vm": named} for frame, named, _numeric in programs()]}
    current = current_client(request)["programs"]
    assert [placed(instructions) for instructions in current] == EXPECTED_PLACES
    assert [placed(compiled(frame, named)) for frame, named, _numeric in programs()] == EXPECTED_PLACES


@needs_upstream_scapy
def test_unknown_layers_and_fields_are_the_clients_own_errors():
    trex_compat.install()
    frame = bytes(packets()["ether-ip-udp"][0])
    with pytest.raises(builder_module.CTRexPacketBuildException, match="no layer IP-1"):
        api.STLPktBuilder(pkt_buffer=frame)._name_to_offset("IP:1.src")
    with pytest.raises(builder_module.CTRexPacketBuildException, match="No layer nosuch-0"):
        api.STLPktBuilder(pkt_buffer=frame)._name_to_offset("IP.nosuch")
    with pytest.raises(builder_module.CTRexPacketBuildException, match="no layer TCP-0"):
        api.STLPktBuilder(pkt_buffer=frame)._pkt_layer_offset("TCP")


@needs_upstream_scapy
def test_install_is_idempotent():
    assert trex_compat.install() is True
    util = builder_module.CTRexScapyPktUtl
    methods = [util.__dict__[name] for name in ("_layer_offset", "layer_offset", "get_field_offet")]
    assert trex_compat.install(builder_module) is True
    assert [util.__dict__[name] for name in ("_layer_offset", "layer_offset", "get_field_offet")] == methods
    assert all(method.__module__ == trex_compat.__name__ for method in methods)


def test_install_leaves_a_scapy_with_offsets_alone():
    class Packet:  # pylint: disable=too-few-public-methods
        """Like TRex's patched scapy's Packet."""
        __slots__ = ["_offset"]

    class Util:  # pylint: disable=too-few-public-methods
        def layer_offset(self, name, cnt=0):
            return name, cnt

    original = Util.__dict__["layer_offset"]
    module = types.SimpleNamespace(Packet=Packet, CTRexScapyPktUtl=Util)
    assert trex_compat.install(module) is False
    assert Util.__dict__["layer_offset"] is original
    assert not hasattr(Util, trex_compat.MARK)
    assert trex_compat.install(types.SimpleNamespace(Packet=Packet)) is False


def test_load_client_installs_it_for_the_old_client():
    loaded = trex.load_client("trex_stl_lib", None)
    assert loaded is api
    assert getattr(builder_module.CTRexScapyPktUtl, trex_compat.MARK, False) == (not trex_compat.scapy_sets_offsets(builder_module.Packet))
