"""Emulator of the NVIDIA/Mellanox firmware tools for tests.

Called by the wrappers next to it as ``mlnx_emu.py TOOL ARGS...`` for
``mlxfwmanager``, ``flint``, ``mstflint``, ``mlxfwreset``, ``ethtool``,
``mst`` and (through tests/emulators/doca/openibd) ``openibd``. Every line
it prints is a line of a real tool's output recorded in tests/fixtures
(tests/fixtures/SOURCES.md says where each was printed;
tests/fixtures/emulated_outputs.yml maps each command to its files); only
the values that vary (versions, PSIDs, PCI addresses, device names, MACs,
counts, dates) are put in. Where no real output is known the tool prints
nothing (``mst stop``, ``openibd status``, an update with nothing to update).

The cards live in ``$MLNX_EMU_STATE/devices.json``::

    [{"pci": "0000:32:00.0", "psid": "LNV0000000033", "burned": "26.43.1014",
      "running": "26.43.1014", "netdev": "ens3f0np0"}]

with optional ``device_type``, ``part_number``, ``description``,
``base_guid`` and ``base_mac`` (else the recorded card's). Burning changes
``burned`` and leaves ``running`` until ``mlxfwreset`` (or the emulated
reboot, tests/emulators/host/reboot). A firmware image is a text file with
``PSID: ...`` and ``FW Version: ...`` lines (real images are binary); a
file with several such pairs is a vendor's bundle for mlxfwmanager (an
``.mfa`` archive, or an executable script that runs ``mlxfwmanager -i
ITSELF``, standing for the self-extracting ``mlxfwmanager_*`` program).
Every call that changes something is appended to ``$MLNX_EMU_STATE/calls.log``;
queries write nothing. ``MLNX_EMU_FAIL=mlxfwmanager,flint`` makes those tools
fail as if they could not open the device.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import recorded  # noqa: E402  pylint: disable=wrong-import-position

VERSION = r'\d+\.\d+\.\d+'


def fixture_lines(name):
    """The lines of the recorded output NAME (tests/fixtures), newline kept."""
    return recorded.text(name).splitlines(True)


def line_of(name, start):
    """The first line of the recorded output NAME that begins with ``start`` (after its indentation), newline
    kept; ``start`` ending in a newline asks for the whole line."""
    whole = start.endswith('\n')
    return recorded.line(name, r'^\s*%s%s' % (re.escape(start.rstrip('\n')), '$' if whole else '')) + '\n'


def put(line, old, new):
    """``line`` with the recorded value ``old`` replaced by ``new``, padded to the same column width."""
    head, sep, tail = line.partition(old)
    if not sep:
        return line
    spaces = len(tail) - len(tail.lstrip(' '))
    pad = max(spaces + len(old) - len(new), 1) if spaces and tail.strip() else spaces
    return head + new + ' ' * pad + tail.lstrip(' ')


def state_dir():
    path = os.environ.get('MLNX_EMU_STATE')
    if not path:
        sys.stderr.write('MLNX_EMU_STATE is not set\n')
        sys.exit(2)
    return path


def load():
    with open(os.path.join(state_dir(), 'devices.json')) as handle:
        return json.load(handle)


def save(devices):
    path = os.path.join(state_dir(), 'devices.json')
    with open(path + '.tmp', 'w') as handle:
        json.dump(devices, handle, indent=1, sort_keys=True)
    os.rename(path + '.tmp', path)


def log(line):
    with open(os.path.join(state_dir(), 'calls.log'), 'a') as handle:
        handle.write(line + '\n')


def norm(pci):
    pci = pci.lower()
    return pci if pci.count(':') == 2 else '0000:' + pci


def short(pci):
    """``0000:04:00.0`` -> ``04:00.0``, as mlxfwreset prints the device."""
    pci = norm(pci)
    return pci[5:] if pci.startswith('0000:') else pci


def cannot_open(device):
    sys.stderr.write(put(line_of('mstflint_cannot_open_device.txt', '-E- Cannot open Device:'), '41:00.0', device))


def find(devices, pci):
    for dev in devices:
        if norm(dev['pci']) == norm(pci):
            return dev
    cannot_open(pci)
    sys.exit(1)


def read_images(path):
    """``[(psid, version)]`` of the images in an emulated image or bundle file; None when it cannot be read."""
    try:
        with open(path) as handle:
            text = handle.read()
    except (IOError, OSError, UnicodeDecodeError):
        return None
    return re.findall(r'PSID:\s*(\S+)\s*\n(?:#\s*)?FW Version:\s*(%s)' % VERSION, text)


def option(args, *names):
    for name in names:
        if name in args and args.index(name) + 1 < len(args):
            return args[args.index(name) + 1]
    return None


# mlxfwmanager -------------------------------------------------------------

QUERY = 'mlxfwmanager_query_cx6lx_update_required.txt'
XML = 'mlxfwmanager_query_xml_cx6lx_update_required.xml'
STATUS_FIXTURE = {
    'Update required': QUERY,
    'Up to date': 'mlxfwmanager_query_cx3pro_running_differs.txt',
    'No matching image found': 'mlxfwmanager_query_cx5_no_matching_image.txt',
}
# The recorded card of the query fixture, whose values the rows carry.
RECORDED = {'device_type': 'ConnectX6LX', 'part_number': 'MCX631102AS-ADA_Ax',
            'description': 'ConnectX-6 Lx EN adapter card; 25GbE; Dual-port SFP28; PCIe 4.0 x8; Secure Boot; No Crypto;',
            'psid': 'MT_0000000575', 'pci': '0002:01:00.0', 'base_guid': 'e8ebd3030070cf12', 'base_mac': 'e8ebd370cf12'}
HEAD_ROWS = (('Device Type:', 'device_type'), ('Part Number:', 'part_number'), ('Description:', 'description'),
             ('PSID:', 'psid'), ('PCI Device Name:', 'pci'), ('Base GUID:', 'base_guid'), ('Base MAC:', 'base_mac'))


def version_row(name, start, current, available):
    """A ``Versions`` row of fixture NAME (``FW``, ``FW (Running)``) with its two columns put in."""
    line = line_of(name, start)
    match = re.match(r'^(?P<label>\s*%s\s+)(?P<cur>\S+)(?P<gap>\s+)(?P<avail>\S+)(?P<end>\s*)$' % re.escape(start.strip()), line.rstrip('\n'))
    width = len(match.group('cur')) + len(match.group('gap'))
    cell = current + ' ' * max(width - len(current), 1)
    tail = match.group('end') + '\n'
    if match.group('end'):
        tail = ' ' * max(len(match.group('avail')) + len(match.group('end')) - len(available), 1) + '\n'
    return match.group('label') + cell + available + tail


def version_key(version):
    return tuple(int(part) for part in version.split('.'))


def status_of(dev, available):
    if not available:
        return 'No matching image found'
    return 'Update required' if version_key(available) > version_key(dev['burned']) else 'Up to date'


def device_block(number, dev, available):
    """``Device #N:`` and its rows, as mlxfwmanager --query prints one card."""
    out = [put(line_of('mlxfwmanager_query_cx5_no_matching_image.txt', 'Device #'), '4', str(number)),
           line_of(QUERY, '----------\n'), '\n']
    for start, field in HEAD_ROWS:
        value = norm(dev['pci']) if field == 'pci' else dev.get(field) or RECORDED[field]
        out.append(put(line_of(QUERY, start), RECORDED[field], value))
    status = status_of(dev, available)
    out.append(line_of(QUERY, 'Versions:'))
    # The FW row as the recorded output of the same status prints it (N/A columns are padded).
    out.append(version_row(STATUS_FIXTURE[status], 'FW ', dev['burned'], available or 'N/A'))
    if dev['running'] != dev['burned']:
        out.append(version_row('mlxfwmanager_query_cx3pro_running_differs.txt', 'FW (Running)', dev['running'], 'N/A'))
    out += ['\n', line_of(STATUS_FIXTURE[status], 'Status:')]
    return out, status


def xml_block(dev, available):
    """One ``<Device>`` of ``mlxfwmanager --query --query-format XML``."""
    lines = fixture_lines(XML)
    out = []
    for line in lines[1:-1]:
        if '<PXE ' in line or '<UEFI ' in line:
            continue
        for field, value in (('pci', norm(dev['pci'])), ('base_mac', dev.get('base_mac')), ('base_guid', dev.get('base_guid')),
                             ('psid', dev['psid']), ('device_type', dev.get('device_type')), ('part_number', dev.get('part_number')),
                             ('description', dev.get('description'))):
            if value and RECORDED[field] in line:
                line = line.replace(RECORDED[field], value)
        line = line.replace('current="26.33.1048"', 'current="%s"' % dev['burned'])
        line = line.replace('available="26.43.1014"', 'available="%s"' % (available or 'N/A'))
        out.append(line.replace('>Update required<', '>%s<' % status_of(dev, available)))
    return out


def available_for(images, psid):
    versions = [version for image_psid, version in images if image_psid == psid]
    return versions[0] if versions else None


def mlxfwmanager(args):
    devices = load()
    chosen = [find(devices, option(args, '-d', '--dev'))] if option(args, '-d', '--dev') else devices
    source = option(args, '-i', '--image-file')
    images = read_images(source) if source else []
    if images is None:
        return 1
    if option(args, '--query-format') == 'XML':
        lines = fixture_lines(XML)
        sys.stdout.write(''.join([lines[0]] + sum((xml_block(dev, available_for(images, dev['psid'])) for dev in chosen), [])
                                 + [lines[-1]]))
        return 0
    out, pending = [line_of(QUERY, 'Querying Mellanox devices firmware'), '\n'], []
    for number, dev in enumerate(chosen, 1):
        block, status = device_block(number, dev, available_for(images, dev['psid']))
        out += (['\n'] if number > 1 else []) + block
        if status == 'Update required':
            pending.append((number, dev))
    if ('-u' in args or '--update' in args) and pending:
        out += update(devices, pending, images)
    sys.stdout.write(''.join(out))
    return 0


def update(devices, pending, images):
    """``mlxfwmanager -u``: burn each card's image from the bundle; the lines it prints."""
    name = 'mlxfwmanager_update_cx3.txt'
    out = ['\n', line_of(name, '---------\n'), put(line_of(name, 'Found 1 device(s)'), '1', str(len(pending))), '\n']
    for number, dev in pending:
        dev['burned'] = available_for(images, dev['psid'])
        log('mlxfwmanager update %s %s' % (norm(dev['pci']), dev['burned']))
        out += [put(line_of(name, 'Device #1: Updating FW'), '1', str(number)), line_of(name, 'Done')]
    save(devices)
    return out + ['\n', line_of(name, 'Restart needed for updates to take effect.')]


# flint / mstflint -----------------------------------------------------------

def flint_query(tool, dev):
    """``flint -d DEV q`` of a card: the ConnectX-6 Lx query, with FW Version(Running) when a burn waits for a reset."""
    out = []
    for line in fixture_lines('flint_q_cx6lx.txt'):
        line = put(line, '26.33.1048', dev['burned'])
        line = put(line, 'MT_0000000575', dev['psid'])
        for field, recorded in (('base_guid', 'e8ebd3030070cf12'), ('base_mac', 'e8ebd370cf12')):
            line = put(line, recorded, dev.get(field) or recorded)
        out.append(line)
        if line.startswith('FW Version:') and dev['running'] != dev['burned']:
            out.append(put(line_of('flint_q_fs4_running_differs.txt', 'FW Version(Running):'), '20.34.1002', dev['running']))
    return out


def image_query(psid, version):
    """``flint -i IMAGE q``: the recorded image query, the ConnectX-6 Lx's image type."""
    out = []
    for line in fixture_lines('mstflint_i_image_q_cx4lx.txt'):
        if line.startswith('Image type:'):
            line = line_of('flint_q_cx6lx.txt', 'Image type:')
        line = put(line, 'rel-14_32_1912', 'rel-' + version.replace('.', '_'))
        out.append(put(put(line, '14.32.1912', version), 'MT_0000000267', psid))
    return out


def burn_lines(tool, old, new):
    """What flint (or mstflint) prints while burning ``new`` over ``old``."""
    name = 'mstflint_burn_cx4lx.txt' if tool == 'mstflint' else 'flint_burn_cx6_downgrade.txt'
    out = ['\n', put(line_of(name, 'Current FW version on flash:'), '14.32.1900' if tool == 'mstflint' else '20.32.1010', old),
           put(line_of(name, 'New FW version:'), '14.32.1912' if tool == 'mstflint' else '20.29.1016', new), '\n']
    if version_key(new) < version_key(old):
        downgrade = 'flint_burn_cx6_downgrade.txt'
        out += [line_of(downgrade, 'Note: The new FW version is older'), '\n', line_of(downgrade, 'Do you want to continue'), '\n']
    out += [line_of(name, 'FSMST_INITIALIZE'), line_of(name, 'Writing Boot image component')]
    if tool == 'mstflint':
        out.append(line_of(name, 'Restoring signature'))
    return out + [line_of(name, '-I- To load new FW run')]


def flint(args, tool='flint'):
    device, image = option(args, '-d', '--device'), option(args, '-i', '--image')
    words = [a for i, a in enumerate(args) if not a.startswith('-') and (i == 0 or args[i - 1] not in ('-d', '--device', '-i', '--image'))]
    command = words[0] if words else ''
    if command in ('q', 'query') and device:
        sys.stdout.write(''.join(flint_query(tool, find(load(), device))))
        return 0
    images = read_images(image) if image else None
    if command in ('q', 'query') and images:
        sys.stdout.write(''.join(image_query(*images[0])))
        return 0
    if command in ('b', 'burn') and device and images and len(images) == 1:
        return burn(tool, device, images[0])
    if image and not images:
        return 1
    sys.stderr.write('flint emulator: unsupported arguments %s\n' % ' '.join(args))
    return 2


def burn(tool, device, image):
    devices = load()
    dev = find(devices, device)
    psid, version = image
    if psid != dev['psid']:
        text = ''.join(fixture_lines('flint_burn_psid_mismatch.txt'))
        sys.stdout.write(text.replace('LNV0000000025', dev['psid']).replace('MT_0000000158', psid))
        return 1
    sys.stdout.write(''.join(burn_lines(tool, dev['burned'], version)))
    dev['burned'] = version
    save(devices)
    log('flint burn %s %s' % (norm(device), version))
    return 0


# mlxfwreset, mst, openibd, ethtool -----------------------------------------

def mlxfwreset(args):
    if not option(args, '-d', '--device') or not set(args) & set(['reset', 'r']):
        sys.stderr.write('mlxfwreset emulator: unsupported arguments %s\n' % ' '.join(args))
        return 2
    devices = load()
    dev = find(devices, option(args, '-d', '--device'))
    out = []
    for line in fixture_lines('mlxfwreset_reset_cx4.txt'):
        out.append(put(line, '04:00.0', short(dev['pci'])))
    dev['running'] = dev['burned']
    save(devices)
    log('mlxfwreset %s' % norm(dev['pci']))
    sys.stdout.write(''.join(out))
    return 0


def mst_status():
    lines = fixture_lines('mst_status_cx6lx.txt')
    out = lines[:7]
    for index, dev in enumerate(load()):
        out.append(put(lines[7], 'mt4127_pciconf0', 'mt4127_pciconf%d' % index))
        out += [put(lines[8], '0002:01:00.0', norm(dev['pci'])), lines[9]]
    return out


def mst(args):
    if args and args[0] in ('start', 'restart', 'stop'):
        log('mst %s' % args[0])
        # mst restart is stop then start; no public output of a stop that worked is known, so only the start's lines.
        sys.stdout.write('' if args[0] == 'stop' else ''.join(fixture_lines('mst_start_cx6lx.txt')))
        return 0
    if args and args[0] == 'status':
        sys.stdout.write(''.join(mst_status()))
        return 0
    sys.stderr.write('mst emulator: unsupported arguments %s\n' % ' '.join(args))
    return 2


def openibd(args):
    """/etc/init.d/openibd: restart reloads the driver (the running firmware stays what it was)."""
    lines = fixture_lines('openibd_restart.txt')
    parts = {'restart': lines, 'start': lines[1:], 'stop': lines[:1], 'status': []}
    if not args or args[0] not in parts:
        return 1
    if args[0] != 'status':
        log('openibd %s' % args[0])
    sys.stdout.write(''.join(parts[args[0]]))
    return 0


def ethtool(args):
    if len(args) != 2 or args[0] != '-i':
        sys.stderr.write('ethtool emulator: only "ethtool -i IFACE" is emulated\n')
        return 2
    for dev in load():
        if dev.get('netdev') == args[1]:
            text = ''.join(fixture_lines('ethtool_i_mlx5_core_legacy.txt'))
            text = re.sub(r'^firmware-version: .*$', 'firmware-version: %s (%s)' % (dev['running'], dev['psid']), text, flags=re.M)
            text = re.sub(r'^bus-info: .*$', 'bus-info: %s' % norm(dev['pci']), text, flags=re.M)
            sys.stdout.write(text)
            return 0
    sys.stderr.write(''.join(fixture_lines(os.path.join('..', 'unit', 'plugins', 'modules', 'fixtures', 'ddp', 'ethtool_i_no_such_device_stderr.txt'))))
    return 71


TOOLS = {
    'mlxfwmanager': mlxfwmanager,
    'flint': flint,
    'mstflint': lambda args: flint(args, 'mstflint'),
    'mlxfwreset': mlxfwreset,
    'ethtool': ethtool,
    'mst': mst,
    'openibd': openibd,
}


def main(argv):
    tool = argv[1]
    if tool in os.environ.get('MLNX_EMU_FAIL', '').split(','):
        if tool in ('flint', 'mstflint'):
            cannot_open(option(argv[2:], '-d', '--device') or '')
        return 1
    return TOOLS[tool](argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
