# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Traffic profile of trex_bench (plugins/plugin_utils/bench/profile.py); its arguments are
test_bench_spec.py's, here made as the action makes them (argument spec, then check)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import profile as bp
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec

scapy_all = pytest.importorskip("scapy.all")

GOOD = {"max_load": 1000000, "results_dir": "/tmp/results"}


def args_of(raw):
    result = ArgumentSpecValidator(spec.argument_spec()).validate(dict(raw))
    assert result.errors.messages == []
    args, errors = spec.check(result.validated_parameters)
    assert errors == []
    return args


def checked(**overrides):
    return args_of(dict(GOOD, **overrides))


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
    args = checked(scenario="nat", nat_address="10.20.0.100", destinations=5)
    stream = bp.build_streams(args, 64)
    assert len(stream) == 1 and stream[0]["frame"][30:34] == bytes([10, 20, 0, 100])
    assert [ins for ins in stream[0]["vm"] if ins.get("name") == "dst"] == []
    args = checked(direction="bidir")
    forward, reverse = bp.build_streams(args, 64)
    assert (forward["port"], reverse["port"]) == (0, 1) and forward["share"] == reverse["share"] == 0.5
    assert reverse["frame"][26:30] == forward["frame"][30:34]


def test_fingerprint_follows_what_changes_the_numbers():
    args = checked()
    same = checked(run_id="other", metadata={"nic": "cx6"})
    other = checked(frame_sizes=[64])
    assert bp.fingerprint(args) == bp.fingerprint(same)
    assert bp.fingerprint(args) != bp.fingerprint(other)
    # MLRsearch's rule for upper bounds changes the numbers; unset, the settings (and
    # the fingerprints of runs made before the option existed) stay as they were.
    relaxed = checked(upper_bound_duration=1)
    assert "upper_bound_duration" not in bp.search_settings(args)
    assert bp.search_settings(relaxed)["upper_bound_duration"] == 1.0
    assert bp.fingerprint(relaxed) != bp.fingerprint(args)


def test_a_run_begun_with_trex_is_not_resumed_with_testpmd():
    args = checked()
    assert bp.fingerprint(dict(args, generator="trex")) == bp.fingerprint(args)
    assert bp.fingerprint(dict(args, generator="testpmd")) != bp.fingerprint(args)


def test_repeat_is_another_run_and_reconnections_are_not():
    args = checked()
    assert "repeat" not in bp.search_settings(args)
    assert bp.fingerprint(checked(repeat=1)) == bp.fingerprint(args)
    assert bp.search_settings(checked(repeat=3))["repeat"] == 3
    assert bp.fingerprint(checked(repeat=3)) != bp.fingerprint(args)
    assert bp.fingerprint(checked(reconnects=0, reconnect_delay=10)) == bp.fingerprint(args)


# Arguments as playbooks/benchmark.yml passed them before the argument spec (the virtual
# lab's routing/udp run; a lab DUT's with the playbook's former defaults written out), with
# the fingerprints the former check_args gave them: a run started then keeps its fingerprint.
VIRTUAL_ROUTING_UDP = dict(
    sync_port=4511, async_port=4510, ports=[0], port_l3=[{"src": "192.168.0.3", "gateway": "192.168.0.1"}],
    rx_server={"server": "127.0.0.1", "sync_port": 4501, "async_port": 4500, "ports": [0]}, scenario="routing", protocol="udp",
    frame_sizes=[64], flows=100, nat_address="18.0.0.188", lb_vip="18.0.0.172", width=0.05, final_duration=2, initial_duration=0.5,
    max_load=300000, datapath="netdev", results_dir="/r", run_id="netdev-routing-udp", metadata={"inventory_hostname": "lab-dut"})
LAB_DEFAULTS = dict(server="10.0.0.3", client="trex", client_path="/c", frame_sizes=[64, 78, 100], max_load=37202380, datapath="doca",
                    results_dir="/r", run_id="doca-routing-udp", dut_interfaces=["eth0"], latency_loads=[0.1, 0.5, 0.9, 0.99])
FORMER_PLAYBOOK_DEFAULTS = dict(server="127.0.0.1", sync_port=4501, async_port=4500, client="trex_stl_lib", ports=[0, 1],
                                frame_sizes=[64, 78, 100], flows=1000, direction="uni", width=0.005, final_duration=10, initial_duration=1,
                                max_load=14880952, datapath="unknown", dut_interfaces=[])


@pytest.mark.parametrize("raw, expected", [
    (VIRTUAL_ROUTING_UDP, "22b9a18020828ebe"),
    (dict(VIRTUAL_ROUTING_UDP, final_duration=2.0, max_load=300000.0), "22b9a18020828ebe"),
    (LAB_DEFAULTS, "d95ae1987e0ef2c8"),
    (dict(FORMER_PLAYBOOK_DEFAULTS, **LAB_DEFAULTS), "d95ae1987e0ef2c8"),
])
def test_fingerprints_of_runs_started_before_the_argument_spec_stay(raw, expected):
    assert bp.fingerprint(args_of(raw)) == expected


def test_whole_settings_are_written_as_the_playbooks_wrote_them():
    settings = bp.search_settings(checked(final_duration=2, initial_duration=0.5, latency_pps=1000))
    assert settings["final_duration"] == 2 and isinstance(settings["final_duration"], int)
    assert settings["latency_duration"] == 2 and isinstance(settings["max_load"], int)
    assert isinstance(settings["initial_duration"], float) and isinstance(settings["warmup_duration"], float)
    assert settings["min_load"] == 1000.0 and isinstance(settings["min_load"], float)
