# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Arguments of the ``trex_bench`` action: its argument spec and the checks the spec cannot express.

Interface of the action (``plugins/action/trex_bench.py``)::

    _validation, params = self.validate_argument_spec(argument_spec=spec.argument_spec())
    args, errors = spec.check(params)
    if errors:
        result.update(failed=True, errors=errors,
                      msg="trex_bench: invalid arguments, nothing was sent:\\n- " + "\\n- ".join(errors))
        return result

``validate_argument_spec`` refuses unknown arguments, wrong types, choices
and missing required arguments (it raises ``AnsibleActionFail`` with the
first of them) and fills in every default written in :func:`argument_spec`,
the goals' (``goals.DEFAULT_GOALS``) included. :func:`check` gets those
converted parameters and returns every remaining problem at once: value
ranges and checks across arguments, each message naming the argument as the
user writes it (``rx_server.ports``, ``goals[1].loss_ratio``), the bad value
and the fix. ``args`` has one key per option; ``run_id`` stays ``None`` when
unset (the action names the run from the clock).

The defaults are written here once; ``plugins/modules/trex_bench.py``'s
DOCUMENTATION repeats them for ``ansible-doc``, and
``tests/unit/plugins/plugin_utils/bench/test_bench_spec.py`` fails when the two
differ, or when a playbook writes one of them again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import show_converted
from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import encapsulation, stateful
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import DEFAULT_GOALS, GOAL_RANGES, goal_range, goal_value_ok, resolve_preset
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.rfc9971 import PRESETS

SCENARIOS = ("routing", "nat", "lb")
PROTOCOLS = ("udp", "tcp")
DIRECTIONS = ("uni", "bidir")
# trex_stl_lib: PyPI's trex-stl-lib 0.3 (the old API); trex: TRex v3.x's trex.stl.api, from
# PyPI's lbr-trex-client or, with client_path, from a TRex install (plugins/plugin_utils/bench/trex.py).
CLIENTS = ("trex_stl_lib", "trex")
# trex: a TRex server (or softgen) through the client above; testpmd: DPDK's dpdk-testpmd (plugins/plugin_utils/bench/testpmd.py)
GENERATORS = ("trex", "testpmd")
LCORES_RE = re.compile(r"^[0-9]+([-,@()][0-9]+|[-,@()])*$")
FILE_PREFIX_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAC_RE = re.compile(r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$")
MIN_MBUFS = 1024
DEFAULT_FRAME_SIZES = (64, 78, 100)
# 10 Gigabit Ethernet at 64-byte frames: 10e9 / ((64 + 20) * 8) frames/s (preamble and inter-frame gap included)
LINE_RATE_10G_64B = 14880952.0
MIN_FRAME, MAX_FRAME = 64, 9216
MAX_FLOWS, MAX_DESTINATIONS = 1 << 24, 1 << 16
MAX_PG_ID = 60000
RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def _server_options():
    return dict(
        server=dict(type="str", required=True),
        sync_port=dict(type="int", default=4501),
        async_port=dict(type="int", default=4500),
        ports=dict(type="list", elements="int", required=True),
    )


def _testpmd_options():
    return dict(
        binary=dict(type="str", default="dpdk-testpmd"),
        tx_namespace=dict(type="str"),
        tx_interface=dict(type="str"),
        tx_device=dict(type="str"),
        rx_namespace=dict(type="str"),
        rx_interface=dict(type="str"),
        rx_device=dict(type="str"),
        eal_args=dict(type="list", elements="str", default=[]),
        huge_dir=dict(type="path"),
        file_prefix=dict(type="str"),
        lcores=dict(type="str", default="0-1"),
        rx_lcores=dict(type="str", default="0-1"),
        total_num_mbufs=dict(type="int", default=8192),
        peer_mac=dict(type="str"),
        startup_timeout=dict(type="float", default=60.0),
    )


def _goal_options():
    """A goal: its name and loss ratio, or a preset of RFC 9971, and the RFC's attributes (checked by _check_goals)."""
    return dict(name=dict(type="str"), loss_ratio=dict(type="float"), preset=dict(type="str", choices=sorted(PRESETS)),
                exceed_ratio=dict(type="float"), final_duration=dict(type="float"), duration_sum=dict(type="float"),
                initial_duration=dict(type="float"), width=dict(type="float"))


def _search_options():
    """The goals and how the search runs its trials."""
    return dict(
        goals=dict(type="list", elements="dict", default=[dict(goal) for goal in DEFAULT_GOALS], options=_goal_options()),
        width=dict(type="float", default=0.005),
        final_duration=dict(type="float", default=10.0),
        initial_duration=dict(type="float", default=1.0),
        upper_bound_duration=dict(type="float"),
        confirm_upper=dict(type="bool", default=False),
    )


def _traffic_options():
    """What the search sends: the scenario's frames, their tunnel, or a user's TRex profile."""
    return dict(
        scenario=dict(type="str", choices=list(SCENARIOS), default="routing"),
        protocol=dict(type="str", choices=list(PROTOCOLS), default="udp"),
        # bytes, or imix (units.IMIX): checked and normalized by _check_frames
        frame_sizes=dict(type="list", elements="raw", default=list(DEFAULT_FRAME_SIZES)),
        # an int (one flow count) or a list of flow counts (one search per count): checked by _check_flows
        flows=dict(type="raw", default=1000),
        destinations=dict(type="int", default=1),
        src_base=dict(type="str", default="16.0.0.1"),
        dst_base=dict(type="str", default="48.0.0.1"),
        nat_address=dict(type="str"),
        lb_vip=dict(type="str"),
        src_port=dict(type="int", default=1025),
        dst_port=dict(type="int", default=5001),
        vlan=dict(type="int"),
        encapsulation=dict(type="dict", options=encapsulation.options()),
        # a user's TRex STL profile and its tunables (plugin_utils/bench/trex_profile.py)
        profile=dict(type="path"),
        tunables=dict(type="dict", default={}),
        # connections per second instead of frames (plugin_utils/bench/stateful.py)
        stateful=dict(type="dict", options=stateful.options()),
        direction=dict(type="str", choices=list(DIRECTIONS), default="uni"),
    )


def argument_spec():
    """Every option of ``offload.testbed.trex_bench``, as ``ArgumentSpecValidator`` takes it (a new dict each call)."""
    return dict(
        generator=dict(type="str", choices=list(GENERATORS), default="trex"),
        testpmd=dict(type="dict", options=_testpmd_options()),
        server=dict(type="str", default="127.0.0.1"),
        sync_port=dict(type="int", default=4501),
        async_port=dict(type="int", default=4500),
        client=dict(type="str", choices=list(CLIENTS), default="trex_stl_lib"),
        client_path=dict(type="path"),
        ports=dict(type="list", elements="int", default=[0, 1]),
        rx_server=dict(type="dict", options=_server_options()),
        port_l3=dict(type="list", elements="dict", options=dict(src=dict(type="str", required=True), gateway=dict(type="str", required=True))),
        max_load=dict(type="float", default=LINE_RATE_10G_64B),
        line_rate_gbps=dict(type="float"),
        min_load=dict(type="float"),
        warmup_duration=dict(type="float", default=2.0),
        warmup_load=dict(type="float"),
        settle=dict(type="float", default=0.5),
        repeat=dict(type="int", default=1),
        results_dir=dict(type="path", required=True),
        results_db=dict(type="bool", default=True),
        results_db_url=dict(type="str", no_log=True),
        run_id=dict(type="str"),
        datapath=dict(type="str", default="unknown"),
        metadata=dict(type="dict", default={}),
        dut_health=dict(type="bool", default=True),
        dut_interfaces=dict(type="list", elements="str", default=[]),
        dut_tc_devices=dict(type="list", elements="str", default=[]),
        dut_queue_devices=dict(type="list", elements="str", default=[]),
        dut_conntrack=dict(type="bool", default=False),
        dut_all_flows=dict(type="bool", default=False),
        retries=dict(type="int", default=1),
        reconnects=dict(type="int", default=3),
        reconnect_delay=dict(type="float", default=2.0),
        max_trials=dict(type="int", default=200),
        latency_loads=dict(type="list", elements="float", default=[0.1, 0.5, 0.9]),
        latency_pps=dict(type="float", default=1000.0),
        latency_duration=dict(type="float"),
        latency_pg_id=dict(type="int", default=100),
        soak_duration=dict(type="float", default=0.0),
        soak_interval=dict(type="float", default=10.0),
        soak_goal=dict(type="str"),
        **dict(_search_options(), **_traffic_options())
    )


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _append(errors, *problems):
    """Add the problems that are messages (``validate``'s checks return None for a good value)."""
    errors.extend(problem for problem in problems if problem)


# ---------------------------------------------------------------------------
# the checks, one group of options each
# ---------------------------------------------------------------------------

def _check_generator(args, errors):
    """server, its ports, reconnections.

    ``client`` needs no check beyond its choices: ``client: trex`` without ``client_path`` is PyPI's
    lbr-trex-client; whether a client imports, ``trex.load_client`` tells (and how to install it).
    """
    if not args["server"]:
        errors.append("server: give the generator's TRex server address (host name or IP)")
    _append(errors, *(validate.port_number(name, args[name], "TCP") for name in ("sync_port", "async_port")))
    if not validate.is_int_in(args["reconnects"], 0):
        errors.append("reconnects: %s must be a non-negative integer, the reconnections to a lost generator per trial "
                      "(0: a lost generator stops the run)" % show_converted(args["reconnects"]))
    if not validate.is_positive(args["reconnect_delay"]):
        errors.append("reconnect_delay: %s must be a positive number of seconds (the first wait before reconnecting; "
                      "it doubles for each further attempt), e.g. 2" % show_converted(args["reconnect_delay"]))


def _wanted_ports(args):
    """How many generator ports ``ports`` lists: the transmitting one alone when rx_server receives."""
    return 1 if args["rx_server"] is not None else 2


def _check_ports(args, errors):
    """ports against rx_server, rx_server itself, port_l3."""
    ports = args["ports"]
    wanted = _wanted_ports(args)
    if len(ports) != wanted or not all(validate.is_int_in(port, 0) for port in ports) or len(set(ports)) != len(ports):
        if wanted == 2:
            errors.append("ports: %s must be two different generator port numbers [transmit, receive], e.g. [0, 1]" % show_converted(ports))
        else:
            errors.append("ports: %s must be the one transmitting port, e.g. [0], when rx_server receives" % show_converted(ports))
    rx_server = args["rx_server"]
    if rx_server is not None:
        if not rx_server["server"]:
            errors.append("rx_server.server: give the address of the TRex server of the receiving ports")
        _append(errors, *(validate.port_number("rx_server." + name, rx_server[name], "TCP") for name in ("sync_port", "async_port")))
        if not rx_server["ports"] or not all(validate.is_int_in(port, 0) for port in rx_server["ports"]):
            errors.append("rx_server.ports: %s must list the receiving port numbers of that server, e.g. [0, 1, 2]"
                          % show_converted(rx_server["ports"]))
        if args["direction"] == "bidir":
            errors.append("direction: bidir needs both ports on one server; leave rx_server unset")
    port_l3 = args["port_l3"]
    if port_l3 is not None:
        if len(port_l3) != wanted:
            errors.append("port_l3: %d entries for %d generator port(s): give one {src, gateway} per port of ports, in their order"
                          % (len(port_l3), wanted))
        for index, entry in enumerate(port_l3):
            for name in ("src", "gateway"):
                if validate.ipv4(entry[name]) is None:
                    errors.append("port_l3[%d].%s: %s is not an IPv4 address" % (index, name, show_converted(entry[name])))


def _check_frames(args, errors):
    """frame_sizes, the L4 ports, the VLAN tag."""
    args["frame_sizes"] = sizes = [_whole_number(size) for size in args["frame_sizes"]]
    if not sizes:
        errors.append("frame_sizes: give a list of frame sizes in bytes, e.g. [64, 78, 100]")
    bad = [size for size in sizes if size != units.IMIX and not validate.is_int_in(size, MIN_FRAME, MAX_FRAME)]
    if bad:
        errors.append("frame_sizes: %s outside %d..%d bytes (Ethernet frames with FCS); or write %s for TRex's mix of "
                      "64, 594 and 1518-byte frames" % (", ".join(show_converted(size) for size in bad), MIN_FRAME, MAX_FRAME, units.IMIX))
    elif len(set(sizes)) != len(sizes):
        errors.append("frame_sizes: %s lists a size twice" % show_converted(sizes))
    _append(errors, *(validate.port_number(name, args[name], "UDP/TCP") for name in ("src_port", "dst_port")))
    if args["vlan"] is not None:
        _append(errors, validate.vlan_id("vlan", args["vlan"], "leave it unset for untagged frames"))
    if args["profile"] is not None:
        _check_profile(args, errors)
    elif args["tunables"]:
        errors.append("tunables: %s are a profile's; set profile, or drop them" % show_converted(sorted(args["tunables"])))
    elif not bad:
        encapsulation.check(args, errors)


def _check_profile(args, errors):
    """profile: a readable .py file; what cannot go with it."""
    if not os.path.isfile(args["profile"]) or not os.access(args["profile"], os.R_OK):
        errors.append("profile: %s is not a readable file on the controller; give the path of a TRex STL profile (.py)" % args["profile"])
    elif not args["profile"].endswith(".py"):
        errors.append("profile: %s is not a Python profile (.py), the kind TRex's start -f loads" % args["profile"])
    if args["encapsulation"] is not None:
        errors.append("encapsulation: a profile brings its own frames; drop encapsulation or profile")


def _past_last_address(base, count):
    address = validate.ipv4(base)
    return address is not None and int(address) + count - 1 > 0xFFFFFFFF


def _whole_number(value):
    """An int as the argument spec would convert it (a digit string from a template, a whole float), else ``value``."""
    if isinstance(value, str) and re.match(r"^\s*[0-9]+\s*$", value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def flow_counts(args):
    """The flow counts of the run, in search order: ``[flows]`` for an int, the list as given otherwise."""
    flows = args["flows"]
    return list(flows) if isinstance(flows, (list, tuple)) else [flows]


def flow_list(args):
    """Whether ``flows`` is a list of flow counts (one search per count, each recorded with its count)."""
    return isinstance(args.get("flows"), (list, tuple))


def _check_flows(args, errors):
    """flows: an integer in 1..MAX_FLOWS, or a non-empty list of different ones (normalized in ``args``)."""
    flows = args["flows"]
    if not isinstance(flows, (list, tuple)):
        args["flows"] = flows = _whole_number(flows)
        if not validate.is_int_in(flows, 1, MAX_FLOWS):
            errors.append("flows: %s must be an integer in 1..%d, or a list of them (one search per flow count), e.g. [1000, 100000, 1000000]"
                          % (show_converted(flows), MAX_FLOWS))
        return
    args["flows"] = flows = [_whole_number(count) for count in flows]
    if not flows:
        errors.append("flows: [] lists no flow count; give an integer in 1..%d, e.g. 1000, or a list of them, e.g. [1000, 100000, 1000000]"
                      % MAX_FLOWS)
    first = {}
    for index, count in enumerate(flows):
        if not validate.is_int_in(count, 1, MAX_FLOWS):
            errors.append("flows[%d]: %s must be an integer in 1..%d, the number of source addresses of that search"
                          % (index, show_converted(count), MAX_FLOWS))
        elif count in first:
            errors.append("flows[%d]: %d is flows[%d] again; list each flow count once" % (index, count, first[count]))
        else:
            first[count] = index


def _check_addresses(args, errors):
    """flows and destinations, the address ranges, the scenario's destination, direction."""
    _check_flows(args, errors)
    if not validate.is_int_in(args["destinations"], 1, MAX_DESTINATIONS):
        errors.append("destinations: %s must be an integer in 1..%d" % (show_converted(args["destinations"]), MAX_DESTINATIONS))
    for name in ("src_base", "dst_base"):
        if validate.ipv4(args[name]) is None:
            errors.append("%s: %s is not an IPv4 address" % (name, show_converted(args[name])))
    counts = [count for count in flow_counts(args) if validate.is_int_in(count, 1, MAX_FLOWS)]
    if counts and _past_last_address(args["src_base"], max(counts)):
        name = "flows" if not flow_list(args) else "flows[%d]" % flow_counts(args).index(max(counts))
        errors.append("%s: %d sources from src_base %s run past 255.255.255.255" % (name, max(counts), args["src_base"]))
    if args["scenario"] == "routing" and validate.is_int(args["destinations"]) and _past_last_address(args["dst_base"], args["destinations"]):
        errors.append("destinations: %d destinations from dst_base %s run past 255.255.255.255" % (args["destinations"], args["dst_base"]))
    if args["scenario"] == "nat" and validate.ipv4(args["nat_address"]) is None:
        errors.append("nat_address: scenario nat needs the DUT's NAT address (IPv4) as destination, got %s" % show_converted(args["nat_address"]))
    if args["scenario"] == "lb" and validate.ipv4(args["lb_vip"]) is None:
        errors.append("lb_vip: scenario lb needs the load balancer's VIP (IPv4) as destination, got %s" % show_converted(args["lb_vip"]))
    if args["direction"] == "bidir" and args["scenario"] != "routing":
        errors.append("direction: bidir is supported for scenario routing only (the reverse of NAT and LB traffic is "
                      "the servers' replies); use direction uni for %s" % args["scenario"])


def _check_goals(args, errors):
    goals = args["goals"]
    if not goals:
        errors.append("goals: give a list of {name, loss_ratio}, e.g. [{name: pdr, loss_ratio: 0.005}]; "
                      "leave it unset for NDR, ndr_1e-5 and PDR")
    names = set()
    for index, goal in enumerate(goals):
        name = goal.get("name")
        if not name:
            errors.append("goals[%d].name: give the goal a name (it names its bounds in the results)" % index)
        elif name in names:
            errors.append("goals[%d].name: %r is used twice" % (index, name))
        names.add(name)
        for key in sorted(GOAL_RANGES):
            if (key in goal or key == "loss_ratio") and not goal_value_ok(key, goal.get(key)):
                errors.append("goals[%d].%s: %s (goal %s) must be a number in %s" % (index, key, show_converted(goal.get(key)), name, goal_range(key)))


def _check_durations(args, errors):
    """width, trial durations, upper_bound_duration."""
    if not (validate.is_number(args["width"]) and 0.0 < args["width"] < 0.5):
        errors.append("width: %s must be a relative width in (0, 0.5), e.g. 0.005 for 0.5 %%" % show_converted(args["width"]))
    for name in ("final_duration", "initial_duration"):
        if not validate.is_positive(args[name]):
            errors.append("%s: %s must be a positive number of seconds" % (name, show_converted(args[name])))
    for name, zero in (("warmup_duration", "0 skips the warm-up"), ("settle", "0 reads the counters at once")):
        if not (validate.is_number(args[name]) and args[name] >= 0.0):
            errors.append("%s: %s must be a number of seconds, 0 or more (%s)" % (name, show_converted(args[name]), zero))
    initial, final = args["initial_duration"], args["final_duration"]
    durations_good = validate.is_positive(initial) and validate.is_positive(final)
    if durations_good and initial > final:
        errors.append("initial_duration: %s is longer than final_duration %s" % (show_converted(initial), show_converted(final)))
    upper = args["upper_bound_duration"]
    if upper is not None and not (validate.is_number(upper) and (not durations_good or initial <= upper <= final)):
        errors.append("upper_bound_duration: %s must be seconds between initial_duration (%s) and final_duration (%s); leave it unset"
                      " for the contract (upper bounds confirmed by final trials)" % (show_converted(upper), show_converted(initial), show_converted(final)))


def _check_loads(args, errors):
    """max_load, min_load, warmup_load, and the trial counts."""
    max_load = args["max_load"]
    if not validate.is_positive(max_load):
        errors.append("max_load: %s must be the highest load to try, in frames/s (> 0): line rate or the generator's ceiling"
                      % show_converted(max_load))
    for name in ("min_load", "warmup_load"):
        value = args[name]
        if value is not None and not (validate.is_positive(value) and (not validate.is_positive(max_load) or value <= max_load)):
            errors.append("%s: %s must be a load in frames/s in (0, max_load], max_load being %s; leave it unset for max_load / %d"
                          % (name, show_converted(value), show_converted(max_load), 1000 if name == "min_load" else 10))
    if args["line_rate_gbps"] is not None and not validate.is_positive(args["line_rate_gbps"]):
        errors.append("line_rate_gbps: %s must be the line rate of one DUT port in Gb/s (> 0), e.g. 25 for a ConnectX-6 Lx port; "
                      "leave it unset when it is not known (the report then shows no share of line rate)" % show_converted(args["line_rate_gbps"]))
    if not validate.is_int_in(args["max_trials"], 1):
        errors.append("max_trials: %s must be a positive integer" % show_converted(args["max_trials"]))
    if not validate.is_int_in(args["retries"], 0):
        errors.append("retries: %s must be a non-negative integer" % show_converted(args["retries"]))
    if not validate.is_int_in(args["repeat"], 1):
        errors.append("repeat: %s must be a positive integer, the number of times each search runs (1: once)" % show_converted(args["repeat"]))


def _check_latency(args, errors):
    loads = args["latency_loads"]
    if not all(validate.is_number(load) and 0.0 < load <= 1.0 for load in loads):
        errors.append("latency_loads: %s must be a list of fractions of the PDR in (0, 1], e.g. [0.1, 0.5, 0.9]; [] measures no latency"
                      % show_converted(loads))
    if not validate.is_positive(args["latency_pps"]):
        errors.append("latency_pps: %s must be a rate in frames/s above 0, e.g. 1000 (a trial sends at most a tenth of "
                      "its load as latency frames)" % show_converted(args["latency_pps"]))
    if args["latency_duration"] is not None and not validate.is_positive(args["latency_duration"]):
        errors.append("latency_duration: %s must be a positive number of seconds (default final_duration)" % show_converted(args["latency_duration"]))
    if not validate.is_int_in(args["latency_pg_id"], 0, MAX_PG_ID):
        errors.append("latency_pg_id: %s must be an integer in 0..%d (the first TRex packet-group id of the latency streams)"
                      % (show_converted(args["latency_pg_id"]), MAX_PG_ID))


def _check_soak(args, errors):
    """soak_duration, soak_interval, soak_goal."""
    duration, interval = args["soak_duration"], args["soak_interval"]
    if not validate.is_number(duration) or duration < 0:
        errors.append("soak_duration: %s must be the seconds of the soak trial after each frame size's searches, e.g. 600; "
                      "0 runs none" % show_converted(duration))
    if not validate.is_positive(interval) or (validate.is_positive(duration) and interval > duration):
        errors.append("soak_interval: %s must be the seconds between two readings of the soak's counters, above 0 and at most "
                      "soak_duration (%s), e.g. 10" % (show_converted(interval), show_converted(duration)))
    names = [goal.get("name") for goal in args["goals"] or []]
    if args["soak_goal"] is not None and args["soak_goal"] not in names:
        errors.append("soak_goal: %r is not one of the goals (%s); name the goal whose conditional throughput the soak runs at, "
                      "or leave it unset for the goal with the largest loss ratio" % (args["soak_goal"], ", ".join(map(str, names))))


def _check_results(args, errors):
    """results_dir, results_db_url, run_id, datapath, dut_interfaces, dut_tc_devices, dut_queue_devices."""
    if not args["results_dir"]:
        errors.append("results_dir: give the directory (on the controller) where the results JSON and CSV go")
    if args["results_db"] and args["results_db_url"] is not None:
        _append(errors, results_db.url_error("results_db_url", args["results_db_url"]))
    if args["run_id"] is not None and not RUN_ID_RE.match(args["run_id"]):
        errors.append("run_id: %r must be letters, digits, '.', '_' or '-' (it names the results file)" % (args["run_id"],))
    if not args["datapath"]:
        errors.append("datapath: give a label of the DUT's datapath (e.g. doca, kernel, netdev)")
    if not all(args["dut_interfaces"]):
        errors.append("dut_interfaces: %s must be a list of interface names of the DUT (their driver, firmware and PSID are recorded)"
                      % show_converted(args["dut_interfaces"]))
    for name in ("dut_tc_devices", "dut_queue_devices"):
        if not all(args[name]):
            errors.append("%s: %s must be a list of device names of the DUT, DEV or NAMESPACE/DEV" % (name, show_converted(args[name])))


def _check_testpmd_ports(options, errors):
    """One sending and one receiving port, each given one way."""
    for side in ("tx", "rx"):
        interface, device = options[side + "_interface"], options[side + "_device"]
        if bool(interface) == bool(device):
            errors.append("testpmd.%s_interface, testpmd.%s_device: give one of them, the %s port: a kernel interface (%s_interface, "
                          "in %s_namespace) or an EAL device for testpmd (%s_device, a PCI address or a vdev); got %s and %s"
                          % (side, side, "sending" if side == "tx" else "receiving", side, side, side, show_converted(interface), show_converted(device)))
    if options["peer_mac"] is not None and not MAC_RE.match(options["peer_mac"]):
        errors.append("testpmd.peer_mac: %s is not a MAC address (xx:xx:xx:xx:xx:xx), the destination MAC of the frames" % show_converted(options["peer_mac"]))


def lcore_ids(text):
    """The lcore ids of an EAL ``--lcores`` list: ``0-1`` -> {0, 1}, ``0@3,1@3`` -> {0, 1}, ``(0,1)@2`` -> {0, 1}.

    Each element is ``LCORES[@CPUS]``; LCORES is an id, a range or a group in
    parentheses. What is not an id is left out (LCORES_RE checks the form).
    """
    ids, depth, element = set(), 0, ""
    for char in str(text) + ",":
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char != "," or depth > 0:
            element += char
            continue
        for part in element.split("@")[0].strip("()").split(","):
            low, dummy, high = part.partition("-")
            if low.isdigit() and (high.isdigit() or not high):
                ids.update(range(int(low), int(high or low) + 1))
        element = ""
    return ids


def _check_testpmd_process(options, errors):
    """binary, lcores, file prefix, mbufs, start-up time."""
    if not options["binary"]:
        errors.append("testpmd.binary: give the dpdk-testpmd program (a path or a name on PATH)")
    for name in ("lcores", "rx_lcores"):
        if not LCORES_RE.match(options[name] or ""):
            errors.append("testpmd.%s: %s is not an EAL core list (--lcores), e.g. 0-1, 2,3 or 0@3,1@3" % (name, show_converted(options[name])))
        elif len(lcore_ids(options[name])) < 2:
            errors.append("testpmd.%s: %s gives testpmd %s lcore; it needs two or more, the main lcore (its command line) and at least "
                          "one forwarding lcore (with one it stops: \"No cores defined for forwarding\"); write two, for example 0-1 or 0@3,1@3"
                          % (name, show_converted(options[name]), "one" if lcore_ids(options[name]) else "no"))
    if options["file_prefix"] is not None and not FILE_PREFIX_RE.match(options["file_prefix"]):
        errors.append("testpmd.file_prefix: %s must be letters, digits, '_' or '-' (up to 64), the EAL --file-prefix; leave it unset "
                      "for tbench-<pid>" % show_converted(options["file_prefix"]))
    if not validate.is_int_in(options["total_num_mbufs"], MIN_MBUFS):
        errors.append("testpmd.total_num_mbufs: %s must be an integer of at least %d (--total-num-mbufs; 8192 fit in 128 2 MB hugepages)"
                      % (show_converted(options["total_num_mbufs"]), MIN_MBUFS))
    if not validate.is_positive(options["startup_timeout"]):
        errors.append("testpmd.startup_timeout: %s must be a positive number of seconds" % show_converted(options["startup_timeout"]))


def testpmd_traffic_errors(args):
    """What testpmd's txonly cannot send of the profile ``args`` asks for, and the TRex-only options given
    (also ``testpmd.TestpmdGenerator``'s refusals)."""
    errors = []
    if args["protocol"] != "udp":
        errors.append("protocol: %s is not supported by generator testpmd: its txonly forwarding sends UDP only; use protocol udp, "
                      "or generator trex" % args["protocol"])
    if args["direction"] != "uni":
        errors.append("direction: %s is not supported by generator testpmd (one port sends); use direction uni" % args["direction"])
    if flow_counts(args) != [1] or (args["scenario"] == "routing" and args["destinations"] != 1):
        errors.append("flows: %s (destinations %s) with generator testpmd: txonly sends one flow; set flows: 1 and destinations: 1"
                      % (show_converted(args["flows"]), show_converted(args["destinations"])))
    if args["vlan"] is not None:
        errors.append("vlan: %s is not supported by generator testpmd (txonly sends untagged frames); leave it unset" % show_converted(args["vlan"]))
    if units.IMIX in args["frame_sizes"]:
        errors.append("frame_sizes: %s is not supported by generator testpmd (txonly sends one frame size); give sizes in bytes, "
                      "or use generator trex" % units.IMIX)
    if args["profile"] is not None:
        errors.append("profile: a TRex profile needs generator trex (testpmd's txonly sends its own UDP frames)")
    if args["encapsulation"] is not None:
        errors.append("encapsulation: %s is not supported by generator testpmd (txonly sends plain UDP); drop it, or use generator trex"
                      % args["encapsulation"]["type"])
    for name in ("rx_server", "port_l3"):
        if args[name] is not None:
            errors.append("%s: a TRex option; generator testpmd counts on testpmd.rx_interface or testpmd.rx_device" % name)
    return errors


def _check_testpmd(args, errors):
    """generator and the testpmd options."""
    options = args["testpmd"]
    if args["generator"] != "testpmd":
        if options is not None:
            errors.append("testpmd: options for generator testpmd, but generator is %s; set generator: testpmd or drop them" % args["generator"])
        return
    if options is None:
        errors.append("testpmd: generator testpmd needs its options: testpmd.tx_interface (or tx_device) and testpmd.rx_interface "
                      "(or rx_device), see docs/testpmd_generator.md")
        return
    _check_testpmd_ports(options, errors)
    _check_testpmd_process(options, errors)
    errors.extend(testpmd_traffic_errors(args))


CHECKS = (_check_generator, _check_testpmd, _check_ports, _check_frames, stateful.check, _check_addresses, _check_goals, _check_durations, _check_loads,
          _check_latency, _check_soak, _check_results)


def check(params):
    """Value ranges and checks across arguments, after the argument spec.

    :param params: the parameters ``ArgumentSpecValidator(argument_spec()).validate()``
        (or ``ActionBase.validate_argument_spec``) returned without errors: types
        converted, defaults filled in.
    :returns: ``(args, errors)``: ``args`` a copy of ``params`` with one key per
        option; ``errors`` every problem found, each naming the argument, the bad
        value and the fix (empty when the arguments are good).
    """
    args = dict(params)
    # Each goal as the search takes it: a preset's attributes filled in, the options not given left out.
    args["goals"] = [resolve_preset(goal) for goal in args["goals"] or []]
    errors = []
    for check_group in CHECKS:
        check_group(args, errors)
    return args, errors
