"""A traffic stream counted per packet group and a latency stream, as TRex's ``stl/flow_stats_latency.py`` pairs them.

Stream 1: continuous UDP at ``pps`` with ``STLFlowStats(pg_id)``; stream 2: 100 pps with
``STLFlowLatencyStats(pg_id + 1)``. Tunables: ``pps`` (1000), ``pg_id`` (12).
"""
from profile_common import api, tunables


class FlowAndLatency(object):
    def get_streams(self, direction=0, **kwargs):  # pylint: disable=unused-argument
        values = tunables(kwargs, pps=1000.0, pg_id=12)
        pkt = api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12) / (b"x" * 30)
        return [api.STLStream(packet=api.STLPktBuilder(pkt=pkt), mode=api.STLTXCont(pps=values["pps"]),
                              flow_stats=api.STLFlowStats(pg_id=values["pg_id"])),
                api.STLStream(packet=api.STLPktBuilder(pkt=pkt), mode=api.STLTXCont(pps=100),
                              flow_stats=api.STLFlowLatencyStats(pg_id=values["pg_id"] + 1))]


def register():
    return FlowAndLatency()
