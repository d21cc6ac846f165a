#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: netns_lb_probe
short_description: Show which backends behind a load-balancer VIP answer, with real TCP or UDP
version_added: 0.1.0
description:
  - Starts, in each backend's network namespace, a server that answers every TCP connection or UDP
    datagram on O(port) with the backend's name.
  - From the client namespace, opens O(count) new TCP connections (or sends O(count) datagrams, each from
    a new socket, so from a new source port) to O(vip) and counts which backend answered each.
  - Fails when a backend in O(backends) got fewer than O(min_per_backend) answers, or when fewer than
    O(min_ratio) of the attempts got one; a load balancer that reaches all of them passes.
  - Refuses a bad option (a port outside 1..65535, a VIP that is not IPv4 or IPv6, O(min_ratio) outside 0..1...)
    before it starts anything, with a message naming the option and its value.
  - Changes nothing on the host; it always reports C(changed=false) and runs in check mode too.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: The probe only sends traffic, so it runs in check mode as well.
  diff_mode:
    description: No state is compared or changed.
options:
  client_namespace:
    description: Namespace the connections come from; an empty string means the host's own.
    type: str
    required: true
  vip:
    description: Virtual IP the client connects to, dotted IPv4 or IPv6 (no host name).
    type: str
    required: true
  port:
    description: Port of the VIP and of the backends, 1..65535.
    type: int
    required: true
  protocol:
    description: Transport of the connections or datagrams.
    type: str
    choices: [tcp, udp]
    default: tcp
  backends:
    description: The backends, each with the namespace it lives in and the address its server listens on.
    type: list
    elements: dict
    required: true
    suboptions:
      namespace:
        description: Namespace of the backend.
        type: str
        required: true
      address:
        description: Address the backend's server listens on, dotted IPv4 or IPv6.
        type: str
        required: true
  count:
    description: Connections (TCP) or datagrams (UDP) to send, at least 1.
    type: int
    default: 30
  timeout:
    description: Seconds to wait for each answer, above 0.
    type: float
    default: 5.0
  retries:
    description:
      - Over UDP, how many times a datagram whose answer has not come back is sent again from the same socket (the same
        flow through the load balancer), spread evenly over O(timeout). TCP retransmits by itself and ignores this.
    type: int
    default: 4
  min_per_backend:
    description: Answers every backend must give, 0 or more.
    type: int
    default: 1
  min_ratio:
    description: Share of the attempts that must get an answer, 0..1.
    type: float
    default: 1.0
"""

EXAMPLES = r"""
- name: TCP load balancing of 18.0.0.172:80 reaches the three backends
  offload.testbed.netns_lb_probe:
    client_namespace: ltb-gen
    vip: 18.0.0.172
    port: 80
    protocol: tcp
    backends:
      - {namespace: ltb-srv1, address: 192.168.0.3}
      - {namespace: ltb-srv2, address: 192.168.0.4}
      - {namespace: ltb-srv3, address: 192.168.0.5}
"""

RETURN = r"""
hits:
  description: Answers per backend namespace.
  returned: always
  type: dict
  sample: {"ltb-srv1": 11, "ltb-srv2": 9, "ltb-srv3": 10}
answered:
  description: Attempts that got an answer.
  returned: always
  type: int
  sample: 30
resent:
  description: UDP datagrams sent again because their answer was late (0 over TCP).
  returned: always
  type: int
  sample: 0
attempts:
  description: Attempts made.
  returned: always
  type: int
  sample: 30
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.topology import netns_lb_probe

ARGUMENT_SPEC = netns.argument_spec(
    client_namespace=dict(type="str", required=True),
    vip=dict(type="str", required=True),
    port=dict(type="int", required=True),
    backends=dict(type="list", elements="dict", required=True, options=dict(
        namespace=dict(type="str", required=True),
        address=dict(type="str", required=True),
    )),
    count=dict(type="int", default=30),
    min_per_backend=dict(type="int", default=1),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    netns.refuse_bad_options(module, netns_lb_probe.option_errors)
    p = module.params
    outcome = netns.drive(module, netns_lb_probe.run, "probe driver")
    client = outcome["client"]
    hits = dict((b["namespace"], client["hits"].get(b["namespace"], 0)) for b in p["backends"])
    result = dict(changed=False, hits=hits, answered=client["answered"], attempts=client["attempts"], resent=client["resent"])
    starved = sorted(ns for ns, n in hits.items() if n < p["min_per_backend"])
    if starved or client["answered"] < p["min_ratio"] * client["attempts"]:
        module.fail_json(msg="%s %s:%d: %d of %d attempts answered; backends below %d answers: %s" % (
            p["protocol"].upper(), p["vip"], p["port"], client["answered"], client["attempts"], p["min_per_backend"],
            ", ".join(starved) or "none"), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
