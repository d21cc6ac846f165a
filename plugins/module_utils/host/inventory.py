# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Placeholders left in a lab inventory.

The lab inventories ship a value only the user can know (a host's address,
the checksum of the TRex archive they downloaded) as a string that starts
with ``REPLACE``; playbooks/site.yml refuses to start while one is left.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

MARK = 'REPLACE'


def placeholders(values):
    """Messages for every (host, variable, value) whose value is still a placeholder."""
    found = []
    for host, name, value in values:
        if isinstance(value, str) and value.strip().upper().startswith(MARK):
            found.append('%s: %s is still the placeholder %r' % (host, name, value))
    return found
