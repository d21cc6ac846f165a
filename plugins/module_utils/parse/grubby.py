# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parser of ``grubby --info=ALL`` (the boot entries and their kernel arguments).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, to_int


_GRUBBY_FIELDS = ('kernel', 'root', 'initrd', 'title', 'id')


def _grubby_finish(entry):
    if entry is None or not entry.get('kernel') or entry.pop('_non_linux', False):
        return None
    return entry


def parse_grubby_info(text):
    """Parse ``grubby --info=ALL`` (or ``--info=KERNEL``).

    Returns boot entries ``{"index": int, "kernel", "args": [str], "root",
    "initrd", "title", "id"}`` in order. Quotes are removed; words such as
    ``$tuned_params`` are kept verbatim. Entries that are not Linux (``non
    linux entry``, no ``kernel``) are skipped.
    """
    entries = []
    entry = None
    for line in lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if '=' not in stripped:
            if entry is not None and 'non linux entry' in stripped.lower():
                entry['_non_linux'] = True
            continue
        key, value = stripped.split('=', 1)
        key = key.strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
            value = value[1:-1]
        if key == 'index':
            done = _grubby_finish(entry)
            if done:
                entries.append(done)
            entry = dict((name, None) for name in _GRUBBY_FIELDS)
            entry.update({'index': to_int(value), 'args': []})
            continue
        if entry is None:
            continue
        if key == 'args':
            entry['args'] = value.split()
        elif key in _GRUBBY_FIELDS:
            entry[key] = value or None
        else:
            entry[key] = value
    done = _grubby_finish(entry)
    if done:
        entries.append(done)
    return entries
