"""module_utils/prepare/hugepages.py: parsers on this machine's real files, the checks on their messages, the plans."""
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import hugepages

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def host(**changes):
    """This machine (tests/fixtures/dpdk_*_firecracker.*): 24 GB, one NUMA node, 2M and 1G offered, pdpe1gb."""
    values = {
        "sizes": {2048, 1048576},
        "flags": hugepages.parse_flags(fixture("dpdk_proc_cpuinfo_flags_firecracker.txt")),
        "meminfo": hugepages.parse_meminfo(fixture("dpdk_proc_meminfo_firecracker.txt")),
        "nodes": {0: hugepages.parse_meminfo(fixture("dpdk_node0_meminfo_firecracker.txt"))},
        "current": {"2048kB": 456, "2048kB@node0": 456, "1048576kB": 0, "1048576kB@node0": 0},
        "mounts": hugepages.parse_mounts(fixture("dpdk_proc_mounts_hugetlbfs_firecracker.txt")),
        "default_size": 2048,
    }
    values.update(changes)
    return values


def check(entries, **kw):
    names = ["dpdk_host_hugepages[%d]" % i for i in range(len(entries))]
    return hugepages.errors(names, entries, kw.pop("host", None) or host(), **kw)


def test_parsers_read_the_real_files():
    meminfo = hugepages.parse_meminfo(fixture("dpdk_proc_meminfo_firecracker.txt"))
    assert meminfo["MemTotal"] == 24683584 and meminfo["MemAvailable"] == 22902400 and meminfo["Hugepagesize"] == 2048
    assert meminfo["HugePages_Total"] == 456
    assert hugepages.parse_meminfo(fixture("dpdk_node0_meminfo_firecracker.txt"))["MemTotal"] == 9398008
    assert hugepages.parse_mounts(fixture("dpdk_proc_mounts_hugetlbfs_firecracker.txt")) == {"/tmp/tpg-huge.fDLV": 2048, "/dev/hugepages": 2048}
    assert "pdpe1gb" in hugepages.parse_flags(fixture("dpdk_proc_cpuinfo_flags_firecracker.txt"))
    assert hugepages.parse_sizes(["hugepages-2048kB", "hugepages-1048576kB", "other"]) == {2048, 1048576}


def test_paths():
    assert hugepages.nr_path("/", 2048) == "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
    assert hugepages.nr_path("/r", 1048576, 1) == "/r/sys/devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages"


def test_a_good_request_passes():
    assert check([{"size": "2M", "count": 500, "node": 0, "mount": "/mnt/huge"}, {"size": "1G", "count": 2}]) == []


def test_over_memory_is_refused_naming_the_counts():
    errors = check([{"size": "1G", "count": 16}, {"size": "2M", "count": 4000}])
    assert errors == ["dpdk_host_hugepages[0].count, dpdk_host_hugepages[1].count: 16 x 1G + 4000 x 2M = 23.8 GiB of hugepages is above "
                      "90% of the memory (MemTotal 23.5 GiB); ask for fewer pages"]


def test_more_than_available_is_refused():
    assert check([{"size": "1G", "count": 21}], max_fraction=1.0, host=host(nodes={})) == []
    errors = check([{"size": "1G", "count": 22}], max_fraction=1.0, host=host(nodes={}))
    assert errors == ["dpdk_host_hugepages[0].count: the 22.0 GiB more of hugepages asked is above the memory available "
                      "(MemAvailable 21.8 GiB); ask for fewer pages or free memory first"]


def test_over_a_node_is_refused():
    errors = check([{"size": "1G", "count": 9, "node": 0}])
    assert errors == ["dpdk_host_hugepages[0].count: 9.0 GiB of hugepages on NUMA node 0 is above 90% of its memory (9.0 GiB); "
                      "spread the pages over the nodes or ask for fewer"]


def test_1g_without_pdpe1gb_is_refused():
    errors = check([{"size": "1G", "count": 2}], host=host(flags={"pse", "fpu"}, sizes={2048}))
    assert errors == ["dpdk_host_hugepages[0].size: '1G' pages need the CPU flag pdpe1gb, which /proc/cpuinfo does not list: "
                      "this CPU cannot map them; use 2M pages (sizes this host offers: 2M)"]


@pytest.mark.parametrize("size, message", [
    ("16M", "dpdk_host_hugepages[0].size: '16M' is not a page size this host offers (/sys/kernel/mm/hugepages has 2M and 1G); use one of those"),
    ("big", "dpdk_host_hugepages[0].size: 'big' is not a page size; write 2M or 1G (the sizes this host offers: 2M and 1G)"),
])
def test_sizes_the_host_does_not_offer(size, message):
    assert check([{"size": size, "count": 1}]) == [message]


def test_every_problem_at_once():
    errors = check([{"size": "2M", "count": -1, "node": 3, "mount": "huge"}, {"size": "2M", "count": True, "node": 3}])
    assert errors == [
        "dpdk_host_hugepages[0].count: -1 is not a page count; write a whole number, 0 or more",
        "dpdk_host_hugepages[0].node: 3 is not a NUMA node of this host (it has 0); leave it unset for the whole host",
        "dpdk_host_hugepages[0].mount: 'huge' is not an absolute directory; write a path such as /mnt/huge-1G",
        "dpdk_host_hugepages[1].count: True is not a page count; write a whole number, 0 or more",
        "dpdk_host_hugepages[1].node: 3 is not a NUMA node of this host (it has 0); leave it unset for the whole host",
        "dpdk_host_hugepages[1]: 2M pages on node 3 are already asked by dpdk_host_hugepages[0]; give each size and node once",
    ]


def test_a_mount_of_another_size_is_refused():
    errors = check([{"size": "1G", "count": 1, "mount": "/dev/hugepages"}])
    assert errors == ["dpdk_host_hugepages[0].mount: /dev/hugepages is already a hugetlbfs mount of 2M pages, not 1G; pick another directory"]


def test_persist_only_the_default_size_for_the_host():
    assert check([{"size": "2M", "count": 8}], persist=True) == []
    errors = check([{"size": "1G", "count": 1}, {"size": "2M", "count": 8, "node": 0}], persist=True)
    assert errors == [
        "dpdk_host_hugepages[0]: only the default size (2M) for the whole host persists through sysctl (vm.nr_hugepages); "
        "reserve 1G pages at boot with the boot_params role, or set dpdk_host_hugepages_persist: false",
        "dpdk_host_hugepages[1]: only the default size (2M) for the whole host persists through sysctl (vm.nr_hugepages); "
        "reserve 2M pages per node at boot with the boot_params role, or set dpdk_host_hugepages_persist: false",
    ]


def test_plan_counts_present_and_absent_relative():
    current = {"2048kB@node0": 456, "1048576kB": 0}
    assert hugepages.plan_counts([{"size": "2M", "count": 460, "node": 0}, {"size": "1G", "count": 0}], current, {}, "present") == [
        (2048, 0, 456, 460)]
    recorded = {"2048kB@node0": {"before": 456, "set": 460}}
    assert hugepages.plan_counts([], {"2048kB@node0": 460}, recorded, "absent") == [(2048, 0, 460, 456)]
    # another program released 100 pages meanwhile: only the role's 4 go
    assert hugepages.plan_counts([], {"2048kB@node0": 360}, recorded, "absent") == [(2048, 0, 360, 356)]
    assert hugepages.plan_counts([], {"2048kB@node0": 456}, {}, "absent") == []


def test_record_count_keeps_the_first_count_found():
    assert hugepages.record_count({}, "2048kB", 456, 460) == {"before": 456, "set": 460}
    assert hugepages.record_count({"2048kB": {"before": 456, "set": 460}}, "2048kB", 460, 470) == {"before": 456, "set": 470}
    assert hugepages.record_count({"2048kB": {"before": 456, "set": 460}}, "2048kB", 460, 456) is None


def test_plan_mounts():
    entries = [{"size": "2M", "count": 1, "mount": "/mnt/a/"}, {"size": "1G", "count": 1, "mount": "/dev/hugepages"}]
    assert hugepages.plan_mounts(entries, {"/dev/hugepages": 2048}, [], "present") == [("mount", "/mnt/a", 2048)]
    assert hugepages.plan_mounts([], {"/mnt/a": 2048, "/dev/hugepages": 2048}, ["/mnt/a", "/gone"], "absent") == [("umount", "/mnt/a", 2048)]


def test_requests_say_which_pages_sysctl_keeps():
    found = hugepages.requests([{"size": "2048kB", "count": 8}, {"size": "1G", "count": 1, "mount": "/mnt/h/"}], 2048)
    assert found == [{"size_kib": 2048, "size": "2M", "count": 8, "node": None, "mount": None, "default_size": True},
                     {"size_kib": 1048576, "size": "1G", "count": 1, "node": None, "mount": "/mnt/h", "default_size": False}]
