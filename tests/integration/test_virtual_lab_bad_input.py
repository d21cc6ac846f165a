"""The virtual_lab role refuses each kind of bad lab before it creates anything.

Runs the real role with ansible-playbook against this machine; after each
refusal no namespace exists that was not there before.
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)

NETWORKS = [{"name": "control", "cidr": "10.10.0.0/24", "vlan": 10},
            {"name": "servers", "cidr": "192.168.0.0/24", "vlan": 30}]
NAMESPACES = [{"name": "ltb-bad1", "links": [{"name": "eth0", "peer": "ltb-bad1", "network": "servers", "address": "192.168.0.3/24"}]},
              {"name": "ltb-bad2", "links": [{"name": "eth0", "peer": "ltb-bad2", "network": "servers", "address": "192.168.0.4/24"}]}]

CASES = {
    "malformed CIDR": ({"virtual_lab_networks": [NETWORKS[0], dict(NETWORKS[1], cidr="192.168.0.0/33")]},
                       "virtual_lab_networks[1].cidr: '192.168.0.0/33' (network servers) is not a valid CIDR"),
    "VLAN 0": ({"virtual_lab_networks": [dict(NETWORKS[0], vlan=0), NETWORKS[1]]},
               "virtual_lab_networks[0].vlan: 0 (network control) is outside 1..4094"),
    "VLAN 4095": ({"virtual_lab_networks": [NETWORKS[0], dict(NETWORKS[1], vlan=4095)]},
                  "virtual_lab_networks[1].vlan: 4095 (network servers) is outside 1..4094"),
    "namespace twice": ({"virtual_lab_namespaces": [NAMESPACES[0], dict(NAMESPACES[1], name="ltb-bad1")]},
                        "virtual_lab_namespaces[1].name: namespace 'ltb-bad1' is declared twice"),
    "address outside its subnet": (
        {"virtual_lab_namespaces": [NAMESPACES[0], {"name": "ltb-bad2", "links": [dict(NAMESPACES[1]["links"][0], address="192.168.1.4/24")]}]},
        "virtual_lab_namespaces[1].links[0].address: 192.168.1.4/24 is outside its subnet 192.168.0.0/24 (network servers)"),
}


def namespaces():
    return set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout.split())


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_lab_is_refused_before_anything_exists(case, playbook_env, tmp_path):
    extra, message = CASES[case]
    variables = {"virtual_lab_networks": NETWORKS, "virtual_lab_namespaces": NAMESPACES, "virtual_lab_internal_ports": [],
                 "virtual_lab_manage_ovs": False}
    variables.update(extra)
    (tmp_path / "vars.json").write_text(json.dumps(variables))
    before = namespaces()
    run = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(ROOT, "inventories", "virtual"),
                          os.path.join(ROOT, "playbooks", "prepare.yml"), "--limit", "lab-dut",
                          "-e", "@%s" % (tmp_path / "vars.json")],
                         capture_output=True, text=True, env=playbook_env, cwd=ROOT, check=False)
    assert run.returncode != 0, run.stdout
    assert message in run.stdout, run.stdout[-3000:]
    assert "Invalid virtual lab" in run.stdout
    # Other tests may make namespaces of their own meanwhile: only the lab's count.
    assert not {name for name in namespaces() - before if name.startswith("ltb-")}
    assert not namespaces() & {"ltb-bad1", "ltb-bad2"}
