# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the ``ddp_profile`` module: Dynamic Device Personalization
(DDP) profiles of Intel Ethernet 700-series ports (the ``i40e`` driver).

- :func:`read_package` reads the name, track id and version of a DDP package
  (``.pkgo``) from its header, with the layout of the driver's own structures
  (``struct i40e_package_header``, ``i40e_metadata_segment`` and
  ``i40e_profile_segment`` of ``drivers/net/ethernet/intel/i40e/i40e_type.h``);
  the driver reads the same fields when it loads it (``i40e_ddp_load`` in
  ``i40e_ddp.c``).
- :func:`parse_ddptool` reads the table Intel's ``ddptool`` prints of the
  profiles loaded per PCI function.
- :func:`i40e_firmware` splits the ``firmware-version`` of ``ethtool -i`` of an
  i40e port (``7.00 0x80004cda 1.2154.0``: NVM version, eetrack, combo version).
- :func:`plan` decides what ``ethtool -f`` has to do: load, keep, roll back or refuse.

Nothing here runs a command. The texts are those of the fixtures in
``tests/unit/plugins/modules/fixtures/ddp`` (their README names the sources).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import struct

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, na

# i40e_ddp.c: the flash region of ethtool -f that means "DDP", where the driver
# looks for the file (request_firmware, under the firmware search path), and the
# longest name it takes (I40E_DDP_PROFILE_NAME_MAX, 64 with the final NUL).
REGION = '100'
FIRMWARE_SUBDIR = 'intel/i40e/ddp'
NAME_MAX = 63
# i40e_type.h
SEGMENT_TYPE_METADATA = 0x00000001
SEGMENT_TYPE_I40E = 0x00000011
NAME_SIZE = 32
GENERIC_HEADER = 44  # u32 type, 4-byte version, u32 size, char name[32]
# What the driver prints (netdev_err, in the kernel log) when it refuses an
# ethtool -f; ethtool itself only prints "Flashing failed: " and strerror.
DRIVER_MESSAGES = (
    'DDP recipe file request failed.',
    'DDP profile already loaded.',
    'DDP profile overlaps with existing one.',
    'DDP profile for deletion does not exist.',
    'Profile is not supported by the device.',
    'Any DDP operation is allowed only on Phy0 NIC interface',
    'There is no DDP profile to restore.',
)
# ddptool's README.txt, EXIT CODES.
DDPTOOL_EXIT = {
    1: 'Bad command line parameter',
    2: 'An Internal error has occurred',
    3: 'Insufficient privileges to run the tool',
    4: 'No supported adapter found',
    5: 'No driver available',
    6: 'Unsupported base driver version',
    7: 'Cannot communicate with one or more adapters',
    8: 'Lack of DDP profiles on all devices',
    9: 'Cannot read all information from one or more devices',
    10: 'Cannot create output file',
    11: 'Cannot find specific devices',
    12: 'Cannot parse the DDP package file',
}
# The minimum NVM for DDP (DPDK's i40e guide: "requires a NIC firmware version of 6.0 or greater").
NVM_MIN = (6, 0)


def _cstring(data):
    return data.split(b'\0', 1)[0].decode('ascii', 'replace').strip()


def _version(data):
    return '%d.%d.%d.%d' % struct.unpack('<4B', data)


def _segment(data, offsets, kind):
    for offset in offsets:
        if offset + GENERIC_HEADER <= len(data) and struct.unpack_from('<I', data, offset)[0] == kind:
            return offset
    return None


def read_package(data):
    """A DDP package's bytes -> ``{name, track_id, version}``, or ``(None, why)``.

    ``track_id`` is 8 upper-case hex digits as ``ddptool`` prints it
    (``80000008``); ``name`` is the profile segment's, the one the driver
    records as loaded; the package header's major version must be 0.
    """
    if len(data) < 12:
        return None, 'it has %d bytes, too few for a DDP package header' % len(data)
    major = struct.unpack_from('<B', data, 0)[0]
    count = struct.unpack_from('<I', data, 4)[0]
    if major > 0:
        return None, 'its package version %s is not one the i40e driver takes (major 0)' % _version(data[0:4])
    if 8 + 4 * count > len(data) or count > 64:
        return None, 'its header lists %d segments, more than its %d bytes hold' % (count, len(data))
    offsets = struct.unpack_from('<%dI' % count, data, 8)
    meta = _segment(data, offsets, SEGMENT_TYPE_METADATA)
    profile = _segment(data, offsets, SEGMENT_TYPE_I40E)
    if meta is None or meta + 52 + NAME_SIZE > len(data):
        return None, 'it has no metadata segment (no track id)'
    if profile is None or profile + 48 + NAME_SIZE > len(data):
        return None, 'it has no i40e profile segment (an X722 or 800-series package?)'
    return {
        'name': _cstring(data[profile + 48:profile + 48 + NAME_SIZE]),
        'track_id': '%08X' % struct.unpack_from('<I', data, meta + 48)[0],
        'version': _version(data[profile + 44:profile + 48]),
    }, None


def group(track_id):
    """The profile group of a track id (bits 16..23): 0 is exclusive, 0xFF goes with anything (i40e_ddp_profiles_overlap)."""
    return (int(track_id, 16) >> 16) & 0xFF


def _columns(ruler):
    return [match.start() for match in re.finditer(r'=+', ruler)]


def parse_table(text):
    """A ``ddptool`` table (a header line, a ruler of ``=`` groups, rows) -> list of ``{header: value}``.

    Columns are cut where the ruler's groups start; the last one runs to the
    end of the line (profile names have spaces). Lines before the header
    (the banner) and blank lines are skipped.
    """
    rows, starts, header = [], None, None
    previous = ''
    for line in lines(text):
        if starts is None:
            if line.strip() and set(line.strip()) <= set('= '):
                starts = _columns(line)
                header = [previous[start:end].strip() for start, end in zip(starts, starts[1:] + [None])]
            previous = line
            continue
        if not line.strip():
            continue
        rows.append(dict(zip(header, [line[start:end].strip() for start, end in zip(starts, starts[1:] + [None])])))
    return rows


def parse_ddptool(text):
    """``ddptool`` / ``ddptool -a`` / ``ddptool -s PCI`` -> one entry per PCI function.

    Each is ``{pci, device_id, netdev, profile}``; ``profile`` is
    ``{track_id, version, name}``, or ``None`` where the row has ``-`` (then
    ``status`` is what the name column says: ``No profile loaded``,
    ``Unsupported FW version``).
    """
    found = []
    for row in parse_table(text):
        if 'D:B:S.F' not in row:
            continue
        entry = {'pci': row['D:B:S.F'].lower(), 'device_id': row.get('DevId'), 'netdev': na(row.get('DevName')),
                 'profile': None, 'status': None}
        if row.get('TrackId', '-') in ('-', ''):
            entry['status'] = row.get('Name')
        else:
            entry['profile'] = {'track_id': row['TrackId'].upper(), 'version': row.get('Version'), 'name': row.get('Name')}
        found.append(entry)
    return found


def i40e_firmware(firmware_version):
    """``7.00 0x80004cda 1.2154.0`` -> ``{nvm, eetrack, combo}`` (``None`` where absent)."""
    words = (firmware_version or '').split()
    words += [None] * (3 - len(words))
    return {'nvm': words[0], 'eetrack': words[1], 'combo': words[2]}


def nvm_too_old(nvm):
    """Whether an NVM version (``7.00``) is older than DDP needs; unknown is not too old."""
    match = re.match(r'^(\d+)\.(\d+)', nvm or '')
    return bool(match) and (int(match.group(1)), int(match.group(2))) < NVM_MIN


def pf0(pci):
    """The PCI address of function 0 of the same device (the one DDP takes)."""
    return re.sub(r'\.[0-7]$', '.0', pci)


def describe(profile):
    """``'NAME' (track id X, version V)`` or ``no profile``."""
    if not profile:
        return 'no profile'
    return "'%s' (track id %s, version %s)" % (profile['name'], profile['track_id'], profile['version'])


def plan(state, loaded, package):
    """``(action, conflict)``: action ``load``, ``rollback`` or ``keep``; conflict a reason or ``None``.

    ``loaded`` is the profile on the port (``None`` for none), ``package``
    the one asked for (``None`` for any, with ``state: absent``). The
    700-series keeps the profiles of most groups exclusive and this module
    takes one profile a port: a different loaded profile must be rolled
    back first, and ``ethtool -f DEV - 100`` only rolls back the last one.
    """
    same = bool(loaded and package and loaded['track_id'] == package['track_id'])
    if state == 'present':
        if same:
            return 'keep', None
        if loaded:
            return 'keep', 'other'
        return 'load', None
    if not loaded:
        return 'keep', None
    if package and not same:
        return 'keep', 'other'
    return 'rollback', None
