# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Evidence of where the packets of a trial ran: parsers and the arithmetic of two readings.

* ``tc -s filter show dev DEV ingress``: which filters are in hardware
  (``in_hw``, ``in_hw_count N``) or not (``not_in_hw``), their ``skip_sw`` /
  ``skip_hw`` flags and packet counters (``Sent N bytes M pkt``, and
  ``Sent hardware`` / ``Sent software`` where the kernel splits them);
* ``conntrack -L`` (or ``/proc/net/nf_conntrack``): entries flagged
  ``[OFFLOAD]`` (in a flowtable) and ``[HW_OFFLOAD]`` (in the NIC);
* ``ovs-appctl dpctl/dump-flows -m``: flows and packets by datapath layer
  (``dp:tc``, ``dp:doca``, ``dp:ovs``...), via ``ovs_dpctl.parse_dump_flows``;
  ``offloaded:yes`` marks a flow in hardware: a TC flow the kernel reports
  ``not_in_hw`` (``tc-policy=skip_hw``, a device without TC offload) prints
  ``dp:tc`` alone, and ``type=offloaded`` leaves it out (Open vSwitch's
  lib/netdev-offload-tc.c and lib/dpctl.c);
* ``ethtool -S DEV``: the packets of each receive queue, across drivers, and
  how evenly a trial's packets spread over them.

Pure functions: the ``offload_facts`` and ``dut_health`` modules run the
commands, the bench (``plugin_utils/bench/run.py``) turns the readings before
and after a trial into the trial's ``offload`` and ``rx_queues`` records.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines

_TC_FILTER_RE = re.compile(r"^filter\s.*?(?:\bhandle\s+(?P<handle>\S+)|\bfh\s+(?P<fh>\S+))")
_TC_HEAD_RE = re.compile(r"^filter\s+(?:parent\s+\S+\s+|block\s+\S+\s+)?protocol\s+(?P<protocol>\S+)\s+pref\s+(?P<pref>\d+)\s+(?P<kind>\S+)"
                         r"(?:\s+chain\s+(?P<chain>\d+))?")
_TC_SENT_RE = re.compile(r"^Sent\s+(?:(?P<where>hardware|software)\s+)?(?P<bytes>\d+)\s+bytes\s+(?P<packets>\d+)\s+pkt")
_TC_HW_COUNT_RE = re.compile(r"\bin_hw_count\s+(?P<count>\d+)")

# ethtool -S names of the packets received on queue N, per driver family, in the order they are tried: the first
# family the output has is the one read (a driver prints one; veth's is last, it counts only packets that went
# through its NAPI poll, that is with XDP or GRO on the peer).
QUEUE_COUNTERS = (
    ("rx_queue_N_packets", re.compile(r"^rx_queue_(?P<queue>\d+)_packets$")),     # virtio_net, ice, ixgbe, ena
    ("rx-N.packets", re.compile(r"^rx-(?P<queue>\d+)\.packets$")),                 # i40e, iavf (since 4.x)
    ("rx-N.rx_packets", re.compile(r"^rx-(?P<queue>\d+)\.rx_packets$")),           # i40e (older), sfc
    ("rxN_packets", re.compile(r"^rx(?P<queue>\d+)_packets$")),                    # mlx5_core, mlx4_en, virtio_net (6.10+)
    ("rx_queue_N_xdp_packets", re.compile(r"^rx_queue_(?P<queue>\d+)_xdp_packets$")),  # veth
)
VETH_NOTE = ("veth counts packets per queue only when they go through its NAPI poll (XDP or GRO on the device): "
             "with neither, its queues count nothing, however much traffic it carried")


def _filter_key(head, handle):
    return "%s/%s/%s/%s/%s" % (head.group("kind"), head.group("protocol"), head.group("pref"), head.group("chain") or "0", handle)


def parse_tc_filters(text):
    """Parse ``tc -s filter show dev DEV ingress`` (or ``egress``).

    Returns ``{key: filter}``, one per filter (a line ``filter ... handle H``,
    or ``fh H`` for u32; chain and hash-table header lines are none), ``key``
    ``kind/protocol/pref/chain/handle``. Each filter: ``in_hw`` (True for
    ``in_hw``, False for ``not_in_hw``, None when neither is printed, as old
    kernels do), ``in_hw_count``, ``skip_sw``, ``skip_hw``, and from the first
    action's statistics ``packets`` and ``bytes`` (None without ``-s``),
    ``hw_packets`` and ``sw_packets`` (``Sent hardware`` / ``Sent software``,
    None when the kernel does not split them).
    """
    filters = {}
    current = None
    for raw in lines(text):
        line = raw.strip()
        found = _TC_FILTER_RE.match(line)
        head = _TC_HEAD_RE.match(line)
        if found and head and "ht divisor" not in line:
            current = {"in_hw": None, "in_hw_count": None, "skip_sw": False, "skip_hw": False,
                       "packets": None, "bytes": None, "hw_packets": None, "sw_packets": None}
            filters[_filter_key(head, found.group("handle") or found.group("fh"))] = current
        elif head:
            current = None
        if current is None:
            continue
        words = line.split()
        current["skip_sw"] = current["skip_sw"] or "skip_sw" in words
        current["skip_hw"] = current["skip_hw"] or "skip_hw" in words
        if "not_in_hw" in words:
            current["in_hw"] = False
        elif "in_hw" in words:
            current["in_hw"] = True
        count = _TC_HW_COUNT_RE.search(line)
        if count:
            current["in_hw_count"] = int(count.group("count"))
        _tc_stats(current, _TC_SENT_RE.match(line))
    return filters


def _tc_stats(current, sent):
    """The first action's counters of a filter (every action of a filter counts the same packets)."""
    if not sent:
        return
    name = {"hardware": "hw_packets", "software": "sw_packets"}.get(sent.group("where"), "packets")
    if current[name] is None:
        current[name] = int(sent.group("packets"))
        if name == "packets":
            current["bytes"] = int(sent.group("bytes"))


def tc_summary(filters):
    """Counts of ``parse_tc_filters``: ``filters``, ``in_hw``, ``not_in_hw``, ``skip_sw``, ``skip_hw``, and packets
    ``in_hw_packets`` (of filters in hardware: their ``Sent hardware`` count, else all their packets) and
    ``not_in_hw_packets`` (of filters not in hardware, plus the ``Sent software`` count of those that are)."""
    if filters is None:
        return None
    values = list(filters.values())
    hw, sw = tc_packets(filters)
    return {"filters": len(values), "in_hw": sum(1 for item in values if item["in_hw"]),
            "not_in_hw": sum(1 for item in values if item["in_hw"] is False),
            "skip_sw": sum(1 for item in values if item["skip_sw"]), "skip_hw": sum(1 for item in values if item["skip_hw"]),
            "in_hw_packets": sum(hw.values()), "not_in_hw_packets": sum(sw.values())}


def tc_packets(filters):
    """``({key: packets in hardware}, {key: packets in software})`` of ``parse_tc_filters``, as ``tc_summary`` counts them."""
    hw, sw = {}, {}
    for key, item in (filters or {}).items():
        if item["in_hw"]:
            hw[key] = item["hw_packets"] if item["hw_packets"] is not None else (item["packets"] or 0)
            if item["sw_packets"]:
                sw[key] = item["sw_packets"]
        elif item["in_hw"] is False:
            sw[key] = item["packets"] or 0
    return hw, sw


def parse_conntrack(text):
    """Count the entries of ``conntrack -L`` or ``/proc/net/nf_conntrack``.

    Returns ``{"entries", "offload", "hw_offload"}``: entries (lines with a
    ``src=``), those flagged ``[OFFLOAD]`` (in a netfilter flowtable, software
    fast path) and ``[HW_OFFLOAD]`` (offloaded to the NIC). The
    ``conntrack v1.4.6 (conntrack-tools): N flow entries have been shown.``
    line and blank lines are not entries.
    """
    counts = {"entries": 0, "offload": 0, "hw_offload": 0}
    for line in lines(text):
        if "src=" not in line:
            continue
        counts["entries"] += 1
        if "[HW_OFFLOAD]" in line:
            counts["hw_offload"] += 1
        elif "[OFFLOAD]" in line:
            counts["offload"] += 1
    return counts


def flow_counters(flows):
    """``{key: {"dp", "offloaded", "packets"}}`` of ``parse_dump_flows``: key the ufid (``-m``), else the match.

    A key printed twice (the same megaflow on two PMD threads) sums its packets. None stays None (not read).
    """
    if flows is None:
        return None
    counters = {}
    for flow in flows:
        key = flow.get("ufid") or flow.get("match")
        entry = counters.setdefault(key, {"dp": flow.get("dp"), "offloaded": flow.get("offloaded"), "packets": 0})
        entry["packets"] += flow.get("packets", 0)
    return counters


def _counter_delta(old, new):
    """Increase of a counter; one that went back (a flow deleted and added again) counts from zero."""
    old = old or 0
    return new - old if new >= old else new


def flows_by_dp(before, after):
    """Per datapath layer (``dp:`` of ``-m``; ``unknown`` without ``-m``) of two ``flow_counters`` readings:
    ``flows`` (in the second), ``flows_with_packets`` (that carried packets between them), ``packets`` (between them)
    and ``offloaded`` (flows marked ``offloaded:yes``). A flow of the second reading only counts all its packets;
    one that went away in between is lost (its packets are not counted). None when either reading is None."""
    if before is None or after is None:
        return None
    layers = {}
    for key, flow in after.items():
        delta = _counter_delta((before.get(key) or {}).get("packets"), flow["packets"])
        layer = layers.setdefault(flow["dp"] or "unknown", {"flows": 0, "flows_with_packets": 0, "packets": 0, "offloaded": 0})
        layer["flows"] += 1
        layer["flows_with_packets"] += 1 if delta > 0 else 0
        layer["packets"] += delta
        layer["offloaded"] += 1 if flow["offloaded"] == "yes" else 0
    return layers


def _offloaded(flow):
    """A flow in hardware: ``offloaded:yes`` (``dpctl.c`` prints it when ``attrs.offloaded`` is set on a layer other than ``ovs``;
    ``netdev-offload-tc.c`` sets it for a TC flower the kernel reports ``in_hw``, or neither ``in_hw`` nor ``not_in_hw``)."""
    return flow["offloaded"] == "yes"


def _not_offloaded(flow):
    return flow["offloaded"] != "yes"


def _in_tc(flow):
    """A flow of the TC layer (``dp:tc``), in hardware or not: a ``not_in_hw`` one (``tc-policy=skip_hw``, or a device
    without TC offload) prints ``dp:tc`` and no ``offloaded:``."""
    return flow["dp"] == "tc"


def _flow_packets(before, after, keep):
    """Packets between two ``flow_counters`` readings of the flows of the second for which ``keep(flow)`` is true."""
    total = 0
    for key, flow in after.items():
        if keep(flow):
            total += _counter_delta((before.get(key) or {}).get("packets"), flow["packets"])
    return total


def _every_flow(before, after):
    """Both readings dumped every datapath flow (``all_flows``), not only the offloaded ones."""
    return bool(before.get("all_flows") and after.get("all_flows")) and before.get("flows") is not None and after.get("flows") is not None


def parse_queue_counters(text):
    """The packets of each receive queue in ``ethtool -S DEV``.

    Returns ``{"counter": name, "packets": {queue: packets}}`` with ``name``
    one of ``QUEUE_COUNTERS`` (the first family the output has; ``rx_packets``,
    ``rx_packets_phy`` and other port totals are none), or None when the
    driver prints no per-queue receive counter.
    """
    stats = {}
    for line in lines(text):
        key, sep, value = line.strip().partition(":")
        if sep and value.strip().isdigit():
            stats[key.strip()] = int(value.strip())
    for name, pattern in QUEUE_COUNTERS:
        queues = {}
        for key, value in stats.items():
            match = pattern.match(key)
            if match:
                queues[int(match.group("queue"))] = value
        if queues:
            return {"counter": name, "packets": dict((str(queue), queues[queue]) for queue in sorted(queues))}
    return None


def queue_spread(before, after):
    """How evenly a trial's packets spread over a device's receive queues, from two ``parse_queue_counters`` readings.

    Returns ``{"counter", "queues" ({queue: packets in between}), "queue_count", "queues_with_traffic", "packets",
    "max_over_mean", "note"}``: ``max_over_mean`` is the busiest queue's packets over the mean of all queues'
    (1.0: even; the number of queues: all on one), None when no queue counted a packet. None without both readings.
    """
    if not before or not after:
        return None
    queues = dict((queue, _counter_delta(before["packets"].get(queue), packets)) for queue, packets in after["packets"].items())
    total = sum(queues.values())
    record = {"counter": after["counter"], "queues": queues, "queue_count": len(queues),
              "queues_with_traffic": sum(1 for packets in queues.values() if packets > 0), "packets": total,
              "max_over_mean": round(max(queues.values()) * len(queues) / float(total), 3) if total else None, "note": None}
    if not total:
        record["note"] = VETH_NOTE if after["counter"] == "rx_queue_N_xdp_packets" else "no receive queue counted a packet during the trial"
    return record


def _pmd_received(before, after):
    """Packets the PMD threads (and the main thread) received between two ``parse_pmd_stats_show`` readings; None without both."""
    if not before or not after:
        return None
    return sum(_counter_delta((before.get(name) or {}).get("packets_received"), stats.get("packets_received", 0))
               for name, stats in after.items())


def _offloaded_packets(before, after, notes):
    """(packets offloaded, source) of a trial: the flows marked ``offloaded:yes``, else the tc filters in hardware."""
    flows_old, flows_new = before.get("flows"), after.get("flows")
    if flows_old is not None and flows_new is not None:
        return _flow_packets(flows_old, flows_new, _offloaded), "dump_flows"
    packets = _tc_sum(before, after, lambda hw, sw: hw)
    if packets is not None:
        return packets, "tc"
    notes.append("offloaded packets not known: neither the offloaded datapath flows nor tc filters were read")
    return None, None


def _tc_delta(old, new):
    """(hardware, software) packets between two ``parse_tc_filters`` readings of one device."""
    old_hw, old_sw = tc_packets(old)
    new_hw, new_sw = tc_packets(new)
    return (sum(_counter_delta(old_hw.get(key), value) for key, value in new_hw.items()),
            sum(_counter_delta(old_sw.get(key), value) for key, value in new_sw.items()))


def _tc_sum(before, after, pick):
    """Sum over the devices whose tc filters both readings hold of ``pick(hardware, software)`` (``_tc_delta``); None
    without such a device."""
    old, new = before.get("tc") or {}, after.get("tc") or {}
    devices = [dev for dev in new if new[dev] is not None and old.get(dev) is not None]
    if not devices:
        return None
    return sum(pick(*_tc_delta(old[dev], new[dev])) for dev in devices)


def _software_packets(before, after, notes):
    """(packets in software, source) of a trial: the PMD threads' received packets, else the flows not offloaded
    (when every flow was dumped), else the tc filters not in hardware."""
    received = _pmd_received(before.get("pmd"), after.get("pmd"))
    if received is not None:
        return received, "pmd_stats"
    if _every_flow(before, after):
        return _flow_packets(before["flows"], after["flows"], _not_offloaded), "dump_flows"
    packets = _tc_sum(before, after, lambda hw, sw: sw)
    if packets is not None:
        return packets, "tc"
    notes.append("packets in software not known: no PMD statistics (kernel datapath?), not every datapath flow dumped "
                 "(all_flows) and no tc filter read")
    return None, None


def _tc_packets(before, after, notes):
    """(packets carried by TC flows, source) of a trial: the flows whose ``dp`` is ``tc`` when both readings dumped every
    flow (``dump_flows``), else every tc filter's packets, ``in_hw`` and ``not_in_hw`` alike (``tc``), else (None, None),
    with a note when the offloaded flows read show that TC carries flows."""
    if _every_flow(before, after):
        return _flow_packets(before["flows"], after["flows"], _in_tc), "dump_flows"
    packets = _tc_sum(before, after, lambda hw, sw: hw + sw)
    if packets is not None:
        return packets, "tc"
    if any(_in_tc(flow) for flow in (after.get("flows") or {}).values()):
        notes.append("packets in TC not known: only the offloaded datapath flows were dumped (a TC flow not in hardware, "
                     "tc-policy skip_hw, is not one of them) and no tc filter was read; dump every flow (all_flows)")
    return None, None


def _shares(record, notes):
    """``offloaded_share``, ``software_share`` and ``tc_share`` of a record, each over offloaded + software packets."""
    offloaded, software, tc = record["offloaded_packets"], record["software_packets"], record["tc_packets"]
    if offloaded is None or software is None:
        return
    total = offloaded + software
    if not total:
        notes.append("no packet was counted during the trial, offloaded or in software")
        return
    record["offloaded_share"] = round(offloaded / float(total), 4)
    record["software_share"] = round(1.0 - record["offloaded_share"], 4)
    if tc is None:
        return
    if tc > total:
        notes.append("TC counted %d packets, more than the %d offloaded and in software (read at another moment): "
                     "tc_share capped at 1.0" % (tc, total))
    record["tc_share"] = round(min(tc, total) / float(total), 4)
    if record["sources"]["tc"] == "tc" and record["sources"]["software"] == "tc":
        notes.append("tc_share is over the packets TC and the offloaded flows counted: the kernel datapath's own flows "
                     "(dp:ovs) were not read; dump every flow (all_flows) for their share")


def offload_use(before, after):
    """Where a trial's packets ran, from two evidence readings (``evidence`` of the ``dut_health`` result, merged with
    ``offload_facts``): ``{"offloaded_packets", "software_packets", "tc_packets", "offloaded_share", "software_share",
    "tc_share", "sources", "flows_by_dp", "tc", "conntrack", "notes"}``.

    ``offloaded_share`` is offloaded / (offloaded + software) packets: offloaded from the flows marked
    ``offloaded:yes`` (``dpctl/dump-flows``), else from tc filters ``in_hw``; software from the packets the PMD
    threads received (``pmd-stats-show``; a packet the NIC handled never reaches them), else from the flows not
    offloaded, else from tc filters ``not_in_hw``. A userspace datapath with no offloaded flow has offloaded 0, so
    its software share is 1.0.

    ``tc_share`` is tc / (offloaded + software) packets, over the same total as ``offloaded_share`` so that the two
    compare: ``tc_packets`` are those of the datapath flows whose ``dp`` is ``tc``, in hardware or not (a flower rule
    the kernel reports ``not_in_hw``, as with ``tc-policy=skip_hw``, prints ``dp:tc`` without ``offloaded:``: it counts
    here and in software, not as offloaded), from ``dpctl/dump-flows -m`` when both readings dumped every flow
    (``all_flows``), else from every tc filter of the devices read, ``in_hw`` and ``not_in_hw`` (``in_hw_packets`` +
    ``not_in_hw_packets`` of ``tc_summary``; a filter printing neither, on an old kernel, is not counted), else None.
    What the total holds follows ``sources`` (which reading gave each count): with every flow dumped and no PMD
    statistics (the kernel datapath), the packets of every datapath flow, ``dp:tc`` and ``dp:ovs``; with PMD
    statistics, the offloaded flows' packets and those the PMD threads received; with software from the tc filters,
    only what TC and the offloaded flows counted (the ``dp:ovs`` flows unread: a note says so). A flow counts a packet
    once per flow it hits (after a recirculation, again) and not at all when it went up to ovs-vswitchd (the first
    of a new flow). A TC count above the total (read a moment apart) makes ``tc_share`` 1.0, with a note.
    None without both readings.
    """
    if before is None or after is None:
        return None
    notes = []
    offloaded, off_source = _offloaded_packets(before, after, notes)
    software, sw_source = _software_packets(before, after, notes)
    tc, tc_source = _tc_packets(before, after, notes)
    record = {"offloaded_packets": offloaded, "software_packets": software, "tc_packets": tc,
              "offloaded_share": None, "software_share": None, "tc_share": None,
              "sources": {"offloaded": off_source, "software": sw_source, "tc": tc_source},
              "flows_by_dp": flows_by_dp(before.get("flows"), after.get("flows")),
              "tc": _tc_record(before.get("tc") or {}, after.get("tc") or {}), "conntrack": _conntrack_record(before, after), "notes": notes}
    _shares(record, notes)
    return record


def _tc_record(old, new):
    """Per device: ``tc_summary`` of the second reading and the hardware / software packets in between."""
    record = {}
    for dev, filters in new.items():
        if filters is None:
            record[dev] = None
            continue
        summary = tc_summary(filters)
        summary["in_hw_packets"], summary["not_in_hw_packets"] = _tc_delta(old.get(dev) or {}, filters)
        record[dev] = summary
    return record


def _conntrack_record(before, after):
    """Conntrack entries after the trial (``parse_conntrack``), with the offloaded entries before it; None when not read."""
    if after.get("conntrack") is None:
        return None
    return dict(after["conntrack"], hw_offload_before=(before.get("conntrack") or {}).get("hw_offload"),
                offload_before=(before.get("conntrack") or {}).get("offload"))


def rx_queue_use(before, after):
    """``{device: queue_spread}`` of two readings' ``queues`` (``{device: parse_queue_counters}``); None when none was read."""
    old, new = (before or {}).get("queues") or {}, (after or {}).get("queues") or {}
    if not new:
        return None
    return dict((dev, queue_spread(old.get(dev), new[dev])) for dev in sorted(new))


def evidence_of(health):
    """The evidence reading of a ``dut_health`` result: its ``flow_counters``, ``all_flows`` and ``pmd``, and what the
    ``offload_facts`` module read with it (``offload_facts``: ``tc``, ``conntrack``, ``queues``). None without a reading."""
    if not health:
        return None
    facts = health.get("offload_facts") or {}
    return {"flows": health.get("flow_counters"), "all_flows": bool(health.get("all_flows")), "pmd": health.get("pmd"),
            "tc": facts.get("tc"), "conntrack": facts.get("conntrack"), "queues": facts.get("queues")}


def split_device(entry):
    """``(namespace, device)`` of ``DEV`` or ``NAMESPACE/DEV`` (a device name never holds a ``/``)."""
    namespace, sep, device = entry.rpartition("/")
    return (namespace or None) if sep else None, device
