# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""hw-tc-offload for the ConnectX-6 Dx ASAP2 bench: which devices the ovs role turns it on for, netdev_offloads doing
so on real mlx5 ``ethtool -k`` outputs, dut_health reading it off the kernel datapath's ports of a real switch database,
and the check the benchmark runs before its first trial.

Fixtures (real outputs; fixtures/netdev_offloads/README.md and fixtures/dut_health/README.md say where each comes
from): an mlx5 PF with ``hw-tc-offload: off`` (ConnectX-4 Lx), an mlx5 port with it on (NVIDIA's netdev post), a veth
(``off [fixed]``), and ``ovs-vsctl --format=json list Bridge|Port|Interface`` of the ASAP2 bench's switch.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.filter.ovs import FilterModule
from ansible_collections.offload.testbed.plugins.module_utils.bench import health as bench_health
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import switch_model
from ansible_collections.offload.testbed.plugins.modules import dut_health, netdev_offloads
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import system_reads

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
FILTERS = FilterModule().filters()


def fixture(*parts):
    with open(os.path.join(HERE, "fixtures", *parts)) as handle:
        return handle.read()


PF_OFF = fixture("netdev_offloads", "mlx5_cx4lx_pf_ethtool_k.txt")
MLX5_ON = fixture("netdev_offloads", "mlx5_lkml_ethtool_k.txt")
VETH = fixture("netdev_offloads", "veth_ethtool_k.txt")
LINK_D = fixture("netdev_offloads", "veth_ip_d_link.json")  # what netdev_offloads reads of the link: its MTU
TABLES = dict((table, fixture("dut_health", "asap2_list_%s.json" % table)) for table in ("Bridge", "Port", "Interface"))
OTHER_CONFIG = fixture("dut_health", "asap2_other_config.json")

# The ASAP2 bench's generator as inventories/lab-cx6dx-asap2 declares it, with the example PF name of its host_vars.
REPRESENTORS = [{"name": "ens1f0npf0vf0", "bridge": "underlay", "tag": 20}]
REPRESENTORS += [{"name": "ens1f0npf0vf%d" % n, "bridge": "br-int", "iface_id": "port%d" % n} for n in (1, 2, 3)]
GENERATOR = {"datapath": "system", "hw_offload": True, "uplink": "ens1f0np0", "uplink_type": "", "representors": REPRESENTORS}


# ---------------------------------------------------------------- which devices the ovs role turns it on for


def test_the_pf_and_every_representor_on_the_kernel_datapath_with_hw_offload():
    assert ovs.hw_tc_offload_devices(GENERATOR) == [{"device": "ens1f0np0", "var": "ovs_uplink"}] + [
        {"device": "ens1f0npf0vf%d" % n, "var": "ovs_representors[%d].name" % n} for n in range(4)]


@pytest.mark.parametrize("change", [{"hw_offload": False}, {"hw_offload": "false"}, {"datapath": "doca"}, {"datapath": "dpdk"},
                                    {"datapath": "netdev"}])
def test_nothing_without_hw_offload_or_off_the_kernel_datapath(change):
    assert FILTERS["ovs_hw_tc_offload_devices"](dict(GENERATOR, **change)) == []


def test_ports_that_are_no_system_device_are_left_out():
    config = dict(GENERATOR, uplink_type="dpdk", representors=[{"name": "vhu0", "type": "dpdkvhostuserclient"}, {"name": "rep1", "type": "system"}])
    assert ovs.hw_tc_offload_devices(config) == [{"device": "rep1", "var": "ovs_representors[1].name"}]
    # a representor written as a bare name is the role's validation's to refuse, not a crash here
    assert ovs.hw_tc_offload_devices(dict(GENERATOR, uplink="", representors=["ens1f0npf0vf0"])) == []
    with pytest.raises(AnsibleFilterError):
        FILTERS["ovs_hw_tc_offload_devices"]("ens1f0np0")


def test_the_asap2_inventory_turns_it_on_the_kernel_datapath():
    """inventories/lab-cx6dx-asap2: the kernel datapath with hw-offload, so the role sets hw-tc-offload there."""
    with open(os.path.join(ROOT, "inventories", "lab-cx6dx-asap2", "group_vars", "chassis.yml")) as handle:
        chassis = yaml.safe_load(handle)
    assert chassis["ovs_datapath"] == "system" and chassis["ovs_hw_offload"] is True


# ---------------------------------------------------------------- netdev_offloads on the mlx5 outputs

LINK = ("ip", "-j", "-d", "link", "show", "dev", "enp1s0f0np0")
FEATURES = ("ethtool", "-k", "enp1s0f0np0")
TURN_ON = ("ethtool", "-K", "enp1s0f0np0", "hw-tc-offload", "on")
ARGS = {"device": "enp1s0f0np0", "features": {"hw-tc-offload": True}, "names": {"device": "ovs_uplink", "features": "ovs_hw_offload"}}


def answers(*texts):
    texts = list(texts)
    return lambda calls: (0, texts.pop(0) if len(texts) > 1 else texts[0], "")


def test_the_role_reads_first_and_finds_it_off_and_settable(monkeypatch):
    table = {LINK: (0, LINK_D, ""), FEATURES: (0, PF_OFF, "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, validate_only=True), table, monkeypatch)
    assert not failed and result["errors"] == [] and result["features"] == {"hw-tc-offload": False} and calls == [LINK, FEATURES]
    assert "hw-tc-offload" not in result["fixed"]


def test_the_role_turns_it_on_with_one_ethtool_command_and_reads_it_back(monkeypatch):
    table = {LINK: (0, LINK_D, ""), FEATURES: answers(PF_OFF, MLX5_ON), TURN_ON: (0, "", "")}
    result, failed, calls = run_module(netdev_offloads.main, ARGS, table, monkeypatch)
    assert not failed, result.get("msg")
    assert calls == [LINK, FEATURES, TURN_ON, LINK, FEATURES]
    assert result["changed"] and result["commands"] == ["ethtool -K enp1s0f0np0 hw-tc-offload on"]
    assert result["features"] == {"hw-tc-offload": True}


def test_a_second_run_changes_nothing(monkeypatch):
    table = {LINK: (0, LINK_D, ""), FEATURES: (0, MLX5_ON, "")}
    result, failed, calls = run_module(netdev_offloads.main, ARGS, table, monkeypatch)
    assert not failed and not result["changed"] and calls == [LINK, FEATURES]


def test_ethtool_that_leaves_it_off_fails_naming_the_variable(monkeypatch):
    table = {LINK: (0, LINK_D, ""), FEATURES: (0, PF_OFF, ""), TURN_ON: (0, "", "")}
    result, failed, _calls = run_module(netdev_offloads.main, ARGS, table, monkeypatch)
    assert failed and result["msg"] == ("ovs_hw_offload.hw-tc-offload: ethtool -K enp1s0f0np0 hw-tc-offload on did not change it: "
                                        "ethtool -k enp1s0f0np0 prints hw-tc-offload: off")


def test_a_device_that_cannot_offload_tc_is_refused_before_anything_changes(monkeypatch):
    """A veth prints hw-tc-offload: off [fixed] (no TC offload at all)."""
    table = {LINK: (0, LINK_D, ""), FEATURES: (0, VETH, "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, validate_only=True), table, monkeypatch)
    assert not failed and calls == [LINK, FEATURES]
    assert result["errors"] == ["ovs_hw_offload.hw-tc-offload: true cannot be changed on this device/driver: ethtool -k enp1s0f0np0 prints "
                                "hw-tc-offload: off [fixed]; leave it out or ask for false"]


# ---------------------------------------------------------------- dut_health reads it off the running switch

VSCTL = "/usr/bin/ovs-vsctl"
PORTS = ["ens1f0np0", "ens1f0npf0vf0", "ens1f0npf0vf1"]


def test_the_kernel_datapaths_ports_are_the_pf_and_the_representors():
    """Not the internal ports (mgt, overlay, the bridges' own), not the Geneve port; br-int's unset datapath_type is the kernel's."""
    model = switch_model(TABLES["Bridge"], TABLES["Port"], TABLES["Interface"])
    assert bench_health.kernel_datapath_ports(model) == PORTS
    model["bridges"]["underlay"]["datapath_type"] = "netdev"
    assert bench_health.kernel_datapath_ports(model) == ["ens1f0npf0vf1"]


def health(monkeypatch, ethtool_k, other_config=OTHER_CONFIG):
    monkeypatch.setattr(dut_health, "read_pid", lambda pidfiles: (None, None))
    monkeypatch.setattr(dut_health.AnsibleModule, "get_bin_path", lambda self, name, *args, **kwargs: "/usr/bin/" + name)
    table = {("/usr/bin/ovs-vswitchd", "--version"): (0, "ovs-vswitchd (Open vSwitch) 3.1.0\n", ""),
             ("/usr/bin/ovn-appctl", "-t", "ovn-controller", "version"): (1, "", "no ovn-controller\n"),
             ("/usr/bin/ovn-controller", "--version"): (1, "", "not found\n"),
             (VSCTL, "--timeout=5", "--format=json", "--columns=other_config", "list", "Open_vSwitch"): (0, other_config, "")}
    table.update(system_reads())
    for table_name, text in TABLES.items():
        table[(VSCTL, "--timeout=5", "--format=json", "list", table_name)] = (0, text, "")
    for port, text in ethtool_k.items():
        table[("/usr/bin/ethtool", "-k", port)] = (0, text, "")
    if os.path.isdir("/run/systemd/system"):
        table[("/usr/bin/systemctl", "show", "-p", "NRestarts", "--value", "ovs-vswitchd")] = (0, "0\n", "")
    result, failed, calls = run_module(dut_health.main, {"system": True, "core_dirs": [], "offloaded_flows": False, "pmd_stats_command": ""},
                                       table, monkeypatch)
    assert not failed, result.get("msg")
    return result["system"], calls


def test_dut_health_records_hw_tc_offload_of_each_port_with_hw_offload(monkeypatch):
    system, calls = health(monkeypatch, {"ens1f0np0": PF_OFF, "ens1f0npf0vf0": MLX5_ON, "ens1f0npf0vf1": MLX5_ON})
    assert system["ovs_other_config"] == {"hw-offload": "true"}
    assert system["hw_tc_offload"] == {"ens1f0np0": False, "ens1f0npf0vf0": True, "ens1f0npf0vf1": True}
    assert [call[-1] for call in calls if call[0] == "/usr/bin/ethtool"] == PORTS


def test_dut_health_reads_no_port_without_hw_offload(monkeypatch):
    off = OTHER_CONFIG.replace('["hw-offload","true"]', '["hw-offload","false"]')
    system, calls = health(monkeypatch, {}, other_config=off)
    assert system["hw_tc_offload"] == {} and not [call for call in calls if "list" in call and "Bridge" in call]


# ---------------------------------------------------------------- the check before the benchmark


def test_the_benchmark_is_refused_while_the_pf_has_it_off(monkeypatch):
    # ens1f0npf0vf1: a variant, the veth's text without its hw-tc-offload line (as a kernel that predates the feature prints it)
    system, _calls = health(monkeypatch, {"ens1f0np0": PF_OFF, "ens1f0npf0vf0": MLX5_ON, "ens1f0npf0vf1": VETH.replace(
        "hw-tc-offload: off [fixed]\n", "")})
    assert FILTERS["ovs_hw_tc_offload_errors"](system) == [
        "ens1f0np0: hw-tc-offload is off while Open vSwitch has other_config:hw-offload=true on the kernel datapath, so its flows on "
        "ens1f0np0 stay in software (tc shows them not_in_hw); the ovs role turns it on for ovs_uplink and ovs_representors with "
        "ovs_hw_offload: true on ovs_datapath: system (run the datapath stage), or run ethtool -K ens1f0np0 hw-tc-offload on",
        "ens1f0npf0vf1: hw-tc-offload is not listed (ethtool -k ens1f0npf0vf1 printed no hw-tc-offload, or failed) while Open vSwitch "
        "has other_config:hw-offload=true on the kernel datapath, so its flows on ens1f0npf0vf1 stay in software (tc shows them "
        "not_in_hw); the ovs role turns it on for ovs_uplink and ovs_representors with ovs_hw_offload: true on ovs_datapath: system "
        "(run the datapath stage), or run ethtool -K ens1f0npf0vf1 hw-tc-offload on"]


def test_the_benchmark_starts_when_every_port_has_it_on_or_without_hw_offload(monkeypatch):
    system, _calls = health(monkeypatch, dict((port, MLX5_ON) for port in PORTS))
    assert FILTERS["ovs_hw_tc_offload_errors"](system) == []
    assert FILTERS["ovs_hw_tc_offload_errors"](dict(system, ovs_other_config={"hw-offload": "false"}, hw_tc_offload={"p": False})) == []
    assert FILTERS["ovs_hw_tc_offload_errors"](None) == []
    with pytest.raises(AnsibleFilterError):
        FILTERS["ovs_hw_tc_offload_errors"]("ens1f0np0")


def test_tc_policy_skip_hw_needs_no_hw_tc_offload():
    # The VM lab's igb: "hw-tc-offload: off [fixed]"; with tc-policy=skip_hw the TC rules are asked to stay in software.
    assert ovs.hw_tc_offload_devices(dict(GENERATOR, other_config={"tc-policy": "skip_hw"})) == []
    assert ovs.hw_tc_offload_devices(dict(GENERATOR, other_config={"tc-policy": "none"})) != []
    system = {"ovs_other_config": {"hw-offload": "true", "tc-policy": "skip_hw"}, "hw_tc_offload": {"enp2s0": False}}
    assert bench_health.hw_tc_offload_errors(system) == []
    system["ovs_other_config"]["tc-policy"] = "none"
    assert bench_health.hw_tc_offload_errors(system)[0].startswith("enp2s0: hw-tc-offload is off while Open vSwitch has")
