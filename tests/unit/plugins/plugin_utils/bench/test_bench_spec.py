# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The argument spec of trex_bench (plugins/plugin_utils/bench/spec.py): its checks, its
documentation (plugins/modules/trex_bench.py) and the playbooks that call the action.

Every check runs the real ``ArgumentSpecValidator(argument_spec())`` and then
``check``, as the action does (``ActionBase.validate_argument_spec`` is that
validator and the task's arguments)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import copy
import glob
import os
import re

import pytest
import yaml

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.offload.testbed.plugins.doc_fragments import bench as bench_doc
from ansible_collections.offload.testbed.plugins.modules import trex_bench as trex_bench_doc
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import DEFAULT_GOALS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
GOOD = {"max_load": 1000000, "results_dir": "/tmp/results"}
# What check_args returned before the argument spec; the action and profile.py read these.
FORMER_KEYS = {
    "server", "sync_port", "async_port", "client", "client_path", "ports", "port_l3", "rx_server", "scenario", "protocol",
    "frame_sizes", "flows", "destinations", "src_base", "dst_base", "nat_address", "lb_vip", "src_port", "dst_port", "vlan",
    "direction", "goals", "width", "final_duration", "initial_duration", "upper_bound_duration", "confirm_upper", "max_load", "min_load",
    "warmup_duration", "warmup_load", "settle", "results_dir", "run_id", "datapath", "metadata", "dut_health", "dut_interfaces",
    "max_trials", "retries", "latency_loads", "latency_pps", "latency_duration", "latency_pg_id",
}
NEW_KEYS = {"repeat", "reconnects", "reconnect_delay", "line_rate_gbps", "generator", "testpmd",
            "dut_tc_devices", "dut_queue_devices", "dut_conntrack", "dut_all_flows",
            "soak_duration", "soak_interval", "soak_goal", "encapsulation", "profile", "tunables", "stateful", "results_db", "results_db_url"}


def validate(task_args):
    """What the action does: the validator's messages, then ``check``'s ``(args, errors)``."""
    result = ArgumentSpecValidator(spec.argument_spec()).validate(dict(task_args))
    if result.errors.messages:
        return result.errors.messages, None, None
    args, errors = spec.check(result.validated_parameters)
    return [], args, errors


def args_of(**overrides):
    refused, args, errors = validate(dict(GOOD, **overrides))
    assert refused == [] and errors == [], (refused, errors)
    return args


def errors_of(**overrides):
    refused, _args, errors = validate(dict(GOOD, **overrides))
    assert refused == [], "the argument spec refused what check() should: %s" % refused
    return errors


# ---------------------------------------------------------------------------
# defaults and conversions
# ---------------------------------------------------------------------------

def test_defaults_are_valid_and_filled():
    refused, args, errors = validate({"results_dir": "/tmp/results"})
    assert refused == [] and errors == []
    assert set(args) == FORMER_KEYS | NEW_KEYS
    assert args["frame_sizes"] == [64, 78, 100] and args["ports"] == [0, 1]
    assert args["scenario"] == "routing" and args["protocol"] == "udp" and args["width"] == 0.005
    assert args["final_duration"] == 10.0 and args["max_load"] == 14880952
    assert args["goals"] == [dict(goal) for goal in DEFAULT_GOALS]
    assert (args["repeat"], args["reconnects"], args["reconnect_delay"]) == (1, 3, 2.0)
    assert args["run_id"] is None and args["rx_server"] is None and args["port_l3"] is None


def test_argument_spec_is_a_new_dict_every_time():
    first = spec.argument_spec()
    first["frame_sizes"]["default"].append(1500)
    first["goals"]["default"][0]["loss_ratio"] = 0.5
    assert spec.argument_spec()["frame_sizes"]["default"] == [64, 78, 100]
    assert DEFAULT_GOALS[0]["loss_ratio"] == 0.0


def test_strings_from_playbooks_are_converted():
    args = args_of(frame_sizes=["64", "100"], vlan="10", width="0.01", max_load="2000", ports=["0", "1"], repeat="3",
                   goals=[{"name": "pdr", "loss_ratio": "0.005"}])
    assert args["frame_sizes"] == [64, 100] and args["vlan"] == 10 and args["width"] == 0.01 and args["max_load"] == 2000.0
    assert args["ports"] == [0, 1] and args["repeat"] == 3 and args["goals"] == [{"name": "pdr", "loss_ratio": 0.005}]
    assert args_of(frame_sizes="64,78")["frame_sizes"] == [64, 78]
    assert args_of(frame_sizes=1518)["frame_sizes"] == [1518]
    assert args_of(frame_sizes="64,imix")["frame_sizes"] == [64, "imix"]
    assert args_of(frame_sizes=["imix", 100.0])["frame_sizes"] == ["imix", 100]


def test_rx_server_gets_its_default_ports():
    args = args_of(ports=[0], rx_server={"server": "gen", "ports": ["0", 1]})
    assert args["rx_server"] == {"server": "gen", "sync_port": 4501, "async_port": 4500, "ports": [0, 1]}


# ---------------------------------------------------------------------------
# what the argument spec refuses (Ansible's messages, the first only)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, needle", [
    ({"scenario": "bridging"}, "value of scenario must be one of: routing, nat, lb, got: bridging"),
    ({"protocol": "sctp"}, "value of protocol must be one of: udp, tcp, got: sctp"),
    ({"direction": "both"}, "value of direction must be one of: uni, bidir"),
    ({"client": "scapy"}, "value of client must be one of: trex_stl_lib, trex"),
    ({"frobnicate": True}, "frobnicate. Supported parameters include"),
    ({"final_duration": "soon"}, "argument 'final_duration' is of type str and we were unable to convert to float"),
    ({"upper_bound_duration": "short"}, "argument 'upper_bound_duration' is of type str"),
    ({"goals": [{"name": "x", "loss_ratio": 0, "colour": "red"}]}, "goals.colour"),
    ({"rx_server": {"ports": [0]}, "ports": [0]}, "missing required arguments: server found in rx_server"),
    ({"port_l3": [{"src": "10.0.0.1"}]}, "missing required arguments: gateway found in port_l3"),
    ({"metadata": ["nic"]}, "argument 'metadata' is of type list"),
])
def test_the_argument_spec_refuses_types_choices_and_unknown_arguments(overrides, needle):
    refused, _args, _errors = validate(dict(GOOD, **overrides))
    assert any(needle in message for message in refused), refused


def test_results_dir_is_required():
    refused, _args, _errors = validate({"max_load": 1000})
    assert refused == ["missing required arguments: results_dir"]


# ---------------------------------------------------------------------------
# what check() refuses
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, needle", [
    ({"frame_sizes": [63]}, "frame_sizes: 63 outside 64..9216 bytes"),
    ({"frame_sizes": [64, "jumbo"]}, "frame_sizes: 'jumbo' outside 64..9216 bytes (Ethernet frames with FCS); or write imix for TRex's mix"),
    ({"frame_sizes": ["imix", "imix"]}, "frame_sizes: ['imix', 'imix'] lists a size twice"),
    ({"frame_sizes": [64, 9217]}, "frame_sizes: 9217 outside 64..9216"),
    ({"frame_sizes": []}, "frame_sizes: give a list of frame sizes in bytes"),
    ({"frame_sizes": [64, 78, 64]}, "frame_sizes: [64, 78, 64] lists a size twice"),
    ({"goals": [{"name": "x", "loss_ratio": 1.0}]}, "goals[0].loss_ratio: 1 (goal x) must be a number in [0, 1)"),
    ({"goals": [{"name": "x", "loss_ratio": -0.1}]}, "goals[0].loss_ratio: -0.1 (goal x)"),
    ({"goals": [{"name": "a", "loss_ratio": 0}, {"name": "a", "loss_ratio": 0.1}]}, "goals[1].name: 'a' is used twice"),
    ({"goals": [{"name": "", "loss_ratio": 0}]}, "goals[0].name: give the goal a name"),
    ({"goals": [{"name": "x"}]}, "goals[0].loss_ratio: None (goal x) must be a number in [0, 1)"),
    ({"goals": [{"name": "x", "loss_ratio": 0, "exceed_ratio": 1.0}]}, "goals[0].exceed_ratio: 1 (goal x) must be a number in [0, 1)"),
    ({"goals": [{"preset": "tst009", "duration_sum": 0.0}]}, "goals[0].duration_sum: 0 (goal tst009) must be a number in (0, inf)"),
    ({"goals": []}, "goals: give a list of {name, loss_ratio}"),
    ({"width": 0}, "width: 0 must be a relative width in (0, 0.5)"),
    ({"width": 0.5}, "width: 0.5 must be a relative width in (0, 0.5)"),
    ({"width": "nan"}, "width: nan must be a relative width"),
    ({"scenario": "nat"}, "nat_address: scenario nat needs the DUT's NAT address (IPv4) as destination, got None"),
    ({"scenario": "lb", "lb_vip": "not-an-ip"}, "lb_vip: scenario lb needs the load balancer's VIP (IPv4) as destination, got 'not-an-ip'"),
    ({"ports": [0, 0]}, "ports: [0, 0] must be two different generator port numbers"),
    ({"ports": [0]}, "ports: [0] must be two different"),
    ({"ports": [0, -1]}, "ports: [0, -1] must be two different"),
    ({"rx_server": {"server": "gen", "ports": [0]}}, "ports: [0, 1] must be the one transmitting port, e.g. [0], when rx_server receives"),
    ({"ports": [0], "rx_server": {"server": "gen", "ports": []}}, "rx_server.ports: [] must list the receiving port numbers"),
    ({"ports": [0], "rx_server": {"server": "gen", "ports": [0], "sync_port": 0}}, "rx_server.sync_port: 0 is outside 1..65535; give a TCP port number"),
    ({"ports": [0], "rx_server": {"server": "", "ports": [0]}}, "rx_server.server: give the address"),
    ({"ports": [0], "rx_server": {"server": "gen", "ports": [0]}, "direction": "bidir"}, "direction: bidir needs both ports on one server"),
    ({"port_l3": [{"src": "10.0.0.1", "gateway": "10.0.0.2"}]}, "port_l3: 1 entries for 2 generator port(s)"),
    ({"port_l3": [{"src": "10.0.0.1", "gateway": "gw"}, {"src": "10.0.1.1", "gateway": "10.0.1.2"}]},
     "port_l3[0].gateway: 'gw' is not an IPv4 address"),
    ({"vlan": 4095}, "vlan: 4095 is outside 1..4094"),
    ({"vlan": True}, "vlan: True is outside 1..4094"),
    ({"max_load": 0}, "max_load: 0 must be the highest load to try"),
    ({"max_load": "inf"}, "max_load: inf must be the highest load"),
    ({"min_load": 2000000}, "min_load: 2000000 must be a load in frames/s in (0, max_load], max_load being 1000000"),
    ({"warmup_load": -1}, "warmup_load: -1 must be a load in frames/s in (0, max_load]"),
    ({"initial_duration": 20}, "initial_duration: 20 is longer than final_duration 10"),
    ({"final_duration": 0}, "final_duration: 0 must be a positive number of seconds"),
    ({"warmup_duration": -1}, "warmup_duration: -1 must be a number of seconds, 0 or more"),
    ({"settle": -0.5}, "settle: -0.5 must be a number of seconds, 0 or more"),
    ({"upper_bound_duration": 0.5}, "upper_bound_duration: 0.5 must be seconds between initial_duration (1) and final_duration (10)"),
    ({"upper_bound_duration": 11}, "upper_bound_duration: 11 must be seconds between"),
    ({"server": ""}, "server: give the generator's TRex server address"),
    ({"run_id": "../etc/passwd"}, "run_id: '../etc/passwd' must be letters, digits"),
    ({"direction": "bidir", "scenario": "lb", "lb_vip": "48.0.0.100"}, "direction: bidir is supported for scenario routing only"),
    ({"results_dir": ""}, "results_dir: give the directory"),
    ({"datapath": ""}, "datapath: give a label of the DUT's datapath"),
    ({"dut_interfaces": ["eth0", ""]}, "dut_interfaces: ['eth0', ''] must be a list of interface names"),
    ({"flows": 0}, "flows: 0 must be an integer in 1..16777216"),
    ({"destinations": 70000}, "destinations: 70000 must be an integer in 1..65536"),
    ({"src_base": "255.255.255.0", "flows": 1000}, "flows: 1000 sources from src_base 255.255.255.0 run past 255.255.255.255"),
    ({"dst_base": "255.255.255.250", "destinations": 10}, "destinations: 10 destinations from dst_base 255.255.255.250 run past"),
    ({"src_base": "16.0.0"}, "src_base: '16.0.0' is not an IPv4 address"),
    ({"sync_port": 70000}, "sync_port: 70000 is outside 1..65535; give a TCP port number"),
    ({"dst_port": 0}, "dst_port: 0 is outside 1..65535; give a UDP/TCP port number"),
    ({"max_trials": 0}, "max_trials: 0 must be a positive integer"),
    ({"retries": -1}, "retries: -1 must be a non-negative integer"),
    ({"repeat": 0}, "repeat: 0 must be a positive integer, the number of times each search runs"),
    ({"reconnects": -1}, "reconnects: -1 must be a non-negative integer, the reconnections to a lost generator per trial"),
    ({"reconnect_delay": 0}, "reconnect_delay: 0 must be a positive number of seconds"),
    ({"latency_loads": [0, 1.5]}, "latency_loads: [0, 1.5] must be a list of fractions of the PDR in (0, 1]"),
    ({"latency_pps": -1}, "latency_pps: -1 must be a rate in frames/s above 0"),
    ({"latency_duration": 0}, "latency_duration: 0 must be a positive number of seconds"),
    ({"latency_pg_id": 70000}, "latency_pg_id: 70000 must be an integer in 0..60000"),
])
def test_bad_values_are_named_with_the_fix(overrides, needle):
    errors = errors_of(**overrides)
    assert any(needle in error for error in errors), errors


# ---------------------------------------------------------------------------
# flows: one count or a list of counts (flow scale)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("flows, expected", [
    (1000, 1000),
    ("1000", 1000),
    (4096.0, 4096),
    ([1000, 100000, 1048576], [1000, 100000, 1048576]),
    (["1000", 64000], [1000, 64000]),
    ([1], [1]),
    ([1 << 24, 1], [1 << 24, 1]),
])
def test_flows_is_a_count_or_a_list_of_counts(flows, expected):
    args = args_of(flows=flows)
    assert args["flows"] == expected and type(args["flows"]) is type(expected)
    assert spec.flow_counts(args) == (expected if isinstance(expected, list) else [expected])
    assert spec.flow_list(args) is isinstance(expected, list)


@pytest.mark.parametrize("flows, needles", [
    (1.5, ["flows: 1.5 must be an integer in 1..16777216, or a list of them"]),
    ("many", ["flows: 'many' must be an integer in 1..16777216"]),
    (True, ["flows: True must be an integer"]),
    ([], ["flows: [] lists no flow count; give an integer in 1..16777216"]),
    ([1000, 0, 2000], ["flows[1]: 0 must be an integer in 1..16777216, the number of source addresses of that search"]),
    ([1000, 1 << 25], ["flows[1]: 33554432 must be an integer in 1..16777216"]),
    ([1000, "lots", 1000, 2.5], ["flows[1]: 'lots' must be an integer", "flows[2]: 1000 is flows[0] again; list each flow count once",
                                 "flows[3]: 2.5 must be an integer"]),
    ([{"count": 5}], ["flows[0]: {'count': 5} must be an integer"]),
])
def test_bad_flow_counts_are_named_each_with_the_fix(flows, needles):
    errors = errors_of(flows=flows)
    flow_errors = [error for error in errors if error.startswith("flows")]
    assert len(flow_errors) == len(needles), errors
    for needle, error in zip(needles, flow_errors):
        assert needle in error, errors


def test_the_largest_flow_count_is_checked_against_the_address_space():
    errors = errors_of(src_base="255.255.0.0", flows=[1000, 1 << 20, 10])
    assert "flows[1]: 1048576 sources from src_base 255.255.0.0 run past 255.255.255.255" in errors
    args_of(src_base="255.255.0.0", flows=[1000, 65536])


def test_flow_count_errors_come_with_the_others_at_once():
    errors = errors_of(flows=[0, 5, 5], vlan=5000, width=1)
    assert [error.split(":")[0] for error in errors] == ["vlan", "flows[0]", "flows[2]", "width"]


def test_testpmd_refuses_imix():
    assert spec.testpmd_traffic_errors(args_of(frame_sizes=[64], flows=1)) == []
    assert spec.testpmd_traffic_errors(args_of(frame_sizes=[64, "imix"], flows=1)) == [
        "frame_sizes: imix is not supported by generator testpmd (txonly sends one frame size); give sizes in bytes, or use generator trex"]


def test_testpmd_accepts_one_flow_in_either_form():
    assert spec.testpmd_traffic_errors(args_of(flows=[1])) == []
    assert spec.testpmd_traffic_errors(args_of(flows=1)) == []
    assert any(error.startswith("flows: [1, 1000] (destinations 1) with generator testpmd")
               for error in spec.testpmd_traffic_errors(args_of(flows=[1, 1000])))


def test_every_problem_is_reported_at_once():
    errors = errors_of(frame_sizes=[10], vlan=5000, flows=0, width=1, latency_pps=0, run_id="a b")
    assert [error.split(":")[0] for error in errors] == ["frame_sizes", "vlan", "flows", "width", "latency_pps", "run_id"]


def test_limits_themselves_are_good():
    args_of(frame_sizes=[64, 9216], flows=1 << 24, destinations=1 << 16, vlan=4094, width=0.499, min_load=1000000, warmup_load=1000000,
            upper_bound_duration=10, latency_loads=[1.0], latency_pg_id=60000, warmup_duration=0, settle=0, reconnects=0, retries=0)
    args_of(src_base="255.255.255.0", flows=256, scenario="nat", nat_address="10.0.0.1", dst_base="255.255.255.255", destinations=1)
    args_of(ports=[2], rx_server={"server": "gen", "ports": [0, 1, 2]}, port_l3=[{"src": "10.0.0.1", "gateway": "10.0.0.2"}])
    args_of(client="trex", client_path="/opt/trex", latency_loads=[], goals=[{"name": "ndr", "loss_ratio": 0}])


def test_nat_and_lb_addresses_are_only_needed_by_their_scenario():
    assert errors_of(scenario="routing", nat_address="not-checked-here") == []
    assert errors_of(scenario="nat", nat_address="10.0.0.1", lb_vip=None) == []


# ---------------------------------------------------------------------------
# the documentation agrees with the argument spec
# ---------------------------------------------------------------------------

def _canonical(value):
    """A default as a comparable value: numbers as floats (YAML 10 is the spec's 10.0), bools apart."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_canonical(item) for item in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((key, _canonical(item)) for key, item in value.items())))
    return ("value", value)


def doc_differences(documented, argument_spec, where=""):
    """Where DOCUMENTATION's options and an argument spec differ, recursively into suboptions."""
    differences = []
    for name in sorted(set(documented) | set(argument_spec)):
        path = where + name
        if name not in argument_spec:
            differences.append("%s: documented, not in the argument spec" % path)
            continue
        if name not in documented:
            differences.append("%s: in the argument spec, not documented" % path)
            continue
        doc, arg = documented[name], argument_spec[name]
        if not doc.get("description"):
            differences.append("%s: no description" % path)
        for key, unset in (("type", "str"), ("elements", None), ("choices", None), ("required", False)):
            if doc.get(key, unset) != arg.get(key, unset):
                differences.append("%s: %s %r documented, %r in the argument spec" % (path, key, doc.get(key, unset), arg.get(key, unset)))
        if "default" in doc or "default" in arg:
            if _canonical(doc.get("default")) != _canonical(arg.get("default")):
                differences.append("%s: default %r documented, %r in the argument spec" % (path, doc.get("default"), arg.get("default")))
            if arg.get("required"):
                differences.append("%s: required with a default" % path)
        differences.extend(doc_differences(doc.get("suboptions") or {}, arg.get("options") or {}, path + "."))
    return differences


def documented_options():
    """The module's options and those of the doc fragment it extends with (``offload.testbed.bench.traffic``)."""
    options = yaml.safe_load(trex_bench_doc.DOCUMENTATION)["options"]
    options.update(yaml.safe_load(bench_doc.ModuleDocFragment.TRAFFIC)["options"])
    return options


def test_documentation_agrees_with_the_argument_spec():
    assert doc_differences(documented_options(), spec.argument_spec()) == []


@pytest.mark.parametrize("mutate, needle", [
    (lambda doc: doc["width"].update(default=0.01), "width: default 0.01 documented"),
    (lambda doc: doc["max_load"].update(required=True), "max_load: required True documented"),
    (lambda doc: doc["flows"].update(type="float"), "flows: type 'float' documented"),
    (lambda doc: doc["frame_sizes"].update(elements="str"), "frame_sizes: elements 'str' documented"),
    (lambda doc: doc["scenario"].update(choices=["routing", "nat"]), "scenario: choices"),
    (lambda doc: doc["dut_health"].update(default="yes"), "dut_health: default 'yes' documented"),
    (lambda doc: doc.pop("reconnects"), "reconnects: in the argument spec, not documented"),
    (lambda doc: doc.update(colour={"description": "x", "type": "str"}), "colour: documented, not in the argument spec"),
    (lambda doc: doc["rx_server"]["suboptions"]["sync_port"].update(default=4511), "rx_server.sync_port: default 4511"),
    (lambda doc: doc["rx_server"]["suboptions"]["ports"].pop("required"), "rx_server.ports: required False documented"),
    (lambda doc: doc["port_l3"].pop("suboptions"), "port_l3.src: in the argument spec, not documented"),
    (lambda doc: doc["goals"]["default"][1].update(loss_ratio=0.0001), "goals: default"),
    (lambda doc: doc["goals"]["suboptions"]["loss_ratio"].update(type="str"), "goals.loss_ratio: type 'str' documented"),
    (lambda doc: doc["latency_loads"].pop("default"), "latency_loads: default None documented"),
])
def test_a_difference_between_documentation_and_spec_is_found(mutate, needle):
    doc = copy.deepcopy(documented_options())
    mutate(doc)
    differences = doc_differences(doc, spec.argument_spec())
    assert any(needle in item for item in differences), differences


# ---------------------------------------------------------------------------
# the playbooks write no default of the action again
# ---------------------------------------------------------------------------

ACTION_NAMES = ("offload.testbed.trex_bench", "trex_bench")
# Literal defaults that are not a second writing of the action's default:
# {} is what the playbook's own metadata (inventory_hostname) is combined into;
# 'unknown' is the label when neither bench_datapath nor ovs_datapath is set,
# which the playbook needs itself to name the run ids (<datapath>-<scenario>-<protocol>).
NOT_A_DEFAULT = {("metadata", "{}"), ("datapath", "'unknown'")}
_JINJA_CONSTANTS = {"true": True, "false": False, "none": None, "True": True, "False": False, "None": None}


def _call_argument(text, start):
    """The first argument of the call whose '(' is at ``start - 1``: up to the top-level ',' or ')'."""
    depth, quote, index = 0, None, start
    while index < len(text):
        char = text[index]
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            break
        index += 1
    return text[start:index].strip()


def literal_defaults(value):
    """The literal arguments of the ``default(...)`` filters in a templated value."""
    found = []
    for match in re.finditer(r"\bdefault\s*\(", value):
        argument = _call_argument(value, match.end())
        if argument in _JINJA_CONSTANTS:
            found.append(argument)
            continue
        try:
            ast.literal_eval(argument)
        except (ValueError, SyntaxError):
            continue
        found.append(argument)
    return found


def _tasks(items, play_vars):
    for item in items or []:
        if not isinstance(item, dict):
            continue
        for key in ("tasks", "pre_tasks", "post_tasks", "handlers", "block", "rescue", "always"):
            yield from _tasks(item.get(key), dict(play_vars, **(item.get("vars") or {})) if key in ("block", "rescue", "always") else play_vars)
        if any(name in item for name in ACTION_NAMES):
            yield item, dict(play_vars, **(item.get("vars") or {}))


def bench_tasks():
    """(playbook, task name, arguments, variables of its play and task) of every trex_bench task of playbooks/*.yml
    and of the task files in playbooks/tasks (benchmark.yml's play imports its tasks from tasks/benchmark.yml)."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "playbooks", "*.yml")) + glob.glob(os.path.join(ROOT, "playbooks", "tasks", "*.yml"))):
        with open(path) as handle:
            items = yaml.safe_load(handle) or []
        for play in items:
            for task, variables in _tasks([play], play.get("vars") or {}):
                arguments = next(task[name] for name in ACTION_NAMES if name in task)
                found.append((os.path.relpath(path, os.path.join(ROOT, "playbooks")), task.get("name"), arguments, variables))
    return found


def _resolved(value, variables):
    """The value, or the play or task variable it is exactly (``"{{ __bench_datapath }}"``)."""
    match = re.match(r"^\{\{\s*(\w+)\s*\}\}$", value)
    if match and isinstance(variables.get(match.group(1)), str):
        return variables[match.group(1)]
    return value


def test_the_detector_finds_literal_defaults():
    assert literal_defaults("{{ bench_width | default(0.005) }}") == ["0.005"]
    assert literal_defaults("{{ __v.sync_port | default(bench_sync_port | default(4501)) }}") == ["4501"]
    assert literal_defaults("{{ bench_client | default('trex_stl_lib') }}") == ["'trex_stl_lib'"]
    assert literal_defaults("{{ bench_ports | default([0, 1]) }}") == ["[0, 1]"]
    assert literal_defaults("{{ bench_health | default(true) }}") == ["true"]
    assert literal_defaults("{{ bench_x | default(omit) }}") == []
    assert literal_defaults("{{ bench_results_dir | default(playbook_dir ~ '/../results') }}") == []
    assert literal_defaults("{{ bench_client_path | default(__bench_generator_client, true) or omit }}") == []


def test_playbooks_give_the_action_no_default_of_its_own():
    argument_spec = spec.argument_spec()
    tasks = bench_tasks()
    assert [(playbook, len(arguments) > 20) for playbook, _name, arguments, _vars in tasks] == [("tasks/benchmark.yml", True)]
    twice = []
    for playbook, name, arguments, variables in tasks:
        for option, value in arguments.items():
            assert option in argument_spec, "%s: task %r passes %s, which trex_bench does not have" % (playbook, name, option)
            if "default" not in argument_spec[option] or not isinstance(value, str):
                continue
            value = _resolved(value, variables)
            twice.extend("%s: task %r: %s: %s | default(%s)" % (playbook, name, option, value, literal)
                         for literal in literal_defaults(value) if (option, literal) not in NOT_A_DEFAULT)
    assert twice == [], "defaults written again (pass default(omit): the action has the default):\n" + "\n".join(twice)


def test_bench_variables_are_passed_to_their_option_and_documented():
    with open(os.path.join(ROOT, "playbooks", "benchmark.yml")) as handle:
        text = handle.read()
    header = "".join(line for line in text.splitlines(True) if line.startswith("#"))
    for _playbook, _name, arguments, _vars in bench_tasks():
        for option, value in arguments.items():
            match = re.match(r"^\{\{ bench_(\w+) \| default\(omit\) \}\}$", str(value))
            if match:
                assert match.group(1) == option, (option, value)
    # the play's tasks are in tasks/benchmark.yml: its variables are documented in the play's header
    with open(os.path.join(ROOT, "playbooks", "tasks", "benchmark.yml")) as handle:
        text += handle.read()
    for name in ("repeat", "reconnects", "reconnect_delay"):
        assert "{{ bench_%s | default(omit) }}" % name in text
    body = "".join(line for line in text.splitlines(True) if not line.startswith("#"))
    used = set(re.findall(r"\bbench_\w+", body)) - set(re.findall(r"register: (\w+)", body))
    undocumented = sorted(name for name in used if not re.search(r"\b%s\b" % name, header))
    assert undocumented == [], "variables of benchmark.yml missing from its header comment: %s" % undocumented
