# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the sriov_switchdev role: the order of the steps on a PF,
the VF MAC table, the representors and the NetworkManager keyfile."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.offload.testbed.plugins.module_utils import parsers

MAC_RE = re.compile(r'^[0-9a-f]{2}(:[0-9a-f]{2}){5}$')


def normalize_macs(vf_macs, numvfs, name='sriov_switchdev_vf_macs'):
    """``{index: mac}`` (keys may be strings) -> ``({int: lower mac}, errors)``."""
    macs = {}
    errors = []
    for key, mac in (vf_macs or {}).items():
        try:
            index = int(key)
        except (TypeError, ValueError):
            errors.append('%s: key %r is not a VF index' % (name, key))
            continue
        mac = str(mac).strip().lower()
        if not MAC_RE.match(mac):
            errors.append('%s[%d]: %r is not a MAC address such as 50:54:00:00:00:06' % (name, index, mac))
        elif int(mac[:2], 16) & 1:
            errors.append('%s[%d]: %s is a multicast address; a VF needs a unicast MAC (even first byte)' % (name, index, mac))
        if index < 0 or index >= numvfs:
            errors.append('%s[%d]: VF %d does not exist with %d VFs (indexes 0..%d)' % (name, index, index, numvfs, numvfs - 1))
        macs[index] = mac
    seen = {}
    for index, mac in sorted(macs.items()):
        if mac in seen:
            errors.append('%s: VFs %d and %d have the same MAC %s' % (name, seen[mac], index, mac))
        seen.setdefault(mac, index)
    return macs, errors


def eswitch_mode(handle, text, is_json):
    """The ``mode`` of ``handle`` from ``devlink [-j] dev eswitch show``, or None."""
    table = parsers.parse_devlink_eswitch_json(text) if is_json else parsers.parse_devlink_eswitch(text)
    return (table.get(handle) or {}).get('mode')


def looks_like_json(text):
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def plan_eswitch(mode, numvfs, want_numvfs, want_mode='switchdev'):
    """The ordered steps that put a PF in ``want_mode`` with ``want_numvfs`` VFs.

    The eswitch mode can only change with no VF (mlx5 answers "device busy"),
    and the VF count only from or to 0, so: VFs to 0, mode, VFs to N.
    Returns a list of ``("numvfs", n)`` / ``("mode", m)``.
    """
    steps = []
    if mode == want_mode and numvfs == want_numvfs:
        return steps
    if numvfs != 0:
        steps.append(('numvfs', 0))
    if mode != want_mode:
        steps.append(('mode', want_mode))
    if want_numvfs:
        steps.append(('numvfs', want_numvfs))
    return steps


def vf_table(link_json):
    """``{vf index: mac}`` of a PF from ``ip -j link show dev PF`` (``vfinfo_list``)."""
    try:
        links = json.loads(link_json)
    except ValueError:
        return {}
    result = {}
    for link in links if isinstance(links, list) else []:
        for vf in link.get('vfinfo_list') or []:
            if 'vf' in vf:
                result[int(vf['vf'])] = (vf.get('address') or '').lower()
    return result


def link_state(link_json):
    """``{"address", "up"}`` of the first link in ``ip -j link show dev X``, or None."""
    try:
        links = json.loads(link_json)
    except ValueError:
        return None
    if not isinstance(links, list) or not links:
        return None
    link = links[0]
    return {'address': (link.get('address') or '').lower(), 'up': 'UP' in (link.get('flags') or [])}


def representors(ports, pf_handle, numvfs):
    """``{vf index: netdev}`` of the PF's VF representors among ``devlink port show`` ports.

    A representor port is ``<pf handle>/<n>`` with ``flavour pcivf``.
    """
    result = {}
    for port in ports:
        if port.get('flavour') != 'pcivf' or not str(port.get('handle', '')).startswith(pf_handle + '/'):
            continue
        vfnum = port.get('vfnum')
        if vfnum is not None and vfnum < numvfs and port.get('netdev'):
            result[vfnum] = port['netdev']
    return result


def pf_stem(pf):
    """``ens3f0np0`` -> ``ens3f0``: the prefix its VFs (``ens3f0v0``) and representors (``ens3f0npf0vf0``) share."""
    return re.sub(r'np\d+$', '', pf)


def request_errors(pfs, numvfs, vf_macs):
    """Meaning checks of the role's variables, before anything changes.

    ``pfs`` is ``sriov_switchdev_pfs``; a PF without ``numvfs``/``vf_macs``
    takes ``numvfs``/``vf_macs``. Returns messages naming the variable.
    """
    errors = []
    if not pfs:
        errors.append('sriov_switchdev_pfs is empty; list the PFs, for example [{name: ens3f0np0, pci: "0000:32:00.0"}]')
    names = set()
    for i, pf in enumerate(pfs or []):
        where = 'sriov_switchdev_pfs[%d]' % i
        name = (pf or {}).get('name')
        if not name:
            errors.append('%s has no name' % where)
            continue
        if name in names:
            errors.append('%s: PF %s is listed twice' % (where, name))
        names.add(name)
        count = pf.get('numvfs')
        count = numvfs if count is None else count
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            errors.append('%s.numvfs (or sriov_switchdev_numvfs): %r is not a VF count' % (where, count))
            continue
        macs = pf.get('vf_macs')
        label = '%s.vf_macs' % where if macs is not None else 'sriov_switchdev_vf_macs (for %s)' % name
        unused, mac_errors = normalize_macs(vf_macs if macs is None else macs, count, label)
        errors.extend(mac_errors)
    return errors
