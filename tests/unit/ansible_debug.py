# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Jinja expression templated as a play on the controller templates it: ``ansible localhost -m debug``."""

import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")


def templated(msg, extra_vars, env=None, drop=()):
    """What ``msg`` gives with ``extra_vars`` (each an ``-e`` argument: ``@file`` or ``name=value``), in the
    environment with ``env`` added and the variables named in ``drop`` removed."""
    environment = {key: value for key, value in os.environ.items() if key not in drop}
    environment.update(env or {}, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")
    command = [ANSIBLE, "localhost", "-c", "local", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable]
    for item in extra_vars:
        command += ["-e", item]
    command += ["-m", "ansible.builtin.debug", "-a", "msg=" + msg]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"]
