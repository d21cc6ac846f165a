"""offload.testbed.dpdk_host through ansible-playbook, as root.

The hugepages are this machine's own: the test reads the count of 1G pages
on NUMA node 0 other programs hold and asks for one more (1G, not 2M: other
engineers' OVS-DPDK runs on this machine size the 2M pool while this test
runs, and sysfs has no atomic "add"), checks it in sysfs, maps a file in the
hugetlbfs it mounted in a temporary directory, gives the page back and checks
the machine is as it was (the 1G counts, no hugetlbfs mount of its own left).
The persistence test writes sysctl.d and fstab files in a temporary
directory and mounts a real hugetlbfs, on a hugepage sysfs made of this
machine's files (the 2M pool is not its to resize). The PCI side runs on the emulated tree of
tests/emulators/dpdk with the REAL dpdk-devbind.py of Debian's dpdk package
(tests/emulators/dpdk/dpdk-devbind runs it in a private mount namespace with
the tree bind-mounted over /sys/bus/pci and /sys/module); no real device is
touched.
"""
import importlib.util
import json
import mmap
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EMULATORS = os.path.join(ROOT, "tests", "emulators", "dpdk")
BIN = os.path.dirname(sys.executable)
_spec = importlib.util.spec_from_file_location("dpdk_pci_kernel", os.path.join(EMULATORS, "pci_kernel.py"))
pci_kernel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pci_kernel)
NODE0_1G = "/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages"
HOST_1G = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
FREE_1G = "/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/free_hugepages"
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
PLAY = """
- name: dpdk_host
  hosts: localhost
  gather_facts: false
  roles:
    - role: offload.testbed.dpdk_host
"""
XL710, VIRTIO = "0000:86:00.0", "0000:00:03.0"


def count(path):
    with open(path) as handle:
        return int(handle.read())


def meminfo(key):
    with open("/proc/meminfo") as handle:
        return int(re.search(r"^%s:\s+(\d+)" % key, handle.read(), re.M).group(1))


def hugetlbfs_mounts():
    with open("/proc/mounts") as handle:
        return sorted(line.split()[1] for line in handle if line.split()[2] == "hugetlbfs")


def machine(tmp_path):
    """What the tests may change: the 1G counts, hugetlbfs mounts under their directory, mounts over /sys/bus/pci or /sys/module."""
    with open("/proc/mounts") as handle:
        over = [line for line in handle if line.split()[1] in ("/sys/bus/pci", "/sys/module")]
    return {"node0": count(NODE0_1G), "host": count(HOST_1G), "over sysfs": over,
            "mounts": [path for path in hugetlbfs_mounts() if path.startswith(str(tmp_path))]}


@pytest.fixture(scope="module", autouse=True)
def as_root():
    if os.geteuid() != 0:
        pytest.fail("dpdk_host's integration tests reserve real hugepages and mount hugetlbfs: run them as root")
    if not os.path.exists(NODE0_1G) or not os.path.exists("/usr/bin/dpdk-devbind.py"):
        pytest.fail("needs 1G hugepages on NUMA node 0 and Debian's dpdk package (/usr/bin/dpdk-devbind.py)")


@pytest.fixture
def play(tmp_path, playbook_env):
    """Run the role with the given variables; returns (rc, output, changed count). Gives back what it took at the end."""
    (tmp_path / "play.yml").write_text(PLAY)
    env = dict(playbook_env, ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_LOCALHOST_WARNING="0",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="0", ANSIBLE_CALLBACK_RESULT_FORMAT="json", DPDK_EMU_ROOT=str(tmp_path / "tree"),
               PATH=BIN + os.pathsep + os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin"))  # the emulators' python
    ran = []

    def run(variables, *options):
        variables = dict(variables, ansible_python_interpreter=sys.executable)
        ran.append(variables)
        (tmp_path / "vars.json").write_text(json.dumps(variables))
        proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "-e", "@%s" % (tmp_path / "vars.json"),
                               str(tmp_path / "play.yml")] + list(options), env=env, capture_output=True, text=True, check=False)
        recap = re.search(r"localhost\s+: ok=\d+\s+changed=(\d+)", proc.stdout)
        return proc.returncode, proc.stdout + proc.stderr, int(recap.group(1)) if recap else None

    before = machine(tmp_path)
    yield run
    for variables in reversed(ran):  # give back whatever a failed test left (idempotent when nothing is left)
        if variables.get("dpdk_host_state", "present") == "present":
            run(dict(variables, dpdk_host_state="absent"))
            break
    assert machine(tmp_path) == before, "the machine is not as the test found it"


def base(tmp_path, **extra):
    variables = {"dpdk_host_state_dir": str(tmp_path / "state"), "dpdk_host_vfio_load": False}
    variables.update(extra)
    return variables


def test_pages_on_node0_reserved_mounted_used_and_given_back(tmp_path, play):
    found = machine(tmp_path)
    mount = str(tmp_path / "huge-1G")
    variables = base(tmp_path, dpdk_host_hugepages=[{"size": "1G", "count": found["node0"] + 1, "node": 0, "mount": mount}])

    rc, out, changed = play(variables, "--check", "--diff")
    assert rc == 0 and changed == 1, out
    assert "+1048576kB@node0: %d" % (found["node0"] + 1) in out
    assert machine(tmp_path) == found and not os.path.exists(mount) and not os.path.exists(tmp_path / "state")

    rc, out, changed = play(variables)
    assert rc == 0 and changed == 1, out
    assert count(NODE0_1G) == found["node0"] + 1 and count(HOST_1G) == found["host"] + 1
    with open("/proc/mounts") as handle:
        assert [line.split()[2:4] for line in handle if line.split()[1] == mount] == [["hugetlbfs", "rw,relatime,pagesize=1024M"]]

    free = count(FREE_1G)
    fd = os.open(os.path.join(mount, "page"), os.O_CREAT | os.O_RDWR, 0o600)
    try:
        os.ftruncate(fd, 1 << 30)
        with mmap.mmap(fd, 1 << 30) as page:
            page[:11] = b"dpdk_host\x00\x01"
            assert count(FREE_1G) == free - 1, "a page mapped in the hugetlbfs took no 1G page"
            assert page[:9] == b"dpdk_host"
    finally:
        os.close(fd)
        os.unlink(os.path.join(mount, "page"))
    assert count(FREE_1G) == free

    rc, out, changed = play(variables)
    assert rc == 0 and changed == 0, out

    rc, out, changed = play(dict(variables, dpdk_host_state="absent"))
    assert rc == 0 and changed == 1, out
    assert count(NODE0_1G) == found["node0"] and mount not in hugetlbfs_mounts() and not os.path.exists(mount)
    rc, out, changed = play(dict(variables, dpdk_host_state="absent"))
    assert rc == 0 and changed == 0, out


def fake_hugepages(tmp_path):
    """A hugepage sysfs and procfs made of this machine's files (tests/fixtures/dpdk_*_firecracker.*), the /proc/mounts the real one."""
    root = tmp_path / "pages"
    for rel, text in (("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "456\n"),
                      ("sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n"),
                      ("proc/meminfo", open(os.path.join(FIXTURES, "dpdk_proc_meminfo_firecracker.txt")).read()),
                      ("proc/cpuinfo", open(os.path.join(FIXTURES, "dpdk_proc_cpuinfo_flags_firecracker.txt")).read())):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    os.symlink("/proc/mounts", str(root / "proc" / "mounts"))
    return root


def test_persistence_in_sysctl_and_fstab_and_away_again(tmp_path, play):
    pages = fake_hugepages(tmp_path)
    mount, sysctl, fstab = str(tmp_path / "huge"), tmp_path / "80-hugepages.conf", tmp_path / "fstab"
    fstab.write_text("UUID=65c70529-e9ad-4778-9001-18fe8c525285 / ext4 defaults 0 1\n")
    variables = base(tmp_path, dpdk_host_hugepages=[{"size": "2M", "count": 460, "mount": mount}], dpdk_host_hugepages_root=str(pages),
                     dpdk_host_hugepages_persist=True, dpdk_host_sysctl_file=str(sysctl), dpdk_host_fstab=str(fstab))
    rc, out, changed = play(variables)
    assert rc == 0 and changed == 3, out
    assert (pages / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages").read_text() == "460\n" and mount in hugetlbfs_mounts()
    assert "vm.nr_hugepages = 460\n" in sysctl.read_text()
    assert fstab.read_text().endswith("nodev %s hugetlbfs pagesize=2M 0 0\n" % mount)
    rc, out, changed = play(variables)
    assert rc == 0 and changed == 0, out
    rc, out, changed = play(dict(variables, dpdk_host_state="absent"))
    assert rc == 0 and changed == 3, out
    assert not sysctl.exists() and fstab.read_text() == "UUID=65c70529-e9ad-4778-9001-18fe8c525285 / ext4 defaults 0 1\n"
    assert (pages / "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages").read_text() == "456\n" and mount not in hugetlbfs_mounts()


def test_pages_over_memory_are_refused_on_this_machine_before_any_write(tmp_path, play):
    found = machine(tmp_path)
    rc, out, changed = play(base(tmp_path, dpdk_host_hugepages=[{"size": "2M", "count": 100000, "node": 0, "mount": str(tmp_path / "h")}]))
    assert rc != 0 and "Invalid DPDK host definition, nothing was changed: dpdk_host_hugepages[0].count" in out, out
    assert "100000 x 2M = 195.3 GiB of hugepages is above 90% of the memory" in out
    assert machine(tmp_path) == found and not os.path.exists(tmp_path / "h") and not os.path.exists(tmp_path / "state")


def tree(tmp_path):
    root = str(tmp_path / "tree")
    pci_kernel.build(root)
    return root


def devices_vars(tmp_path, **extra):
    variables = dict(dpdk_host_root=str(tmp_path / "tree"), dpdk_host_vfio_load=True, dpdk_host_vfio_noiommu=True,
                     dpdk_host_devbind_command=[os.path.join(EMULATORS, "dpdk-devbind")], dpdk_host_ip_command=os.path.join(EMULATORS, "ip"),
                     dpdk_host_modprobe=os.path.join(EMULATORS, "modprobe"), dpdk_host_devices=[{"pci": XL710}])
    variables.update(extra)
    return base(tmp_path, **variables)


def devbind_status(root):
    env = dict(os.environ, DPDK_EMU_ROOT=root, PATH=BIN + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"))
    out = subprocess.run([os.path.join(EMULATORS, "dpdk-devbind"), "--status-dev", "net"], env=env,
                         capture_output=True, text=True, check=True).stdout
    sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
    from ansible_collections.offload.testbed.plugins.module_utils.prepare import dpdk_devbind  # pylint: disable=import-outside-toplevel
    return dpdk_devbind.parse_status(out)


def test_a_device_bound_with_the_real_dpdk_devbind_and_given_back(tmp_path, play):
    root = tree(tmp_path)
    assert devbind_status(root)[XL710]["drv"] == "i40e"
    variables = devices_vars(tmp_path)

    rc, out, changed = play(variables, "--check")
    assert rc == 0 and changed == 2, out
    assert pci_kernel.driver_of(root, XL710) == "i40e" and not os.path.exists(os.path.join(root, "sys", "module", "vfio_pci"))

    rc, out, changed = play(variables, "--diff")
    assert rc == 0 and changed == 2, out
    assert "vfio is in no-IOMMU mode (dpdk_host_vfio_noiommu: true)" in re.sub(r"\s+", " ", out)
    assert pci_kernel.driver_of(root, XL710) == "vfio-pci" and pci_kernel.net_parent(root, XL710) is None
    status = devbind_status(root)
    assert status[XL710]["section"] == "Network devices using DPDK-compatible driver" and status[XL710]["drv"] == "vfio-pci"
    assert status[VIRTIO]["drv"] == "virtio-pci" and status[VIRTIO]["active"]
    with open(os.path.join(root, "state", "dpdk", "calls.log")) as handle:
        calls = [line.strip() for line in handle if not line.startswith(("lspci", "ip -o route", "ip -j"))]
    assert calls[:5] == ["dpdk-devbind --status-dev net", "modprobe vfio enable_unsafe_noiommu_mode=1", "modprobe vfio-pci",
                         "ip link set dev enp134s0f0 down", "dpdk-devbind -b vfio-pci 0000:86:00.0"]

    rc, out, changed = play(variables)
    assert rc == 0 and changed == 0, out

    rc, out, changed = play(dict(variables, dpdk_host_state="unbound"))
    assert rc == 0 and changed == 1, out
    assert pci_kernel.driver_of(root, XL710) == "i40e"
    with open(os.path.join(pci_kernel.net_parent(root, XL710), "net", "enp134s0f0", "flags")) as handle:
        assert handle.read() == "0x1003\n"
    assert devbind_status(root)[XL710]["drv"] == "i40e"
    rc, out, changed = play(dict(variables, dpdk_host_state="unbound"))
    assert rc == 0 and changed == 0, out


def test_the_management_nic_a_missing_device_and_no_iommu_refused_at_once(tmp_path, play):
    root = tree(tmp_path)
    variables = devices_vars(tmp_path, dpdk_host_vfio_noiommu=False, dpdk_host_management_addresses=["192.0.2.2"],
                             dpdk_host_devices=[{"pci": VIRTIO}, {"pci": "0000:99:00.0"}])
    rc, out, changed = play(variables)
    text = re.sub(r"\s+", " ", out)
    assert rc != 0 and "Invalid DPDK host definition, nothing was changed: dpdk_host_vfio_noiommu: this host has no IOMMU" in text, out
    assert ("dpdk_host_devices[0].pci: 0000:00:03.0 (driver virtio-pci) carries the management of this host: its interface eth0 has "
            "the management address 192.0.2.2 (dpdk_host_management_addresses)") in text
    assert "eth0 carries the default route (default via 192.0.2.1 dev eth0)" in text
    assert "dpdk_host_devices[1].pci: '0000:99:00.0' is no PCI device of this host" in text
    assert pci_kernel.driver_of(root, VIRTIO) == "virtio-pci"
    with open(os.path.join(root, "state", "dpdk", "calls.log")) as handle:
        assert [line for line in handle if not line.startswith("ip -j")] == []
