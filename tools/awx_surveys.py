"""Write the AWX surveys of extensions/awx/configure.yml from the bench's and the roles' argument specs.

Usage: python tools/awx_surveys.py           write extensions/awx/surveys/*.json
       python tools/awx_surveys.py --check   exit 1, naming the files, when one is out of date

Every choice and range of a survey question comes from a spec, never from
this file: the scenarios, protocols, frame size range, the action's default
frame sizes and goals from ``trex_bench``'s argument spec
(plugins/plugin_utils/bench/spec.py), the smallest ``repeat`` and the run id
pattern from its checks (``spec.check``), the datapaths from the ``ovs``
role's ``ovs_datapath`` choices (roles/ovs/meta/argument_specs.yml).
tests/unit/extensions/test_awx.py fails when the files differ from what this
writes, and checks each question against the specs read on their own.

Each ``<survey>.json`` is an AWX ``survey_spec`` ({name, description, spec}).
No question is required and none has a default AWX would apply: a question
left empty passes no variable, so the inventory's value (else the
playbook's or the action's default) applies. ``goal_presets.json`` is the
action's default goals, the list the job templates pick the
``awx_bench_goals`` answer's goals from into ``bench_goals`` (the action
takes goals as {name, loss_ratio}).
"""
import importlib.util
import json
import os
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
SURVEYS_DIR = os.path.join(ROOT, "extensions", "awx", "surveys")
# The frame sizes of RFC 2544 (section 9.1) for Ethernet; the survey offers those inside the action's range.
RFC2544_FRAME_SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
# The longest suffix a run id takes after <datapath>-<scenario>-<protocol> (run ids are at most 128 characters).
RUN_SUFFIX_MAX = 64
# How the compare survey writes a pair of datapaths: "<A> against <B>" (the report shows A / B).
AGAINST = " against "
INVENTORY_CHOICE_NOTE = "Empty: the inventory's value, else the playbook's default."


def smallest_repeat(spec):
    """The smallest ``repeat`` the action's checks accept (they bound it from below only)."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    for repeat in range(0, 100):
        result = ArgumentSpecValidator(spec.argument_spec()).validate({"results_dir": "/tmp/results", "repeat": repeat})
        _args, errors = spec.check(result.validated_parameters)
        if not [error for error in errors if error.startswith("repeat:")]:
            return repeat
    raise ValueError("trex_bench accepts no repeat in 0..99")


def load_specs():
    """What the surveys offer, read from the specs."""
    _COLLECTION_LINK.link_collection(ROOT)
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec

    bench = spec.argument_spec()
    with open(os.path.join(ROOT, "roles", "ovs", "meta", "argument_specs.yml")) as handle:
        ovs = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
    return {
        "scenarios": list(bench["scenario"]["choices"]),
        "protocols": list(bench["protocol"]["choices"]),
        "frame_range": (spec.MIN_FRAME, spec.MAX_FRAME),
        "default_frame_sizes": list(bench["frame_sizes"]["default"]),
        # the frame mixes the action names (TRex's IMIX), offered after the sizes
        "frame_mixes": [spec.units.IMIX],
        "goals": [dict(goal) for goal in bench["goals"]["default"]],
        "repeat_min": smallest_repeat(spec),
        "datapaths": list(ovs["ovs_datapath"]["choices"]),
        "datapath_default": ovs["ovs_datapath"]["default"],
    }


def _choice(variable, name, description, choices, multiple=False):
    # "default": "" is what AWX's own survey editor writes for no default; the API never applies it to a
    # (multiple) choice question (it is not a choice), and the UI needs the key to show the question.
    return {"question_name": name, "question_description": description, "variable": variable, "required": False,
            "type": "multiselect" if multiple else "multiplechoice", "choices": [str(choice) for choice in choices], "default": ""}


def frame_size_choices(specs):
    low, high = specs["frame_range"]
    sizes = sorted(size for size in set(RFC2544_FRAME_SIZES) | set(specs["default_frame_sizes"]) if low <= size <= high)
    return sizes + list(specs["frame_mixes"])


def bench_questions(specs):
    """The questions of every template that runs the benchmark matrix."""
    goals = ", ".join("%s (loss ratio %g)" % (goal["name"], goal["loss_ratio"]) for goal in specs["goals"])
    defaults = ", ".join(str(size) for size in specs["default_frame_sizes"])
    low, high = specs["frame_range"]
    return [
        _choice("bench_scenarios", "Scenarios", "OVN routing, NAT, load balancing (bench_scenarios). " + INVENTORY_CHOICE_NOTE,
                specs["scenarios"], multiple=True),
        _choice("bench_protocols", "Protocols", "Transport of the frames (bench_protocols). " + INVENTORY_CHOICE_NOTE,
                specs["protocols"], multiple=True),
        _choice("bench_frame_sizes", "Frame sizes (bytes)",
                "Ethernet frame sizes with FCS, one search each (bench_frame_sizes; the bench takes %d..%d), or %s, TRex's mix of "
                "64, 594 and 1518-byte frames at 28:16:4. Empty: the inventory's, else %s." % (low, high, " or ".join(specs["frame_mixes"]), defaults),
                frame_size_choices(specs), multiple=True),
        _choice("awx_bench_goals", "Goals", "Loss-ratio goals searched together (bench_goals): %s. Empty: all of them." % goals,
                [goal["name"] for goal in specs["goals"]], multiple=True),
        {"question_name": "Repeats", "variable": "bench_repeat", "type": "integer", "required": False, "min": specs["repeat_min"],
         "question_description": "Times each search runs; the bounds are the median of the repeats and their spread (bench_repeat, "
                                 "%d or more; 3 or more to see the spread). Empty: the inventory's, else 1." % specs["repeat_min"]},
        {"question_name": "Run id suffix", "variable": "awx_bench_run_suffix", "type": "text", "required": False, "min": 0,
         "max": RUN_SUFFIX_MAX, "default": "",
         "question_description": "Appended to the run ids <datapath>-<scenario>-<protocol> (bench_run_suffix): letters, digits, '.', "
                                 "'_', '-'. Empty: -awx<job id>, a new run. Give a stopped job's suffix to resume its runs."},
    ]


def datapath_question(specs, variable, description):
    return _choice(variable, "Datapath", description, specs["datapaths"])


def compare_pairs(specs):
    return [first + AGAINST + second for first in specs["datapaths"] for second in specs["datapaths"] if first != second]


def surveys(specs):
    """{template: survey_spec}."""
    provision = datapath_question(specs, "ovs_datapath", "Datapath of every bridge on the chassis (ovs_datapath; the ovs role's "
                                  "choices, its default %s). %s" % (specs["datapath_default"], INVENTORY_CHOICE_NOTE))
    label = datapath_question(specs, "bench_datapath", "Label of the results and first part of the run ids: the datapath the DUT "
                              "has now (bench_datapath). Empty: the inventory's ovs_datapath.")
    compare = [
        _choice("awx_bench_compare", "Datapaths compared",
                "Two datapaths, A against B (bench_compare_pair; the report shows A / B). Empty: the inventory's "
                "bench_compare_variants, else doca against system. A pair given wins over the inventory's variants for this job.", compare_pairs(specs)),
        _choice("bench_compare_goal", "Goal compared", "Goal whose lower bounds are divided (bench_compare_goal). Empty: pdr.",
                [goal["name"] for goal in specs["goals"]]),
    ]
    questions = {
        "provision": [provision],
        "site": [provision] + bench_questions(specs),
        "benchmark": [label] + bench_questions(specs),
        "compare": compare + bench_questions(specs),
        "workflow": [provision] + bench_questions(specs),
    }
    return dict((name, {"name": "offload.testbed %s" % name, "spec": spec,
                        "description": "Generated by tools/awx_surveys.py from the trex_bench and ovs argument specs."})
                for name, spec in questions.items())


def render(specs=None):
    """{path relative to ROOT: file text}."""
    specs = specs or load_specs()
    files = {}
    for name, survey in sorted(surveys(specs).items()):
        files[os.path.join("extensions", "awx", "surveys", name + ".json")] = json.dumps(survey, indent=2, sort_keys=True) + "\n"
    files[os.path.join("extensions", "awx", "surveys", "goal_presets.json")] = json.dumps(specs["goals"], indent=2, sort_keys=True) + "\n"
    return files


def main(argv):
    check = "--check" in argv
    stale = []
    for path, text in sorted(render().items()):
        full = os.path.join(ROOT, path)
        current = None
        if os.path.exists(full):
            with open(full) as handle:
                current = handle.read()
        if current == text:
            continue
        stale.append(path)
        if not check:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as handle:
                handle.write(text)
    for path in stale:
        print("%s %s" % ("out of date:" if check else "wrote", path))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
