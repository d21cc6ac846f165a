# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of ``offload.testbed.ovn_topology``: the module's run without a module process.

The declaration is validated and the plan computed here, on the controller
(the same run as the module's, ``module_utils/topology/ovn.py``, with
``ovn_topology_schema``, ``ovn_nb`` and ``ovn_topology_plan`` beside it); the
only things that run on the host are the two ``ovn-nbctl`` commands, the read
and (when something changes, outside check mode) the write, through the
connection. No Python module is sent to the host, which saves Ansible's cost
of starting one (about half a second per task on the lab machines) and means
the OVN host needs no Python.

The write can be longer than one shell word may be (128 KiB), so its
arguments go to the host on standard input, one per line, and a POSIX shell
turns them back into arguments of one ``ovn-nbctl`` call (one transaction).
An argument that contains a line break, or is empty, cannot travel that way:
then the module itself runs (``_execute_module``), as it would without this
plugin.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.text.converters import to_bytes
from ansible.module_utils.six.moves import shlex_quote
from ansible.plugins.action import ActionBase

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn import (
    ApplyError,
    apply_topology,
    argument_spec,
    invocation_value,
)

# Arguments, one per line on standard input, back into the arguments of one command:
# no globbing, fields split at line breaks only.
STDIN_ARGS_SCRIPT = "set -f; IFS='\n'; exec %s $(cat)"


class NeedsModule(Exception):
    """The write cannot go through the shell; the module has to run."""


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = True

    def _command(self, argv, in_data=None):
        env = self._compute_environment_string()
        cmd = " ".join(shlex_quote(arg) for arg in argv)
        if env:
            cmd = "%s %s" % (env, cmd)
        res = self._low_level_execute_command(cmd, sudoable=True, in_data=in_data)
        return res.get("rc", 1), res.get("stdout", ""), res.get("stderr", "")

    def _write(self, argv):
        args = argv[1:]
        if any(not arg or "\n" in arg for arg in args):
            raise NeedsModule()
        script = STDIN_ARGS_SCRIPT % shlex_quote(argv[0])
        return self._command(["/bin/sh", "-c", script], in_data=to_bytes("\n".join(args) + "\n"))

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # unused
        _validation, params = self.validate_argument_spec(argument_spec=argument_spec())
        result["invocation"] = dict(module_args=dict((key, invocation_value(key, value)) for key, value in params.items()))
        try:
            ret = apply_topology(params, self._command, check_mode=self._task.check_mode, diff=self._task.diff, write=self._write)
        except NeedsModule:
            return self._execute_module(module_name="offload.testbed.ovn_topology", module_args=self._task.args,
                                        task_vars=task_vars)
        except ApplyError as exc:
            result.update(exc.fields)
            result.update(failed=True, msg=exc.msg)
            return result
        result.update(ret)
        return result
