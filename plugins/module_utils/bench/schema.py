# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The schema version of the bench's results files, shared by the writer
(``plugins/plugin_utils/bench/results.py``, on the controller) and the report
module (``bench_report``), which reads every version listed here, and where
the report goes by default."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

# 3: RFC 9971's goal attributes and per goal its conditional throughput and regular or irregular result
# (optional: version 2 documents are read as version 3 without them).
SCHEMA_VERSION = 3
READABLE_SCHEMA_VERSIONS = (1, 2, 3)

# What the bench records with a trial about the DUT besides its health (optional: a version 2 document without them,
# from an older bench or with dut_health false, is read too): its CPU use (bench_health.cpu_use), where the packets ran
# (offload_facts.offload_use) and how they spread over the receive queues (offload_facts.rx_queue_use).
TRIAL_EVIDENCE = ("cpu", "offload", "rx_queues")

# bench_report writes into <results_dir>/report unless told otherwise.
REPORT_DIR = "report"


def report_dir(results_dir):
    """Where ``bench_report`` writes the report of ``results_dir`` by default."""
    return os.path.join(results_dir, REPORT_DIR)


def report_file(results_dir):
    """The HTML report of ``results_dir`` (``report.md`` beside it holds the same tables)."""
    return os.path.join(report_dir(results_dir), "report.html")
