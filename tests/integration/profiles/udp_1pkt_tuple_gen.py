"""The field engine's tuple generator, as TRex's ``stl/udp_1pkt_tuple_gen.py`` uses it.

Source addresses 16.0.0.1 .. 16.0.0.``clients`` and source ports 1025 .. 1025 + ``ports`` - 1, every
pair once (``STLVmTupleGen``), written at named offsets, the IPv4 checksum fixed; a single burst of
``clients`` x ``ports`` packets of ``size`` bytes. Tunables: ``clients`` (10), ``ports`` (4), ``size`` (64).
"""
from profile_common import api, last_address, tunables


class TupleGen(object):
    def get_streams(self, direction=0, **kwargs):  # pylint: disable=unused-argument
        values = tunables(kwargs, clients=10, ports=4, size=64)
        base = api.Ether() / api.IP(src="16.0.0.1", dst="48.0.0.1") / api.UDP(sport=1025, dport=12)
        vm = api.STLScVmRaw([api.STLVmTupleGen(ip_min="16.0.0.1", ip_max=last_address("16.0.0.1", values["clients"]),
                                               port_min=1025, port_max=1025 + values["ports"] - 1, name="tuple"),
                             api.STLVmWrFlowVar(fv_name="tuple.ip", pkt_offset="IP.src"),
                             api.STLVmWrFlowVar(fv_name="tuple.port", pkt_offset="UDP.sport"),
                             api.STLVmFixIpv4(offset="IP")])
        pkt = base / (b"x" * (values["size"] - 4 - len(base)))
        total = values["clients"] * values["ports"]
        return [api.STLStream(packet=api.STLPktBuilder(pkt=pkt, vm=vm), mode=api.STLTXSingleBurst(pps=1000, total_pkts=total))]


def register():
    return TupleGen()
