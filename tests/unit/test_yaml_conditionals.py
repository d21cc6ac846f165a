# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every conditional the YAML of the collection writes (``that``, ``when``, ``failed_when``,
``changed_when``, ``until``) is a string, as Ansible requires: a plain YAML scalar with ``: `` in it,
``- x is search('a: b')``, is a mapping, and the play fails only when it reaches the task
("Conditional expressions must be strings"), which ansible-lint and a syntax check do not see."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.offload.testbed.tests.unit.test_packaging import ROOT, Loader

KEYS = ("that", "when", "failed_when", "changed_when", "until")
TOPS = ("roles", "playbooks", "molecule", "extensions", "inventories", os.path.join("tests", "integration"))


def not_strings(data):
    """``(key, value)`` of every conditional in ``data`` that is not a string or a boolean."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in KEYS:
                found.extend((key, item) for item in (value if isinstance(value, list) else [value]) if not isinstance(item, (str, bool)))
            found.extend(not_strings(value))
    elif isinstance(data, list):
        for item in data:
            found.extend(not_strings(item))
    return found


def test_the_scan_sees_a_conditional_that_yaml_made_a_mapping():
    task = yaml.load("- ansible.builtin.assert:\n    that:\n      - out is search('check mode: \\\\S+ done')\n", Loader=Loader)
    assert not_strings(task) == [("that", {"out is search('check mode": "\\\\S+ done')"})]


def test_every_conditional_is_a_string():
    found = {}
    for top in TOPS:
        for base, _dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith((".yml", ".yaml")):
                    path = os.path.join(base, name)
                    with open(path) as handle:
                        bad = [item for document in yaml.load_all(handle, Loader=Loader) for item in not_strings(document)]
                    if bad:
                        found[os.path.relpath(path, ROOT)] = bad
    assert found == {}
