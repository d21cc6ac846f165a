#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: offload_facts
short_description: Read the evidence of where a device under test's flows and packets ran
version_added: 0.1.0
description:
  - Reads what proves whether packets ran on the NIC or in software, each source only when asked and each one that
    cannot be read (the tool is missing, the device does not exist) null with a note in RV(notes), never a failure.
  - The datapath flows (C(ovs-appctl dpctl/dump-flows -m), only the offloaded ones or all) with their datapath layer
    (C(dp:tc), C(dp:doca), C(dp:ovs)...) and packets; the PMD statistics (C(pmd-stats-show)); the tc filters of
    O(tc_devices) (C(tc -s filter show dev DEV ingress)) in hardware or not; the conntrack entries offloaded
    (C(conntrack -L), else C(/proc/net/nf_conntrack)); the packets of each receive queue of O(queue_devices) (C(ethtool -S)).
  - Counters are read at one moment; two readings (before and after a trial) give where the trial's packets ran and how
    evenly they spread over the receive queues (C(offload_use) and C(rx_queue_use) of the collection's C(offload_facts)
    module utility). M(offload.testbed.trex_bench) runs it before and after every trial when C(dut_tc_devices),
    C(dut_queue_devices) or C(dut_conntrack) are set (docs/offload_evidence.md).
  - Changes nothing; it always reports C(changed=false) and runs in check mode too.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads only.
  diff_mode:
    description: Nothing changes, so there is nothing to show.
options:
  dump_flows:
    description:
      - Which datapath flows to read with C(ovs-appctl dpctl/dump-flows -m), C(offloaded) (C(type=offloaded)), C(all),
        or C(none).
      - C(all) gives the packets of the flows left in software on the kernel datapath too; it dumps every flow, which
        takes long with many flows.
      - C(offloaded) lists the flows in hardware only. On the kernel datapath with C(other_config:hw-offload=true), a flow
        in TC that the kernel reports C(not_in_hw) (C(tc-policy=skip_hw), or a port without hw-tc-offload) prints C(dp:tc)
        without C(offloaded:yes) and is not among them, so the packets carried by TC (C(tc_share) of C(offload_use)) need
        C(all), or the tc filters of O(tc_devices).
    type: str
    choices: [none, offloaded, all]
    default: offloaded
  pmd_stats_command:
    description:
      - C(ovs-appctl) command printing PMD statistics, C(dpif-netdev/pmd-stats-show) or C(dpif-doca/pmd-stats-show) (on
        OVS-DOCA); empty to skip. Any other command is refused before anything runs.
    type: str
    default: dpif-netdev/pmd-stats-show
  tc_devices:
    description: Devices whose ingress tc filters to read, C(DEV) or C(NAMESPACE/DEV) (read in that network namespace).
    type: list
    elements: str
    default: []
  queue_devices:
    description: Devices whose receive queue counters (C(ethtool -S)) to read, C(DEV) or C(NAMESPACE/DEV).
    type: list
    elements: str
    default: []
  conntrack:
    description: Count the connection tracking entries and those offloaded (C([OFFLOAD]), C([HW_OFFLOAD])).
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Read the offload evidence of a ConnectX-6 bench (TC offload on the kernel datapath)
  offload.testbed.offload_facts:
    dump_flows: all
    pmd_stats_command: ""
    tc_devices: [ens1f0np0, ens1f0npf0vf0]
    queue_devices: [ens1f0np0]
    conntrack: true
  register: evidence

- name: Show how many tc filters are in hardware
  ansible.builtin.debug:
    msg: "{{ evidence.tc_summary['ens1f0np0'].in_hw }} of {{ evidence.tc_summary['ens1f0np0'].filters }} filters in hardware"
"""

RETURN = r"""
flows:
  description: Per datapath flow (by ufid, else by its match) its C(dp), C(offloaded) (C(yes), C(partial) or null) and C(packets);
    null when O(dump_flows=none), C(ovs-appctl) is missing or the dump failed.
  returned: always
  type: dict
  sample: {"17c5fac7-b52f-4d48-ad30-f10a9fe6f028": {"dp": "tc", "offloaded": "yes", "packets": 153}}
all_flows:
  description: Whether RV(flows) holds every datapath flow (O(dump_flows=all)) or only the offloaded ones.
  returned: always
  type: bool
  sample: false
flows_by_dp:
  description: Per datapath layer the C(flows), C(flows_with_packets), C(packets) (since each flow was created) and C(offloaded) flows
    (marked C(offloaded:yes); a C(dp:tc) flow not in hardware counts in its layer, not as offloaded).
  returned: always
  type: dict
  sample: {"tc": {"flows": 2, "flows_with_packets": 1, "packets": 153, "offloaded": 2}, "ovs": {"flows": 1, "flows_with_packets": 1,
           "packets": 200, "offloaded": 0}}
pmd:
  description: PMD statistics per thread, as the C(pmd) of M(offload.testbed.dut_health); empty when not read.
  returned: always
  type: dict
  sample: {"main": {"packets_received": 3847}}
tc:
  description: Per device of O(tc_devices) its filters by C(kind/protocol/pref/chain/handle) (C(in_hw), C(in_hw_count), C(skip_sw),
    C(skip_hw), C(packets), C(bytes), C(hw_packets), C(sw_packets)); a device that could not be read is null.
  returned: always
  type: dict
  sample: {"ens1f0np0": {"flower/ip/1/0/0x1": {"in_hw": true, "in_hw_count": 1, "skip_sw": true, "skip_hw": false, "packets": 4173,
                                                "bytes": 408954, "hw_packets": 4173, "sw_packets": null}}}
tc_summary:
  description: Per device of O(tc_devices) the counts of its filters (C(filters), C(in_hw), C(not_in_hw), C(skip_sw), C(skip_hw)) and
    their C(in_hw_packets) and C(not_in_hw_packets); the two together are what TC carried (the C(tc_packets) of C(offload_use)
    when not every flow is dumped).
  returned: always
  type: dict
  sample: {"ens1f0np0": {"filters": 1, "in_hw": 1, "not_in_hw": 0, "skip_sw": 1, "skip_hw": 0, "in_hw_packets": 4173, "not_in_hw_packets": 0}}
conntrack:
  description: With O(conntrack), the C(entries), C(offload) (C([OFFLOAD]), flowtable) and C(hw_offload) (C([HW_OFFLOAD]), in the NIC)
    entries; null when not asked or not readable.
  returned: always
  type: dict
  sample: {"entries": 6, "offload": 5, "hw_offload": 0}
queues:
  description: Per device of O(queue_devices) the C(counter) read (C(rx_queue_N_packets), C(rx-N.packets), C(rxN_packets)...) and the
    C(packets) of each receive queue; null when it could not be read or prints no per-queue counter.
  returned: always
  type: dict
  sample: {"ens1f0np0": {"counter": "rxN_packets", "packets": {"0": 221870072, "1": 149337}}}
notes:
  description: What could not be read, and why.
  returned: always
  type: list
  elements: str
  sample: ["conntrack: neither the conntrack tool nor /proc/net/nf_conntrack is there"]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, failure
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.bench.health import parse_pmd_stats_show, pmd_stats_command_error
from ansible_collections.offload.testbed.plugins.module_utils.bench.offload_facts import (
    flow_counters, flows_by_dp, parse_conntrack, parse_queue_counters, parse_tc_filters, split_device, tc_summary)
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows

ARGUMENT_SPEC = {
    "dump_flows": {"type": "str", "choices": ["none", "offloaded", "all"], "default": "offloaded"},
    "pmd_stats_command": {"type": "str", "default": "dpif-netdev/pmd-stats-show"},
    "tc_devices": {"type": "list", "elements": "str", "default": []},
    "queue_devices": {"type": "list", "elements": "str", "default": []},
    "conntrack": {"type": "bool", "default": False},
}
CONNTRACK_PROC = "/proc/net/nf_conntrack"


def run_tool(module, notes, what, argv, namespace=None):
    """stdout of a read-only tool (in ``namespace`` with ``ip netns exec``), None with a note when it is missing or fails."""
    tool = module.get_bin_path(argv[0])
    ip = module.get_bin_path("ip") if namespace else None
    if not tool or (namespace and not ip):
        notes.append("%s: %s is not installed" % (what, "ip" if tool else argv[0]))
        return None
    command = ([ip, "netns", "exec", namespace] if namespace else []) + [tool] + argv[1:]
    rc, out, err = HostRunner(module).read(command, check_rc=False)
    if rc != 0:
        notes.append("%s: %s" % (what, failure(command, rc, out, err)))
        return None
    return out


def read_flows(module, notes, which):
    if which == "none":
        return None
    argv = ["ovs-appctl", "dpctl/dump-flows", "-m"] + (["type=offloaded"] if which == "offloaded" else [])
    out = run_tool(module, notes, "ovs-appctl dump-flows", argv)
    return None if out is None else flow_counters(parse_dump_flows(out))


def read_conntrack(module, notes):
    """``conntrack -L``, else ``/proc/net/nf_conntrack`` (same flags); None with a note when neither can be read."""
    if module.get_bin_path("conntrack"):
        out = run_tool(module, notes, "conntrack -L", ["conntrack", "-L"])
        if out is not None:
            return parse_conntrack(out)
    try:
        with open(CONNTRACK_PROC) as handle:
            return parse_conntrack(handle.read())
    except (IOError, OSError):
        notes.append("conntrack: neither the conntrack tool nor %s is there" % CONNTRACK_PROC)
        return None


def read_devices(module, notes, entries, what, argv, parse):
    """``{entry: parse(output)}`` of a per-device tool; None for a device that could not be read."""
    found = {}
    for entry in entries:
        namespace, device = split_device(entry)
        out = run_tool(module, notes, "%s %s" % (what, entry), [arg.replace("DEV", device) for arg in argv], namespace)
        found[entry] = None if out is None else parse(out)
        if out is not None and found[entry] is None:
            notes.append("%s %s: the driver prints no per-queue receive counter" % (what, entry))
    return found


def device_errors(params):
    """The names of ``tc_devices`` and ``queue_devices`` (``DEV`` or ``NAMESPACE/DEV``), by the one rule for names."""
    errors = []
    for option in ("tc_devices", "queue_devices"):
        for index, entry in enumerate(params[option]):
            namespace, device = split_device(entry)
            where = "%s[%d]" % (option, index)
            errors.append(validate.interface_name(where, device))
            if namespace is not None:
                errors.append(validate.netns_name(where + " (its namespace)", namespace))
    return [error for error in errors if error]


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    errors = [pmd_stats_command_error(params["pmd_stats_command"])] + device_errors(params)
    if any(errors):
        module.fail_json(msg="; ".join(error for error in errors if error))
    notes = []
    flows = read_flows(module, notes, params["dump_flows"])
    pmd = {}
    if params["pmd_stats_command"]:
        out = run_tool(module, notes, "ovs-appctl pmd stats", ["ovs-appctl", params["pmd_stats_command"]])
        pmd = parse_pmd_stats_show(out) if out is not None else {}
    tc = read_devices(module, notes, params["tc_devices"], "tc", ["tc", "-s", "filter", "show", "dev", "DEV", "ingress"], parse_tc_filters)
    queues = read_devices(module, notes, params["queue_devices"], "ethtool -S", ["ethtool", "-S", "DEV"], parse_queue_counters)
    module.exit_json(changed=False, flows=flows, all_flows=params["dump_flows"] == "all", flows_by_dp=flows_by_dp({}, flows) or {},
                     pmd=pmd, tc=tc, tc_summary=dict((dev, tc_summary(filters)) for dev, filters in tc.items()),
                     conntrack=read_conntrack(module, notes) if params["conntrack"] else None, queues=queues, notes=notes)


if __name__ == "__main__":
    main()
