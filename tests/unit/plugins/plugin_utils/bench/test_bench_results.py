# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Results on disk and resumption (plugins/plugin_utils/bench/results.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import csv
import json

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import results as br
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search
from ansible_collections.offload.testbed.tests.support import device_models as dm

SEARCH = {"width": 0.005, "final_duration": 10.0, "initial_duration": 1.0, "max_load": dm.MAX_LOAD, "min_load": dm.MIN_LOAD,
          "warmup_duration": 0.0, "warmup_load": dm.MAX_LOAD / 10, "settle": 0.5, "repeat": 1}
HEADER = {"datapath": "netdev", "goals": [{"name": "ndr", "loss_ratio": 0.0}], "search": SEARCH, "metadata": {"nic": "cx6"},
          "generator": {"server": "gen", "client": "trex_stl_lib", "ports": [0, 1]}}
PROFILE = {"scenario": "routing", "protocol": "udp", "frame_size": 64, "direction": "uni", "flows": 10, "destinations": 1,
           "src_base": "16.0.0.1", "dst": "48.0.0.1", "vlan": None, "ports": [0, 1]}


class Crash(Exception):
    pass


def crashing(model, after):
    """The model, raising Crash on its ``after``-th call (a lost generator)."""
    calls = []

    def measure(load, duration):
        if len(calls) == after:
            raise Crash("generator gone")
        calls.append((load, duration))
        return model(load, duration)
    measure.calls = calls
    return measure


def run_search(store, entry, measure):
    recorded = list(entry["trials"])

    def on_trial(trial):
        if trial["index"] >= len(recorded):
            store.add_trial(entry, dict(trial, generator_limited=False, achieved_load=trial["offered"] / trial["duration"], time=br.now()))
    return search(br.Replay(recorded, measure), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=10.0, width=0.005,
                  initial_duration=1.0, on_trial=on_trial)


def test_every_trial_is_on_disk_and_a_resumed_run_measures_only_the_rest(tmp_path):
    reference = search(dm.DipAndReturn(), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=10.0, width=0.005, initial_duration=1.0)
    store = br.Store(str(tmp_path), "run1", "f1", HEADER)
    entry = store.search_entry(PROFILE)
    first = crashing(dm.DipAndReturn(), after=4)
    with pytest.raises(Crash):
        run_search(store, entry, first)
    store.finish("failed", "generator gone")
    on_disk = json.loads((tmp_path / "run1.json").read_text())
    assert on_disk["status"] == "failed" and on_disk["error"] == "generator gone"
    assert len(on_disk["searches"][0]["trials"]) == 4

    again = br.Store(str(tmp_path), "run1", "f1", HEADER)
    assert again.resumed and again.document["resumed"] == 1 and again.document["status"] == "running"
    entry = again.search_entry(PROFILE)
    second = crashing(dm.DipAndReturn(), after=1000)
    result = run_search(again, entry, second)
    assert len(second.calls) == len(reference["trials"]) - 4
    assert result["goals"] == reference["goals"]
    assert [trial["load"] for trial in entry["trials"]] == [trial["load"] for trial in reference["trials"]]
    final = again.finish_search(entry, result, dm.MAX_LOAD)
    assert all(goal["generator_limited"] is False for goal in final["goals"].values())
    with open(str(tmp_path / "results.csv")) as handle:
        rows = list(csv.DictReader(handle))
    assert [row["goal"] for row in rows] == ["ndr", "ndr_1e-5", "pdr"]
    assert float(rows[0]["lower_bound_pps"]) == reference["goals"]["ndr"]["lower_bound"]
    assert rows[0]["run_id"] == "run1" and rows[0]["datapath"] == "netdev" and rows[0]["frame_size"] == "64"


def test_resume_refuses_a_different_profile_and_broken_files(tmp_path):
    br.Store(str(tmp_path), "run1", "f1", HEADER).save()
    with pytest.raises(br.ResumeError, match="different profile.*another run_id"):
        br.Store(str(tmp_path), "run1", "f2", HEADER)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(br.ResumeError, match="not valid JSON"):
        br.Store(str(tmp_path), "broken", "f1", HEADER)


def test_the_store_writes_only_documents_that_validate(tmp_path):
    store = br.Store(str(tmp_path), "run1", "f1", HEADER)
    store.save()
    written = (tmp_path / "run1.json").read_text()
    entry = store.search_entry(PROFILE)
    with pytest.raises(br.SchemaError, match=r"searches\[0\].trials\[0\].loss_ratio: -1e-05 is less than the minimum of 0"):
        store.add_trial(entry, {"index": 0, "load": 10.0, "duration": 1.0, "offered": 100000, "received": 100001, "loss_ratio": -1e-05,
                                "achieved_load": 10.0, "generator_limited": False, "time": br.now()})
    assert (tmp_path / "run1.json").read_text() == written


def test_a_version_1_file_resumes_as_one_repeat(tmp_path):
    old = dict(HEADER, schema_version=1, run_id="old", fingerprint="f1", created=br.now(), updated=br.now(), status="failed", error="lost",
               resumed=0, search={key: value for key, value in SEARCH.items() if key != "repeat"},
               searches=[{"profile": PROFILE, "status": "running", "warmup": None, "trials": [], "invalid_trials": [], "result": None}])
    assert br.schema_errors(old) == []
    (tmp_path / "old.json").write_text(json.dumps(old))
    store = br.Store(str(tmp_path), "old", "f1", HEADER)
    assert store.search_entry(PROFILE, 0) is store.document["searches"][0]
    store.save()
    upgraded = json.loads((tmp_path / "old.json").read_text())
    assert upgraded["schema_version"] == 3 and upgraded["searches"][0]["repeat"] == 0 and upgraded["search"]["repeat"] == 1


def test_a_version_2_file_resumes_as_version_3_without_the_rfc_quantities(tmp_path):
    trial = {"index": 0, "load": 10.0, "duration": 1.0, "offered": 10, "received": 10, "loss_ratio": 0.0, "achieved_load": 10.0,
             "generator_limited": False, "time": br.now()}
    old = dict(HEADER, schema_version=2, run_id="v2", fingerprint="f1", created=br.now(), updated=br.now(), status="failed", error="lost",
               resumed=0, searches=[{"profile": PROFILE, "repeat": 0, "status": "complete", "warmup": None, "trials": [trial], "invalid_trials": [],
                                     "interrupted_trials": [],
                                     "result": {"goals": {"pdr": {"loss_ratio": 0.005, "lower_bound": 10.0, "upper_bound": 10.0,
                                                                  "lower_bound_trial": 0, "generator_limited": False}},
                                                "trial_seconds": 1.0, "trials": 1}}])
    assert br.schema_errors(old) == []
    (tmp_path / "v2.json").write_text(json.dumps(old))
    store = br.Store(str(tmp_path), "v2", "f1", HEADER)
    store.save()
    upgraded = json.loads((tmp_path / "v2.json").read_text())
    assert upgraded["schema_version"] == 3 and "conditional_throughput" not in upgraded["searches"][0]["result"]["goals"]["pdr"]
    assert br.schema_errors(upgraded) == []


def test_replay_refuses_trials_that_do_not_match():
    replay = br.Replay([{"load": 100.0, "duration": 1.0, "offered": 100, "received": 99}], lambda load, duration: {"offered": 1, "received": 1})
    with pytest.raises(br.ResumeError, match="recorded 100.000 pps"):
        replay(200.0, 1.0)
    replay = br.Replay([{"load": 100.0, "duration": 1.0, "offered": 100, "received": 99}], lambda load, duration: {"offered": 7, "received": 7})
    assert replay(100.0, 1.0)["received"] == 99 and replay.replaying is False
    assert replay(200.0, 1.0)["offered"] == 7


def test_generator_shortfall_is_marked_and_labels_the_bound():
    assert br.is_generator_limited(1000.0, 10.0, 9899)
    assert not br.is_generator_limited(1000.0, 10.0, 9900)
    trials = [{"load": 1000.0, "duration": 10.0, "generator_limited": True, "loss_ratio": 0.0},
              {"load": 500.0, "duration": 10.0, "generator_limited": False, "loss_ratio": 0.0}]
    result = {"goals": {"ndr": {"loss_ratio": 0.0, "lower_bound": 1000.0, "upper_bound": 1000.0, "lower_bound_trial": 0},
                        "pdr": {"loss_ratio": 0.005, "lower_bound": 500.0, "upper_bound": 1000.0, "lower_bound_trial": 1}}}
    labelled = br.label_goals(result, trials, max_load=1000.0)
    assert labelled["ndr"]["generator_limited"] is True
    assert labelled["pdr"]["generator_limited"] is False


def test_progress_line_shows_load_loss_and_time_left():
    line = br.progress_line(3, {"load": 1000.0, "duration": 1.0, "loss_ratio": 0.005, "achieved_load": 990.0, "generator_limited": True}, 12.0, 30.0)
    assert "1000.0 pps" in line and "loss 0.500000%" in line and "elapsed   12.0 s" in line and "left ~  30.0 s" in line
    assert "generator-limited" in line
