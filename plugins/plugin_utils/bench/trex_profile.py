# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A user's TRex STL profile in ``trex_bench``: ``profile`` and ``tunables``, as ``start -f profile.py -t ...`` takes them.

The profile is loaded by the chosen client itself (``STLProfile.load_py``: TRex v3's client hands the
tunables over as ``--name value``, trex-stl-lib 0.3 as keywords), so its packets and field-engine
programs are what TRex would get, named offsets included (the old client with
:mod:`.trex_compat`). Every stream must be continuous (a search sends for a trial's duration); its
rate at multiplier 1 gives its part of the load, as TRex's ``mult`` keeps each port's streams in
proportion. The search's loads are frames/s of the whole profile; its frame size is the profile's
average frame at multiplier 1 (FCS included), rounded to a byte, so Gbps and line shares are those
of the mix. The streams go onto the first port of ``ports``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import copy
import hashlib
import os

from ansible_collections.offload.testbed.extensions.softgen.fieldengine import FCS
from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError


def record(args, streams):
    """What the results record of the profile: its file name, the hash of its text, the tunables, its streams and their
    frames/s at multiplier 1."""
    with open(args["profile"], "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    return {"file": os.path.basename(args["profile"]), "sha256": digest, "tunables": dict(args["tunables"] or {}),
            "streams": len(streams), "pps": sum(stream["pps"] for stream in streams)}


def stream_pps(rate, frame_bytes, line_rate_gbps):
    """A stream's frames/s at multiplier 1 from its rate (``{"type", "value"}``), or None when it cannot be known."""
    if rate["type"] == "pps":
        return float(rate["value"])
    if rate["type"] == "bps_L2":
        return float(rate["value"]) / (frame_bytes * 8)
    if rate["type"] == "bps_L1":
        return float(rate["value"]) / ((frame_bytes + units.WIRE_OVERHEAD) * 8)
    if line_rate_gbps:
        # percentage of the port's line rate
        return float(rate["value"]) / 100.0 * units.line_rate_pps(line_rate_gbps, frame_bytes)
    return None


def _problem(index, fields, frame_bytes, args):
    """Why stream ``index`` cannot be part of a search, or None."""
    mode = fields.get("mode") or {}
    if mode.get("type") != "continuous":
        return ("stream %d sends %s; a search sends every stream for a trial's duration: give it STLTXCont (continuous), "
                "or run the profile with TRex's own console" % (index, mode.get("type") or "no mode"))
    if stream_pps(mode["rate"], frame_bytes, args["line_rate_gbps"]) is None:
        return "stream %d's rate is a percentage of line rate; set line_rate_gbps, or give its rate in pps or bps" % index
    return None


def load(api, args):
    """The profile's streams as ``build_streams`` data (``{"port", "trex", "packet", "pps", "share", "frame_bytes"}``), every problem at once."""
    try:
        profile = api.STLProfile.load_py(args["profile"], direction=0, port_id=args["ports"][0], **dict(args["tunables"] or {}))
        streams = profile.get_streams() if profile is not None else []
    except Exception as error:  # pylint: disable=broad-except
        text = str(getattr(error, "msg", None) or error).strip().splitlines()
        raise BenchError("profile: %s did not load with tunables %s: %s" % (args["profile"], args["tunables"] or {}, text[-1] if text else error))
    if not streams:
        raise BenchError("profile: %s gives no stream (with tunables %s)" % (args["profile"], args["tunables"] or {}))
    found, problems = [], []
    for index, stream in enumerate(streams):
        fields = stream.to_json()
        packet = base64.b64decode(fields["packet"]["binary"])
        frame_bytes = len(packet) + FCS
        problem = _problem(index, fields, frame_bytes, args)
        if problem:
            problems.append("profile: %s: %s" % (os.path.basename(args["profile"]), problem))
            continue
        pps = stream_pps(fields["mode"]["rate"], frame_bytes, args["line_rate_gbps"])
        found.append(dict({"port": args["ports"][0], "trex": stream, "packet": packet, "pps": pps, "frame_bytes": frame_bytes},
                          **packet_group(fields)))
    if problems:
        raise BenchError("; ".join(problems))
    total = sum(stream["pps"] for stream in found)
    for stream in found:
        stream["share"] = stream["pps"] / total
    return found


def packet_group(fields):
    """``{"packet_group": {"pg_id", "kind"}}`` of a stream counted per packet group (TRex's ``STLFlowStats``, kind
    ``stats``, or ``STLFlowLatencyStats``, kind ``latency``), else nothing: each trial records the group's own counts."""
    flow_stats = fields.get("flow_stats") or {}
    if not flow_stats.get("enabled"):
        return {}
    return {"packet_group": {"pg_id": flow_stats["stream_id"], "kind": "latency" if flow_stats.get("rule_type") == "latency" else "stats"}}


def mean_frame(streams):
    """The profile's average frame at multiplier 1, FCS included, rounded to a byte: the search's frame size."""
    return int(round(sum(stream["pps"] * stream["frame_bytes"] for stream in streams) / sum(stream["pps"] for stream in streams)))


def attach(api, args):
    """Load ``args["profile"]`` into ``args``: its streams (``profile_streams``) and what the results record of it
    (``profile_record``), its one frame size, one search (``flows`` 1: the profile's own field engine makes its flows)."""
    args["profile_streams"] = load(api, args)
    args["profile_record"] = record(args, args["profile_streams"])
    args["frame_sizes"] = [mean_frame(args["profile_streams"])]
    args["flows"] = 1


def latency_frame(args):
    """The latency stream's frame of a profile run: the first stream's packet (without FCS)."""
    return args["profile_streams"][0]["packet"]


def at_rate(stream, pps):
    """A copy of the profile's TRex stream sending ``pps`` frames/s (both client generations keep the rate in
    ``fields["mode"]["rate"]``, where the stream's constructor put it)."""
    clone = copy.deepcopy(stream["trex"])
    clone.fields["mode"]["rate"] = {"type": "pps", "value": pps}
    return clone
