# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arguments and traffic profile of trex_bench (plugins/plugin_utils/bench/profile.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import profile as bp

scapy_all = pytest.importorskip("scapy.all")

GOOD = {"max_load": 1000000, "results_dir": "/tmp/results"}


def errors_of(**overrides):
    args = dict(GOOD)
    args.update(overrides)
    return bp.check_args(args)[1]


def test_defaults_are_valid_and_filled():
    args, errors = bp.check_args(dict(GOOD))
    assert errors == []
    assert args["frame_sizes"] == [64, 78, 100]
    assert args["scenario"] == "routing" and args["protocol"] == "udp" and args["width"] == 0.005
    assert args["ports"] == [0, 1] and args["final_duration"] == 10.0


def test_strings_from_playbooks_are_normalised():
    args, errors = bp.check_args(dict(GOOD, frame_sizes=["64", "100"], vlan="10", width="0.01", max_load="2000", ports=["0", "1"]))
    assert errors == []
    assert args["frame_sizes"] == [64, 100] and args["vlan"] == 10 and args["width"] == 0.01 and args["max_load"] == 2000.0


@pytest.mark.parametrize("overrides, needle", [
    ({"scenario": "bridging"}, "scenario: 'bridging' is not one of routing, nat, lb"),
    ({"protocol": "sctp"}, "protocol: 'sctp' is not one of udp, tcp"),
    ({"frame_sizes": [63]}, "frame_sizes: 63 outside 64..9216"),
    ({"frame_sizes": [64, 9217]}, "frame_sizes: 9217 outside 64..9216"),
    ({"goals": [{"name": "x", "loss_ratio": 1.0}]}, "goals[0].loss_ratio: 1.0 (goal x) must be a number in [0, 1)"),
    ({"goals": [{"name": "x", "loss_ratio": -0.1}]}, "goals[0].loss_ratio: -0.1"),
    ({"width": 0}, "width: 0 must be a relative width in (0, 0.5)"),
    ({"width": 0.5}, "width: 0.5 must be a relative width in (0, 0.5)"),
    ({"scenario": "nat"}, "nat_address: scenario nat needs"),
    ({"scenario": "lb", "lb_vip": "not-an-ip"}, "lb_vip: scenario lb needs"),
    ({"ports": [0, 0]}, "ports: [0, 0] must be two different generator port numbers"),
    ({"ports": [0]}, "ports: [0] must be two different"),
    ({"vlan": 4095}, "vlan: 4095 is outside 1..4094"),
    ({"max_load": 0}, "max_load: 0 must be the highest load"),
    ({"min_load": 2000000}, "min_load: 2000000 must be a load"),
    ({"initial_duration": 20}, "initial_duration: 20 is longer than final_duration 10.0"),
    ({"upper_bound_duration": 0.5}, "upper_bound_duration: 0.5 must be seconds between initial_duration (1.0) and final_duration (10.0)"),
    ({"upper_bound_duration": 11}, "upper_bound_duration: 11 must be seconds between"),
    ({"upper_bound_duration": "short"}, "upper_bound_duration: 'short' must be seconds"),
    ({"final_duration": "soon"}, "final_duration: 'soon' must be a positive number"),
    ({"client": "trex"}, "client_path: client 'trex' needs"),
    ({"run_id": "../etc/passwd"}, "run_id: '../etc/passwd' must be letters"),
    ({"direction": "bidir", "scenario": "lb", "lb_vip": "48.0.0.100"}, "direction: bidir is supported for scenario routing only"),
    ({"results_dir": None}, "results_dir: give the directory"),
    ({"flows": 0}, "flows: 0 must be an integer in 1..16777216"),
    ({"sync_port": 70000}, "sync_port: 70000 is not a TCP port number"),
    ({"frobnicate": True}, "unknown argument(s): frobnicate"),
])
def test_bad_input_is_named(overrides, needle):
    errors = errors_of(**overrides)
    assert any(needle in error for error in errors), errors


def test_every_problem_is_reported_at_once():
    errors = errors_of(scenario="x", protocol="y", frame_sizes=[10], width=1)
    assert [error.split(":")[0] for error in errors] == ["scenario", "protocol", "frame_sizes", "width"]


@pytest.mark.parametrize("protocol", ["udp", "tcp"])
@pytest.mark.parametrize("vlan", [None, 20])
@pytest.mark.parametrize("size", [64, 78, 100, 1518])
def test_frames_have_the_size_and_valid_checksums(protocol, vlan, size):
    frame = bp.build_frame(size, protocol, "16.0.0.1", "48.0.0.1", 1025, 5001, vlan)
    assert len(frame) == size - bp.FCS
    pkt = scapy_all.Ether(frame)
    ip_layer = pkt[scapy_all.IP]
    assert (ip_layer.src, ip_layer.dst) == ("16.0.0.1", "48.0.0.1")
    l4_layer = pkt[scapy_all.TCP] if protocol == "tcp" else pkt[scapy_all.UDP]
    assert (l4_layer.sport, l4_layer.dport) == (1025, 5001)
    if vlan:
        assert pkt[scapy_all.Dot1Q].vlan == vlan
    # scapy recomputes checksums when they are deleted: they must equal ours
    rebuilt = scapy_all.Ether(frame)
    del rebuilt[scapy_all.IP].chksum
    del rebuilt[type(l4_layer)].chksum
    rebuilt = scapy_all.Ether(bytes(rebuilt))
    assert rebuilt[scapy_all.IP].chksum == ip_layer.chksum
    assert rebuilt[type(l4_layer)].chksum == l4_layer.chksum
    if protocol == "tcp":
        assert l4_layer.flags == "A"


def test_vm_writes_source_and_destination_where_they_are():
    vm = bp.build_vm("udp", 1000, 10, "16.0.0.1", "48.0.0.1", vlan=30)
    frame = bp.build_frame(64, "udp", "16.0.0.1", "48.0.0.1", 1025, 5001, 30)
    writes = {ins["name"]: ins["offset"] for ins in vm if ins["type"] == "write"}
    assert frame[writes["src"]:writes["src"] + 4] == bytes([16, 0, 0, 1])
    assert frame[writes["dst"]:writes["dst"] + 4] == bytes([48, 0, 0, 1])
    variables = {ins["name"]: ins for ins in vm if ins["type"] == "flow_var"}
    assert variables["src"]["max"] - variables["src"]["min"] == 999
    assert variables["dst"]["max"] - variables["dst"]["min"] == 9
    assert vm[-1] == {"type": "fix_checksum_hw", "l3_offset": 18, "l4_offset": 38, "l4_type": 11}


def test_one_flow_needs_no_field_engine():
    assert bp.build_vm("tcp", 1, 1, "16.0.0.1", "48.0.0.1") == []


def test_nat_and_lb_send_to_their_address_and_bidir_mirrors_routing():
    args = bp.check_args(dict(GOOD, scenario="nat", nat_address="10.20.0.100", destinations=5))[0]
    stream = bp.build_streams(args, 64)
    assert len(stream) == 1 and stream[0]["frame"][30:34] == bytes([10, 20, 0, 100])
    assert [ins for ins in stream[0]["vm"] if ins.get("name") == "dst"] == []
    args = bp.check_args(dict(GOOD, direction="bidir"))[0]
    forward, reverse = bp.build_streams(args, 64)
    assert (forward["port"], reverse["port"]) == (0, 1) and forward["share"] == reverse["share"] == 0.5
    assert reverse["frame"][26:30] == forward["frame"][30:34]


def test_fingerprint_follows_what_changes_the_numbers():
    args = bp.check_args(dict(GOOD))[0]
    same = bp.check_args(dict(GOOD, run_id="other", metadata={"nic": "cx6"}))[0]
    other = bp.check_args(dict(GOOD, frame_sizes=[64]))[0]
    assert bp.fingerprint(args) == bp.fingerprint(same)
    assert bp.fingerprint(args) != bp.fingerprint(other)
    # MLRsearch's rule for upper bounds changes the numbers; unset, the settings (and
    # the fingerprints of runs made before the option existed) stay as they were.
    relaxed = bp.check_args(dict(GOOD, upper_bound_duration=1))[0]
    assert "upper_bound_duration" not in bp.search_settings(args)
    assert bp.search_settings(relaxed)["upper_bound_duration"] == 1.0
    assert bp.fingerprint(relaxed) != bp.fingerprint(args)
