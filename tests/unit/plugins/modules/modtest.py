"""Run a module's main() in-process with run_command answered from a table.

The table maps an exact argv (a tuple) to ``(rc, stdout, stderr)``; any
command not in the table fails the test, so a test states every command the
module may run. ``calls`` records what ran, in order.
"""
import json

import pytest

from ansible.module_utils import basic

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core < 2.19
    import contextlib

    @contextlib.contextmanager
    def patch_module_args(args):
        from ansible.module_utils.common.text.converters import to_bytes
        basic._ANSIBLE_ARGS = to_bytes(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
        yield
        basic._ANSIBLE_ARGS = None


class ModuleExit(Exception):
    def __init__(self, result, failed):
        super().__init__(result.get("msg"))
        self.result = result
        self.failed = failed


def run_module(main, args, table, monkeypatch):
    """Call main() with args; returns (result, failed, calls)."""
    calls = []

    def run_command(self, argv, *a, **kw):
        key = tuple(argv)
        calls.append(key)
        if key not in table:
            pytest.fail("unexpected command: %s" % " ".join(key))
        answer = table[key]
        return answer(calls) if callable(answer) else answer

    def exit_json(self, **kw):
        raise ModuleExit(kw, False)

    def fail_json(self, **kw):
        raise ModuleExit(kw, True)

    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    with patch_module_args(args):
        with pytest.raises(ModuleExit) as exc:
            main()
    return exc.value.result, exc.value.failed, calls
