"""Emulator of the NVIDIA/Mellanox firmware tools for tests.

Called by the wrappers next to it as ``mlnx_emu.py TOOL ARGS...`` for
``mlxfwmanager``, ``flint``, ``mstflint``, ``mlxfwreset``, ``ethtool`` and
``mst``. It prints the verbatim outputs in ``tests/fixtures`` with the
values of the emulated cards put in, and keeps the cards in
``$MLNX_EMU_STATE/devices.json``::

    [{"pci": "0000:32:00.0", "psid": "LNV0000000033", "burned": "26.43.1014",
      "running": "26.43.1014", "netdev": "ens3f0np0"}]

Burning changes ``burned`` and leaves ``running`` until ``mlxfwreset``.
A firmware image is a text file with ``PSID: ...`` and ``FW Version: ...``
lines (real images are binary; ``flint -i IMAGE q`` prints those two).
Every call that changes something is appended to ``$MLNX_EMU_STATE/calls.log``;
queries write nothing. ``MLNX_EMU_FAIL=mlxfwmanager,flint`` makes those tools
fail as if they could not open the device (the module then falls back to
flint, ethtool -i and sysfs).
Tools print nothing on success where no verbatim output exists.
"""
import json
import os
import re
import sys

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


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


def find(devices, pci):
    for dev in devices:
        if norm(dev['pci']) == norm(pci):
            return dev
    sys.stderr.write('-E- Cannot open Device: %s. No such file or directory. MFE_CR_ERROR\n' % pci)
    sys.exit(1)


def read_image(path):
    facts = {}
    try:
        with open(path) as handle:
            for line in handle:
                if ':' in line:
                    key, value = line.split(':', 1)
                    facts[key.strip()] = value.strip()
    except (IOError, OSError):
        sys.stderr.write('-E- Cannot open %s: No such file or directory\n' % path)
        sys.exit(1)
    return facts


def sub_value(text, key, value):
    """Replace the value of ``key:`` keeping the column layout."""
    pattern = re.compile(r'^(?P<head>\s*%s:\s*)\S.*$' % re.escape(key), re.M)
    return pattern.sub(lambda m: m.group('head') + value, text, count=1)


def mlxfwmanager(args):
    devices = load()
    if '-d' in args:
        devices = [find(devices, args[args.index('-d') + 1])]
    text = fixture('mlxfwmanager_query_cx6dx_running_differs.txt')
    head, block = text.split('Device #1:', 1)
    out = []
    for number, dev in enumerate(devices, 1):
        body = block
        for key, field in (('Device Type', 'device_type'), ('Part Number', 'part_number'), ('Description', 'description'),
                           ('Base GUID', 'base_guid'), ('Base MAC', 'base_mac')):
            if dev.get(field):
                body = sub_value(body, key, dev[field])
        body = sub_value(body, 'PSID', dev['psid'])
        short = norm(dev['pci'])[5:] if norm(dev['pci']).startswith('0000:') else dev['pci']
        body = sub_value(body, 'PCI Device Name', short)
        body = re.sub(r'^(\s*FW\s+)\S+', lambda m: m.group(1) + dev['burned'], body, count=1, flags=re.M)
        if dev['running'] == dev['burned']:
            body = re.sub(r'^\s*FW \(Running\).*\n', '', body, flags=re.M)
        else:
            body = re.sub(r'^(\s*FW \(Running\)\s+)\S+', lambda m: m.group(1) + dev['running'], body, count=1, flags=re.M)
        out.append('Device #%d:%s' % (number, body.rstrip('\n') + '\n'))
    sys.stdout.write(head + '\n'.join(out))
    return 0


def flint_query(version, psid, running=None):
    text = fixture('flint_q_bluefield2.txt')
    text = sub_value(text, 'FW Version', version)
    text = sub_value(text, 'Product Version', version)
    text = sub_value(text, 'PSID', psid)
    if running and running != version:
        text = re.sub(r'^(FW Version:.*\n)', lambda m: m.group(1) + 'FW Version(Running):   %s\n' % running, text, count=1, flags=re.M)
    return text


def flint(args):
    device = args[args.index('-d') + 1] if '-d' in args else None
    image = args[args.index('-i') + 1] if '-i' in args else None
    command = [a for i, a in enumerate(args) if not a.startswith('-') and (i == 0 or args[i - 1] not in ('-d', '-i'))]
    command = command[0] if command else ''
    if command in ('q', 'query'):
        if device:
            dev = find(load(), device)
            sys.stdout.write(flint_query(dev['burned'], dev['psid'], dev['running']))
            return 0
        if image:
            facts = read_image(image)
            sys.stdout.write(flint_query(facts['FW Version'], facts['PSID']))
            return 0
    if command in ('b', 'burn') and device and image:
        devices = load()
        dev = find(devices, device)
        facts = read_image(image)
        if facts['PSID'] != dev['psid']:
            text = fixture('flint_burn_psid_mismatch.txt')
            text = text.replace('LNV0000000025', dev['psid']).replace('MT_0000000158', facts['PSID'])
            sys.stdout.write(text)
            return 1
        dev['burned'] = facts['FW Version']
        save(devices)
        log('flint burn %s %s' % (norm(device), facts['FW Version']))
        return 0
    sys.stderr.write('flint emulator: unsupported arguments %s\n' % ' '.join(args))
    return 2


def mlxfwreset(args):
    if '-d' not in args or 'reset' not in args:
        sys.stderr.write('mlxfwreset emulator: unsupported arguments %s\n' % ' '.join(args))
        return 2
    devices = load()
    dev = find(devices, args[args.index('-d') + 1])
    dev['running'] = dev['burned']
    save(devices)
    log('mlxfwreset %s' % norm(dev['pci']))
    return 0


def ethtool(args):
    if len(args) != 2 or args[0] != '-i':
        sys.stderr.write('ethtool emulator: only "ethtool -i IFACE" is emulated\n')
        return 2
    for dev in load():
        if dev.get('netdev') == args[1]:
            text = fixture('ethtool_i_mlx5_core_legacy.txt')
            text = re.sub(r'^firmware-version: .*$', 'firmware-version: %s (%s)' % (dev['running'], dev['psid']), text, flags=re.M)
            text = re.sub(r'^bus-info: .*$', 'bus-info: %s' % norm(dev['pci']), text, flags=re.M)
            sys.stdout.write(text)
            return 0
    sys.stderr.write('Cannot get driver information: No such device\n')
    return 71


def mst(args):
    if args and args[0] in ('start', 'restart', 'stop'):
        log('mst %s' % args[0])
        return 0
    if args and args[0] == 'status':
        return 0
    sys.stderr.write('mst emulator: unsupported arguments %s\n' % ' '.join(args))
    return 2


TOOLS = {
    'mlxfwmanager': mlxfwmanager,
    'flint': flint,
    'mstflint': flint,
    'mlxfwreset': mlxfwreset,
    'ethtool': ethtool,
    'mst': mst,
}


def main(argv):
    tool = argv[1]
    if tool in os.environ.get('MLNX_EMU_FAIL', '').split(','):
        sys.stderr.write('-E- Cannot open Device: emulated failure of %s. MFE_CR_ERROR\n' % tool)
        return 1
    return TOOLS[tool](argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
