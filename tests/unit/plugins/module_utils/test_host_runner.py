"""host.runner: the one way modules run host commands, and a walk of plugins/ that keeps it the only one."""
import ast
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line, failure, tail
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils import plugin_walk

RUNNER = os.path.join("plugins", "module_utils", "host", "runner.py")
# Programs that cannot go through run_command, and why.
BACKGROUND = {
    os.path.join("plugins", "module_utils", "generator", "iperf3.py"): "the one-off iperf3 server runs in the background while the client runs",
}


class Failed(Exception):
    pass


class FakeModule(object):
    """An AnsibleModule's run_command and fail_json: answers from a table, records what ran."""

    def __init__(self, table, check_mode=False):
        self.table = table
        self.check_mode = check_mode
        self.ran = []

    def run_command(self, argv, **kwargs):
        self.ran.append((tuple(argv), kwargs))
        return self.table.get(tuple(argv), (0, "", ""))

    def fail_json(self, **fields):
        raise Failed(fields)


def test_a_read_runs_in_check_mode_and_is_not_listed():
    module = FakeModule({("ip", "-j", "link"): (0, "[]", "")}, check_mode=True)
    runner = HostRunner(module)
    assert runner.read(["ip", "-j", "link"]) == (0, "[]", "")
    assert module.ran == [(("ip", "-j", "link"), {})] and runner.commands == []


def test_a_change_is_listed_and_only_listed_while_dry():
    module = FakeModule({}, check_mode=True)
    runner = HostRunner(module)
    assert runner.change(["modprobe", "vfio-pci"]) == (0, "", "")
    assert module.ran == [] and runner.commands == ["modprobe vfio-pci"]
    runner.dry = False
    runner.change(["make", "install"], cwd="/w/ovn build")
    assert module.ran == [(("make", "install"), {"cwd": "/w/ovn build"})]
    assert runner.commands == ["modprobe vfio-pci", "(cd '/w/ovn build' && make install)"]


def test_a_failed_command_stops_the_module_with_its_line_rc_and_last_lines():
    err = "".join("line %d\n" % number for number in range(30))
    module = FakeModule({("ethtool", "-K", "eth 1", "tso", "off"): (71, "", err)})
    runner = HostRunner(module)
    with pytest.raises(Failed) as exc:
        runner.change(["ethtool", "-K", "eth 1", "tso", "off"], fields=dict(device="eth 1"))
    fields = exc.value.args[0]
    assert fields["msg"].startswith("ethtool -K 'eth 1' tso off failed (rc 71): line 10\n")
    assert fields["msg"].endswith("line 29") and "line 9\n" not in fields["msg"]
    assert (fields["rc"], fields["stderr"], fields["device"]) == (71, err, "eth 1")
    assert fields["commands"] == ["ethtool -K 'eth 1' tso off"] and "errors" not in fields


def test_a_failure_says_stdout_when_stderr_is_empty_and_returns_errors_when_asked():
    module = FakeModule({("dnf", "install", "-y", "x"): (1, "Error: no match for x\n", "")})
    with pytest.raises(Failed) as exc:
        HostRunner(module, errors=True).change(["dnf", "install", "-y", "x"])
    assert exc.value.args[0]["errors"] == ["dnf install -y x failed (rc 1): Error: no match for x"]
    assert failure(["true"], 1, "", "") == "true failed (rc 1): "


def test_check_rc_false_leaves_the_rc_to_the_caller():
    module = FakeModule({("ddptool", "-s", "0000:02:00.0"): (8, "", "")})
    assert HostRunner(module).read(["ddptool", "-s", "0000:02:00.0"], check_rc=False) == (8, "", "")


def test_write_lists_an_echo_and_writes_unless_dry(tmp_path):
    path = str(tmp_path / "sriov_numvfs")
    runner = HostRunner(FakeModule({}), dry=True)
    runner.write(path, 2)
    assert runner.commands == ["echo 2 > %s" % path] and not os.path.exists(path)
    runner.dry = False
    runner.write(path, 2)
    with open(path) as handle:
        assert handle.read() == "2\n"
    with pytest.raises(Failed) as exc:
        runner.write(str(tmp_path / "no" / "such"), 1, errors=["x"])
    assert exc.value.args[0]["msg"].startswith("writing 1 to %s failed: " % (tmp_path / "no" / "such"))
    assert exc.value.args[0]["errors"] == ["x"]


def test_note_lists_and_says_whether_to_act():
    runner = HostRunner(FakeModule({}), dry=True)
    assert runner.note("mkdir -p /mnt/huge") is False
    runner.dry = False
    assert runner.note("rmdir /mnt/huge") is True
    assert runner.commands == ["mkdir -p /mnt/huge", "rmdir /mnt/huge"]


def test_command_line_and_tail():
    assert command_line(["grubby", "--update-kernel=ALL", "--args=a b"]) == "grubby --update-kernel=ALL '--args=a b'"
    assert tail("a\nb\nc\n", 2) == "b\nc" and tail(None) == ""


def _own_runners(tree):
    """Lines that run a host command some other way than the runner."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "run_command":
            found.append("line %d: .run_command" % node.lineno)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            if any(name.split(".")[0] in ("subprocess", "pty") for name in names):
                found.append("line %d: imports %s" % (node.lineno, ", ".join(name for name in names if name)))
        if isinstance(node, ast.Attribute) and node.attr in ("system", "popen", "spawnv", "execv") and \
                isinstance(node.value, ast.Name) and node.value.id == "os":
            found.append("line %d: os.%s" % (node.lineno, node.attr))
    return found


def test_no_module_runs_a_host_command_but_through_the_runner():
    """Every module and module_utils file runs host commands through host.runner.HostRunner, and nothing else does."""
    found = plugin_walk.offenders((os.path.join("plugins", "modules"), os.path.join("plugins", "module_utils")), _own_runners,
                                  skip=(RUNNER,) + tuple(BACKGROUND))
    assert found == {}
    # The exceptions are still needed (an exception nobody needs is removed).
    for rel in BACKGROUND:
        with open(os.path.join(plugin_walk.ROOT, rel)) as handle:
            assert _own_runners(ast.parse(handle.read())), rel


def test_the_walk_finds_a_runner_of_its_own():
    """The walk is not vacuous: each way it knows of is found in a sample."""
    sample = ("import subprocess\nfrom subprocess import run\nimport os\n"
              "def run(self, argv):\n    return self.module.run_command(argv)\nos.system('x')\n")
    assert sorted(line.split(":")[0] for line in _own_runners(ast.parse(sample))) == ["line 1", "line 2", "line 5", "line 6"]
