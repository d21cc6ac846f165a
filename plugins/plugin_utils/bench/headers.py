# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bytes of the ``trex_bench`` frames: Ethernet and its tags, IPv4, UDP or TCP, and the tunnels around them.

Pure functions over plain data; ``profile.py`` decides which addresses go where.

A frame of the built-in scenarios is ``Ethernet [802.1ad S-tag] [802.1Q tag] / IPv4 / UDP|TCP / zeros``.
With ``encapsulation`` (``encapsulation.py`` checks it) the scenario's addresses stay in the outer
IPv4 header, the one the DUT routes, translates or balances, and the tunnel carries an inner
packet with ``inner_src_base`` and ``inner_dst`` and the scenario's protocol and L4 ports:

- ``vxlan`` (RFC 7348): outer UDP to ``udp_port`` (4789), the VXLAN header (flag I, ``vni``), an
  inner Ethernet header, the inner packet;
- ``geneve`` (RFC 8926): outer UDP to ``udp_port`` (6081), the base header without options
  (protocol 0x6558, Ethernet), an inner Ethernet header, the inner packet;
- ``mplsogre``: GRE (RFC 2784, protocol 0x8847) with one MPLS label stack entry (RFC 3032: ``label``,
  bottom of stack, TTL 64), the inner IPv4 packet (no inner Ethernet);
- ``qinq`` (IEEE 802.1ad): no tunnel; an S-tag (``s_vlan``, TPID 0x88A8) before the C-tag (``vlan``).

The outer UDP checksum of VXLAN and Geneve is zero, as RFC 7348 (5.) says a VTEP sends it over
IPv4; the outer UDP source port is the flow's entropy (RFC 7348, RFC 8926 3.3), which the field
engine varies from ``ENTROPY_PORT``. The frame's MAC addresses are zero: the generator port writes
its own; the inner ones are ``INNER_MACS``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import struct

from ansible_collections.offload.testbed.extensions.softgen.fieldengine import FCS, inet_checksum

ETH_LEN, VLAN_LEN, IP_LEN, UDP_LEN, TCP_LEN, GRE_LEN, MPLS_LEN = 14, 4, 20, 8, 20, 4, 4
TPID_VLAN, TPID_QINQ, ETHERTYPE_IPV4, ETHERTYPE_MPLS, ETHERTYPE_ETHERNET = 0x8100, 0x88A8, 0x0800, 0x8847, 0x6558
PROTO_TCP, PROTO_UDP, PROTO_GRE = 6, 17, 47
TCP_SEQ, TCP_ACK = 0x10000000, 0x20000000
TTL = 64
# the tunnels' UDP destination ports (IANA): VXLAN 4789, Geneve 6081
UDP_PORTS = {"vxlan": 4789, "geneve": 6081}
TUNNELS = ("vxlan", "geneve", "mplsogre")
# the tunnel header after the outer IPv4 header, and the inner Ethernet header the tunnel carries
_TUNNEL_LEN = {"vxlan": UDP_LEN + 8, "geneve": UDP_LEN + 8, "mplsogre": GRE_LEN + MPLS_LEN}
_INNER_L2 = {"vxlan": ETH_LEN, "geneve": ETH_LEN, "mplsogre": 0}
# inner destination and source MAC: locally administered
INNER_MACS = (b"\x02\x00\x00\x00\x00\x02", b"\x02\x00\x00\x00\x00\x01")
# the first outer UDP source port of a flow and how many there are (the dynamic range, 49152..65535)
ENTROPY_PORT, ENTROPY_PORTS = 49152, 16384


def kind(encapsulation):
    """The encapsulation's type, or None for plain frames."""
    return encapsulation["type"] if encapsulation else None


def layout(protocol, vlan, encapsulation=None):
    """Where the headers start in a frame (bytes from its first): ``l3`` the outer IPv4 header, ``l4`` what follows it (UDP,
    GRE, or the L4 header of a frame without a tunnel), ``inner_l3`` and ``inner_l4`` the packet the scenario's protocol is
    in (``l3`` and ``l4`` without a tunnel), ``end`` the end of its L4 header: the shortest frame without FCS."""
    l3 = ETH_LEN + (VLAN_LEN if vlan else 0) + (VLAN_LEN if kind(encapsulation) == "qinq" else 0)
    l4 = l3 + IP_LEN
    inner_l3 = l4 + _TUNNEL_LEN[kind(encapsulation)] + _INNER_L2[kind(encapsulation)] if kind(encapsulation) in TUNNELS else l3
    inner_l4 = inner_l3 + IP_LEN
    return {"l3": l3, "l4": l4, "inner_l3": inner_l3, "inner_l4": inner_l4, "end": inner_l4 + (TCP_LEN if protocol == "tcp" else UDP_LEN)}


def smallest_frame(protocol, vlan, encapsulation=None):
    """The smallest frame, FCS included, that carries the headers."""
    return layout(protocol, vlan, encapsulation)["end"] + FCS


def ethernet(vlan, encapsulation=None):
    """Zero MAC addresses, the S-tag of QinQ, the 802.1Q tag, EtherType IPv4."""
    header = b"\x00" * 12
    if kind(encapsulation) == "qinq":
        header += struct.pack("!HH", TPID_QINQ, encapsulation["s_vlan"])
    if vlan:
        header += struct.pack("!HH", TPID_VLAN, vlan)
    return header + struct.pack("!H", ETHERTYPE_IPV4)


def ipv4_header(total, proto, src_ip, dst_ip):
    """An IPv4 header of a ``total``-byte packet, its checksum filled in."""
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0, TTL, proto, 0, ipaddress.IPv4Address(src_ip).packed,
                         ipaddress.IPv4Address(dst_ip).packed)
    return header[:10] + struct.pack("!H", inet_checksum(header)) + header[12:]


def ip_packet(total, protocol, src_ip, dst_ip, src_port, dst_port):
    """A ``total``-byte IPv4 packet of ``protocol`` (TCP: an ACK segment with fixed sequence numbers), zero payload, checksums filled in."""
    proto = PROTO_TCP if protocol == "tcp" else PROTO_UDP
    l4_total = total - IP_LEN
    payload = b"\x00" * (l4_total - (TCP_LEN if protocol == "tcp" else UDP_LEN))
    if protocol == "tcp":
        # ACK, window 65535, data offset 5 words
        l4_hdr = struct.pack("!HHIIBBHHH", src_port, dst_port, TCP_SEQ, TCP_ACK, 5 << 4, 0x10, 0xFFFF, 0, 0)
        csum_at = 16
    else:
        l4_hdr = struct.pack("!HHHH", src_port, dst_port, l4_total, 0)
        csum_at = 6
    pseudo = ipaddress.IPv4Address(src_ip).packed + ipaddress.IPv4Address(dst_ip).packed + struct.pack("!BBH", 0, proto, l4_total)
    csum = inet_checksum(pseudo + l4_hdr + payload)
    if protocol == "udp" and csum == 0:
        csum = 0xFFFF
    l4_hdr = l4_hdr[:csum_at] + struct.pack("!H", csum) + l4_hdr[csum_at + 2:]
    return ipv4_header(total, proto, src_ip, dst_ip) + l4_hdr + payload


def tunnel(encapsulation, src_ip, dst_ip, inner):
    """The outer IPv4 packet from ``src_ip`` to ``dst_ip`` carrying the ``inner`` IPv4 packet in the encapsulation's tunnel."""
    name = kind(encapsulation)
    if name == "mplsogre":
        # GRE: no checksum, key or sequence, version 0; one MPLS entry: label, TC 0, bottom of stack, TTL
        carried = struct.pack("!HHI", 0, ETHERTYPE_MPLS, (encapsulation["label"] << 12) | (1 << 8) | TTL) + inner
        return ipv4_header(IP_LEN + len(carried), PROTO_GRE, src_ip, dst_ip) + carried
    if name == "vxlan":
        header = struct.pack("!II", 0x08000000, encapsulation["vni"] << 8)
    else:
        # Geneve: version 0, no options, protocol type Ethernet
        header = struct.pack("!BBHI", 0, 0, ETHERTYPE_ETHERNET, encapsulation["vni"] << 8)
    carried = header + INNER_MACS[0] + INNER_MACS[1] + struct.pack("!H", ETHERTYPE_IPV4) + inner
    udp = struct.pack("!HHHH", ENTROPY_PORT, encapsulation["udp_port"], UDP_LEN + len(carried), 0)
    return ipv4_header(IP_LEN + UDP_LEN + len(carried), PROTO_UDP, src_ip, dst_ip) + udp + carried


def frame(frame_size, protocol, addresses, ports, vlan=None, encapsulation=None):
    """A ``frame_size``-byte frame without its FCS. ``addresses`` is ``(src, dst)`` of the IPv4 header the DUT sees, with
    ``(inner src, inner dst)`` after them in a tunnel; ``ports`` ``(src_port, dst_port)`` of the scenario's protocol."""
    at = layout(protocol, vlan, encapsulation)
    length = frame_size - FCS
    if length < at["end"]:
        raise ValueError("frame size %d is too small for %s headers (%d bytes)" % (frame_size, _headers_text(protocol, encapsulation), at["end"] + FCS))
    if kind(encapsulation) not in TUNNELS:
        return ethernet(vlan, encapsulation) + ip_packet(length - at["l3"], protocol, addresses[0], addresses[1], ports[0], ports[1])
    inner = ip_packet(length - at["inner_l3"], protocol, addresses[2], addresses[3], ports[0], ports[1])
    return ethernet(vlan, encapsulation) + tunnel(encapsulation, addresses[0], addresses[1], inner)


def _headers_text(protocol, encapsulation):
    return "%s in %s" % (protocol, kind(encapsulation)) if kind(encapsulation) in TUNNELS else protocol
