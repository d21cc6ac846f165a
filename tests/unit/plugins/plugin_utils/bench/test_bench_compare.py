"""What playbooks/compare.yml compares: the variants, their ovs role settings, the restore, the refusals."""
import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import compare as bench_compare
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs

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
    # the first variant removes what the second adds: a run again after a failed one starts from the same state
    assert emc["ovs_other_config"] == {"smc-enable": "true", "emc-insert-inv-prob": None} and emc["ovs_hw_offload"] is False
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
    assert software["ovs_other_config"] == {"smc-enable": None, "max-idle": None}
    assert plan["restore_other_config"] == {"smc-enable": "false", "max-idle": None}


@pytest.mark.parametrize("variants, datapaths, message", [
    (LAB[:1], None, "bench_compare_variants: give a list of 2 to 6 variants, the last the baseline"),
    (LAB * 4, None, "bench_compare_variants: give a list of 2 to 6 variants"),
    (LAB + LAB[:1], None, "bench_compare_variants: 2 variants are named 'netdev-emc'"),
    ({"name": "x"}, None, "bench_compare_variants: give a list of 2 to 6 variants"),
    (LAB, ["netdev", "system"], "bench_compare_variants and bench_compare_datapaths: give one of them, not both"),
    ([LAB[0], dict(LAB[1], name="netdev-emc")], None, "bench_compare_variants: 2 variants are named 'netdev-emc'"),
    ([LAB[0], dict(LAB[1], datapath="vpp")], None, "bench_compare_variants[1].datapath: 'vpp' is not one of doca, system, netdev, dpdk"),
    ([LAB[0], dict(LAB[1], name="no emc")], None, "bench_compare_variants[1].name: 'no emc' is not a label"),
    ([{"datapath": "netdev"}, LAB[1]], None, "bench_compare_variants[0].name: None is not a label"),
    ([LAB[0], dict(LAB[1], other_config="emc-insert-inv-prob=0")], None,
     "bench_compare_variants[1].other_config: 'emc-insert-inv-prob=0' is not a mapping"),
    ([LAB[0], dict(LAB[1], other_config={"hw-offload": "true"})], None,
     "bench_compare_variants[1].other_config: hw-offload cannot be set here; set hw_offload instead"),
    ([LAB[0], dict(LAB[1], other_config={"pmd-cpu-mask": "0x3"})], None,
     "bench_compare_variants[1].other_config: pmd-cpu-mask cannot be set here; set pmd_cpu_mask instead"),
    ([LAB[0], dict(LAB[1], pmd_cpu_mask=2)], None, "bench_compare_variants[1].pmd_cpu_mask: 2 is not a hexadecimal CPU mask"),
    ([LAB[0], dict(LAB[1], other_config={"a": [1]})], None, "bench_compare_variants[1].other_config.a: [1] is not a single value"),
    ([LAB[0], dict(LAB[1], hw_offload="yes")], None, "bench_compare_variants[1].hw_offload: 'yes' is not true or false"),
    ([LAB[0], dict(LAB[1], ovs_datapath="netdev")], None, "bench_compare_variants[1]: unknown keys ovs_datapath"),
    (["netdev", LAB[1]], None, "bench_compare_variants[0]: 'netdev' is not a mapping"),
    (None, ["doca"], "bench_compare_datapaths: give a list of 2 to 6 datapaths [A, ..., B], the last the baseline"),
    ([LAB[0], dict(LAB[1], uplink_type="dpdk x")], None, "bench_compare_variants[1].uplink_type: 'dpdk x' is not an interface type"),
    ([LAB[0], dict(LAB[1], uplink_options="dpdk-devargs=x")], None, "bench_compare_variants[1].uplink_options: 'dpdk-devargs=x' is not a mapping"),
    (None, ["doca", "kernel"], "bench_compare_datapaths[1]: 'kernel' is not one of doca, system, netdev, dpdk"),
    (None, ["netdev", "netdev"], "bench_compare_datapaths: 2 variants are named 'netdev'"),
])
def test_refusals_name_the_variable(variants, datapaths, message):
    plan = bench_compare.plan(variants, datapaths)
    assert any(error.startswith(message) for error in plan["errors"]), plan["errors"]
    assert plan["variants"] == [] and plan["names"] == []


def test_every_problem_is_listed():
    plan = bench_compare.plan([{"name": "a b", "datapath": "x"}, {"name": "b", "datapath": "netdev", "hw_offload": 1}])
    assert len(plan["errors"]) == 3, plan["errors"]


def test_more_variants_the_last_the_baseline_each_with_its_uplink():
    """The VM lab's table: the kernel datapath with TC, the userspace datapath on the kernel device, OVS-DPDK on DPDK's
    AF_PACKET driver, against the kernel datapath; a variant without uplink keys keeps the inventory's (None)."""
    variants = [{"name": "system-tc", "datapath": "system", "hw_offload": True, "other_config": {"tc-policy": "skip_hw"}},
                {"name": "netdev", "datapath": "netdev", "uplink_type": "system"},
                {"name": "dpdk", "datapath": "dpdk", "uplink_type": "dpdk", "uplink_options": {"dpdk-devargs": "net_af_packet0,iface=enp2s0"},
                 "pmd_cpu_mask": "0x2"},
                {"name": "system", "datapath": "system", "hw_offload": False}]
    plan = bench_compare.plan(variants, None, {}, None)
    assert plan["errors"] == [] and plan["names"] == ["system-tc", "netdev", "dpdk", "system"]
    assert [(v["uplink_type"], v["uplink_options"]) for v in plan["variants"]] == [
        (None, None), ("system", None), ("dpdk", {"dpdk-devargs": "net_af_packet0,iface=enp2s0"}), (None, None)]
    assert [v["pmd_cpu_mask"] for v in plan["variants"]] == [None, None, "0x2", None]
    removed = {"dpdk-devargs": None}
    assert [v["uplink_options_removed"] for v in plan["variants"]] == [removed, removed, {}, removed]
    assert plan["restore_uplink_options"] == {"dpdk-devargs": None}
    # no variant keeps what the one before it set: netdev and the baseline run without tc-policy and the PMD mask
    assert [v["ovs_other_config"] for v in plan["variants"]] == [
        {"tc-policy": "skip_hw", "pmd-cpu-mask": None}, {"tc-policy": None, "pmd-cpu-mask": None}, {"tc-policy": None},
        {"tc-policy": None, "pmd-cpu-mask": None}]
    # the dpdk variant's PMD mask is removed at the restore, unless the inventory has one of its own (the role writes it)
    assert plan["restore_other_config"] == {"tc-policy": None, "pmd-cpu-mask": None}
    assert bench_compare.plan(variants, None, {}, None, None, "0x6")["restore_other_config"] == {"tc-policy": None}
    assert bench_compare.plan(None, ["dpdk", "netdev", "system"])["names"] == ["dpdk", "netdev", "system"]


def test_the_uplink_of_type_system_is_the_databases_empty_type():
    """A variant's uplink_type system is written as the database's "" (a system device): read back, it is no change."""
    switch = ovs.role_switch({"datapath": "netdev", "uplink": "enp2s0", "uplink_type": "system", "uplink_trunks": [20, 30],
                              "system_id": "dut01", "ovn_bridge": "br-int", "ovn_encap_type": "geneve", "ovn_bridge_mappings": "",
                              "underlay_bridge": "underlay", "integration_bridge": "br-int"})
    uplink = [port for bridge in switch["bridges"] for port in bridge["ports"] if port["name"] == "enp2s0"]
    assert [port["type"] for port in uplink] == [""]
