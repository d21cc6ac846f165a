"""netdev_offloads: the exact commands it reads, plans, writes and reads back, every refusal, and one real veth pair.

The ethtool and ip outputs are real (fixtures/netdev_offloads/README.md says where each one comes from).
"""
import json
import os
import shutil
import subprocess
import uuid

import pytest
import yaml

from ansible.module_utils import basic

from ansible_collections.offload.testbed.plugins.module_utils.datapath import netdev_offloads as nd
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_features, parse_ethtool_features_detail
from ansible_collections.offload.testbed.plugins.modules import netdev_offloads
from modtest import ModuleExit, patch_module_args, run_module
from test_dpdk_docs import differences, rendered

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "netdev_offloads")
NS = ("ip", "netns", "exec", "nt-x")
LINK = NS + ("ip", "-j", "-d", "link", "show", "dev", "a")
FEATURES = NS + ("ethtool", "-k", "a")
SET_MTU = NS + ("ip", "link", "set", "dev", "a", "mtu", "1550")
UDP_TNL_OFF = NS + ("ethtool", "-K", "a", "tx-udp_tnl-segmentation", "off")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def link_d(mtu=1500, max_mtu=None):
    """The veth's real ``ip -j -d link show`` with its mtu (and, to stand for a NIC, its max_mtu) replaced."""
    item = json.loads(fixture("veth_ip_d_link.json"))[0]
    item["mtu"] = mtu
    if max_mtu is not None:
        item["max_mtu"] = max_mtu
    return json.dumps([item])


VETH_K = fixture("veth_ethtool_k.txt")
VETH_K_OFF = fixture("veth_ethtool_k_udp_tnl_off.txt")
ARGS = {"device": "a", "namespace": "nt-x"}


def sequence(*answers):
    """A table answer that gives the next output each time the command runs (the read, then the read back)."""
    answers = list(answers)
    return lambda calls: answers.pop(0) if len(answers) > 1 else answers[0]


# ---------------------------------------------------------------- parsers


def test_detail_parser_on_the_veth_fixed_and_tunnel_features():
    detail = parse_ethtool_features_detail(VETH_K)
    assert detail["tx-udp_tnl-segmentation"] == {"on": True, "fixed": False, "requested": None}
    assert detail["tx-checksum-ipv4"] == {"on": False, "fixed": True, "requested": None}
    assert set(detail) == set(parse_ethtool_features(VETH_K)) and len(detail) == 63
    assert dict((k, v["on"]) for k, v in detail.items()) == parse_ethtool_features(VETH_K)


def test_detail_parser_on_published_mlx5_outputs():
    detail = parse_ethtool_features_detail(fixture("mlx5_lkml_ethtool_k.txt"))
    assert detail["tx-udp_tnl-csum-segmentation"] == {"on": True, "fixed": False, "requested": None}
    assert detail["esp-hw-offload"] == {"on": True, "fixed": True, "requested": None}
    assert detail["tx-checksum-ipv4"]["fixed"] and "Features for eth2" not in detail
    before = parse_ethtool_features_detail(fixture("mlx5_bond_vlan_before_grep_udp.txt"))
    assert before["tx-udp_tnl-segmentation"] == {"on": False, "fixed": False, "requested": True}
    assert before["rx-udp_tunnel-port-offload"] == {"on": False, "fixed": True, "requested": None}
    assert parse_ethtool_features_detail(fixture("mlx5_pf_grep_udp.txt"))["tx-udp_tnl-segmentation"]["on"] is True


def test_detail_parser_reads_the_actual_changes_of_ethtool_K():
    assert parse_ethtool_features_detail(fixture("veth_ethtool_K_mixed_stdout.txt")) == {
        "tx-checksum-ipv4": {"on": False, "fixed": False, "requested": True},
        "tx-udp_tnl-segmentation": {"on": False, "fixed": False, "requested": None}}


def test_link_parser_reads_max_mtu_only_from_the_detailed_output():
    assert nd.parse_link(fixture("veth_ip_d_link.json")) == {"mtu": 1500, "min_mtu": 68, "max_mtu": 65535}
    assert nd.parse_link(fixture("veth_ip_link_mtu1550.json")) == {"mtu": 1550, "min_mtu": None, "max_mtu": None}


# ---------------------------------------------------------------- the module against tables


def test_sets_mtu_and_feature_in_one_command_each_and_reads_back(monkeypatch):
    table = {LINK: sequence((0, link_d(), ""), (0, link_d(1550), "")), FEATURES: sequence((0, VETH_K, ""), (0, VETH_K_OFF, "")),
             SET_MTU: (0, "", ""), UDP_TNL_OFF: (0, "", "")}
    args = dict(ARGS, mtu=1550, features={"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": True})
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert not failed, result
    assert calls == [LINK, FEATURES, SET_MTU, UDP_TNL_OFF, LINK, FEATURES]
    assert result["commands"] == ["ip netns exec nt-x ip link set dev a mtu 1550", "ip netns exec nt-x ethtool -K a tx-udp_tnl-segmentation off"]
    assert result["changed"] and result["mtu"] == 1550 and result["errors"] == []
    assert result["features"] == {"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": True}
    assert result["all_features"] == parse_ethtool_features(VETH_K_OFF)
    assert "tx-checksum-ipv4" in result["fixed"] and "tx-udp_tnl-segmentation" not in result["fixed"]


def test_several_features_go_in_one_ethtool_command(monkeypatch):
    both = NS + ("ethtool", "-K", "a", "tx-udp_tnl-segmentation", "off", "tx-udp_tnl-csum-segmentation", "off")
    after = VETH_K_OFF.replace("tx-udp_tnl-csum-segmentation: on", "tx-udp_tnl-csum-segmentation: off")
    table = {LINK: (0, link_d(), ""), FEATURES: sequence((0, VETH_K, ""), (0, after, "")), both: (0, "", "")}
    args = dict(ARGS, features={"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": False})
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert not failed and calls == [LINK, FEATURES, both, LINK, FEATURES]


def test_second_run_plans_nothing(monkeypatch):
    table = {LINK: (0, link_d(1550), ""), FEATURES: (0, VETH_K_OFF, "")}
    args = dict(ARGS, mtu=1550, features={"tx-udp_tnl-segmentation": False})
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == [] and calls == [LINK, FEATURES]


def test_check_mode_reads_only_and_returns_the_plan_and_diff(monkeypatch):
    table = {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, "")}
    args = dict(ARGS, mtu=1550, features={"tx-udp_tnl-segmentation": False}, _ansible_check_mode=True, _ansible_diff=True)
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert not failed and calls == [LINK, FEATURES] and result["changed"]
    assert result["commands"] == ["ip netns exec nt-x ip link set dev a mtu 1550", "ip netns exec nt-x ethtool -K a tx-udp_tnl-segmentation off"]
    assert result["mtu"] == 1550 and result["features"] == {"tx-udp_tnl-segmentation": False}
    assert result["diff"] == {"before": {"mtu": 1500, "features": {"tx-udp_tnl-segmentation": True}},
                              "after": {"mtu": 1550, "features": {"tx-udp_tnl-segmentation": False}}}


def test_without_namespace_the_commands_run_on_the_host(monkeypatch):
    table = {LINK[4:]: (0, link_d(), ""), FEATURES[4:]: (0, VETH_K, ""), SET_MTU[4:]: (0, "", "")}
    table[LINK[4:]] = sequence((0, link_d(), ""), (0, link_d(1550), ""))
    result, failed, calls = run_module(netdev_offloads.main, {"device": "a", "mtu": 1550}, table, monkeypatch)
    assert not failed and calls == [LINK[4:], FEATURES[4:], SET_MTU[4:], LINK[4:], FEATURES[4:]]


# ---------------------------------------------------------------- refusals, before anything is written


def test_every_problem_at_once_naming_the_users_variables(monkeypatch):
    table = {LINK: (0, link_d(max_mtu=9000), ""), FEATURES: (0, VETH_K, "")}
    args = dict(ARGS, mtu=9216, names={"mtu": "tunnel_underlay_mtu", "features": "tunnel_underlay_offloads"},
                features={"tx-udp_tnl-segmentaton": False, "tx-checksum-ipv4": True, "tso": False, "tx-udp_tnl-csum-segmentation": "yes"})
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert failed and calls == [LINK, FEATURES]
    assert result["errors"] == [
        "tunnel_underlay_mtu: 9216 is above the max_mtu 9000 of a (ip -d link show dev a); the driver refuses it, "
        "lower it or raise the device limit first",
        "tunnel_underlay_offloads.tx-udp_tnl-segmentaton: 'tx-udp_tnl-segmentaton' is not a feature ethtool -k a lists "
        "(did you mean tx-udp_tnl-segmentation, tx-udp_tnl-csum-segmentation, tx-udp-segmentation?); use the names ethtool -k a prints, "
        "for example tx-udp_tnl-segmentation",
        "tunnel_underlay_offloads.tx-checksum-ipv4: true cannot be changed on this device/driver: ethtool -k a prints "
        "tx-checksum-ipv4: off [fixed]; leave it out or ask for false",
        "tunnel_underlay_offloads.tso: 'tso' is not a feature ethtool -k a lists (tso is the ethtool -K short name; write the name "
        "ethtool -k prints, tcp-segmentation-offload); use the names ethtool -k a prints, for example tx-udp_tnl-segmentation",
        "tunnel_underlay_offloads.tx-udp_tnl-csum-segmentation: 'yes' is not a boolean; write true (on) or false (off)",
    ]
    assert result["msg"] == "; ".join(result["errors"])


def test_a_fixed_feature_asked_for_its_own_value_is_fine(monkeypatch):
    table = {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, features={"tx-checksum-ipv4": False}), table, monkeypatch)
    assert not failed and not result["changed"] and result["features"] == {"tx-checksum-ipv4": False}


def test_a_fixed_tunnel_feature_on_a_published_output(monkeypatch):
    detail = parse_ethtool_features_detail(fixture("mlx5_lkml_ethtool_k.txt"))
    params = {"device": "eth2", "features": {"esp-hw-offload": False, "tx-udp_tnl-segmentation": False}, "names": {}}
    assert nd.feature_errors(params, detail) == [
        "features.esp-hw-offload: false cannot be changed on this device/driver: ethtool -k eth2 prints esp-hw-offload: on [fixed]; "
        "leave it out or ask for true"]


@pytest.mark.parametrize("mtu, message", [
    (67, "mtu: 67 is outside 68..65535; give an MTU in bytes, for example 1550 for VXLAN over a 1500 underlay"),
    (70000, "mtu: 70000 is outside 68..65535; give an MTU in bytes, for example 1550 for VXLAN over a 1500 underlay"),
])
def test_mtu_out_of_range(mtu, message, monkeypatch):
    table = {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=mtu), table, monkeypatch)
    assert failed and result["errors"] == [message] and calls == [LINK, FEATURES]


def test_missing_device_is_refused_with_ips_words_and_the_mtu_checked_too(monkeypatch):
    table = {LINK: (1, "", 'Device "a" does not exist.\n')}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=70000, features={"tx-udp_tnl-segmentation": True}), table, monkeypatch)
    assert failed and calls == [LINK]
    assert result["errors"] == [
        "device: device 'a' does not exist in network namespace 'nt-x' (ip link show said: Device \"a\" does not exist., rc 1)",
        "mtu: 70000 is outside 68..65535; give an MTU in bytes, for example 1550 for VXLAN over a 1500 underlay"]


def test_missing_namespace_is_named(monkeypatch):
    table = {LINK: (255, "", 'Cannot open network namespace "nt-x": No such file or directory\n')}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, names={"namespace": "tunnel_ns"}), table, monkeypatch)
    assert failed and result["errors"] == [
        "tunnel_ns: network namespace 'nt-x' cannot be entered (Cannot open network namespace \"nt-x\": No such file or directory); "
        "create it first or fix the name"]


def test_validate_only_reports_without_failing_or_writing(monkeypatch):
    table = {LINK: (0, link_d(max_mtu=1500), ""), FEATURES: (0, VETH_K, "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=1550, validate_only=True), table, monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == [] and calls == [LINK, FEATURES]
    assert result["errors"] == ["mtu: 1550 is above the max_mtu 1500 of a (ip -d link show dev a); the driver refuses it, "
                                "lower it or raise the device limit first"]
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=1550, validate_only=True),
                                       {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, "")}, monkeypatch)
    assert not failed and result["errors"] == [] and result["commands"] == [] and calls == [LINK, FEATURES]


# ---------------------------------------------------------------- after writing


def test_ethtool_exits_0_and_changes_nothing_the_read_back_fails_naming_it(monkeypatch):
    mixed = NS + ("ethtool", "-K", "a", "tx-udp_tnl-segmentation", "off", "tx-udp_tnl-csum-segmentation", "off")
    words = fixture("veth_ethtool_K_mixed_stdout.txt")
    table = {LINK: (0, link_d(), ""), FEATURES: sequence((0, VETH_K, ""), (0, VETH_K_OFF, "")), mixed: (0, words, "")}
    args = dict(ARGS, features={"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": False})
    result, failed, calls = run_module(netdev_offloads.main, args, table, monkeypatch)
    assert failed and calls == [LINK, FEATURES, mixed, LINK, FEATURES]
    assert result["errors"] == [
        "features.tx-udp_tnl-csum-segmentation: ethtool -K a tx-udp_tnl-csum-segmentation off did not change it: ethtool -k a prints "
        "tx-udp_tnl-csum-segmentation: on (ethtool -K said: Actual changes: / tx-checksum-ipv4: off [requested on] / tx-udp_tnl-segmentation: off)"]
    assert result["features"] == {"tx-udp_tnl-segmentation": False, "tx-udp_tnl-csum-segmentation": True}


def test_could_not_change_any_device_features_is_reported_with_ethtools_words(monkeypatch):
    # The feature is not [fixed] when read, yet the driver refuses it (the bond VLAN of the mlx5 commit message).
    read = VETH_K.replace("tx-udp_tnl-segmentation: on", "tx-udp_tnl-segmentation: off")
    again = read.replace("tx-udp_tnl-segmentation: off", "tx-udp_tnl-segmentation: off [requested on]")
    on = NS + ("ethtool", "-K", "a", "tx-udp_tnl-segmentation", "on")
    table = {LINK: (0, link_d(), ""), FEATURES: sequence((0, read, ""), (0, again, "")),
             on: (1, "Actual changes:\ntx-udp_tnl-segmentation: off [requested on]\n", "Could not change any device features\n")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, features={"tx-udp_tnl-segmentation": True}), table, monkeypatch)
    assert failed and calls == [LINK, FEATURES, on, LINK, FEATURES]
    assert result["msg"] == ("features.tx-udp_tnl-segmentation: ethtool -K a tx-udp_tnl-segmentation on did not change it: ethtool -k a "
                             "prints tx-udp_tnl-segmentation: off [requested on] (ethtool -K said: Actual changes: / "
                             "tx-udp_tnl-segmentation: off [requested on] / Could not change any device features)")


def test_a_failing_ip_link_set_fails_with_its_words(monkeypatch):
    table = {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, ""), SET_MTU: (2, "", "Error: mtu greater than device maximum.\n")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=1550), table, monkeypatch)
    assert failed and result["msg"] == "ip netns exec nt-x ip link set dev a mtu 1550 failed (rc 2): Error: mtu greater than device maximum."


def test_an_mtu_that_did_not_change_is_reported(monkeypatch):
    table = {LINK: (0, link_d(), ""), FEATURES: (0, VETH_K, ""), SET_MTU: (0, "", "")}
    result, failed, calls = run_module(netdev_offloads.main, dict(ARGS, mtu=1550), table, monkeypatch)
    assert failed and result["errors"] == ["mtu: a still has mtu 1500 after ip link set dev a mtu 1550"]


# ---------------------------------------------------------------- documentation


def test_documentation_is_the_argument_spec():
    doc = rendered("netdev_offloads")
    assert doc["module"] == "netdev_offloads"
    assert differences(doc["options"], netdev_offloads.ARGUMENT_SPEC) == []
    assert yaml.safe_load(netdev_offloads.EXAMPLES)
    assert sorted(yaml.safe_load(netdev_offloads.RETURN)) == ["all_features", "commands", "errors", "features", "fixed", "mtu"]


# ---------------------------------------------------------------- a real veth pair on this machine


def _can_make_namespaces():
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("ethtool"):
        return False
    return subprocess.run(["ip", "netns", "list"], capture_output=True, check=False).returncode == 0


@pytest.fixture
def veth_namespace():
    name = "nt-ndo-%s" % uuid.uuid4().hex[:8]
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "-n", name, "link", "add", "name", "a", "type", "veth", "peer", "name", "b"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def run_real(args, monkeypatch):
    """main() with the real run_command; only exit_json / fail_json are caught."""
    def leave(failed):
        def handler(self, **kw):
            raise ModuleExit(kw, failed)
        return handler
    monkeypatch.setattr(basic.AnsibleModule, "exit_json", leave(False))
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", leave(True))
    with patch_module_args(args):
        with pytest.raises(ModuleExit) as exc:
            netdev_offloads.main()
    return exc.value.result, exc.value.failed


@pytest.mark.skipif(not _can_make_namespaces(), reason="needs root, ip and ethtool to make a namespace with a veth pair")
def test_real_veth_mtu_and_tunnel_segmentation_off_then_on(veth_namespace, monkeypatch):
    for value in (False, True):
        args = {"device": "a", "namespace": veth_namespace, "mtu": 1550, "features": {"tx-udp_tnl-segmentation": value}}
        first, failed = run_real(args, monkeypatch)
        assert not failed, first
        assert first["changed"] and first["features"] == {"tx-udp_tnl-segmentation": value} and first["mtu"] == 1550
        second, failed = run_real(args, monkeypatch)
        assert not failed and not second["changed"] and second["commands"] == []
    shown = subprocess.run(["ip", "netns", "exec", veth_namespace, "ethtool", "-k", "a"], capture_output=True, text=True, check=True).stdout
    assert parse_ethtool_features(shown)["tx-udp_tnl-segmentation"] is True
    refused, failed = run_real({"device": "a", "namespace": veth_namespace, "features": {"tx-checksum-ipv4": True}}, monkeypatch)
    assert failed and refused["errors"] == [
        "features.tx-checksum-ipv4: true cannot be changed on this device/driver: ethtool -k a prints tx-checksum-ipv4: off [fixed]; "
        "leave it out or ask for false"]


def test_a_device_or_namespace_name_the_kernel_refuses_is_refused_before_anything_runs(monkeypatch):
    args = {"device": "enp4s0 ", "namespace": "nt/x", "mtu": 1550,
            "names": {"device": "tunnel_offload_underlay[0].device", "namespace": "tunnel_offload_underlay[0].namespace"}}
    result, failed, calls = run_module(netdev_offloads.main, args, {}, monkeypatch)
    assert failed and calls == []
    assert result["errors"] == [
        "tunnel_offload_underlay[0].device: 'enp4s0 ' has trailing white space, which the kernel refuses in the name of a network "
        "device; write 'enp4s0'",
        "tunnel_offload_underlay[0].namespace: 'nt/x' is no network namespace name (ip netns takes 1 to 255 characters, no '/', not "
        "'.' or '..', and a name with white space breaks the command lines it goes into); use letters, digits, '-', '_' and '.'"]
