# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the DUT is, read on the host for the bench fingerprint: CPU, isolated CPUs, hugepages, NUMA, PCI, DOCA.

Every reader returns None (or an empty mapping) for what the host does not have, so a lab machine without
a NUMA node, hugepages or DOCA gives a fingerprint that says so rather than failing. The paths are module
constants the tests point elsewhere.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

PROC = "/proc"
SYS = "/sys"

# The DOCA-Host and MLNX_OFED packages whose version names the installation (the doca_host role installs
# doca-networking on Debian and Ubuntu, doca-openvswitch, doca-networking and doca-extra on the RHEL family).
DOCA_PACKAGES = ("doca-all", "doca-networking", "doca-ofed", "doca-openvswitch", "doca-runtime", "doca-extra",
                 "doca-ofed-userspace", "mlnx-ofed-kernel-dkms", "mlnx-ofed-kernel-modules")


def read_value(*parts):
    """The stripped text of a one-value file, None when it cannot be read."""
    try:
        with open(os.path.join(*parts)) as handle:
            return handle.read().strip()
    except (OSError, IOError, UnicodeDecodeError):
        return None


def cpu_model(text):
    """The first ``model name`` of /proc/cpuinfo's text, None without one (the hardware's name of the cores)."""
    for line in (text or "").splitlines():
        key, _sep, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return value.strip()
    return None


def cpu_node(cpu):
    """The NUMA node of a CPU (its ``nodeN`` link in sysfs), None on a machine without NUMA in sysfs."""
    try:
        names = os.listdir(os.path.join(SYS, "devices", "system", "cpu", "cpu%d" % cpu))
    except OSError:
        return None
    nodes = [name[4:] for name in names if name.startswith("node") and name[4:].isdigit()]
    return int(nodes[0]) if nodes else None


def hugepages():
    """``{"2048kB": 512, "1048576kB": 0}``: the pages reserved of each size (``nr_hugepages``)."""
    base = os.path.join(SYS, "kernel", "mm", "hugepages")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return {}
    found = {}
    for name in names:
        count = read_value(base, name, "nr_hugepages")
        if name.startswith("hugepages-") and count is not None and count.isdigit():
            found[name[len("hugepages-"):]] = int(count)
    return found


def nic_device(iface):
    """The NUMA node and PCI ids of a network interface's device (``/sys/class/net/IFACE/device``)."""
    device = os.path.join(SYS, "class", "net", iface, "device")
    node = read_value(device, "numa_node")
    ids = [read_value(device, name) for name in ("vendor", "device", "subsystem_vendor", "subsystem_device")]
    return {
        "numa_node": int(node) if node is not None and node.lstrip("-").isdigit() else None,
        "pci_id": _pci_pair(ids[:2]),
        "pci_subsystem": _pci_pair(ids[2:]),
    }


def _pci_pair(values):
    """``15b3:101f`` from sysfs's ``0x15b3`` and ``0x101f``; None when one is not there."""
    if not all(values):
        return None
    return ":".join(value[2:] if value.startswith("0x") else value for value in values)


def pmd_cores(pmd, threads):
    """``{"2": 0, "3": 0}``: each PMD core and its NUMA node, as pmd-stats-show names them (``pmd thread numa_id 0
    core_id 2``); without those, the CPU each PMD thread last ran on and that CPU's node in sysfs (None unknown)."""
    named = dict((str(stats["core"]), stats.get("numa")) for stats in (pmd or {}).values() if stats.get("core") is not None)
    if named:
        return named
    cpus = sorted({thread["cpu"] for thread in threads or () if thread.get("cpu") is not None})
    return dict((str(cpu), cpu_node(cpu)) for cpu in cpus)


def system_facts():
    """The host's part of the fingerprint that needs no tool: CPU model, isolated CPUs, hugepages."""
    isolated = read_value(SYS, "devices", "system", "cpu", "isolated")  # a kernel cpulist, empty when none
    return {
        "cpu_model": cpu_model(read_value(PROC, "cpuinfo")),
        "isolated_cpus": isolated or "",
        "hugepages": hugepages(),
    }


def parse_installed(text):
    """``{package: version}`` from lines ``STATUS<TAB>NAME<TAB>VERSION`` of dpkg-query (format ``${db:Status-Abbrev}\t${Package}\t${Version}``:
    only ``ii``, installed) or ``NAME<TAB>VERSION`` of rpm (``%{NAME}\t%{VERSION}-%{RELEASE}``, installed by definition)."""
    found = {}
    for row in (line.split("\t") for line in (text or "").splitlines()):
        if len(row) == 3 and row[0].startswith("ii"):
            found[row[1]] = row[2]
        elif len(row) == 2 and row[0] and row[1]:
            found[row[0]] = row[1]
    return found


def package_versions(runner):
    """``{package: version}`` of the installed DOCA-Host and MLNX_OFED packages (dpkg-query or rpm), empty without them."""
    dpkg = runner.module.get_bin_path("dpkg-query")
    rpm = runner.module.get_bin_path("rpm") if not dpkg else None
    if dpkg:
        argv = [dpkg, "-W", "-f", "${db:Status-Abbrev}\t${Package}\t${Version}\n"]
    elif rpm:
        argv = [rpm, "-q", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\n"]
    else:
        return {}
    return parse_installed(runner.read(argv + list(DOCA_PACKAGES), check_rc=False)[1])
