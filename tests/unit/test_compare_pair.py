# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""compare.yml's choice of the two variants, as its first task templates it: bench_compare_pair
(a job's survey answer) wins over the inventory's bench_compare_variants."""

import json
import os

import yaml

from ansible_collections.offload.testbed.tests.unit.ansible_debug import ROOT, templated

INVENTORY_VARIANTS = [{"name": "netdev-emc", "datapath": "netdev"},
                      {"name": "netdev-noemc", "datapath": "netdev", "other_config": {"emc-insert-inv-prob": "0"}}]


def plan_expression():
    with open(os.path.join(ROOT, "playbooks", "compare.yml")) as handle:
        plays = yaml.safe_load(handle)
    task = plays[0]["tasks"][0]
    return task["ansible.builtin.set_fact"]["__bench_compare"]


def names(tmp_path, **variables):
    """The variants' names compare.yml would measure, or its errors, with these variables set."""
    variables["__plan"] = plan_expression()
    path = tmp_path / "vars.json"
    path.write_text(json.dumps(variables))
    return templated("{{ __plan.errors or __plan.names }}", ["@%s" % path])


def test_the_inventorys_variants_without_a_pair(tmp_path):
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS) == ["netdev-emc", "netdev-noemc"]
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=None) == ["netdev-emc", "netdev-noemc"]


def test_a_pair_wins_over_the_inventorys_variants_and_datapaths(tmp_path):
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=["netdev", "system"]) == ["netdev", "system"]
    assert names(tmp_path, bench_compare_datapaths=["doca", "system"], bench_compare_pair=["system", "netdev"]) == ["system", "netdev"]


def test_a_bad_pair_is_refused_as_datapaths_are(tmp_path):
    errors = names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=["netdev", "netdev"])
    assert errors == ["bench_compare_pair: 2 variants are named 'netdev'; the results and the speedup table tell them apart by name"]
    assert names(tmp_path, bench_compare_pair=["netdev", "kernel"]) == ["bench_compare_pair[1]: 'kernel' is not one of doca, system, netdev, dpdk"]
