# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""DUT health for the benchmark: parse what the DUT reports and decide whether a trial is valid.

The DOCA datapath of the ConnectX-6 Lx reference bench
(docs/reference_benches.md) crashed on an assertion under exactly such tests,
and ovs-vswitchd came back under a new pid with nobody noticing: a trial
during which it restarted, or after which a new core dump appeared, measured
a restarting switch and is invalid.

A trial also measures the DUT's CPUs: in the virtual lab the generator and the
DUT share one 2-core machine, and a busy machine made a 2 s trial take 12.7 s
and moved the bounds by up to 55 %.  ``cpu_use`` turns two ``dut_health``
readings into what used the CPUs during the trial and whether the DUT was
starved (``starved``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_PMD_HEAD_RE = re.compile(r"^(?P<name>pmd thread numa_id (?P<numa>\d+) core_id (?P<core>\d+)|main thread):\s*$")
_PMD_VALUE_RE = re.compile(r"^\s+(?P<key>[^:]+):\s+(?P<value>-?[0-9]+(?:\.[0-9]+)?)")
_CPU_LINE_RE = re.compile(r"^(?P<name>cpu[0-9]*)\s+(?P<values>[0-9]+(?:\s+[0-9]+)*)\s*$")
_PMD_CORE_RE = re.compile(r"^pmd-c(?P<core>[0-9]+)/")

# The time counters of a /proc/stat cpu line, in its order (man 5 proc); guest and guest_nice, which follow, are
# already counted in user and nice.
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")

# A busy-polling PMD thread uses 100 % of its CPU unless it is preempted: below this fraction of one CPU during a
# trial, other tasks (or the hypervisor) took its CPU.  (OVS's pmd-sleep-max lets idle PMDs sleep: then an idle PMD
# is below it too.)
PMD_MIN_SHARE = 0.9
# Above this fraction of the machine's CPU time stolen by the hypervisor (steal), the DUT's CPUs ran something else.
MAX_STEAL = 0.05
# With no polling PMD thread (kernel datapath, OVS-DOCA without PMDs, netdev ports on the main thread), the datapath
# runs in whatever CPU time is left: above this busy fraction of the whole machine it competed with other tasks.
MAX_BUSY_WITHOUT_PMD = 0.95
# The ovs-appctl commands dut_health may run for the PMD statistics: they only read, and print what
# parse_pmd_stats_show reads. Any other command could change the switch (``exit`` stops ovs-vswitchd).
PMD_STATS_COMMANDS = ("dpif-netdev/pmd-stats-show", "dpif-doca/pmd-stats-show")


def pmd_stats_command_error(value, name="pmd_stats_command"):
    """``None`` when ``value`` is one of PMD_STATS_COMMANDS or empty (skip), else the message that says so."""
    if value in PMD_STATS_COMMANDS or value == "":
        return None
    return ("%s: %r is not a read-only ovs-appctl command printing PMD statistics; use %s (OVS-DOCA), "
            "or \"\" to skip" % (name, value, " or ".join(PMD_STATS_COMMANDS)))


def parse_pmd_stats_show(text):
    """Parse ``ovs-appctl dpif-netdev/pmd-stats-show``.

    Returns ``{thread: {key: number}}`` with threads named ``main`` or
    ``pmd<core>`` (``numa`` and ``core`` added for PMD threads) and keys as
    printed with spaces and dots turned into ``_`` (``packets_received``,
    ``megaflow_hits``, ``idle_cycles``...); values are ints, or floats when
    printed with a decimal point (the percentage after cycles is dropped).
    """
    threads = {}
    current = None
    for line in (text or "").splitlines():
        head = _PMD_HEAD_RE.match(line.strip())
        if head:
            if head.group("numa") is not None:
                name = "pmd%s" % head.group("core")
                current = threads.setdefault(name, {"numa": int(head.group("numa")), "core": int(head.group("core"))})
            else:
                current = threads.setdefault("main", {})
            continue
        value = _PMD_VALUE_RE.match(line)
        if value and current is not None:
            key = re.sub(r"[^a-z0-9]+", "_", value.group("key").strip().lower()).strip("_")
            number = value.group("value")
            current[key] = float(number) if "." in number else int(number)
    return threads


def offloaded_summary(flows):
    """``(flows, flows that carried packets)`` from ``parse_dump_flows`` of ``type=offloaded``."""
    if flows is None:
        return None, None
    return len(flows), sum(1 for flow in flows if flow.get("packets", 0) > 0)


def compare_health(before, after):
    """Reasons a trial is invalid, from DUT health read before and after it (empty list: valid).

    ``before``/``after`` are the ``dut_health`` module's results: ``pid``,
    ``start_time``, ``restarts`` and ``core_dumps`` (a list of paths).
    """
    reasons = []
    if not before or not after:
        return reasons
    if before.get("pid") is None:
        reasons.append("ovs-vswitchd was not running when the trial started")
    elif after.get("pid") is None:
        reasons.append("ovs-vswitchd is not running after the trial (it was pid %s before)" % before.get("pid"))
    elif before.get("pid") != after.get("pid") or before.get("start_time") != after.get("start_time"):
        reasons.append("ovs-vswitchd restarted during the trial (pid %s -> %s)" % (before.get("pid"), after.get("pid")))
    if (after.get("restarts") or 0) > (before.get("restarts") or 0):
        reasons.append("the service restart count rose from %s to %s" % (before.get("restarts"), after.get("restarts")))
    new_cores = sorted(set(after.get("core_dumps") or []) - set(before.get("core_dumps") or []))
    if new_cores:
        reasons.append("new core dump(s): %s" % ", ".join(new_cores))
    return reasons


def health_summary(health):
    """The part of a health reading stored with each trial."""
    if not health:
        return None
    keys = ("pid", "start_time", "restarts", "core_dumps", "offloaded_flows", "offloaded_flows_with_packets", "pmd")
    return {key: health.get(key) for key in keys if key in health}


def parse_proc_stat(text):
    """CPU time counters of ``/proc/stat`` (clock ticks since boot).

    Returns ``{line: {field: ticks}}`` for the aggregate ``cpu`` line and each
    ``cpuN`` line, fields ``CPU_FIELDS`` (0 when an old kernel prints fewer);
    the other lines (``intr``, ``ctxt``...) are skipped.
    """
    times = {}
    for line in (text or "").splitlines():
        match = _CPU_LINE_RE.match(line)
        if match:
            values = [int(value) for value in match.group("values").split()]
            values += [0] * (len(CPU_FIELDS) - len(values))
            times[match.group("name")] = dict(zip(CPU_FIELDS, values))
    return times


def parse_task_stat(text):
    """``(utime + stime, processor)`` of a ``/proc/<pid>/task/<tid>/stat`` line (fields 14, 15 and 39), None if it is none.

    The thread name (field 2) is in parentheses and may hold spaces and
    parentheses, so the fields are counted after the last ``)``.
    """
    try:
        fields = text[text.rindex(")") + 2:].split()
        return int(fields[11]) + int(fields[12]), int(fields[36])
    except (AttributeError, ValueError, IndexError):
        return None


def _ratio(part, whole, digits=4):
    return round(part / whole, digits) if whole else None


def _delta(before, after):
    """Increase of each ``CPU_FIELDS`` counter (a counter that went back, as iowait can, counts 0); None without both."""
    if not before or not after:
        return None
    return dict((key, max(0, after.get(key, 0) - before.get(key, 0))) for key in CPU_FIELDS)


def _busy_total(delta):
    """(busy ticks, all ticks) of a /proc/stat line's increase: busy is all but idle and iowait."""
    total = sum(delta.values())
    return total - delta["idle"] - delta["iowait"], total


def _per_cpu(old_times, new_times):
    """``[{"cpu": N, "busy": fraction, "steal": fraction}]`` for each CPU in both readings, by number."""
    rows = []
    for name in sorted((name for name in new_times if name[3:].isdigit()), key=lambda name: int(name[3:])):
        delta = _delta(old_times.get(name), new_times[name])
        if delta is None:
            continue
        busy, total = _busy_total(delta)
        rows.append({"cpu": int(name[3:]), "busy": _ratio(busy, total), "steal": _ratio(delta["steal"], total)})
    return rows


def _cycles(stats):
    return (stats or {}).get("idle_cycles", 0), (stats or {}).get("processing_cycles", (stats or {}).get("busy_cycles", 0))


def _pmd_stats(old_pmd, new_pmd):
    """Per PMD thread of ``pmd-stats-show``: its idle and processing cycles during the trial, whether it polled, the
    packets it received (``packets``) and its processing cycles per packet (``cycles_per_packet``, None without packets).

    OVS prints the cycles only once the PMD iterated (a PMD without receive
    queues sleeps and prints none); counters cleared during the trial count
    from the clearing.
    """
    rows = []
    for name in sorted(name for name in (new_pmd or {}) if name.startswith("pmd")):
        old_idle, old_busy = _cycles((old_pmd or {}).get(name))
        idle, busy = _cycles(new_pmd[name])
        old_packets, packets = ((old_pmd or {}).get(name) or {}).get("packets_received", 0), new_pmd[name].get("packets_received", 0)
        if old_idle <= idle and old_busy <= busy:
            idle, busy = idle - old_idle, busy - old_busy
            packets = max(0, packets - old_packets)
        rows.append({"thread": name, "numa": new_pmd[name].get("numa"), "core": new_pmd[name].get("core"),
                     "idle_cycles": idle, "processing_cycles": busy, "processing": _ratio(busy, idle + busy),
                     "polling": idle + busy > 0, "packets": packets, "cycles_per_packet": _ratio(busy, packets, 1)})
    return rows


def _pmd_threads(old_threads, new_threads, tick_budget, stats):
    """Per PMD thread in both readings (same tid and name): its ticks, the fraction of one CPU they are, its CPU."""
    polling = dict((row["core"], row["polling"]) for row in stats)
    before = dict((thread.get("tid"), thread) for thread in old_threads or [])
    rows = []
    for thread in new_threads or []:
        prior = before.get(thread.get("tid"))
        if not prior or prior.get("name") != thread.get("name"):
            continue
        core = _PMD_CORE_RE.match(thread["name"])
        core = int(core.group("core")) if core else None
        ticks = max(0, thread["ticks"] - prior["ticks"])
        rows.append({"tid": thread["tid"], "name": thread["name"], "cpu": thread.get("cpu"), "core": core, "ticks": ticks,
                     "share": _ratio(ticks, tick_budget), "polling": polling.get(core) if core is not None else None})
    return rows


def _wall(old, new, total_ticks, cpus):
    """Seconds between two readings: their monotonic clocks, else the machine's ticks over its CPUs."""
    if isinstance(old.get("monotonic"), (int, float)) and isinstance(new.get("monotonic"), (int, float)):
        if new["monotonic"] > old["monotonic"]:
            return new["monotonic"] - old["monotonic"]
    if cpus and new.get("clk_tck"):
        return total_ticks / (cpus * new["clk_tck"])
    return None


def cpu_use(before, after):
    """What used the DUT's CPUs during a trial, from the ``dut_health`` readings before and after it.

    Returns a JSON-serialisable record: ``wall_s``, ``clk_tck``, ``cpus``,
    the busy and steal fractions of the whole machine (``busy``, ``steal``)
    and per CPU (``per_cpu``), ``pmd_threads`` (each PMD thread's ticks and
    ``share`` of one CPU), ``pmd_stats`` (its cycles from pmd-stats-show),
    ``others`` (CPUs' worth used by everything but the PMD threads) and
    ``starved`` (``starved(record)``, empty when the DUT was not starved).
    Busy time is all but idle and iowait, so it holds steal (the CPU time the
    hypervisor gave to others), and so does ``others``.  Unknown values are
    null; a reading without CPU counters gives no reasons.
    """
    old, new = (before or {}).get("cpu") or {}, (after or {}).get("cpu") or {}
    old_times, new_times = old.get("times") or {}, new.get("times") or {}
    record = {"wall_s": None, "clk_tck": new.get("clk_tck"), "busy": None, "steal": None,
              "per_cpu": _per_cpu(old_times, new_times), "pmd_threads": [],
              "pmd_stats": _pmd_stats((before or {}).get("pmd"), (after or {}).get("pmd")), "others": None}
    record["cpus"] = len(record["per_cpu"])
    machine = _delta(old_times.get("cpu"), new_times.get("cpu"))
    if machine:
        busy, total = _busy_total(machine)
        record["busy"], record["steal"] = _ratio(busy, total), _ratio(machine["steal"], total)
        wall = _wall(old, new, total, record["cpus"])
        if wall and record["clk_tck"]:
            budget = wall * record["clk_tck"]
            record["wall_s"] = round(wall, 3)
            record["pmd_threads"] = _pmd_threads(old.get("pmd_threads"), new.get("pmd_threads"), budget, record["pmd_stats"])
            record["others"] = _ratio(max(0, busy - sum(row["ticks"] for row in record["pmd_threads"])), budget)
    record["starved"] = starved(record)
    return record


def starved(record, pmd_min_share=PMD_MIN_SHARE, max_steal=MAX_STEAL, max_busy=MAX_BUSY_WITHOUT_PMD):
    """Why the DUT was starved during a trial, from a ``cpu_use`` record (empty list: it was not).

    * a PMD thread that polls (or may: unknown) got less than
      ``pmd_min_share`` of one CPU;
    * the hypervisor stole more than ``max_steal`` of the machine's CPU time;
    * no PMD thread polls and the machine was busier than ``max_busy``.
    """
    reasons = []
    if not record:
        return reasons
    others = record.get("others")
    others = "; other tasks used %.2f CPUs" % others if others is not None else ""
    pollers = [thread for thread in record.get("pmd_threads") or [] if thread.get("polling") is not False]
    for thread in pollers:
        if thread.get("share") is not None and thread["share"] < pmd_min_share:
            reasons.append("%s got %.2f of CPU %s%s" % (thread["name"], thread["share"], thread.get("cpu"), others))
    if record.get("steal") is not None and record["steal"] > max_steal:
        reasons.append("the hypervisor stole %.1f %% of the CPU time (steal)" % (record["steal"] * 100))
    if not pollers and record.get("busy") is not None and record["busy"] > max_busy:
        used = " (%.2f CPUs in use)" % record["others"] if record.get("others") is not None else ""
        reasons.append("no PMD thread polls for the datapath and the machine's %s were %.1f %% busy%s: the datapath competed with other tasks"
                       % ("%d CPUs" % record["cpus"] if record.get("cpus") else "CPUs", record["busy"] * 100, used))
    return reasons


def hw_offload_on(other_config):
    """Whether ``other_config:hw-offload`` of the Open_vSwitch record (``other_config``; None when unread) is true."""
    return str((other_config or {}).get("hw-offload", "")).lower() == "true"


def is_kernel_datapath(datapath_type):
    """Whether a bridge's ``datapath_type`` is the kernel datapath (``system``, or unset), where hw-offload puts the
    datapath flows in TC: those not in hardware (``tc-policy=skip_hw``, a port without hw-tc-offload) print ``dp:tc``
    without ``offloaded:`` and are not in ``dpctl/dump-flows type=offloaded``."""
    return (datapath_type or "") in ("", "system")


def kernel_datapath_ports(model):
    """The network devices Open vSwitch has on its kernel datapath, sorted: the interfaces of type ``""`` (a system
    device: a PF, a representor; not internal, patch or tunnel ports) of the bridges whose ``datapath_type`` is
    ``system`` or unset. ``model`` is ``ovsdb.switch_model``. These are the ports hw-offload offloads to through TC."""
    names = set()
    for bridge in (model or {}).get("bridges", {}).values():
        if not is_kernel_datapath(bridge.get("datapath_type")):
            continue
        for port in bridge.get("ports") or ():
            for iface in (model["ports"].get(port) or {}).get("interfaces") or ():
                if (model["interfaces"].get(iface) or {}).get("type", "") == "":
                    names.add(iface)
    return sorted(names)


def hw_tc_offload_errors(system):
    """Why a benchmark of hw-offload on the kernel datapath would measure software: a port of that datapath whose
    ``hw-tc-offload`` is off (or that lists none), while ``other_config:hw-offload`` is true. ``system`` is ``dut_health``'s
    (``ovs_other_config``, ``hw_tc_offload``: port -> on, off or None); empty when hw-offload is off or nothing is off."""
    system = system or {}
    if not hw_offload_on(system.get("ovs_other_config")) or (system.get("ovs_other_config") or {}).get("tc-policy") == "skip_hw":
        # tc-policy=skip_hw asks for TC flower rules in software: hw-tc-offload does not matter.
        return []
    ports = system.get("hw_tc_offload") or {}
    errors = []
    for port in sorted(ports):
        if ports[port] is True:
            continue
        state = "off" if ports[port] is False else "not listed (ethtool -k %s printed no hw-tc-offload, or failed)" % port
        errors.append("%s: hw-tc-offload is %s while Open vSwitch has other_config:hw-offload=true on the kernel datapath, "
                      "so its flows on %s stay in software (tc shows them not_in_hw); the ovs role turns it on for ovs_uplink and "
                      "ovs_representors with ovs_hw_offload: true on ovs_datapath: system (run the datapath stage), "
                      "or run ethtool -K %s hw-tc-offload on" % (port, state, port, port))
    return errors
