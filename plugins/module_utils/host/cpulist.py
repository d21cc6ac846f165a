# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kernel cpulists (``2-15,34-47``): parse, format, close under hyper-thread siblings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


def _cpu_set(value):
    """A set of ints from ints, strings of ints, iterables or a cpulist string."""
    if value is None:
        return set()
    if isinstance(value, bool):
        raise ValueError('not a CPU id: %r' % (value,))
    if isinstance(value, int):
        return set([value])
    if isinstance(value, str):
        return parse_cpulist(value)
    result = set()
    for item in value:
        result |= _cpu_set(item)
    return result


def expand_siblings(cpus, siblings):
    """Close a set of CPUs under hyper-thread siblings.

    ``siblings`` maps a CPU id (int or string) to its thread siblings (a set,
    a list or a cpulist string such as ``"2,34"`` from
    ``thread_siblings_list``). Returns a set of ints.
    """
    table = {}
    for key, value in (siblings or {}).items():
        table[int(key)] = _cpu_set(value)
    result = _cpu_set(cpus)
    todo = list(result)
    while todo:
        cpu = todo.pop()
        for sibling in table.get(cpu, ()):
            if sibling not in result:
                result.add(sibling)
                todo.append(sibling)
    return result


def cpulist(cpus):
    """A set of CPU ids as a kernel cpulist: ``{2, 3, 4, 34}`` -> ``"2-4,34"``."""
    ids = sorted(_cpu_set(cpus))
    parts = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else '%d-%d' % (ids[i], ids[j]))
        i = j + 1
    return ','.join(parts)


_CPULIST_RE = re.compile(r'^(?P<start>\d+)(?:-(?P<end>\d+)(?::(?P<used>\d+)/(?P<group>\d+))?)?$')


def parse_cpulist(text):
    """A kernel cpulist as a set of ints: ``"2-15,34-47"``.

    Also accepts the ``a-b:used/group`` stride form. Empty text gives an empty
    set; anything else that is not a cpulist raises ``ValueError``.
    """
    result = set()
    for part in re.split(r'[,\s]+', (text or '').strip()):
        if not part:
            continue
        match = _CPULIST_RE.match(part)
        if not match:
            raise ValueError('not a cpulist item: %r' % (part,))
        start = int(match.group('start'))
        end = int(match.group('end') or start)
        if end < start:
            raise ValueError('descending cpulist range: %r' % (part,))
        used = int(match.group('used') or 1)
        group = int(match.group('group') or 1)
        if group == 0 or used == 0:
            raise ValueError('bad cpulist stride: %r' % (part,))
        result.update(cpu for cpu in range(start, end + 1) if (cpu - start) % group < used)
    return result
