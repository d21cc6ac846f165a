#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ovs_switch
short_description: Declarative Open vSwitch configuration in one ovs-vsctl transaction
version_added: 0.1.0
description:
  - Declares the C(Open_vSwitch) record's C(other_config) and C(external_ids), bridges (datapath type,
    fail mode, their own C(other_config) and C(external_ids)) and their ports (type, access tag, trunks,
    VLAN mode, interface C(options), C(other_config) and C(external_ids)).
  - Reads the switch once with C(ovs-vsctl --format=json list), compares it with the declaration and
    applies every difference in ONE C(ovs-vsctl) transaction; a second run with the same declaration runs
    nothing. Map values are quoted, so C(ovn-remote=ssl:10.10.0.4:6642) reaches the database whole (the
    C(openvswitch.openvswitch) modules split such values and re-set unchanged keys).
  - Internal ports with an O(bridges[].ports[].address) are brought up with it, and the offloads in
    O(bridges[].ports[].offloads_off) are turned off on them (the userspace datapath needs tx checksum, TSO
    and GSO off on the taps it hands to the kernel).
  - A key declared with a null value in any of the maps (C(other_config), C(external_ids), C(options)) is removed
    from the database when it is there; keys not declared are left alone.
  - Reports in RV(restart_keys) the C(other_config) keys that changed and that ovs-vswitchd reads only when
    it starts (C(doca-init), C(pmd-cpu-mask), and C(hw-offload) when it goes from true to false, since ovs-vswitchd
    turns the flow offload API on at run time but never off), so a role can restart it through a handler.
  - Before it reads the switch it refuses, every problem at once, a bridge or port name the kernel would refuse (more than
    15 characters, C(/), C(:), C(%) or white space in it; the kernel sees bridges, internal and system ports) or one with
    white space around it (the database would keep it), a VLAN outside 1..4094 and the other malformed values, each message
    naming the option (C(bridges[0].ports[1].name)), the value and the fix.
  - Option names follow C(openvswitch.openvswitch) where they mean the same (C(bridge), C(port), C(fail_mode),
    C(external_ids), C(tag)).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads the switch and returns the planned O(ignore:commands) without running them.
  diff_mode:
    support: full
    description: Returns the declared objects as they were before and after.
options:
  state:
    description: C(absent) deletes the declared bridges (with their ports); C(present) makes everything as declared.
    type: str
    choices: [present, absent]
    default: present
  other_config:
    description: Keys of the C(Open_vSwitch) record's C(other_config) (C(hw-offload), C(doca-init), C(pmd-cpu-mask)...); a null value
      removes the key. Other keys are left alone.
    type: dict
    default: {}
  external_ids:
    description: Keys of the C(Open_vSwitch) record's C(external_ids) (C(ovn-remote), C(ovn-encap-ip), C(system-id)...).
    type: dict
    default: {}
  purge_ports:
    description: Delete ports of the declared bridges that are not declared.
    type: bool
    default: false
  timeout:
    description: Seconds C(ovs-vsctl) waits for the database and for ovs-vswitchd.
    type: int
    default: 30
  bridges:
    description: Bridges and their ports.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: Bridge name, a kernel interface name (1 to 15 characters, no C(/), C(:), C(%) or white space).
        type: str
        required: true
        aliases: [bridge]
      datapath_type:
        description: C(doca), C(system) or C(netdev) (the userspace datapath); unset leaves it alone.
        type: str
      fail_mode:
        description: C(standalone) (a learning switch) or C(secure) (only the controller's flows, as br-int under OVN).
        type: str
        choices: [standalone, secure]
      other_config:
        description: Keys of the bridge's C(other_config).
        type: dict
        default: {}
      external_ids:
        description: Keys of the bridge's C(external_ids).
        type: dict
        default: {}
      ports:
        description: Ports of the bridge.
        type: list
        elements: dict
        default: []
        suboptions:
          name:
            description:
              - Port (and interface) name. For the types that are kernel interfaces (a system device, C(internal), C(tap),
                C(doca)) a kernel interface name (1 to 15 characters, no C(/), C(:), C(%) or white space); for the others
                no white space around it.
            type: str
            required: true
            aliases: [port]
          type:
            description: Interface type (C(internal), C(doca), C(dpdk), C(patch), or an empty string for a system device); unset leaves it alone.
            type: str
          tag:
            description: Access VLAN (1..4094).
            type: int
          trunks:
            description: VLANs a trunk port carries.
            type: list
            elements: int
          vlan_mode:
            description: VLAN mode of the port.
            type: str
            choices: [trunk, access, native-tagged, native-untagged]
          options:
            description: Interface C(options) (C(n_rxq), C(dpdk-devargs), C(peer)...).
            type: dict
            default: {}
          other_config:
            description: Interface C(other_config) (C(pmd-rxq-affinity)...).
            type: dict
            default: {}
          external_ids:
            description: Interface C(external_ids) (C(iface-id) binds the port to an OVN logical port).
            type: dict
            default: {}
          address:
            description: Address with prefix length of an internal port, set in the host's namespace.
            type: str
          offloads_off:
            description: C(ethtool -K) features turned off on an internal port.
            type: list
            elements: str
            default: []
"""

EXAMPLES = r"""
- name: The generator switch of the ConnectX-6 Lx reference bench, OVS-DOCA
  offload.testbed.ovs_switch:
    other_config:
      doca-init: "true"
      hw-offload: "true"
      hw-offload-ct-size: 1M
      default-datapath-type: doca
      pmd-cpu-mask: "0xfc"
    external_ids:
      ovn-remote: ssl:10.10.0.4:6642
      ovn-encap-ip: 10.30.0.3
      ovn-encap-type: geneve
      ovn-bridge: br-int
      ovn-bridge-mappings: physnet1:underlay
    bridges:
      - name: underlay
        datapath_type: doca
        fail_mode: standalone
        ports:
          - {name: ens3f0np0, type: doca, vlan_mode: trunk, trunks: [10, 20, 30],
             options: {n_rxq: 6}, other_config: {pmd-rxq-affinity: "0:2,1:3,2:4,3:5,4:6,5:7"}}
          - {name: ens3f0npf0vf0, type: doca, tag: 20}
          - {name: mgt, type: internal, tag: 10, address: 10.10.0.3/24}
          - {name: overlay, type: internal, tag: 30, address: 10.30.0.3/24}
      - name: br-int
        datapath_type: doca
        fail_mode: secure
        ports:
          - {name: ens3f0npf0vf1, type: doca, external_ids: {iface-id: port1}}
  register: ovs_result
  notify: Restart ovs-vswitchd
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ['ovs-vsctl --timeout=30 -- add-br br-int -- set Bridge br-int datapath_type=netdev fail_mode=secure']
restart_keys:
  description: C(other_config) keys that changed and that ovs-vswitchd only reads at start (C(hw-offload) only from true to false).
  returned: always
  type: list
  elements: str
  sample: [pmd-cpu-mask]
"""


from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs as ovs_plan
from ansible_collections.offload.testbed.plugins.module_utils.host import validate as rules
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import switch_model
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import OFFLOAD_FEATURES, parse_ethtool_features
from ansible_collections.offload.testbed.plugins.module_utils.parse.ip import parse_ip_addr_json

PORT_SPEC = dict(
    name=dict(type="str", required=True, aliases=["port"]),
    type=dict(type="str"),
    tag=dict(type="int"),
    trunks=dict(type="list", elements="int"),
    vlan_mode=dict(type="str", choices=["trunk", "access", "native-tagged", "native-untagged"]),
    options=dict(type="dict", default={}),
    other_config=dict(type="dict", default={}),
    external_ids=dict(type="dict", default={}),
    address=dict(type="str"),
    offloads_off=dict(type="list", elements="str", default=[]),
)

ARGUMENT_SPEC = dict(
    state=dict(type="str", choices=["present", "absent"], default="present"),
    other_config=dict(type="dict", default={}),
    external_ids=dict(type="dict", default={}),
    purge_ports=dict(type="bool", default=False),
    timeout=dict(type="int", default=30),
    bridges=dict(type="list", elements="dict", default=[], options=dict(
        name=dict(type="str", required=True, aliases=["bridge"]),
        datapath_type=dict(type="str"),
        fail_mode=dict(type="str", choices=["standalone", "secure"]),
        other_config=dict(type="dict", default={}),
        external_ids=dict(type="dict", default={}),
        ports=dict(type="list", elements="dict", default=[], options=PORT_SPEC),
    )),
)


def _read(runner, internal):
    tables = [runner.read(["ovs-vsctl", "--timeout=%d" % runner.module.params["timeout"], "--format=json", "list", t])[1]
              for t in ("Open_vSwitch", "Bridge", "Port", "Interface")]
    model = switch_model(tables[1], tables[2], tables[3], tables[0])
    links = parse_ip_addr_json(runner.read(["ip", "-j", "addr", "show"])[1]) if internal else {}
    features = {}
    for port in internal:
        if port["offloads_off"] and port["name"] in links:
            features[port["name"]] = parse_ethtool_features(runner.read(["ethtool", "-k", port["name"]])[1])
    return model, links, features


def _view(spec, model, links):
    """What the declared objects look like, for diff mode."""
    view = {"other_config": dict((k, model["open_vswitch"]["other_config"].get(k)) for k in sorted(spec["other_config"])),
            "external_ids": dict((k, model["open_vswitch"]["external_ids"].get(k)) for k in sorted(spec["external_ids"])),
            "bridges": {}}
    for bridge in spec["bridges"]:
        cur = model["bridges"].get(bridge["name"])
        if cur is None:
            view["bridges"][bridge["name"]] = None
            continue
        ports = {}
        for port in bridge["ports"]:
            pcur, icur = model["ports"].get(port["name"]), model["interfaces"].get(port["name"])
            ports[port["name"]] = None if pcur is None else {
                "bridge": pcur["bridge"], "tag": pcur["tag"], "trunks": pcur["trunks"], "type": icur["type"],
                "options": icur["options"], "external_ids": icur["external_ids"],
                "addresses": sorted(links.get(port["name"], {}).get("addresses", []))}
        view["bridges"][bridge["name"]] = {"datapath_type": cur["datapath_type"], "fail_mode": cur["fail_mode"], "ports": ports}
    return view


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    spec = module.params
    errors = []
    for i, bridge in enumerate(spec["bridges"]):
        errors += [e for e in [rules.interface_name("bridges[%d].name" % i, bridge["name"], rules.OVS_BRIDGE)] if e]
        errors += [e for e in (rules.ovs_port_name("bridges[%d].ports[%d].name" % (i, j), port["name"], port.get("type"))
                               for j, port in enumerate(bridge["ports"])) if e]
        for j, port in enumerate(bridge["ports"]):
            for feature in port["offloads_off"]:
                if feature not in OFFLOAD_FEATURES:
                    errors.append("bridges[%d].ports[%d].offloads_off: %r is not one of %s" % (i, j, feature, ", ".join(sorted(OFFLOAD_FEATURES))))
    errors += ovs_plan.validate({"datapath": "netdev", "bridges": spec["bridges"]}, prefix="")
    if errors:
        module.fail_json(msg="invalid switch declaration: " + "; ".join(errors), errors=errors)

    internal = [p for b in spec["bridges"] for p in b["ports"] if p.get("type") == "internal" and spec["state"] == "present"]
    runner = HostRunner(module)
    model, links, features = _read(runner, internal)
    sub, restart = ovs_plan.plan(spec, model)
    # a device made anew has neither the old one's addresses nor its offload settings
    recreated = ovs_plan.recreated_ports(spec, model)
    kept_links = dict((name, link) for name, link in links.items() if name not in recreated)
    features = dict((name, feature) for name, feature in features.items() if name not in recreated)
    commands = []
    if sub:
        cmd = ["ovs-vsctl", "--timeout=%d" % spec["timeout"]]
        for item in sub:
            cmd += ["--"] + item
        commands.append(cmd)
    commands += ovs_plan.address_plan(internal, kept_links)
    for port in internal:
        cur = features.get(port["name"])
        on = [f for f in port["offloads_off"] if cur is None or cur.get(OFFLOAD_FEATURES[f], True)]
        if on:
            commands.append(["ethtool", "-K", port["name"]] + [word for f in on for word in (f, "off")])

    before = _view(spec, model, links) if module._diff else None
    for argv in commands:
        runner.change(argv)
    result = dict(changed=bool(commands), commands=runner.commands, restart_keys=restart)
    if commands and not module.check_mode and module._diff:
        model, links, features = _read(runner, internal)
    if module._diff:
        result["diff"] = dict(before=before, after=_view(spec, model, links))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
