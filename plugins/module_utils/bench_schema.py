# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The schema version of the bench's results files, shared by the writer
(``plugins/plugin_utils/bench/results.py``, on the controller) and the report
module (``bench_report``), which reads every version listed here."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)
