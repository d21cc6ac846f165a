"""Emulator of the tools of Intel 700-series DDP profiles for tests.

Called by the wrappers next to it as ``ddp_emu.py TOOL ARGS...`` for
``ethtool`` (``-i DEV`` and ``-f DEV FILE|- 100``) and ``ddptool``
(``-s PCI``, ``-a``, no argument). Keeps the ports and the profiles of each
adapter in ``$DDP_EMU_STATE/ports.json``::

    {"ports": [{"netdev": "enp2s0f0", "pci": "0000:02:00.0", "device_id": "1572",
                "driver": "i40e", "firmware": "7.00 0x80004cda 1.2154.0"}],
     "adapters": {"0000:02:00": {"profiles": [], "rollback": []}}}

A profile belongs to the adapter (``ddptool`` lists it on every function), as
on the hardware. ``ethtool -f`` follows the i40e driver's ``i40e_ddp_flash``:
region 100 only, function 0 only, the file from ``$DDP_EMU_FIRMWARE`` (the
emulated ``/lib/firmware/intel/i40e/ddp``), read with the header layout of
``i40e_type.h``; a profile already loaded or of an overlapping group is
refused; ``-`` rolls back the last load, from the copy kept since it (none
after ``ddp_emu.py driver-reload``). A refusal prints what ethtool prints
(``Flashing failed: `` and strerror, rc 255) and appends the driver's message
to ``$DDP_EMU_STATE/kern.log`` as netdev_err writes it. Every change is
appended to ``$DDP_EMU_STATE/calls.log``; queries write nothing. A port that
is not in ``ports.json`` goes to the ConnectX emulator (``../mlnx/ethtool``)
when ``$MLNX_EMU_STATE`` is set.

The texts are the fixtures of ``tests/unit/plugins/modules/fixtures/ddp``
(their README names the sources). Also: ``ddp_emu.py make-package PATH NAME
TRACK_ID VERSION`` writes a (tiny, synthetic) package with that header, and
``ddp_emu.py make-world STATE FIRMWARE CONTROLLER [MLNX_STATE]`` an X710 with
four ports, on the "controller" an MPLSoUDP/GRE and a GTP package, and (with
MLNX_STATE) a ConnectX card for the ConnectX emulator (a port that is no i40e).
``ddp_emu.py driver-reload`` makes the driver forget its rollback copies.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import recorded  # noqa: E402  pylint: disable=wrong-import-position

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', '..', 'unit', 'plugins', 'modules', 'fixtures', 'ddp')
BANNER = 'ddptool_readme_1.0.1.4.txt'
EINVAL, ENOENT = 'Invalid argument', 'No such file or directory'


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def state_path(name):
    root = os.environ.get('DDP_EMU_STATE')
    if not root:
        sys.stderr.write('DDP_EMU_STATE is not set\n')
        sys.exit(2)
    return os.path.join(root, name)


def load():
    with open(state_path('ports.json')) as handle:
        return json.load(handle)


def save(world):
    path = state_path('ports.json')
    with open(path + '.tmp', 'w') as handle:
        json.dump(world, handle, indent=1, sort_keys=True)
    os.rename(path + '.tmp', path)


def append(name, line):
    with open(state_path(name), 'a') as handle:
        handle.write(line + '\n')


def port_of(world, netdev):
    for port in world['ports']:
        if port['netdev'] == netdev:
            return port
    return None


def adapter(world, port):
    return world['adapters'].setdefault(port['pci'].rsplit('.', 1)[0], {'profiles': [], 'rollback': []})


def read_header(data):
    """The package's {track_id, version, name} (i40e_type.h layout), or None."""
    try:
        count = struct.unpack_from('<I', data, 4)[0]
        offsets = struct.unpack_from('<%dI' % count, data, 8)
        kinds = dict((struct.unpack_from('<I', data, offset)[0], offset) for offset in offsets)
        meta, prof = kinds[0x1], kinds[0x11]
        return {'track_id': '%08X' % struct.unpack_from('<I', data, meta + 48)[0],
                'version': '%d.%d.%d.%d' % struct.unpack_from('<4B', data, prof + 44),
                'name': data[prof + 48:prof + 80].split(b'\0', 1)[0].decode('ascii')}
    except (struct.error, KeyError, UnicodeDecodeError):
        return None


def overlaps(new, old):
    """i40e_ddp_profiles_overlap."""
    group_new, group_old = (int(new['track_id'], 16) >> 16) & 0xFF, (int(old['track_id'], 16) >> 16) & 0xFF
    if group_new == 0:
        return True
    if 0xFF in (group_new, group_old):
        return False
    return group_new != group_old


def refuse(port, message, error):
    append('kern.log', 'i40e %s %s: %s' % (port['pci'], port['netdev'], message))
    sys.stderr.write('Flashing failed: %s\n' % error)
    return 255


def load_profile(world, port, name):
    path = os.path.join(os.environ.get('DDP_EMU_FIRMWARE', '/nonexistent'), name)
    if not os.path.isfile(path):
        return refuse(port, 'DDP recipe file request failed.', ENOENT)
    with open(path, 'rb') as handle:
        profile = read_header(handle.read())
    if profile is None:
        return refuse(port, 'Failed to find metadata segment in DDP recipe.', EINVAL)
    loaded = adapter(world, port)
    if profile in loaded['profiles']:
        return refuse(port, 'DDP profile already loaded.', EINVAL)
    if any(overlaps(profile, old) for old in loaded['profiles']):
        return refuse(port, 'DDP profile overlaps with existing one.', EINVAL)
    loaded['profiles'].append(profile)
    loaded['rollback'].append(profile)
    save(world)
    append('calls.log', 'ethtool -f %s %s 100' % (port['netdev'], name))
    return 0


def rollback(world, port):
    loaded = adapter(world, port)
    if not loaded['rollback']:
        append('kern.log', 'i40e %s %s: There is no DDP profile to restore.' % (port['pci'], port['netdev']))
        sys.stderr.write('Flashing failed: %s\n' % ENOENT)
        return 255
    profile = loaded['rollback'].pop()
    if profile not in loaded['profiles']:
        save(world)
        return refuse(port, 'DDP profile for deletion does not exist.', EINVAL)
    loaded['profiles'].remove(profile)
    save(world)
    append('calls.log', 'ethtool -f %s - 100' % port['netdev'])
    return 0


def flash(world, args):
    if len(args) != 3:
        sys.stderr.write('ethtool emulator: only "ethtool -f DEV FILE 100" is emulated\n')
        return 2
    port = port_of(world, args[0])
    if port is None:
        sys.stderr.write('Flashing failed: No such device\n')
        return 255
    if args[2] != '100':
        return refuse(port, 'Requested firmware region is not recognized by this driver.', EINVAL)
    if not port['pci'].endswith('.0'):
        return refuse(port, 'Any DDP operation is allowed only on Phy0 NIC interface', EINVAL)
    return rollback(world, port) if args[1] == '-' else load_profile(world, port, args[1])


def ethtool(args):
    world = load()
    if len(args) == 2 and args[0] == '-i' and port_of(world, args[1]):
        port = port_of(world, args[1])
        lines = []
        for line in fixture('ethtool_i_i40e_sriovdp.txt').splitlines():
            key = line.split(':', 1)[0]
            value = {'driver': port['driver'], 'firmware-version': port['firmware'], 'bus-info': port['pci']}.get(key)
            lines.append('%s: %s' % (key, value) if value else line)
        sys.stdout.write('\n'.join(lines) + '\n')
        return 0
    if len(args) >= 1 and args[0] == '-f':
        return flash(world, args[1:])
    if os.environ.get('MLNX_EMU_STATE'):
        os.execv(os.path.join(HERE, '..', 'mlnx', 'ethtool'), ['ethtool'] + args)
    if len(args) == 2 and args[0] == '-i':
        sys.stderr.write(fixture('ethtool_i_no_such_device_stderr.txt'))
        return 71
    sys.stderr.write('ethtool emulator: unsupported arguments %s\n' % ' '.join(args))
    return 2


def ddptool_row(number, port, profile):
    """A row of the README's table with the port's values: a GTP row for a loaded profile, the
    ``No profile loaded`` row otherwise, numbered as that ddptool numbers (``01)``)."""
    text = fixture(BANNER).splitlines()
    rule = [line for line in text if line.startswith('====')][0]
    if profile:
        template = [line for line in text if line.endswith(' payload')][0]
        values = [None, port['device_id'], port['pci'], port['netdev'] or 'N/A', profile['track_id'], profile['version'], profile['name']]
    else:
        template = [line for line in text if line.endswith(' No profile loaded')][0]
        values = [None, port['device_id'], port['pci'], port['netdev'] or 'N/A', None, None, None]
    values[0] = '%02d)' % number
    return recorded.columns(rule, template, values)


def ddptool(args):
    world = load()
    text = fixture(BANNER)
    head = text[:text.index('01)')]
    if args[:1] == ['-s'] and len(args) == 2:
        ports = [port for port in world['ports'] if port['pci'] == args[1].lower()]
        if not ports:
            sys.stdout.write(head.split('NIC ')[0])
            return 11
    elif args in ([], ['-a']):
        ports = world['ports']
    else:
        sys.stderr.write('ddptool emulator: only -s PCI, -a and no argument are emulated\n')
        return 1
    rows = []
    for number, port in enumerate(ports, 1):
        profiles = adapter(world, port)['profiles']
        rows.append(ddptool_row(number, port, profiles[-1] if profiles else None))
    sys.stdout.write(head + '\n'.join(rows) + '\n')
    return 0


def make_package(path, name, track_id, version):
    """A package header as i40e_type.h lays it out: a metadata segment (track id) and an i40e profile segment (name, version)."""
    major, minor, update, draft = [int(part) for part in version.split('.')]
    meta = struct.pack('<I4sI32s4sI32s', 0x1, b'\0' * 4, 84, b'metadata', b'\0' * 4, int(track_id, 16), name.encode('ascii'))
    prof = struct.pack('<I4sI32s4B32sIII', 0x11, b'\0' * 4, 92, b'i40e', major, minor, update, draft, name.encode('ascii'), 1, 0x80861572, 0)
    data = struct.pack('<4sI2I', b'\0' * 4, 2, 16, 112) + meta + b'\0' * (112 - 16 - len(meta)) + prof
    with open(path, 'wb') as handle:
        handle.write(data)


def make_world(state, firmware, controller, mlnx_state=None):
    for path in (state, firmware, controller) + ((mlnx_state,) if mlnx_state else ()):
        if not os.path.isdir(path):
            os.makedirs(path)
    ports = [{'netdev': 'enp2s0f%d' % f, 'pci': '0000:02:00.%d' % f, 'device_id': '1572', 'driver': 'i40e',
              'firmware': '7.00 0x80004cda 1.2154.0'} for f in range(4)]
    with open(os.path.join(state, 'ports.json'), 'w') as handle:
        json.dump({'ports': ports, 'adapters': {}}, handle, indent=1, sort_keys=True)
    if mlnx_state:
        card = {'pci': '0000:32:00.0', 'psid': 'LNV0000000033', 'burned': '26.43.1014', 'running': '26.43.1014', 'netdev': 'ens3f0np0'}
        with open(os.path.join(mlnx_state, 'devices.json'), 'w') as handle:
            json.dump([card], handle, indent=1, sort_keys=True)
    make_package(os.path.join(controller, 'mplsogreudp.pkgo'), 'MPLSoUDP/GRE tunnels demo', 'DE010001', '1.0.0.0')
    make_package(os.path.join(controller, 'gtp.pkgo'), 'GTPv1-C/U IPv4/IPv6 payload', '80000008', '1.0.3.0')


def driver_reload():
    """The driver forgets its rollback copies (rmmod/modprobe i40e); the adapters keep their profiles."""
    world = load()
    for loaded in world['adapters'].values():
        loaded['rollback'] = []
    save(world)
    append('calls.log', 'driver-reload')


def main(argv):
    tool, args = argv[1], argv[2:]
    if tool == 'make-package':
        make_package(*args)
        return 0
    if tool == 'make-world':
        make_world(*args)
        return 0
    if tool == 'driver-reload':
        driver_reload()
        return 0
    return {'ethtool': ethtool, 'ddptool': ddptool}[tool](args)


if __name__ == '__main__':
    sys.exit(main(sys.argv))
