# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parser of ``ovs-ofctl dump-ports BRIDGE [PORT]``: a port's packet and byte counters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_OFCTL_COUNTER_RE = re.compile(r"\b(rx|tx) pkts=(\d+), bytes=(\d+)")


def parse_ofctl_port_stats(text):
    """``ovs-ofctl dump-ports BRIDGE PORT`` -> {"rx_packets", "rx_bytes", "tx_packets", "tx_bytes"}.

    Unlike the Interface table's ``statistics`` column, which OVS refreshes
    every few seconds, these counters are read live from the datapath.
    """
    stats = {}
    for direction, pkts, nbytes in _OFCTL_COUNTER_RE.findall(text or ""):
        stats["%s_packets" % direction] = int(pkts)
        stats["%s_bytes" % direction] = int(nbytes)
    return stats
