"""What playbooks/compare.yml compares: the variants, their ovs role settings, the restore, the refusals."""
import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import compare as bench_compare
from ansible_collections.offload.testbed.plugins.module_utils import ovs

LAB = [{"name": "netdev-emc", "datapath": "netdev"},
       {"name": "netdev-noemc", "datapath": "netdev", "other_config": {"emc-insert-inv-prob": "0"}}]


def test_datapaths_are_variants_named_after_them():
    plan = bench_compare.plan(None, ["doca", "system"])
    assert plan["errors"] == [] and plan["names"] == ["doca", "system"]
    doca, system = plan["variants"]
    assert (doca["datapath"], doca["ovs_hw_offload"], doca["ovs_other_config"]) == ("doca", True, {})
    assert (system["datapath"], system["ovs_hw_offload"], system["ovs_other_config"]) == ("system", False, {})
    assert plan["restore_other_config"] == {}


def test_default_is_doca_against_system():
    assert bench_compare.plan()["names"] == ["doca", "system"]


def test_datapaths_keep_the_inventory_other_config_and_hw_offload():
    plan = bench_compare.plan(None, ["doca", "system"], {"smc-enable": "true"}, True)
    assert [v["ovs_other_config"] for v in plan["variants"]] == [{"smc-enable": "true"}] * 2
    assert [v["ovs_hw_offload"] for v in plan["variants"]] == [True, True]
    assert plan["restore_other_config"] == {"smc-enable": "true"}


def test_lab_variants_merge_into_the_inventory_and_restore_removes_what_they_added():
    plan = bench_compare.plan(LAB, None, {"smc-enable": "true"}, None)
    assert plan["errors"] == [] and plan["names"] == ["netdev-emc", "netdev-noemc"]
    emc, noemc = plan["variants"]
    assert emc["ovs_other_config"] == {"smc-enable": "true"} and emc["ovs_hw_offload"] is False
    assert noemc["ovs_other_config"] == {"smc-enable": "true", "emc-insert-inv-prob": "0"}
    assert noemc["other_config"] == {"emc-insert-inv-prob": "0"}
    assert plan["restore_other_config"] == {"smc-enable": "true", "emc-insert-inv-prob": None}


def test_restore_is_one_ovs_transaction_that_removes_the_added_key():
    """The restore's other_config, through the ovs role's declaration, removes the key from the database."""
    plan = bench_compare.plan(LAB, None, {}, None)
    model = {"open_vswitch": {"other_config": {"hw-offload": "false", "default-datapath-type": "netdev", "emc-insert-inv-prob": "0"},
                              "external_ids": {}}, "bridges": {}, "ports": {}, "interfaces": {}}
    cmds, restart = ovs.plan({"other_config": dict({"hw-offload": "false", "default-datapath-type": "netdev"}, **plan["restore_other_config"])},
                             model)
    assert cmds == [["remove", "Open_vSwitch", ".", "other_config", "emc-insert-inv-prob"]] and restart == []
    model["open_vswitch"]["other_config"].pop("emc-insert-inv-prob")
    assert ovs.plan({"other_config": plan["restore_other_config"]}, model) == ([], [])


def test_hw_offload_variants_on_one_datapath_and_values_as_ovsdb_text():
    variants = [{"name": "offload", "datapath": "doca", "hw_offload": True, "other_config": {"max-idle": 30000, "smc-enable": True}},
                {"name": "no-offload", "datapath": "doca", "hw_offload": False, "other_config": {"smc-enable": None}}]
    plan = bench_compare.plan(variants, None, {"smc-enable": "false"}, None)
    assert plan["errors"] == []
    offload, software = plan["variants"]
    assert offload["ovs_hw_offload"] is True and software["ovs_hw_offload"] is False
    assert offload["ovs_other_config"] == {"smc-enable": "true", "max-idle": "30000"}
    assert software["ovs_other_config"] == {"smc-enable": None}
    assert plan["restore_other_config"] == {"smc-enable": "false", "max-idle": None}


@pytest.mark.parametrize("variants, datapaths, message", [
    (LAB[:1], None, "bench_compare_variants: give a list of exactly two variants"),
    (LAB + LAB[:1], None, "bench_compare_variants: give a list of exactly two variants"),
    ({"name": "x"}, None, "bench_compare_variants: give a list of exactly two variants"),
    (LAB, ["netdev", "system"], "bench_compare_variants and bench_compare_datapaths: give one of them, not both"),
    ([LAB[0], dict(LAB[1], name="netdev-emc")], None, "bench_compare_variants: both variants are named 'netdev-emc'"),
    ([LAB[0], dict(LAB[1], datapath="vpp")], None, "bench_compare_variants[1].datapath: 'vpp' is not one of doca, system, netdev, dpdk"),
    ([LAB[0], dict(LAB[1], name="no emc")], None, "bench_compare_variants[1].name: 'no emc' is not a label"),
    ([{"datapath": "netdev"}, LAB[1]], None, "bench_compare_variants[0].name: None is not a label"),
    ([LAB[0], dict(LAB[1], other_config="emc-insert-inv-prob=0")], None,
     "bench_compare_variants[1].other_config: 'emc-insert-inv-prob=0' is not a mapping"),
    ([LAB[0], dict(LAB[1], other_config={"hw-offload": "true"})], None,
     "bench_compare_variants[1].other_config: hw-offload cannot be set here; set hw_offload instead"),
    ([LAB[0], dict(LAB[1], other_config={"pmd-cpu-mask": "0x3"})], None, "bench_compare_variants[1].other_config: pmd-cpu-mask cannot be set here"),
    ([LAB[0], dict(LAB[1], other_config={"a": [1]})], None, "bench_compare_variants[1].other_config.a: [1] is not a single value"),
    ([LAB[0], dict(LAB[1], hw_offload="yes")], None, "bench_compare_variants[1].hw_offload: 'yes' is not true or false"),
    ([LAB[0], dict(LAB[1], ovs_datapath="netdev")], None, "bench_compare_variants[1]: unknown keys ovs_datapath"),
    (["netdev", LAB[1]], None, "bench_compare_variants[0]: 'netdev' is not a mapping"),
    (None, ["doca"], "bench_compare_datapaths: give a list of exactly two datapaths"),
    (None, ["doca", "kernel"], "bench_compare_datapaths[1]: 'kernel' is not one of doca, system, netdev, dpdk"),
    (None, ["netdev", "netdev"], "bench_compare_datapaths: both variants are named 'netdev'"),
])
def test_refusals_name_the_variable(variants, datapaths, message):
    plan = bench_compare.plan(variants, datapaths)
    assert any(error.startswith(message) for error in plan["errors"]), plan["errors"]
    assert plan["variants"] == [] and plan["names"] == []


def test_every_problem_is_listed():
    plan = bench_compare.plan([{"name": "a b", "datapath": "x"}, {"name": "b", "datapath": "netdev", "hw_offload": 1}])
    assert len(plan["errors"]) == 3, plan["errors"]
