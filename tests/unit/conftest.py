"""Make ``ansible_collections.offload.testbed`` importable from this checkout.

The repository root is the collection. Python can only import it under a
directory layout ``ansible_collections/offload/testbed``, so the tests link the
checkout into ``.tmp/pytest/ansible_collections/offload/testbed`` and put
``.tmp/pytest`` first on ``sys.path``.
"""
import importlib.util
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
FIXTURES = os.path.abspath(os.path.join(ROOT, "tests", "fixtures"))


_COLLECTION_LINK.link_collection(ROOT)

# Modules that Ansible runs from tests (pytest-ansible) use this Python:
# interpreter discovery can find a broken python3.13 shim on our machines.
os.environ.setdefault("ANSIBLE_PYTHON_INTERPRETER", sys.executable)
