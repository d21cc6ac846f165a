# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make ``ansible_collections.offload.testbed`` importable from this checkout.

The repository root is the collection. Python imports it only under a layout
``ansible_collections/offload/testbed``: the checkout is linked into
``.tmp/pytest/ansible_collections/offload/testbed`` and ``.tmp/pytest`` goes
first on ``sys.path``. Used by tests/unit/conftest.py, the benchmarks and the
tools, each loading this file by its path.
"""

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def link_collection(root=ROOT):
    base = os.path.join(root, ".tmp", "pytest")
    ns_dir = os.path.join(base, "ansible_collections", "offload")
    link = os.path.join(ns_dir, "testbed")
    os.makedirs(ns_dir, exist_ok=True)
    if not os.path.islink(link):
        try:
            os.symlink(root, link)
        except FileExistsError:
            pass
    if base not in sys.path:
        sys.path.insert(0, base)
