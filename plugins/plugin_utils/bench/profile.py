# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Traffic profile of the ``trex_bench`` action: pure functions.

``args`` everywhere here are what ``spec.check`` returns (``spec.py`` holds the
action's argument spec and checks). ``build_frame`` builds the base frame as bytes (no scapy) and ``build_vm``
the field-engine program as plain data, which the action turns into TRex
client objects (``to_trex_stream``), so that the profile itself is unit-tested
without a generator.

TCP method: the frames are TCP segments with the ACK flag and, per flow, a
fixed sequence and acknowledgement number.  Both conntrack implementations an
OVS datapath uses accept such a segment as the first packet of a connection
("mid-stream pick-up": Linux ``nf_conntrack_tcp_loose=1``, the default, and
the OVS userspace conntrack, which only refuses SYN+ACK and invalid flag sets
as new connections) and mark it established; every later segment of the flow
repeats the same sequence numbers, which is inside the tracked window
(a retransmission), so the entries stay valid.  The warm-up trial before the
first measured trial creates the entries.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import ipaddress
import json

from ansible_collections.offload.testbed.extensions.softgen.fieldengine import FCS
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import encapsulation as encap_option, headers, trex_profile
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.spec import flow_counts, flow_list

L4_TYPE = {"udp": 11, "tcp": 13}
# The TRex flow-stats trailer at the end of a latency frame (magic, flow_seq,
# hw_id, seq, timestamp): a latency frame needs this much L4 payload.
LATENCY_TRAILER = 16


def destination(args):
    """First destination address of the forward stream."""
    if args["scenario"] == "nat":
        return args["nat_address"]
    if args["scenario"] == "lb":
        return args["lb_vip"]
    return args["dst_base"]


def build_frame(frame_size, protocol, src_ip, dst_ip, src_port, dst_port, vlan=None, encapsulation=None):
    """The base frame, without FCS (``frame_size - 4`` bytes), checksums filled in (``headers.frame``).

    MAC addresses are zero: the generator port writes its own source MAC and
    its resolved (or configured) destination MAC into every frame. In a tunnel
    (``encapsulation``), ``src_ip`` and ``dst_ip`` are the outer addresses and the
    encapsulation's ``inner_src_base`` and ``inner_dst_base`` the inner ones.
    """
    addresses = (src_ip, dst_ip)
    if headers.kind(encapsulation) in headers.TUNNELS:
        addresses += (encapsulation["inner_src_base"], encapsulation["inner_dst_base"])
    return headers.frame(frame_size, protocol, addresses, (src_port, dst_port), vlan, encapsulation)


def build_latency_frame(args, frame_size):
    """The frame of the latency stream: the first flow of the forward stream,
    grown where needed so that the TRex flow-stats trailer fits after the L4
    header (a 64-byte TCP frame has 6 bytes of payload); with a user's profile, its first stream's packet; None for a
    stateful search (its generator measures each connection's first byte instead, and refuses latency trials)."""
    if args.get("profile_streams"):
        return trex_profile.latency_frame(args)
    if args.get("stateful"):
        return None
    encap = args.get("encapsulation")
    end = headers.layout(args["protocol"], args["vlan"], encap)["end"]
    # IMIX's latency frames are of its smallest size
    size = max(units.IMIX_FRAMES[0][0] if frame_size == units.IMIX else frame_size, end + LATENCY_TRAILER + FCS)
    return build_frame(size, args["protocol"], args["src_base"], destination(args), args["src_port"], args["dst_port"], args["vlan"], encap)


def _address_vars(var_names, counts, addresses, l3_offset):
    """Flow variables (named ``var_names``) and writes of the source over ``counts[0]`` addresses and the destination over ``counts[1]``."""
    program = []
    for var_name, count, address, at in zip(var_names, counts, addresses, (12, 16)):
        if count > 1:
            first = int(ipaddress.IPv4Address(address))
            program.append({"type": "flow_var", "name": var_name, "min": first, "max": first + count - 1, "size": 4, "op": "inc"})
            program.append({"type": "write", "name": var_name, "offset": l3_offset + at})
    return program


def build_vm(protocol, flows, destinations, src_ip, dst_ip, vlan=None, encapsulation=None):
    """Field-engine program as data: source over ``flows`` addresses, destination over ``destinations``.

    Returns a list of instructions:
    ``{"type": "flow_var", "name", "min", "max", "size", "op": "inc"}``,
    ``{"type": "write", "name", "offset"}``,
    ``{"type": "fix_checksum_ipv4", "offset"}`` and
    ``{"type": "fix_checksum_hw", "l3_offset", "l4_offset", "l4_type"}``
    (numeric offsets: trex_stl_lib 0.3 cannot resolve named ones with current scapy).
    In a tunnel the inner addresses vary as the outer ones do (the outer ones not when the
    encapsulation's ``outer_flows`` is false: one tunnel), and VXLAN's and Geneve's outer
    UDP source port with them, from ``headers.ENTROPY_PORT``; the outer IPv4 checksum is
    fixed apart, the outer UDP checksum stays zero.
    """
    at = headers.layout(protocol, vlan, encapsulation)
    tunnelled = headers.kind(encapsulation) in headers.TUNNELS
    outer = [] if tunnelled and not encapsulation["outer_flows"] else _address_vars(("src", "dst"), (flows, destinations), (src_ip, dst_ip), at["l3"])
    program = list(outer)
    if tunnelled:
        program += _address_vars(("inner_src", "inner_dst"), (flows, destinations), (encapsulation["inner_src_base"], encapsulation["inner_dst_base"]),
                                 at["inner_l3"])
        if headers.kind(encapsulation) in headers.UDP_PORTS and flows > 1:
            last = headers.ENTROPY_PORT + min(flows, headers.ENTROPY_PORTS) - 1
            program.append({"type": "flow_var", "name": "entropy", "min": headers.ENTROPY_PORT, "max": last, "size": 2, "op": "inc"})
            program.append({"type": "write", "name": "entropy", "offset": at["l4"]})
        if outer:
            program.append({"type": "fix_checksum_ipv4", "offset": at["l3"]})
    if program:
        program.append({"type": "fix_checksum_hw", "l3_offset": at["inner_l3"], "l4_offset": at["inner_l4"], "l4_type": L4_TYPE[protocol]})
    return program


def _flows(args, flows):
    """The flow count of one search: ``flows`` when given, else the run's first (its only one when ``flows`` is an int)."""
    return flow_counts(args)[0] if flows is None else flows


def searches_of(args):
    """``(frame size, flow count)`` of every search group of the run, in run order: per frame size, every flow count."""
    return [(size, flows) for size in args["frame_sizes"] for flows in flow_counts(args)]


def _directions(args, flows):
    """The transmitting ports' streams before their frame sizes: the forward one, and the reverse one when bidir."""
    encap = args.get("encapsulation")
    forward = {"port": args["ports"][0], "src": args["src_base"], "dst": destination(args), "flows": _flows(args, flows),
               "destinations": 1 if args["scenario"] != "routing" else args["destinations"], "encapsulation": encap}
    if args["direction"] != "bidir":
        return [forward]
    return [forward, {"port": args["ports"][-1], "src": forward["dst"], "dst": forward["src"], "flows": forward["destinations"],
                      "destinations": forward["flows"], "encapsulation": encap_option.reverse(encap)}]


def build_streams(args, frame_size, flows=None):
    """Per transmitting port: ``{"port": int, "frame": bytes, "vm": [...], "share": float}``, for IMIX three a port.

    ``share`` is the part of the aggregate load that stream sends; ``flows`` the flow count of the search
    (default: the first of ``args["flows"]``, its only one when it is an int). IMIX (``units.IMIX``) sends
    TRex's three frame sizes per port, each with the port's flows, at 28:16:4 of the port's share. A user's
    profile (``trex_profile.attach``) gives its own streams.
    """
    if args.get("profile_streams"):
        return args["profile_streams"]
    if args.get("stateful"):
        # the connections are the ASTF profile's (stateful.build_profile)
        return []
    directions = _directions(args, flows)
    sizes = units.IMIX_FRAMES if frame_size == units.IMIX else ((frame_size, 1),)
    total = float(sum(weight for _size, weight in sizes))
    streams = []
    for item in directions:
        vm = build_vm(args["protocol"], item["flows"], item["destinations"], item["src"], item["dst"], args["vlan"], item["encapsulation"])
        for size, weight in sizes:
            streams.append({
                "port": item["port"],
                "frame": build_frame(size, args["protocol"], item["src"], item["dst"], args["src_port"], args["dst_port"], args["vlan"],
                                     item["encapsulation"]),
                "vm": vm,
                "share": weight / total / len(directions),
            })
    return streams


def profile(args, frame_size, flows=None):
    """What makes the traffic reproducible, as stored in the results file; ``flows`` the search's flow count (as in :func:`build_streams`)."""
    found = {
        "scenario": args["scenario"],
        "protocol": args["protocol"],
        "frame_size": frame_size,
        "flows": _flows(args, flows),
        "destinations": args["destinations"] if args["scenario"] == "routing" else 1,
        "src_base": args["src_base"],
        "dst": destination(args),
        "src_port": args["src_port"],
        "dst_port": args["dst_port"],
        "vlan": args["vlan"],
        "direction": args["direction"],
        "ports": list(args["ports"]),
        "rx_server": dict(args["rx_server"]) if args["rx_server"] else None,
        "tcp_method": "ACK segments with fixed sequence numbers per flow (conntrack mid-stream pick-up)" if args["protocol"] == "tcp" else None,
    }
    if args.get("encapsulation"):
        # Only when set: a run without a tunnel keeps its fingerprint.
        found["encapsulation"] = dict(args["encapsulation"])
    if args.get("profile_record"):
        found["trex_profile"] = dict(args["profile_record"])
    if args.get("stateful"):
        found["stateful"] = dict(args["stateful"])
    return found


# Settings that playbooks give as whole numbers (10 s, 300000 frames/s): before the
# argument spec made every one a float, they reached the fingerprint as ints.
_WHOLE_SETTINGS = ("final_duration", "initial_duration", "max_load", "latency_pps", "latency_duration", "upper_bound_duration")


def _whole(value):
    """``value`` as an int when it is a whole float: the fingerprint of a run started
    before the argument spec stays the same (json writes 10 and 10.0 differently)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def search_settings(args):
    """The search's parameters as stored in the results file (and in the fingerprint)."""
    from_args = ("width", "final_duration", "initial_duration", "max_load", "min_load", "warmup_duration", "warmup_load", "settle",
                 "latency_loads", "latency_pps")
    settings = {key: args[key] for key in from_args}
    settings["latency_duration"] = args["latency_duration"] if args["latency_duration"] is not None else args["final_duration"]
    settings["min_load"] = args["min_load"] if args["min_load"] is not None else args["max_load"] / 1000.0
    settings["warmup_load"] = args["warmup_load"] if args["warmup_load"] is not None else args["max_load"] / 10.0
    if args.get("upper_bound_duration") is not None:
        # Only when set: results of the default rule keep their fingerprint.
        settings["upper_bound_duration"] = args["upper_bound_duration"]
    if args.get("confirm_upper"):
        # Only when set: results of the RFC's rule keep their fingerprint.
        settings["confirm_upper"] = True
    if args.get("repeat", 1) != 1:
        # Another number of repetitions is another run; a single search keeps the fingerprint it had.
        settings["repeat"] = args["repeat"]
    if flow_list(args):
        # A list of flow counts: the run's searches per frame size; one count keeps the fingerprint it had.
        settings["flow_counts"] = flow_counts(args)
    for key in _WHOLE_SETTINGS:
        if key in settings:
            settings[key] = _whole(settings[key])
    return settings


def fingerprint(args):
    """Hash of everything that must not change between a run and its resumption (the generator too, when it is not
    TRex: a run begun with TRex is not resumed with testpmd; runs of TRex keep the hash they had)."""
    frozen = {"profiles": [profile(args, size, flows) for size, flows in searches_of(args)], "search": search_settings(args),
              "goals": args["goals"], "datapath": args["datapath"]}
    if args.get("generator", "trex") != "trex":
        frozen["generator"] = args["generator"]
    return hashlib.sha256(json.dumps(frozen, sort_keys=True).encode("utf-8")).hexdigest()[:16]
