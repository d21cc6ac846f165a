# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parser of the datapath flow dump: ``ovs-appctl dpctl/dump-flows`` (and
``ovs-dpctl dump-flows``, which prints the same lines).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines


_FLOW_RE = re.compile(
    r'^(?P<match>.*?),?\s*packets:(?P<packets>\d+),\s*bytes:(?P<bytes>\d+)'
    r'(?P<rest>.*?)(?:,\s*|\s+)actions:(?P<actions>.*)$'
)


def parse_dump_flows(text):
    """Parse ``ovs-appctl dpctl/dump-flows [-m] [type=...]``.

    Returns one dict per flow: ``{"match", "packets": int, "bytes": int,
    "used", "offloaded": "yes"/"partial"/None, "dp": str or None, "actions",
    "ufid"}``. ``dp`` is the datapath that holds the flow (``tc``, ``doca``,
    ``dummy``, ...); ``-m`` prints it. Lines that are not flows (``flow-dump
    from ...``) are skipped.
    """
    flows = []
    for line in lines(text):
        match = _FLOW_RE.match(line.strip())
        if not match:
            continue
        fields = {}
        for part in match.group('rest').split(','):
            if ':' in part:
                key, value = part.split(':', 1)
                fields[key.strip()] = value.strip()
        flow_match = match.group('match').strip().rstrip(',')
        ufid = None
        if flow_match.startswith('ufid:'):
            ufid, _sep, flow_match = flow_match.partition(',')
            ufid = ufid[len('ufid:'):].strip()
            flow_match = flow_match.strip()
        flows.append({
            'match': flow_match,
            'packets': int(match.group('packets')),
            'bytes': int(match.group('bytes')),
            'used': fields.get('used'),
            'offloaded': fields.get('offloaded') or None,
            'dp': fields.get('dp') or None,
            'actions': match.group('actions').strip(),
            'ufid': ufid,
        })
    return flows
