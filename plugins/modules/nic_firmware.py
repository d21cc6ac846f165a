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
  - Finds the NVIDIA/Mellanox cards (C(mlxfwmanager --query) and the PCI functions 0 of vendor C(0x15b3) in sysfs)
    and reads each card's PSID, burned and running firmware version (C(mlxfwmanager), then C(flint -d PCI q) or
    C(mstflint), then C(ethtool -i), then the sysfs C(board_id)).
  - Picks the image from O(images) by the card's exact PSID (OEM lines such as C(LNV...) for Lenovo,
    C(DEL...) for Dell and C(MT_...) for NVIDIA's own take different images) and reads the image's own
    PSID and version with C(flint -i IMAGE q).
  - Takes the vendor's files as shipped - the image (C(.bin)); NVIDIA's download for one PSID, the image in a
    C(.zip) (each C(.bin) in it taken out into a temporary directory and read with flint, the one of the card's PSID
    burned); or a bundle for mlxfwmanager holding images for several PSIDs, an C(.mfa) archive or the self-extracting
    C(mlxfwmanager_*) program (read with C(mlxfwmanager -d PCI -i BUNDLE --query --query-format XML), which gives the
    version it holds for the card's PSID, and burned with C(mlxfwmanager -d PCI -i BUNDLE -u -y); a bundle is read on the
    host with the card, after it is copied there, and may serve several PSIDs).
  - Checks everything before anything changes and fails with every problem at once, each naming the variable
    (O(variable_prefix)), the bad value and the fix - the images map, the PCI addresses, a listed card the host does
    not have or has no image for, an image whose PSID differs from its card's or whose version differs from the
    one asked for.
  - O(stage=read_images) (delegated to the controller) only reads the images given as C(src) there and returns
    RV(image_facts); O(stage=plan) reads the host and checks, changing nothing; O(stage=burn) checks again and burns;
    O(stage=verify) reads the cards again (after the reset or reboot and the restart of openibd and mst) and fails
    unless every card with an image runs, and has on flash, the planned version.
  - Burns (C(flint -d PCI -i IMAGE -y burn)) only when the burned version differs from the wanted one;
    when the running version differs after that, resets the card with C(mlxfwreset -d PCI -y reset) if
    O(reset_ok) is true, otherwise reports RV(reboot_required).
  - Run it on one host at a time (C(throttle=1) on the task); it does not reboot.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads the cards and images and returns the plan per device and the commands it would run.
  diff_mode:
    support: full
    description: Returns the burned and running versions per device before and after.
options:
  images:
    description:
      - Map PSID -> C({image, src, version}), or a list of C({psid, image, src, version}). C(image) is the path of the
        firmware image (.bin) on the host; C(src), optional, the file on the controller the role copies to C(image);
        C(version) the wanted version (default the image's own, read with C(flint -i IMAGE q)).
    type: raw
    default: {}
  devices:
    description:
      - PCI addresses of the cards to handle (C("0000:32:00.0")); default every card found.
      - Strings; anything else (such as the number YAML makes of an unquoted address) is refused naming it.
    type: list
    elements: raw
    default: []
  reset_ok:
    description: Reset a card with C(mlxfwreset) to activate a burned image; when false, report RV(reboot_required) instead.
    type: bool
    default: false
  sysfs_root:
    description: Root of sysfs (tests point it at a fake tree).
    type: path
    default: /sys
  stage:
    description:
      - C(read_images) reads every C(src) of O(images) where the module runs (delegate it to the controller);
        C(plan) reads the host and checks everything without changing anything; C(burn) checks and burns;
        C(verify) fails unless every card runs the planned firmware.
    type: str
    choices: [read_images, plan, burn, verify]
    default: burn
  image_facts:
    description:
      - RV(image_facts) of a O(stage=read_images) run on the controller, by PSID. For an entry with C(src), they
        stand for the image on the host while it is not copied yet (O(stage=plan) and check mode).
    type: dict
    default: {}
  variable_prefix:
    description:
      - Put before the option names in messages, so they name the variables as the user wrote them
        (C(nic_firmware_) gives C(nic_firmware_images[LNV0000000033].version)).
    type: str
    default: ""
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

- name: Take NVIDIA's download as shipped (the .bin in a .zip) and a vendor's bundle for mlxfwmanager
  offload.testbed.nic_firmware:
    images:
      MT_0000000436:
        image: /opt/firmware/fw-ConnectX6Dx-rel-22_45_3608-MCX623106AC-CDA_Ax-UEFI-14.38.16-FlexBoot-3.7.500.signed.bin.zip
      LNV0000000033:
        image: /opt/firmware/mlxfwmanager_LES_25B_DOCA_3.2.0_build3
    reset_ok: true

- name: Fail unless every card runs the planned firmware (after the reset or the reboot)
  offload.testbed.nic_firmware:
    stage: verify
    images:
      LNV0000000033:
        image: /opt/firmware/mlxfwmanager_LES_25B_DOCA_3.2.0_build3
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
  returned: when O(stage=burn)
  type: bool
pending:
  description: The PCI addresses of the cards that do not run the wanted firmware yet (a reboot activates it).
  returned: when O(stage=burn)
  type: list
  elements: str
activated:
  description: The PCI addresses of the cards reset with C(mlxfwreset) in this run.
  returned: when O(stage=burn)
  type: list
  elements: str
image_facts:
  description:
    - With O(stage=read_images), per PSID with a C(src) the image's C(path), C(kind) (C(bin), C(zip), C(mfa) or C(program)),
      C(psid), C(fw_version) and C(error); for a zip also its C(members) and the C(member) of the PSID; a bundle is C(unread).
  returned: when O(stage=read_images)
  type: dict
copies:
  description: With O(stage=plan), the C({psid, src, image}) to copy for the cards to handle.
  returned: when O(stage=plan)
  type: list
  elements: dict
errors:
  description: Every problem found, each naming the variable, the bad value and the fix.
  returned: on failure
  type: list
  elements: str
"""

import glob
import os
import shutil
import zipfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, failure
from ansible_collections.offload.testbed.plugins.module_utils.prepare import nic_firmware as nf
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.flint import parse_flint_psid_mismatch, parse_flint_query
from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager, parse_mlxfwmanager_xml

MELLANOX_VENDOR = '0x15b3'


def read_text(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return None


def flint_path(module):
    return module.get_bin_path('flint') or module.get_bin_path('mstflint')


def file_kind(path):
    """``bin``, ``zip``, ``mfa`` or ``program`` (nf.image_kind) of a file."""
    try:
        with open(path, 'rb') as handle:
            head = handle.read(4)
    except (IOError, OSError):
        return 'bin'
    return nf.image_kind(head, os.access(path, os.X_OK))


def flint_facts(module, flint, path, shown, where, place):
    """``flint -i IMAGE q`` of one image: ``(psid, fw_version, error)``."""
    rc, out, err = HostRunner(module).read([flint, '-i', path, 'q'], check_rc=False)
    if rc != 0:
        return None, None, ('%s: flint -i %s q failed on the %s (rc %s): %s; give the firmware image (.bin), NVIDIA\'s '
                            'download for the PSID (the .bin in a .zip) or the vendor\'s bundle for mlxfwmanager, as shipped' % (
                                where, shown, place, rc, (err or out).strip()))
    parsed = parse_flint_query(out)
    return parsed.get('psid'), parsed.get('fw_version'), None


def read_zip(module, flint, facts, psid, where, place):
    """The images in a zip as shipped: each .bin taken out into the module's temporary directory and read with
    flint; the one for ``psid`` is the image (its ``burn_path``)."""
    members = []
    try:
        with zipfile.ZipFile(facts['path']) as archive:
            names = [name for name in archive.namelist() if name.lower().endswith('.bin')]
            for index, name in enumerate(names):
                target = os.path.join(module.tmpdir, '%d-%s' % (index, os.path.basename(name)))
                with archive.open(name) as source, open(target, 'wb') as handle:
                    shutil.copyfileobj(source, handle)
                image_psid, version, error = flint_facts(module, flint, target, '%s:%s' % (facts['path'], name), where, place)
                if error:
                    return dict(facts, error=error)
                members.append({'name': name, 'psid': image_psid, 'fw_version': version, 'path': target})
    except (zipfile.BadZipfile, IOError, OSError) as exc:
        return dict(facts, error='%s: %s cannot be read as a zip on the %s: %s' % (where, facts['path'], place, exc))
    member = nf.zip_member(psid, members) or {}
    facts.update(members=[dict((key, one[key]) for key in ('name', 'psid', 'fw_version')) for one in members],
                 member=member.get('name'), psid=member.get('psid'), fw_version=member.get('fw_version'), burn_path=member.get('path'))
    return facts


def read_bundle(module, facts, psid, pci):
    """What a bundle for mlxfwmanager holds for the card at ``pci`` (``--query --query-format XML``)."""
    mlxfwmanager = module.get_bin_path('mlxfwmanager')
    if facts['kind'] == 'mfa' and not mlxfwmanager:
        return dict(facts, error='%s is a bundle for mlxfwmanager and the host has no mlxfwmanager: install MFT there' % facts['path'])
    argv = nf.bundle_argv(facts['kind'], facts['path'], mlxfwmanager, pci, 'query')
    rc, out, err = HostRunner(module).read(argv, check_rc=False)
    if rc != 0:
        return dict(facts, error='%s on the host; give the vendor\'s bundle as shipped' % failure(argv, rc, out, err))
    return nf.bundle_facts(facts, psid, parse_mlxfwmanager_xml(out))


def read_image(module, flint, path, where, place, psid=None, pci=None):
    """One image file here, as shipped: its facts (nf.plan_device), ``error`` set when it cannot be read.

    A bundle for mlxfwmanager is read with the card it is for (``pci``), so
    only on the host; elsewhere it is returned ``unread``.
    """
    facts = {'path': path, 'key': where.rsplit('.', 1)[1], 'psid': None, 'fw_version': None, 'error': None, 'kind': 'bin'}
    if not isinstance(path, str) or not os.path.isabs(path):
        return None
    if not os.path.exists(path):
        return None if place == 'host' else dict(facts, error='%s: %s does not exist on the %s; fix the path' % (where, path, place))
    if os.path.isdir(path):
        return dict(facts, error='%s: %s is a directory on the %s; give the firmware image (.bin) in it' % (where, path, place))
    facts['kind'] = file_kind(path)
    if facts['kind'] in nf.BUNDLES:
        return read_bundle(module, facts, psid, pci) if place == 'host' and pci else dict(facts, unread=True)
    if not flint:
        return dict(facts, error='%s: cannot read the PSID of %s: the %s has neither flint nor mstflint; install mstflint there '
                                 '(the image is read before anything is copied or burned)' % (where, path, place))
    if facts['kind'] == 'zip':
        return read_zip(module, flint, facts, psid, where, place)
    image_psid, version, error = flint_facts(module, flint, path, path, where, place)
    facts.update(psid=image_psid, fw_version=version, error=error)
    return facts


class Host(object):
    def __init__(self, module):
        self.module = module
        self.runner = HostRunner(module)
        self.sysfs = module.params['sysfs_root']
        self.mlxfwmanager = module.get_bin_path('mlxfwmanager')
        self.flint = flint_path(module)
        self.ethtool = module.get_bin_path('ethtool')

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

    def query(self, argv, parse):
        rc, out, _err = self.runner.read(argv, check_rc=False)
        return parse(out) if rc == 0 else None

    def read_card(self, pci, mlxfw):
        flint = ethtool = board = None
        if not mlxfw or not mlxfw.get('psid') or not mlxfw.get('fw_current'):
            if self.flint:
                flint = self.query([self.flint, '-d', pci, 'q'], parse_flint_query)
            if not flint or not flint.get('psid'):
                netdev = self.netdev(pci)
                if netdev and self.ethtool:
                    ethtool = self.query([self.ethtool, '-i', netdev], parse_ethtool_info)
                board = self.board_id(pci)
        return nf.merge_device(pci, mlxfw, flint, ethtool, board)

    def read(self):
        """Every card of the host: those mlxfwmanager lists and the functions 0 of vendor 0x15b3 in sysfs."""
        found = {}
        if self.mlxfwmanager:
            for dev in self.query([self.mlxfwmanager, '--query'], parse_mlxfwmanager) or []:
                pci = nf.normalize_pci(dev.get('pci'))
                if pci:
                    found[pci] = dev
        return [self.read_card(pci, found.get(pci)) for pci in sorted(set(found) | set(self.sysfs_cards()))]


def commands_for(plan, flint, mlxfwreset, mlxfwmanager):
    commands = []
    if 'burn' in plan['action'] and plan.get('kind') in nf.BUNDLES:
        commands.append(nf.bundle_argv(plan['kind'], plan['image'], mlxfwmanager, plan['pci'], 'update'))
    elif 'burn' in plan['action']:
        commands.append([flint, '-d', plan['pci'], '-i', plan.get('burn_path') or plan['image'], '-y', 'burn'])
    if 'reset' in plan['action']:
        commands.append([mlxfwreset, '-d', plan['pci'], '-y', 'reset'])
    return commands


def versions(devices):
    return dict((dev['pci'], {'psid': dev.get('psid'), 'burned': dev.get('burned'), 'running': dev.get('running')}) for dev in devices)


def names_of(module):
    """How the messages call the options: the role's variables (``variable_prefix`` and the option)."""
    return nf.validate.Names(prefix=module.params['variable_prefix'])


def read_images_stage(module):
    """On the controller: the facts of every image given as src."""
    flint = flint_path(module)
    images, where = nf.index_images(module.params['images'], names_of(module)('images'))
    facts = {}
    for psid, entry in sorted(images.items()):
        if entry.get('src'):
            read = read_image(module, flint, entry['src'], where[psid] + '.src', 'controller', psid)
            if read is not None:
                read.pop('burn_path', None)
                facts[psid] = read
    module.exit_json(changed=False, image_facts=facts, devices=[], plan=[], commands=[])


def image_facts_for(module, host, cards, stage, images, where):
    """Per PSID to check: the facts of its image (the controller's for a src not copied yet); errors by PSID."""
    from_controller = module.params['image_facts'] or {}
    used = set(card['psid'] for card in cards if card.get('psid'))
    facts, errors = {}, {}
    for psid in sorted((set(from_controller) | used) & set(images)):
        entry = images[psid]
        if psid in from_controller and entry.get('src') and (stage == 'plan' or module.check_mode or psid not in used):
            read = from_controller[psid]
        else:
            pcis = [card['pci'] for card in cards if card.get('psid') == psid]
            read = read_image(module, host.flint, entry.get('image'), where[psid] + '.image', 'host', psid, (pcis or [None])[0])
            if read is None and psid in used and isinstance(entry.get('image'), str) and os.path.isabs(entry['image']):
                if not (module.check_mode and entry.get('src')):
                    errors[psid] = ['%s.image: %s does not exist on the host; put it there, or set %s.src to the image on the '
                                    'controller' % (where[psid], entry['image'], where[psid])]
        if read is not None:
            facts[psid] = read
            errors[psid] = nf.image_errors(where[psid], psid, entry, read, [card for card in cards if card.get('psid') == psid])
    return facts, dict((psid, messages) for psid, messages in errors.items() if messages)


def bundle_paths(module):
    """The files of the images map that are bundles for mlxfwmanager (on the host, or read so on the controller)."""
    from_controller = module.params['image_facts'] or {}
    paths = []
    for _where, psid, entry in nf.image_entries(module.params['images'])[0]:
        if not isinstance(entry, dict):
            continue
        image, src = entry.get('image'), entry.get('src')
        if (from_controller.get(psid) or {}).get('kind') in nf.BUNDLES:
            paths.extend(path for path in (image, src) if isinstance(path, str))
        elif isinstance(image, str) and os.path.isfile(image) and file_kind(image) in nf.BUNDLES:
            paths.append(image)
    return paths


def check(module, host, stage):
    """Read the host and check every variable against it and the images: (errors, cards, plans)."""
    p, names = module.params, names_of(module)
    errors = nf.validate_images(p['images'], names('images'), bundle_paths(module))
    images, where = nf.index_images(p['images'], names('images'))
    wanted, device_errors = nf.validate_devices(p['devices'], names('devices'))
    errors.extend(device_errors)
    if not os.path.isdir(os.path.join(p['sysfs_root'], 'bus', 'pci', 'devices')):
        errors.append('%s: %s has no bus/pci/devices; point it at the root of sysfs, /sys' % (names('sysfs_root'), nf.validate.show(p['sysfs_root'])))
    if not host.mlxfwmanager and not host.flint:
        return errors + ['neither mlxfwmanager nor flint/mstflint is installed on the host: install MFT or mstflint first'], [], []
    cards = host.read()
    errors.extend(nf.device_errors(wanted, cards, images, names))
    if wanted:
        cards = [card for card in cards if card['pci'] in set(pci for _index, pci in wanted)]
    facts, image_errors = image_facts_for(module, host, cards, stage, images, where)
    for psid in sorted(image_errors):
        errors.extend(image_errors[psid])
    plans = [nf.plan_device(card, images, facts, p['reset_ok'], names('images'), where) for card in cards]
    # A refusal of the planner the image checks did not tell already (a card whose burned version nobody reports).
    errors.extend(plan['refusal'] for plan in plans if plan['refusal'] and plan['psid'] not in image_errors)
    return errors, cards, plans


def copies(module, plans):
    """The src -> image copies the cards to handle need."""
    images, out, seen = nf.index_images(module.params['images'])[0], [], set()
    for psid in sorted(set(plan['psid'] for plan in plans if plan.get('image'))):
        if images[psid].get('src') and images[psid]['image'] not in seen:
            seen.add(images[psid]['image'])
            out.append({'psid': psid, 'src': images[psid]['src'], 'image': images[psid]['image']})
    return out


def burn(module, host, plans, lines):
    """Run the burns and resets; returns the commands run."""
    mlxfwreset = module.get_bin_path('mlxfwreset')
    commands = []
    for plan in plans:
        commands.extend(commands_for(plan, host.flint or 'flint', mlxfwreset or 'mlxfwreset', host.mlxfwmanager or 'mlxfwmanager'))
    runner = host.runner
    if commands and not runner.dry and any('reset' in plan['action'] for plan in plans) and not mlxfwreset:
        module.fail_json(msg='mlxfwreset is not installed; install MFT or set %s: false' % names_of(module)('reset_ok'), plan=lines)
    for argv in commands:
        rc, out, err = runner.change(argv, check_rc=False)
        if rc != 0:
            mismatch = parse_flint_psid_mismatch(out + '\n' + err)
            if mismatch:
                module.fail_json(msg='flint refused %s: PSID on flash %s differs from the image\'s %s' % (
                    argv[2], mismatch['flash_psid'], mismatch['image_psid']), mismatch=mismatch, plan=lines)
            runner.fail(failure(argv, rc, out, err), plan=lines)
    return runner.commands


def report(module, host, plans, before, commands):
    after = host.read() if commands and not module.check_mode else before
    by_pci = dict((dev['pci'], dev) for dev in after)
    for plan in plans:
        now = by_pci.get(plan['pci'], {})
        plan['burned_after'] = now.get('burned')
        plan['running_after'] = now.get('running')
    if module.check_mode:
        pending = [p for p in plans if 'reboot' in p['action']]
    else:
        pending = [p for p in plans if p.get('wanted') and p['running_after'] != p['wanted']]
    result = dict(changed=bool(commands), commands=commands, plan=[nf.plan_summary(plan) for plan in plans],
                  devices=plans, reboot_required=bool(pending), pending=[plan['pci'] for plan in pending],
                  activated=[plan['pci'] for plan in plans if 'reset' in plan['action']] if commands and not module.check_mode else [])
    if module._diff:
        result['diff'] = dict(before=versions(before), after=versions(after))
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            images=dict(type='raw', default={}),
            devices=dict(type='list', elements='raw', default=[]),
            reset_ok=dict(type='bool', default=False),
            sysfs_root=dict(type='path', default='/sys'),
            stage=dict(type='str', choices=['read_images', 'plan', 'burn', 'verify'], default='burn'),
            image_facts=dict(type='dict', default={}),
            variable_prefix=dict(type='str', default=''),
        ),
        supports_check_mode=True,
    )
    stage = module.params['stage']
    if stage == 'read_images':
        read_images_stage(module)
    host = Host(module)
    errors, cards, plans = check(module, host, stage)
    lines = [nf.plan_summary(plan) for plan in plans]
    if errors:
        what = 'variables' if module.params['variable_prefix'] else 'arguments'
        module.fail_json(msg='invalid nic_firmware %s, %s: %s' % (what, 'nothing changed' if stage == 'plan' else 'nothing burned',
                                                                  '; '.join(errors)), errors=errors, devices=plans, plan=lines, commands=[])
    if stage == 'plan':
        module.exit_json(changed=False, devices=plans, plan=lines, commands=[], copies=copies(module, plans))
    if stage == 'verify':
        wrong = nf.not_running(plans)
        if wrong:
            module.fail_json(msg=nf.verify_message(wrong), devices=plans, plan=lines, commands=[])
        module.exit_json(changed=False, devices=plans, plan=lines, commands=[])
    commands = burn(module, host, plans, lines)
    module.exit_json(**report(module, host, plans, cards, commands))


if __name__ == '__main__':
    main()
