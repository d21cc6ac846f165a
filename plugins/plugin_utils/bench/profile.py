# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arguments and traffic profile of the ``trex_bench`` action: pure functions.

``check_args`` validates and normalises the action's arguments and returns every
problem at once, each naming the argument and the fix, before any traffic.
``build_frame`` builds the base frame as bytes (no scapy) and ``build_vm``
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
import math
import re
import struct

SCENARIOS = ("routing", "nat", "lb")
PROTOCOLS = ("udp", "tcp")
DIRECTIONS = ("uni", "bidir")
CLIENTS = ("trex_stl_lib", "trex")
DEFAULT_FRAME_SIZES = (64, 78, 100)
MIN_FRAME, MAX_FRAME = 64, 9216
FCS = 4
ETH_LEN, VLAN_LEN, IP_LEN, UDP_LEN, TCP_LEN = 14, 4, 20, 8, 20
TCP_SEQ, TCP_ACK = 0x10000000, 0x20000000
L4_TYPE = {"udp": 11, "tcp": 13}
RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")

DEFAULTS = {
    "server": "127.0.0.1",
    "sync_port": 4501,
    "async_port": 4500,
    "client": "trex_stl_lib",
    "client_path": None,
    "ports": [0, 1],
    "port_l3": None,
    "rx_server": None,
    "scenario": "routing",
    "protocol": "udp",
    "frame_sizes": list(DEFAULT_FRAME_SIZES),
    "flows": 1000,
    "destinations": 1,
    "src_base": "16.0.0.1",
    "dst_base": "48.0.0.1",
    "nat_address": None,
    "lb_vip": None,
    "src_port": 1025,
    "dst_port": 5001,
    "vlan": None,
    "direction": "uni",
    "goals": None,
    "width": 0.005,
    "final_duration": 10.0,
    "initial_duration": 1.0,
    "upper_bound_duration": None,
    "max_load": None,
    "min_load": None,
    "warmup_duration": 2.0,
    "warmup_load": None,
    "settle": 0.5,
    "results_dir": None,
    "run_id": None,
    "datapath": "unknown",
    "metadata": {},
    "dut_health": True,
    "dut_interfaces": [],
    "max_trials": 200,
    "retries": 1,
    "latency_loads": [0.1, 0.5, 0.9],
    "latency_pps": 1000,
    "latency_duration": None,
    "latency_pg_id": 100,
}
# The TRex flow-stats trailer at the end of a latency frame (magic, flow_seq,
# hw_id, seq, timestamp): a latency frame needs this much L4 payload.
LATENCY_TRAILER = 16


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not (
        isinstance(value, float) and (math.isnan(value) or math.isinf(value)))


def _as_int(value):
    """Ints from playbooks may arrive as strings of digits."""
    if isinstance(value, str) and re.match(r"^-?[0-9]+$", value.strip()):
        return int(value)
    return value


def _as_number(value):
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def _ipv4(value):
    try:
        return ipaddress.IPv4Address(str(value))
    except (ipaddress.AddressValueError, ValueError):
        return None


def check_args(raw):
    """Validate the action's arguments.

    :returns: ``(args, errors)``: ``args`` with defaults filled in and types
        normalised; ``errors`` a list of messages, each naming the argument.
    """
    args = dict(DEFAULTS)
    errors = []
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        errors.append("unknown argument(s): %s; supported: %s" % (", ".join(unknown), ", ".join(sorted(DEFAULTS))))
    args.update({key: value for key, value in raw.items() if key in DEFAULTS and value is not None})

    def choice(name, choices):
        if args[name] not in choices:
            errors.append("%s: %r is not one of %s" % (name, args[name], ", ".join(choices)))

    choice("scenario", SCENARIOS)
    choice("protocol", PROTOCOLS)
    choice("direction", DIRECTIONS)
    choice("client", CLIENTS)
    if args["client"] == "trex" and not args["client_path"]:
        errors.append("client_path: client 'trex' needs the directory that holds the trex package "
                      "(trex-core's scripts/automation/trex_control_plane/interactive)")

    if not isinstance(args["server"], str) or not args["server"]:
        errors.append("server: give the generator's TRex server address (host name or IP)")
    for name in ("sync_port", "async_port"):
        args[name] = _as_int(args[name])
        if not _is_int(args[name]) or not 0 < args[name] < 65536:
            errors.append("%s: %r is not a TCP port number (1..65535)" % (name, args[name]))

    ports = args["ports"]
    if isinstance(ports, (list, tuple)):
        ports = [_as_int(port) for port in ports]
    rx_server = args["rx_server"]
    wanted = 1 if rx_server is not None else 2
    if not isinstance(ports, list) or len(ports) != wanted or not all(_is_int(port) and port >= 0 for port in ports) or len(set(ports)) != len(ports):
        if wanted == 2:
            errors.append("ports: %r must be two different generator port numbers [transmit, receive], e.g. [0, 1]" % (args["ports"],))
        else:
            errors.append("ports: %r must be the one transmitting port, e.g. [0], when rx_server receives" % (args["ports"],))
    else:
        args["ports"] = ports
    if rx_server is not None:
        if not isinstance(rx_server, dict) or not isinstance(rx_server.get("server"), str) or not rx_server.get("server"):
            errors.append("rx_server: %r needs server (address of the TRex server of the receiving ports) and ports" % (rx_server,))
        else:
            checked = {"server": rx_server["server"], "sync_port": _as_int(rx_server.get("sync_port", 4501)),
                       "async_port": _as_int(rx_server.get("async_port", 4500)), "ports": rx_server.get("ports")}
            for name in ("sync_port", "async_port"):
                if not _is_int(checked[name]) or not 0 < checked[name] < 65536:
                    errors.append("rx_server.%s: %r is not a TCP port number (1..65535)" % (name, checked[name]))
            rx_ports = checked["ports"]
            if isinstance(rx_ports, list):
                rx_ports = [_as_int(port) for port in rx_ports]
            if not isinstance(rx_ports, list) or not rx_ports or not all(_is_int(port) and port >= 0 for port in rx_ports):
                errors.append("rx_server.ports: %r must list the receiving port numbers of that server, e.g. [0, 1, 2]" % (checked["ports"],))
            checked["ports"] = rx_ports
            args["rx_server"] = checked
        if args["direction"] == "bidir":
            errors.append("direction: bidir needs both ports on one server; leave rx_server unset")

    if args["port_l3"] is not None:
        port_l3 = args["port_l3"]
        if not isinstance(port_l3, list) or len(port_l3) != wanted:
            errors.append("port_l3: give one {src, gateway} per generator port, in the order of ports")
        else:
            for index, entry in enumerate(port_l3):
                if not isinstance(entry, dict) or _ipv4(entry.get("src")) is None or _ipv4(entry.get("gateway")) is None:
                    errors.append("port_l3[%d]: %r needs IPv4 addresses src and gateway" % (index, entry))

    sizes = args["frame_sizes"]
    if _is_int(_as_int(sizes)):
        sizes = [sizes]
    if not isinstance(sizes, (list, tuple)) or not sizes:
        errors.append("frame_sizes: give a list of frame sizes in bytes, e.g. [64, 78, 100]")
    else:
        sizes = [_as_int(size) for size in sizes]
        bad = [size for size in sizes if not _is_int(size) or not MIN_FRAME <= size <= MAX_FRAME]
        if bad:
            errors.append("frame_sizes: %s outside %d..%d bytes (Ethernet frames with FCS)" % (
                ", ".join(repr(size) for size in bad), MIN_FRAME, MAX_FRAME))
        elif len(set(sizes)) != len(sizes):
            errors.append("frame_sizes: %r lists a size twice" % (sizes,))
        else:
            args["frame_sizes"] = sizes

    for name, top in (("flows", 1 << 24), ("destinations", 1 << 16)):
        args[name] = _as_int(args[name])
        if not _is_int(args[name]) or not 1 <= args[name] <= top:
            errors.append("%s: %r must be an integer in 1..%d" % (name, args[name], top))
    for name in ("src_port", "dst_port"):
        args[name] = _as_int(args[name])
        if not _is_int(args[name]) or not 0 < args[name] < 65536:
            errors.append("%s: %r is not a UDP/TCP port number (1..65535)" % (name, args[name]))
    for name in ("src_base", "dst_base"):
        if _ipv4(args[name]) is None:
            errors.append("%s: %r is not an IPv4 address" % (name, args[name]))
    if _ipv4(args["src_base"]) is not None and _is_int(args["flows"]):
        if int(_ipv4(args["src_base"])) + args["flows"] - 1 > 0xFFFFFFFF:
            errors.append("flows: %d sources from src_base %s run past 255.255.255.255" % (args["flows"], args["src_base"]))
    if args["scenario"] == "nat" and _ipv4(args["nat_address"]) is None:
        errors.append("nat_address: scenario nat needs the DUT's NAT address (IPv4) as destination, got %r" % (args["nat_address"],))
    if args["scenario"] == "lb" and _ipv4(args["lb_vip"]) is None:
        errors.append("lb_vip: scenario lb needs the load balancer's VIP (IPv4) as destination, got %r" % (args["lb_vip"],))
    if args["direction"] == "bidir" and args["scenario"] != "routing":
        errors.append("direction: bidir is supported for scenario routing only (the reverse of NAT and LB traffic is "
                      "the servers' replies); use direction uni for %s" % args["scenario"])

    if args["vlan"] is not None:
        args["vlan"] = _as_int(args["vlan"])
        if not _is_int(args["vlan"]) or not 1 <= args["vlan"] <= 4094:
            errors.append("vlan: %r is outside 1..4094 (leave it unset for untagged frames)" % (args["vlan"],))

    goals = args["goals"]
    if goals is not None:
        if not isinstance(goals, list) or not goals:
            errors.append("goals: give a list of {name, loss_ratio}")
        else:
            names = set()
            for index, goal in enumerate(goals):
                if not isinstance(goal, dict) or not isinstance(goal.get("name"), str) or not goal.get("name"):
                    errors.append("goals[%d]: %r needs a name (string) and a loss_ratio" % (index, goal))
                    continue
                ratio = _as_number(goal.get("loss_ratio"))
                if not _is_number(ratio) or not 0.0 <= ratio < 1.0:
                    errors.append("goals[%d].loss_ratio: %r (goal %s) must be a number in [0, 1)" % (index, goal.get("loss_ratio"), goal["name"]))
                if goal["name"] in names:
                    errors.append("goals[%d].name: %r is used twice" % (index, goal["name"]))
                names.add(goal["name"])
            if not any(error.startswith("goals") for error in errors):
                args["goals"] = [{"name": goal["name"], "loss_ratio": float(_as_number(goal["loss_ratio"]))} for goal in goals]

    args["width"] = _as_number(args["width"])
    if not _is_number(args["width"]) or not 0.0 < args["width"] < 0.5:
        errors.append("width: %r must be a relative width in (0, 0.5), e.g. 0.005 for 0.5 %%" % (args["width"],))
    for name in ("final_duration", "initial_duration", "warmup_duration", "settle"):
        args[name] = _as_number(args[name])
        if not _is_number(args[name]) or args[name] < 0.0 or (args[name] == 0.0 and name not in ("warmup_duration", "settle")):
            errors.append("%s: %r must be a positive number of seconds" % (name, args[name]))
    if _is_number(args["final_duration"]) and _is_number(args["initial_duration"]) and args["initial_duration"] > args["final_duration"]:
        errors.append("initial_duration: %r is longer than final_duration %r" % (args["initial_duration"], args["final_duration"]))
    if args["upper_bound_duration"] is not None:
        args["upper_bound_duration"] = _as_number(args["upper_bound_duration"])
        if not _is_number(args["upper_bound_duration"]) or (
                _is_number(args["final_duration"]) and _is_number(args["initial_duration"])
                and not args["initial_duration"] <= args["upper_bound_duration"] <= args["final_duration"]):
            errors.append("upper_bound_duration: %r must be seconds between initial_duration (%r) and final_duration (%r); leave it unset"
                          " for the contract (upper bounds confirmed by final trials)"
                          % (args["upper_bound_duration"], args["initial_duration"], args["final_duration"]))
    args["max_load"] = _as_number(args["max_load"])
    if not _is_number(args["max_load"]) or args["max_load"] <= 0:
        errors.append("max_load: %r must be the highest load to try, in frames/s (> 0): line rate or the generator's ceiling" % (args["max_load"],))
    for name in ("min_load", "warmup_load"):
        if args[name] is None:
            continue
        args[name] = _as_number(args[name])
        if not _is_number(args[name]) or args[name] <= 0 or (_is_number(args["max_load"]) and args[name] > args["max_load"]):
            errors.append("%s: %r must be a load in frames/s in (0, max_load]" % (name, args[name]))
    for name in ("max_trials", "retries"):
        args[name] = _as_int(args[name])
        if not _is_int(args[name]) or args[name] < (1 if name == "max_trials" else 0):
            errors.append("%s: %r must be a %s integer" % (name, args[name], "positive" if name == "max_trials" else "non-negative"))

    loads = args["latency_loads"]
    if not isinstance(loads, list) or not all(_is_number(_as_number(load)) and 0.0 < _as_number(load) <= 1.0 for load in loads):
        errors.append("latency_loads: %r must be a list of fractions of the PDR in (0, 1], e.g. [0.1, 0.5, 0.9]; [] measures no latency"
                      % (loads,))
    else:
        args["latency_loads"] = [float(_as_number(load)) for load in loads]
    args["latency_pps"] = _as_number(args["latency_pps"])
    if not _is_number(args["latency_pps"]) or args["latency_pps"] <= 0:
        errors.append("latency_pps: %r must be a rate in frames/s above 0, e.g. 1000 (a trial sends at most a tenth of "
                      "its load as latency frames)" % (args["latency_pps"],))
    if args["latency_duration"] is not None:
        args["latency_duration"] = _as_number(args["latency_duration"])
        if not _is_number(args["latency_duration"]) or args["latency_duration"] <= 0:
            errors.append("latency_duration: %r must be a positive number of seconds (default final_duration)" % (args["latency_duration"],))
    args["latency_pg_id"] = _as_int(args["latency_pg_id"])
    if not _is_int(args["latency_pg_id"]) or not 0 <= args["latency_pg_id"] <= 60000:
        errors.append("latency_pg_id: %r must be an integer in 0..60000 (the first TRex packet-group id of the latency streams)"
                      % (args["latency_pg_id"],))

    if not isinstance(args["results_dir"], str) or not args["results_dir"]:
        errors.append("results_dir: give the directory (on the controller) where the results JSON and CSV go")
    if args["run_id"] is not None and (not isinstance(args["run_id"], str) or not RUN_ID_RE.match(args["run_id"])):
        errors.append("run_id: %r must be letters, digits, '.', '_' or '-' (it names the results file)" % (args["run_id"],))
    if not isinstance(args["metadata"], dict):
        errors.append("metadata: give a mapping (hosts, NIC model, firmware, driver, kernel, OVS/OVN versions...)")
    if not isinstance(args["datapath"], str) or not args["datapath"]:
        errors.append("datapath: give a label of the DUT's datapath (e.g. doca, kernel, netdev)")
    if not isinstance(args["dut_interfaces"], list) or not all(isinstance(item, str) and item for item in args["dut_interfaces"]):
        errors.append("dut_interfaces: %r must be a list of interface names of the DUT (their driver, firmware and PSID are recorded)"
                      % (args["dut_interfaces"],))
    if not isinstance(args["dut_health"], bool):
        errors.append("dut_health: %r must be true or false" % (args["dut_health"],))
    return args, errors


def destination(args):
    """First destination address of the forward stream."""
    if args["scenario"] == "nat":
        return args["nat_address"]
    if args["scenario"] == "lb":
        return args["lb_vip"]
    return args["dst_base"]


def header_lengths(protocol, vlan):
    l2_len = ETH_LEN + (VLAN_LEN if vlan else 0)
    return l2_len, l2_len + IP_LEN, l2_len + IP_LEN + (TCP_LEN if protocol == "tcp" else UDP_LEN)


def _checksum(data):
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def build_frame(frame_size, protocol, src_ip, dst_ip, src_port, dst_port, vlan=None):
    """The base frame, without FCS (``frame_size - 4`` bytes), checksums filled in.

    MAC addresses are zero: the generator port writes its own source MAC and
    its resolved (or configured) destination MAC into every frame.
    """
    l2_len, l3_end, l4_end = header_lengths(protocol, vlan)
    length = frame_size - FCS
    if length < l4_end:
        raise ValueError("frame size %d is too small for %s headers (%d bytes)" % (frame_size, protocol, l4_end + FCS))
    eth = b"\x00" * 12
    if vlan:
        eth += struct.pack("!HH", 0x8100, vlan)
    eth += struct.pack("!H", 0x0800)
    ip_total = length - l2_len
    proto = 6 if protocol == "tcp" else 17
    src = ipaddress.IPv4Address(src_ip).packed
    dst = ipaddress.IPv4Address(dst_ip).packed
    ip_hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_total, 0, 0, 64, proto, 0, src, dst)
    ip_hdr = ip_hdr[:10] + struct.pack("!H", _checksum(ip_hdr)) + ip_hdr[12:]
    payload = b"\x00" * (length - l4_end)
    l4_total = ip_total - IP_LEN
    if protocol == "tcp":
        # ACK, window 65535, data offset 5 words
        l4_hdr = struct.pack("!HHIIBBHHH", src_port, dst_port, TCP_SEQ, TCP_ACK, 5 << 4, 0x10, 0xFFFF, 0, 0)
        csum_at = 16
    else:
        l4_hdr = struct.pack("!HHHH", src_port, dst_port, l4_total, 0)
        csum_at = 6
    pseudo = src + dst + struct.pack("!BBH", 0, proto, l4_total)
    csum = _checksum(pseudo + l4_hdr + payload)
    if protocol == "udp" and csum == 0:
        csum = 0xFFFF
    l4_hdr = l4_hdr[:csum_at] + struct.pack("!H", csum) + l4_hdr[csum_at + 2:]
    frame = eth + ip_hdr + l4_hdr + payload
    return frame


def build_latency_frame(args, frame_size):
    """The frame of the latency stream: the first flow of the forward stream,
    grown where needed so that the TRex flow-stats trailer fits after the L4
    header (a 64-byte TCP frame has 6 bytes of payload)."""
    _l2_len, _l3_end, l4_end = header_lengths(args["protocol"], args["vlan"])
    size = max(frame_size, l4_end + LATENCY_TRAILER + FCS)
    return build_frame(size, args["protocol"], args["src_base"], destination(args), args["src_port"], args["dst_port"], args["vlan"])


def build_vm(protocol, flows, destinations, src_ip, dst_ip, vlan=None):
    """Field-engine program as data: source over ``flows`` addresses, destination over ``destinations``.

    Returns a list of instructions:
    ``{"type": "flow_var", "name", "min", "max", "size": 4, "op": "inc"}``,
    ``{"type": "write", "name", "offset"}`` and
    ``{"type": "fix_checksum_hw", "l3_offset", "l4_offset", "l4_type"}``
    (numeric offsets: trex_stl_lib 0.3 cannot resolve named ones with current scapy).
    """
    l2_len, l3_end, _l4_end = header_lengths(protocol, vlan)
    program = []
    src = int(ipaddress.IPv4Address(src_ip))
    dst = int(ipaddress.IPv4Address(dst_ip))
    if flows > 1:
        program.append({"type": "flow_var", "name": "src", "min": src, "max": src + flows - 1, "size": 4, "op": "inc"})
        program.append({"type": "write", "name": "src", "offset": l2_len + 12})
    if destinations > 1:
        program.append({"type": "flow_var", "name": "dst", "min": dst, "max": dst + destinations - 1, "size": 4, "op": "inc"})
        program.append({"type": "write", "name": "dst", "offset": l2_len + 16})
    if program:
        program.append({"type": "fix_checksum_hw", "l3_offset": l2_len, "l4_offset": l3_end, "l4_type": L4_TYPE[protocol]})
    return program


def build_streams(args, frame_size):
    """Per transmitting port: ``{"port": int, "frame": bytes, "vm": [...], "share": float}``.

    ``share`` is the part of the aggregate load that port sends.
    """
    tx_port = args["ports"][0]
    rx_port = args["ports"][-1]
    forward = {"port": tx_port, "src": args["src_base"], "dst": destination(args), "flows": args["flows"],
               "destinations": 1 if args["scenario"] != "routing" else args["destinations"]}
    directions = [forward]
    if args["direction"] == "bidir":
        directions.append({"port": rx_port, "src": forward["dst"], "dst": forward["src"],
                           "flows": forward["destinations"], "destinations": forward["flows"]})
    streams = []
    for item in directions:
        streams.append({
            "port": item["port"],
            "frame": build_frame(frame_size, args["protocol"], item["src"], item["dst"], args["src_port"], args["dst_port"], args["vlan"]),
            "vm": build_vm(args["protocol"], item["flows"], item["destinations"], item["src"], item["dst"], args["vlan"]),
            "share": 1.0 / len(directions),
        })
    return streams


def profile(args, frame_size):
    """What makes the traffic reproducible, as stored in the results file."""
    return {
        "scenario": args["scenario"],
        "protocol": args["protocol"],
        "frame_size": frame_size,
        "flows": args["flows"],
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


def search_settings(args):
    """The search's parameters as stored in the results file."""
    from_args = ("width", "final_duration", "initial_duration", "max_load", "min_load", "warmup_duration", "warmup_load", "settle",
                 "latency_loads", "latency_pps")
    settings = {key: args[key] for key in from_args}
    settings["latency_duration"] = args["latency_duration"] if args["latency_duration"] is not None else args["final_duration"]
    settings["min_load"] = args["min_load"] if args["min_load"] is not None else args["max_load"] / 1000.0
    settings["warmup_load"] = args["warmup_load"] if args["warmup_load"] is not None else args["max_load"] / 10.0
    if args.get("upper_bound_duration") is not None:
        # Only when set: results of the default rule keep their fingerprint.
        settings["upper_bound_duration"] = args["upper_bound_duration"]
    return settings


def fingerprint(args):
    """Hash of everything that must not change between a run and its resumption."""
    frozen = {"profiles": [profile(args, size) for size in args["frame_sizes"]], "search": search_settings(args),
              "goals": args["goals"], "datapath": args["datapath"]}
    return hashlib.sha256(json.dumps(frozen, sort_keys=True).encode("utf-8")).hexdigest()[:16]
