# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where benchmark.yml and compare.yml put the results when bench_results_dir is not set
(playbooks/vars/bench_results.yml): a data directory of the controller's user, not the checkout."""

import os

import pytest

from ansible_collections.offload.testbed.tests.unit.ansible_debug import ROOT, templated

VARS = os.path.join(ROOT, "playbooks", "vars", "bench_results.yml")


def resolved(env, *extra):
    """``__bench_results_dir`` and ``__bench_results_host_dir`` as a play on the controller templates them."""
    return templated("{{ [__bench_results_dir, __bench_results_host_dir] }}", ["@" + VARS] + list(extra), env, drop=("XDG_DATA_HOME",))


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
