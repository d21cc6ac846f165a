#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: dpdk_devbind
short_description: PCI devices bound to a DPDK driver with dpdk-devbind.py, and back to their own
version_added: 0.2.0
description:
  - Binds each listed PCI device to its driver (C(vfio-pci) unless told otherwise) with DPDK's C(dpdk-devbind.py -b),
    after taking its up interfaces down (C(ip link set dev X down)), and records the driver and interfaces it had
    in O(state_file); O(state=unbound) binds each recorded device back to that driver and brings its interfaces up again.
  - "Before it changes anything it reads each device in sysfs (C(/sys/bus/pci/devices/<pci>): its driver and
    interfaces), the addresses and routes of the host (C(ip -j addr show), C(ip -j route show), C(ip -j -6 route show)),
    and refuses, every problem at once, a malformed PCI address, one that is no device of the host, a driver the host
    does not have (neither registered under C(/sys/bus/pci/drivers) nor a module C(modprobe -n) finds), a device listed
    twice, a O(management_interfaces) name the kernel would refuse, and a device whose interface carries a management
    address (O(management_addresses), O(connection_address)), the default route or a O(management_interfaces) entry,
    naming the device, the interface and the address or route."
  - A driver that is not registered yet (C(igb_uio), C(uio_pci_generic)) is loaded with O(modprobe) before the first bind.
  - After each bind it reads the device's driver back from sysfs and fails when it is not the one asked for
    (C(dpdk-devbind.py) prints most of its errors and still exits 0).
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the host and returns the planned O(ignore:commands); nothing is run that changes it.
  diff_mode:
    support: full
    description: Returns each listed device's driver before and after.
options:
  devices:
    description: The PCI devices.
    type: list
    elements: dict
    default: []
    suboptions:
      pci:
        description: The device's PCI address, domain included (C(0000:03:00.0)); a string.
        type: raw
        required: true
      driver:
        description: The driver to bind it to.
        type: str
        default: vfio-pci
  state:
    description: C(bound) binds the devices; C(unbound) gives each the driver O(state_file) records for it.
    type: str
    choices: [bound, unbound]
    default: bound
  root:
    description: Where the host's sysfs is found (C(root)/sys); a fake tree in tests.
    type: path
    default: /
  devbind:
    description: The C(dpdk-devbind.py) command, as an argv list (a wrapper in tests).
    type: list
    elements: str
    default: [dpdk-devbind.py]
  ip:
    description: The ip command.
    type: str
    default: ip
  modprobe:
    description: The modprobe command; C(modprobe -n DRIVER) tells whether the host can load a driver that is not registered yet.
    type: str
    default: modprobe
  state_file:
    description: The module's record of each device's driver and interfaces before it bound it (JSON).
    type: path
    default: /var/lib/offload-testbed/dpdk_host_devices.json
  management_addresses:
    description: Addresses (or host names) of this host's management; a device whose interface has one is refused.
    type: list
    elements: str
    default: []
  connection_address:
    description: The address (or host name) Ansible connects to (C(ansible_host)); a device whose interface has it is refused.
    type: str
  management_interfaces:
    description: Interfaces that must keep their kernel driver whatever their addresses.
    type: list
    elements: str
    default: []
  timeout:
    description: Seconds to wait for a device's interfaces after it is given back to its kernel driver.
    type: int
    default: 10
  names:
    description:
      - "How the messages call the options (C({devices: dpdk_host_devices, management_addresses: ansible_host}));
        an option without one keeps its own name."
"""

EXAMPLES = r"""
- name: The generator's two ports on vfio-pci, never the NIC Ansible connects through
  offload.testbed.dpdk_devbind:
    devices:
      - {pci: "0000:86:00.0"}
      - {pci: "0000:86:00.1"}
    connection_address: "{{ ansible_host }}"

- name: Both back on their kernel driver
  offload.testbed.dpdk_devbind:
    devices:
      - {pci: "0000:86:00.0"}
      - {pci: "0000:86:00.1"}
    state: unbound
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
  sample: ["ip link set dev enp134s0f0 down", "dpdk-devbind.py -b vfio-pci 0000:86:00.0"]
errors:
  description: What is wrong with the request on this host; empty when nothing is.
  returned: always
  type: list
  elements: str
devices:
  description: Per listed device (by PCI address), its driver and interfaces after the run (planned in check mode).
  returned: always
  type: dict
"""

import json
import os
import socket
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line

from ansible_collections.offload.testbed.plugins.module_utils.prepare import dpdk_devbind
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.files import read_record, read_text

ARGUMENT_SPEC = dict(
    devices=dict(type='list', elements='dict', default=[], options=dict(
        pci=dict(type='raw', required=True),
        driver=dict(type='str', default='vfio-pci'),
    )),
    state=dict(type='str', default='bound', choices=['bound', 'unbound']),
    root=dict(type='path', default='/'),
    devbind=dict(type='list', elements='str', default=['dpdk-devbind.py']),
    ip=dict(type='str', default='ip'),
    modprobe=dict(type='str', default='modprobe'),
    state_file=dict(type='path', default='/var/lib/offload-testbed/dpdk_host_devices.json'),
    management_addresses=dict(type='list', elements='str', default=[]),
    connection_address=dict(type='str'),
    management_interfaces=dict(type='list', elements='str', default=[]),
    timeout=dict(type='int', default=10),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)


def read_device(root, pci):
    """A device's driver, its interfaces (the ``net`` directories under it, as dpdk-devbind.py finds them) and those up."""
    path = os.path.join(root, 'sys', 'bus', 'pci', 'devices', pci)
    if not os.path.isdir(path):
        return {'exists': False, 'driver': None, 'interfaces': [], 'up': []}
    driver = os.path.join(path, 'driver')
    device = {'exists': True, 'driver': os.path.basename(os.path.realpath(driver)) if os.path.exists(driver) else None,
              'interfaces': [], 'up': []}
    for base, dirs, dummy in os.walk(path):
        if 'net' in dirs:
            for name in sorted(os.listdir(os.path.join(base, 'net'))):
                device['interfaces'].append(name)
                flags = read_text(os.path.join(base, 'net', name, 'flags')).strip()
                if flags.startswith('0x') and int(flags, 16) & 1:
                    device['up'].append(name)
            break
    return device


def resolve(addresses, source):
    """``[(address, source)]`` of addresses and host names (each name's addresses)."""
    found = []
    for value in addresses:
        try:
            infos = socket.getaddrinfo(value, None)
        except (socket.error, UnicodeError):
            infos = []
        for address in sorted(set([value] + [info[4][0] for info in infos])):
            found.append((address, '%s %s' % (source, value) if address != value else source))
    return found


class Devices(object):
    def __init__(self, module):
        self.module, self.params = module, module.params
        # Dry (only listing the changes) until main says otherwise.
        self.runner = HostRunner(module, dry=True, errors=True)
        self.commands = self.runner.commands
        self.drivers = {'registered': set(), 'modprobe': {}}

    @property
    def dry(self):
        return self.runner.dry

    @dry.setter
    def dry(self, value):
        self.runner.dry = value

    def fail(self, msg):
        self.runner.fail(msg)

    def read(self, argv):
        """The stdout of a command that changes nothing."""
        return self.runner.read(argv)[1]

    def read_host(self):
        ip = self.params['ip']
        addresses = dpdk_devbind.parse_addresses(self.read([ip, '-j', 'addr', 'show']))
        routes = dpdk_devbind.parse_routes(self.read([ip, '-j', 'route', 'show']))
        routes += dpdk_devbind.parse_routes(self.read([ip, '-j', '-6', 'route', 'show']))
        return {'addresses': addresses, 'routes': routes}

    def check(self, devices):
        p, name_of = self.params, validate.Names(self.params['names'])
        labels = [name_of('devices', index) for index in range(len(p['devices']))]
        drivers = self.drivers = self.read_drivers()
        management = {'host': self.read_host() if p['state'] == 'bound' else {'addresses': {}, 'routes': []},
                      'addresses': resolve(p['management_addresses'], name_of('management_addresses'))
                      + resolve([p['connection_address']] if p['connection_address'] else [], name_of('connection_address')),
                      'interfaces': [(n, name_of('management_interfaces')) for n in p['management_interfaces']]}
        errors = []
        for name, entry in zip(labels, p['devices']):
            pci = entry.get('pci').lower() if isinstance(entry.get('pci'), str) else None
            errors.extend(dpdk_devbind.device_errors(name, entry, devices.get(pci), drivers, management, p['state']))
        errors += validate.name_list(name_of('management_interfaces'), p['management_interfaces'],
                                     validate.interface_name)
        return errors + dpdk_devbind.duplicate_errors(labels, p['devices']) + self.program_errors()

    def read_drivers(self):
        """The drivers registered under /sys/bus/pci/drivers, and what ``modprobe -n`` says of each other one asked for."""
        base = os.path.join(self.params['root'], 'sys', 'bus', 'pci', 'drivers')
        registered = set(os.listdir(base)) if os.path.isdir(base) else set()
        asked = set(e.get('driver') or 'vfio-pci' for e in self.params['devices'] if isinstance(e, dict)) if self.params['state'] == 'bound' else set()
        said = {}
        for driver in sorted(d for d in asked - registered if isinstance(d, str) and dpdk_devbind.DRIVER_RE.match(d)):
            rc, out, err = self.runner.read([self.params['modprobe'], '-n', driver], check_rc=False)
            said[driver] = None if rc == 0 else '%s (rc %d)' % ((err or out).strip() or 'modprobe -n %s said nothing' % driver, rc)
        return {'registered': registered, 'modprobe': said}

    def program_errors(self):
        """dpdk-devbind.py, needed to bind and to give back, missing from the host."""
        program = (self.params['devbind'] or [''])[0]
        found = os.access(program, os.X_OK) if os.path.isabs(program) else self.module.get_bin_path(program) if program else None
        if found or not self.params['devices']:
            return []
        return ['%s: %s is not on this host (%s); install DPDK\'s usertools (Debian and Ubuntu: apt install dpdk, which has '
                '/usr/bin/dpdk-devbind.py) or give the command as a list with its full path'
                % (validate.Names(self.params['names'])('devbind'), validate.show(program), 'not executable' if os.path.isabs(program) else 'not on PATH')]

    def bind(self, pci, driver):
        argv = dpdk_devbind.bind_argv(self.params['devbind'], pci, driver)
        _rc, out, err = self.runner.change(argv)
        if self.dry:
            return
        now = read_device(self.params['root'], pci)['driver']
        if now != driver:
            said = ' '.join(text.strip() for text in (err, out) if text and text.strip())
            self.fail('%s: after %s the device is on %s, not %s: %s' % (pci, command_line(argv), now, driver, said or 'dpdk-devbind.py said nothing'))

    def bring_up(self, pci, interfaces):
        if self.dry:
            for name in interfaces:
                self.runner.change([self.params['ip'], 'link', 'set', 'dev', name, 'up'])
            return
        deadline = time.time() + self.params['timeout']
        while set(interfaces) - set(read_device(self.params['root'], pci)['interfaces']) and time.time() < deadline:
            time.sleep(0.2)
        for name in interfaces:
            self.runner.change([self.params['ip'], 'link', 'set', 'dev', name, 'up'])


def load_record(path):
    try:
        record = read_record(path)
    except ValueError:
        record = {}
    return record if isinstance(record, dict) else {}


def save_record(path, record):
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory)
    with open(path, 'w') as handle:
        json.dump(record, handle, indent=2, sort_keys=True)
        handle.write('\n')


def converge(worker, devices, record):
    """Run the plan of :func:`dpdk_devbind.plan`; returns the devices' drivers after it."""
    p = worker.params
    after = dict((pci, dict(device)) for pci, device in devices.items())
    for step in dpdk_devbind.plan(p['devices'], devices, record, p['state'], worker.drivers['registered']):
        if step[0] in ('modprobe', 'down'):
            worker.runner.change([p['modprobe'], step[1]] if step[0] == 'modprobe' else [p['ip'], 'link', 'set', 'dev', step[1], 'down'])
            continue
        dummy, pci, driver, original = step
        if p['state'] == 'bound':
            record.setdefault(pci, {'driver': original, 'interfaces': devices[pci]['interfaces'], 'up': devices[pci]['up']})
            if not worker.dry:
                save_record(p['state_file'], record)
        worker.bind(pci, driver)
        after[pci].update(driver=driver, interfaces=[] if p['state'] == 'bound' else record[pci].get('interfaces', []))
        if p['state'] == 'unbound':
            worker.bring_up(pci, record[pci].get('up') or [])
            record.pop(pci)
            if not worker.dry:
                save_record(p['state_file'], record)
    return after


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    worker = Devices(module)
    devices = dict((e['pci'].lower(), read_device(p['root'], e['pci'].lower())) for e in p['devices']
                   if isinstance(e.get('pci'), str) and validate.pci_address('pci', e['pci']) is None)
    errors = worker.check(devices)
    summary = dict((pci, {'driver': d['driver'], 'interfaces': d['interfaces']}) for pci, d in devices.items())
    if p['validate_only'] or errors:
        result = dict(changed=False, commands=[], errors=errors, devices=summary)
        if errors and not p['validate_only']:
            module.fail_json(msg='; '.join(errors), **result)
        module.exit_json(**result)
    worker.dry = module.check_mode
    record = load_record(p['state_file'])
    if p['state'] == 'unbound':
        for pci in sorted(set(devices) - set(record)):
            if devices[pci]['driver'] in dpdk_devbind.DPDK_DRIVERS:
                module.warn('%s is on %s and %s records no driver of its own: it stays there (dpdk-devbind.py -b DRIVER %s gives it one)'
                            % (pci, devices[pci]['driver'], p['state_file'], pci))
    after = converge(worker, devices, record)
    result = dict(changed=bool(worker.commands), commands=worker.commands, errors=[],
                  devices=dict((pci, {'driver': d['driver'], 'interfaces': d['interfaces']}) for pci, d in after.items()))
    if module._diff:
        result['diff'] = {'before': ''.join('%s %s\n' % (pci, devices[pci]['driver']) for pci in sorted(devices)),
                          'after': ''.join('%s %s\n' % (pci, after[pci]['driver']) for pci in sorted(after))}
    module.exit_json(**result)


if __name__ == '__main__':
    main()
