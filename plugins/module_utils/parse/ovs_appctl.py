# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parser of ``ovs-appctl dpif-netdev/pmd-rxq-show`` (and ``dpif-doca/pmd-rxq-show``):
which PMD thread polls which rx queue.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, to_int


_PMD_HEAD_RE = re.compile(r'^\s*pmd thread numa_id\s+(?P<numa>-?\d+)\s+core_id\s+(?P<core>\d+)\s*:')
_PMD_RXQ_RE = re.compile(
    r'^\s*port:\s*(?P<port>\S+)\s+queue-id:\s*(?P<queue>\d+)'
    r'(?:\s*\((?P<state>[^)]*)\))?'
    r'(?:\s+pmd usage:\s*(?P<usage>NOT AVAIL|\d+))?'
)


def parse_pmd_rxq_show(text):
    """Parse ``ovs-appctl dpif-netdev/pmd-rxq-show`` (or ``dpif-doca/pmd-rxq-show``).

    Returns one dict per rx queue: ``{"numa": int, "core": int, "port",
    "queue": int, "usage": int or None, "enabled": bool or None,
    "isolated": bool or None}``. ``usage`` is the percentage, ``None`` for
    ``NOT AVAIL``. PMD threads without queues give no entries.
    """
    result = []
    numa = core = isolated = None
    for line in lines(text):
        head = _PMD_HEAD_RE.match(line)
        if head:
            numa, core, isolated = int(head.group('numa')), int(head.group('core')), None
            continue
        stripped = line.strip()
        if stripped.startswith('isolated'):
            value = stripped.split(':', 1)[-1].strip().lower()
            isolated = {'true': True, 'false': False}.get(value)
            continue
        rxq = _PMD_RXQ_RE.match(line)
        if not rxq:
            continue
        state = rxq.group('state')
        result.append({
            'numa': numa,
            'core': core,
            'port': rxq.group('port'),
            'queue': int(rxq.group('queue')),
            'usage': to_int(rxq.group('usage')),
            'enabled': None if state is None else state.strip().lower() == 'enabled',
            'isolated': isolated,
        })
    return result
