#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: netns_exchange
short_description: Exchange real TCP or UDP traffic between two network namespaces
version_added: 0.1.0
description:
  - Starts an echo server in one network namespace and a client in another, sends O(count) messages
    of O(size) bytes over TCP or UDP and checks that every one comes back intact.
  - With O(ovs_interfaces), reads those Open vSwitch interfaces' packet counters before and after,
    which shows the traffic really crossed the switch.
  - Changes nothing on the host; it always reports C(changed=false) and runs in check mode too.
  - Fails when fewer than O(min_ratio) of the messages come back.
  - Refuses a bad option (a port outside 1..65535, an address that is not IPv4 or IPv6, O(min_ratio) outside 0..1...)
    before it starts anything, with a message naming the option and its value.
  - Over UDP the client first sends small warm-up datagrams until one comes back (for at most O(timeout)
    times (O(retries) + 1) seconds), because the first datagram through a router may wait for address
    resolution, and the first ones through a fresh OVN path in a slow guest for the datapath's first upcalls
    and OVN's buffered packets; they are not counted. Over TCP the connection gets as long. The server
    waits for its first datagram or connection as long as the whole exchange may take.
  - Every message carries a sequence number, so a late answer to an earlier message never counts
    for a later one. A message whose answer is late is sent again (O(retries)).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads only; the exchange runs in check mode as well.
  diff_mode:
    description: Nothing changes, so there is nothing to show.
options:
  server_namespace:
    description: Namespace of the echo server; an empty string means the host's own namespace.
    type: str
    required: true
  server_address:
    description: Address the server listens on and the client connects to, dotted IPv4 or IPv6 (no host name).
    type: str
    required: true
  connect_address:
    description:
      - Address the client sends to, when it is not O(server_address); a NAT or load-balancer address in
        front of the server (the ConnectX-6 Lx reference bench's C(dnat_and_snat 18.0.0.188 16.0.0.188)).
      - Dotted IPv4 or IPv6, no host name.
    type: str
  client_namespace:
    description: Namespace of the client; an empty string means the host's own namespace.
    type: str
    required: true
  protocol:
    description: Transport of the messages.
    type: str
    choices: [tcp, udp]
    default: tcp
  port:
    description: Server port, 1..65535.
    type: int
    default: 5201
  count:
    description: Number of messages, at least 1.
    type: int
    default: 100
  size:
    description: Bytes per message (UDP payload or TCP write), 1..65000 (8..65000 over UDP, each message carries its sequence number).
    type: int
    default: 1000
  timeout:
    description: Seconds to wait for an answer before a message counts as lost, above 0.
    type: float
    default: 5.0
  retries:
    description:
      - Over UDP, how many times a message whose answer has not come back is sent again, spread evenly over
        O(timeout) (with the defaults, once a second). Identical copies are echoed, counted once and reported
        in RV(resent). C(0) sends every message once. TCP retransmits by itself and ignores this.
    type: int
    default: 4
  min_ratio:
    description: Share of the messages that must come back for the module to succeed, 0..1.
    type: float
    default: 1.0
  ovs_interfaces:
    description: OVS ports whose live counters (C(ovs-ofctl dump-ports)) are read before and after.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: TCP through the lab's switch, from ltb-srv2 to ltb-srv1
  offload.testbed.netns_exchange:
    server_namespace: ltb-srv1
    server_address: 192.168.0.3
    client_namespace: ltb-srv2
    protocol: tcp
    ovs_interfaces: [ltb-srv1, ltb-srv2]
  register: tcp_result
"""

RETURN = r"""
sent:
  description: Messages the client sent.
  returned: always
  type: int
  sample: 100
received:
  description: Messages that came back intact.
  returned: always
  type: int
  sample: 100
bytes:
  description: Payload bytes echoed back.
  returned: always
  type: int
  sample: 100000
kernel_errors:
  description:
    - Error and discard counters of C(/proc/net/snmp) (Ip, Udp, Tcp) that moved during the exchange, per side, for
      example C(client UdpInCsumErrors). Empty when none moved. A failure message names them.
  returned: always
  type: dict
  sample: {"client UdpInCsumErrors": 50}
resent:
  description: UDP messages sent again because their answer was late (0 over TCP); each is counted once in RV(sent).
  returned: always
  type: int
  sample: 1
warmup:
  description: UDP warm-up datagrams sent before the counted messages (0 over TCP).
  returned: always
  type: int
  sample: 1
server_peer:
  description: Source address the server saw.
  returned: always
  type: str
  sample: 192.168.0.4
ovs_packets:
  description: Per OVS port, the packets it received from its interface (rx) and sent to it (tx) during the exchange.
  returned: always
  type: dict
  sample: {"ltb-srv1": {"rx_packets": 102, "tx_packets": 102}}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner
from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.topology import netns_exchange
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_ofctl import parse_ofctl_port_stats

ARGUMENT_SPEC = netns.argument_spec(
    server_namespace=dict(type="str", required=True),
    server_address=dict(type="str", required=True),
    client_namespace=dict(type="str", required=True),
    connect_address=dict(type="str"),
    port=dict(type="int", default=5201),
    count=dict(type="int", default=100),
    size=dict(type="int", default=1000),
    ovs_interfaces=dict(type="list", elements="str", default=[]),
)


def _ovs_stats(module, names):
    """Live packet counters of OVS ports (``ovs-ofctl dump-ports``)."""
    stats = {}
    for name in names:
        rc, bridge, err = HostRunner(module).read(["ovs-vsctl", "--timeout=10", "port-to-br", name], check_rc=False)
        if rc == 0:
            rc, out, err = HostRunner(module).read(["ovs-ofctl", "dump-ports", bridge.strip(), name], check_rc=False)
        if rc != 0:
            module.fail_json(msg="cannot read the counters of OVS port %s: %s" % (name, err.strip()))
        stats[name] = parse_ofctl_port_stats(out)
    return stats


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    netns.refuse_bad_options(module, netns_exchange.option_errors)
    p = module.params
    before = _ovs_stats(module, p["ovs_interfaces"])
    outcome = netns.drive(module, netns_exchange.run, "traffic driver")
    client, srv = outcome["client"], outcome["server"]
    after = _ovs_stats(module, p["ovs_interfaces"])
    ovs_packets = {}
    for name in p["ovs_interfaces"]:
        ovs_packets[name] = dict((k, after[name].get(k, 0) - before[name].get(k, 0)) for k in ("rx_packets", "tx_packets"))
    result = dict(changed=False, sent=client["sent"], received=client["received"], bytes=client["bytes"],
                  warmup=client.get("warmup", 0), resent=client.get("resent", 0), server_peer=srv["peer"], ovs_packets=ovs_packets)
    result["kernel_errors"] = outcome["kernel_errors"]
    if client["received"] < p["min_ratio"] * client["sent"]:
        clues = []
        if srv.get("messages") is not None:
            clues.append("the server got %d" % srv["messages"])
        clues.append("OVS ports counted %s" % ", ".join("%s rx %d tx %d" % (n, c["rx_packets"], c["tx_packets"]) for n, c in ovs_packets.items())
                     if ovs_packets else "no OVS ports given")
        clues.append("kernel error counters that moved: %s" % (", ".join("%s +%d" % kv for kv in sorted(result["kernel_errors"].items())) or "none"))
        module.fail_json(msg="%s exchange %s -> %s: %d of %d messages came back (%s)" % (
            p["protocol"].upper(), p["client_namespace"], p["server_namespace"], client["received"], client["sent"], "; ".join(clues)), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
