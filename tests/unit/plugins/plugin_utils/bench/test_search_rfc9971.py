# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The search with RFC 9971 goals: exceed ratios, duration sums, presets, relevant bounds, conditional throughput.

Each result is checked by re-classifying the search's own trials with the
RFC's load classification (plugin_utils/bench/rfc9971.py, itself checked
against the RFC's worked examples and MLRsearch): the lower bound is a lower
bound, the upper bound an upper bound, and no load below the upper bound is
one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search
from ansible_collections.offload.testbed.tests.support import device_models as dm

# FD.io CSIT's goals: 1 s final trials, 21 s of them per load, half of that time may lose more than the loss ratio.
CSIT = [{"name": "ndr", "loss_ratio": 0.0, "exceed_ratio": 0.5, "final_duration": 1.0, "duration_sum": 21.0},
        {"name": "pdr", "loss_ratio": 0.005, "exceed_ratio": 0.5, "final_duration": 1.0, "duration_sum": 21.0}]


def check_relevant(result, goals, max_load=dm.MAX_LOAD):
    """Every goal's bounds are the RFC's relevant bounds of the trials; returns the goals' classifications."""
    seen = {}
    for goal in goals:
        spec = rfc9971.attributes(goal, 1.0, 0.005)
        entry = result["goals"][goal["name"]]
        bounds = rfc9971.classifications(result["trials"], spec)
        lower, upper = entry["lower_bound"], entry["upper_bound"]
        assert rfc9971.nonconformities(result["goals"], result["trials"], [spec], max_load) == [], (goal, entry)
        assert bounds[lower] == rfc9971.LOWER, (goal, entry)
        assert entry["regular"] == (upper != max_load or bounds.get(max_load) == rfc9971.UPPER), entry
        if entry["regular"]:
            assert (upper - lower) / upper <= spec["width"]
        assert 0.0 < entry["conditional_throughput"] <= lower
        seen[goal["name"]] = bounds
    return seen


@pytest.mark.parametrize("cls", [dm.CleanCliff, dm.GradualLoss, dm.SoftKnee, dm.NoisyCliff, dm.DipAndReturn, dm.NeverLoses])
def test_csit_goals_end_on_the_relevant_bounds_of_the_rfc(cls):
    result = search(cls(), dm.MAX_LOAD, goals=CSIT, final_duration=1.0, initial_duration=1.0)
    check_relevant(result, CSIT)
    json.dumps(result)


def test_a_lower_bound_under_exceed_ratio_half_needs_eleven_good_seconds_of_its_twenty_one():
    result = search(dm.CleanCliff(), dm.MAX_LOAD, goals=CSIT[1:], final_duration=1.0, initial_duration=1.0)
    lower = result["goals"]["pdr"]["lower_bound"]
    at_lower = [trial for trial in result["trials"] if trial["load"] == lower]
    assert sum(trial["duration"] for trial in at_lower if trial["loss_ratio"] <= 0.005) >= 11.0


def test_always_loses_is_an_irregular_result_without_a_lower_bound():
    result = search(dm.AlwaysLoses(), dm.MAX_LOAD, goals=CSIT, final_duration=1.0, initial_duration=1.0)
    entry = result["goals"]["pdr"]
    assert (entry["lower_bound"], entry["regular"], entry["irregular"], entry["conditional_throughput"]) == (0.0, False, "no lower bound", None)


def test_never_loses_is_irregular_with_max_load_its_effective_lower_bound():
    result = search(dm.NeverLoses(), dm.MAX_LOAD, goals=CSIT, final_duration=1.0, initial_duration=1.0)
    entry = result["goals"]["ndr"]
    assert (entry["lower_bound"], entry["upper_bound"], entry["regular"], entry["irregular"]) == (dm.MAX_LOAD, dm.MAX_LOAD, False, "no upper bound")
    assert entry["conditional_throughput"] == dm.MAX_LOAD


def test_presets_by_name_run_the_rfcs_sixty_second_trials():
    result = search(dm.CleanCliff(), dm.MAX_LOAD, goals=["rfc2544", {"preset": "tst009", "name": "tst009-2"}])
    assert sorted(result["goals"]) == ["rfc2544", "tst009-2"]
    assert (result["goals"]["tst009-2"]["exceed_ratio"], result["goals"]["tst009-2"]["duration_sum"]) == (0.5, 120.0)
    check_relevant(result, [dict(rfc9971.PRESETS["rfc2544"], name="rfc2544"), dict(rfc9971.PRESETS["tst009"], name="tst009-2")])
    # RFC 2544's throughput: the relevant lower bound and the conditional throughput are equal.
    assert result["goals"]["rfc2544"]["conditional_throughput"] == result["goals"]["rfc2544"]["lower_bound"]


def test_goals_without_rfc_attributes_keep_their_bounds_and_gain_the_rfcs_quantities():
    result = search(dm.CleanCliff(), dm.MAX_LOAD)
    for entry in result["goals"].values():
        # The forwarding rate of the final trial at the lower bound: no more loss than the goal allows.
        assert entry["lower_bound"] * (1.0 - entry["loss_ratio"]) <= entry["conditional_throughput"] <= entry["lower_bound"]
        assert entry["regular"] in (True, False) and (entry["irregular"] is None) == entry["regular"]
        assert result["trials"][entry["lower_bound_trial"]]["duration"] == 10.0


@pytest.mark.parametrize("goal,message", [
    ({"name": "g", "loss_ratio": 0.0, "exceed_ratio": 1.0}, r"exceed_ratio of goal 'g' must be a number in \[0, 1\), got 1.0"),
    ({"name": "g", "loss_ratio": 0.0, "duration_sum": 0}, r"duration_sum of goal 'g' must be a number in \(0, inf\), got 0"),
    ({"name": "g", "loss_ratio": 0.0, "exced_ratio": 0.5}, "goal 'g' has unknown keys exced_ratio"),
    ({"preset": "rfc9999"}, "unknown preset 'rfc9999' .known: rfc2544, tst009."),
    ({"name": "g"}, "loss_ratio of goal 'g' must be a number, got None"),
    (7, "or a preset .rfc2544, tst009., got 7"),
])
def test_bad_goals_are_refused_naming_the_goal_and_the_attribute(goal, message):
    with pytest.raises(ValueError, match=message):
        search(dm.CleanCliff(), dm.MAX_LOAD, goals=[goal])


def test_options_left_none_by_an_argument_spec_count_as_not_given():
    goal = {"name": "pdr", "loss_ratio": 0.005, "exceed_ratio": None, "duration_sum": None, "final_duration": None,
            "initial_duration": None, "width": None, "preset": None}
    result = search(dm.CleanCliff(), dm.MAX_LOAD, goals=[goal])
    assert "exceed_ratio" not in result["goals"]["pdr"]


def test_goals_that_all_give_final_trials_set_the_searchs_final_trials():
    result = search(dm.CleanCliff(), dm.MAX_LOAD, goals=CSIT)  # the search's own final_duration is 10 s
    assert {trial["duration"] for trial in result["trials"]} == {1.0}


def test_confirm_upper_makes_every_bound_rest_on_full_length_trials():
    goals = [{"name": "pdr", "loss_ratio": 0.005, "exceed_ratio": 0.0, "final_duration": 10.0, "duration_sum": 10.0}]
    result = search(dm.SoftKnee(), dm.MAX_LOAD, goals=goals, initial_duration=1.0, confirm_upper=True)
    entry = result["goals"]["pdr"]
    full = [trial for trial in result["trials"] if trial["duration"] == 10.0]
    assert [trial for trial in full if trial["load"] == entry["upper_bound"] and trial["loss_ratio"] > 0.005]
    assert [trial for trial in full if trial["load"] == entry["lower_bound"] and trial["loss_ratio"] <= 0.005]
    assert entry["regular"] and (entry["upper_bound"] - entry["lower_bound"]) / entry["upper_bound"] <= 0.005


@pytest.mark.parametrize("seed", range(30))
def test_the_csit_goals_on_a_noisy_cliff_classify_no_load_far_from_its_edges(seed):
    """Noise as wide as the goal width flips single trials near the edge; the settling then walks from the bound it
    has, and never spends a whole duration sum on a load far from the edges (it used to classify max load, then halve
    down to the edge, 11 s at each step)."""
    model = dm.NoisyCliff(spread=0.004, seed=seed)
    result = search(model, dm.MAX_LOAD, goals=CSIT, min_load=dm.MIN_LOAD, final_duration=1.0, width=0.005, max_trials=2000)
    check_relevant(result, CSIT)
    per_load = {}
    for trial in result["trials"]:
        per_load[trial["load"]] = per_load.get(trial["load"], 0) + 1
    far = [load for load, count in per_load.items() if count >= 11 and abs(load / model.capacity - 1.0) > 0.03]
    assert far == []
