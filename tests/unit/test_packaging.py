# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collections this one uses are declared: every other collection's module, filter or callback
named in the playbooks, roles, molecule scenarios and extensions is in requirements.yml, and those the
collection's own playbooks and roles need are also galaxy.yml's dependencies."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# A task's module: a key that is a fully qualified name.
MODULE = re.compile(r"^([a-z_]\w*\.[a-z_]\w*)\.[a-z_]\w*$")
# In a template: a filter (after a pipe), a test (after is) or a lookup by its fully qualified name.
PLUGIN = re.compile(r"(?:\|\s*|\bis\s+(?:not\s+)?|lookup\(\s*['\"])([a-z_]\w*\.[a-z_]\w*)\.[a-z_]\w*")
OWN = {"ansible.builtin", "offload.testbed", "ansible.legacy"}


class Loader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
    """YAML as Ansible reads it: ``!unsafe`` and ``!vault`` are strings."""


for _tag in ("!unsafe", "!vault"):
    Loader.add_constructor(_tag, lambda loader, node: loader.construct_scalar(node))


def collections_in(data):
    """The collections whose modules (keys) and plugins (in strings) ``data`` names."""
    if isinstance(data, dict):
        found = {match.group(1) for match in map(MODULE.match, map(str, data)) if match}
        return found.union(*(collections_in(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(collections_in(value) for value in data))
    return set(PLUGIN.findall(data)) if isinstance(data, str) else set()


def used_in(*tops):
    """The collections named in the YAML files under ``tops``: ``{collection: first file}``."""
    found = {}
    for top in tops:
        for base, _dirs, files in sorted(os.walk(os.path.join(ROOT, top))):
            for name in sorted(files):
                if name.endswith((".yml", ".yaml")):
                    path = os.path.join(base, name)
                    with open(path) as handle:
                        for collection in sorted(collections_in(list(yaml.load_all(handle, Loader=Loader))) - OWN):
                            found.setdefault(collection, os.path.relpath(path, ROOT))
    return found


def declared():
    with open(os.path.join(ROOT, "requirements.yml")) as handle:
        requirements = {entry["name"] for entry in yaml.safe_load(handle)["collections"]}
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        dependencies = set(yaml.safe_load(handle)["dependencies"] or {})
    return requirements, dependencies


def test_the_scan_sees_what_the_collection_uses():
    assert used_in("playbooks", "roles") == {"ansible.posix": "playbooks/generator.yml"}
    assert used_in("extensions")["awx.awx"] == "extensions/awx/configure.yml"


def test_every_collection_used_is_in_requirements_yml():
    requirements, _dependencies = declared()
    missing = {name: where for name, where in used_in("playbooks", "roles", "extensions", "molecule").items() if name not in requirements}
    assert missing == {}


def test_what_the_playbooks_and_roles_need_is_a_dependency_of_the_collection():
    _requirements, dependencies = declared()
    assert set(used_in("playbooks", "roles")) <= dependencies
