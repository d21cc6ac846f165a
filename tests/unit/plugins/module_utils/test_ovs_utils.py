"""module_utils.ovs: the role's meaning checks and the planner."""
import pytest

from ansible_collections.offload.testbed.plugins.module_utils import ovs


def test_uplink_type_follows_the_datapath():
    assert [ovs.uplink_type(d) for d in ("doca", "netdev", "system")] == ["doca", "dpdk", ""]


def test_mask_cpus():
    assert ovs.mask_cpus("0xfc") == {2, 3, 4, 5, 6, 7}
    assert ovs.mask_cpus("4") == {2}


SEED = {"datapath": "doca", "pmd_cpu_mask": "0xfc", "bridges": [{"name": "underlay", "ports": [
    {"name": "ens3f0np0", "trunks": [10, 20, 30], "options": {"n_rxq": 6}, "other_config": {"pmd-rxq-affinity": "0:2,1:3,2:4,3:5,4:6,5:7"}},
    {"name": "mgt", "type": "internal", "tag": 10, "address": "10.10.0.3/24"}]}]}


def test_seed_generator_is_sound_with_cpus_2_to_15_isolated():
    assert ovs.validate(SEED, isolated=set(range(2, 16)) | set(range(34, 48))) == []


@pytest.mark.parametrize("change, isolated, message", [
    ({"datapath": "dpdk"}, None, "ovs_datapath: 'dpdk' is not one of doca, system, netdev"),
    ({"pmd_cpu_mask": "fcx"}, None, "ovs_pmd_cpu_mask: 'fcx' is not hexadecimal"),
    ({"pmd_cpu_mask": "0x3"}, {2, 3}, "ovs_pmd_cpu_mask: 0x3 puts PMD threads on CPUs 0,1, which are not isolated on this host (isolated: 2,3)"),
    ({"pmd_cpu_mask": "0xc"}, None, "ovs_bridges[0].ports[0] (ens3f0np0): pmd-rxq-affinity pins queues to cores 4,5,6,7, outside ovs_pmd_cpu_mask 0xc"),
])
def test_role_refusals_name_the_variable(change, isolated, message):
    config = dict(SEED, **change)
    assert any(e.startswith(message) for e in ovs.validate(config, isolated=isolated)), ovs.validate(config, isolated=isolated)


@pytest.mark.parametrize("port, message", [
    ({"name": "p", "tag": 0}, "VLAN 0 is outside 1..4094"),
    ({"name": "p", "trunks": [10, 4095]}, "VLAN 4095 is outside 1..4094"),
    ({"name": "p", "options": {"n_rxq": 0}}, "n_rxq 0 must be a whole number of at least 1"),
    ({"name": "p", "other_config": {"pmd-rxq-affinity": "0-2"}}, "pmd-rxq-affinity '0-2' is not a list of queue:core pairs"),
    ({"name": "p", "address": "10.10.0.3"}, "only internal ports take an address"),
    ({"name": "p", "type": "internal", "address": "10.10.0.300/24"}, "address '10.10.0.300/24' is not an address"),
])
def test_port_refusals(port, message):
    errors = ovs.validate({"datapath": "netdev", "bridges": [{"name": "b", "ports": [port]}]})
    assert any(message in e and e.startswith("ovs_bridges[0].ports[0] (p)") for e in errors), errors


def empty_model():
    return {"open_vswitch": {"other_config": {}, "external_ids": {}}, "bridges": {}, "ports": {}, "interfaces": {}}


def test_plan_moves_a_port_between_bridges_and_purges():
    model = empty_model()
    model["bridges"]["a"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {}, "other_config": {}, "ports": {"a", "p", "old"}}
    model["bridges"]["b"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {}, "other_config": {}, "ports": {"b"}}
    model["ports"]["p"] = {"bridge": "a", "tag": 5, "trunks": [], "vlan_mode": None, "external_ids": {}, "other_config": {}}
    model["interfaces"]["p"] = {"type": "", "external_ids": {}, "options": {}, "other_config": {}}
    spec = {"bridges": [{"name": "b", "ports": [{"name": "p", "tag": 5}]}, {"name": "a", "ports": []}], "purge_ports": True}
    cmds, restart = ovs.plan(spec, model)
    assert cmds == [["del-port", "a", "p"], ["add-port", "b", "p"], ["set", "Port", "p", "tag=5"], ["del-port", "a", "old"]]
    assert restart == []


def test_restart_keys_only_when_they_change():
    model = empty_model()
    model["open_vswitch"]["other_config"] = {"pmd-cpu-mask": "0xfc", "doca-init": "true"}
    _cmds, restart = ovs.plan({"other_config": {"pmd-cpu-mask": "0xfc", "doca-init": "true", "hw-offload": "true"}}, model)
    assert restart == []
    _cmds, restart = ovs.plan({"other_config": {"pmd-cpu-mask": "0x3c"}}, model)
    assert restart == ["pmd-cpu-mask"]


def test_address_plan():
    links = {"mgt": {"up": True, "addresses": {"10.10.0.3/24"}}}
    assert ovs.address_plan([{"name": "mgt", "type": "internal", "address": "10.10.0.3/24"}], links) == []
    assert ovs.address_plan([{"name": "ovl", "type": "internal", "address": "10.30.0.3/24"}], links) == [
        ["ip", "link", "set", "dev", "ovl", "up"], ["ip", "addr", "add", "10.30.0.3/24", "dev", "ovl"]]
