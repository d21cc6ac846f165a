#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: sriov_pf
short_description: A PF in switchdev mode with its VFs, both MACs of every VF, links up and representors
version_added: 0.2.0
description:
  - Puts one physical function (PF) of a SmartNIC in the wanted eswitch mode with O(numvfs) virtual functions, in
    the only order the driver accepts, VFs to 0 (C(sriov_numvfs)), C(devlink dev eswitch set ... mode switchdev),
    then N VFs, and only when the mode or the VF count differs.
  - Sets each VF's MAC on both sides, on the PF (C(ip link set dev PF vf N mac X), what the eswitch switches on)
    and on the VF netdev (C(ip link set dev VF address X), what TRex reads); the ConnectX-6 Lx reference bench lost
    a week to the two differing. Binds the VF driver when a VF has no netdev, and rebinds it when the VF refuses its own address;
    a VF bound to another driver (vfio-pci, given to DPDK by dpdk_host) keeps it and gets only its MAC on the PF side.
  - Brings the PF, the VFs and the representors up and waits until a representor exists for every VF.
  - Reads the eswitch with C(devlink -j) where the installed iproute2 supports it and falls back to the text form.
  - Before it changes anything, reads the PF from sysfs (its netdev, PCI address, C(sriov_totalvfs), the VF driver)
    and devlink, and refuses, with every problem at once, a PF that does not exist or is no SR-IOV PF, a PCI address
    that is malformed or not the PF's, more VFs than C(sriov_totalvfs), VF MACs that are no unicast MAC, name a VF
    that does not exist or are given twice, a VF driver the host does not have, a timeout outside 1..3600 and a PF
    without an eswitch. With O(validate_only) it only reports them.
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the state and returns the planned O(ignore:commands); no sysfs file is written.
  diff_mode:
    support: full
    description: Returns the mode, the VF count and the VF MACs before and after.
options:
  pf:
    description: The PF's netdev name.
    type: str
    required: true
  pci:
    description:
      - The PF's PCI address (C(0000:32:00.0)); read from sysfs when unset.
      - A string; anything else (such as the number YAML makes of an unquoted address) is refused naming it.
    type: raw
  numvfs:
    description: Number of VFs.
    type: int
    required: true
  mode:
    description:
      - Eswitch mode. C(legacy) also serves a PF without an eswitch (devlink shows none, as on C(igb)); its VFs are made
        without C(devlink), and a VF driver that is a module not loaded yet is loaded first (O(modprobe)).
    type: str
    choices: [switchdev, legacy]
    default: switchdev
  vf_macs:
    description: MAC address per VF index; VFs not listed keep theirs.
    type: dict
    default: {}
  vf_driver:
    description: Driver bound to VFs without a netdev.
    type: str
    default: mlx5_core
  links_up:
    description: Bring the PF, the VFs and the representors up.
    type: bool
    default: true
  timeout:
    description: Seconds to wait for VF netdevs and representors.
    type: int
    default: 30
  sysfs_root:
    description: Where sysfs is mounted (a fake tree in tests).
    type: path
    default: /sys
  devlink:
    description: The devlink command.
    type: str
    default: devlink
  modprobe:
    description: The modprobe command, run to load O(vf_driver) before the VFs are made when the driver is a module not loaded yet.
    type: str
    default: modprobe
  ip:
    description: The ip command.
    type: str
    default: ip
  validate_only:
    description:
      - Only read the host and check the request against it; return the problems in RV(errors) and change nothing.
      - The C(sriov_switchdev) role runs this for every PF before it writes anything.
  names:
    description:
      - "How the messages call the options, for a caller whose users wrote them under other names, for example
        C({pf: sriov_switchdev_pfs[0].name, numvfs: sriov_switchdev_numvfs})."
      - The keys are option names (C(pf), C(pci), C(numvfs), C(vf_macs), C(vf_driver), C(timeout), C(sysfs_root));
        an option without one keeps its own name.
"""

EXAMPLES = r"""
- name: The ConnectX-6 Lx reference bench's generator PF, 8 VFs in switchdev, VFs 0 and 1 with fixed MACs
  offload.testbed.sriov_pf:
    pf: ens3f0np0
    pci: "0000:32:00.0"
    numvfs: 8
    vf_macs:
      0: "50:54:00:00:00:06"
      1: "b2:23:54:c4:4c:cf"
"""

RETURN = r"""
commands:
  description: The commands and sysfs writes run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
  sample: ["echo 0 > /sys/class/net/ens3f0np0/device/sriov_numvfs", "devlink dev eswitch set pci/0000:32:00.0 mode switchdev"]
pci:
  description: The PF's PCI address.
  returned: always
  type: str
mode:
  description: The eswitch mode after the run (planned in check mode).
  returned: always
  type: str
devlink_json:
  description: Whether the installed devlink answered C(-j).
  returned: success
  type: bool
vfs:
  description: Per VF, its index, PCI address, netdev, MAC and representor (null where unknown in check mode).
  returned: success, without O(validate_only)
  type: list
  elements: dict
errors:
  description: What is wrong with the request on this host; empty when nothing is. Without O(validate_only) the module fails when there is any.
  returned: always
  type: list
  elements: str
totalvfs:
  description: The PF's C(sriov_totalvfs), null when the PF was not found.
  returned: always
  type: int
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner

from ansible_collections.offload.testbed.plugins.module_utils.prepare import sriov
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import parse_devlink_ports, parse_devlink_ports_json

ARGUMENT_SPEC = dict(
    pf=dict(type='str', required=True),
    pci=dict(type='raw'),
    numvfs=dict(type='int', required=True),
    mode=dict(type='str', default='switchdev', choices=['switchdev', 'legacy']),
    vf_macs=dict(type='dict', default={}),
    vf_driver=dict(type='str', default='mlx5_core'),
    links_up=dict(type='bool', default=True),
    timeout=dict(type='int', default=30),
    sysfs_root=dict(type='path', default='/sys'),
    devlink=dict(type='str', default='devlink'),
    ip=dict(type='str', default='ip'),
    modprobe=dict(type='str', default='modprobe'),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)


def _basename_of_link(path):
    return os.path.basename(os.path.realpath(path)) if os.path.exists(path) else None


def _read_int(path):
    try:
        with open(path) as handle:
            text = handle.read().strip()
    except (IOError, OSError):
        return None
    return int(text) if text.isdigit() else None


def read_sysfs(root, pf, pci, vf_driver):
    """What :func:`sriov.pf_errors` needs to know of the PF, its PCI address and the VF driver, from sysfs."""
    net = os.path.join(root, 'class', 'net')
    names = sorted(os.listdir(net)) if os.path.isdir(net) else []
    devices = dict((name, _basename_of_link(os.path.join(net, name, 'device'))) for name in names)
    sane = validate.interface_name('pf', pf) is None
    device = os.path.join(net, pf, 'device') if sane else None
    host = {
        'sysfs_ok': os.path.isdir(net),
        'pf_path': os.path.join(net, pf),
        'pf_pci': devices.get(pf) if sane else None,
        'pfs': dict((name, address) for name, address in devices.items()
                    if address and os.path.exists(os.path.join(net, name, 'device', 'sriov_totalvfs'))),
    }
    host['pf_totalvfs'] = _read_int(os.path.join(device, 'sriov_totalvfs')) if host['pf_pci'] else None
    host['pf_driver'] = _basename_of_link(os.path.join(device, 'driver')) if host['pf_pci'] else None
    if validate.pci_address('pci', pci) is None:
        host['pci_path'] = os.path.join(root, 'bus', 'pci', 'devices', pci.lower())
        host['pci_exists'] = os.path.isdir(host['pci_path'])
        listed = os.listdir(os.path.join(host['pci_path'], 'net')) if os.path.isdir(os.path.join(host['pci_path'], 'net')) else []
        host['pci_netdevs'] = sorted(set(listed) | set(name for name, address in devices.items() if address == pci.lower()))
    driver_ok = isinstance(vf_driver, str) and bool(vf_driver) and '/' not in vf_driver
    host['driver_path'] = os.path.join(root, 'bus', 'pci', 'drivers', vf_driver or '')
    host['driver_exists'] = driver_ok and os.path.isdir(host['driver_path'])
    host['driver_module'] = driver_ok and not host['driver_exists'] and _kernel_has_module(root, vf_driver)
    return host


def _kernel_has_module(sysfs_root, name):
    """Whether the running kernel has ``name`` as a module not loaded yet (``modules.dep`` of the root that holds
    sysfs: /lib/modules/RELEASE for /sys). A legacy-mode VF driver such as igbvf loads only once VFs exist."""
    modules_dep = os.path.join(os.path.dirname(os.path.normpath(sysfs_root)), 'lib', 'modules', os.uname()[2], 'modules.dep')
    try:
        with open(modules_dep) as handle:
            stems = set(line.split(':', 1)[0].rsplit('/', 1)[-1].split('.ko', 1)[0] for line in handle)
    except (IOError, OSError):
        return False
    return name in stems or name.replace('-', '_') in stems


class PF(object):
    """One PF: read it, check the request, then bring it to the request (or, dry, list what that takes)."""

    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.root = self.params['sysfs_root']
        self.pf = self.params['pf']
        self.device = os.path.join(self.root, 'class', 'net', self.pf, 'device')
        self.handle = None
        # Dry (only listing the changes) until converge says otherwise.
        self.runner = HostRunner(module, dry=True)
        self.commands = self.runner.commands
        self.devlink_json = None
        self.eswitch = True

    @property
    def dry(self):
        return self.runner.dry

    def fail(self, msg, **kw):
        self.runner.fail(msg, **kw)

    def read(self, argv, check_rc=True):
        return self.runner.read(argv, check_rc=check_rc)

    def act(self, argv):
        """Run a command that changes the PF, or only list it when dry."""
        self.runner.change(argv)

    def write(self, path, value):
        self.runner.write(path, value)

    # ------------------------------------------------------------- reads

    def numvfs(self):
        return _read_int(os.path.join(self.device, 'sriov_numvfs')) or 0

    def eswitch_mode(self, handle):
        """``(mode, None)``, or ``(None, what devlink answered)``."""
        devlink = self.params['devlink']
        if self.devlink_json is not False:
            rc, out, err = self.read([devlink, '-j', 'dev', 'eswitch', 'show', handle], check_rc=False)
            if rc == 0 and sriov.looks_like_json(out):
                self.devlink_json = True
                return sriov.eswitch_mode(handle, out, True), None
            self.devlink_json = False
        rc, out, err = self.read([devlink, 'dev', 'eswitch', 'show', handle], check_rc=False)
        if rc != 0:
            return None, (err or out).strip()
        return sriov.eswitch_mode(handle, out, False), None

    def ports(self):
        devlink = self.params['devlink']
        if self.devlink_json:
            rc, out, err = self.read([devlink, '-j', 'port', 'show'])
            return parse_devlink_ports_json(out)
        rc, out, err = self.read([devlink, 'port', 'show'])
        return parse_devlink_ports(out)

    def link(self, name):
        rc, out, err = self.read([self.params['ip'], '-j', 'link', 'show', 'dev', name], check_rc=False)
        return out if rc == 0 else None

    def vf_netdev(self, index):
        net = os.path.join(self.device, 'virtfn%d' % index, 'net')
        try:
            names = sorted(os.listdir(net))
        except OSError:
            return None
        return names[0] if names else None

    def vf_pci(self, index):
        return _basename_of_link(os.path.join(self.device, 'virtfn%d' % index))

    def wait(self, probe):
        deadline = time.time() + self.params['timeout']
        while True:
            value = probe()
            if value or time.time() >= deadline:
                return value
            time.sleep(0.5)

    def read_and_check(self):
        """The PF's state (PCI address, sriov_totalvfs, eswitch mode, VF count) and every problem of the request."""
        p = self.params
        host = read_sysfs(self.root, self.pf, p['pci'], p['vf_driver'])
        errors = sriov.pf_errors(p, host, p['names'])
        state = {'pci': host['pf_pci'] or p['pci'], 'totalvfs': host['pf_totalvfs'], 'mode': None, 'numvfs': 0}
        pci_matches = p['pci'] is None or (isinstance(p['pci'], str) and p['pci'].lower() == (host['pf_pci'] or '').lower())
        if host['pf_totalvfs'] is not None and pci_matches:
            self.handle = 'pci/%s' % host['pf_pci']
            state['mode'], answer = self.eswitch_mode(self.handle)
            if state['mode'] is None and p['mode'] == 'legacy':
                # A PF without an eswitch (igb, ixgbe, ...) has only legacy SR-IOV: nothing to switch.
                state['mode'], self.eswitch = 'legacy', False
            elif state['mode'] is None:
                errors.append(sriov.eswitch_error(p, self.handle, answer, p['names']))
            state['numvfs'] = self.numvfs()
        return state, errors

    # ------------------------------------------------------------ writes

    def bind(self, index, unbind_first):
        pci = self.vf_pci(index)
        if pci is None:
            self.fail('VF %d of %s has no virtfn%d under %s after setting sriov_numvfs' % (index, self.pf, index, self.device))
        drivers = os.path.join(self.root, 'bus', 'pci', 'drivers', self.params['vf_driver'])
        if unbind_first:
            self.write(os.path.join(drivers, 'unbind'), pci)
        self.write(os.path.join(drivers, 'bind'), pci)
        if self.dry:
            return None
        netdev = self.wait(lambda: self.vf_netdev(index))
        if netdev is None:
            self.fail('VF %d of %s (%s) has no netdev %d s after binding %s; check that the driver is loaded (modprobe %s)'
                      % (index, self.pf, pci, self.params['timeout'], self.params['vf_driver'], self.params['vf_driver']))
        return netdev

    def change_eswitch(self, steps):
        """VFs to 0, mode, VFs to N (:func:`sriov.plan_eswitch`), then a check that the PF took them."""
        p = self.params
        for kind, value in steps:
            if kind == 'numvfs':
                self.write(os.path.join(self.device, 'sriov_numvfs'), value)
            else:
                self.act([p['devlink'], 'dev', 'eswitch', 'set', self.handle, 'mode', value])
        if steps and not self.dry:
            mode = self.eswitch_mode(self.handle)[0] if self.eswitch else 'legacy'
            if mode != p['mode'] or self.numvfs() != p['numvfs']:
                self.fail('%s: after the change the eswitch is %s with %d VFs, not %s with %d' % (self.pf, mode, self.numvfs(), p['mode'], p['numvfs']))

    def set_address(self, index, netdev, mac, state):
        """The VF's own MAC; a VF that refuses it is rebound so that it picks up the PF-side MAC."""
        argv = [self.params['ip'], 'link', 'set', 'dev', netdev, 'address', mac]
        if self.dry:
            # The netdev of a VF not made yet is a placeholder (<VF 1 netdev>): listed as it reads.
            self.runner.note(' '.join(argv))
            return netdev, state
        rc, out, err = self.runner.change(argv, check_rc=False)
        if rc == 0:
            return netdev, state
        netdev = self.bind(index, True)
        state = sriov.link_state(self.link(netdev) or '[]')
        if state is None or state['address'] != mac:
            self.fail('VF %d of %s: %s refused address %s (%s) and rebinding %s did not give it'
                      % (index, self.pf, netdev, mac, (err or out).strip(), self.params['vf_driver']))
        return netdev, state

    def vf_driver(self, index):
        """The driver the VF is bound to now, or None."""
        return _basename_of_link(os.path.join(self.device, 'virtfn%d' % index, 'driver'))

    def configure_vf(self, index, mac, pf_side, predicted):
        ip = self.params['ip']
        other = None if predicted else self.vf_driver(index)
        current = None if predicted else self.vf_netdev(index)
        vf = {'index': index, 'pci': None if predicted else self.vf_pci(index), 'netdev': None, 'mac': mac, 'representor': None}
        if mac and pf_side.get(index) != mac:
            self.act([ip, 'link', 'set', 'dev', self.pf, 'vf', str(index), 'mac', mac])
        if other and other != self.params['vf_driver'] and not current:
            # Given to another driver (vfio-pci for DPDK, dpdk_host): it has no netdev to set; the MAC the PF gave is its own.
            vf['driver'] = other
            return vf
        netdev = None if predicted else (current or self.bind(index, False))
        shown = netdev or '<VF %d netdev>' % index
        vf['netdev'] = netdev
        state = None if netdev is None else sriov.link_state(self.link(netdev) or '[]')
        if mac and (state is None or state['address'] != mac):
            shown, state = self.set_address(index, shown, mac, state)
            vf['netdev'] = shown if netdev else None
        if self.params['links_up'] and (state is None or not state['up']):
            self.act([ip, 'link', 'set', 'dev', shown, 'up'])
        return vf

    def configure_representors(self, vfs):
        count = self.params['numvfs']
        reps = self.wait(lambda: self.complete_representors(count))
        if not reps:
            found = sriov.representors(self.ports(), self.handle, count)
            self.fail('%s: representors of VFs %s did not appear within %d s (devlink port show)'
                      % (self.pf, sorted(set(range(count)) - set(found)), self.params['timeout']))
        for vf in vfs:
            vf['representor'] = reps[vf['index']]
            state = sriov.link_state(self.link(vf['representor']) or '[]')
            if self.params['links_up'] and (state is None or not state['up']):
                self.act([self.params['ip'], 'link', 'set', 'dev', vf['representor'], 'up'])

    def complete_representors(self, count):
        found = sriov.representors(self.ports(), self.handle, count)
        return found if len(found) == count else None

    def converge(self, state, macs, dry):
        """Bring the PF to the request; ``dry`` (check mode) only lists the commands. Returns ``(mode, vfs, pf_side)``."""
        p = self.params
        self.runner.dry = dry
        steps = sriov.plan_eswitch(state['mode'], state['numvfs'], p['numvfs'], p['mode'])
        if p['numvfs'] and state['numvfs'] != p['numvfs'] and not os.path.isdir(os.path.join(self.root, 'bus', 'pci', 'drivers', p['vf_driver'])):
            self.act([p['modprobe'], p['vf_driver']])
        self.change_eswitch(steps)
        predicted = bool(steps) and dry
        pf_link = '[]' if predicted else (self.link(self.pf) or '[]')
        pf_side, pf_state = sriov.vf_table(pf_link), sriov.link_state(pf_link)
        if p['links_up'] and not (pf_state or {}).get('up'):
            self.act([p['ip'], 'link', 'set', 'dev', self.pf, 'up'])
        vfs = [self.configure_vf(index, macs.get(index), pf_side, predicted) for index in range(p['numvfs'])]
        if p['mode'] == 'switchdev' and p['numvfs'] and not predicted:
            self.configure_representors(vfs)
        return (p['mode'] if steps else state['mode']), vfs, pf_side


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    pf = PF(module)
    state, errors = pf.read_and_check()
    if p['validate_only']:
        module.exit_json(changed=False, errors=errors, commands=[], pci=state['pci'], totalvfs=state['totalvfs'], mode=state['mode'])
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors, commands=[], pci=state['pci'], totalvfs=state['totalvfs'], mode=state['mode'])
    macs = sriov.mac_table(p['vf_macs'], p['numvfs'])[0]
    mode, vfs, pf_side = pf.converge(state, macs, dry=module.check_mode)
    result = dict(changed=bool(pf.commands), commands=pf.commands, pci=state['pci'], totalvfs=state['totalvfs'], mode=mode,
                  devlink_json=bool(pf.devlink_json), vfs=vfs, errors=[])
    if module._diff:
        result['diff'] = {
            'before': 'mode %s numvfs %d\n' % (state['mode'], state['numvfs']) +
            ''.join('vf %d mac %s\n' % (i, m) for i, m in sorted(pf_side.items()) if i in macs),
            'after': 'mode %s numvfs %d\n' % (p['mode'], p['numvfs']) + ''.join('vf %d mac %s\n' % (i, m) for i, m in sorted(macs.items())),
        }
    module.exit_json(**result)


if __name__ == '__main__':
    main()
