"""The shipped inventories parse with ansible-inventory, and every variable
named after a role of this collection passes that role's argument spec."""
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
INVENTORIES = ["virtual", "lab-cx6lx"]


def role_specs():
    specs = {}
    for role in sorted(os.listdir(os.path.join(ROOT, "roles"))):
        path = os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")
        with open(path) as handle:
            specs[role] = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
    return specs


def plain(spec):
    """An argument_specs.yml option tree as a module argument_spec."""
    out = {}
    for name, option in spec.items():
        # Required arguments may come from a play's vars: only what is given is checked here.
        option = dict((k, v) for k, v in option.items() if k not in ("description", "version_added", "required"))
        if "options" in option:
            option["options"] = plain(option["options"])
        out[name] = option
    return out


def hostvars(inventory):
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-inventory"), "-i",
                          os.path.join(ROOT, "inventories", inventory), "--list"],
                         capture_output=True, text=True, check=False, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)["_meta"]["hostvars"]


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_inventory_parses_and_passes_role_specs(inventory):
    hosts = hostvars(inventory)
    assert {"control", "dut", "generator"} <= set(json.loads(subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-inventory"), "-i", os.path.join(ROOT, "inventories", inventory), "--list"],
        capture_output=True, text=True, check=True, cwd=ROOT).stdout))
    specs = role_specs()
    for host, variables in hosts.items():
        for role, spec in specs.items():
            mine = dict((k, v) for k, v in variables.items() if k.startswith(role + "_"))
            # ansible-inventory does not render templates; those are checked when the role runs.
            mine = dict((k, v) for k, v in mine.items() if not (isinstance(v, str) and "{{" in v))
            unknown = set(mine) - set(spec)
            assert not unknown, "%s: %s not in roles/%s/meta/argument_specs.yml" % (host, sorted(unknown), role)
            result = ArgumentSpecValidator(plain(spec)).validate(mine)
            assert not result.error_messages, "%s: %s" % (host, result.error_messages)


def test_lab_inventory_is_seed_000():
    hosts = hostvars("lab-cx6lx")
    gen = hosts["gen01"]
    assert gen["nic_pf"] == "ens3f0np0"
    assert gen["bench_vlans"] == {"control": 10, "external": 20, "overlay": 30}
    assert gen["bench_encap_type"] == "geneve"
    assert gen["boot_params_hugepages_1g"] == 32
    assert gen["boot_params_isolated_cpus"] == "2-15,34-47"
    assert hosts["ctl01"]["bench_control_ip"].startswith("10.10.0.")
    assert gen["bench_overlay_ip"].startswith("10.30.0.")
    # OVN databases over SSL unless a variable asks for plain TCP.
    assert gen["ovn_central_sb_remote"].startswith("ssl:") and gen["ovs_ovn_remote"] == "{{ ovn_central_sb_remote }}"
    assert gen["ovn_central_allow_insecure"] is False


def test_virtual_inventory_runs_modules_with_the_controller_python():
    for variables in hostvars("virtual").values():
        assert variables["ansible_connection"] == "local"
        assert variables["ansible_python_interpreter"] == "{{ ansible_playbook_python }}"


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_compare_variants_of_the_inventories_are_sound(inventory):
    """playbooks/compare.yml accepts what the inventories give it (the virtual lab: two netdev variants)."""
    from ansible_collections.offload.testbed.plugins.module_utils.bench_compare import plan  # pylint: disable=import-outside-toplevel
    for host, variables in hostvars(inventory).items():
        if "dut" not in host:
            continue
        result = plan(variables.get("bench_compare_variants"), variables.get("bench_compare_datapaths"),
                      variables.get("ovs_other_config", {}), None)
        assert result["errors"] == [], "%s: %s" % (host, result["errors"])
        if inventory == "virtual":
            assert result["names"] == ["netdev-emc", "netdev-noemc"]
            assert [v["datapath"] for v in result["variants"]] == ["netdev", "netdev"]
            assert result["restore_other_config"] == {"emc-insert-inv-prob": None}


def test_lab_inventory_carries_the_seed_topology():
    ctl = hostvars("lab-cx6lx")["ctl01"]
    switches = dict((s["name"], s) for s in ctl["ovn_topology_switches"])
    assert {p["name"] for p in switches["external"]["ports"]} == {"internet", "downlink"}
    assert [p for p in switches["external"]["ports"] if p["name"] == "downlink"][0]["tag"] == 20
    lr0 = ctl["ovn_topology_routers"][0]
    assert lr0["nat"] == [{"type": "dnat_and_snat", "external_ip": "18.0.0.188", "logical_ip": "16.0.0.188"}]
    assert [r["prefix"] for r in lr0["static_routes"]] == ["48.0.0.0/16", "16.0.0.0/16"]
    assert [p for p in lr0["ports"] if p["name"] == "ext_gw"][0]["gateway_chassis"] == [{"chassis": "dut01", "priority": 10}]
    lbs = dict((lb["name"], lb) for lb in ctl["ovn_topology_load_balancers"])
    assert (lbs["lb-web"]["protocol"], lbs["lb-udp"]["protocol"]) == ("tcp", "udp")
    assert all(len(lb["backends"]) == 3 for lb in lbs.values())
