"""Every role has an argument spec, and its README documents the same
variables (regenerate with ``python tools/role_readme.py ROLE``)."""
import importlib.util
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ROLES = sorted(os.listdir(os.path.join(ROOT, "roles")))
_spec = importlib.util.spec_from_file_location("role_readme", os.path.join(ROOT, "tools", "role_readme.py"))
role_readme = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(role_readme)


@pytest.mark.parametrize("role", ROLES)
def test_readme_documents_the_argument_spec(role):
    assert os.path.exists(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")), "roles/%s has no argument spec" % role
    with open(os.path.join(ROOT, "roles", role, "README.md")) as handle:
        readme = handle.read()
    assert readme == role_readme.render(role), "roles/%s/README.md is out of date: run python tools/role_readme.py %s" % (role, role)
