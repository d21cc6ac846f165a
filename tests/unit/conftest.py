"""Make ``ansible_collections.offload.testbed`` importable from this checkout.

The repository root is the collection. Python can only import it under a
directory layout ``ansible_collections/offload/testbed``, so the tests link the
checkout into ``.tmp/pytest/ansible_collections/offload/testbed`` and put
``.tmp/pytest`` first on ``sys.path``.
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.abspath(os.path.join(ROOT, "tests", "fixtures"))


def _link_collection():
    base = os.path.join(ROOT, ".tmp", "pytest")
    ns_dir = os.path.join(base, "ansible_collections", "offload")
    link = os.path.join(ns_dir, "testbed")
    os.makedirs(ns_dir, exist_ok=True)
    if not os.path.islink(link):
        try:
            os.symlink(ROOT, link)
        except FileExistsError:
            pass
    if base not in sys.path:
        sys.path.insert(0, base)


_link_collection()

# Modules that Ansible runs from tests (pytest-ansible) use this Python:
# interpreter discovery can find a broken python3.13 shim on our machines.
os.environ.setdefault("ANSIBLE_PYTHON_INTERPRETER", sys.executable)
