#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ddp_profile
short_description: A Dynamic Device Personalization (DDP) profile on an Intel 700-series (i40e) port, loaded or rolled back with ethtool
version_added: 0.3.0
description:
  - Loads a DDP package (C(.pkgo)) on an Intel Ethernet 700-series port the way the i40e kernel driver offers it,
    C(ethtool -f DEV NAME 100), and rolls it back with C(ethtool -f DEV - 100) for O(state=absent). The driver reads
    the file itself, from C(intel/i40e/ddp/) under the kernel's firmware path (O(firmware_dir)), and takes DDP only on
    the first PCI function of the adapter (PF0), which applies it to every port of the controller.
  - Learns what is loaded from Intel's C(ddptool -s PCI) (the profile the adapter reports per function, with its track
    id, version and name); the driver has no listing of its own. Reads the package's name, track id and version from its header.
  - Loads only when the port has no profile, keeps the same one (same track id), and refuses a different one already
    loaded (roll it back first). Rolls back only when a profile is loaded.
  - Before anything changes, refuses with every problem at once, each message naming the option as the caller wrote it
    (O(names)), the bad value and the fix, a port that does not exist, is not driven by i40e, is not function 0 or has an
    NVM older than 6.0, a package that is missing, outside O(firmware_dir), with a name too long for the driver or that is
    not a DDP package for i40e, a C(ddptool) that cannot read the port, and a different profile loaded. With O(validate_only)
    it only reports them.
  - DPDK testpmd's C(ddp add)/C(ddp del)/C(ddp get list) act on a port bound to a DPDK driver (vfio-pci) instead, a port
    with no netdev; this module does not drive testpmd (see docs/ddp_profile.md).
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the port and the package and returns the planned O(ignore:commands); nothing is loaded or rolled back.
  diff_mode:
    support: full
    description: Returns the profile on the port before and after.
options:
  stage:
    description:
      - V(apply) reads the port and loads or rolls back; V(read_package) only reads the package O(profile) names
        (the C(ddp_profile) role runs it on the controller before it copies the package to the host).
    type: str
    choices: [apply, read_package]
    default: apply
  device:
    description: The netdev of the port, function 0 of the adapter (C(enp2s0f0)). Required with O(stage=apply).
    type: str
  state:
    description: V(present) loads the package O(profile); V(absent) rolls back the profile loaded on the port.
    type: str
    choices: [present, absent]
    default: present
  profile:
    description:
      - The DDP package. With O(stage=apply), its file name in O(firmware_dir) (C(mplsogreudp.pkgo)) or its absolute path
        there, which is what C(ethtool -f) gets, relative to O(firmware_dir). With O(stage=read_package), any path.
      - Required with O(state=present). With O(state=absent), optional; when set, the loaded profile is rolled back
        only if it is this package's (same track id).
    type: str
  package_info:
    description:
      - The package's C(name), C(track_id) and C(version) as O(stage=read_package) returns them (RV(package)), read
        before the file is on the host; the module then does not read O(profile) (it only checks that the file is there
        before it loads it).
    type: dict
  firmware_dir:
    description:
      - Where the driver finds DDP packages, C(intel/i40e/ddp) under the kernel's firmware search path.
      - The driver asks the kernel for C(intel/i40e/ddp/NAME); the kernel looks in C(/lib/firmware/updates/) and
        C(/lib/firmware/) (and a C(firmware_class.path) set on the kernel command line). A directory elsewhere is only
        useful in tests.
    type: path
    default: /lib/firmware/intel/i40e/ddp
  ethtool:
    description: The ethtool command.
    type: str
    default: ethtool
  ddptool:
    description: Intel's C(ddptool) (U(https://github.com/intel/ddp-tool)), which lists the profiles loaded per PCI function.
    type: str
    default: ddptool
  validate_only:
    description:
      - Only read the port and the package and check the request against them; return the problems in RV(errors) and
        change nothing. The C(ddp_profile) role runs this for every port before it changes anything.
  names:
    description:
      - "How the messages call the options, for a caller whose users wrote them under other names, for example
        C({device: 'ddp_profile_devices[0]', profile: ddp_profile_package})."
      - The keys are option names (C(device), C(profile), C(firmware_dir), C(state)); an option without one keeps its own name.
notes:
  - C(ethtool -f DEV - 100) restores what the driver held before the last load, from a copy it keeps in memory since that
    load. After the driver is reloaded (or the host rebooted) it has no copy and refuses (C(There is no DDP profile to
    restore.) in the kernel log); the module then fails and names the ways left (testpmd's C(ddp del) with a backup
    profile, or a power cycle).
  - C(ddptool) prints one profile per PCI function; where several profiles of compatible groups are loaded on one
    function, the module sees one of them.
requirements:
  - ethtool, the i40e driver (in-kernel, or Intel's 2.7.26 or later), an NVM of 6.0 or later, and Intel's ddptool.
"""

EXAMPLES = r"""
- name: The MPLSoGRE/MPLSoUDP profile on the X710 of the DUT, so that RSS spreads the tunnelled traffic over the queues
  offload.testbed.ddp_profile:
    device: enp2s0f0
    profile: mplsogreudp.pkgo

- name: Roll it back
  offload.testbed.ddp_profile:
    device: enp2s0f0
    state: absent
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, planned).
  returned: always
  type: list
  elements: str
  sample: ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"]
profile_name:
  description: The name of the profile on the port after the run (planned in check mode); null when none.
  returned: success, with O(stage=apply)
  type: str
  sample: MPLSoUDP/GRE tunnels demo
track_id:
  description: The track id of that profile, 8 hex digits as ddptool prints it; null when none.
  returned: success, with O(stage=apply)
  type: str
  sample: DE010001
version:
  description: The version of that profile; null when none.
  returned: success, with O(stage=apply)
  type: str
  sample: 1.0.0.0
loaded:
  description: The profiles on the port after the run (planned in check mode), each C(name), C(track_id), C(version).
  returned: success, with O(stage=apply)
  type: list
  elements: dict
before:
  description: The profile ddptool reported on the port before the run (C(name), C(track_id), C(version)), null when none.
  returned: with O(stage=apply)
  type: dict
package:
  description: The package's C(name), C(track_id) and C(version), from its header or O(package_info); null when unknown.
  returned: always
  type: dict
pci:
  description: The port's PCI address (C(bus-info) of C(ethtool -i)); null when unknown.
  returned: with O(stage=apply)
  type: str
driver:
  description: The port's driver (C(ethtool -i)).
  returned: with O(stage=apply)
  type: str
firmware:
  description: The port's C(nvm) version, C(eetrack) id and C(combo) version, from C(firmware-version) of C(ethtool -i).
  returned: with O(stage=apply)
  type: dict
errors:
  description: What is wrong with the request on this host; empty when nothing is. Without O(validate_only) the module fails when there is any.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line, failure
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.prepare import ddp
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info

ARGUMENT_SPEC = dict(
    stage=dict(type='str', default='apply', choices=['apply', 'read_package']),
    device=dict(type='str'),
    state=dict(type='str', default='present', choices=['present', 'absent']),
    profile=dict(type='str'),
    package_info=dict(type='dict'),
    firmware_dir=dict(type='path', default='/lib/firmware/intel/i40e/ddp'),
    ethtool=dict(type='str', default='ethtool'),
    ddptool=dict(type='str', default='ddptool'),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)
PACKAGE_KEYS = ('name', 'track_id', 'version')


def read_file(path):
    """``(package, why)`` of the DDP package at ``path``."""
    try:
        with open(path, 'rb') as handle:
            data = handle.read()
    except (IOError, OSError) as exc:
        return None, 'cannot be read (%s)' % exc.strerror
    return ddp.read_package(data)


class Port(object):
    """One i40e port: read it and the package, check the request, then load or roll back."""

    def __init__(self, module):
        self.module = module
        self.p = module.params
        self.errors = []
        self.runner = HostRunner(module)
        self.commands = self.runner.commands
        self.result = {'pci': None, 'driver': None, 'firmware': None, 'before': None, 'package': None}
        self.name = validate.Names(self.p['names'])

    def resolve_profile(self):
        """The name ``ethtool -f`` takes (relative to firmware_dir), or ``None`` after an error."""
        profile, root = self.p['profile'], self.p['firmware_dir'].rstrip('/') or '/'
        if not profile:
            if self.p['state'] == 'present':
                self.errors.append('%s: not set; state present needs the DDP package (.pkgo) to load' % self.name('profile'))
            return None
        rel = os.path.relpath(os.path.normpath(profile), root) if os.path.isabs(profile) else os.path.normpath(profile)
        if rel.startswith('..') or rel == '.':
            self.errors.append('%s: %r is not inside %s %r, the only directory the i40e driver loads DDP packages from; copy it there'
                               ' (the ddp_profile role does) and name it by its file name' % (self.name('profile'), profile, self.name('firmware_dir'), root))
            return None
        if len(rel) > ddp.NAME_MAX:
            self.errors.append('%s: %r is %d characters; the i40e driver takes names of up to %d (I40E_DDP_PROFILE_NAME_MAX): rename the file'
                               % (self.name('profile'), rel, len(rel), ddp.NAME_MAX))
            return None
        return rel

    def read_package(self, rel):
        """The package to load (or to match for absent) from package_info or the file; errors appended."""
        path = os.path.join(self.p['firmware_dir'], rel)
        info = self.p['package_info']
        if info is not None:
            missing = [key for key in PACKAGE_KEYS if not info.get(key)]
            if missing:
                self.errors.append('package_info: %r lacks %s; pass what stage read_package returns as package' % (info, ', '.join(missing)))
                return None
            must_exist = self.p['state'] == 'present' and not (self.module.check_mode or self.p['validate_only'])
            if must_exist and not os.path.isfile(path):
                self.errors.append('%s: %s is not on the host; copy the package there before loading it' % (self.name('profile'), path))
            return dict((key, str(info[key]).upper() if key == 'track_id' else str(info[key])) for key in PACKAGE_KEYS)
        if not os.path.isfile(path):
            self.errors.append('%s: %s does not exist; the i40e driver loads %r from %s %s: copy the package there (the ddp_profile role copies'
                               ' ddp_profile_package)' % (self.name('profile'), path, rel, self.name('firmware_dir'), self.p['firmware_dir']))
            return None
        package, why = read_file(path)
        if package is None:
            self.errors.append('%s: %s is no DDP package for the i40e driver: %s; use the .pkgo of the profile for Intel 700-series'
                               % (self.name('profile'), path, why))
        return package

    def read_port(self):
        """``ethtool -i``: the driver, PCI address and NVM of the port; errors appended. Returns the PCI address or ``None``."""
        device = self.p['device']
        rc, out, err = self.runner.read([self.p['ethtool'], '-i', device], check_rc=False)
        if rc != 0:
            self.errors.append('%s: %r: ethtool -i answered rc %d (%s); name the netdev of the 700-series port (ip -br link)'
                               % (self.name('device'), device, rc, (err or out).strip()))
            return None
        info = parse_ethtool_info(out)
        self.result.update(driver=info['driver'], pci=info['bus_info'], firmware=ddp.i40e_firmware(info['firmware_version']))
        if info['driver'] != 'i40e':
            self.errors.append('%s: %r is driven by %s, not i40e; DDP profiles of this kind are for Intel Ethernet 700-series ports'
                               ' (X710, XL710, XXV710, X722): name one of those' % (self.name('device'), device, info['driver']))
            return None
        pci = (info['bus_info'] or '').lower()
        if pci and ddp.pf0(pci) != pci:
            self.errors.append('%s: %r is function %s (%s); the i40e driver takes DDP only on function 0 of the adapter, which applies it to'
                               ' every port: name the netdev of %s' % (self.name('device'), device, pci[-1], pci, ddp.pf0(pci)))
        if ddp.nvm_too_old(self.result['firmware']['nvm']):
            self.errors.append('%s: %r has NVM %s; DDP needs 6.0 or later: update the NVM (Intel\'s nvmupdate64e) first'
                               % (self.name('device'), device, self.result['firmware']['nvm']))
        return pci or None

    def read_loaded(self, pci):
        """``ddptool -s PCI``: the profile loaded on the function, ``None`` for none; ``False`` after an error."""
        rc, out, err = self.runner.read([self.p['ddptool'], '-s', pci], check_rc=False)
        rows = [row for row in ddp.parse_ddptool(out) if row['pci'] == pci]
        if rc not in (0, 8) or (rc == 0 and not rows):
            meaning = ddp.DDPTOOL_EXIT.get(rc, 'no row for %s' % pci if rc == 0 else 'unknown exit code')
            self.errors.append('%s: %r: %s -s %s answered rc %d (%s)%s; it needs the i40e driver loaded and root' % (
                self.name('device'), self.p['device'], self.p['ddptool'], pci, rc, meaning, ': ' + (err or out).strip()[-200:] if (err or out).strip() else ''))
            return False
        if rows and rows[0]['status'] and rows[0]['status'] != 'No profile loaded':
            self.errors.append('%s: %r: ddptool says %r for %s; DDP needs an NVM of 6.0 or later' % (
                self.name('device'), self.p['device'], rows[0]['status'], pci))
            return False
        return rows[0]['profile'] if rows else None

    def conflict(self, loaded, package, rel):
        device = self.p['device']
        if self.p['state'] == 'present':
            return ('%s: %r has DDP profile %s loaded, not %s %r, %s; the 700-series takes one profile at a time here: roll it back first'
                    ' (state absent runs ethtool -f %s - 100), then load this one' % (
                        self.name('device'), device, ddp.describe(loaded), self.name('profile'), rel, ddp.describe(package), device))
        return ('%s: %r has DDP profile %s loaded, not %s %r, %s; ethtool rolls back only the profile loaded last: leave %s unset to roll back'
                ' whatever is loaded, or name its package' % (
                    self.name('device'), device, ddp.describe(loaded), self.name('profile'), rel, ddp.describe(package), self.name('profile')))

    def check(self):
        """Read everything and collect every problem; returns ``(action, rel, package, loaded)``."""
        rel = self.resolve_profile()
        package = self.read_package(rel) if rel else None
        self.result['package'] = package
        pci = self.read_port()
        loaded = self.read_loaded(pci) if pci and self.result['driver'] == 'i40e' else False
        self.result['before'] = loaded or None
        if loaded is False or (package is None and (rel or self.p['state'] == 'present')):
            return 'keep', rel, package, None
        action, conflict = ddp.plan(self.p['state'], loaded, package)
        if conflict:
            self.errors.append(self.conflict(loaded, package, rel))
        return action, rel, package, loaded

    def fail(self, msg):
        self.module.fail_json(msg=msg, commands=self.commands, errors=[], **self.result)

    def apply(self, action, rel, package):
        """Run (or only list, in check mode) the ethtool -f of ``action``, then read the port back."""
        device = self.p['device']
        argv = [self.p['ethtool'], '-f', device, rel if action == 'load' else '-', ddp.REGION]
        rc, out, err = self.runner.change(argv, check_rc=False)
        if self.runner.dry:
            return package if action == 'load' else None
        if rc != 0:
            hint = ('; after a driver reload or a reboot the driver has no copy to roll back from ("There is no DDP profile to restore."):'
                    ' remove it with DPDK testpmd (ddp del PORT BACKUP.pkgo, port bound to vfio-pci) or power-cycle the host'
                    if action == 'rollback' else '')
            self.fail('%s; the i40e driver writes why to the kernel log (dmesg), one of: %s%s'
                      % (failure(argv, rc, out, err), ' / '.join(ddp.DRIVER_MESSAGES), hint))
        after = self.read_loaded(self.result['pci'])
        want = package if action == 'load' else None
        if after is False or (after or {}).get('track_id') != (want or {}).get('track_id'):
            self.fail('%s: after %s ddptool reports %s on %s, not %s'
                      % (device, command_line(argv), ddp.describe(after or None), self.result['pci'], ddp.describe(want)))
        return after


def diff_text(profile):
    return ('profile %s track_id %s version %s\n' % (profile['name'], profile['track_id'], profile['version'])) if profile else 'no profile\n'


def read_package_stage(module):
    p = module.params
    profile = validate.Names(p['names'])('profile')
    if not p['profile']:
        module.fail_json(msg='%s: not set; stage read_package reads that file' % profile, errors=[], commands=[], package=None)
    package, why = read_file(p['profile'])
    errors = [] if package else ['%s: %s is no DDP package for the i40e driver: %s; use the .pkgo of the profile for Intel 700-series'
                                 % (profile, p['profile'], why)]
    if errors and not p['validate_only']:
        module.fail_json(msg=errors[0], errors=errors, commands=[], package=None)
    module.exit_json(changed=False, package=package, errors=errors, commands=[])


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True, required_if=[('stage', 'apply', ('device',))])
    if module.params['stage'] == 'read_package':
        read_package_stage(module)
    port = Port(module)
    action, rel, package, loaded = port.check()
    if module.params['validate_only']:
        module.exit_json(changed=False, errors=port.errors, commands=[], **port.result)
    if port.errors:
        module.fail_json(msg='; '.join(port.errors), errors=port.errors, commands=[], **port.result)
    after = loaded
    if action != 'keep':
        after = port.apply(action, rel, package)
    result = dict(changed=bool(port.commands), commands=port.commands, errors=[], loaded=[after] if after else [],
                  profile_name=(after or {}).get('name'), track_id=(after or {}).get('track_id'), version=(after or {}).get('version'), **port.result)
    if module._diff:
        result['diff'] = {'before': diff_text(loaded), 'after': diff_text(after)}
    module.exit_json(**result)


if __name__ == '__main__':
    main()
