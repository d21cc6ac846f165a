"""The guard of the virtual inventory's host stages stops playbooks/prepare.yml
before any host role runs when one could touch the real machine.

Each case runs the real playbook on inventories/virtual (lab-generator, its
emulated hardware under a temporary directory) with one variable turned
towards the real machine, and checks the refusal names that variable, that no
host role started and that the emulated world has no trace of a host stage.
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
HOST_ROLES = ("doca_host", "nic_firmware", "boot_params", "sriov_switchdev")

CASES = {
    "sysfs of the real machine": ({"boot_params_sysfs_root": "/sys"}, "boot_params_sysfs_root: /sys is outside the emulated host"),
    "NetworkManager reloaded": ({"sriov_switchdev_nm_reload": True},
                                "sriov_switchdev_nm_reload: true would act on the real machine; set it to false"),
    "systemd unit enabled": ({"sriov_switchdev_unit_enable": True}, "sriov_switchdev_unit_enable: true would act on the real machine"),
    "the real reboot": ({"boot_params_reboot_command": []},
                        "boot_params_reboot_ok: true without boot_params_reboot_command would reboot the real machine"),
    "the real PATH": ({"site_host_environment": {}}, "PATH: grubby is not found, not an emulator in"),
    "a firmware image outside": ({"nic_firmware_images": {"LNV0000000033": {"image": "/var/tmp/offload-testbed/fw.bin"}}},
                                 "nic_firmware_images[LNV0000000033].image: /var/tmp/offload-testbed/fw.bin is outside"),
    "the real boot entries' grubby": ({"boot_params_grubby_command": "/usr/sbin/grubby"},
                                      "boot_params_grubby_command: /usr/sbin/grubby runs /usr/sbin/grubby, not an emulator"),
    "the real reboot to activate firmware": ({"nic_firmware_reboot_ok": True},
                                             "nic_firmware_reboot_ok: true without nic_firmware_reboot_command would reboot the real machine"),
}


def traces(world):
    """Files a host stage would leave in the emulated world."""
    names = ["state/grubby/info.txt", "state/net.json", "state/doca/calls.log", "state/mlnx/calls.log",
             "var/lib/offload-testbed/boot_params.json", "usr/local/sbin/offload-testbed-sriov-switchdev"]
    return [name for name in names if os.path.exists(os.path.join(world, name))]


def refused_run(playbook_env, tmp_path, variables):
    """prepare.yml on lab-generator with ``variables``: (the run, its emulated world)."""
    world = str(tmp_path / "hardware")
    (tmp_path / "vars.json").write_text(json.dumps(dict(variables, virtual_lab_hardware_root=world)))
    run = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", os.path.join(ROOT, "inventories", "virtual"),
                          os.path.join(ROOT, "playbooks", "prepare.yml"), "--limit", "lab-generator",
                          "-e", "@%s" % (tmp_path / "vars.json")],
                         capture_output=True, text=True, env=playbook_env, cwd=ROOT, check=False)
    return run, world


def assert_refused_before_any_role(run, world):
    assert run.returncode != 0, run.stdout[-3000:]
    assert "would reach the real machine" in run.stdout, run.stdout[-3000:]
    assert not [role for role in HOST_ROLES if "offload.testbed.%s :" % role in run.stdout], run.stdout[-3000:]
    assert os.path.exists(os.path.join(world, "proc", "cmdline"))  # the world was built, then the guard stopped
    assert traces(world) == []


@pytest.mark.parametrize("case", ["sysfs of the real machine", "the real PATH"])
def test_one_way_out_is_refused_naming_its_variable(case, playbook_env, tmp_path):
    extra, message = CASES[case]
    run, world = refused_run(playbook_env, tmp_path, extra)
    assert_refused_before_any_role(run, world)
    assert message in run.stdout, run.stdout[-3000:]


def test_every_way_out_is_named_in_one_refusal(playbook_env, tmp_path):
    variables = {}
    for extra, _message in CASES.values():
        variables.update(extra)
    run, world = refused_run(playbook_env, tmp_path, variables)
    assert_refused_before_any_role(run, world)
    missing = [case for case, (_extra, message) in sorted(CASES.items()) if message not in run.stdout]
    assert not missing, run.stdout[-4000:]
