"""dpdk_devbind on the emulated PCI tree of tests/emulators/dpdk (this machine's virtio NIC eth0, an XL710 port on i40e),
ip -j answered with this machine's real output, dpdk-devbind.py's writes done by the emulated kernel."""
import importlib.util
import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.modules import dpdk_devbind
from modtest import run_module

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.abspath(os.path.join(HERE, "..", "..", "..", "fixtures"))
_spec = importlib.util.spec_from_file_location("pci_kernel", os.path.join(HERE, "..", "..", "..", "emulators", "dpdk", "pci_kernel.py"))
pci_kernel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pci_kernel)

XL710, VIRTIO = "0000:86:00.0", "0000:00:03.0"
READS = {
    ("ip", "-j", "addr", "show"): "dpdk_ip_j_addr_show_firecracker.json",
    ("ip", "-j", "route", "show"): "dpdk_ip_j_route_show_firecracker.json",
    ("ip", "-j", "-6", "route", "show"): "dpdk_ip_j_6_route_show_firecracker.json",
}


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.fixture
def root(tmp_path, monkeypatch):
    """The emulated tree; dpdk-devbind.py "on PATH" whether or not this machine has Debian's dpdk package."""
    monkeypatch.setattr(dpdk_devbind.AnsibleModule, "get_bin_path", lambda self, name, *a, **kw: "/usr/bin/" + name)
    path = str(tmp_path / "host")
    pci_kernel.build(path)
    pci_kernel.add_driver(path, "vfio-pci")
    return path


def devbind(root, pci, old, new):
    """What dpdk-devbind.py -b NEW PCI writes (unbind of the old driver, bind of the new), then the emulated kernel."""
    def answer(calls):
        drivers = os.path.join(root, "sys", "bus", "pci", "drivers")
        if old:
            with open(os.path.join(drivers, old, "unbind"), "a") as handle:
                handle.write(pci)
        with open(os.path.join(drivers, new, "bind"), "a") as handle:
            handle.write(pci)
        pci_kernel.apply(root)
        return 0, "", ""
    return answer


def link(root, name, state):
    def answer(calls):
        path = os.path.join(pci_kernel.net_parent(root, XL710), "net", name, "flags")
        pci_kernel.write(path, "0x1003\n" if state == "up" else "0x1002\n")
        return 0, "", ""
    return answer


def table(root, **more):
    answers = dict((argv, (0, fixture(name), "")) for argv, name in READS.items())
    answers.update(more)
    return answers


def args(root, **extra):
    base = {"root": root, "state_file": os.path.join(root, "state", "devices.json"), "devices": [{"pci": XL710}],
            "names": {"devices": "dpdk_host_devices", "connection_address": "ansible_host"}}
    base.update(extra)
    return base


BIND = ("dpdk-devbind.py", "-b", "vfio-pci", XL710)
DOWN = ("ip", "link", "set", "dev", "enp134s0f0", "down")


def test_binds_after_taking_the_interface_down_and_records_the_driver(root, monkeypatch):
    answers = table(root)
    answers[DOWN] = link(root, "enp134s0f0", "down")
    answers[BIND] = devbind(root, XL710, "i40e", "vfio-pci")
    result, failed, calls = run_module(dpdk_devbind.main, dict(args(root), _ansible_diff=True), answers, monkeypatch)
    assert not failed, result
    assert calls == list(READS) + [DOWN, BIND]
    assert result["commands"] == ["ip link set dev enp134s0f0 down", "dpdk-devbind.py -b vfio-pci 0000:86:00.0"]
    assert result["devices"] == {XL710: {"driver": "vfio-pci", "interfaces": []}}
    assert result["diff"] == {"before": "0000:86:00.0 i40e\n", "after": "0000:86:00.0 vfio-pci\n"}
    with open(os.path.join(root, "state", "devices.json")) as handle:
        assert json.load(handle) == {XL710: {"driver": "i40e", "interfaces": ["enp134s0f0"], "up": ["enp134s0f0"]}}


def test_nothing_to_do_when_bound(root, monkeypatch):
    devbind(root, XL710, "i40e", "vfio-pci")([])
    result, failed, calls = run_module(dpdk_devbind.main, args(root), table(root), monkeypatch)
    assert not failed and not result["changed"] and calls == list(READS)


def test_check_mode_runs_only_the_reads(root, monkeypatch):
    result, failed, calls = run_module(dpdk_devbind.main, dict(args(root), _ansible_check_mode=True), table(root), monkeypatch)
    assert not failed and result["changed"] and calls == list(READS)
    assert result["commands"] == ["ip link set dev enp134s0f0 down", "dpdk-devbind.py -b vfio-pci 0000:86:00.0"]
    assert os.path.islink(os.path.join(root, "sys/bus/pci/devices", XL710, "driver"))
    assert os.readlink(os.path.join(root, "sys/bus/pci/devices", XL710, "driver")).endswith("i40e")
    assert not os.path.exists(os.path.join(root, "state", "devices.json"))


def test_unbound_gives_the_recorded_driver_back_and_brings_the_interface_up(root, monkeypatch):
    devbind(root, XL710, "i40e", "vfio-pci")([])
    pci_kernel.write(os.path.join(root, "state", "devices.json"),
                     json.dumps({XL710: {"driver": "i40e", "interfaces": ["enp134s0f0"], "up": ["enp134s0f0"]}}))
    back = ("dpdk-devbind.py", "-b", "i40e", XL710)
    up = ("ip", "link", "set", "dev", "enp134s0f0", "up")
    answers = {back: devbind(root, XL710, "vfio-pci", "i40e"), up: link(root, "enp134s0f0", "up")}
    result, failed, calls = run_module(dpdk_devbind.main, args(root, state="unbound"), answers, monkeypatch)
    assert not failed, result
    assert calls == [back, up] and result["commands"] == ["dpdk-devbind.py -b i40e 0000:86:00.0", "ip link set dev enp134s0f0 up"]
    assert result["devices"] == {XL710: {"driver": "i40e", "interfaces": ["enp134s0f0"]}}
    with open(os.path.join(root, "state", "devices.json")) as handle:
        assert json.load(handle) == {}


def test_the_management_nic_is_refused_before_anything_runs(root, monkeypatch):
    result, failed, calls = run_module(dpdk_devbind.main, args(root, devices=[{"pci": VIRTIO}], connection_address="192.0.2.2"),
                                       table(root), monkeypatch)
    assert failed and calls == list(READS)
    assert result["errors"] == [
        "dpdk_host_devices[0].pci: 0000:00:03.0 (driver virtio-pci) carries the management of this host: its interface eth0 has the "
        "management address 192.0.2.2 (ansible_host); eth0 carries the default route (default via 192.0.2.1 dev eth0); eth0 carries "
        "the default route (default via fd00::1 dev eth0); binding it to vfio-pci would cut this host off (Ansible connects through it). "
        "Remove it from the list, or connect through another NIC"]


def test_a_pci_address_that_does_not_exist_is_refused_naming_the_variable(root, monkeypatch):
    result, failed, calls = run_module(dpdk_devbind.main, args(root, devices=[{"pci": XL710}, {"pci": "0000:99:00.0"}]), table(root), monkeypatch)
    assert failed and calls == list(READS)
    assert result["msg"] == ("dpdk_host_devices[1].pci: '0000:99:00.0' is no PCI device of this host (there is no "
                             "/sys/bus/pci/devices/0000:99:00.0); list the devices with lspci -D or dpdk-devbind.py --status and use one of those")


def test_a_bind_that_did_not_take_fails_with_what_devbind_said(root, monkeypatch):
    answers = table(root)
    answers[DOWN] = link(root, "enp134s0f0", "down")
    # dpdk-devbind.py's own words (bind_one) on stderr, and exit status 0
    answers[BIND] = (0, "", "Error: bind failed for 0000:86:00.0 - Cannot bind to driver vfio-pci: [Errno 22] Invalid argument\n")
    result, failed, calls = run_module(dpdk_devbind.main, args(root), answers, monkeypatch)
    assert failed
    assert result["msg"] == ("0000:86:00.0: after dpdk-devbind.py -b vfio-pci 0000:86:00.0 the device is on i40e, not vfio-pci: "
                             "Error: bind failed for 0000:86:00.0 - Cannot bind to driver vfio-pci: [Errno 22] Invalid argument")


def test_unbound_leaves_a_device_it_did_not_bind_and_says_so(root, monkeypatch):
    devbind(root, XL710, "i40e", "vfio-pci")([])
    warnings = []
    monkeypatch.setattr(dpdk_devbind.AnsibleModule, "warn", lambda self, text: warnings.append(text))
    result, failed, calls = run_module(dpdk_devbind.main, args(root, state="unbound"), {}, monkeypatch)
    assert not failed and not result["changed"] and calls == []
    assert warnings == ["0000:86:00.0 is on vfio-pci and %s records no driver of its own: it stays there "
                        "(dpdk-devbind.py -b DRIVER 0000:86:00.0 gives it one)" % os.path.join(root, "state", "devices.json")]


def test_a_missing_dpdk_devbind_is_refused_before_anything_runs(root, monkeypatch):
    params = args(root, devbind=["/nonexistent/dpdk-devbind.py"], names={"devbind": "dpdk_host_devbind_command"})
    result, failed, calls = run_module(dpdk_devbind.main, params, table(root), monkeypatch)
    assert failed and calls == list(READS)
    assert result["msg"] == ("dpdk_host_devbind_command: '/nonexistent/dpdk-devbind.py' is not on this host (not executable); install DPDK's "
                             "usertools (Debian and Ubuntu: apt install dpdk, which has /usr/bin/dpdk-devbind.py) or give the command as a "
                             "list with its full path")


# kmod 30's modprobe -n of a module the host does not have, as it printed on this machine (tests/fixtures/SOURCES.md)
IGB_UIO_NOT_FOUND = "modprobe: FATAL: Module igb_uio not found in directory /lib/modules/6.18.44-fc-v1098\n"


def test_a_driver_neither_registered_nor_loadable_is_refused_before_anything_runs(root, monkeypatch):
    answers = table(root)
    answers[("modprobe", "-n", "igb_uio")] = (1, "", IGB_UIO_NOT_FOUND)
    result, failed, calls = run_module(dpdk_devbind.main, args(root, devices=[{"pci": XL710, "driver": "igb_uio"}]), answers, monkeypatch)
    assert failed and calls == [("modprobe", "-n", "igb_uio")] + list(READS)
    assert result["msg"] == ("dpdk_host_devices[0].driver: 'igb_uio' is not a driver of this host: it is not loaded (nothing at "
                             "/sys/bus/pci/drivers/igb_uio) and modprobe cannot load it (modprobe: FATAL: Module igb_uio not found in "
                             "directory /lib/modules/6.18.44-fc-v1098 (rc 1)); use vfio-pci, or install the driver's module first "
                             "(igb_uio is built from DPDK's dpdk-kmods)")
    assert pci_kernel.driver_of(root, XL710) == "i40e"


def test_a_driver_modprobe_can_load_is_loaded_before_the_bind(root, monkeypatch):
    load = ("modprobe", "uio_pci_generic")
    bind = ("dpdk-devbind.py", "-b", "uio_pci_generic", XL710)
    answers = table(root)
    answers[("modprobe", "-n", "uio_pci_generic")] = (0, "", "")
    answers[load] = lambda calls: (pci_kernel.add_driver(root, "uio_pci_generic"), (0, "", ""))[1]
    answers[DOWN] = link(root, "enp134s0f0", "down")
    answers[bind] = devbind(root, XL710, "i40e", "uio_pci_generic")
    params = args(root, devices=[{"pci": XL710, "driver": "uio_pci_generic"}])
    result, failed, calls = run_module(dpdk_devbind.main, dict(params, _ansible_check_mode=True), answers, monkeypatch)
    assert not failed and result["commands"] == ["modprobe uio_pci_generic", "ip link set dev enp134s0f0 down",
                                                 "dpdk-devbind.py -b uio_pci_generic 0000:86:00.0"]
    result, failed, calls = run_module(dpdk_devbind.main, params, answers, monkeypatch)
    assert not failed, result
    assert calls == [("modprobe", "-n", "uio_pci_generic")] + list(READS) + [load, DOWN, bind]
    assert pci_kernel.driver_of(root, XL710) == "uio_pci_generic"


def test_a_management_interface_name_the_kernel_refuses_is_named(root, monkeypatch):
    params = args(root, management_interfaces=["eth0 "], names={"management_interfaces": "dpdk_host_management_interfaces"})
    result, failed, calls = run_module(dpdk_devbind.main, params, table(root), monkeypatch)
    assert failed and calls == list(READS)
    assert result["errors"] == ["dpdk_host_management_interfaces[0]: 'eth0 ' has trailing white space, which the kernel refuses in the "
                                "name of a network interface; write 'eth0'"]
