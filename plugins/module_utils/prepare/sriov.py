# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the sriov_switchdev role: the checks of a request against
the host, the order of the steps on a PF, the VF MAC table, the
representors and the NetworkManager keyfile."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import parse_devlink_eswitch, parse_devlink_eswitch_json

# How sriov_pf's messages name its options when it runs alone; the role passes
# the names of its variables instead (sriov_switchdev_pfs[0].pci, ...).
TIMEOUT_MAX = 3600
# Prefixes of a NetworkManager device spec (NetworkManager.conf(5), "Device List Format").
NM_SPEC_PREFIXES = ('interface-name', 'mac', 'type', 'driver', 'dhcp-plugin', 's390-subchannels', 'except', 'path')


def mac_table(vf_macs, numvfs, name='vf_macs', numvfs_name='numvfs'):
    """``{index: mac}`` (keys may be strings) -> ``({int: lower mac}, errors)``.

    Each MAC follows ``validate.mac_address``; an index must be one of the
    ``numvfs`` VFs; no two VFs share a MAC. ``name`` and ``numvfs_name`` are
    the variables as the user wrote them.
    """
    macs, errors = {}, []
    if not isinstance(vf_macs, dict):
        return macs, ['%s: %s is not a table of VF index: MAC; write for example {0: "50:54:00:00:00:06"}' % (name, validate.show(vf_macs))]
    for key, mac in vf_macs.items():
        try:
            index = int(key)
        except (TypeError, ValueError):
            errors.append('%s: key %s is not a VF index; the keys are VF numbers 0..%d' % (name, validate.show(key), max(numvfs - 1, 0)))
            continue
        where = '%s[%d]' % (name, index)
        problem = validate.mac_address(where, mac)
        if problem:
            errors.append(problem)
        if index < 0 or index >= numvfs:
            fix = 'use an index 0..%d or raise %s' % (numvfs - 1, numvfs_name) if numvfs > 0 else 'remove it or raise %s' % numvfs_name
            errors.append('%s: VF %d does not exist with %d VFs (%s); %s' % (where, index, numvfs, numvfs_name, fix))
        if not problem:
            macs[index] = mac.lower()
    seen = {}
    for index, mac in sorted(macs.items()):
        if mac in seen:
            errors.append('%s: VFs %d and %d have the same MAC %s; give each VF its own' % (name, seen[mac], index, mac))
        seen.setdefault(mac, index)
    return macs, errors


def _pf_name_errors(want, host, n):
    pf = want.get('pf')
    problem = validate.interface_name(n('pf'), pf, 'the PF (its netdev)')
    if problem:
        return [problem]
    if host.get('pf_pci') is None:
        known = ', '.join(sorted(host.get('pfs') or {})) or 'none found'
        at = ' (%s is %s)' % (want.get('pci'), ' '.join(host['pci_netdevs'])) if host.get('pci_netdevs') else ''
        return ['%s: %s is no network device on this host (nothing at %s)%s; write the netdev name of the PF '
                '(its SR-IOV PFs: %s; ip -br link lists the netdevs)' % (n('pf'), validate.show(pf), host.get('pf_path'), at, known)]
    if host.get('pf_totalvfs') is None:
        known = ', '.join(sorted(host.get('pfs') or {})) or 'none found'
        return ['%s: %s is not an SR-IOV PF (its device %s has no sriov_totalvfs); write the name of a PF '
                '(this host has %s)' % (n('pf'), validate.show(pf), host['pf_pci'], known)]
    return []


def _pci_errors(want, host, n):
    pci = want.get('pci')
    if pci is None:
        return []
    problem = validate.pci_address(n('pci'), pci)
    if problem:
        return [problem]
    if host.get('pf_pci') and pci.lower() != host['pf_pci'].lower():
        return ['%s: %s is not the PCI address of %s (sysfs has %s); write "%s" or leave it unset'
                % (n('pci'), validate.show(pci), want.get('pf'), host['pf_pci'], host['pf_pci'])]
    if not host.get('pf_pci') and not host.get('pci_exists'):
        return ['%s: there is no PCI device %s on this host (nothing at %s); write the PF\'s address as lspci -D shows it'
                % (n('pci'), validate.show(pci), host.get('pci_path'))]
    return []


def _numvfs_errors(want, host, n):
    numvfs, total = want.get('numvfs'), host.get('pf_totalvfs')
    if isinstance(numvfs, bool) or not isinstance(numvfs, int) or numvfs < 0:
        most = ' (the PF has at most %d, its sriov_totalvfs)' % total if total is not None else ''
        return ['%s: %s is not a VF count; write 0 (no VF) or more%s' % (n('numvfs'), validate.show(numvfs), most)]
    if total is None or numvfs <= total:
        return []
    pci = host.get('pf_pci')
    if total == 0:
        return ['%s: %d VFs asked, but SR-IOV is off on %s (sriov_totalvfs 0); set it to 0, or turn SR-IOV on in the firmware '
                '(mlxconfig -d %s set SRIOV_EN=1 NUM_OF_VFS=%d) and reset the card' % (n('numvfs'), numvfs, want.get('pf'), pci, numvfs)]
    return ['%s: %d is outside 0..%d, the VFs %s can have (sriov_totalvfs); set it to at most %d, or raise NUM_OF_VFS in the '
            'firmware (mlxconfig -d %s set SRIOV_EN=1 NUM_OF_VFS=%d) and reset the card'
            % (n('numvfs'), numvfs, total, want.get('pf'), total, pci, numvfs)]


def _driver_errors(want, host, n):
    driver = want.get('vf_driver')
    if not want.get('numvfs') or host.get('driver_exists') or host.get('driver_module'):
        return []
    pf_driver = ' (the PF\'s driver is %s)' % host['pf_driver'] if host.get('pf_driver') else ''
    return ['%s: %s is no PCI driver of this host (nothing at %s) nor a module of its kernel%s; write the VFs\' driver, mlx5_core for a ConnectX, '
            'or load it first (modprobe)' % (n('vf_driver'), validate.show(driver), host.get('driver_path'), pf_driver)]


def pf_errors(want, host, names=None):
    """What is wrong with one PF's request on this host (empty when nothing).

    ``want`` holds sriov_pf's options (``pf``, ``pci``, ``numvfs``,
    ``vf_macs``, ``vf_driver``, ``timeout``); ``host`` what the module read
    from sysfs (``sysfs_ok``, ``pf_path``, ``pf_pci``, ``pf_totalvfs``,
    ``pfs``, ``pci_path``, ``pci_exists``, ``pci_netdevs``, ``driver_path``,
    ``driver_exists``, ``driver_module`` (a module of the running kernel not loaded yet), ``pf_driver``);
    ``names`` how to call each option.
    """
    n = validate.Names(names)
    errors = []
    timeout = validate.int_in(n('timeout'), want.get('timeout'), 1, TIMEOUT_MAX,
                              'give the seconds to wait for the VF netdevs and representors, for example 30')
    if timeout:
        errors.append(timeout)
    if not host.get('sysfs_ok'):
        return errors + ['%s: %s has no class/net; point it at where sysfs is mounted (/sys)' % (n('sysfs_root'), validate.show(want.get('sysfs_root')))]
    errors.extend(_pf_name_errors(want, host, n))
    errors.extend(_pci_errors(want, host, n))
    errors.extend(_numvfs_errors(want, host, n))
    count = want.get('numvfs') if isinstance(want.get('numvfs'), int) and want.get('numvfs') >= 0 else 0
    errors.extend(mac_table(want.get('vf_macs') or {}, count, n('vf_macs'), n('numvfs'))[1])
    errors.extend(_driver_errors(want, host, n))
    return errors


def eswitch_error(want, handle, answer, names=None):
    """The refusal when devlink shows no eswitch for the PF (``answer`` is what devlink printed)."""
    n = validate.Names(names)
    name, value = (n('pci'), want['pci']) if want.get('pci') else (n('pf'), want.get('pf'))
    return ('%s: %s has no eswitch devlink can show (devlink dev eswitch show %s: %s); the PF needs a driver with switchdev '
            'support (mlx5_core on a ConnectX): check ethtool -i %s' % (name, validate.show(value), handle, answer or 'no such handle', want.get('pf')))


def eswitch_mode(handle, text, is_json):
    """The ``mode`` of ``handle`` from ``devlink [-j] dev eswitch show``, or None."""
    table = parse_devlink_eswitch_json(text) if is_json else parse_devlink_eswitch(text)
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


def _pf_macs(pf, where, numvfs, vf_macs):
    """The label and the valid ``{index: mac}`` a PF gets (its own ``vf_macs`` or the role-wide one)."""
    own = pf.get('vf_macs')
    count = pf.get('numvfs')
    count = numvfs if count is None else count
    count = count if isinstance(count, int) and not isinstance(count, bool) else 0
    label = '%s.vf_macs' % where if own is not None else 'sriov_switchdev_vf_macs'
    table = vf_macs if own is None else own
    macs = {}
    for key, mac in table.items() if isinstance(table, dict) else ():
        try:
            index = int(key)
        except (TypeError, ValueError):
            continue
        if 0 <= index < count and validate.mac_address('', mac) is None:
            macs[index] = mac.lower()
    return label, macs


def _pf_list_errors(pfs, numvfs, vf_macs):
    """The same PF, PCI address or VF MAC twice across ``sriov_switchdev_pfs``."""
    errors, names, pcis, macs = [], {}, {}, {}
    for i, pf in enumerate(pfs):
        where = 'sriov_switchdev_pfs[%d]' % i
        name, pci = pf.get('name'), pf.get('pci')
        if isinstance(name, str) and name in names:
            errors.append('%s.name: %s is listed twice (also %s); list each PF once' % (where, validate.show(name), names[name]))
        names.setdefault(name, where)
        if isinstance(pci, str) and pci.lower() in pcis:
            errors.append('%s.pci: %s is listed twice (also %s.pci); each PF has its own PCI address'
                          % (where, validate.show(pci), pcis[pci.lower()]))
        pcis.setdefault(pci.lower() if isinstance(pci, str) else pci, where)
        label, table = _pf_macs(pf, where, numvfs, vf_macs)
        for index, mac in sorted(table.items()):
            other = macs.get(mac)
            if other and other[0] != name:
                shared = ('; both PFs take sriov_switchdev_vf_macs: give %s its own vf_macs' % where
                          if label == other[2] == 'sriov_switchdev_vf_macs' else '')
                errors.append('%s[%d]: %s is also the MAC of VF %d of %s (%s[%d]); give every VF its own MAC%s'
                              % (label, index, validate.show(mac), other[1], other[0], other[2], other[1], shared))
            macs.setdefault(mac, (name, index, label))
    return errors


def _nm_spec_errors(specs):
    errors = []
    for i, spec in enumerate(specs or []):
        where = 'sriov_switchdev_nm_unmanaged_devices[%d]' % i
        if not isinstance(spec, str) or not spec.strip() or re.search(r'[\s;]', spec):
            errors.append('%s: %s is not one NetworkManager device spec; write one spec per item without spaces or ";", '
                          'for example interface-name:ens3f0*' % (where, validate.show(spec)))
            continue
        for part in spec.split(','):
            prefix = part.split(':', 1)[0] if ':' in part else None
            if part == '*' or prefix in NM_SPEC_PREFIXES or validate.mac_address('', part, unicast=False) is None:
                continue
            errors.append('%s: %s is no NetworkManager device spec (NetworkManager reads a spec without a known prefix as a MAC '
                          'address and matches nothing); write interface-name:%s, or one of the prefixes %s'
                          % (where, validate.show(spec), part.split(':')[-1], ', '.join(p + ':' for p in NM_SPEC_PREFIXES)))
    return errors


def _path_errors(settings):
    """The files the role writes: absolute, of the kind their reader takes, each its own."""
    errors, paths = [], {}
    wanted = []
    if settings.get('sriov_switchdev_nm_unmanaged', True):
        wanted.append(('sriov_switchdev_nm_conf', '.conf', 'NetworkManager reads only *.conf files in conf.d'))
    if settings.get('sriov_switchdev_persist', True):
        wanted.append(('sriov_switchdev_script', '', ''))
        wanted.append(('sriov_switchdev_unit', '.service', 'systemd takes a service unit only from a file named *.service'))
    for name, suffix, why in wanted:
        if name not in settings:
            continue
        path = settings[name]
        if not isinstance(path, str) or not path.startswith('/') or path.endswith('/'):
            errors.append('%s: %s is not an absolute path of a file; write one such as %s' % (name, validate.show(path), DEFAULT_PATHS[name]))
            continue
        if suffix and not path.endswith(suffix):
            errors.append('%s: %s does not end with %s (%s); name it for example %s' % (name, validate.show(path), suffix, why, DEFAULT_PATHS[name]))
        if path in paths:
            errors.append('%s: %s is also %s; each file needs its own path' % (name, validate.show(path), paths[path]))
        paths.setdefault(path, name)
    return errors


DEFAULT_PATHS = {
    'sriov_switchdev_nm_conf': '/etc/NetworkManager/conf.d/99-offload-testbed-sriov.conf',
    'sriov_switchdev_script': '/usr/local/sbin/offload-testbed-sriov-switchdev',
    'sriov_switchdev_unit': '/etc/systemd/system/offload-testbed-sriov-switchdev.service',
}


def _directory_errors(directories):
    """``directories``: registered ``ansible.builtin.stat`` results over items ``{var, path}`` (the file's path)."""
    errors = []
    for result in directories or []:
        item, stat = result.get('item') or {}, result.get('stat') or {}
        if result.get('skipped') or stat.get('isdir'):
            continue
        where = item.get('path', '').rsplit('/', 1)[0] or '/'
        hint = ('; is NetworkManager installed? Without it, set sriov_switchdev_nm_unmanaged: false'
                if item.get('var') == 'sriov_switchdev_nm_conf' else '')
        errors.append('%s: %s cannot be written, its directory %s does not exist on this host; create it or write another '
                      'path%s' % (item.get('var'), validate.show(item.get('path')), where, hint))
    return errors


def request_errors(pfs, numvfs, vf_macs, settings=None, directories=None):
    """The checks of the role's variables that involve more than one PF, or no PF, before anything changes.

    ``pfs`` is ``sriov_switchdev_pfs``; a PF without ``numvfs``/``vf_macs``
    takes ``numvfs``/``vf_macs``. ``settings`` maps the role's other variables
    (by name) to their values; ``directories`` is described in
    :func:`_directory_errors`. What concerns one PF on the host is
    :func:`pf_errors`' (the sriov_pf module's). Returns messages naming the variable.
    """
    settings = settings or {}
    errors = []
    if not pfs:
        errors.append('sriov_switchdev_pfs is empty; list the PFs, for example [{name: ens3f0np0, pci: "0000:32:00.0"}]')
    errors.extend(_pf_list_errors(pfs or [], numvfs, vf_macs))
    if settings.get('sriov_switchdev_nm_unmanaged', True):
        errors.extend(_nm_spec_errors(settings.get('sriov_switchdev_nm_unmanaged_devices')))
    errors.extend(_path_errors(settings))
    errors.extend(_directory_errors(directories))
    return errors
