# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading the host's files (sysfs, procfs, a module's record) the way the dpdk_host modules do: a file that is
not there, or cannot be read, reads as a default instead of failing, so that a missing attribute is a finding
the module reports, not a traceback."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


def read_text(path, default=''):
    """The text of ``path``, or ``default`` when it cannot be read."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return default


def read_record(path):
    """A module's JSON record at ``path``; ``{}`` when there is none (or it is empty)."""
    return json.loads(read_text(path, '{}') or '{}')
