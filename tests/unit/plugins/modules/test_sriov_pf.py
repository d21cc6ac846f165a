"""sriov_pf against a fake sysfs tree (tests/emulators/grubby/fake_host.py)
with devlink and ip answered from a table; the devlink answers have the
layouts of tests/fixtures/devlink_*."""
import importlib.machinery
import importlib.util
import json
import os
import shutil

import pytest

from ansible_collections.offload.testbed.plugins.modules import sriov_pf
from modtest import run_module

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
PF = "enp8s0f1np1"
H = "pci/0000:08:00.1"
MACS = {"0": "50:54:00:00:00:06", "1": "b2:23:54:c4:4c:cf"}


def fake_host(tmp_path):
    path = os.path.join(ROOT, "tests", "emulators", "grubby", "fake_host.py")
    loader = importlib.machinery.SourceFileLoader("fake_host", path)
    spec = importlib.util.spec_from_loader("fake_host", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.build(str(tmp_path))
    return os.path.join(str(tmp_path), "sys")


class Nic(object):
    """Answers devlink and ip from a little state, as the kernel would."""

    def __init__(self, sysfs, mode="legacy", refuse_vf_address=False):
        self.sysfs = sysfs
        self.mode = mode
        self.refuse = refuse_vf_address
        self.vf_macs = {}
        self.links = {}

    def numvfs(self):
        with open(os.path.join(self.sysfs, "bus", "pci", "devices", "0000:08:00.1", "sriov_numvfs")) as handle:
            return int(handle.read())

    def link(self, name):
        state = self.links.get(name, {"address": "9a:4e:0c:6b:3f:00", "up": False})
        entry = {"ifname": name, "flags": ["BROADCAST", "MULTICAST"] + (["UP"] if state["up"] else []), "address": state["address"]}
        if name == PF:
            entry["vfinfo_list"] = [{"vf": i, "address": self.vf_macs.get(i, "00:00:00:00:00:00")} for i in range(self.numvfs())]
        return (0, json.dumps([entry]), "")

    def table(self, extra=None):
        table = {
            ("devlink", "-j", "dev", "eswitch", "show", H): lambda calls: (0, json.dumps({"dev": {H: {"mode": self.mode}}}), ""),
            ("devlink", "dev", "eswitch", "set", H, "mode", "switchdev"): lambda calls: self.set_mode(),
            ("devlink", "-j", "port", "show"): lambda calls: (0, json.dumps({"port": dict(
                ("%s/%d" % (H, i + 1), {"type": "eth", "netdev": "enp8s0f1npf1vf%d" % i, "flavour": "pcivf", "pfnum": 1, "vfnum": i,
                                        "function": {"hw_addr": self.vf_macs.get(i)}}) for i in range(self.numvfs()))}), ""),
        }
        names = [PF] + ["enp8s0f1v%d" % i for i in range(8)] + ["enp8s0f1npf1vf%d" % i for i in range(8)]
        for name in names:
            table[("ip", "-j", "link", "show", "dev", name)] = lambda calls, name=name: self.link(name)
            table[("ip", "link", "set", "dev", name, "up")] = lambda calls, name=name: self.set(name, "up", True)
        for i, mac in MACS.items():
            table[("ip", "link", "set", "dev", PF, "vf", i, "mac", mac)] = lambda calls, i=i, mac=mac: self.set_vf(int(i), mac)
            table[("ip", "link", "set", "dev", "enp8s0f1v" + i, "address", mac)] = lambda calls, i=i, mac=mac: self.set_address(int(i), mac)
        table.update(extra or {})
        return table

    def set_mode(self):
        if self.numvfs():
            # What mlx5 answers when VFs exist (tests/fixtures/devlink_dev_eswitch_set_switchdev_failed_mlx5.txt).
            return (1, "", "Error: mlx5_core: Failed setting eswitch to offloads.\nkernel answers: Invalid argument\n")
        self.mode = "switchdev"
        return (0, "", "")

    def set(self, name, key, value):
        self.links.setdefault(name, {"address": "9a:4e:0c:6b:3f:00", "up": False})[key] = value
        return (0, "", "")

    def set_vf(self, index, mac):
        self.vf_macs[index] = mac
        return (0, "", "")

    def set_address(self, index, mac):
        if self.refuse:
            return (2, "", "RTNETLINK answers: Permission denied")
        return self.set("enp8s0f1v%d" % index, "address", mac)


def args(sysfs, **kw):
    base = {"pf": PF, "numvfs": 2, "vf_macs": MACS, "sysfs_root": sysfs, "timeout": 1}
    base.update(kw)
    return base


def test_switchdev_vfs_macs_links_representors_then_nothing(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    nic = Nic(sysfs)
    numvfs = os.path.join(sysfs, "class", "net", PF, "device", "sriov_numvfs")
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, _ansible_diff=True), nic.table(), monkeypatch)
    assert not failed, result
    assert result["commands"] == [
        "devlink dev eswitch set pci/0000:08:00.1 mode switchdev",
        "echo 2 > %s" % numvfs,
        "ip link set dev enp8s0f1np1 up",
        "ip link set dev enp8s0f1np1 vf 0 mac 50:54:00:00:00:06",
        "ip link set dev enp8s0f1v0 address 50:54:00:00:00:06",
        "ip link set dev enp8s0f1v0 up",
        "ip link set dev enp8s0f1np1 vf 1 mac b2:23:54:c4:4c:cf",
        "ip link set dev enp8s0f1v1 address b2:23:54:c4:4c:cf",
        "ip link set dev enp8s0f1v1 up",
        "ip link set dev enp8s0f1npf1vf0 up",
        "ip link set dev enp8s0f1npf1vf1 up",
    ]
    assert result["pci"] == "0000:08:00.1" and result["mode"] == "switchdev" and result["devlink_json"] is True
    assert [vf["representor"] for vf in result["vfs"]] == ["enp8s0f1npf1vf0", "enp8s0f1npf1vf1"]
    assert [vf["pci"] for vf in result["vfs"]] == ["0000:08:01.0", "0000:08:01.1"]
    assert result["diff"]["before"] == "mode legacy numvfs 0\nvf 0 mac 00:00:00:00:00:00\nvf 1 mac 00:00:00:00:00:00\n"
    assert result["diff"]["after"] == "mode switchdev numvfs 2\nvf 0 mac 50:54:00:00:00:06\nvf 1 mac b2:23:54:c4:4c:cf\n"
    with open(numvfs) as handle:
        assert handle.read() == "2\n"
    again, failed, calls = run_module(sriov_pf.main, args(sysfs), nic.table(), monkeypatch)
    assert not failed and again["changed"] is False and again["commands"] == []


def test_vfs_go_to_zero_before_the_mode_change(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    numvfs = os.path.join(sysfs, "class", "net", PF, "device", "sriov_numvfs")
    with open(numvfs, "w") as handle:
        handle.write("4\n")
    nic = Nic(sysfs)
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, vf_macs={}, links_up=False), nic.table(), monkeypatch)
    assert not failed, result
    assert result["commands"][:3] == ["echo 0 > %s" % numvfs, "devlink dev eswitch set pci/0000:08:00.1 mode switchdev", "echo 2 > %s" % numvfs]


def test_check_mode_writes_nothing(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    nic = Nic(sysfs)
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, _ansible_check_mode=True), nic.table(), monkeypatch)
    assert not failed and result["changed"] is True
    assert "ip link set dev <VF 1 netdev> address b2:23:54:c4:4c:cf" in result["commands"]
    assert calls == [("devlink", "-j", "dev", "eswitch", "show", H)]
    assert nic.mode == "legacy" and nic.numvfs() == 0


def test_text_fallback_for_old_devlink(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    nic = Nic(sysfs, mode="switchdev")
    with open(os.path.join(ROOT, "tests", "fixtures", "devlink_dev_eswitch_show_two_pfs.txt")) as handle:
        text = handle.read().replace("mode legacy", "mode switchdev")
    extra = {
        ("devlink", "-j", "dev", "eswitch", "show", H): (1, "", "devlink: invalid option -- 'j'"),
        ("devlink", "dev", "eswitch", "show", H): (0, text, ""),
        ("devlink", "port", "show"): lambda calls: (0, "%s/1: type eth netdev enp8s0f1npf1vf0 flavour pcivf controller 0 pfnum 1 vfnum 0 "
                                                    "external false splittable false\n" % H, ""),
    }
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, numvfs=1, vf_macs={}), nic.table(extra), monkeypatch)
    assert not failed, result
    assert result["devlink_json"] is False and result["vfs"][0]["representor"] == "enp8s0f1npf1vf0"


def test_rebinds_a_vf_that_refuses_its_address(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    nic = Nic(sysfs, refuse_vf_address=True)
    original = nic.link

    def link(name):
        if name.startswith("enp8s0f1v") and nic.vf_macs.get(int(name[-1])):
            drivers = os.path.join(sysfs, "bus", "pci", "drivers", "mlx5_core", "bind")
            with open(drivers) as handle:
                if "0000:08:01.%s" % name[-1] in handle.read():
                    nic.links.setdefault(name, {"up": False})["address"] = nic.vf_macs[int(name[-1])]
        return original(name)

    nic.link = link
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, numvfs=1, vf_macs={"0": MACS["0"]}), nic.table(), monkeypatch)
    assert not failed, result
    drivers = os.path.join(sysfs, "bus", "pci", "drivers", "mlx5_core")
    assert "echo 0000:08:01.0 > %s/unbind" % drivers in result["commands"]
    assert "echo 0000:08:01.0 > %s/bind" % drivers in result["commands"]


SHOW = ("devlink", "-j", "dev", "eswitch", "show", H)
NAMES = {"pf": "sriov_switchdev_pfs[0].name", "pci": "sriov_switchdev_pfs[0].pci", "numvfs": "sriov_switchdev_numvfs",
         "vf_macs": "sriov_switchdev_vf_macs", "vf_driver": "sriov_switchdev_vf_driver", "timeout": "sriov_switchdev_timeout"}


def snapshot(root):
    """Every file under the fake host with its content: what a refused run must leave as it was."""
    result = {}
    for directory, unused, files in os.walk(root):
        for name in files:
            with open(os.path.join(directory, name), "rb") as handle:
                result[os.path.join(directory, name)] = handle.read()
    return result


@pytest.mark.parametrize("kw, reads, message", [
    ({"numvfs": 16}, [SHOW],
     "sriov_switchdev_numvfs: 16 is outside 0..8, the VFs enp8s0f1np1 can have (sriov_totalvfs); set it to at most 8, or raise "
     "NUM_OF_VFS in the firmware (mlxconfig -d 0000:08:00.1 set SRIOV_EN=1 NUM_OF_VFS=16) and reset the card"),
    ({"numvfs": -2, "vf_macs": {}}, [SHOW], "sriov_switchdev_numvfs: -2 is not a VF count; write 0 (no VF) or more"),
    ({"pf": "nope0"}, [],
     "sriov_switchdev_pfs[0].name: 'nope0' is no network device on this host (nothing at %s/class/net/nope0); write the netdev "
     "name of the PF (its SR-IOV PFs: enp8s0f1np1; ip -br link lists the netdevs)"),
    ({"pf": "enp8s0f1v0"}, [], "sriov_switchdev_pfs[0].name: 'enp8s0f1v0' is not an SR-IOV PF (its device 0000:08:01.0 has no sriov_totalvfs)"),
    ({"pci": "0000:08:00"}, [],
     "sriov_switchdev_pfs[0].pci: '0000:08:00' is not a PCI address; write domain:bus:device.function in hexadecimal"),
    ({"pci": "0000:08:00.0"}, [],
     "sriov_switchdev_pfs[0].pci: '0000:08:00.0' is not the PCI address of enp8s0f1np1 (sysfs has 0000:08:00.1); write "
     '"0000:08:00.1" or leave it unset'),
    ({"vf_macs": {"3": "50:54:00:00:00:06"}}, [SHOW],
     "sriov_switchdev_vf_macs[3]: VF 3 does not exist with 2 VFs (sriov_switchdev_numvfs); use an index 0..1 or raise "
     "sriov_switchdev_numvfs"),
    ({"vf_macs": {"0": "50:54:00:00:00:06", "1": "50:54:00:00:00:06"}}, [SHOW],
     "sriov_switchdev_vf_macs: VFs 0 and 1 have the same MAC 50:54:00:00:00:06; give each VF its own"),
    ({"vf_macs": {"0": "ff:ff:ff:ff:ff:ff"}}, [SHOW], "sriov_switchdev_vf_macs[0]: 'ff:ff:ff:ff:ff:ff' is a multicast address"),
    ({"vf_driver": "mlx5-core"}, [SHOW],
     "sriov_switchdev_vf_driver: 'mlx5-core' is no PCI driver of this host (nothing at %s/bus/pci/drivers/mlx5-core) nor a module of its kernel (the PF's "
     "driver is mlx5_core)"),
    ({"timeout": 0}, [SHOW], "sriov_switchdev_timeout: 0 is outside 1..3600"),
])
def test_refusals_after_reading_before_any_change(tmp_path, monkeypatch, kw, reads, message):
    sysfs = fake_host(tmp_path)
    before = snapshot(str(tmp_path))
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, names=NAMES, **kw), Nic(sysfs).table(), monkeypatch)
    assert failed and calls == reads and result["commands"] == []
    assert message.replace("%s", sysfs) in result["msg"], result["msg"]
    assert snapshot(str(tmp_path)) == before


def test_every_problem_at_once(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    kw = {"pci": "0000:08:00.1", "numvfs": 9, "vf_macs": {"9": "51:00:00:00:00:01"}, "timeout": -1, "names": NAMES}
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, **kw), Nic(sysfs).table(), monkeypatch)
    assert failed and [e.split(":", 1)[0] for e in result["errors"]] == [
        "sriov_switchdev_timeout", "sriov_switchdev_numvfs", "sriov_switchdev_vf_macs[9]", "sriov_switchdev_vf_macs[9]"]
    assert result["msg"] == "; ".join(result["errors"])


def test_no_eswitch_is_refused_with_what_devlink_said(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    answer = (1, "", "devlink answers: No such device")
    table = Nic(sysfs).table({SHOW: answer, ("devlink", "dev", "eswitch", "show", H): answer})
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, names=NAMES), table, monkeypatch)
    assert failed and calls == [SHOW, ("devlink", "dev", "eswitch", "show", H)]
    assert result["msg"].startswith("sriov_switchdev_pfs[0].name: 'enp8s0f1np1' has no eswitch devlink can show (devlink dev "
                                    "eswitch show pci/0000:08:00.1: devlink answers: No such device)")


def test_validate_only_reports_and_changes_nothing(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    before = snapshot(str(tmp_path))
    good, failed, calls = run_module(sriov_pf.main, args(sysfs, validate_only=True), Nic(sysfs).table(), monkeypatch)
    assert not failed and good["changed"] is False and good["errors"] == [] and calls == [SHOW]
    assert good["pci"] == "0000:08:00.1" and good["totalvfs"] == 8 and good["mode"] == "legacy"
    bad, failed, calls = run_module(sriov_pf.main, args(sysfs, validate_only=True, numvfs=9), Nic(sysfs).table(), monkeypatch)
    assert not failed and bad["errors"][0].startswith("numvfs: 9 is outside 0..8, the VFs enp8s0f1np1 can have (sriov_totalvfs)")
    assert snapshot(str(tmp_path)) == before


def test_legacy_on_a_pf_without_eswitch_loads_the_vf_module_and_never_calls_devlink_set(tmp_path, monkeypatch):
    # igb: devlink shows no eswitch (what the VM lab's dut01 answered), igbvf is a module that loads with the VFs.
    sysfs = fake_host(tmp_path)
    modules = tmp_path / "lib" / "modules" / os.uname()[2]
    modules.mkdir(parents=True)
    (modules / "modules.dep").write_text("kernel/drivers/net/ethernet/intel/igbvf/igbvf.ko.xz:\n")
    answer = (1, "", "kernel answers: No such device")
    table = Nic(sysfs).table({SHOW: answer, ("devlink", "dev", "eswitch", "show", H): answer,
                              ("modprobe", "igbvf"): lambda calls: (0, "", "")})
    numvfs = os.path.join(sysfs, "class", "net", PF, "device", "sriov_numvfs")
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, mode="legacy", vf_driver="igbvf", links_up=False), table, monkeypatch)
    assert not failed, result
    assert result["commands"][:2] == ["modprobe igbvf", "echo 2 > %s" % numvfs]
    assert not any(command.startswith("devlink dev eswitch set") for command in result["commands"])
    assert result["mode"] == "legacy"


def test_legacy_refuses_a_vf_driver_the_kernel_does_not_have(tmp_path, monkeypatch):
    sysfs = fake_host(tmp_path)
    answer = (1, "", "kernel answers: No such device")
    table = Nic(sysfs).table({SHOW: answer, ("devlink", "dev", "eswitch", "show", H): answer})
    result, failed, calls = run_module(sriov_pf.main, args(sysfs, mode="legacy", vf_driver="igbvf", names=NAMES), table, monkeypatch)
    assert failed and result["errors"] == [
        "sriov_switchdev_vf_driver: 'igbvf' is no PCI driver of this host (nothing at %s/bus/pci/drivers/igbvf) nor a module of "
        "its kernel (the PF's driver is mlx5_core); write the VFs' driver, mlx5_core for a ConnectX, or load it first (modprobe)" % sysfs]


def test_a_vf_given_to_vfio_keeps_its_driver_and_gets_its_mac_on_the_pf_side(tmp_path, monkeypatch):
    # dpdk_host bound VF 1 to vfio-pci (the VM lab's second run): no netdev, and binding mlx5_core would be refused (busy).
    sysfs = fake_host(tmp_path)
    with open(os.path.join(sysfs, "class", "net", PF, "device", "sriov_numvfs"), "w") as handle:
        handle.write("2\n")
    vf1 = os.path.join(sysfs, "bus", "pci", "devices", "0000:08:01.1")
    shutil.rmtree(os.path.join(vf1, "net"))
    os.makedirs(os.path.join(sysfs, "bus", "pci", "drivers", "vfio-pci"))
    os.symlink(os.path.join("..", "..", "drivers", "vfio-pci"), os.path.join(vf1, "driver"))
    nic = Nic(sysfs, mode="switchdev")
    result, failed, calls = run_module(sriov_pf.main, args(sysfs), nic.table(), monkeypatch)
    assert not failed, result
    assert "ip link set dev enp8s0f1np1 vf 1 mac b2:23:54:c4:4c:cf" in result["commands"]
    assert not [command for command in result["commands"] if "bind" in command or "enp8s0f1v1" in command]
    assert result["vfs"][1]["driver"] == "vfio-pci" and result["vfs"][1]["netdev"] is None
    assert result["vfs"][0]["netdev"] == "enp8s0f1v0"
