"""The guard of the virtual lab's host stages (module_utils/host/emulated.py)
and the inventory's placeholders (module_utils/host/inventory.py)."""
import os

import pytest
import yaml

from ansible_collections.offload.testbed.plugins.module_utils.host import emulated as eh
from ansible_collections.offload.testbed.plugins.module_utils.host import inventory as inventory_check

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
HW = "/lab/.tmp/virtual-lab/hardware/lab-dut"
EMU = "/lab/tests/emulators"
HOST_ROLES = ["doca_host", "nic_firmware", "boot_params", "sriov_switchdev"]
# Options of the host roles that name something on the controller, not the host.
CONTROLLER_SIDE = {"doca_host_repo_package_file"}
PATH_LIKE_SUFFIXES = ("_root", "_file", "_dir", "_path", "_conf", "_script", "_unit", "_dropin", "_command", "_openibd", "_mst",
                      "_mlxfwmanager", "_reposdir")


def confined():
    """A host whose every host-stage variable stays in the emulated world."""
    values = dict((name, HW + "/" + name) for name in eh.PATH_VARIABLES)
    values.update(boot_params_method="grubby", boot_params_reboot_ok=True, boot_params_reboot_command=[EMU + "/host/reboot"],
                  doca_host_openibd=EMU + "/doca/openibd", nic_firmware_openibd=EMU + "/doca/openibd",
                  sriov_switchdev_nm_reload=False, sriov_switchdev_unit_enable=False,
                  nic_firmware_images={"LNV0000000033": {"image": HW + "/var/tmp/fw.bin"}})
    return values


def resolved(values, where=EMU + "/bin"):
    return dict((name, where + "/" + name) for name in eh.programs(values))


def test_a_confined_host_passes():
    values = confined()
    assert eh.errors(values, resolved(values), HW, EMU) == []


@pytest.mark.parametrize("name, value, message", [
    ("boot_params_sysfs_root", "/sys", "boot_params_sysfs_root: /sys is outside the emulated host " + HW),
    ("sriov_switchdev_nm_conf", HW + "/../../../../etc/NetworkManager/conf.d/x.conf", "sriov_switchdev_nm_conf: "),
    ("doca_host_reposdir", "etc/yum.repos.d", "doca_host_reposdir: etc/yum.repos.d is outside"),
    ("nic_firmware_images", {"LNV0000000033": {"image": "/var/tmp/fw.bin"}},
     "nic_firmware_images[LNV0000000033].image: /var/tmp/fw.bin is outside"),
    ("sriov_switchdev_nm_reload", True, "sriov_switchdev_nm_reload: true would act on the real machine; set it to false"),
    ("boot_params_reboot_command", [], "boot_params_reboot_ok: true without boot_params_reboot_command would reboot the real machine"),
    ("doca_host_openibd", "/etc/init.d/openibd", "doca_host_openibd: /etc/init.d/openibd runs /etc/init.d/openibd, not an emulator"),
    ("nic_firmware_openibd", "/etc/init.d/openibd", "nic_firmware_openibd: /etc/init.d/openibd runs /etc/init.d/openibd, not an emulator"),
    ("nic_firmware_reboot_ok", True, "nic_firmware_reboot_ok: true without nic_firmware_reboot_command would reboot the real machine"),
    ("nic_firmware_reboot_command", ["/sbin/reboot"], "nic_firmware_reboot_command: /sbin/reboot runs /sbin/reboot, not an emulator"),
    ("boot_params_grubby_command", "/usr/sbin/grubby", "boot_params_grubby_command: /usr/sbin/grubby runs /usr/sbin/grubby"),
    ("site_host_roles", ["boot_params", "dpdk_host"], "site_host_roles: dpdk_host would act on the real machine: its hugepages are "
                                                      "this machine's own, reserved by the virtual_lab role for the dpdk datapath"),
])
def test_each_way_out_is_refused_naming_its_variable(name, value, message):
    values = confined()
    values[name] = value
    errors = eh.errors(values, resolved(values), HW, EMU)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_an_unset_variable_takes_the_role_default_and_is_refused():
    values = confined()
    del values["boot_params_procfs_root"], values["sriov_switchdev_unit_enable"]
    errors = eh.errors(values, resolved(values), HW, EMU)
    assert "boot_params_procfs_root: not set; its role default is a path of the real machine: set it under " + HW in errors
    assert "sriov_switchdev_unit_enable: unset (the default true) would act on the real machine; set it to false" in errors
    assert len(errors) == 2, errors  # doca_host_mst, unset, is the program mst: found among the emulators


def test_programs_found_outside_the_emulators_are_refused():
    values = confined()
    found = resolved(values)
    found.update(ip="/usr/sbin/ip", flint="")
    errors = eh.errors(values, found, HW, EMU)
    assert errors == ["PATH: flint is not found, not an emulator in " + EMU, "PATH: ip is /usr/sbin/ip, not an emulator in " + EMU]


def test_the_command_boot_params_does_not_run_is_not_checked():
    values = confined()
    assert "update-grub" not in eh.programs(values)
    values["boot_params_method"] = "grub_dropin"
    assert "update-grub" in eh.programs(values) and "boot_params_grubby_command" not in eh.commands(values)


@pytest.mark.parametrize("root", ["", "/", "relative/dir", None])
def test_a_root_that_is_not_a_directory_of_its_own_is_refused(root):
    assert eh.errors(confined(), {}, root, EMU) == ["virtual_lab_hardware_root: %r is not a directory of its own" % (root,)]


def test_under_does_not_take_a_sibling_for_a_child():
    assert eh.under(HW + "/sys", HW) and eh.under(HW, HW)
    assert not eh.under(HW + "-other/sys", HW) and not eh.under(HW + "/../lab-generator", HW)


def path_like_options():
    """Every option of the host roles that names a file, a directory or a command on the host."""
    found = set()
    for role in HOST_ROLES:
        with open(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")) as handle:
            options = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
        for name, spec in options.items():
            if spec.get("type") == "path" or name.endswith(PATH_LIKE_SUFFIXES):
                found.add(name)
    return found - CONTROLLER_SIDE


def test_the_guard_knows_every_path_and_command_option_of_the_host_roles():
    """A new path or command option in a host role must be guarded too."""
    assert path_like_options() == set(eh.PATH_VARIABLES) | set(eh.COMMAND_DEFAULTS)


def test_the_guard_knows_the_defaults_of_the_command_options():
    for role in HOST_ROLES:
        with open(os.path.join(ROOT, "roles", role, "defaults", "main.yml")) as handle:
            defaults = yaml.safe_load(handle)
        for name in set(defaults) & set(eh.COMMAND_DEFAULTS):
            assert eh.program(defaults[name]) == eh.COMMAND_DEFAULTS[name], name


def test_placeholders_are_named_with_host_and_variable():
    found = inventory_check.placeholders([("dut01", "ansible_host", "REPLACE: the address of dut01"),
                                          ("gen01", "ansible_host", "gen01.lab.example"),
                                          ("gen01", "trex_server_archive_checksum", "replace with sha256:..."),
                                          ("gen01", "trex_server_instances", [{"name": "REPLACE"}])])
    assert found == ["dut01: ansible_host is still the placeholder 'REPLACE: the address of dut01'",
                     "gen01: trex_server_archive_checksum is still the placeholder 'replace with sha256:...'"]
