# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The goals of the throughput search: their vocabulary, the presets and their checks.

A goal is a name and a loss ratio, and may add RFC 9971's attributes
(``exceed_ratio``, ``final_duration``, ``duration_sum``, ``initial_duration``,
``width``) or be a preset (``rfc2544``, ``tst009``: rfc9971.PRESETS).
:func:`check_goals` is what ``search.search`` runs on its ``goals``;
``spec.py`` uses the same ranges for the arguments of ``trex_bench``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import rfc9971

DEFAULT_GOALS = (
    {"name": "ndr", "loss_ratio": 0.0},
    {"name": "ndr_1e-5", "loss_ratio": 0.00001},
    {"name": "pdr", "loss_ratio": 0.005},
)

# A goal's name, loss ratio and the RFC 9971 attributes it may add
# (plugin_utils/bench/rfc9971.py): attribute -> (lowest, highest), the highest
# never allowed, the lowest only for ratios. None (as Ansible's argument spec
# fills an option not given) means not given.
GOAL_RANGES = {
    "loss_ratio": (0.0, 1.0),
    "exceed_ratio": (0.0, 1.0),
    "final_duration": (0.0, float("inf")),
    "duration_sum": (0.0, float("inf")),
    "initial_duration": (0.0, float("inf")),
    "width": (0.0, 0.5),
}
_RATIOS = ("loss_ratio", "exceed_ratio")


def goal_value_ok(key, value):
    """Whether ``value`` is a good ``key`` of a goal (GOAL_RANGES)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return False
    low, high = GOAL_RANGES[key]
    return (low <= value if key in _RATIOS else low < value) and value < high


def goal_range(key):
    """The interval a goal's ``key`` must lie in, as text: ``[0, 1)``, ``(0, inf)``."""
    low, high = GOAL_RANGES[key]
    return "%s%g, %g)" % ("[" if key in _RATIOS else "(", low, high)


def resolve_preset(goal):
    """The goal as given, a preset's name (``rfc2544``, ``tst009``) or a mapping with ``preset``, as a mapping."""
    if isinstance(goal, str):
        goal = {"preset": goal}
    if not hasattr(goal, "get"):
        raise ValueError("goals: each goal must be a mapping with name and loss_ratio, or a preset (%s), got %r"
                         % (", ".join(sorted(rfc9971.PRESETS)), goal))
    preset = goal.get("preset")
    if preset is None:
        return dict((key, value) for key, value in goal.items() if value is not None)
    if preset not in rfc9971.PRESETS:
        raise ValueError("goals: unknown preset %r (known: %s)" % (preset, ", ".join(sorted(rfc9971.PRESETS))))
    merged = dict(rfc9971.PRESETS[preset], name=preset)
    merged.update((key, value) for key, value in goal.items() if value is not None and key != "preset")
    return merged


def _check_goal(goal, names):
    """One goal, checked: name, loss ratio and the RFC 9971 attributes it gives."""
    goal = resolve_preset(goal)
    name = goal.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("goals: each goal needs a non-empty string name, got %r" % (name,))
    if name in names:
        raise ValueError("goals: duplicate goal name %r" % name)
    unknown = sorted(set(goal) - set(GOAL_RANGES) - {"name"})
    if unknown:
        raise ValueError("goals: goal %r has unknown keys %s (known: name, preset, %s)"
                         % (name, ", ".join(unknown), ", ".join(sorted(GOAL_RANGES))))
    if "loss_ratio" not in goal:
        raise ValueError("goals: loss_ratio of goal %r must be a number, got None" % name)
    for key in sorted(goal):
        if key != "name" and not goal_value_ok(key, goal[key]):
            raise ValueError("goals: %s of goal %r must be a number in %s, got %r" % (key, name, goal_range(key), goal[key]))
    return dict((key, value if key == "name" else float(value)) for key, value in goal.items())


def check_goals(goals):
    """The goals given to the search, checked and as floats; the default goals for None."""
    if goals is None:
        return [dict(goal) for goal in DEFAULT_GOALS]
    if isinstance(goals, (str, bytes)) or not hasattr(goals, "__iter__"):
        raise ValueError("goals must be a list of {'name': str, 'loss_ratio': float}, got %r" % (goals,))
    checked = []
    for goal in goals:
        checked.append(_check_goal(goal, set(entry["name"] for entry in checked)))
    if not checked:
        raise ValueError("goals must not be empty")
    return checked


def is_rfc_goal(goal):
    """Whether a goal gives RFC 9971 attributes of its own: then its bounds are the RFC's relevant bounds."""
    return any(key in goal for key in ("exceed_ratio", "duration_sum", "final_duration"))
