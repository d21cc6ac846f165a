#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ovn_topology
short_description: Declare an OVN logical topology (switches, routers, NAT, load balancers) in the Northbound database
version_added: 0.1.0
description:
  - Makes the OVN Northbound database hold the logical switches, switch ports, routers, router ports, gateway chassis,
    static routes, NAT rules and load balancers that are declared.
  - Reads the Northbound database once (one C(ovn-nbctl --format=json) call listing the tables involved), computes the
    difference in Python and applies every change in B(one) C(ovn-nbctl) invocation, that is one OVSDB transaction made of
    generic database commands (C(create), C(set), C(add), C(remove), C(destroy)); new rows are named with C(--id=@name).
    When nothing differs no command is run and C(changed) is V(false).
  - >-
    The whole declaration (field names and types included) is validated before the database is read; every problem is
    reported at once, each message naming the object and the field, for example
    C(routers[lr0].ports[p1].mac: 'zz' is not a MAC address). A name (of a switch, router, port, load balancer, chassis,
    localnet network or NAT logical port) with white space around it or a control character in it is refused: the
    database would keep it as written, and what looks the object up by its visible name would not find it.
  - Objects are identified by name (switches, switch ports, routers, router ports, load balancers), by chassis within a
    router port (gateway chassis), by prefix, nexthop, policy and output port (static routes) and by type, external IP and
    logical IP (NAT rules).
  - The columns the module manages on a declared object are set exactly as declared; an omitted field means its default
    (for example no gateway chassis, no tag, no options).
  - Without O(purge), objects that are not declared are left alone, and so are undeclared ports, static routes, NAT rules and
    load balancer attachments of declared switches and routers. With O(purge=true) they are deleted or detached.
requirements:
  - C(ovn-nbctl) on the host the task runs on, able to reach the Northbound database; no Python is needed there (see the
    C(action) attribute).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
    details:
      - The action plugin validates the declaration and computes the plan on the controller, and runs only the two C(ovn-nbctl)
        commands (the read and, when something changes outside check mode, the write) on the host through the connection.
        No module is sent to the host, which saves the start of a module process (about half a second per task on a
        two-core machine).
      - The write's arguments go to the host on standard input, one per line, and C(/bin/sh) makes them the arguments of one
        C(ovn-nbctl) call (one transaction), so a write longer than one shell word (128 KiB) works. An argument that cannot
        travel that way (a line break in it, or empty) makes the action run this module instead.
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: full
    details:
      - One before/after entry per switch, router or load balancer that changes.
options:
  nb_db:
    description:
      - Northbound database to connect to, passed to C(ovn-nbctl) as C(--db), for example V(tcp:10.10.0.4:6641),
        V(ssl:10.10.0.4:6641) or V(unix:/var/run/ovn/ovnnb_db.sock).
      - When omitted C(ovn-nbctl) uses its default (the E(OVN_NB_DB) environment variable or the local socket).
    type: str
  private_key:
    description: Private key file for an C(ssl:) database, passed as C(-p).
    type: path
  certificate:
    description: Certificate file for an C(ssl:) database, passed as C(-c).
    type: path
  ca_cert:
    description: CA certificate file for an C(ssl:) database, passed as C(-C).
    type: path
  ovn_nbctl:
    description:
      - The C(ovn-nbctl) to run, a name looked up on E(PATH) or a path, for example that of an OVN built from source
        (C(ovn_build_facts.bindir) of the offload.testbed.ovn_build role).
    type: str
    default: ovn-nbctl
  timeout:
    description: Seconds C(ovn-nbctl) waits for the database (C(--timeout)); V(0) waits forever.
    type: int
    default: 30
  purge:
    description:
      - Delete switches, routers and load balancers that are not declared, and, within declared switches and routers,
        ports, static routes and NAT rules that are not declared, and detach load balancers that are not listed.
    type: bool
    default: false
  topology:
    description:
      - The whole declaration as one JSON text, a mapping with the keys C(switches), C(routers) and C(load_balancers) (each
        optional) whose values are what O(switches), O(routers) and O(load_balancers) take.
      - >-
        Meant for large topologies kept in a file next to the playbook, for example
        C(topology: "{{ lookup('ansible.builtin.file', 'topology.json') }}"). Ansible then templates and transfers one
        string instead of walking thousands of nested values, which for 1,000 VIPs and 1,000 NAT rules saves about a
        third of a second per run.
      - Mutually exclusive with O(switches), O(routers) and O(load_balancers). Validated exactly like them; errors name
        the objects the same way.
    type: str
  switches:
    description: Logical switches.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Name of the logical switch.
        type: str
        required: true
      ports:
        description: Logical switch ports. A port name must be unique among all switch and router ports.
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: Name of the port (for a VM or a VF representor, the C(iface-id) of its OVS interface).
            type: str
            required: true
          type:
            description:
              - Port type, for example V(router), V(localnet), V(localport), V(external); the default is a normal VIF port.
            type: str
            default: ''
          addresses:
            description:
              - Address entries, each V(unknown), V(router), V(dynamic) or a MAC address followed by IP addresses,
                for example V(50:54:00:00:00:01 192.168.0.3).
              - Defaults to V([router]) for a port of type V(router) and to no address otherwise.
            type: list
            elements: str
          router_port:
            description:
              - For O(switches[].ports[].type=router), the router port this port connects to (C(options:router-port)).
                It must be declared in O(routers).
            type: str
          network_name:
            description: For O(switches[].ports[].type=localnet), the physical network name (C(options:network_name)).
            type: str
          tag:
            description:
              - VLAN tag of the port (C(tag_request)), for example of a localnet or router port on a VLAN.
              - 1 to 4094 (0 would mean priority tagged and 4095 is reserved); leave it unset for an untagged port.
            type: int
          options:
            description: Other port options (C(options) column); O(switches[].ports[].router_port) and O(switches[].ports[].network_name) are added to them.
            type: dict
            default: {}
      load_balancers:
        description: Names of load balancers (declared in O(load_balancers)) attached to the switch.
        type: list
        elements: str
        default: []
  routers:
    description: Logical routers.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Name of the logical router.
        type: str
        required: true
      ports:
        description: Logical router ports. The networks of two ports of a router must not overlap.
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: Name of the router port.
            type: str
            required: true
          mac:
            description: MAC address of the port. Required.
            type: str
          networks:
            description: Addresses of the port with their prefix length, for example V(192.168.0.1/24). At least one is required.
            type: list
            elements: str
          gateway_chassis:
            description: Gateway chassis of the port (makes it a distributed gateway port). Rows are named C(<port>-<chassis>).
            type: list
            elements: dict
            default: []
            suboptions:
              chassis:
                description: Chassis name, as C(ovn-sbctl show) prints it.
                type: str
                required: true
              priority:
                description: Priority (0-32767); the highest priority chassis is active.
                type: int
                default: 0
      static_routes:
        description: Static routes of the router. The nexthop must be in the network of one of the router's declared ports.
        type: list
        elements: dict
        default: []
        suboptions:
          prefix:
            description: Destination (or source) prefix, for example V(48.0.0.0/16). Host bits are cleared. Required.
            type: str
          nexthop:
            description: Nexthop IP address, or V(discard). Required.
            type: str
          output_port:
            description: Router port to send the traffic out of.
            type: str
          policy:
            description: Match on destination or source IP.
            type: str
            choices: [dst-ip, src-ip]
            default: dst-ip
      nat:
        description: NAT rules of the router.
        type: list
        elements: dict
        default: []
        suboptions:
          type:
            description: NAT type.
            type: str
            required: true
            choices: [dnat_and_snat, snat, dnat]
          external_ip:
            description: External IP address. Required.
            type: str
          logical_ip:
            description:
              - Logical IP address (for V(snat) also a network). Required.
              - It must lie in a network of one of the router's ports, or under the prefix of one of its static routes
                (a V(src-ip) route may carry packets anywhere, so with one the address is not checked); otherwise the
                router could never deliver the translated packets and the declaration is refused.
              - The external IP address needs no such check; it may be routed to the router from outside, as the
                ConnectX-6 Lx reference bench routes V(18.0.0.188) to the gateway port V(10.20.0.2).
            type: str
          logical_port:
            description: For a distributed V(dnat_and_snat) rule, the logical port of the VM; needs O(routers[].nat[].external_mac).
            type: str
          external_mac:
            description: For a distributed V(dnat_and_snat) rule, the external MAC address; needs O(routers[].nat[].logical_port).
            type: str
      load_balancers:
        description: Names of load balancers (declared in O(load_balancers)) attached to the router.
        type: list
        elements: str
        default: []
  load_balancers:
    description:
      - Load balancers, each with one VIP (O(load_balancers[].vip) and O(load_balancers[].backends)) or several
        (O(load_balancers[].vips)). Backends must be of the IP version of their VIP and have a port when the VIP has one.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Name of the load balancer.
        type: str
        required: true
      vip:
        description: Virtual IP with optional port, for example V(18.0.0.172:80) or V([fd00::1]:80). Required.
        type: str
      backends:
        description: Backends of O(load_balancers[].vip), for example V(192.168.0.3:80). At least one is required.
        type: list
        elements: str
      vips:
        description:
          - >-
            Several VIPs in one load balancer, instead of O(load_balancers[].vip) and O(load_balancers[].backends): a
            mapping of each VIP to its backends (a list, or a comma-separated string as OVN stores it), for example
            C({"18.0.0.172:80": ["192.168.0.3:80", "192.168.0.4:80"]}).
        type: dict
      protocol:
        description: Protocol of the VIP.
        type: str
        choices: [tcp, udp, sctp]
        default: tcp
notes:
  - Every change is made in a single C(ovn-nbctl) invocation, so it is limited by the size of a command line (C(ARG_MAX),
    usually 2 MiB); a topology of a thousand load balancers and a thousand NAT rules needs about 250 kB.
  - The task's C(environment) (for example E(OVN_NB_DB)) and privilege escalation (C(become)) apply to the C(ovn-nbctl)
    commands the action plugin runs.
  - The read and the write are two C(ovn-nbctl) calls; a change made by someone else in between may be overwritten.
  - Column values the module does not manage (external IDs, ACLs, load balancer options, ...) are left as they are.
  - Below verbosity C(-vvv) the C(invocation) the module returns shows how many switches, routers and load balancers were
    declared rather than echoing all of them back (thousands of objects would cost more than the whole plan).
seealso:
  - name: ovn-nbctl(8)
    description: The OVN Northbound database management utility.
    link: https://www.ovn.org/support/dist-docs/ovn-nbctl.8.html
"""

EXAMPLES = r"""
- name: Logical topology of the bench
  offload.testbed.ovn_topology:
    nb_db: "tcp:10.10.0.4:6641"
    switches:
      - name: sw0
        ports:
          - name: port1
            addresses: ["50:54:00:00:00:01 192.168.0.3"]
          - name: uplink
            type: router
            router_port: p1
      - name: external
        ports:
          - name: internet
            type: localnet
            addresses: [unknown]
            network_name: physnet1
          - name: downlink
            type: router
            router_port: ext_gw
            tag: 20
    routers:
      - name: lr0
        ports:
          - name: p1
            mac: "00:00:00:00:ff:01"
            networks: ["192.168.0.1/24"]
          - name: ext_gw
            mac: "00:00:00:01:ff:01"
            networks: ["10.20.0.2/24"]
            gateway_chassis:
              - {chassis: "{{ gateway_chassis_name }}", priority: 10}
        static_routes:
          - {prefix: 48.0.0.0/16, nexthop: 10.20.0.3}
          - {prefix: 16.0.0.0/16, nexthop: 192.168.0.3}
        nat:
          - {type: dnat_and_snat, external_ip: 18.0.0.188, logical_ip: 16.0.0.188}
        load_balancers: [lb-web, lb-udp]
    load_balancers:
      - name: lb-web
        vip: "18.0.0.172:80"
        backends: ["192.168.0.3:80", "192.168.0.4:80", "192.168.0.5:80"]
        protocol: tcp
      - name: lb-udp
        vip: "18.0.0.172:8080"
        backends: ["192.168.0.3:8080", "192.168.0.4:8080", "192.168.0.5:8080"]
        protocol: udp

- name: Same, over SSL, deleting everything else from the Northbound database
  offload.testbed.ovn_topology:
    nb_db: "ssl:10.10.0.4:6641"
    private_key: /etc/ovn/ovn-privkey.pem
    certificate: /etc/ovn/ovn-cert.pem
    ca_cert: /etc/ovn/cacert.pem
    purge: true
    switches: "{{ ovn_switches }}"
    routers: "{{ ovn_routers }}"
    load_balancers: "{{ ovn_load_balancers }}"

- name: A large topology kept as JSON next to the playbook (one string for Ansible to template)
  offload.testbed.ovn_topology:
    nb_db: "unix:/var/run/ovn/ovnnb_db.sock"
    topology: "{{ lookup('ansible.builtin.file', 'topology.json') }}"

- name: Preview the commands without touching the database
  offload.testbed.ovn_topology:
    switches:
      - name: sw1
        ports:
          - {name: vm1, addresses: ["50:54:00:00:00:11 192.168.1.11"]}
  check_mode: true
  diff: true
  register: plan

- name: Show them
  ansible.builtin.debug:
    var: plan.commands
"""

RETURN = r"""
commands:
  description:
    - The database commands of the single C(ovn-nbctl) transaction, each as it follows C(--) on the command line (run, or
      that would run in check mode). Empty when the database already matches.
  returned: always
  type: list
  elements: str
  sample:
    - "--id=@lb0 create Load_Balancer name=lb-web protocol=tcp 'vips={\"18.0.0.172:80\"=\"192.168.0.3:80,192.168.0.4:80\"}'"
    - "--id=@nat0 create NAT type=dnat_and_snat external_ip=\"18.0.0.188\" logical_ip=\"16.0.0.188\""
    - "add Logical_Router lr0 nat @nat0"
summary:
  description:
    - How many objects of each kind were (or would be) created, updated and deleted, one C(created)/C(updated)/C(deleted)
      mapping per kind, counted from the planned commands.
    - The kinds are C(switches), C(switch_ports), C(routers), C(router_ports), C(static_routes), C(nat) and
      C(load_balancers). For a switch or router, updated means load balancers attached or detached; for a router port
      it includes gateway chassis changes; a port moved to another switch or router counts as updated.
  returned: always
  type: dict
  sample:
    switches: {created: 1, updated: 0, deleted: 0}
    switch_ports: {created: 2, updated: 0, deleted: 0}
    routers: {created: 1, updated: 0, deleted: 0}
    router_ports: {created: 2, updated: 0, deleted: 0}
    static_routes: {created: 2, updated: 0, deleted: 0}
    nat: {created: 1, updated: 0, deleted: 0}
    load_balancers: {created: 2, updated: 0, deleted: 0}
diff:
  description: In diff mode, one entry per switch, router or load balancer that changes, with its state before and after.
  returned: when diff mode is on and something changes
  type: list
  elements: dict
  sample:
    - before_header: load_balancer lb-web
      after_header: load_balancer lb-web
      before: {}
      after: {vips: {"18.0.0.172:80": "192.168.0.3:80,192.168.0.4:80"}, protocol: tcp}
"""

import functools

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn import (
    ApplyError,
    apply_topology,
    argument_spec,
    invocation_value,
)


def run_module(module):
    """Validate, read once, plan, write once (not in check mode). Returns the result dict."""
    # found on PATH and in the sbin directories; the declaration is checked before it is needed
    ovn_nbctl = module.get_bin_path(module.params["ovn_nbctl"]) or module.params["ovn_nbctl"]
    try:
        # apply_topology checks each command's rc and lists its one write itself (commands are OVSDB operations).
        run = functools.partial(HostRunner(module).read, check_rc=False)
        ret = apply_topology(module.params, run, check_mode=module.check_mode, diff=module._diff, ovn_nbctl=ovn_nbctl)
    except ApplyError as exc:
        module.fail_json(msg=exc.msg, **exc.fields)
    if module._verbosity < 3:
        # Echoing thousands of declared objects back in "invocation" (which the
        # controller only shows at -vvv) costs more than the whole plan.
        ret["invocation"] = dict(module_args=dict((key, invocation_value(key, value)) for key, value in module.params.items()))
    return ret


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    module.exit_json(**run_module(module))


if __name__ == "__main__":
    main()
