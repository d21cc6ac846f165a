#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: virtual_lab_net
short_description: Network namespaces, veth wires and Open vSwitch ports of the virtual lab
version_added: 0.1.0
description:
  - Builds or removes, on the host it runs on, a lab of network namespaces joined by veth wires to
    Open vSwitch bridges, with VLAN access tags, addresses, routes and OVS internal ports.
  - Reads the current state (C(ip -j), C(ethtool -k), C(ovs-vsctl --format=json)), compares it with
    the declared lab, then runs only the commands needed; every OVS change goes into one
    C(ovs-vsctl) transaction.
  - Validates the whole definition before it reads or changes anything; a malformed CIDR, a VLAN
    outside 1..4094, a namespace declared twice or an address outside its network's subnet fails
    with a message naming the option.
  - Turns off on every veth end and internal port the offloads listed in O(offloads_off). The Open
    vSwitch userspace (netdev) datapath does not complete checksums or segment large frames that
    the kernel hands it with those offloads on, so TCP through it silently stalls.
  - O(state=absent) removes the declared namespaces, veths and OVS ports, and the bridges the
    module created (they carry C(external_ids:offload-testbed=virtual_lab)) once no other port
    is left on them; nothing else is touched. When Open vSwitch does not answer, it still removes
    the namespaces and veths and warns that the ports and bridges stay in the switch's database.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads the state and returns the planned O(ignore:commands) without running them.
  diff_mode:
    support: full
    description: Returns the lab's namespaces, addresses and internal ports before and after.
options:
  state:
    description: Whether the lab exists.
    type: str
    choices: [present, absent]
    default: present
  bridge:
    description: The lab's Open vSwitch bridge, where networks without their own O(networks[].bridge) attach.
    type: str
    default: underlay
  datapath_type:
    description: Datapath of the lab's bridges; C(netdev) is the userspace datapath that needs no kernel module.
    type: str
    choices: [netdev, system]
    default: netdev
  port_type:
    description:
      - How each wire's outer end joins Open vSwitch. C(system) (the kernel interface, read and written by
        ovs-vswitchd's own AF_PACKET socket) or C(dpdk) (a port of type C(dpdk) whose C(dpdk-devargs) are DPDK's
        AF_PACKET poll mode driver on the veth, C(net_af_packet<N>,iface=<veth>), polled by a PMD thread;
        OVS-DPDK, with ovs-vswitchd's DPDK initialised by C(other_config) C(dpdk-init)).
      - C(dpdk) needs O(datapath_type=netdev).
    type: str
    choices: [system, dpdk]
    default: system
  fail_mode:
    description: Fail mode of O(bridge); C(standalone) makes it a learning switch (the NORMAL action).
    type: str
    choices: [standalone, secure]
    default: standalone
  mtu:
    description: MTU of every veth end and internal port.
    type: int
    default: 1500
  offloads_off:
    description: C(ethtool -K) features turned off on every interface of the lab.
    type: list
    elements: str
    default: [tx, tso, gso]
  networks:
    description: The lab's networks (one per VLAN).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Name the links refer to.
        type: str
        required: true
      cidr:
        description: Subnet of the network; every address on it must be inside it.
        type: str
        required: true
      vlan:
        description: Access VLAN tag of the network's ports on the bridge (1..4094); unset for untagged.
        type: int
      bridge:
        description: Bridge the network's ports attach to, when not O(bridge).
        type: str
      mtu:
        description:
          - MTU of the network's interfaces (both ends of its wires, its internal ports), when not O(mtu).
          - A tunnel's underlay network carries the tunnel's overhead on top of the inner MTU (1550 for VXLAN over IPv4).
        type: int
  namespaces:
    description: Network namespaces, each with veth links into the lab's networks.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Namespace name.
        type: str
        required: true
      links:
        description: Veth wires from the namespace to a bridge.
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description: Interface name inside the namespace.
            type: str
            required: true
          peer:
            description: Name of the host end, which becomes the OVS port (at most 15 characters).
            type: str
            required: true
          network:
            description: Name of the network in O(networks) the wire belongs to.
            type: str
            required: true
          address:
            description: Address with prefix length, inside the network's subnet.
            type: str
          gateway:
            description: Default gateway of the namespace, on this link's subnet.
            type: str
          mac:
            description: MAC address of the interface inside the namespace.
            type: str
          iface_id:
            description: C(external_ids:iface-id) of the OVS interface, binding it to an OVN logical port.
            type: str
      loopback:
        description: Addresses with prefix length put on the namespace's C(lo), for hosts behind it (16.0.0.188 on the ConnectX-6 Lx reference bench).
        type: list
        elements: str
        default: []
      routes:
        description: Static routes in the namespace.
        type: list
        elements: dict
        default: []
        suboptions:
          to:
            description: Destination CIDR.
            type: str
            required: true
          via:
            description: Next hop.
            type: str
            required: true
  internal_ports:
    description: OVS internal ports created on the host (in the root namespace), with their addresses.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Port and interface name.
        type: str
        required: true
      network:
        description: Name of the network in O(networks).
        type: str
        required: true
      address:
        description: Address with prefix length, inside the network's subnet.
        type: str
      mac:
        description: MAC address.
        type: str
      iface_id:
        description: C(external_ids:iface-id) of the OVS interface.
        type: str
"""

EXAMPLES = r"""
- name: Two namespaces on VLAN 30 of a userspace bridge
  offload.testbed.virtual_lab_net:
    bridge: underlay
    networks:
      - {name: servers, cidr: 192.168.0.0/24, vlan: 30}
    namespaces:
      - name: ltb-srv1
        links: [{name: eth0, peer: ltb-srv1, network: servers, address: 192.168.0.3/24}]
      - name: ltb-srv2
        links: [{name: eth0, peer: ltb-srv2, network: servers, address: 192.168.0.4/24}]

- name: Remove it again
  offload.testbed.virtual_lab_net:
    state: absent
    networks:
      - {name: servers, cidr: 192.168.0.0/24, vlan: 30}
    namespaces:
      - name: ltb-srv1
        links: [{name: eth0, peer: ltb-srv1, network: servers}]
      - name: ltb-srv2
        links: [{name: eth0, peer: ltb-srv2, network: servers}]
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, that would run), in order.
  returned: always
  type: list
  elements: str
  sample: ["ip netns add ltb-srv1", "ovs-vsctl --timeout=30 -- add-port underlay ltb-srv1 tag=30"]
lab:
  description: Namespaces with their interfaces' addresses, and internal ports with theirs, after the run.
  returned: always
  type: dict
  sample: {"namespaces": {"ltb-srv1": {"eth0": ["192.168.0.3/24"]}}, "internal_ports": {"mgt": ["10.10.0.3/24"]}}
"""


from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line
from ansible_collections.offload.testbed.plugins.module_utils.topology import virtual_lab as vl
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_features
from ansible_collections.offload.testbed.plugins.module_utils.parse.ip import parse_ip_addr_json, parse_ip_route_json, parse_netns_list

LINK_SPEC = dict(
    name=dict(type="str", required=True),
    peer=dict(type="str", required=True),
    network=dict(type="str", required=True),
    address=dict(type="str"),
    gateway=dict(type="str"),
    mac=dict(type="str"),
    iface_id=dict(type="str"),
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", choices=["present", "absent"], default="present"),
    bridge=dict(type="str", default="underlay"),
    datapath_type=dict(type="str", choices=["netdev", "system"], default="netdev"),
    port_type=dict(type="str", choices=["system", "dpdk"], default="system"),
    fail_mode=dict(type="str", choices=["standalone", "secure"], default="standalone"),
    mtu=dict(type="int", default=1500),
    offloads_off=dict(type="list", elements="str", default=["tx", "tso", "gso"]),
    networks=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True),
        cidr=dict(type="str", required=True),
        vlan=dict(type="int"),
        bridge=dict(type="str"),
        mtu=dict(type="int"),
    )),
    namespaces=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True),
        links=dict(type="list", elements="dict", default=[], options=LINK_SPEC),
        loopback=dict(type="list", elements="str", default=[]),
        routes=dict(type="list", elements="dict", default=[], options=dict(
            to=dict(type="str", required=True),
            via=dict(type="str", required=True),
        )),
    )),
    internal_ports=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True),
        network=dict(type="str", required=True),
        address=dict(type="str"),
        mac=dict(type="str"),
        iface_id=dict(type="str"),
    )),
)


class Lab(object):
    """Reads the host through the module's runner."""

    def __init__(self, runner):
        self.runner = runner
        self.module = runner.module

    def run(self, argv, check=True):
        rc, out, _err = self.runner.read(argv, check_rc=check)
        return rc, out

    def read(self, lab):
        _rc, out = self.run(["ip", "netns", "list"])
        netns = parse_netns_list(out)
        _rc, out = self.run(["ip", "-j", "addr", "show"])
        root = parse_ip_addr_json(out)
        state = {"netns": netns, "root_links": root, "ns_links": {}, "ns_routes": {}, "features": {}}
        features = []
        for ns in lab["namespaces"]:
            name = ns["name"]
            if name not in netns:
                continue
            _rc, out = self.run(["ip", "-j", "-n", name, "addr", "show"])
            state["ns_links"][name] = parse_ip_addr_json(out)
            _rc, out = self.run(["ip", "-j", "-n", name, "route", "show"])
            state["ns_routes"][name] = parse_ip_route_json(out)
            for link in ns["links"]:
                if link["name"] in state["ns_links"][name]:
                    features.append((name, link["name"]))
                if link["peer"] in root:
                    features.append(("", link["peer"]))
        for port in lab["internal_ports"]:
            if port["name"] in root:
                features.append(("", port["name"]))
        for ns, dev in features:
            argv = ["ethtool", "-k", dev]
            if ns:
                argv = ["ip", "netns", "exec", ns] + argv
            _rc, out = self.run(argv)
            state["features"][(ns, dev)] = parse_ethtool_features(out)
        state["ovs"] = self.read_ovs(lab)
        return state

    def read_ovs(self, lab):
        """The switch model; when removing, an Open vSwitch that does not answer holds nothing to remove."""
        listing = []
        for table in ("Bridge", "Port", "Interface"):
            argv = ["ovs-vsctl", "--timeout=10", "--format=json", "list", table]
            rc, out = self.run(argv, check=lab["state"] == "present")
            if rc != 0:
                self.module.warn("Open vSwitch does not answer (%s): the namespaces and veths are removed, the lab's "
                                 "ports and bridges stay in its database until it runs and this is run again" % command_line(argv))
                return vl.parse_ovs_state("", "", "")
            listing.append(out)
        return vl.parse_ovs_state(*listing)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    lab = dict(module.params)
    errors = vl.validate(lab)
    if errors:
        module.fail_json(msg="invalid lab definition: " + "; ".join(errors), errors=errors)

    runner = HostRunner(module)
    host = Lab(runner)
    before = host.read(lab)
    planner = vl.plan_present if lab["state"] == "present" else vl.plan_absent
    pre, ovs_cmds, post = planner(lab, before)
    commands = list(pre)
    transaction = vl.ovs_transaction(ovs_cmds)
    if transaction:
        commands.append(transaction)
    commands.extend(post)

    for argv in commands:
        runner.change(argv)
    result = dict(changed=bool(commands), commands=runner.commands)
    after = before
    if commands and not module.check_mode:
        after = host.read(lab)
    result["lab"] = vl.summary(lab, after)
    if module._diff:
        result["diff"] = dict(before=vl.summary(lab, before), after=result["lab"])
    module.exit_json(**result)


if __name__ == "__main__":
    main()
