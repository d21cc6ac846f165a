# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""DPDK's dpdk-devbind.py: its command lines, its ``--status`` output, and the
checks before a PCI device leaves its kernel driver.

Pure code: plugins/modules/dpdk_devbind.py reads sysfs and ``ip -j`` into
plain values; these functions parse, check and plan.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

# Drivers a DPDK application drives a device through (dpdk-devbind.py's dpdk_drivers).
DPDK_DRIVERS = ('igb_uio', 'vfio-pci', 'uio_pci_generic')
# A kernel driver's name as /sys/bus/pci/drivers lists it (vfio-pci, mlx5_core).
DRIVER_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]*$')
STATUS_LINE = re.compile(r"^(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]) '(?P<device>.*?)'(?P<rest>.*)$")


def parse_status(text):
    """``dpdk-devbind.py --status`` -> ``{pci: {section, device, if, drv, unused, active}}``."""
    devices, section = {}, None
    for line in (text or '').splitlines():
        if line.startswith('='):
            continue
        match = STATUS_LINE.match(line)
        if not match:
            section = line.strip() or section
            continue
        rest = match.group('rest')
        fields = dict(re.findall(r'\b(if|drv|unused)=(\S*)', rest))
        devices[match.group('pci')] = {
            'section': section, 'device': match.group('device'), 'if': fields.get('if', ''), 'drv': fields.get('drv'),
            'unused': fields.get('unused', ''), 'active': '*Active*' in rest,
        }
    return devices


def parse_lspci(text):
    """``lspci -Dvmmnnk`` -> ``{slot: {field: value}}``, the records dpdk-devbind.py lists devices from."""
    devices = {}
    for block in (text or '').split('\n\n'):
        fields = dict(line.split('\t', 1) for line in block.splitlines() if '\t' in line)
        fields = dict((key.rstrip(':'), value) for key, value in fields.items())
        if fields.get('Slot'):
            devices[fields['Slot']] = fields
    return devices


def active_interfaces(route_text):
    """The interfaces ``ip -o route`` names, 169.254 routes left out: those dpdk-devbind.py marks ``*Active*`` and will not unbind."""
    names = set()
    for line in (route_text or '').splitlines():
        words = line.split()
        if line.startswith('169.254'):
            continue
        names.update(words[i + 1] for i, word in enumerate(words[:-1]) if word == 'dev')
    return names


def parse_addresses(text):
    """``ip -j addr show`` -> ``{ifname: [addresses]}``."""
    try:
        links = json.loads(text or '[]')
    except ValueError:
        return {}
    return dict((link.get('ifname'), [a.get('local') for a in link.get('addr_info') or [] if a.get('local')])
                for link in links if isinstance(link, dict) and link.get('ifname'))


def parse_routes(text):
    """``ip -j route show`` -> ``[{dst, dev, gateway}]`` (``default`` routes included)."""
    try:
        routes = json.loads(text or '[]')
    except ValueError:
        return []
    return [dict(dst=r.get('dst'), dev=r.get('dev'), gateway=r.get('gateway')) for r in routes if isinstance(r, dict) and r.get('dev')]


def route_text(route):
    return '%s%s dev %s' % (route['dst'], ' via %s' % route['gateway'] if route.get('gateway') else '', route['dev'])


def management_reasons(interfaces, host, management):
    """Why the interfaces of a device carry the host's management: ``[(interface, reason)]``.

    ``host`` has ``addresses`` (:func:`parse_addresses`) and ``routes``
    (:func:`parse_routes`); ``management`` has ``addresses`` (``[(address,
    where it came from)]``) and ``interfaces`` (``[(name, where)]``).
    """
    reasons = []
    for interface in interfaces:
        for address, source in management.get('addresses') or []:
            if address in host['addresses'].get(interface, []):
                reasons.append((interface, 'has the management address %s (%s)' % (address, source)))
        for route in host['routes']:
            if route['dev'] == interface and route['dst'] == 'default':
                reasons.append((interface, 'carries the default route (%s)' % route_text(route)))
        for name, source in management.get('interfaces') or []:
            if name == interface:
                reasons.append((interface, 'is a management interface (%s)' % source))
    return reasons


def device_errors(name, entry, device, drivers, management, state):
    """The problems of one entry of the device list; ``device`` is what sysfs says of its PCI address (None: not read)."""
    if not isinstance(entry, dict):
        return ['%s: %s is not a mapping; write {pci: "0000:03:00.0", driver: vfio-pci}' % (name, validate.show(entry))]
    driver = entry.get('driver') or 'vfio-pci'
    errors = [e for e in [driver_error('%s.driver' % name, driver, drivers) if state == 'bound' else None] if e]
    error = validate.pci_address('%s.pci' % name, entry.get('pci'))
    if error:
        return [error] + errors
    pci = entry['pci'].lower()
    if not device or not device.get('exists'):
        return ['%s.pci: %s is no PCI device of this host (there is no /sys/bus/pci/devices/%s); list the devices with lspci -D '
                'or dpdk-devbind.py --status and use one of those' % (name, validate.show(entry['pci']), pci)] + errors
    reasons = management_reasons(device.get('interfaces') or [], management['host'], management) if state == 'bound' else []
    if reasons and device.get('driver') != driver:
        errors.append('%s.pci: %s (%s) carries the management of this host: its interface %s; binding it to %s would cut this host '
                      'off (Ansible connects through it). Remove it from the list, or connect through another NIC'
                      % (name, pci, 'driver %s' % device['driver'] if device.get('driver') else 'no driver',
                         '; '.join('%s %s' % r for r in reasons), driver))
    return errors


def driver_error(name, driver, drivers):
    """One device's driver against the host: registered under /sys/bus/pci/drivers, or a module modprobe can load.

    ``drivers`` holds ``registered`` (the names under /sys/bus/pci/drivers)
    and ``modprobe``: for each driver that is not, what ``modprobe -n DRIVER``
    said (``None`` when it can load it). Returns ``None`` or the message.
    """
    if not isinstance(driver, str) or not DRIVER_RE.match(driver):
        return ('%s: %s is no driver name; write a kernel driver as /sys/bus/pci/drivers lists it, vfio-pci for DPDK'
                % (name, validate.show(driver)))
    registered = set(drivers.get('registered') or ())
    if driver in registered:
        return None
    spelled = sorted(known for known in registered | set(DPDK_DRIVERS) if known != driver and known.replace('_', '-') == driver.replace('_', '-'))
    if spelled:
        return ("%s: %s is spelled %s under /sys/bus/pci/drivers, the name dpdk-devbind.py binds with; write %s"
                % (name, validate.show(driver), validate.show(spelled[0]), spelled[0]))
    said = (drivers.get('modprobe') or {}).get(driver, 'not asked')
    if said is None:
        return None
    return ("%s: %s is not a driver of this host: it is not loaded (nothing at /sys/bus/pci/drivers/%s) and modprobe cannot "
            "load it (%s); use vfio-pci, or install the driver's module first (igb_uio is built from DPDK's dpdk-kmods)"
            % (name, validate.show(driver), driver, said))


def load_steps(entries, devices, registered):
    """``('modprobe', driver)`` for each driver a bind of ``entries`` needs that is not registered yet, once each."""
    steps = []
    for entry in entries:
        driver = entry.get('driver') or 'vfio-pci'
        if devices[entry['pci'].lower()]['driver'] != driver and driver not in registered and ('modprobe', driver) not in steps:
            steps.append(('modprobe', driver))
    return steps


def duplicate_errors(names, entries):
    seen, errors = {}, []
    for name, entry in zip(names, entries):
        pci = entry.get('pci').lower() if isinstance(entry, dict) and isinstance(entry.get('pci'), str) else None
        if pci and pci in seen:
            errors.append('%s.pci: %s is already listed as %s.pci; list each device once' % (name, pci, seen[pci]))
        elif pci:
            seen[pci] = name
    return errors


def plan(entries, devices, record, state, registered=None):
    """The steps, in order: ``('modprobe', driver)``, ``('down', interface)`` and ``('bind', pci, driver, original)``.

    ``bound`` loads each driver the binds need that is not among the
    ``registered`` ones (unchecked when ``None``), then takes each listed
    device's up interfaces down and binds it to its driver (``original`` is the
    driver it leaves); ``unbound`` binds each listed device the ``record``
    knows back to the driver recorded.
    """
    steps = load_steps(entries, devices, registered) if state == 'bound' and registered is not None else []
    for entry in entries:
        pci = entry['pci'].lower()
        device = devices[pci]
        if state == 'bound':
            driver = entry.get('driver') or 'vfio-pci'
            if device['driver'] != driver:
                steps.extend(('down', interface) for interface in device['up'])
                steps.append(('bind', pci, driver, device['driver']))
        elif pci in record and record[pci].get('driver') != device['driver']:
            steps.append(('bind', pci, record[pci].get('driver'), device['driver']))
    return steps


def bind_argv(devbind, pci, driver):
    """``dpdk-devbind.py -b DRIVER PCI``, or ``-u PCI`` to leave a device without a driver."""
    return list(devbind) + (['-b', driver, pci] if driver else ['-u', pci])
