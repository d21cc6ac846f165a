# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where benchmark.yml and compare.yml put the results when bench_results_dir is not set
(playbooks/vars/bench_results.yml): a data directory of the controller's user, not the checkout."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VARS = os.path.join(ROOT, "playbooks", "vars", "bench_results.yml")
ANSIBLE = os.path.join(os.path.dirname(sys.executable), "ansible")


def resolved(env, *extra):
    """``__bench_results_dir`` and ``__bench_results_host_dir`` as a play on the controller templates them."""
    environment = {key: value for key, value in os.environ.items() if key != "XDG_DATA_HOME"}
    environment.update(env, ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1")
    command = [ANSIBLE, "localhost", "-c", "local", "-i", "localhost,", "-e", "@" + VARS, "-e", "ansible_python_interpreter=" + sys.executable,
               "-m", "ansible.builtin.debug", "-a", "msg={{ [__bench_results_dir, __bench_results_host_dir] }}"]
    for item in extra:
        command += ["-e", item]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]["msg"]


def test_unset_it_is_under_the_users_data_home(tmp_path):
    assert resolved({"HOME": str(tmp_path)}) == [str(tmp_path) + "/.local/share/offload.testbed/results"] * 2


def test_xdg_data_home_moves_it(tmp_path):
    data = str(tmp_path / "data")
    assert resolved({"HOME": str(tmp_path), "XDG_DATA_HOME": data})[0] == data + "/offload.testbed/results"


@pytest.mark.parametrize("given", ["/srv/bench/results", "relative/results"])
def test_a_given_directory_is_taken_as_written_and_the_copy_goes_to_the_same_path(tmp_path, given):
    assert resolved({"HOME": str(tmp_path)}, "bench_results_dir=" + given) == [given, given]


def test_the_copy_can_go_elsewhere(tmp_path):
    assert resolved({"HOME": str(tmp_path)}, "bench_results_host_dir=/var/lib/bench")[1] == "/var/lib/bench"
