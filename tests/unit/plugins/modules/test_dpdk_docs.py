"""The dpdk_* modules' DOCUMENTATION documents their argument spec, option by option and suboption by suboption.

The documentation is read as ansible-doc renders it (the module's own and the
collection's doc fragments merged); every module must render.
"""
import copy
import functools
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.offload.testbed.plugins.modules import dpdk_devbind, dpdk_hugepages, dpdk_vfio

MODULES = {"dpdk_hugepages": dpdk_hugepages, "dpdk_vfio": dpdk_vfio, "dpdk_devbind": dpdk_devbind}
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
# The checkout as a collection (tests/unit/conftest.py links it there).
COLLECTIONS = os.path.join(ROOT, ".tmp", "pytest")
ALL_MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules")) if name.endswith(".py"))


@functools.lru_cache(maxsize=None)
def _ansible_doc():
    """``ansible-doc -j`` of every module of the collection, run once: {name: rendered doc}."""
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-doc"), "-j", "-t", "module"]
                         + ["offload.testbed." + name for name in ALL_MODULES],
                         env=dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS), capture_output=True, text=True, check=False)
    assert run.returncode == 0 and not run.stderr.strip(), run.stderr
    return dict((name.split(".")[-1], entry["doc"]) for name, entry in json.loads(run.stdout).items())


def rendered(name):
    """The documentation of module ``name`` as ansible-doc renders it (a copy: callers may change it)."""
    return copy.deepcopy(_ansible_doc()[name])


def differences(documented, spec, where=""):
    found = []
    for name in sorted(set(documented) | set(spec)):
        path = where + name
        if name not in spec or name not in documented:
            found.append("%s: %s" % (path, "documented, not in the argument spec" if name not in spec else "not documented"))
            continue
        doc, arg = documented[name], spec[name]
        if not doc.get("description"):
            found.append("%s: no description" % path)
        for key, unset in (("type", "str"), ("elements", None), ("choices", None), ("required", False), ("default", None)):
            if doc.get(key, unset) != arg.get(key, unset):
                found.append("%s: %s %r documented, %r in the argument spec" % (path, key, doc.get(key, unset), arg.get(key, unset)))
        found.extend(differences(doc.get("suboptions") or {}, arg.get("options") or {}, path + "."))
    return found


@pytest.mark.parametrize("name", sorted(MODULES))
def test_documentation_is_the_argument_spec(name):
    module = MODULES[name]
    doc = rendered(name)
    assert doc["module"] == name
    assert differences(doc["options"], module.ARGUMENT_SPEC) == []
    assert yaml.safe_load(module.EXAMPLES) and yaml.safe_load(module.RETURN)


def test_the_comparison_sees_a_difference():
    doc = rendered("dpdk_hugepages")["options"]
    doc["pages"]["suboptions"]["count"]["required"] = False
    assert differences(doc, dpdk_hugepages.ARGUMENT_SPEC) == ["pages.count: required False documented, True in the argument spec"]


def test_ansible_doc_renders_every_module_with_the_shared_parts():
    docs = _ansible_doc()
    assert sorted(docs) == ALL_MODULES
    for name, doc in docs.items():
        assert doc["author"] == ["offload.testbed developers (@offload-testbed)"], name
        assert doc["attributes"]["check_mode"]["support"] == "full" and doc["attributes"]["check_mode"]["description"], name
        assert doc["attributes"]["diff_mode"]["support"] in ("full", "none") and doc["options"], name
    assert docs["dpdk_vfio"]["options"]["validate_only"] == {
        "description": "Only read the host and check; return the problems in RV(errors) and change nothing.", "type": "bool", "default": False}
