"""Two MPLS labels before IPv4, as TRex's ``stl/udp_1pkt_mpls.py`` builds them, continuous.

Ether / MPLS(label 17, cos 1, s 0, ttl 255) / MPLS(label 0, cos 1, s 1, ttl 12) / IP(16.0.0.1 ->
48.0.0.1) / UDP(1025 -> 12) / 20 bytes. Tunable: ``pps`` (500).
"""
from scapy.contrib.mpls import MPLS

from profile_common import api, tunables


class MplsStream(object):
    def get_streams(self, direction=0, **kwargs):  # pylint: disable=unused-argument
        values = tunables(kwargs, pps=500.0)
        pkt = (api.Ether() / MPLS(label=17, cos=1, s=0, ttl=255) / MPLS(label=0, cos=1, s=1, ttl=12)
               / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12) / (b"x" * 20))
        return [api.STLStream(packet=api.STLPktBuilder(pkt=pkt), mode=api.STLTXCont(pps=values["pps"]))]


def register():
    return MplsStream()
