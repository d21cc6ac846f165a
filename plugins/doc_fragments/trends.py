# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """``offload.testbed.trends``: a module that reads the trends of the results database (module_utils
    ``bench/results_source``): its option C(url) and the libraries it needs."""

    DOCUMENTATION = r"""
options:
  url:
    description:
      - The results database, as an SQLAlchemy URL (C(sqlite:////path/results.db), C(postgresql+psycopg://user:password@host/db));
        read instead of the C(results.db) of O(results_dir).
      - A secret (no_log) - messages and return values show it without its password.
    type: str
requirements:
  - SQLAlchemy >= 2
  - jumpavg >= 0.4
  - psycopg >= 3.1 (PostgreSQL only)
"""
