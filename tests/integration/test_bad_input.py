"""The bad-input corpus: every role and module refuses each bad value of
tests/integration/bad_input/cases.yml before it changes anything, and says
which variable is wrong.

All cases run in ONE ansible-playbook (bad_input/play.yml, free strategy),
one inventory host per case, each host with an emulated world of its own
(the fake sysfs and procfs of tests/emulators/grubby/fake_host.py, the cards,
packages and images of tests/emulators/host/make_world.py, the emulators
first on PATH) and, for the roles and modules that write Open vSwitch or OVN
databases, a private ovsdb-server the case's tools are pointed at (its dump
is compared before and after). The set-up a case starts from is in
bad_input/targets.yml: one inventory group per set-up, its variables as
group variables, a case's own values as host variables.

For each case the test asserts that the run was refused (not accepted, not
crashed), that nothing changed (every file of the world hashed with its mode,
the emulators' call logs, the database dumps, the namespaces, interfaces and
processes of this machine) and that the message names the variable as the
user wrote it and shows the bad value. Whatever a case created on this
machine is removed at the end; test_machine_left_as_found checks it.

BI_CONTROLS=1 adds one control case per set-up (setup-NAME), with nothing
bad in it: each must be seen to change its world or run to its end, which
shows that the set-up is valid and that the harness sees a change.
BI_WORKDIR=DIR keeps the worlds, the inventory and the log of
ansible-playbook in DIR; BI_TIMING=1 prints where the time went. Selecting
cases (-k, node ids) runs only those.
"""
import collections
import hashlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "tests", "integration", "bad_input")
EMULATORS = os.path.join(ROOT, "tests", "emulators")
STUBS = os.path.join(CORPUS, "stubs")
BIN = os.path.dirname(sys.executable)
FORKS = 8
# The whole run; a case's task is stopped after 120 s (play.yml).
RUN_TIMEOUT = 900
KERNEL_RELEASE = "5.14.0-611.47.1.sl9_7^2.x86_64"
# Directories of the emulated host the host roles write into (roles/virtual_lab/vars/main.yml).
WORLD_DIRS = ("etc/NetworkManager/conf.d", "etc/systemd/system", "etc/default/grub.d", "usr/local/sbin",
              "var/lib/offload-testbed", "var/tmp/offload-testbed", "state", "run", "var/log", "var/crash")
SCHEMAS = {"ovs": "/usr/share/openvswitch/vswitch.ovsschema", "nb": "/usr/share/ovn/ovn-nb.ovsschema"}
SOCKETS = {"ovs": "db.sock", "nb": "nb.sock"}
# Lines of the emulators' call logs that only read (the grubby, devlink and ip emulators log every call).
READ_ONLY_CALL = re.compile(r"^(--info=|--default-kernel)|^(devlink|ip)( -j)? .*\bshow\b")
# What a failure says when the code broke instead of refusing.
CRASH = re.compile(r"^Task failed: |The (filter|lookup|test) plugin '[^']*' failed|Traceback \(most recent call last\)|MODULE FAILURE|"
                   r"\b(KeyError|TypeError|ValueError|AttributeError|IndexError|"
                   r"NameError|UnboundLocalError|ZeroDivisionError|RecursionError|AssertionError|AnsibleUndefinedVariable)\b|"
                   r"has no attribute|is undefined|Error while resolving|unexpected templating|object of type|not subscriptable|"
                   r"not iterable|unsupported operand|invalid literal for|Unexpected failure during module execution|"
                   r"Unexpected exception|could not be converted to")


def _load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FAKE_HOST = _load_module("bi_fake_host", os.path.join(EMULATORS, "grubby", "fake_host.py"))
MAKE_WORLD = _load_module("bi_make_world", os.path.join(EMULATORS, "host", "make_world.py"))


def _yaml(name):
    with open(os.path.join(CORPUS, name)) as handle:
        return yaml.safe_load(handle)


TARGETS = _yaml("targets.yml")
CASES = _yaml("cases.yml")
if os.environ.get("BI_CONTROLS") == "1":
    CASES = CASES + [{"id": "setup-" + name.replace("_", "-"), "target": name, "control": True,
                      "why": "the set-up alone: it must change its world"} for name in TARGETS]


# ---------------------------------------------------------------- the cases

def target_of(case):
    return TARGETS[case["target"]]


def target_name(case):
    """The role or module a case runs (what the report counts cases by)."""
    target = target_of(case)
    return ("role " + target["role"]) if "role" in target else ("module " + target["module"])


def substitute(value, tag):
    """``@@`` -> the case's own name (bi007), everywhere in a case."""
    if isinstance(value, str):
        return value.replace("@@", tag)
    if isinstance(value, list):
        return [substitute(item, tag) for item in value]
    if isinstance(value, dict):
        return dict((substitute(key, tag), substitute(item, tag)) for key, item in value.items())
    return value


PATH_STEP = re.compile(r"\.?([^.\[\]]+)|\[(\d+)\]")


def set_path(variables, path, value):
    """``routers[0].nat[0].external_ip`` = value, in place, into a copy of the set-up's variables."""
    steps = [(name, int(index) if index else None) for name, index in PATH_STEP.findall(path)]
    here = variables
    for position, (name, index) in enumerate(steps):
        key = name if name else index
        last = position == len(steps) - 1
        if last:
            here[key] = value
        else:
            here = here[key]


def case_overrides(case, tag):
    """The variables a case sets, whole: its ``vars``, and each set-up variable its ``set`` changes deep inside."""
    overrides = substitute(case.get("vars") or {}, tag)
    for path, value in (case.get("set") or {}).items():
        path = substitute(path, tag)
        name = PATH_STEP.match(path).group(1)
        if name not in overrides:
            overrides[name] = _deep_copy(substitute((target_of(case).get("vars") or {})[name], tag))
        set_path(overrides, path, substitute(value, tag))
    return overrides


def _deep_copy(value):
    if isinstance(value, list):
        return [_deep_copy(item) for item in value]
    if isinstance(value, dict):
        return dict((key, _deep_copy(item)) for key, item in value.items())
    return value


def what_the_case_sets(case):
    parts = ["%s=%s" % (name, json.dumps(value)) for name, value in sorted((case.get("vars") or {}).items())]
    parts += ["%s=%s" % (path, json.dumps(value)) for path, value in sorted((case.get("set") or {}).items())]
    return ", ".join(parts) or "nothing"


# ---------------------------------------------------------------- worlds and sandboxes

def build_world(world, target):
    """The emulated host of one case: the role's directories and what the set-up asks for (targets.yml, world)."""
    os.makedirs(world)
    if "fake_host" in target.get("world", ()):
        # 16 CPUs on two NUMA nodes, 64 GB, the PF enp8s0f1np1 with 8 VFs; grubby's boot entries
        FAKE_HOST.build(world)
        # (the grubby emulator copies its fixture on first use: a read would look like a change)
        os.makedirs(os.path.join(world, "state", "grubby"))
        with open(os.path.join(ROOT, "tests", "fixtures", "grubby_info_all_fedora37.txt")) as src, \
                open(os.path.join(world, "state", "grubby", "info.txt"), "w") as dst:
            dst.write(src.read())
    if "make_world" in target.get("world", ()):
        # two ConnectX cards, DOCA's packages for dnf, firmware images on the "controller"
        MAKE_WORLD.main(["make_world.py", world, EMULATORS, KERNEL_RELEASE, "dnf"])
    for directory in WORLD_DIRS + tuple(target.get("world_dirs") or ()):
        os.makedirs(os.path.join(world, directory), exist_ok=True)
    for path, content in (target.get("world_files") or {}).items():
        full = os.path.join(world, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as handle:
            handle.write(content)
        if content.startswith("#!"):
            os.chmod(full, 0o755)


def fingerprint(world):
    """Every file, directory and link under ``world``: {relative path: (kind, mode, content hash or target)}."""
    entries = {}
    for directory, dirs, files in os.walk(world):
        for name in dirs + files:
            full = os.path.join(directory, name)
            rel = os.path.relpath(full, world)
            info = os.lstat(full)
            mode = "%o" % (info.st_mode & 0o7777)
            if os.path.islink(full):
                entries[rel] = ("link", mode, os.readlink(full))
            elif os.path.isdir(full):
                entries[rel] = ("dir", mode, "")
            elif os.path.isfile(full):
                with open(full, "rb") as handle:
                    entries[rel] = ("file", mode, hashlib.sha256(handle.read()).hexdigest())
            else:
                entries[rel] = ("special", mode, "")
    return entries


def call_log_lines(world, rel):
    try:
        with open(os.path.join(world, rel)) as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def world_changes(world, before, after, logs_before):
    """What changed in a world, in words; the emulators' call logs count only for calls that change something."""
    changes = []
    logs = set(rel for rel in set(before) | set(after) if os.path.basename(rel) == "calls.log")
    for rel in sorted(set(before) | set(after)):
        if rel in logs:
            continue
        if rel not in before:
            changes.append("created %s" % rel)
        elif rel not in after:
            changes.append("removed %s" % rel)
        elif before[rel] != after[rel]:
            changes.append("%s %s" % ("changed the mode of" if before[rel][2] == after[rel][2] else "modified", rel))
    for rel in sorted(logs):
        new = call_log_lines(world, rel)[len(logs_before.get(rel, [])):]
        changes.extend("ran %s" % line for line in new if not READ_ONLY_CALL.search(line))
    return changes


def start_ovsdb(directory, kind, external_ids=None):
    """A private ovsdb-server in ``directory`` with the Open_vSwitch (``ovs``) or Northbound (``nb``) schema."""
    os.makedirs(directory, exist_ok=True)
    db = os.path.join(directory, "conf.db")
    sock = os.path.join(directory, SOCKETS[kind])
    subprocess.run(["ovsdb-tool", "create", db, SCHEMAS[kind]], check=True, capture_output=True)
    subprocess.run(["ovsdb-server", "--detach", "--no-chdir", "--pidfile=" + os.path.join(directory, "ovsdb-server.pid"),
                    "--unixctl=" + os.path.join(directory, "ovsdb-server.ctl"), "--remote=punix:" + sock,
                    "--log-file=" + os.path.join(directory, "ovsdb-server.log"), db], check=True, capture_output=True)
    for _attempt in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    if kind == "ovs":
        argv = ["ovs-vsctl", "--db=unix:" + sock, "--no-wait", "init"]
        if external_ids:
            argv += ["--", "set", "Open_vSwitch", "."]
            argv += ["external_ids:%s=%s" % (key, json.dumps(str(value))) for key, value in sorted(external_ids.items())]
        subprocess.run(argv, check=True, capture_output=True)
    return sock


def dump(sock):
    run = subprocess.run(["ovsdb-client", "dump", "unix:" + sock], capture_output=True, text=True, check=False)
    return run.stdout if run.returncode == 0 else "ovsdb-client dump failed: %s" % run.stderr.strip()


def pid_of(pidfile):
    try:
        with open(pidfile) as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def alive(pid):
    """Whether ``pid`` runs (a zombie nobody reaps does not)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def stop(pid):
    if pid is None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except OSError:
            return
        for _attempt in range(50):
            if not alive(pid):
                return
            time.sleep(0.02)


# ---------------------------------------------------------------- this machine

def namespaces():
    run = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    return set(line.split()[0] for line in run.stdout.splitlines() if line.strip())


def links():
    run = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=False)
    return set(line.split(":")[1].strip().split("@")[0] for line in run.stdout.splitlines() if ":" in line)


def processes(base):
    """{pid: command line} of the processes that run in or from ``base``."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
            cwd = os.readlink("/proc/%s/cwd" % name)
        except OSError:
            continue
        if base in cmdline or cwd.startswith(base):
            found[int(name)] = cmdline or "[%s]" % name
    return found


def machine(base):
    return {"namespaces": namespaces(), "links": links(), "processes": processes(base)}


# ---------------------------------------------------------------- the run

class Run(collections.namedtuple("Run", "outcomes changes seconds log base machine_before worlds ovsdb_pids")):
    """What the one run of the corpus did (a short repr: pytest shows it with every failure)."""

    def __repr__(self):
        return "<the bad-input run: %d cases in %.0f s, in %s>" % (len(self.worlds), self.seconds, self.base)


# What issue 15 asks the corpus to cover, each with several cases.
EVERY_TARGET = ["role " + name for name in ("boot_params", "doca_host", "nic_firmware", "ovn_build", "ovn_central", "ovn_controller",
                                            "ovs", "sriov_switchdev", "trex_server", "virtual_lab")] + ["module ovn_topology", "module trex_bench"]
# The names a case gives what it creates (@@ in the cases).
TAG = re.compile(r"bi\d{3}")


def selected_cases(request):
    """The cases of the tests pytest runs (all of them, unless -k or a node id chose some)."""
    ids = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if item.module is request.module and callspec is not None and "case" in callspec.params:
            ids.add(callspec.params["case"]["id"])
    return [case for case in CASES if case["id"] in ids] or CASES


def environment(target):
    """The environment of a set-up's cases (templates of the host's bi_world and bi_sandbox)."""
    world, sandbox = "{{ bi_world }}", "{{ bi_sandbox }}"
    path = [STUBS if entry == "stubs" else os.path.join(EMULATORS, entry) for entry in target.get("path") or []]
    return {
        "PATH": ":".join(path + [BIN, os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")]),
        "OFFLOAD_EMU_STATE": os.path.join(world, "state"),
        "OFFLOAD_EMU_SYSFS": os.path.join(world, "sys"),
        "DOCA_EMU_STATE": os.path.join(world, "state", "doca"),
        "DOCA_EMU_REPOSDIR": os.path.join(world, "etc", "yum.repos.d"),
        "DOCA_EMU_APT_SOURCES": os.path.join(world, "etc", "apt", "sources.list.d"),
        "DOCA_EMU_MODULES_DIR": os.path.join(world, "usr", "share", "doca-host-26.01-1.0.0.0", "Modules"),
        "DOCA_EMU_KERNEL_RELEASE": KERNEL_RELEASE,
        "MLNX_EMU_STATE": os.path.join(world, "state", "mlnx"),
        "BI_STUB_LOG": os.path.join(world, "state", "stub-calls.log"),
        # Open vSwitch and OVN tools find their databases and daemons here, never the machine's.
        "OVS_RUNDIR": sandbox if target.get("sandbox") == "ovs" else os.path.join(world, "run", "openvswitch"),
        "OVS_DBDIR": os.path.join(world, "var", "lib", "openvswitch"),
        "OVS_LOGDIR": os.path.join(world, "var", "log", "openvswitch"),
        "OVN_RUNDIR": os.path.join(world, "run", "ovn"),
        "OVN_DBDIR": os.path.join(world, "var", "lib", "ovn"),
        "OVN_LOGDIR": os.path.join(world, "var", "log", "ovn"),
    }


def inventory_of(groups, results):
    """One group per set-up (its variables, with @@ the host's bi_tag), one host per case (what it changes)."""
    children = {}
    for name, hosts in groups.items():
        target = TARGETS[name]
        variables = substitute(target.get("vars") or {}, "{{ bi_tag }}")
        group_vars = {"bi_kind": "role" if "role" in target else "module", "bi_target": target.get("role") or target["module"],
                      "bi_environment": environment(target)}
        if "role" in target:
            group_vars.update(variables)
        else:
            group_vars["bi_base_args"] = variables
        children["setup_" + name] = {"vars": group_vars, "hosts": hosts}
    return {"all": {"vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable, "bi_results": results,
                             "bi_emulators": EMULATORS, "bi_stubs": STUBS, "bi_python": sys.executable},
                    "children": children}}


@pytest.fixture(scope="module")
def corpus(request, playbook_env, tmp_path_factory):
    """Run the selected cases in one ansible-playbook; yield what each did."""
    if os.geteuid() != 0:
        pytest.fail("the bad-input corpus runs as root (network namespaces, Open vSwitch sandboxes)")
    for tool in ("ovsdb-tool", "ovsdb-server", "ovsdb-client", "ovs-vsctl", "ip"):
        if not subprocess.run(["sh", "-c", "command -v %s" % tool], capture_output=True, check=False).stdout:
            pytest.fail("%s is needed: install openvswitch-switch, ovn-common and iproute2 (make test does)" % tool)
    cases = selected_cases(request)
    clock = [("start", time.monotonic(), os.times())]
    base = str(tmp_path_factory.mktemp("bad-input"))
    if os.environ.get("BI_WORKDIR"):  # to look at the worlds and the log afterwards
        base = os.path.abspath(os.environ["BI_WORKDIR"])
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
    results = os.path.join(base, "results")
    os.makedirs(results)
    inventory = os.path.join(base, "inventory.yml")
    groups, worlds, sandboxes, ovsdb_pids = {}, {}, {}, []
    for index, case in enumerate(cases):
        tag = "bi%03d" % index
        target = target_of(case)
        world = os.path.join(base, "worlds", case["id"])
        sandbox = os.path.join(base, "sandboxes", case["id"])
        build_world(world, target)
        worlds[case["id"]] = (world, tag)
        if target.get("sandbox"):
            sandboxes[case["id"]] = start_ovsdb(sandbox, target["sandbox"], substitute(target.get("ovs_external_ids"), tag))
            ovsdb_pids.append(pid_of(os.path.join(sandbox, "ovsdb-server.pid")))
        hostvars = {"bi_tag": tag, "bi_world": world, "bi_sandbox": sandbox}
        overrides = case_overrides(case, tag)
        if "role" in target:
            hostvars.update(overrides)
        else:
            hostvars["bi_case_args"] = overrides
        groups.setdefault(case["target"], {})[case["id"]] = hostvars
    with open(inventory, "w") as handle:
        yaml.safe_dump(inventory_of(groups, results), handle, default_flow_style=False, sort_keys=False)

    clock.append(("worlds and sandboxes", time.monotonic(), os.times()))
    prints = dict((case_id, fingerprint(world)) for case_id, (world, _tag) in worlds.items())
    logs_before = dict((case_id, dict((rel, call_log_lines(world, rel)) for rel in prints[case_id]
                                      if os.path.basename(rel) == "calls.log"))
                       for case_id, (world, _tag) in worlds.items())
    dumps = dict((case_id, dump(sock)) for case_id, sock in sandboxes.items())
    before = machine(base)
    workdir = os.path.join(base, "cwd")
    os.makedirs(workdir)
    log_path = os.path.join(base, "ansible-playbook.log")
    env = dict(playbook_env, ANSIBLE_FORKS=str(FORKS), ANSIBLE_PIPELINING="1", ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_DEPRECATION_WARNINGS="0",
               ANSIBLE_HOME=os.path.join(base, "ansible-home"), ANSIBLE_RETRY_FILES_ENABLED="0")
    started = time.monotonic()
    try:
        with open(log_path, "w") as log:
            run = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", inventory, os.path.join(CORPUS, "play.yml")],
                                 stdout=log, stderr=subprocess.STDOUT, env=env, cwd=workdir, timeout=RUN_TIMEOUT, check=False)
        seconds = time.monotonic() - started
        clock.append(("ansible-playbook", time.monotonic(), os.times()))
        with open(log_path) as log:
            text = log.read()
        outcomes_file = os.path.join(results, "outcomes.json")
        if not os.path.exists(outcomes_file):
            pytest.fail("ansible-playbook recorded no outcome (rc %d):\n%s" % (run.returncode, text[-3000:]))
        with open(outcomes_file) as handle:
            outcomes = dict((case_id, outcome) for case_id, outcome in json.load(handle).items() if outcome is not None)
        after = machine(base)
        changes = {}
        for case in cases:
            case_id = case["id"]
            world, tag = worlds[case_id]
            found = world_changes(world, prints[case_id], fingerprint(world), logs_before[case_id])
            if case_id in sandboxes:
                now = dump(sandboxes[case_id])
                if now != dumps[case_id]:
                    found.append("changed its %s database: %s" % (target_of(case)["sandbox"], first_difference(dumps[case_id], now)))
            found.extend("created network namespace %s on this machine" % name
                         for name in sorted(after["namespaces"] - before["namespaces"]) if tag in name)
            found.extend("created interface %s on this machine" % name for name in sorted(after["links"] - before["links"]) if tag in name)
            found.extend("started process %d: %s" % (pid, cmdline[:200]) for pid, cmdline in sorted(after["processes"].items())
                         if pid not in before["processes"] and pid not in ovsdb_pids and os.sep + case_id + os.sep in cmdline + os.sep)
            changes[case_id] = found
        clock.append(("comparing", time.monotonic(), os.times()))
        if os.environ.get("BI_TIMING"):
            for (_n, t0, c0), (name, t1, c1) in zip(clock, clock[1:]):
                sys.stderr.write("bad-input timing: %-22s %6.1f s wall, %6.1f s CPU here, %6.1f s CPU of children\n"
                                 % (name, t1 - t0, c1.user + c1.system - c0.user - c0.system,
                                    c1.children_user + c1.children_system - c0.children_user - c0.children_system))
        yield Run(outcomes, changes, seconds, text, base, before, worlds, ovsdb_pids)
    finally:
        cleanup(base, before, worlds, ovsdb_pids)


def first_difference(old, new):
    old_lines, new_lines = old.splitlines(), new.splitlines()
    added = [line.strip() for line in new_lines if line not in old_lines]
    removed = [line.strip() for line in old_lines if line not in new_lines]
    return "; ".join(["+ " + line for line in added[:4]] + ["- " + line for line in removed[:2]]) or "(rows reordered)"


def cleanup(base, before, worlds, ovsdb_pids):
    """Stop what the cases started and remove what they created on this machine, then the sandboxes."""
    tags = [tag for _world, tag in worlds.values()]
    for pid in set(processes(base)) - set(before["processes"]) - set(ovsdb_pids):
        stop(pid)
    for name in namespaces() - before["namespaces"]:
        if any(tag in name for tag in tags):
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, check=False)
    for name in links() - before["links"]:
        if any(tag in name for tag in tags):
            subprocess.run(["ip", "link", "delete", name], capture_output=True, check=False)
    for pid in ovsdb_pids:
        stop(pid)


# ---------------------------------------------------------------- the verdict

def failure_text(result):
    """What the failed task said (its msg, else its output)."""
    msg = result.get("msg")
    if isinstance(msg, list):
        msg = "; ".join(str(item) for item in msg)
    text = str(msg or result.get("stderr") or result.get("stdout") or result.get("module_stdout") or "")
    return re.sub(r"\s+", " ", text).strip()


def crash_of(result):
    """The error the code broke with, or None when it refused on purpose.

    A Python traceback in the module's output, or an exception's name or a
    templating error in the first words of the message (further on, a message
    may quote what a program it ran printed).
    """
    texts = [failure_text(result)[:160], str(result.get("module_stderr") or "")]
    exception = str(result.get("exception") or "")
    if "Traceback" in exception:
        texts.append(exception)
    for text in texts:
        match = CRASH.search(text)
        if match:
            return text[max(0, match.start() - 200):match.end() + 300].strip()
    return None


def shows(message, fragment):
    """``fragment`` in ``message`` as a word of its own (0 in 'VLAN 0 is' but not in '4094')."""
    return re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(str(fragment)), message) is not None


def names(message, variable):
    """``variable`` in ``message`` as a name of its own (args in 'args[0]:' but not in 'grubby --args=')."""
    return re.search(r"(?<![\w.\-\[])%s(?!\w)" % re.escape(variable), message) is not None


def alternatives(value):
    return value if isinstance(value, list) else [value]


def problems_of(case, run):
    """Everything wrong with how the target handled the case, in words a CI log tail can show."""
    case_id = case["id"]
    case = substitute(case, run.worlds[case_id][1])
    outcome = run.outcomes.get(case_id)
    changes = run.changes.get(case_id, [])
    what = "%s with %s" % (target_name(case), what_the_case_sets(case))
    problems = []
    if outcome is None:
        host_lines = [line for line in run.log.splitlines() if "[%s]" % case_id in line][-6:]
        problems.append("NO OUTCOME: the play recorded nothing for this case (the run broke):\n  " + "\n  ".join(host_lines))
    elif outcome["accepted"]:
        problems.append("ACCEPTED: %s ran to its end instead of refusing" % what)
    else:
        result = outcome["result"]
        message = failure_text(result)
        where = "task %r" % outcome.get("task")
        crash = crash_of(result)
        if crash:
            problems.append("CRASHED instead of refusing (%s): %s" % (where, crash[:700]))
        wanted = alternatives(case["variable"])
        if not any(names(message, name) for name in wanted):
            problems.append("DID NOT NAME the variable %s (%s) in: %s" % (" or ".join(wanted), where, message[:900]))
        if case.get("value") is not None and not any(shows(message, v) for v in alternatives(case["value"])):
            shown = " or ".join(repr(str(v)) for v in alternatives(case["value"]))
            problems.append("DID NOT SHOW the bad value %s in: %s" % (shown, message[:600]))
        missing = [word for word in case.get("says") or [] if word.lower() not in message.lower()]
        if missing:
            problems.append("DID NOT SAY %s in: %s" % (", ".join(repr(word) for word in missing), message[:600]))
    if changes:
        problems.append("CHANGED before refusing: %s" % "; ".join(changes[:8]) + (" (and %d more)" % (len(changes) - 8) if len(changes) > 8 else ""))
    return problems


def control_problems(case, run):
    outcome = run.outcomes.get(case["id"])
    changes = run.changes.get(case["id"], [])
    if outcome is None:
        return ["NO OUTCOME for the control case"]
    fails_with = target_of(case).get("control_fails_with")
    if fails_with and not outcome["accepted"] and re.search(fails_with, failure_text(outcome["result"])):
        return []
    if not changes and not outcome["accepted"]:
        return ["the set-up %s was refused without any change (it must be valid): %s"
                % (case["target"], failure_text(outcome["result"])[:900])]
    return []


# ---------------------------------------------------------------- the tests

@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_bad_input_is_refused_before_any_change(case, corpus):
    """One case of bad_input/cases.yml: refused, nothing changed, the variable named."""
    if case.get("control"):
        problems = control_problems(case, corpus)
    else:
        problems = problems_of(case, corpus)
    assert not problems, "bad input %s (%s): %s\n- %s" % (case["id"], target_name(case), case.get("why", ""), "\n- ".join(problems))


def test_machine_left_as_found(corpus):
    """What the cases created on this machine (namespaces, interfaces, processes) is gone once they ran."""
    cleanup(corpus.base, corpus.machine_before, corpus.worlds, corpus.ovsdb_pids)
    now = machine(corpus.base)
    left = ["network namespace %s" % name for name in sorted(now["namespaces"] - corpus.machine_before["namespaces"])
            if TAG.search(name)]
    left += ["interface %s" % name for name in sorted(now["links"] - corpus.machine_before["links"]) if TAG.search(name)]
    left += ["process %d: %s" % item for item in sorted(now["processes"].items())
             if item[0] not in corpus.machine_before["processes"] and item[0] not in corpus.ovsdb_pids]
    assert not left, "the bad-input corpus left on this machine: %s" % "; ".join(left)


def test_corpus_is_well_formed():
    """Every case names a known set-up, a variable, and says why it is bad; ids are unique inventory names."""
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids)), "case ids used twice: %s" % sorted(i for i in ids if ids.count(i) > 1)
    bad = [case["id"] for case in CASES if not re.match(r"^[a-z0-9][a-z0-9-]*$", case["id"]) or case.get("target") not in TARGETS
           or (not case.get("control") and (not case.get("variable") or not case.get("why") or not (case.get("vars") or case.get("set"))))]
    assert not bad, "cases without a known target, a variable, a why or a bad value: %s" % bad
    count = collections.Counter(target_name(case) for case in CASES if not case.get("control"))
    few = ["%s (%d)" % (name, count[name]) for name in EVERY_TARGET if count[name] < 3]
    assert not few, "issue 15 asks for several cases per role and for ovn_topology and trex_bench; too few: %s" % ", ".join(few)
    assert sum(count.values()) >= 60, "issue 15 asks for at least 60 cases, there are %d" % sum(count.values())
