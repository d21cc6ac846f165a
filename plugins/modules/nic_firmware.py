#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: nic_firmware
short_description: Burn NVIDIA/Mellanox NIC firmware by PSID, only when needed
version_added: 0.2.0
description:
  - Finds the NVIDIA/Mellanox cards (C(mlxfwmanager --query); without it the PCI functions of vendor
    C(0x15b3) in sysfs) and reads each card's PSID, burned and running firmware version
    (C(mlxfwmanager), then C(flint -d PCI q) or C(mstflint), then C(ethtool -i), then the sysfs
    C(board_id)).
  - Picks the image from O(images) by the card's exact PSID (OEM lines such as C(LNV...) for Lenovo,
    C(DEL...) for Dell and C(MT_...) for NVIDIA's own take different images) and reads the image's own
    PSID and version with C(flint -i IMAGE q).
  - Refuses, before anything is burned on any card, when an image's PSID differs from its card's PSID.
  - Burns (C(flint -d PCI -i IMAGE -y burn)) only when the burned version differs from the wanted one;
    when the running version differs after that, resets the card with C(mlxfwreset -d PCI -y reset) if
    O(reset_ok) is true, otherwise reports RV(reboot_required).
  - Run it on one host at a time (C(throttle=1) on the task); it does not reboot.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Reads the cards and images and returns the plan per device and the commands it would run.
  diff_mode:
    support: full
    description: Returns the burned and running versions per device before and after.
options:
  images:
    description:
      - Map PSID -> C({image, version}). C(image) is the path of the firmware image (.bin) on the host;
        C(version) the wanted version (default the image's own, read with C(flint -i IMAGE q)).
    type: dict
    default: {}
  devices:
    description: PCI addresses to handle (C(0000:32:00.0)); default every card found.
    type: list
    elements: str
    default: []
  reset_ok:
    description: Reset a card with C(mlxfwreset) to activate a burned image; when false, report RV(reboot_required) instead.
    type: bool
    default: false
  sysfs_root:
    description: Root of sysfs (tests point it at a fake tree).
    type: path
    default: /sys
"""

EXAMPLES = r"""
- name: Burn the Lenovo image on Lenovo cards only, one host at a time
  offload.testbed.nic_firmware:
    images:
      LNV0000000033:
        image: /opt/firmware/fw-ConnectX6Lx-rel-26_47_1026-LNV.bin
        version: 26.47.1026
    reset_ok: false
  throttle: 1
  register: fw
"""

RETURN = r"""
devices:
  description: The plan (and, unless in check mode, the result) per card.
  returned: always
  type: list
  elements: dict
  sample:
    - pci: "0000:32:00.0"
      psid: LNV0000000033
      burned: 26.43.1014
      running: 26.43.1014
      wanted: 26.47.1026
      image: /opt/firmware/fw.bin
      action: burn+reboot
plan:
  description: "One line per card: C(PCI PSID (vendor): burned X, running Y, wanted Z -> action)."
  returned: always
  type: list
  elements: str
commands:
  description: The commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
reboot_required:
  description: True when a card runs another firmware than the one burned and O(reset_ok) is false.
  returned: always
  type: bool
"""

import glob
import os
import shlex

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils import nic_firmware as nf
from ansible_collections.offload.testbed.plugins.module_utils import parsers

MELLANOX_VENDOR = '0x15b3'


def read_text(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return None


class Host(object):
    def __init__(self, module):
        self.module = module
        self.sysfs = module.params['sysfs_root']
        self.mlxfwmanager = module.get_bin_path('mlxfwmanager')
        self.flint = module.get_bin_path('flint') or module.get_bin_path('mstflint')
        self.ethtool = module.get_bin_path('ethtool')
        self.reads = []

    def run(self, argv, check_rc=False):
        rc, out, err = self.module.run_command(argv)
        if check_rc and rc != 0:
            self.module.fail_json(msg='%s failed (rc %s): %s' % (shlex.join(argv), rc, (err or out).strip()), rc=rc, stdout=out, stderr=err)
        return rc, out, err

    def pci_dir(self, pci):
        return os.path.join(self.sysfs, 'bus', 'pci', 'devices', pci)

    def sysfs_cards(self):
        """Function 0 of every physical function of vendor 0x15b3 (one per card)."""
        cards = []
        for path in sorted(glob.glob(os.path.join(self.sysfs, 'bus', 'pci', 'devices', '*'))):
            pci = nf.normalize_pci(os.path.basename(path))
            if pci is None or not pci.endswith('.0') or os.path.exists(os.path.join(path, 'physfn')):
                continue
            if (read_text(os.path.join(path, 'vendor')) or '').lower() == MELLANOX_VENDOR:
                cards.append(pci)
        return cards

    def netdev(self, pci):
        names = sorted(glob.glob(os.path.join(self.pci_dir(pci), 'net', '*')))
        return os.path.basename(names[0]) if names else None

    def board_id(self, pci):
        for path in sorted(glob.glob(os.path.join(self.pci_dir(pci), 'infiniband', '*', 'board_id'))):
            return read_text(path)
        return None

    def read(self, wanted_pcis):
        found = {}
        if self.mlxfwmanager:
            rc, out, err = self.run([self.mlxfwmanager, '--query'])
            if rc == 0:
                for dev in parsers.parse_mlxfwmanager(out):
                    pci = nf.normalize_pci(dev.get('pci'))
                    if pci:
                        found[pci] = dev
        pcis = list(wanted_pcis) or sorted(set(found) | set(self.sysfs_cards()))
        devices = []
        for pci in pcis:
            mlxfw = found.get(pci)
            flint = ethtool = board = None
            if not mlxfw or not mlxfw.get('psid') or not mlxfw.get('fw_current'):
                if self.flint:
                    rc, out, err = self.run([self.flint, '-d', pci, 'q'])
                    if rc == 0:
                        flint = parsers.parse_flint_query(out)
                if not flint or not flint.get('psid'):
                    netdev = self.netdev(pci)
                    if netdev and self.ethtool:
                        rc, out, err = self.run([self.ethtool, '-i', netdev])
                        if rc == 0:
                            ethtool = parsers.parse_ethtool_info(out)
                    board = self.board_id(pci)
            devices.append(nf.merge_device(pci, mlxfw, flint, ethtool, board))
        return devices

    def image_facts(self, image):
        if not self.flint:
            return {}
        if not os.path.exists(image):
            if self.module.check_mode:
                return None
            self.module.fail_json(msg='image %s does not exist on the host; copy it there or fix images' % image)
        rc, out, err = self.run([self.flint, '-i', image, 'q'])
        if rc != 0:
            self.module.fail_json(msg='cannot read image %s with flint: %s' % (image, (err or out).strip()))
        return parsers.parse_flint_query(out)


def commands_for(plan, flint, mlxfwreset):
    commands = []
    if 'burn' in plan['action']:
        commands.append([flint, '-d', plan['pci'], '-i', plan['image'], '-y', 'burn'])
    if 'reset' in plan['action']:
        commands.append([mlxfwreset, '-d', plan['pci'], '-y', 'reset'])
    return commands


def versions(devices):
    return dict((dev['pci'], {'psid': dev.get('psid'), 'burned': dev.get('burned'), 'running': dev.get('running')}) for dev in devices)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            images=dict(type='dict', default={}),
            devices=dict(type='list', elements='str', default=[]),
            reset_ok=dict(type='bool', default=False),
            sysfs_root=dict(type='path', default='/sys'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    errors = nf.validate_images(params['images'])
    wanted = []
    for index, pci in enumerate(params['devices']):
        norm = nf.normalize_pci(pci)
        if norm is None:
            errors.append('devices[%d]: %r is not a PCI address such as 0000:32:00.0' % (index, pci))
        wanted.append(norm)
    if errors:
        module.fail_json(msg='invalid nic_firmware arguments: ' + '; '.join(errors), errors=errors)

    host = Host(module)
    if not host.mlxfwmanager and not host.flint:
        module.fail_json(msg='neither mlxfwmanager nor flint/mstflint is installed: install MFT or mstflint first')
    before = host.read(wanted)
    images = {}
    for dev in before:
        entry = params['images'].get(dev.get('psid') or '')
        if entry and entry['image'] not in images:
            images[entry['image']] = host.image_facts(entry['image'])
    plans = [nf.plan_device(dev, params['images'], images, params['reset_ok']) for dev in before]
    refusals = [plan['refusal'] for plan in plans if plan['refusal']]
    lines = [nf.plan_summary(plan) for plan in plans]
    if refusals:
        module.fail_json(msg='nothing burned: ' + '; '.join(refusals), devices=plans, plan=lines, commands=[])

    mlxfwreset = module.get_bin_path('mlxfwreset') or 'mlxfwreset'
    commands = []
    for plan in plans:
        commands.extend(commands_for(plan, host.flint or 'flint', mlxfwreset))
    result = dict(changed=bool(commands), commands=[shlex.join(c) for c in commands], plan=lines)
    after = before
    if commands and not module.check_mode:
        if 'reset' in ' '.join(plan['action'] for plan in plans) and not module.get_bin_path('mlxfwreset'):
            module.fail_json(msg='mlxfwreset is not installed; install MFT or set nic_firmware_reset_ok: false', plan=lines)
        for argv in commands:
            rc, out, err = host.run(argv)
            if rc != 0:
                mismatch = parsers.parse_flint_psid_mismatch(out + '\n' + err)
                if mismatch:
                    module.fail_json(msg='flint refused %s: PSID on flash %s differs from the image\'s %s' % (
                        argv[2], mismatch['flash_psid'], mismatch['image_psid']), mismatch=mismatch, plan=lines)
                module.fail_json(msg='%s failed (rc %s): %s' % (shlex.join(argv), rc, (err or out).strip()), plan=lines,
                                 commands=result['commands'])
        after = host.read(wanted)
    by_pci = dict((dev['pci'], dev) for dev in after)
    for plan in plans:
        now = by_pci.get(plan['pci'], {})
        plan['burned_after'] = now.get('burned')
        plan['running_after'] = now.get('running')
    if module.check_mode:
        pending = [p for p in plans if 'reboot' in p['action']]
    else:
        pending = [p for p in plans if p.get('wanted') and p['running_after'] != p['wanted']]
    result['devices'] = plans
    result['reboot_required'] = bool(pending)
    if module._diff:
        result['diff'] = dict(before=versions(before), after=versions(after))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
