# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The bench's documentation beyond its module's page.

    ``offload.testbed.bench.traffic``: the options of ``offload.testbed.trex_bench`` that send other traffic than the
    scenario's plain frames (a tunnel around them, a user's TRex profile); their defaults are written once, in
    ``plugins/plugin_utils/bench/spec.py``, and ``tests/unit/plugins/plugin_utils/bench/test_bench_spec.py`` checks them.
    """

    DOCUMENTATION = r"""
options: {}
"""

    TRAFFIC = r"""
options:
  encapsulation:
    description:
      - A tunnel around the scenario's frames, or an S-tag before their tag; unset for plain frames. See C(docs/bench.md).
      - The scenario's addresses (O(src_base) with its O(flows), the destination) stay in the outer IPv4 header, the one the DUT
        routes, translates or balances; the tunnel carries an inner packet of O(protocol) with O(src_port) and O(dst_port), from
        O(encapsulation.inner_src_base) (over the same number of flows) to O(encapsulation.inner_dst_base).
      - The frame sizes are those on the wire, the tunnel's headers included (a tunnel adds 50 bytes to the plain frame for
        C(vxlan) and C(geneve), 28 for C(mplsogre), the S-tag 4), so the rates and line shares stay those of the wire; each
        size must hold the headers (for example 96 bytes or more for UDP in VXLAN), and C(imix) (with 64-byte frames) only
        with C(qinq).
      - The results record it in C(profile.encapsulation) and the report names the scenario C(routing+vxlan) and so on.
      - Not with O(generator=testpmd).
    type: dict
    suboptions:
      type:
        description:
          - C(vxlan) (RFC 7348; the VXLAN reference bench), C(geneve) (RFC 8926; OVN's tunnel), C(mplsogre) (MPLS over GRE,
            one label; the Intel DDP reference bench, where the NIC spreads the inner flows over its queues) or C(qinq)
            (802.1ad S-tag O(encapsulation.s_vlan) before the C-tag O(vlan)).
        type: str
        choices: [vxlan, geneve, mplsogre, qinq]
        required: true
      vni:
        description: The VXLAN or Geneve network identifier (0..16777215).
        type: int
        default: 99
      udp_port:
        description: The outer UDP destination port; unset, 4789 for C(vxlan) and 6081 for C(geneve).
        type: int
      label:
        description: The MPLS label of C(mplsogre) (16..1048575).
        type: int
        default: 16
      s_vlan:
        description: The S-tag's VLAN ID of C(qinq) (1..4094); required with it.
        type: int
      inner_src_base:
        description: First inner source address; the inner sources vary over O(flows) as the outer ones do.
        type: str
        default: 172.16.0.1
      inner_dst_base:
        description: First inner destination address (over O(destinations) for C(routing)).
        type: str
        default: 172.17.0.1
      outer_flows:
        description:
          - Whether the outer source (and destination) addresses vary with the flows. False keeps the outer IPv4 header of the
            first flow, one tunnel between two endpoints, and varies only the inner packet (and the outer UDP source port of
            C(vxlan) and C(geneve), the flow's entropy, from 49152), the traffic whose spread over a NIC's queues needs RSS on
            the inner headers (the Intel DDP reference bench's MPLS over GRE).
        type: bool
        default: true
  profile:
    description:
      - A TRex STL profile (a C(.py) file on the controller, as TRex's C(start -f) takes it) whose streams the search sends
        instead of the scenario's frames. The chosen O(client) loads it (C(STLProfile.load_py)), with O(tunables), so its
        packets and field-engine programs are those TRex would get.
      - Every stream must be continuous, its rate in pps, bps, or a percentage of O(line_rate_gbps). Its rate at multiplier
        1 sets its part of the load, as TRex's multiplier keeps a port's streams in proportion; the streams go onto the first
        port of O(ports), and the search's loads are frames/s of the whole profile.
      - The search's frame size is the profile's average frame at multiplier 1 (FCS included), rounded to a byte, for the
        Gbps and line shares. O(frame_sizes), O(flows), the addresses and ports and O(vlan) do not apply (the profile's own
        field engine makes its flows); O(scenario) and O(protocol) stay the run's labels. The latency stream carries the
        profile's first packet.
      - The profile's own flow-stats and latency streams (C(STLFlowStats), C(STLFlowLatencyStats)) run with the rest; each
        trial records their packet groups in C(packet_groups), the packets sent and received in the trial and for a latency
        group the trial's part of the histogram with its percentiles.
      - The results record C(profile.trex_profile) (the file's name and SHA-256, the tunables, the streams and their
        frames/s); the report names the scenario C(routing+<file>). A run resumes only with the same profile text and tunables.
      - Not with O(encapsulation), nor with O(generator=testpmd).
    type: path
  tunables:
    description:
      - The profile's tunables, as C(start -f profile.py -t name=value,...) gives them; only with O(profile).
      - TRex v3's client hands them over as C(--name value) (the profile parses them with argparse), trex-stl-lib 0.3 as
        keywords of C(get_streams).
    type: dict
    default: {}
  stateful:
    description:
      - A stateful search, with TRex's ASTF client (O(client=trex)) against TRex servers in ASTF mode (C(t-rex-64 --astf), or
        softgen with C(--astf)), whose loads are connections per second (CPS), not frames. Each connection sends a request
        of O(stateful.request_size) bytes and waits for the whole answer of O(stateful.response_size) bytes (TCP, TRex's
        C(http_simple) shape, for O(protocol=tcp); a UDP query and its answer for O(protocol=udp)).
      - The clients' addresses are O(src_base) over O(flows) (one number); the servers the scenario's destination at
        O(dst_port) (O(dst_base) over O(destinations), the O(nat_address) or the O(lb_vip)). O(server) runs the client
        side; O(rx_server), when set, the server side (the backends behind the DUT), started once and answering until the
        run ends; without it one server runs both (TRex's even ports clients, odd ports servers).
      - A connection counts as received when it ended without an error (C(tcps_closed) minus C(tcps_drops) and
        C(tcps_conndrops); C(udps_closed) minus C(udps_keepdrops)). Each trial records both sides' counters
        (C(connections)), the most connections open at once (C(concurrent_max)) and the first byte's latency
        (C(first_byte_us)); the results' frame size is C(connections) and the report's rates are in cps.
      - O(frame_sizes) does not apply; latency streams and soak do not run. Not with O(encapsulation), O(profile) or
        O(direction=bidir).
    type: dict
    suboptions:
      request_size:
        description: Bytes of each connection's request (an HTTP GET padded by a header), 40 or more.
        type: int
        default: 100
      response_size:
        description: Bytes of the answer (an HTTP 200 padded by a header), 48 or more.
        type: int
        default: 1000
"""
