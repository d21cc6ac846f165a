"""IMIX as TRex's ``stl/imix.py`` sends it: 60, 590 and 1514-byte packets at 28:16:4.

Each stream walks the source over ``flows`` addresses from 16.0.0.1 (a named offset, ``IP.src``)
and fixes the IPv4 checksum. Tunables: ``pps``, the 60-byte stream's rate (the others in
proportion), and ``flows``.
"""
from profile_common import api, last_address, tunables

SIZES = ((60, 28), (590, 16), (1514, 4))


class IMix(object):
    def create_stream(self, size, pps, flows):
        base = api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12)
        vm = api.STLScVmRaw([api.STLVmFlowVar(name="src", min_value="16.0.0.1", max_value=last_address("16.0.0.1", flows), size=4, op="inc"),
                             api.STLVmWrFlowVar(fv_name="src", pkt_offset="IP.src"),
                             api.STLVmFixIpv4(offset="IP")])
        return api.STLStream(packet=api.STLPktBuilder(pkt=base / (b"x" * (size - len(base))), vm=vm), mode=api.STLTXCont(pps=pps))

    def get_streams(self, direction=0, **kwargs):  # pylint: disable=unused-argument
        values = tunables(kwargs, pps=280.0, flows=100)
        return [self.create_stream(size, values["pps"] * weight / SIZES[0][1], values["flows"]) for size, weight in SIZES]


def register():
    return IMix()
