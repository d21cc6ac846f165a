#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: netdev_offloads
short_description: A tunnel underlay NIC's MTU and offload features, checked against what the driver allows
version_added: 0.2.0
description:
  - Reads the device (C(ip -j -d link show dev D) for C(mtu), C(min_mtu) and C(max_mtu); C(ethtool -k D) for its
    features), refuses what cannot be done before anything is written, then sets the MTU (C(ip link set dev D mtu N))
    and the features that differ (one C(ethtool -K D f1 on f2 off)).
  - For a VXLAN or Geneve overlay the underlay's MTU is raised by the encapsulation overhead (50 bytes for VXLAN over
    IPv4, so 1550 for 1500-byte inner frames), and the NIC's tunnel segmentation offloads (C(tx-udp_tnl-segmentation),
    C(tx-udp_tnl-csum-segmentation)) say whether it segments the encapsulated TCP itself.
  - "Refuses, all problems at once: a device or namespace name the kernel or C(ip netns) would refuse (checked before
    anything runs), a device that does not exist (in O(namespace)), a feature C(ethtool -k) does not list,
    a feature printed C([fixed]) asked to change (the driver does not allow it), an O(mtu) outside 68..65535 or
    beyond the device's C(min_mtu)/C(max_mtu)."
  - After writing it reads the device again. C(ethtool -K) can exit 0 and leave a feature as it was (it then prints
    C(Actual changes:) with C([requested on]) lines, or C(Could not change any device features)); the module fails
    naming every feature that did not change, and an MTU that did not change.
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the device and returns the planned O(ignore:commands) and the values they would give; nothing is written.
  diff_mode:
    support: full
    description: The MTU and the requested features before and after.
options:
  device:
    description: The network device (the tunnel's underlay NIC, such as C(ens1f0np0)).
    type: str
    required: true
  namespace:
    description: The network namespace the device is in; every command then runs under C(ip netns exec NAMESPACE).
    type: str
  mtu:
    description: The MTU to set, 68..65535 and at most the device's C(max_mtu). Unset leaves the MTU alone.
    type: int
  features:
    description:
      - Feature name to C(true) (on) or C(false) (off), names as C(ethtool -k) prints them
        (C(tx-udp_tnl-segmentation), C(tx-udp_tnl-csum-segmentation), C(generic-receive-offload)...). Features not
        named are left alone.
    type: dict
    default: {}
  validate_only:
    description: Only read the device and check; return the problems in RV(errors) and change nothing.
  names:
    description: "How the messages call the options (C({mtu: tunnel_underlay_mtu, features: tunnel_underlay_offloads}))."
"""

EXAMPLES = r"""
- name: VXLAN over IPv4 underlay - 1500 + 50 bytes of encapsulation, tunnel segmentation offloaded
  offload.testbed.netdev_offloads:
    device: ens1f0np0
    mtu: 1550
    features:
      tx-udp_tnl-segmentation: true
      tx-udp_tnl-csum-segmentation: true

- name: The same device inside a namespace, checked only
  offload.testbed.netdev_offloads:
    device: a
    namespace: nt-x
    mtu: 1550
    validate_only: true
    names:
      mtu: tunnel_underlay_mtu
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
  sample: ["ip link set dev ens1f0np0 mtu 1550", "ethtool -K ens1f0np0 tx-udp_tnl-segmentation on"]
mtu:
  description: The device's MTU after the run (in check mode, the one it would have); null when the device could not be read.
  returned: always
  type: int
  sample: 1550
features:
  description: The requested features' values after the run (in check mode, the planned ones).
  returned: always
  type: dict
  sample: {"tx-udp_tnl-segmentation": true}
all_features:
  description: Every feature of C(ethtool -k) after the run, name to on (true) or off (false).
  returned: always
  type: dict
fixed:
  description: The names of the features C(ethtool -k) prints C([fixed]), which the driver does not let change.
  returned: always
  type: list
  elements: str
  sample: ["tx-checksum-ipv4", "large-receive-offload"]
errors:
  description: Why the device cannot be made as asked; empty when it can.
  returned: always
  type: list
  elements: str
"""


from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, failure
from ansible_collections.offload.testbed.plugins.module_utils.datapath import netdev_offloads as nd
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_features_detail

ARGUMENT_SPEC = dict(
    device=dict(type='str', required=True),
    namespace=dict(type='str'),
    mtu=dict(type='int'),
    features=dict(type='dict', default={}),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)


def read(runner, p):
    """``(link, features detail, error)``; ``None`` for what could not be read."""
    rc, out, err = runner.read(nd.link_argv(p['device'], p['namespace']), check_rc=False)
    if rc != 0:
        return None, None, nd.device_error(p, rc, out, err)
    try:
        link = nd.parse_link(out)
    except ValueError as exc:
        return None, None, '%s: ip -j -d link show printed no JSON (%s)' % (nd.names_of(p)('device'), exc)
    argv = nd.features_argv(p['device'], p['namespace'])
    rc, out, err = runner.read(argv, check_rc=False)
    if rc != 0:
        return link, None, '%s: %s' % (nd.names_of(p)('device'), failure(argv, rc, out, err))
    return link, parse_ethtool_features_detail(out), None


def state(p, mtu, feats, current):
    """The RETURN values of a device with ``mtu`` and ``feats`` ({name: bool})."""
    return dict(mtu=mtu, features=dict((name, feats.get(name)) for name in p['features']),
                all_features=feats, fixed=sorted(name for name in current if current[name]['fixed']))


def write(runner, commands, result):
    """Run the plan; an ``ip`` that fails fails the module, ``ethtool -K``'s words are kept for the read back."""
    messages = ''
    # result['commands'] is the runner's own list: a failure returns the result as it stands.
    for argv in commands:
        rc, out, err = runner.change(argv, check_rc='ethtool' not in argv, fields=result)
        if 'ethtool' in argv:
            messages += (out or '') + (err or '')
    return messages


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    named = nd.name_errors(p)
    runner = HostRunner(module)
    link, current, error = read(runner, p) if not named else (None, None, None)
    errors = named + ([error] if error else []) + nd.errors_of(p, link, current)
    result = dict(changed=False, commands=[], errors=errors, mtu=link and link['mtu'], features={}, all_features={}, fixed=[])
    if current is not None:
        result.update(state(p, link['mtu'], dict((n, d['on']) for n, d in current.items()), current))
    if errors and not p['validate_only']:
        module.fail_json(msg='; '.join(errors), **result)
    if p['validate_only'] or errors:
        module.exit_json(**result)
    commands = nd.plan(p, link, current)
    result['commands'] = runner.commands
    before = nd.view(p, result['mtu'], result['all_features'])
    messages = write(runner, commands, result)
    if module.check_mode:
        result.update(state(p, *(nd.expected(p, link, current) + (current,))))
    elif commands:
        link, current, error = read(runner, p)
        if error:
            module.fail_json(msg='reading %s back failed: %s' % (p['device'], error), **result)
        result.update(state(p, link['mtu'], dict((n, d['on']) for n, d in current.items()), current))
        result['errors'] = nd.readback_errors(p, link, current, messages)
        if result['errors']:
            module.fail_json(msg='; '.join(result['errors']), **result)
    result['changed'] = bool(commands)
    if module._diff:
        result['diff'] = dict(before=before, after=nd.view(p, result['mtu'], result['all_features']))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
