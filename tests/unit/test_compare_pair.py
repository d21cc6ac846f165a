# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""compare.yml's choice of the two variants, as its first task templates it: bench_compare_pair
(a job's survey answer) wins over the inventory's bench_compare_variants."""

import json
import os
import subprocess
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")
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
    environment = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")
    done = subprocess.run([ANSIBLE, "localhost", "-c", "local", "-i", "localhost,", "-e", "@%s" % path, "-e", "ansible_python_interpreter=" + sys.executable,
                           "-m", "ansible.builtin.debug", "-a", "msg={{ __plan.errors or __plan.names }}"],
                          env=environment, capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"]


def test_the_inventorys_variants_without_a_pair(tmp_path):
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS) == ["netdev-emc", "netdev-noemc"]
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=None) == ["netdev-emc", "netdev-noemc"]


def test_a_pair_wins_over_the_inventorys_variants_and_datapaths(tmp_path):
    assert names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=["netdev", "system"]) == ["netdev", "system"]
    assert names(tmp_path, bench_compare_datapaths=["doca", "system"], bench_compare_pair=["system", "netdev"]) == ["system", "netdev"]


def test_a_bad_pair_is_refused_as_datapaths_are(tmp_path):
    errors = names(tmp_path, bench_compare_variants=INVENTORY_VARIANTS, bench_compare_pair=["netdev", "netdev"])
    assert errors == ["bench_compare_pair: both variants are named 'netdev'; the results and the speedup table tell them apart by name"]
    assert names(tmp_path, bench_compare_pair=["netdev", "kernel"]) == ["bench_compare_pair[1]: 'kernel' is not one of doca, system, netdev"]
