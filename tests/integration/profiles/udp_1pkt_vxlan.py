"""One VXLAN packet as TRex's ``stl/udp_1pkt_vxlan.py`` builds it, in a single burst of 17.

Ether / IP / UDP(sport 1337, dport 4789) / VXLAN(vni) / Ether / IP / 20 bytes. Tunables: ``vni``
(42) and ``count`` (17).
"""
from scapy.layers.vxlan import VXLAN

from profile_common import api, tunables


class VxlanBurst(object):
    def get_streams(self, direction=0, **kwargs):  # pylint: disable=unused-argument
        values = tunables(kwargs, vni=42, count=17)
        pkt = api.Ether() / api.IP() / api.UDP(sport=1337, dport=4789) / VXLAN(vni=values["vni"]) / api.Ether() / api.IP() / (b"x" * 20)
        return [api.STLStream(packet=api.STLPktBuilder(pkt=pkt, vm=[]), mode=api.STLTXSingleBurst(pps=1000, total_pkts=values["count"]))]


def register():
    return VxlanBurst()
