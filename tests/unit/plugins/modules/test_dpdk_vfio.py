"""dpdk_vfio on a fake sysfs: the IOMMU check, the no-IOMMU opt-in and the exact modprobe commands."""
import os

from ansible_collections.offload.testbed.plugins.modules import dpdk_vfio
from modtest import run_module


def tree(tmp_path, groups=0, vfio=False, vfio_pci=False, noiommu="N"):
    root = tmp_path / "host"
    (root / "sys" / "kernel" / "iommu_groups").mkdir(parents=True)
    for group in range(groups):
        (root / "sys" / "kernel" / "iommu_groups" / str(group)).mkdir()
    if vfio:
        (root / "sys" / "module" / "vfio" / "parameters").mkdir(parents=True)
        (root / "sys" / "module" / "vfio" / "parameters" / "enable_unsafe_noiommu_mode").write_text(noiommu + "\n")
    if vfio_pci:
        (root / "sys" / "module" / "vfio_pci").mkdir(parents=True)
    return str(root)


NAMES = {"noiommu": "dpdk_host_vfio_noiommu"}
# modprobe -n of a module the host has: it exits 0 and prints nothing without -v
DRY = {("modprobe", "-n", "vfio"): (0, "", ""), ("modprobe", "-n", "vfio-pci"): (0, "", "")}
DRY_CALLS = [("modprobe", "-n", "vfio"), ("modprobe", "-n", "vfio-pci")]
# what kmod 30's modprobe -n printed on this machine, which has no module tree (tests/fixtures/SOURCES.md)
NOT_FOUND = "modprobe: FATAL: Module vfio-pci not found in directory /lib/modules/6.18.44-fc-v1098\n"


def test_no_iommu_without_the_opt_in_is_refused_naming_the_variable(tmp_path, monkeypatch):
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path), "names": NAMES}, DRY, monkeypatch)
    assert failed and calls == [("modprobe", "-n", "vfio-pci")]
    assert result["msg"].startswith("dpdk_host_vfio_noiommu: this host has no IOMMU (nothing under /sys/kernel/iommu_groups")
    assert "gives up DMA isolation (a device can write anywhere in memory) and taints the kernel" in result["msg"]
    assert result["msg"].endswith("or set dpdk_host_vfio_noiommu: true to accept that")


def test_validate_only_reports_without_failing(tmp_path, monkeypatch):
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path), "validate_only": True}, DRY, monkeypatch)
    assert not failed and len(result["errors"]) == 1 and result["commands"] == [] and calls == [("modprobe", "-n", "vfio-pci")]


def test_no_iommu_with_the_opt_in_loads_vfio_in_that_mode_and_warns(tmp_path, monkeypatch):
    warnings = []
    monkeypatch.setattr(dpdk_vfio.AnsibleModule, "warn", lambda self, text: warnings.append(text))
    table = {**DRY, ("modprobe", "vfio", "enable_unsafe_noiommu_mode=1"): (0, "", ""), ("modprobe", "vfio-pci"): (0, "", "")}
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path), "noiommu": True, "names": NAMES}, table, monkeypatch)
    assert not failed, result
    assert calls == DRY_CALLS + [("modprobe", "vfio", "enable_unsafe_noiommu_mode=1"), ("modprobe", "vfio-pci")]
    assert result["changed"] and result["noiommu"] is True
    assert warnings and warnings[0].startswith("vfio is in no-IOMMU mode (dpdk_host_vfio_noiommu: true) on a host without an IOMMU: "
                                               "devices bound to vfio-pci have no DMA isolation")
    assert "the kernel is tainted" in warnings[0]


def test_vfio_loaded_without_the_mode_gets_the_parameter_written(tmp_path, monkeypatch):
    root = tree(tmp_path, vfio=True)
    result, failed, calls = run_module(dpdk_vfio.main, {"root": root, "noiommu": True}, {**DRY, ("modprobe", "vfio-pci"): (0, "", "")},
                                       monkeypatch)
    parameter = os.path.join(root, "sys/module/vfio/parameters/enable_unsafe_noiommu_mode")
    assert not failed and result["commands"] == ["echo 1 > %s" % parameter, "modprobe vfio-pci"]
    with open(parameter) as handle:
        assert handle.read() == "1\n"


def test_check_mode_writes_nothing(tmp_path, monkeypatch):
    root = tree(tmp_path, vfio=True)
    result, failed, calls = run_module(dpdk_vfio.main, {"root": root, "noiommu": True, "_ansible_check_mode": True}, DRY, monkeypatch)
    assert not failed and result["changed"] and calls == [("modprobe", "-n", "vfio-pci")]
    with open(os.path.join(root, "sys/module/vfio/parameters/enable_unsafe_noiommu_mode")) as handle:
        assert handle.read() == "N\n"


def test_with_an_iommu_only_vfio_pci_and_nothing_when_loaded(tmp_path, monkeypatch):
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path, groups=3)}, {**DRY, ("modprobe", "vfio-pci"): (0, "", "")},
                                       monkeypatch)
    assert not failed and calls == [("modprobe", "-n", "vfio-pci"), ("modprobe", "vfio-pci")] and result["iommu_groups"] == 3 and result["noiommu"] is False
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path / "b", groups=3, vfio=True, vfio_pci=True)}, {}, monkeypatch)
    assert not failed and not result["changed"] and calls == []


def test_a_failing_modprobe_fails_with_its_words(tmp_path, monkeypatch):
    table = {**DRY, ("modprobe", "vfio-pci"): (1, "", "modprobe: FATAL: Module vfio-pci not found in directory /lib/modules/6.18.44\n")}
    result, failed, calls = run_module(dpdk_vfio.main, {"root": tree(tmp_path, groups=1)}, table, monkeypatch)
    assert failed and result["msg"] == "modprobe vfio-pci failed (rc 1): modprobe: FATAL: Module vfio-pci not found in directory /lib/modules/6.18.44"


def test_a_kernel_without_vfio_pci_is_refused_before_anything_is_loaded(tmp_path, monkeypatch):
    table = {("modprobe", "-n", "vfio"): (0, "", ""), ("modprobe", "-n", "vfio-pci"): (1, "", NOT_FOUND)}
    params = {"root": tree(tmp_path), "noiommu": True, "names": dict(NAMES, load="dpdk_host_vfio_load")}
    result, failed, calls = run_module(dpdk_vfio.main, params, table, monkeypatch)
    assert failed and calls == DRY_CALLS
    assert result["msg"] == ("dpdk_host_vfio_load: the kernel of this host has no vfio-pci module to load (modprobe -n vfio-pci: modprobe: "
                             "FATAL: Module vfio-pci not found in directory /lib/modules/6.18.44-fc-v1098, rc 1); install the kernel's "
                             "VFIO modules (CONFIG_VFIO_PCI), or set dpdk_host_vfio_load to false and bind the devices to a driver the "
                             "host has")
