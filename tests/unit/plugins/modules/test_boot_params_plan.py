"""boot_params_plan against the fake host of tests/emulators/grubby/fake_host.py
(16 CPUs, siblings n and n+8, two NUMA nodes, 62.8 GiB)."""
import importlib.machinery
import importlib.util
import os

from ansible_collections.offload.testbed.plugins.modules import boot_params_plan
from modtest import run_module

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def fake_host(tmp_path, **kw):
    path = os.path.join(ROOT, "tests", "emulators", "grubby", "fake_host.py")
    loader = importlib.machinery.SourceFileLoader("fake_host", path)
    spec = importlib.util.spec_from_loader("fake_host", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.build(str(tmp_path), **kw)
    return {"sysfs_root": os.path.join(str(tmp_path), "sys"), "procfs_root": os.path.join(str(tmp_path), "proc")}


def test_reads_the_host_and_plans(tmp_path, monkeypatch):
    roots = fake_host(tmp_path)
    result, failed, calls = run_module(boot_params_plan.main, dict(roots, hugepages_1g=16, isolated_cpus="2-3"), {}, monkeypatch)
    assert not failed and calls == [] and result["changed"] is False
    assert result["iommu"] == "intel" and result["isolated"] == "2-3,10-11" and result["errors"] == []
    assert result["args"] == ["intel_iommu=on", "iommu=pt", "default_hugepagesz=1G", "hugepagesz=1G", "hugepages=16", "hugepagesz=2M",
                              "hugepages=0", "isolcpus=2-3,10-11", "nohz_full=2-3,10-11", "rcu_nocbs=2-3,10-11"]
    assert result["topology"] == {"online": "0-15", "nodes": {"0": "0-3,8-11", "1": "4-7,12-15"}, "mem_total_kb": 65842352, "pdpe1gb": True}
    assert result["running"]["hugepages_1g_per_node"] == {0: 0, 1: 0}
    assert result["running"]["boot_id"] == "0b0e5f64-9d3c-4f7b-8d6e-2d1f0c9a7e11"
    assert result["running_problems"][0].startswith("/proc/cmdline lacks intel_iommu=on")


def test_running_kernel_that_took_the_arguments(tmp_path, monkeypatch):
    roots = fake_host(tmp_path)
    first, failed, calls = run_module(boot_params_plan.main, dict(roots, hugepages_1g=16, isolated_cpus="2-3"), {}, monkeypatch)
    with open(os.path.join(str(tmp_path), "proc", "cmdline"), "w") as handle:
        handle.write("BOOT_IMAGE=/vmlinuz ro " + " ".join(first["args"]) + "\n")
    for node in (0, 1):
        with open(os.path.join(roots["sysfs_root"], "devices", "system", "node", "node%d" % node, "hugepages", "hugepages-1048576kB",
                               "nr_hugepages"), "w") as handle:
            handle.write("8\n")
    for name in ("isolated", "nohz_full"):
        with open(os.path.join(roots["sysfs_root"], "devices", "system", "cpu", name), "w") as handle:
            handle.write("2-3,10-11\n")
    result, failed, calls = run_module(boot_params_plan.main, dict(roots, hugepages_1g=16, isolated_cpus="2-3"), {}, monkeypatch)
    assert not failed and result["running_problems"] == []


def test_refusals_are_returned_not_raised(tmp_path, monkeypatch):
    roots = fake_host(tmp_path, pdpe1gb=False)
    result, failed, calls = run_module(boot_params_plan.main, dict(roots, hugepages_1g=4, isolated_cpus="8,x"), {}, monkeypatch)
    assert not failed
    assert result["errors"] == [
        "boot_params_isolated_cpus: '8,x' is not a cpulist (not a cpulist item: 'x'); write CPU ids and ranges such as 2-15,34-47",
        "boot_params_hugepages_1g: 4 x 1G pages asked, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; "
        "set them to 0",
    ]
    result, failed, calls = run_module(boot_params_plan.main, dict(roots, isolated_cpus="8"), {}, monkeypatch)
    assert result["errors"][0].startswith("boot_params_isolated_cpus: CPU 0 would be isolated (as a hyper-thread sibling of 8)")


def executable(directory, name):
    path = os.path.join(str(directory), name)
    with open(path, "w") as handle:
        handle.write("#!/bin/sh\n")
    os.chmod(path, 0o755)
    return path


def test_every_variable_against_the_host(tmp_path, monkeypatch):
    roots = fake_host(tmp_path / "host", pdpe1gb=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(bin_dir, "grubby")
    monkeypatch.setenv("PATH", str(bin_dir))
    good = dict(roots, iommu="intel", hugepages_2m=1024, isolated_cpus="2-3", method="grubby", grubby_command="grubby",
                state_file=str(tmp_path / "state.json"), reboot_ok=False, reboot_timeout=1800)
    result, failed, calls = run_module(boot_params_plan.main, good, {}, monkeypatch)
    assert not failed and calls == [] and result["errors"] == []
    assert result["args"] == ["intel_iommu=on", "iommu=pt", "hugepagesz=2M", "hugepages=1024", "isolcpus=2-3,10-11",
                              "nohz_full=2-3,10-11", "rcu_nocbs=2-3,10-11"]
    bad = dict(good, hugepages_2m=40000, extra_args=["hugepagesz=4M", "iommu=off"], max_memory_fraction=90.0,
               grubby_command="grubby-not-installed", reboot_timeout=0, procfs_root=str(tmp_path / "proc"))
    result, failed, calls = run_module(boot_params_plan.main, bad, {}, monkeypatch)
    assert not failed and calls == []
    assert [e.split(":", 1)[0] for e in result["errors"]] == [
        "boot_params_procfs_root", "boot_params_max_memory_fraction", "boot_params_reboot_timeout", "boot_params_extra_args[0]",
        "boot_params_extra_args[1]", "boot_params_extra_args", "boot_params_grubby_command"]
    assert result["errors"][0] == "boot_params_procfs_root: %r has no cpuinfo; point it at where procfs is mounted (/proc)" % (
        str(tmp_path / "proc"))
    result, failed, calls = run_module(boot_params_plan.main, dict(good, hugepages_2m=40000), {}, monkeypatch)
    assert result["errors"] == [
        "boot_params_hugepages_2m: 40000 x 2M = 78.1 GiB of hugepages is above 90% of the host memory (62.8 GiB); set "
        "boot_params_hugepages_2m to at most 28934"]
    result, failed, calls = run_module(boot_params_plan.main, dict(good, extra_args=["hugepagesz=1G"], hugepages_2m=0), {}, monkeypatch)
    assert result["errors"] == [
        "boot_params_extra_args: hugepage size 1G named, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; "
        "remove hugepagesz=1G"]


def test_grub_dropin_settings(tmp_path, monkeypatch):
    roots = fake_host(tmp_path / "host")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(bin_dir, "update-grub")
    monkeypatch.setenv("PATH", str(bin_dir))
    (tmp_path / "grub.d").mkdir()
    good = dict(roots, method="grub_dropin", update_grub_command=["update-grub"], grub_dropin=str(tmp_path / "grub.d" / "90-x.cfg"))
    result, failed, calls = run_module(boot_params_plan.main, good, {}, monkeypatch)
    assert result["errors"] == []
    bad = dict(good, update_grub_command=["grub-mkconfig", "-o", "/boot/grub/grub.cfg"], grub_dropin=str(tmp_path / "nope" / "x.cfg"))
    result, failed, calls = run_module(boot_params_plan.main, bad, {}, monkeypatch)
    assert [e.split(":", 1)[0] for e in result["errors"]] == ["boot_params_update_grub_command", "boot_params_grub_dropin"]


def test_auto_takes_the_iommu_the_acpi_tables_announce(tmp_path, monkeypatch):
    """A host whose CPU says AuthenticAMD while its ACPI tables have DMAR (QEMU's TCG CPU on q35 with intel-iommu)."""
    roots = fake_host(tmp_path)
    cpuinfo = os.path.join(roots["procfs_root"], "cpuinfo")
    with open(cpuinfo) as handle:
        text = handle.read().replace("GenuineIntel", "AuthenticAMD")
    with open(cpuinfo, "w") as handle:
        handle.write(text)
    result, failed, _calls = run_module(boot_params_plan.main, dict(roots, isolated_cpus=""), {}, monkeypatch)
    assert not failed and result["iommu"] == "amd"
    tables = os.path.join(roots["sysfs_root"], "firmware", "acpi", "tables")
    os.makedirs(tables)
    open(os.path.join(tables, "DMAR"), "wb").close()
    result, failed, _calls = run_module(boot_params_plan.main, dict(roots, isolated_cpus=""), {}, monkeypatch)
    assert not failed and result["iommu"] == "intel" and result["errors"] == []
    assert result["args"][:2] == ["intel_iommu=on", "iommu=pt"]
