"""ovn_topology action plugin: the connection's commands answered from a table of exact command lines.

The read and the write are the module's (same argv, see
tests/unit/plugins/modules/test_ovn_topology.py, whose tables and real
``ovn-nbctl`` outputs this test reuses), run through the connection: the read
as one shell-quoted command line, the write as one ``/bin/sh`` call that takes
its arguments from standard input, one per line.
"""
import copy
import importlib.util
import os
import shlex
import sys
from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail

from ansible_collections.offload.testbed.plugins.action import ovn_topology as action_mod
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn as utils
from ansible_collections.offload.testbed.plugins.module_utils.topology import ovn_nb

_MODULE_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "modules")
if _MODULE_TESTS not in sys.path:
    sys.path.insert(0, _MODULE_TESTS)  # the module tests' helper (modtest)
_SPEC = importlib.util.spec_from_file_location("module_table", os.path.join(_MODULE_TESTS, "test_ovn_topology.py"))
TABLE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(TABLE)

READ = ("ovn-nbctl",) + TABLE.READ[1:]
WRITE_SEED = ("ovn-nbctl",) + TABLE.WRITE_SEED[1:]
READ_CMD = " ".join(shlex.quote(arg) for arg in READ)
WRITE_CMD = "/bin/sh -c " + shlex.quote("set -f; IFS='\n'; exec ovn-nbctl $(cat)")
WRITE_STDIN = ("\n".join(WRITE_SEED[1:]) + "\n").encode()


class Connection:
    """Answers _low_level_execute_command from {command line: (rc, stdout, stderr)}; records (command, stdin)."""

    def __init__(self, table):
        self.table = table
        self.calls = []

    def __call__(self, cmd, sudoable=True, in_data=None, **_kw):
        assert sudoable
        self.calls.append((cmd, in_data))
        if cmd not in self.table:
            raise AssertionError("unexpected command: %s" % cmd)
        rc, out, err = self.table[cmd]
        return {"rc": rc, "stdout": out, "stderr": err}


def make_action(args, table, check_mode=False, diff=False, env=""):
    task = mock.MagicMock()
    task.args = args
    task.async_val = 0
    task.check_mode = check_mode
    task.diff = diff
    task.action = "offload.testbed.ovn_topology"
    connection = mock.MagicMock()
    connection._shell.tmpdir = None
    action = action_mod.ActionModule(task, connection, mock.MagicMock(), mock.MagicMock(), mock.MagicMock(), None)
    action._low_level_execute_command = Connection(table)
    action._compute_environment_string = lambda raw_environment_out=None: env
    action._execute_module = mock.MagicMock(return_value={"changed": True, "ran": "module"})
    return action


def seed_args(**extra):
    out = copy.deepcopy(TABLE.SEED)
    out.update(extra)
    return out


def test_first_apply_reads_once_and_writes_once_through_stdin():
    action = make_action(seed_args(), {READ_CMD: (0, TABLE.NB_EMPTY, ""), WRITE_CMD: (0, TABLE.CREATED, "")})
    result = action.run(task_vars={})
    assert not result.get("failed"), result
    assert action._low_level_execute_command.calls == [(READ_CMD, None), (WRITE_CMD, WRITE_STDIN)]
    assert result["changed"] is True
    assert len(result["commands"]) == 15
    assert result["summary"]["nat"] == {"created": 1, "updated": 0, "deleted": 0}
    assert "diff" not in result
    assert result["invocation"]["module_args"]["switches"] == "(2 declared)"
    action._execute_module.assert_not_called()


def test_the_shell_turns_stdin_back_into_the_same_arguments(tmp_path):
    # the write's shell line, run by a real /bin/sh with a stand-in that prints its argv as JSON
    printer = tmp_path / "ovn-nbctl"
    printer.write_text("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n")
    printer.chmod(0o755)
    import subprocess  # pylint: disable=import-outside-toplevel
    out = subprocess.run(["/bin/sh", "-c", action_mod.STDIN_ARGS_SCRIPT % shlex.quote(str(printer))], input=WRITE_STDIN,
                         capture_output=True, check=True).stdout
    assert tuple(out.decode().split("\0")[:-1]) == WRITE_SEED[1:]


def test_unchanged_apply_only_reads():
    action = make_action(seed_args(), {READ_CMD: (0, TABLE.NB_SEED, "")})
    result = action.run(task_vars={})
    assert action._low_level_execute_command.calls == [(READ_CMD, None)]
    assert result["changed"] is False and result["commands"] == []


def test_check_mode_only_reads_and_diff_mode_shows_the_change():
    action = make_action(seed_args(), {READ_CMD: (0, TABLE.NB_EMPTY, "")}, check_mode=True, diff=True)
    result = action.run(task_vars={})
    assert action._low_level_execute_command.calls == [(READ_CMD, None)]
    assert result["changed"] is True and len(result["commands"]) == 15
    headers = [entry["before_header"] for entry in result["diff"]]
    assert "load_balancer lb-web" in headers and "router lr0" in headers


def test_task_environment_prefixes_the_commands():
    env = "OVN_NB_DB=unix:/run/ovn/ovnnb_db.sock"
    action = make_action(seed_args(), {env + " " + READ_CMD: (0, TABLE.NB_SEED, "")}, env=env)
    result = action.run(task_vars={})
    assert result["changed"] is False
    assert action._low_level_execute_command.calls == [(env + " " + READ_CMD, None)]


def test_invalid_declaration_fails_before_any_command():
    bad = seed_args()
    bad["routers"][0]["nat"][0]["logical_ip"] = "16.0.0.999"
    action = make_action(bad, {})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith("invalid OVN topology: 1 error(s): routers[lr0].nat[0].logical_ip")
    assert result["errors"] and action._low_level_execute_command.calls == []


def test_unknown_option_is_refused_by_the_argument_spec():
    action = make_action(seed_args(purge_everything=True), {})
    with pytest.raises(AnsibleActionFail) as exc:
        action.run(task_vars={})
    assert "purge_everything" in str(exc.value)
    assert action._low_level_execute_command.calls == []


def test_read_failure_names_the_database_error():
    err = "ovn-nbctl: ssl:10.10.0.4:6641: database connection failed (Connection refused)\n"
    action = make_action(seed_args(), {READ_CMD: (1, "", err)})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == "reading the Northbound database failed: " + err.strip()
    assert result["rc"] == 1


def test_write_failure_reports_the_planned_commands():
    err = "ovn-nbctl: transaction error: {\"details\":\"...\",\"error\":\"constraint violation\"}\n"
    action = make_action(seed_args(), {READ_CMD: (0, TABLE.NB_EMPTY, ""), WRITE_CMD: (1, "", err)})
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith("the Northbound transaction failed: ovn-nbctl: transaction error")
    assert len(result["commands"]) == 15 and "changed" not in result


def test_an_argument_that_cannot_travel_on_stdin_runs_the_module(monkeypatch):
    real = ovn_nb.write_args
    monkeypatch.setattr(utils, "write_args", lambda commands: real(commands) + ["two\nlines"])
    action = make_action(seed_args(), {READ_CMD: (0, TABLE.NB_EMPTY, "")})
    result = action.run(task_vars={"inventory_hostname": "ovn-central"})
    assert result == {"changed": True, "ran": "module"}
    assert action._low_level_execute_command.calls == [(READ_CMD, None)]
    action._execute_module.assert_called_once_with(module_name="offload.testbed.ovn_topology", module_args=seed_args(),
                                                   task_vars={"inventory_hostname": "ovn-central"})
