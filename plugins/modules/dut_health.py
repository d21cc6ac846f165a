#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: dut_health
short_description: Read the health of the device under test's Open vSwitch
version_added: 0.1.0
description:
  - Reads the ovs-vswitchd pid and start time, the service's restart count (systemd C(NRestarts)), the core dumps
    present, the offloaded datapath flows (C(ovs-appctl dpctl/dump-flows -m type=offloaded); every flow with O(all_flows), by
    default on the kernel datapath with hw-offload) with their datapath layer (C(dp:tc), C(dp:doca)...) and packets, and how
    many of the offloaded ones carried packets, and the PMD statistics (C(ovs-appctl dpif-netdev/pmd-stats-show)).
  - Reads the CPU time counters of C(/proc/stat) with a monotonic timestamp, and the CPU time and last CPU of each
    ovs-vswitchd thread whose name starts with C(pmd) (the PMD threads), so that two readings tell what used the DUT's
    CPUs in between (C(cpu_use) of the collection's C(bench_health) module utility). Only C(/proc) files are read, no
    command runs for it; an unreadable C(/proc) entry or no PMD thread (kernel datapath, OVS-DOCA without PMDs) gives
    empty values, not a failure.
  - The M(offload.testbed.trex_bench) action runs it before and after every trial and declares a trial invalid when
    ovs-vswitchd restarted or a new core dump appeared during it.
  - Changes nothing; it always reports C(changed=false) and runs in check mode too.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads only.
  diff_mode:
    description: Nothing changes, so there is nothing to show.
options:
  pidfiles:
    description: Pid files of ovs-vswitchd, tried in order; the first that names a running ovs-vswitchd wins.
    type: list
    elements: path
    default: [/run/openvswitch/ovs-vswitchd.pid, /var/run/openvswitch/ovs-vswitchd.pid]
  service:
    description: systemd unit whose C(NRestarts) is the restart count; ignored on hosts not booted with systemd.
    type: str
    default: ovs-vswitchd
  core_dirs:
    description: Directories whose files named after ovs-vswitchd (or C(core*)) count as core dumps.
    type: list
    elements: path
    default: [/var/lib/systemd/coredump, /var/crash, /var/lib/apport/coredump]
  offloaded_flows:
    description: Read the offloaded datapath flows (C(ovs-appctl dpctl/dump-flows -m type=offloaded)).
    type: bool
    default: true
  all_flows:
    description:
      - With O(offloaded_flows), dump every datapath flow (C(dpctl/dump-flows -m)), not only the offloaded ones, so that
        RV(flow_counters) also holds the packets left in software on the kernel datapath (no PMD statistics there) and
        those of the TC flows not in hardware.
      - Unset, every flow is dumped when the C(Open_vSwitch) record's C(other_config:hw-offload) is true and a bridge is on the
        kernel datapath (C(datapath_type) C(system) or empty), read with C(ovs-vsctl) at every run; only the offloaded ones
        otherwise. There Open vSwitch puts its datapath flows in TC, and a TC flow not in hardware (C(tc-policy=skip_hw), or a
        port without hw-tc-offload; tc shows it C(not_in_hw)) prints C(dp:tc) without C(offloaded:yes), so
        C(type=offloaded) leaves it out. V(false) dumps only the offloaded ones whatever the switch's configuration.
      - Dumping every flow takes long with many flows.
    type: bool
  pmd_stats_command:
    description:
      - C(ovs-appctl) command printing PMD statistics, C(dpif-netdev/pmd-stats-show) or C(dpif-doca/pmd-stats-show) (on
        OVS-DOCA); empty to skip.
      - Any other command is refused before anything runs, since it may change the switch (C(exit) stops ovs-vswitchd).
    type: str
    default: dpif-netdev/pmd-stats-show
  system:
    description: Also return RV(system) (kernel, its command line, OVS, OVN and DPDK versions, hw-tc-offload of the kernel datapath's
      ports, CPU model, isolated CPUs, hugepages, PMD cores and their NUMA nodes, DOCA packages, what the bench fingerprint records).
    type: bool
    default: false
  interfaces:
    description: With O(system), network interfaces whose driver, firmware and PSID (C(ethtool -i)) go into RV(system).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Read the DUT's Open vSwitch health
  offload.testbed.dut_health:
  register: health

- name: Fail when ovs-vswitchd is not running
  ansible.builtin.assert:
    that: health.pid is not none
    fail_msg: ovs-vswitchd is not running on {{ inventory_hostname }}
"""

RETURN = r"""
pid:
  description: Pid of ovs-vswitchd, null when it is not running.
  returned: always
  type: int
  sample: 4457
start_time:
  description: Start time of that process in clock ticks since boot (field 22 of C(/proc/<pid>/stat)); a new value means a restart.
  returned: always
  type: int
  sample: 123456
restarts:
  description: systemd C(NRestarts) of O(service), null without systemd.
  returned: always
  type: int
  sample: 0
core_dumps:
  description: Core dump files found in O(core_dirs).
  returned: always
  type: list
  elements: str
  sample: [/var/lib/systemd/coredump/core.ovs-vswitchd.0.1b2c.4457.1700000000000000.zst]
offloaded_flows:
  description: Number of offloaded datapath flows, null when not read or not readable.
  returned: always
  type: int
  sample: 12
offloaded_flows_with_packets:
  description: Offloaded datapath flows whose packet counter is above zero.
  returned: always
  type: int
  sample: 10
flow_counters:
  description:
    - Per datapath flow read (by ufid, else by its match) its C(dp) (datapath layer, C(tc), C(doca), C(ovs)...), C(offloaded)
      (C(yes), C(partial) or null) and C(packets); null when not read. Two readings give the offloaded packets of a trial
      (C(offload_use) of the collection's C(offload_facts) module utility).
  returned: always
  type: dict
  sample: {"17c5fac7-b52f-4d48-ad30-f10a9fe6f028": {"dp": "tc", "offloaded": "yes", "packets": 153}}
all_flows:
  description: Whether RV(flow_counters) holds every flow, not only the offloaded ones (O(all_flows), or what the switch's
    configuration decided when it is unset); false when no flow was read.
  returned: always
  type: bool
  sample: false
system:
  description: What the DUT runs, for the results file, when O(system) is set (C(hostname), C(kernel), C(cmdline), C(ovs_version),
    C(ovn_version) - of the ovn-controller that runs when it answers -,
    C(ovs_other_config), the C(Open_vSwitch) record's C(other_config) read from the database (null when C(ovs-vsctl) cannot read it),
    C(hw_tc_offload), when C(other_config:hw-offload) is true, per network device on Open vSwitch's kernel datapath (the interfaces
    of type system of the bridges whose C(datapath_type) is system or unset, the PF and the representors) its C(hw-tc-offload) from
    C(ethtool -k) (true, false, or null when ethtool lists none), without which C(hw-offload) keeps the flows in software
    (empty when hw-offload is off),
    C(nics), per interface of O(interfaces) the C(driver), C(version), C(firmware_version), C(psid) and C(bus_info) of C(ethtool -i)
    and its device's C(numa_node), C(pci_id) and C(pci_subsystem) (vendor and device ids) from sysfs,
    and for the bench fingerprint C(cpu_model) (C(/proc/cpuinfo)), C(isolated_cpus) (C(/sys/devices/system/cpu/isolated)),
    C(hugepages) (pages reserved per size), C(dpdk_version) (of the C(Open_vSwitch) record, C(none) without DPDK),
    C(doca_packages) (the installed DOCA-Host and MLNX_OFED packages and their versions) and C(pmd_cpus) (each PMD core and its
    NUMA node, from the PMD statistics, else the PMD threads' CPUs)).
  returned: when O(system=true)
  type: dict
  sample: {"hostname": "dut01", "kernel": "6.1.0-18-amd64", "cmdline": "BOOT_IMAGE=... isolcpus=2-15", "ovs_version": "ovs-vswitchd (Open vSwitch) 3.1.0",
           "ovs_other_config": {"hw-offload": "true"}, "hw_tc_offload": {"ens1f0np0": true, "ens1f0npf0vf0": true},
           "cpu_model": "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "isolated_cpus": "2-15", "hugepages": {"2048kB": 1024},
           "dpdk_version": "none", "doca_packages": {}, "pmd_cpus": {"2": 0}}
pmd:
  description:
    - PMD statistics per thread (C(main), C(pmd<core>)), keys as printed with C(_) for spaces; a PMD thread has C(numa) and
      C(core), and C(idle_cycles) and C(processing_cycles) (its busy cycles) once it has polled.
    - Counters since ovs-vswitchd started or the last C(ovs-appctl dpif-netdev/pmd-stats-clear).
  returned: always
  type: dict
  sample: {"main": {"packets_received": 3847, "emc_hits": 2122, "megaflow_hits": 1674},
           "pmd1": {"numa": 0, "core": 1, "packets_received": 10, "idle_cycles": 2000, "processing_cycles": 500}}
cpu:
  description: CPU time counters of the DUT, read at one moment; two readings give the CPU use between them.
  returned: always
  type: dict
  contains:
    clk_tck:
      description: Clock ticks per second of the counters (C(os.sysconf) of C(SC_CLK_TCK), what C(getconf CLK_TCK) prints), null when unknown.
      returned: always
      type: int
      sample: 100
    monotonic:
      description: Seconds of the machine's monotonic clock (C(CLOCK_MONOTONIC), one clock for all processes) when C(times) was read.
      returned: always
      type: float
      sample: 20471.188121964
    times:
      description:
        - The C(cpu) line (all CPUs) and each C(cpuN) line (one online CPU) of C(/proc/stat), clock ticks since boot spent in
          C(user), C(nice), C(system), C(idle), C(iowait), C(irq), C(softirq) and C(steal) (0 when the kernel does not count it).
        - Empty when C(/proc/stat) cannot be read.
      returned: always
      type: dict
      sample: {"cpu": {"user": 1814437, "nice": 0, "system": 398195, "idle": 1694705, "iowait": 16527, "irq": 0, "softirq": 25953,
                       "steal": 136449},
               "cpu0": {"user": 786195, "nice": 0, "system": 188608, "idle": 982953, "iowait": 3334, "irq": 0, "softirq": 11982,
                        "steal": 69509}}
    pmd_threads:
      description:
        - The ovs-vswitchd threads whose name (C(/proc/<pid>/task/<tid>/comm)) starts with C(pmd), by thread id.
        - Empty when ovs-vswitchd is not running, has no PMD thread or its C(/proc) entry cannot be read.
      returned: always
      type: list
      elements: dict
      contains:
        tid:
          description: Thread id.
          type: int
          returned: always
        name:
          description: Thread name, C(pmd-c<core>/id:<id>) in recent Open vSwitch.
          type: str
          returned: always
        ticks:
          description: CPU time the thread used since it started, user plus system, in clock ticks (fields 14 and 15 of its C(stat)).
          type: int
          returned: always
        cpu:
          description: CPU the thread last ran on (field 39 of its C(stat)).
          type: int
          returned: always
      sample: [{"tid": 4470, "name": "pmd-c01/id:5", "ticks": 853390, "cpu": 1}]
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.bench.health import (
    hw_offload_on, is_kernel_datapath, kernel_datapath_ports, offloaded_summary, parse_pmd_stats_show, pmd_stats_command_error,
    parse_proc_stat, parse_task_stat)
from ansible_collections.offload.testbed.plugins.module_utils.bench import bench_host
from ansible_collections.offload.testbed.plugins.module_utils.bench.offload_facts import flow_counters
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import parse_table, switch_model
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_features, parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows

# Where /proc is (the tests point it elsewhere).
PROC = "/proc"


def read_pid(pidfiles):
    """(pid, start_time) of a running ovs-vswitchd named by the first usable pid file."""
    for path in pidfiles:
        try:
            with open(path) as handle:
                pid = int(handle.read().strip())
            with open(os.path.join(PROC, str(pid), "stat")) as handle:
                stat = handle.read()
        except (OSError, ValueError):
            continue
        # comm is in parentheses and may hold spaces; fields after it start at state (field 3)
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        if not comm.startswith("ovs-vswitchd"):
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        return pid, int(fields[19])
    return None, None


def read_text(path):
    """A /proc file's text, None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except (OSError, IOError):
        return None


def pmd_threads(pid):
    """``[{tid, name, ticks, cpu}]`` of ovs-vswitchd's threads named ``pmd*``; empty when there are none or they cannot be read."""
    if pid is None:
        return []
    task_dir = os.path.join(PROC, str(pid), "task")
    try:
        tids = sorted(int(name) for name in os.listdir(task_dir) if name.isdigit())
    except OSError:
        return []
    threads = []
    for tid in tids:
        name = (read_text(os.path.join(task_dir, str(tid), "comm")) or "").rstrip("\n")
        if not name.startswith("pmd"):
            continue
        stat = parse_task_stat(read_text(os.path.join(task_dir, str(tid), "stat")))
        if stat is not None:
            threads.append({"tid": tid, "name": name, "ticks": stat[0], "cpu": stat[1]})
    return threads


def read_cpu(pid):
    """CPU time counters of the machine (/proc/stat) and of ovs-vswitchd's PMD threads, with the clock they were read at."""
    try:
        clk_tck = os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError):
        clk_tck = None
    monotonic = time.monotonic()
    times = parse_proc_stat(read_text(os.path.join(PROC, "stat")))
    return {"clk_tck": clk_tck, "monotonic": monotonic, "times": times, "pmd_threads": pmd_threads(pid)}


def core_dumps(dirs):
    found = []
    for directory in dirs:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if "ovs-vswitchd" in name or name.startswith("core"):
                found.append(os.path.join(directory, name))
    return sorted(found)


def first_line(runner, argv):
    path = runner.module.get_bin_path(argv[0])
    if not path:
        return None
    rc, out, _err = runner.read([path] + argv[1:], check_rc=False)
    return out.strip().splitlines()[0] if rc == 0 and out.strip() else None


def vsctl_list(runner, table, columns=None):
    """What ``ovs-vsctl --format=json list TABLE`` prints (only ``columns``, comma-separated, when given), None when it
    cannot run or fails."""
    path = runner.module.get_bin_path("ovs-vsctl")
    if not path:
        return None
    rc, out, _err = runner.read([path, "--timeout=5", "--format=json"] + (["--columns=" + columns] if columns else []) + ["list", table], check_rc=False)
    return out if rc == 0 else None


def vsctl_rows(runner, table, columns=None):
    """The rows of ``vsctl_list`` (``ovsdb.parse_table``), None when unreadable."""
    out = vsctl_list(runner, table, columns)
    if out is None:
        return None
    try:
        return parse_table(out)
    except ValueError:
        return None


def ovs_other_config(runner):
    """The Open_vSwitch record's other_config (what compare.yml's variants change), None when unreadable."""
    rows = vsctl_rows(runner, "Open_vSwitch", "other_config")
    value = rows[0].get("other_config") if rows else None
    return value if isinstance(value, dict) else None


def dpdk_version(runner):
    """The Open_vSwitch record's dpdk_version (``DPDK 22.11.4``; ``none`` from an ovs-vswitchd built without DPDK), None
    when unreadable or unset."""
    rows = vsctl_rows(runner, "Open_vSwitch", "dpdk_version")
    value = rows[0].get("dpdk_version") if rows else None
    return value if isinstance(value, str) and value else None


def every_flow_wanted(runner, all_flows):
    """``all_flows`` when given; unset, whether Open vSwitch puts its flows in TC: ``other_config:hw-offload`` true and a
    bridge on the kernel datapath. Its TC flows not in hardware are not in ``type=offloaded``, and the kernel datapath
    has no PMD statistics: the packets in TC and in software are known only from every flow."""
    if all_flows is not None:
        return all_flows
    if not hw_offload_on(ovs_other_config(runner)):
        return False
    return any(is_kernel_datapath(row.get("datapath_type")) for row in vsctl_rows(runner, "Bridge") or ())


def kernel_datapath_hw_tc_offload(runner):
    """``{port: on, off or None}``: hw-tc-offload (``ethtool -k``) of each network device on Open vSwitch's kernel
    datapath (``bench_health.kernel_datapath_ports``); empty when ``ovs-vsctl`` cannot list the switch. None for a
    port ethtool cannot read or that lists no hw-tc-offload."""
    tables = []
    for table in ("Bridge", "Port", "Interface"):
        out = vsctl_list(runner, table)
        if out is None:
            return {}
        tables.append(out)
    try:
        ports = kernel_datapath_ports(switch_model(*tables))
    except ValueError:
        return {}
    ethtool = runner.module.get_bin_path("ethtool")
    found = {}
    for port in ports:
        rc, out, _err = runner.read([ethtool, "-k", port], check_rc=False) if ethtool else (1, "", "")
        found[port] = parse_ethtool_features(out).get("hw-tc-offload") if rc == 0 else None
    return found


def system_info(runner, interfaces):
    info = dict(bench_host.system_facts(), hostname=os.uname()[1], kernel=os.uname()[2], cmdline=bench_host.read_value(PROC, "cmdline"))
    info["doca_packages"] = bench_host.package_versions(runner)
    info["ovs_version"] = first_line(runner, ["ovs-vswitchd", "--version"])
    # The ovn-controller that runs answers for itself (an OVN built from source may not be the one on PATH).
    info["ovn_version"] = (first_line(runner, ["ovn-appctl", "-t", "ovn-controller", "version"])
                           or first_line(runner, ["ovn-controller", "--version"]))
    info["ovs_other_config"], info["dpdk_version"] = ovs_other_config(runner), dpdk_version(runner)
    # Only hw-offload makes Open vSwitch offload through TC: the ports are read then.
    info["hw_tc_offload"] = kernel_datapath_hw_tc_offload(runner) if hw_offload_on(info["ovs_other_config"]) else {}
    info["nics"] = {}
    ethtool = runner.module.get_bin_path("ethtool") if interfaces else None
    for iface in interfaces:
        if not ethtool:
            runner.fail("interfaces: ethtool is needed to read %s; install it or leave interfaces empty" % iface)
        rc, out, err = runner.read([ethtool, "-i", iface], check_rc=False)
        if rc != 0:
            runner.fail("interfaces: ethtool -i %s failed: %s" % (iface, err.strip()))
        info["nics"][iface] = dict(parse_ethtool_info(out), **bench_host.nic_device(iface))
    return info


def read_flows(runner, appctl, all_flows, result):
    """The datapath flows (``-m``: with their ufid and datapath layer), only the offloaded ones unless ``all_flows``."""
    argv = [appctl, "dpctl/dump-flows", "-m"] + ([] if all_flows else ["type=offloaded"])
    rc, out, err = runner.read(argv, check_rc=False)
    if rc != 0:
        result["warnings"].append("ovs-appctl %s failed: %s" % (" ".join(argv[1:]), err.strip()))
        return
    flows = parse_dump_flows(out)
    result["flow_counters"] = flow_counters(flows)
    offloaded = [flow for flow in flows if flow.get("offloaded")] if all_flows else flows
    result["offloaded_flows"], result["offloaded_flows_with_packets"] = offloaded_summary(offloaded)


def main():
    module = AnsibleModule(
        argument_spec={
            "pidfiles": {"type": "list", "elements": "path", "default": ["/run/openvswitch/ovs-vswitchd.pid", "/var/run/openvswitch/ovs-vswitchd.pid"]},
            "service": {"type": "str", "default": "ovs-vswitchd"},
            "core_dirs": {"type": "list", "elements": "path", "default": ["/var/lib/systemd/coredump", "/var/crash", "/var/lib/apport/coredump"]},
            "offloaded_flows": {"type": "bool", "default": True},
            "all_flows": {"type": "bool"},
            "pmd_stats_command": {"type": "str", "default": "dpif-netdev/pmd-stats-show"},
            "system": {"type": "bool", "default": False},
            "interfaces": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    params = module.params
    errors = [pmd_stats_command_error(params["pmd_stats_command"])] + validate.name_list("interfaces", params["interfaces"], validate.interface_name)
    if any(errors):
        module.fail_json(msg="; ".join(error for error in errors if error))
    runner = HostRunner(module)
    result = {"changed": False, "warnings": []}
    result["pid"], result["start_time"] = read_pid(params["pidfiles"])
    result["restarts"] = None
    systemctl = module.get_bin_path("systemctl")
    if systemctl and os.path.isdir("/run/systemd/system") and params["service"]:
        rc, out, _err = runner.read([systemctl, "show", "-p", "NRestarts", "--value", params["service"]], check_rc=False)
        if rc == 0 and out.strip().isdigit():
            result["restarts"] = int(out.strip())
    result["core_dumps"] = core_dumps(params["core_dirs"])
    result["system"] = system_info(runner, params["interfaces"]) if params["system"] else None
    appctl = module.get_bin_path("ovs-appctl")
    result["offloaded_flows"] = result["offloaded_flows_with_packets"] = result["flow_counters"] = None
    result["all_flows"] = bool(params["all_flows"])
    result["pmd"] = {}
    if appctl and result["pid"] is not None:
        if params["offloaded_flows"]:
            result["all_flows"] = every_flow_wanted(runner, params["all_flows"])
            read_flows(runner, appctl, result["all_flows"], result)
        if params["pmd_stats_command"]:
            rc, out, err = runner.read([appctl, params["pmd_stats_command"]], check_rc=False)
            if rc == 0:
                result["pmd"] = parse_pmd_stats_show(out)
            else:
                result["warnings"].append("ovs-appctl %s failed: %s" % (params["pmd_stats_command"], err.strip()))
    result["cpu"] = read_cpu(result["pid"])
    if result["system"] is not None:
        result["system"]["pmd_cpus"] = bench_host.pmd_cores(result["pmd"], result["cpu"]["pmd_threads"])
    if not result["warnings"]:
        del result["warnings"]
    module.exit_json(**result)


if __name__ == "__main__":
    main()
