# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests of the multi-goal throughput search against simulated devices."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import search as search_module
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.goals import DEFAULT_GOALS
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import search
from ansible_collections.offload.testbed.tests.support import device_models as dm

FINAL = 10.0
WIDTH = 0.005
MODEL_IDS = [cls.name for cls in dm.MODELS]


def run(model, **kwargs):
    kwargs.setdefault("min_load", dm.MIN_LOAD)
    return search(model, dm.MAX_LOAD, **kwargs)


def assert_contract(result, max_load=dm.MAX_LOAD, min_load=dm.MIN_LOAD, final=FINAL, width=WIDTH, goals=DEFAULT_GOALS,
                    upper_duration=None):
    """Every guarantee of shared/contracts/search.md, for every goal.

    With ``upper_duration`` (search's ``upper_bound_duration``) upper bounds may
    rest on trials of that duration instead of final ones.
    """
    upper_duration = final if upper_duration is None else upper_duration
    trials = result["trials"]
    assert set(result) >= {"goals", "trials", "trial_seconds"}
    assert result["trial_seconds"] == pytest.approx(sum(trial["duration"] for trial in trials))
    for trial in trials:
        assert 0.0 < trial["duration"] <= final
        assert min_load <= trial["load"] <= max_load
        assert set(trial) >= {"load", "duration", "offered", "received", "loss_ratio"}
    assert list(result["goals"]) == [goal["name"] for goal in goals]
    for goal in goals:
        entry = result["goals"][goal["name"]]
        ratio = goal["loss_ratio"]
        assert entry["loss_ratio"] == ratio
        lower, upper = entry["lower_bound"], entry["upper_bound"]
        finals = [trial for trial in trials if trial["duration"] == final]
        uppers = [trial for trial in trials if trial["duration"] >= upper_duration]
        if lower == 0.0:
            # min_load already misses the goal.
            assert upper == min_load
            assert any(trial["load"] == min_load and trial["loss_ratio"] > ratio for trial in uppers)
            continue
        # A final trial at the lower bound met the goal.
        index = entry["lower_bound_trial"]
        assert trials[index]["load"] == lower
        assert trials[index]["duration"] == final
        assert trials[index]["loss_ratio"] <= ratio
        # The upper bound is max_load, or a final trial there missed the goal.
        if upper != max_load:
            assert any(trial["load"] == upper and trial["loss_ratio"] > ratio for trial in uppers)
        if lower == max_load:
            assert upper == max_load
        else:
            assert lower < upper
            assert (upper - lower) / upper <= width
        # Non-monotonic loss: no final trial at or below the lower bound missed the goal.
        for trial in finals:
            if trial["loss_ratio"] > ratio:
                assert trial["load"] > lower
        # The upper bound is the lowest final trial that missed the goal.
        missed = [trial["load"] for trial in uppers if trial["loss_ratio"] > ratio]
        if missed:
            assert upper == min(missed)
        # No short trial that missed the goal below the lower bound is left unchecked.
        for trial in trials:
            if trial["loss_ratio"] > ratio and trial["load"] <= lower:
                assert any(other["load"] == trial["load"] for other in finals)


def assert_near_truth(model, result, width=WIDTH):
    for goal in result["goals"].values():
        true = model.true_value(goal["loss_ratio"])
        if true == 0.0:
            assert goal["lower_bound"] == 0.0
            continue
        tolerance = (width + getattr(model, "noise", 0.0)) * true
        assert abs(goal["lower_bound"] - true) <= tolerance, (goal, true)
        assert abs(goal["upper_bound"] - true) <= tolerance, (goal, true)


@pytest.mark.parametrize("cls", dm.MODELS, ids=MODEL_IDS)
def test_guarantees_and_truth(cls):
    model = cls()
    result = run(model)
    assert_contract(result)
    assert_near_truth(model, result)
    # Every trial the search reports is a trial it asked for.
    assert [(trial["load"], trial["duration"]) for trial in result["trials"]] == model.calls


@pytest.mark.parametrize("cls", dm.MODELS, ids=MODEL_IDS)
def test_json_serialisable(cls):
    result = run(cls())
    assert json.loads(json.dumps(result)) == result


@pytest.mark.parametrize("seed", range(12))
def test_noisy_seeds(seed):
    model = dm.NoisyCliff(seed=seed)
    result = run(model)
    assert_contract(result)
    assert_near_truth(model, result)


@pytest.mark.parametrize("capacity", [20000.0, 1000000.0, 7777777.0, 14000000.0, 14850000.0])
def test_cliff_capacities(capacity):
    model = dm.CleanCliff(capacity=capacity)
    result = run(model)
    assert_contract(result)
    assert_near_truth(model, result)


def test_custom_goals_width_and_durations():
    goals = [{"name": "strict", "loss_ratio": 0.0}, {"name": "loose", "loss_ratio": 0.02}]
    model = dm.GradualLoss()
    result = search(model, dm.MAX_LOAD, goals=goals, min_load=dm.MIN_LOAD, final_duration=5.0, width=0.01, initial_duration=0.5)
    assert_contract(result, final=5.0, width=0.01, goals=goals)
    assert_near_truth(model, result, width=0.01)
    assert min(trial["duration"] for trial in result["trials"]) == 0.5


def test_never_loses_reports_max_load():
    result = run(dm.NeverLoses())
    for entry in result["goals"].values():
        assert entry["lower_bound"] == entry["upper_bound"] == dm.MAX_LOAD


def test_always_loses_reports_min_load():
    result = run(dm.AlwaysLoses())
    for entry in result["goals"].values():
        assert entry["lower_bound"] == 0.0
        assert entry["upper_bound"] == dm.MIN_LOAD
        assert entry["lower_bound_trial"] is None


def test_default_min_load_is_thousandth():
    model = dm.AlwaysLoses()
    result = search(model, 1000000.0)
    assert result["goals"]["ndr"]["upper_bound"] == pytest.approx(1000.0)


class SteepCollapseDip(dm.DipAndReturn):
    """The dip model with a steeper collapse: forwarding falls with the cube of the overload.

    The excess loss above the capacity is concave, so both the forwarding
    projection and the secant fall short of the PDR edge, and the PDR search
    measures clean loads between the band and the capacity.
    """

    def expected_loss(self, load):
        if self.band[0] < load <= self.band[1]:
            return self.band_loss
        if load <= self.capacity:
            return 0.0
        return 1.0 - (self.capacity / load) ** 3


def test_dip_found_and_lossy_trial_below_clean_lowers_bound():
    model = SteepCollapseDip()
    result = run(model)
    assert_contract(result)
    ndr = result["goals"]["ndr"]
    # Clean trials above the lossy band exist (the PDR search made them),
    # yet the NDR stays below the band.
    clean_above = [trial for trial in result["trials"] if trial["loss_ratio"] == 0.0 and trial["load"] > model.band[1]]
    assert clean_above
    assert ndr["upper_bound"] <= model.band[0] / (1.0 - WIDTH)
    assert result["goals"]["pdr"]["lower_bound"] > model.capacity * (1.0 - WIDTH)


def test_the_dip_model_is_settled_through_the_secant_of_its_collapse():
    """Above the capacity the dip model forwards less and less: the forwarding projection falls short of the PDR
    edge, the secant of the excess loss does not, and the search goes there without a clean trial above the band."""
    model = dm.DipAndReturn()
    result = run(model)
    assert_contract(result)
    assert result["goals"]["ndr"]["upper_bound"] <= model.band[0] / (1.0 - WIDTH)
    assert result["goals"]["pdr"]["lower_bound"] > model.capacity * (1.0 - WIDTH)
    above = [trial for trial in result["trials"] if model.band[1] < trial["load"] < model.capacity * (1.0 - 2 * WIDTH)]
    assert above == []


def test_lossy_short_trial_below_lower_bound_is_rechecked():
    """A short trial that lost below the final lower bound is measured again at full duration."""
    capacity = 5000000.0

    def measure(load, duration):
        offered = int(load * duration)
        if load <= capacity:
            # A spurious loss on short trials at one low load.
            lost = 10 if (duration < FINAL and 0.99 * capacity <= load < capacity) else 0
        else:
            lost = int(offered * (1.0 - capacity / load))
        return {"offered": offered, "received": offered - lost}

    result = search(measure, dm.MAX_LOAD, min_load=dm.MIN_LOAD)
    assert_contract(result)
    assert result["goals"]["ndr"]["lower_bound"] >= capacity * (1.0 - WIDTH)


def test_nonmonotonic_final_sequence():
    """Loss at a low load, clean above it: the lower bound must sit below the lossy load."""
    bad = 3000000.0

    def measure(load, duration):
        offered = int(load * duration)
        if abs(load - bad) / bad < 0.002 or 2950000.0 < load < 3050000.0:
            lost = offered // 100
        elif load <= 6000000.0:
            lost = 0
        else:
            lost = int(offered * (1.0 - 6000000.0 / load))
        return {"offered": offered, "received": offered - lost}

    result = search(measure, dm.MAX_LOAD, min_load=dm.MIN_LOAD, max_trials=400)
    assert_contract(result)


def test_on_trial_callback_and_achieved_load():
    seen = []

    def measure(load, duration):
        reply = dm.CleanCliff()(load, duration)
        reply["achieved_load"] = load * 0.999
        return reply

    result = search(measure, dm.MAX_LOAD, on_trial=seen.append)
    assert [entry["index"] for entry in seen] == list(range(len(result["trials"])))
    assert all("achieved_load" in trial for trial in result["trials"])


def test_first_trial_is_short_at_max_load():
    model = dm.CleanCliff()
    result = run(model)
    first = result["trials"][0]
    assert first["load"] == dm.MAX_LOAD
    assert first["duration"] == 1.0


def test_max_trials_cap():
    with pytest.raises(RuntimeError, match="max_trials"):
        run(dm.SoftKnee(), max_trials=3)


@pytest.mark.parametrize("kwargs, word", [
    ({"goals": [{"name": "x", "loss_ratio": 1.0}]}, "loss_ratio"),
    ({"goals": [{"name": "x", "loss_ratio": -0.1}]}, "loss_ratio"),
    ({"goals": [{"name": "x"}]}, "loss_ratio"),
    ({"goals": [{"loss_ratio": 0.0}]}, "name"),
    ({"goals": []}, "goals"),
    ({"goals": "ndr"}, "goals"),
    ({"goals": [{"name": "x", "loss_ratio": 0.0}, {"name": "x", "loss_ratio": 0.1}]}, "duplicate"),
    ({"width": 0.0}, "width"),
    ({"width": 0.5}, "width"),
    ({"width": -1}, "width"),
    ({"min_load": 2e7}, "min_load"),
    ({"min_load": 0.0}, "min_load"),
    ({"final_duration": 0}, "final_duration"),
    ({"initial_duration": -1.0}, "initial_duration"),
    ({"max_trials": 0}, "max_trials"),
    ({"on_trial": 3}, "on_trial"),
    ({"upper_bound_duration": 0.5}, "upper_bound_duration"),
    ({"upper_bound_duration": 11.0}, "upper_bound_duration"),
    ({"upper_bound_duration": "short"}, "upper_bound_duration"),
])
def test_input_validation(kwargs, word):
    with pytest.raises(ValueError, match=word):
        search(dm.CleanCliff(), dm.MAX_LOAD, **kwargs)


@pytest.mark.parametrize("max_load", [0.0, -5.0, "fast", float("nan")])
def test_max_load_validation(max_load):
    with pytest.raises(ValueError, match="max_load"):
        search(dm.CleanCliff(), max_load)


def test_measure_must_be_callable():
    with pytest.raises(ValueError, match="measure"):
        search(None, dm.MAX_LOAD)


def test_optimistic_short_trials_do_not_walk_down_one_final_at_a_time():
    model = dm.TokenBucket()
    result = run(model, final_duration=FINAL, width=WIDTH, initial_duration=1.0)
    assert_contract(result)
    capacity = model.rate + model.bucket / FINAL
    for entry in result["goals"].values():
        assert entry["lower_bound"] <= capacity * (1.0 + entry["loss_ratio"]) / (1.0 - entry["loss_ratio"]) * 1.0001
        assert entry["upper_bound"] >= capacity * 0.9999
    finals = [trial for trial in result["trials"] if trial["duration"] == FINAL]
    # short trials say 6.5 Mpps, finals 6.05 Mpps: a walk down by width would take ~15 finals per goal
    assert len(finals) <= 12, [(trial["load"], trial["duration"], trial["loss_ratio"]) for trial in result["trials"]]


def test_a_band_of_even_loss_is_stepped_down_not_extrapolated_to_a_spurious_root():
    """Two trials in the dip model's band lose the same 0.2 %: the secant of their excess loss meets zero near no load
    at all (a rounding of their packet counts puts it at 0.2 % of the load); the search takes that loss as flat and
    steps down from the band, instead of jumping there and climbing back."""
    model = dm.DipAndReturn(capacity=9000000.0)
    result = run(model, final_duration=1.0)
    assert_contract(result, final=1.0)
    assert min(trial["load"] for trial in result["trials"]) > model.band[0] * 0.9
    assert result["goals"]["ndr"]["upper_bound"] <= model.band[0] / (1.0 - WIDTH)


def stale_overload(capacity, first_clean):
    """A device that, overloaded, forwards the most it forwarded clean so far: every projection is stale."""
    best = {"clean": first_clean}

    def measure(load, duration):
        offered = int(load * duration)
        if load <= capacity:
            best["clean"] = max(best["clean"], load)
            return {"offered": offered, "received": offered}
        return {"offered": offered, "received": int(best["clean"] * duration)}
    return measure


def test_step_up_doubles_while_short_tries_above_a_stale_guess_meet_the_goal():
    # Overloaded, this device forwards what it forwarded clean before, so the
    # projections point at the highest clean load and are not trusted (the
    # forwarding rate falls with the load): the search tries upper bounds
    # short. Each such try that meets the goal moves the lower edge up, and the
    # next step is twice the last (one width, two, four...) instead of one
    # width each time.
    result = search(stale_overload(5000000.0, 4000000.0), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=10.0, width=0.005,
                    initial_duration=1.0)
    trials = result["trials"]
    pdr = 0.005
    steps = []
    for before, after in zip(trials, trials[1:]):
        if (before["duration"] == after["duration"] == 1.0 and before["loss_ratio"] <= pdr and after["loss_ratio"] <= pdr
                and after["load"] > before["load"]):
            steps.append(after["load"] / before["load"] - 1.0)
    assert len(steps) >= 3, trials
    assert steps[0] >= 0.005 * 0.999 * 0.99
    assert steps[1] == pytest.approx(2 * steps[0], rel=0.05)
    assert steps[2] == pytest.approx(4 * steps[0], rel=0.05)
    assert 4900000.0 < result["goals"]["ndr"]["lower_bound"] <= 5000000.0 < result["goals"]["ndr"]["upper_bound"]
    for goal in result["goals"].values():
        assert (goal["upper_bound"] - goal["lower_bound"]) / goal["upper_bound"] <= 0.005


def test_with_final_short_trials_a_collapse_steps_up_four_widths_first():
    """When every trial is a final one, a step costs what a confirmation costs: on a collapse the first step up is
    four widths."""
    result = search(stale_overload(5000000.0, 4000000.0), dm.MAX_LOAD, min_load=dm.MIN_LOAD, final_duration=1.0, width=0.005,
                    initial_duration=1.0)
    trials = result["trials"]
    steps = [after["load"] / before["load"] - 1.0 for before, after in zip(trials, trials[1:])
             if before["loss_ratio"] == after["loss_ratio"] == 0.0 and after["load"] > before["load"]]
    assert steps[0] == pytest.approx(4 * 0.005 * 0.999, rel=0.01), trials
    assert steps[1] == pytest.approx(2 * steps[0], rel=0.05)


def test_a_probe_above_the_first_projection_measures_a_cliff_twice():
    # The first trial's forwarding rate is the cliff's capacity; the second is a short
    # probe two widths above it, which forwards the same rate: the device is a cliff,
    # and the third trial confirms half a width below it at once, with a final trial.
    model = dm.CleanCliff()
    result = run(model, final_duration=FINAL, width=WIDTH, initial_duration=1.0)
    assert_contract(result)
    first, probe, confirm = result["trials"][:3]
    assert probe["duration"] == 1.0
    assert probe["load"] == pytest.approx(model.capacity * (1.0 + 2.0 * WIDTH * 0.999), rel=1e-9)
    assert probe["received"] == pytest.approx(first["received"], rel=1e-6)
    assert confirm["duration"] == FINAL
    assert confirm["load"] == pytest.approx(model.capacity * (1.0 - WIDTH * 0.999 / 2.0), rel=1e-9)
    assert confirm["loss_ratio"] == 0.0
    # Then one final trial is NDR's upper bound and PDR's lower bound, and one is PDR's upper.
    assert len(result["trials"]) == 5


def test_noisy_cliff_capacity_is_the_mean_of_two_short_trials():
    # One short trial's forwarding rate strays 0.15 % on this model; the mean of the
    # first trial and the probe strays 0.11 %, so the first final trial lands within
    # half a width of the capacity more often and three final trials settle every goal:
    # in 49 of these 50 seeds (45 when the first trial alone made the guess).
    settled_in_three = 0
    for seed in range(1, 51):
        result = run(dm.NoisyCliff(seed=seed), final_duration=FINAL, width=WIDTH, initial_duration=1.0)
        assert_contract(result)
        settled_in_three += sum(trial["duration"] == FINAL for trial in result["trials"]) <= 3
    assert settled_in_three >= 48


def test_a_lossy_final_below_an_agreed_cliff_ends_the_cliff_guess():
    # A policer passes 8.1 Mpps in 1 s trials and 8.01 Mpps in 10 s ones: the first trial
    # and the probe agree on 8.1 Mpps, the final trial half a width below misses, and the
    # search goes on from that final trial's forwarding rate, not from a secant through
    # trials of different durations (which pointed at 7.43 Mpps).
    model = dm.TokenBucket(rate=8000000.0, bucket=100000.0)
    result = run(model, final_duration=FINAL, width=WIDTH, initial_duration=1.0)
    assert_contract(result)
    trials = result["trials"]
    assert trials[2]["duration"] == FINAL and trials[2]["loss_ratio"] > 0.0
    long_rate = model.rate + model.bucket / FINAL
    assert min(trial["load"] for trial in trials) >= long_rate * (1.0 - 2.0 * WIDTH)
    for entry in result["goals"].values():
        assert entry["upper_bound"] >= long_rate * 0.9999


@pytest.mark.parametrize("cls", dm.MODELS + dm.EXTRA_MODELS, ids=[cls.name for cls in dm.MODELS + dm.EXTRA_MODELS])
def test_upper_bounds_by_mlrsearch_rule(cls):
    # upper_bound_duration=initial_duration: a short trial that lost too much is an upper
    # bound, as in MLRsearch; lower bounds still rest on final trials, and the width holds.
    model = cls()
    result = run(model, final_duration=FINAL, width=WIDTH, initial_duration=1.0, upper_bound_duration=1.0)
    assert_contract(result, upper_duration=1.0)
    assert_near_truth(model, result)


def test_clean_cliff_by_mlrsearch_rule_needs_final_trials_only_at_lower_bounds():
    model = dm.CleanCliff()
    contract = run(model, final_duration=FINAL, width=WIDTH, initial_duration=1.0)
    relaxed = run(dm.CleanCliff(), final_duration=FINAL, width=WIDTH, initial_duration=1.0, upper_bound_duration=1.0)
    assert_contract(relaxed, upper_duration=1.0)
    finals = [trial for trial in relaxed["trials"] if trial["duration"] == FINAL]
    lower_trials = set(entry["lower_bound_trial"] for entry in relaxed["goals"].values())
    assert set(relaxed["trials"].index(trial) for trial in finals) == lower_trials
    for entry in relaxed["goals"].values():
        upper_trials = [trial for trial in relaxed["trials"] if trial["load"] == entry["upper_bound"] and trial["duration"] == 1.0]
        assert upper_trials and upper_trials[0]["loss_ratio"] > entry["loss_ratio"]
    assert relaxed["trial_seconds"] < contract["trial_seconds"]


# -- proposals change nothing until their trial runs -------------------------


class _Watched(search_module._Search):  # pylint: disable=protected-access
    """A search that, before every trial, asks every open goal for its proposal and checks that asking changed nothing."""

    def next_trial(self, open_goals):
        before = _state(self)
        for goal in self.goals:
            self.propose(goal)
        assert _state(self) == before
        return search_module._Search.next_trial(self, open_goals)  # pylint: disable=protected-access


def _state(state):
    return copy.deepcopy(dict((key, value) for key, value in vars(state).items() if key not in ("measure", "on_trial")))


def _watched_run(model, **kwargs):
    watched = _Watched(model, dm.MAX_LOAD, [dict(goal) for goal in DEFAULT_GOALS], dm.MIN_LOAD, FINAL, WIDTH, kwargs.get("initial_duration", 1.0),
                       None, 200, kwargs.get("upper_bound_duration"))
    return watched.loop()


@pytest.mark.parametrize("upper_bound_duration", [None, 1.0])
@pytest.mark.parametrize("make", list(dm.MODELS + dm.EXTRA_MODELS) + [lambda seed=seed: dm.NoisyCliff(spread=0.004, seed=seed) for seed in range(6)],
                         ids=[cls.name for cls in dm.MODELS + dm.EXTRA_MODELS] + ["noisy_0.4%%_seed%d" % seed for seed in range(6)])
def test_propose_is_pure(make, upper_bound_duration):
    # Asking every goal for its proposal before each trial (as next_trial did before
    # propose was pure) changes neither the search's state nor the trials it runs.
    watched = _watched_run(make(), upper_bound_duration=upper_bound_duration)
    plain = run(make(), upper_bound_duration=upper_bound_duration)
    assert watched == plain
    assert_contract(watched, upper_duration=upper_bound_duration)


def test_only_the_chosen_proposal_changes_the_search():
    # Gradual loss: the discarded proposals of ndr_1e-5 and PDR used to advance their
    # down steps, so PDR later stepped down further than its projection (a short trial
    # at 5.3 Mpps, 9 trials and 45 s); now it goes to its projection at once.
    result = run(dm.GradualLoss())
    assert_contract(result)
    assert len(result["trials"]) == 8
    assert result["trial_seconds"] == 44.0
    assert sorted(trial["load"] for trial in result["trials"])[-3] < 3200000.0


@pytest.mark.parametrize("capacity", [1100000.0 * 1.37 ** step for step in range(8)] + [4200000.0])
def test_clean_cliff_trial_count(capacity):
    # The first trial at max_load, a short probe, then three final trials: NDR's lower
    # bound, one that is NDR's upper and PDR's lower bound, and PDR's upper bound (32 s).
    # Three finals are the fewest the contract allows here: a final missing PDR lies above
    # capacity / (1 - 0.005), one more than a width above any final that meets NDR, so
    # no two final trials bound both goals.
    result = run(dm.CleanCliff(capacity))
    assert_contract(result)
    durations = [trial["duration"] for trial in result["trials"]]
    assert durations == [1.0, 1.0, FINAL, FINAL, FINAL]
    assert result["trial_seconds"] == 32.0


# -- the trial record: the measure's reply, and more frames back than sent -----------


def test_trial_record_keeps_every_key_of_the_reply():
    seen = []

    def measure(load, duration):
        reply = dm.CleanCliff()(load, duration)
        reply.update({"time": "2024-01-01T00:00:00Z", "health_before": {"pid": 42, "flows": [1, 2]}, "cpu": [0.5, 0.25], "starved": False,
                      "generator_limited": load > 14000000.0, "interrupted_before": 0, "achieved_load": int(load),
                      # The search's own keys win over the reply's.
                      "load": "bogus", "duration": -1, "loss_ratio": 0.5, "index": 99})
        return reply

    result = search(measure, dm.MAX_LOAD, on_trial=seen.append)
    assert_contract(result)
    for index, (trial, reported) in enumerate(zip(result["trials"], seen)):
        assert reported == dict(trial, index=index)
        assert trial["time"] == "2024-01-01T00:00:00Z"
        assert trial["health_before"] == {"pid": 42, "flows": [1, 2]}
        assert trial["cpu"] == [0.5, 0.25]
        assert trial["starved"] is False and trial["interrupted_before"] == 0
        assert trial["generator_limited"] is (trial["load"] > 14000000.0)
        assert isinstance(trial["achieved_load"], float)
        assert isinstance(trial["load"], float) and 0.0 < trial["duration"] <= FINAL
        assert trial["loss_ratio"] == pytest.approx(1.0 - trial["received"] / trial["offered"]) and trial["loss_ratio"] != 0.5
        assert "index" not in trial and "excess" not in trial
    assert json.loads(json.dumps(result)) == result


def test_achieved_load_none_is_left_out():
    def measure(load, duration):
        return dict(dm.CleanCliff()(load, duration), achieved_load=None)

    result = search(measure, dm.MAX_LOAD)
    assert all("achieved_load" not in trial for trial in result["trials"])


def test_more_frames_back_than_sent_is_no_loss_and_is_recorded_as_excess():
    # Late frames of an earlier trial or foreign traffic: received > offered. The loss
    # ratio is 0.0 (never negative) and the record says how many frames were too many.
    model = dm.CleanCliff()
    surplus = {}

    def measure(load, duration):
        reply = model(load, duration)
        if reply["received"] == reply["offered"]:
            surplus[(load, duration)] = 7
            reply["received"] += 7
        # A reply's own "excess" is not the search's: not copied.
        reply["excess"] = -1
        return reply

    result = search(measure, dm.MAX_LOAD, min_load=dm.MIN_LOAD)
    assert_contract(result)
    assert surplus
    for trial in result["trials"]:
        if (trial["load"], trial["duration"]) in surplus:
            assert trial["loss_ratio"] == 0.0
            assert trial["excess"] == 7 and isinstance(trial["excess"], int)
        else:
            assert trial["loss_ratio"] > 0.0
            assert "excess" not in trial
    assert_near_truth(model, result)


def test_frames_back_when_none_were_sent():
    # Nothing offered: nothing shows the device met a goal (loss ratio 1.0), and what came back is excess.
    def measure(load, duration):
        return {"offered": 0, "received": 3}

    result = search(measure, dm.MAX_LOAD, min_load=dm.MIN_LOAD)
    assert result["trials"][0]["loss_ratio"] == 1.0
    assert result["trials"][0]["excess"] == 3
    for entry in result["goals"].values():
        assert entry["lower_bound"] == 0.0 and entry["upper_bound"] == dm.MIN_LOAD
