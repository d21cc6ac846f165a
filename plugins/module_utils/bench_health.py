# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""DUT health for the benchmark: parse what the DUT reports and decide whether a trial is valid.

Seed 000's DOCA datapath crashed on an assertion under exactly such tests, and
ovs-vswitchd came back under a new pid with nobody noticing: a trial during
which it restarted, or after which a new core dump appeared, measured a
restarting switch and is invalid.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_PMD_HEAD_RE = re.compile(r"^(?P<name>pmd thread numa_id (?P<numa>\d+) core_id (?P<core>\d+)|main thread):\s*$")
_PMD_VALUE_RE = re.compile(r"^\s+(?P<key>[^:]+):\s+(?P<value>-?[0-9]+(?:\.[0-9]+)?)")


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
