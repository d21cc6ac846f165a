# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""softgen's field engine at 1k, 64k and 1M flows: frames/s its sending side produces, and the distinct sources it sends.

Run from the repository root:  .venv/bin/python benchmarks/fieldengine_flows.py [--seconds 2]

The stream is the bench's (plugins/plugin_utils/bench/profile.py: a 64-byte UDP frame, the source address over
``flows`` addresses from 16.0.0.1, the IPv4 and UDP checksums fixed), in the form the TRex client sends it to
softgen. Two ways to send it, through the ``null`` port's ring (softgen.portworker.NullRing: no socket, so the
figure is the Python side of sending, the field engine and the ring's bookkeeping, not the kernel's; the kernel's
ceiling is benchmarks/generator_ceiling.py's, in network namespaces):

* before: the ring of ``build_ring``, at most DEFAULT_RING_CAP (16384) precomputed frames sent round and round,
  as softgen sent every stream before: past 16384 flows the sources stop at 16384;
* after: ``build_source``, as softgen sends now: the same ring while the program's period fits in it, else a ring
  of 16384 slots refilled from a FlowCycle as it sends (each frame's source and checksums rewritten).

Per flow count it prints the build time of the ring, frames/s over ``--seconds`` of sending, and the distinct
sources sent over one period of the program (for before, over one lap of its ring, which is all it ever sends).
"""

from __future__ import absolute_import, division, print_function

import argparse
import importlib.util
import os
import struct
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
_COLLECTION_LINK.link_collection(ROOT)
sys.path.insert(0, os.path.join(ROOT, "extensions"))

from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import build_frame  # noqa: E402
from softgen import fastio  # noqa: E402
from softgen.fieldengine import DEFAULT_RING_CAP, build_ring, build_source  # noqa: E402
from softgen.portworker import NullRing  # noqa: E402

FLOW_COUNTS = (1000, 1 << 16, 1 << 20)
SRC = 0x10000001
# the bench's 64-byte UDP frame, without FCS
FRAME = build_frame(64, "udp", "16.0.0.1", "48.0.0.1", 1025, 5001)


def program(flows):
    """The stream's field-engine program as trex_stl_lib sends it (flow_var, write_flow_var, fix_checksum_hw)."""
    return {"instructions": [
        {"type": "flow_var", "name": "src", "size": 4, "op": "inc", "init_value": SRC, "min_value": SRC, "max_value": SRC + flows - 1, "step": 1},
        {"type": "write_flow_var", "name": "src", "pkt_offset": 26, "add_value": 0, "is_big_endian": True},
        {"type": "fix_checksum_hw", "l2_len": 14, "l3_len": 20, "l4_type": 11},
    ]}


def ring_of(flows, way):
    """``(ring, seconds to build it, its FlowCycle or None)``: before's ring of build_ring, or after's of build_source."""
    started = time.perf_counter()
    if way == "before":
        frames, cycle = build_ring(FRAME, program(flows)), None
    else:
        frames, cycle = build_source(FRAME, program(flows))
    ring = NullRing(frames)
    ring.cycle = cycle
    return ring, time.perf_counter() - started, frames


def send_rate(ring, seconds):
    """Frames/s the ring sends in batches of MAX_BATCH for ``seconds``."""
    sent, started = 0, time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        for _batch in range(64):
            sent += ring.send(-1, fastio.MAX_BATCH)[0]
    return sent / (time.perf_counter() - started)


def distinct_sources(flows, way, frames):
    """The distinct source addresses sent over one period: before's ring has them all; after's cycle is taken once round."""
    if way == "before" or len(frames) >= flows:
        return len({struct.unpack_from("!I", frame, 26)[0] for frame in frames})
    _frames, cycle = build_source(FRAME, program(flows))
    seen = set()
    for _chunk in range(0, cycle.period, DEFAULT_RING_CAP):
        seen.update(struct.unpack_from("!I", frame, 26)[0] for frame in cycle.take(min(DEFAULT_RING_CAP, cycle.period - len(seen))))
    return len(seen)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", maxsplit=1)[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of sending per flow count and way (default 2)")
    options = parser.parse_args()
    print("%-9s | %-44s | %-44s" % ("", "before (build_ring, ring of at most %d)" % DEFAULT_RING_CAP, "after (build_source)"))
    print("%-9s | %10s %14s %16s | %10s %14s %16s" % ("flows", "build s", "frames/s", "distinct sources", "build s", "frames/s", "distinct sources"))
    for flows in FLOW_COUNTS:
        cells = []
        for way in ("before", "after"):
            ring, built, frames = ring_of(flows, way)
            cells.append("%10.3f %14.0f %16d" % (built, send_rate(ring, options.seconds), distinct_sources(flows, way, frames)))
        print("%-9d | %s | %s" % (flows, cells[0], cells[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
