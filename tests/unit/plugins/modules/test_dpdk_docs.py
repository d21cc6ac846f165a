"""The dpdk_* modules' DOCUMENTATION documents their argument spec, option by option and suboption by suboption."""
import pytest
import yaml

from ansible_collections.offload.testbed.plugins.modules import dpdk_devbind, dpdk_hugepages, dpdk_vfio

MODULES = {"dpdk_hugepages": dpdk_hugepages, "dpdk_vfio": dpdk_vfio, "dpdk_devbind": dpdk_devbind}


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
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert doc["module"] == name
    assert differences(doc["options"], module.ARGUMENT_SPEC) == []
    assert yaml.safe_load(module.EXAMPLES) and yaml.safe_load(module.RETURN)


def test_the_comparison_sees_a_difference():
    doc = yaml.safe_load(dpdk_hugepages.DOCUMENTATION)["options"]
    doc["pages"]["suboptions"]["count"]["required"] = False
    assert differences(doc, dpdk_hugepages.ARGUMENT_SPEC) == ["pages.count: required False documented, True in the argument spec"]
