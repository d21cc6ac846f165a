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
    and on the VF netdev (C(ip link set dev VF address X), what TRex reads); seed 000 lost a week to the two
    differing. Binds the VF driver when a VF has no netdev, and rebinds it when the VF refuses its own address.
  - Brings the PF, the VFs and the representors up and waits until a representor exists for every VF.
  - Reads the eswitch with C(devlink -j) where the installed iproute2 supports it and falls back to the text form.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
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
    description: The PF's PCI address (C(0000:32:00.0)); read from sysfs when unset.
    type: str
  numvfs:
    description: Number of VFs.
    type: int
    required: true
  mode:
    description: Eswitch mode.
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
  ip:
    description: The ip command.
    type: str
    default: ip
"""

EXAMPLES = r"""
- name: Seed 000's generator PF, 8 VFs in switchdev, VFs 0 and 1 with fixed MACs
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
  returned: always
  type: bool
vfs:
  description: Per VF, its index, PCI address, netdev, MAC and representor (null where unknown in check mode).
  returned: always
  type: list
  elements: dict
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.offload.testbed.plugins.module_utils import parsers
from ansible_collections.offload.testbed.plugins.module_utils import sriov


class PF(object):
    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.root = self.params['sysfs_root']
        self.pf = self.params['pf']
        self.device = os.path.join(self.root, 'class', 'net', self.pf, 'device')
        self.commands = []
        self.devlink_json = None

    def fail(self, msg, **kw):
        self.module.fail_json(msg=msg, commands=self.commands, **kw)

    def run(self, argv, record=True, check_rc=True):
        if record:
            self.commands.append(' '.join(argv))
        rc, out, err = self.module.run_command(argv)
        if check_rc and rc != 0:
            self.fail('%s failed (rc %d): %s' % (' '.join(argv), rc, (err or out).strip()))
        return rc, out, err

    def do(self, argv):
        """Run a write command, or only record it in check mode."""
        if self.module.check_mode:
            self.commands.append(' '.join(argv))
            return
        self.run(argv)

    def read(self, path):
        try:
            with open(path) as handle:
                return handle.read().strip()
        except (IOError, OSError):
            return None

    def write(self, path, value):
        self.commands.append('echo %s > %s' % (value, path))
        if self.module.check_mode:
            return
        try:
            with open(path, 'w') as handle:
                handle.write('%s\n' % value)
        except (IOError, OSError) as exc:
            self.fail('writing %s to %s failed: %s' % (value, path, exc))

    # ------------------------------------------------------------- reads

    def numvfs(self):
        value = self.read(os.path.join(self.device, 'sriov_numvfs'))
        return int(value) if value and value.isdigit() else 0

    def eswitch_mode(self, handle):
        devlink = self.params['devlink']
        if self.devlink_json is not False:
            rc, out, err = self.run([devlink, '-j', 'dev', 'eswitch', 'show', handle], record=False, check_rc=False)
            if rc == 0 and sriov.looks_like_json(out):
                self.devlink_json = True
                return sriov.eswitch_mode(handle, out, True)
            self.devlink_json = False
        rc, out, err = self.run([devlink, 'dev', 'eswitch', 'show', handle], record=False)
        return sriov.eswitch_mode(handle, out, False)

    def ports(self):
        devlink = self.params['devlink']
        if self.devlink_json:
            rc, out, err = self.run([devlink, '-j', 'port', 'show'], record=False)
            return parsers.parse_devlink_ports_json(out)
        rc, out, err = self.run([devlink, 'port', 'show'], record=False)
        return parsers.parse_devlink_ports(out)

    def link(self, name):
        rc, out, err = self.run([self.params['ip'], '-j', 'link', 'show', 'dev', name], record=False, check_rc=False)
        return out if rc == 0 else None

    def vf_netdev(self, index):
        net = os.path.join(self.device, 'virtfn%d' % index, 'net')
        try:
            names = sorted(os.listdir(net))
        except OSError:
            return None
        return names[0] if names else None

    def vf_pci(self, index):
        path = os.path.join(self.device, 'virtfn%d' % index)
        return os.path.basename(os.path.realpath(path)) if os.path.exists(path) else None

    def wait(self, probe):
        deadline = time.time() + self.params['timeout']
        while True:
            value = probe()
            if value or time.time() >= deadline:
                return value
            time.sleep(0.5)

    # ------------------------------------------------------------ writes

    def bind(self, index, unbind_first):
        pci = self.vf_pci(index)
        if pci is None:
            self.fail('VF %d of %s has no virtfn%d under %s after setting sriov_numvfs' % (index, self.pf, index, self.device))
        drivers = os.path.join(self.root, 'bus', 'pci', 'drivers', self.params['vf_driver'])
        if unbind_first:
            self.write(os.path.join(drivers, 'unbind'), pci)
        self.write(os.path.join(drivers, 'bind'), pci)
        if self.module.check_mode:
            return None
        netdev = self.wait(lambda: self.vf_netdev(index))
        if netdev is None:
            self.fail('VF %d of %s (%s) has no netdev %d s after binding %s; check that the driver is loaded (modprobe %s)'
                      % (index, self.pf, pci, self.params['timeout'], self.params['vf_driver'], self.params['vf_driver']))
        return netdev


def main():
    module = AnsibleModule(
        argument_spec=dict(
            pf=dict(type='str', required=True),
            pci=dict(type='str'),
            numvfs=dict(type='int', required=True),
            mode=dict(type='str', default='switchdev', choices=['switchdev', 'legacy']),
            vf_macs=dict(type='dict', default={}),
            vf_driver=dict(type='str', default='mlx5_core'),
            links_up=dict(type='bool', default=True),
            timeout=dict(type='int', default=30),
            sysfs_root=dict(type='path', default='/sys'),
            devlink=dict(type='str', default='devlink'),
            ip=dict(type='str', default='ip'),
        ),
        supports_check_mode=True,
    )
    p = module.params
    pf = PF(module)
    if not os.path.exists(pf.device):
        module.fail_json(msg='%s: no such PF (nothing at %s); check sriov_switchdev_pfs[].name' % (p['pf'], pf.device))
    pci = p['pci'] or os.path.basename(os.path.realpath(pf.device))
    total = pf.read(os.path.join(pf.device, 'sriov_totalvfs'))
    total = int(total) if total and total.isdigit() else 0
    if p['numvfs'] < 0 or p['numvfs'] > total:
        module.fail_json(msg='%s: numvfs %d is outside 0..%d (sriov_totalvfs); enable SR-IOV with more VFs in the firmware '
                         '(mlxconfig SRIOV_EN=1 NUM_OF_VFS=N) or lower it' % (p['pf'], p['numvfs'], total))
    macs, errors = sriov.normalize_macs(p['vf_macs'], p['numvfs'])
    if errors:
        module.fail_json(msg='; '.join(errors))
    handle = 'pci/%s' % pci
    mode = pf.eswitch_mode(handle)
    if mode is None:
        module.fail_json(msg='devlink shows no eswitch for %s (%s); is the PF at another PCI address?' % (handle, p['pf']))
    count = pf.numvfs()
    before = {'mode': mode, 'numvfs': count}
    steps = sriov.plan_eswitch(mode, count, p['numvfs'], p['mode'])
    numvfs_path = os.path.join(pf.device, 'sriov_numvfs')
    for kind, value in steps:
        if kind == 'numvfs':
            pf.write(numvfs_path, value)
        else:
            pf.do([p['devlink'], 'dev', 'eswitch', 'set', handle, 'mode', value])
    predicted = bool(steps) and module.check_mode
    if steps and not module.check_mode:
        mode = pf.eswitch_mode(handle)
        if mode != p['mode'] or pf.numvfs() != p['numvfs']:
            module.fail_json(msg='%s: after the change the eswitch is %s with %d VFs, not %s with %d'
                             % (p['pf'], mode, pf.numvfs(), p['mode'], p['numvfs']), commands=pf.commands)
    elif predicted:
        mode = p['mode']

    ip = p['ip']
    pf_side = {} if predicted else sriov.vf_table(pf.link(p['pf']) or '[]')
    pf_link = None if predicted else sriov.link_state(pf.link(p['pf']) or '[]')
    if p['links_up'] and (predicted or not (pf_link or {}).get('up')):
        pf.do([ip, 'link', 'set', 'dev', p['pf'], 'up'])
    vfs = []
    for index in range(p['numvfs']):
        netdev = None if predicted else pf.vf_netdev(index)
        if netdev is None and not predicted:
            netdev = pf.bind(index, False)
        shown = netdev or '<VF %d netdev>' % index
        vf = {'index': index, 'pci': None if predicted else pf.vf_pci(index), 'netdev': netdev, 'mac': macs.get(index), 'representor': None}
        mac = macs.get(index)
        if mac and pf_side.get(index) != mac:
            argv = [ip, 'link', 'set', 'dev', p['pf'], 'vf', str(index), 'mac', mac]
            pf.do(argv)
        state = None if (predicted or netdev is None) else sriov.link_state(pf.link(netdev) or '[]')
        if mac and (state is None or state['address'] != mac):
            argv = [ip, 'link', 'set', 'dev', shown, 'address', mac]
            if module.check_mode:
                pf.commands.append(' '.join(argv))
            else:
                rc, out, err = pf.run(argv, check_rc=False)
                if rc != 0:
                    # Some VF drivers refuse an address the PF administers; rebinding picks up the PF-side MAC.
                    netdev = pf.bind(index, True)
                    state = sriov.link_state(pf.link(netdev) or '[]')
                    if state is None or state['address'] != mac:
                        module.fail_json(msg='VF %d of %s: %s refused address %s (%s) and rebinding %s did not give it'
                                         % (index, p['pf'], netdev, mac, (err or out).strip(), p['vf_driver']), commands=pf.commands)
                    vf['netdev'] = netdev
                    shown = netdev
        if p['links_up'] and (state is None or not state['up']):
            argv = [ip, 'link', 'set', 'dev', shown, 'up']
            pf.do(argv)
        vfs.append(vf)

    if p['mode'] == 'switchdev' and p['numvfs'] and not predicted:
        def all_representors():
            found = sriov.representors(pf.ports(), handle, p['numvfs'])
            return found if len(found) == p['numvfs'] else None

        reps = pf.wait(all_representors)
        if not reps:
            found = sriov.representors(pf.ports(), handle, p['numvfs'])
            module.fail_json(msg='%s: representors of VFs %s did not appear within %d s (devlink port show)'
                             % (p['pf'], sorted(set(range(p['numvfs'])) - set(found)), p['timeout']), commands=pf.commands)
        for vf in vfs:
            vf['representor'] = reps[vf['index']]
            state = sriov.link_state(pf.link(reps[vf['index']]) or '[]')
            if p['links_up'] and (state is None or not state['up']):
                argv = [ip, 'link', 'set', 'dev', reps[vf['index']], 'up']
                pf.do(argv)

    result = {
        'changed': bool(pf.commands),
        'commands': pf.commands,
        'pci': pci,
        'mode': mode,
        'devlink_json': bool(pf.devlink_json),
        'vfs': vfs,
    }
    if module._diff:
        result['diff'] = {
            'before': 'mode %s numvfs %d\n' % (before['mode'], before['numvfs']) +
            ''.join('vf %d mac %s\n' % (i, m) for i, m in sorted(pf_side.items()) if i in macs),
            'after': 'mode %s numvfs %d\n' % (p['mode'], p['numvfs']) + ''.join('vf %d mac %s\n' % (i, m) for i, m in sorted(macs.items())),
        }
    module.exit_json(**result)


if __name__ == '__main__':
    main()
