# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The conditions of the benchmark report: what the results files carry to reproduce a number.

One column per datapath label (``datapath`` of the results: a datapath or a
compare.yml variant), one line per condition; the values of the label's runs,
each value once (a condition the runs differ in shows every value, ``; ``
between them). Then one line per run: its id, profile and times.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.report.render import Code

NOT_RECORDED = "-"
NICS_NOT_RECORDED = "not recorded: set bench_dut_interfaces"
LINE_RATE_NOT_RECORDED = "not recorded: set bench_line_rate_gbps"


def _number(value):
    """``2``, ``0.5``: a number as short as it reads."""
    return "%g" % value


def _system(document):
    return (document.get("metadata") or {}).get("dut_system") or {}


def _profiles(document):
    return [search["profile"] for search in document.get("searches", []) if search.get("profile")]


def dut_host(document):
    """``lab-dut``; ``lab-dut (hostname vm)`` when the host calls itself otherwise."""
    metadata = document.get("metadata") or {}
    host = metadata.get("dut_host") or metadata.get("inventory_hostname")
    hostname = _system(document).get("hostname")
    if host and hostname and hostname != host:
        return "%s (hostname %s)" % (host, hostname)
    return host or hostname or NOT_RECORDED


def other_config(document):
    """``hw-offload=true, ...``: the Open_vSwitch other_config read when the run started, keys sorted."""
    config = _system(document).get("ovs_other_config")
    if not config:
        return NOT_RECORDED
    return Code(", ".join("%s=%s" % (key, config[key]) for key in sorted(config)))


def hw_tc_offload(document):
    """``ens1f0np0 on, ens1f0npf0vf0 off``: hw-tc-offload of each port of Open vSwitch's kernel datapath, which
    ``dut_health`` reads when hw-offload is on (without it the kernel keeps the flows in software); ``-`` otherwise."""
    ports = _system(document).get("hw_tc_offload")
    if not ports:
        return NOT_RECORDED
    return ", ".join("%s %s" % (port, {True: "on", False: "off"}.get(ports[port], "not listed")) for port in sorted(ports))


def nic_text(name, nic):
    """``ens3f0np0: mlx5_core 24.10, firmware 26.47.1026, PSID LNV0000000033, 0000:32:00.0`` (a part not known: ``-``)."""
    nic = nic or {}
    driver = " ".join(str(nic[key]) for key in ("driver", "version") if nic.get(key)) or NOT_RECORDED
    parts = [nic.get(key) or NOT_RECORDED for key in ("firmware_version", "psid", "bus_info")]
    return "%s: %s, firmware %s, PSID %s, %s" % tuple([name, driver] + parts)


def nics(document):
    """The DUT's NICs (``metadata.dut_system.nics``), or why they are not there."""
    found = _system(document).get("nics")
    if not found:
        return NICS_NOT_RECORDED
    return "; ".join(nic_text(name, found[name]) for name in sorted(found))


def generator(document):
    """``trex_stl_lib v2.89-softgen (STL), ports 0, 1``."""
    found = document.get("generator") or {}
    version = found.get("version")
    if isinstance(version, dict):
        version = " ".join(part for part in (version.get("version"), "(%s)" % version["mode"] if version.get("mode") else None) if part)
    ports = found.get("ports")
    parts = [" ".join(str(part) for part in (found.get("client"), version) if part) or NOT_RECORDED]
    if ports:
        parts.append("ports %s" % ", ".join(str(port) for port in ports))
    return ", ".join(parts)


def durations(search):
    """``initial 0.5 s, final 2 s`` (and the upper-bound and warm-up durations when set)."""
    parts = ["initial %s s" % _number(search["initial_duration"]) if search.get("initial_duration") is not None else None,
             "final %s s" % _number(search["final_duration"]) if search.get("final_duration") is not None else None,
             "upper bounds from %s s" % _number(search["upper_bound_duration"]) if search.get("upper_bound_duration") else None,
             "warm-up %s s at %s" % (_number(search["warmup_duration"]), units.pps_text(search.get("warmup_load")))
             if search.get("warmup_duration") else None]
    return ", ".join(part for part in parts if part) or NOT_RECORDED


def width(search):
    """``0.05 (5 % of the lower bound)``: the search stops when the bounds are that close."""
    if search.get("width") is None:
        return NOT_RECORDED
    return "%s (bounds within %s %%)" % (_number(search["width"]), _number(100.0 * search["width"]))


def line_rate(search):
    """``25 Gb/s per port`` from ``search.line_rate_gbps``, or how to record it."""
    value = search.get("line_rate_gbps")
    return "%s Gb/s per port" % _number(value) if value else LINE_RATE_NOT_RECORDED


def latency(search):
    """``at 10, 50, 90 % of the PDR, 1000 frames/s, 2 s each``; ``none`` without latency loads."""
    loads = search.get("latency_loads")
    if not loads:
        return "none"
    text = "at %s %% of the PDR" % ", ".join(_number(100.0 * load) for load in loads)
    if search.get("latency_pps"):
        text += ", %s frames/s" % _number(search["latency_pps"])
    if search.get("latency_duration"):
        text += ", %s s each" % _number(search["latency_duration"])
    return text


def profile_values(document, key, show=str):
    """The distinct values of a profile key over the document's searches, sorted, as text (``64, 1518``)."""
    values = sorted({profile.get(key) for profile in _profiles(document)}, key=lambda value: (value is None, str(type(value)), value))
    return ", ".join(NOT_RECORDED if value is None else show(value) for value in values) or NOT_RECORDED


def _search_of(function):
    return lambda document: function(document.get("search") or {})


def _system_key(key):
    return lambda document: _system(document).get(key) or NOT_RECORDED


def _profile_key(key, show=str):
    return lambda document: profile_values(document, key, show)


# (condition, its text of one results file): the lines of the conditions table, in order.
CONDITIONS = (
    ("DUT host", dut_host),
    ("kernel", _system_key("kernel")),
    ("kernel command line", lambda document: Code(_system(document)["cmdline"]) if _system(document).get("cmdline") else NOT_RECORDED),
    ("Open vSwitch", _system_key("ovs_version")),
    ("OVN", _system_key("ovn_version")),
    ("Open_vSwitch other_config", other_config),
    ("NIC: driver, firmware, PSID, bus", nics),
    ("hw-tc-offload of the kernel datapath's ports (with hw-offload)", hw_tc_offload),
    ("generator", generator),
    ("line rate", _search_of(line_rate)),
    ("trial durations", _search_of(durations)),
    ("width", _search_of(width)),
    ("max load", lambda document: units.pps_text((document.get("search") or {}).get("max_load"))),
    ("repeats per search", lambda document: str((document.get("search") or {}).get("repeat") or 1)),
    ("scenarios", _profile_key("scenario")),
    ("protocols", _profile_key("protocol")),
    ("frame sizes (with FCS)", _profile_key("frame_size", units.size_text)),
    ("flows", _profile_key("flows")),
    ("direction", _profile_key("direction")),
    ("VLAN", _profile_key("vlan")),
    ("latency trials", _search_of(latency)),
    ("compare.yml variant", lambda document: Code(_variant(document)) if _variant(document) else NOT_RECORDED),
    ("runs", lambda document: document.get("run_id") or NOT_RECORDED),
    ("lab (bench_metadata.lab)", lambda document: (document.get("metadata") or {}).get("lab") or NOT_RECORDED),
)


def _variant(document):
    variant = (document.get("metadata") or {}).get("compare_variant")
    if not variant:
        return ""
    if isinstance(variant, dict):
        return ", ".join("%s=%s" % (key, json.dumps(variant[key], sort_keys=True) if isinstance(variant[key], (dict, list)) else variant[key])
                         for key in sorted(variant))
    return str(variant)


def _joined(values):
    """Each value once, in order, ``; `` between; a :class:`Code` when they all are."""
    distinct = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    text = "; ".join(distinct)
    return Code(text) if distinct and all(isinstance(value, Code) for value in distinct) else text


def measured(document):
    """``(first, last)``: when the run's first and last trial (latency trials included) ended, or ``(None, None)``.

    The trials' own times, not the document's ``created`` and ``updated``: a run resumed with nothing left to
    measure rewrites ``updated``, and the report of the same measurements must stay the same.
    """
    times = sorted(trial["time"] for search in document.get("searches", []) for trial in search.get("trials") or [] if trial.get("time"))
    times += [point["time"] for search in document.get("searches", []) for point in (search.get("latency") or {}).get("points") or []
              if point.get("time")]
    times.sort()
    return (times[0], times[-1]) if times else (None, None)


def _times(documents):
    spans = [measured(document) for document in documents]
    first = sorted(span[0] for span in spans if span[0])
    last = sorted(span[1] for span in spans if span[1])
    return "%s to %s" % (first[0] if first else NOT_RECORDED, last[-1] if last else NOT_RECORDED)


def by_label(documents):
    """``[(label, [documents in run id order])]``, labels sorted."""
    labels = {}
    for document in sorted(documents, key=lambda document: document.get("run_id", "")):
        labels.setdefault(document.get("datapath") or NOT_RECORDED, []).append(document)
    return sorted(labels.items())


def conditions_table(documents):
    """Header and lines: one column per datapath label, one line per condition, then the runs' start and end."""
    groups = by_label(documents)
    header = ["condition"] + [label for label, _documents in groups]
    lines = [[name] + [_joined([function(document) for document in group]) for _label, group in groups] for name, function in CONDITIONS]
    lines.append(["measured (first to last trial)"] + [_times(group) for _label, group in groups])
    return header, lines


def conditions_notes(documents):
    """Paragraphs under the conditions table: where the values come from, and how to record the missing ones."""
    notes = ["Read from the results files of the runs this report shows (the latest per datapath label, scenario, protocol and frame size): "
             "metadata.dut_system is what dut_health read on the DUT when the run started; a condition the runs of one label differ "
             "in shows each value, separated by \"; \"."]
    searches = [document.get("search") or {} for document in documents]
    if any(not search.get("line_rate_gbps") for search in searches):
        notes.append("Line rate not recorded: the share of line rate shows \"-\". Set the bench variable bench_line_rate_gbps "
                     "(Gb/s of one DUT port, for example 25 for a ConnectX-6 Lx port) and the bench records it as search.line_rate_gbps.")
    if any(not _system(document).get("nics") for document in documents):
        notes.append("NIC not recorded: set bench_dut_interfaces (the DUT's interfaces, for example [ens3f0np0]) and dut_health reads "
                     "their driver, firmware and PSID with ethtool -i.")
    return notes


def runs_table(documents):
    """Header and lines: one line per run (run id, label, scenario, protocol, frame sizes, repeats, status, first and last trial)."""
    header = ["run id", "datapath", "scenario", "protocol", "frame sizes", "repeats", "status", "first trial", "last trial"]
    lines = []
    for label, group in by_label(documents):
        for document in group:
            lines.append([document.get("run_id") or NOT_RECORDED, label, profile_values(document, "scenario"), profile_values(document, "protocol"),
                          profile_values(document, "frame_size", units.size_text), str((document.get("search") or {}).get("repeat") or 1),
                          document.get("status") or NOT_RECORDED] + [time or NOT_RECORDED for time in measured(document)])
    return header, lines
