"""dpdk_hugepages on a fake sysfs/procfs made of this machine's real files; mount commands from a table."""
import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.modules import dpdk_hugepages
from modtest import run_module

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))
NODE0_2M = "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


def read(root, rel):
    with open(os.path.join(root, rel)) as handle:
        return handle.read()


@pytest.fixture
def host(tmp_path):
    """This machine: 456 x 2M held by other programs, one node, 2M and 1G offered, pdpe1gb, two hugetlbfs mounts."""
    root = str(tmp_path / "host")
    for size, count in (("2048kB", 456), ("1048576kB", 0)):
        write(root, "sys/kernel/mm/hugepages/hugepages-%s/nr_hugepages" % size, "%d\n" % count)
        write(root, "sys/devices/system/node/node0/hugepages/hugepages-%s/nr_hugepages" % size, "%d\n" % count)
    write(root, "sys/devices/system/node/node0/meminfo", fixture("dpdk_node0_meminfo_firecracker.txt"))
    write(root, "proc/meminfo", fixture("dpdk_proc_meminfo_firecracker.txt"))
    write(root, "proc/cpuinfo", fixture("dpdk_proc_cpuinfo_flags_firecracker.txt"))
    write(root, "proc/mounts", fixture("dpdk_proc_mounts_hugetlbfs_firecracker.txt"))
    return root


def args(root, **extra):
    base = {"root": root, "state_file": os.path.join(root, "state", "hugepages.json"), "names": {"pages": "dpdk_host_hugepages"}}
    base.update(extra)
    return base


def mount_argv(path, size="2M"):
    return ("mount", "-t", "hugetlbfs", "-o", "pagesize=" + size, "nodev", path)


def test_reserves_on_the_node_mounts_and_records(host, monkeypatch):
    mnt = os.path.join(host, "mnt", "huge")
    pages = [{"size": "2M", "count": 460, "node": 0, "mount": mnt}]
    result, failed, calls = run_module(dpdk_hugepages.main, dict(args(host, pages=pages), _ansible_diff=True),
                                       {mount_argv(mnt): (0, "", "")}, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["echo 460 > %s/%s" % (host, NODE0_2M), "mkdir -p %s" % mnt, " ".join(mount_argv(mnt))]
    assert calls == [mount_argv(mnt)] and result["changed"]
    assert read(host, NODE0_2M) == "460\n" and os.path.isdir(mnt)
    assert json.loads(read(host, "state/hugepages.json")) == {
        "counts": {"2048kB@node0": {"before": 456, "set": 460}}, "mounts": {mnt: {"size": 2048, "created_dir": True}}}
    assert "-2048kB@node0: 456\n" not in result["diff"]["before"] and "2048kB@node0: 456\n" in result["diff"]["before"]
    assert "2048kB@node0: 460\n" in result["diff"]["after"] and "mount %s\n" % mnt in result["diff"]["after"]


def test_nothing_to_do_the_second_time(host, monkeypatch):
    write(host, NODE0_2M, "460\n")
    write(host, "proc/mounts", fixture("dpdk_proc_mounts_hugetlbfs_firecracker.txt") + "nodev /mnt/h hugetlbfs rw,relatime,pagesize=2M 0 0\n")
    pages = [{"size": "2M", "count": 460, "node": 0, "mount": "/mnt/h"}]
    result, failed, calls = run_module(dpdk_hugepages.main, args(host, pages=pages), {}, monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == [] and calls == []
    assert not os.path.exists(os.path.join(host, "state", "hugepages.json"))


def test_check_mode_writes_nothing(host, monkeypatch):
    pages = [{"size": "1G", "count": 2, "mount": "/mnt/huge-1G"}]
    result, failed, calls = run_module(dpdk_hugepages.main, dict(args(host, pages=pages), _ansible_check_mode=True), {}, monkeypatch)
    assert not failed and result["changed"] and calls == []
    assert result["commands"] == ["echo 2 > %s/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages" % host,
                                  "mkdir -p /mnt/huge-1G", " ".join(mount_argv("/mnt/huge-1G", "1G"))]
    assert result["counts"]["1048576kB"] == 2
    assert read(host, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages") == "0\n"
    assert not os.path.exists("/mnt/huge-1G") and not os.path.exists(os.path.join(host, "state"))


def test_absent_gives_back_only_what_the_module_added_and_unmounts_its_own(host, monkeypatch):
    mnt = os.path.join(host, "mnt", "huge")
    os.makedirs(mnt)
    write(host, NODE0_2M, "460\n")
    write(host, "proc/mounts", fixture("dpdk_proc_mounts_hugetlbfs_firecracker.txt") + "nodev %s hugetlbfs rw,relatime,pagesize=2M 0 0\n" % mnt)
    write(host, "state/hugepages.json", json.dumps({"counts": {"2048kB@node0": {"before": 456, "set": 460}},
                                                    "mounts": {mnt: {"size": 2048, "created_dir": True}}}))
    result, failed, calls = run_module(dpdk_hugepages.main, args(host, state="absent"), {("umount", mnt): (0, "", "")}, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["echo 456 > %s/%s" % (host, NODE0_2M), "umount %s" % mnt, "rmdir %s" % mnt]
    assert read(host, NODE0_2M) == "456\n" and not os.path.exists(mnt)
    # everything given back: the record goes too, nothing of the role is left on the host
    assert not os.path.exists(os.path.join(host, "state", "hugepages.json"))
    # /dev/hugepages and the other program's mount were never the module's
    assert ("umount", "/dev/hugepages") not in calls


def test_over_memory_and_a_size_the_cpu_lacks_are_refused_before_any_write(host, monkeypatch):
    write(host, "proc/cpuinfo", fixture("dpdk_proc_cpuinfo_flags_firecracker.txt").replace(" pdpe1gb", ""))
    pages = [{"size": "2M", "count": 20000}, {"size": "1G", "count": 1, "node": 0}]
    result, failed, calls = run_module(dpdk_hugepages.main, args(host, pages=pages), {}, monkeypatch)
    assert failed and calls == [] and result["commands"] == []
    assert result["errors"] == [
        "dpdk_host_hugepages[1].size: '1G' pages need the CPU flag pdpe1gb, which /proc/cpuinfo does not list: this CPU cannot map them; "
        "use 2M pages (sizes this host offers: 2M and 1G)",
        "dpdk_host_hugepages[0].count, dpdk_host_hugepages[1].count: 20000 x 2M + 1 x 1G = 40.1 GiB of hugepages is above 90% of the "
        "memory (MemTotal 23.5 GiB); ask for fewer pages",
    ]
    assert read(host, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") == "456\n"


def test_a_kernel_that_gives_fewer_pages_is_put_back(host, monkeypatch):
    real = dpdk_hugepages._count
    monkeypatch.setattr(dpdk_hugepages, "_count", lambda path: 470 if path.endswith(NODE0_2M) and real(path) == 500 else real(path))
    result, failed, calls = run_module(dpdk_hugepages.main, args(host, pages=[{"size": "2M", "count": 500, "node": 0}]), {}, monkeypatch)
    assert failed and result["msg"].startswith("%s/%s: the kernel gave 470 of the 500 2M pages asked" % (host, NODE0_2M))
    assert read(host, NODE0_2M) == "456\n"


def test_a_failed_mount_fails_with_its_words(host, monkeypatch):
    mnt = os.path.join(host, "m")
    table = {mount_argv(mnt): (32, "", "mount: %s: permission denied.\n" % mnt)}
    result, failed, calls = run_module(dpdk_hugepages.main, args(host, pages=[{"size": "2M", "count": 456, "mount": mnt}]), table, monkeypatch)
    assert failed and result["msg"] == "%s failed (rc 32): mount: %s: permission denied." % (" ".join(mount_argv(mnt)), mnt)


@pytest.mark.parametrize("fraction, message", [
    (90.0, "dpdk_host_hugepages_max_fraction: 90.0 is a percentage, but this is a share of the memory (of the host, and of each NUMA "
           "node) the hugepages may take written as a fraction (above 0, at most 1); write 0.9 for 90 %"),
    (1.5, "dpdk_host_hugepages_max_fraction: 1.5 is outside 0..1 (0 excluded); write the share of the memory (of the host, and of "
          "each NUMA node) the hugepages may take as a fraction, 0.9 for 90 %"),
])
def test_a_share_that_is_no_fraction_is_refused_before_any_write(host, monkeypatch, fraction, message):
    params = args(host, pages=[{"size": "2M", "count": 460, "node": 0}], max_fraction=fraction,
                  names={"pages": "dpdk_host_hugepages", "max_fraction": "dpdk_host_hugepages_max_fraction"})
    result, failed, calls = run_module(dpdk_hugepages.main, params, {}, monkeypatch)
    assert failed and calls == [] and result["errors"] == [message]
    assert read(host, NODE0_2M) == "456\n" and not os.path.exists(os.path.join(host, "state"))
