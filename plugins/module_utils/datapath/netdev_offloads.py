# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the netdev_offloads module reads, refuses, plans and checks after writing.

A tunnel's underlay NIC: its MTU (``ip -j -d link show dev D``: ``mtu`` and
the driver's ``min_mtu`` / ``max_mtu``, which only ``-d`` prints) and its
offload features (``ethtool -k D``, names as ethtool prints them, such as
``tx-udp_tnl-segmentation``). Nothing here runs a command: the module runs
the argv lists built here and hands the outputs back.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import json

from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import OFFLOAD_FEATURES
from ansible_collections.offload.testbed.plugins.module_utils.host.netns import in_namespace

MTU_MIN, MTU_MAX = 68, 65535


def link_argv(device, namespace=None):
    return in_namespace(namespace, ['ip', '-j', '-d', 'link', 'show', 'dev', device])


def features_argv(device, namespace=None):
    return in_namespace(namespace, ['ethtool', '-k', device])


def parse_link(text):
    """``ip -j -d link show dev D`` -> ``{"mtu", "min_mtu", "max_mtu"}`` (``None`` for what it does not print)."""
    items = json.loads(text) if (text or '').strip() else []
    item = items[0] if items else {}
    return {'mtu': item.get('mtu'), 'min_mtu': item.get('min_mtu'), 'max_mtu': item.get('max_mtu')}


def names_of(params):
    """How the messages call the options: ``validate.Names`` of the module's ``names``."""
    return validate.Names(params.get('names'))


def _shown(detail):
    """A feature as ``ethtool -k`` printed it: ``off [fixed]``, ``off [requested on]``."""
    text = 'on' if detail['on'] else 'off'
    if detail['fixed']:
        text += ' [fixed]'
    if detail.get('requested') is not None:
        text += ' [requested %s]' % ('on' if detail['requested'] else 'off')
    return text


def _unknown_feature(where, name, device, listed):
    hint = ''
    if name in OFFLOAD_FEATURES:
        hint = ' (%s is the ethtool -K short name; write the name ethtool -k prints, %s)' % (name, OFFLOAD_FEATURES[name])
    else:
        close = difflib.get_close_matches(name, sorted(listed), n=3)
        if close:
            hint = ' (did you mean %s?)' % ', '.join(close)
    return ('%s: %s is not a feature ethtool -k %s lists%s; use the names ethtool -k %s prints, '
            'for example tx-udp_tnl-segmentation' % (where, validate.show(name), device, hint, device))


def feature_errors(params, current):
    """The requested features against ``ethtool -k``'s detail: unknown names, non-bools, [fixed] ones asked to change."""
    errors = []
    device = params['device']
    prefix = names_of(params)('features')
    for name, wanted in (params.get('features') or {}).items():
        where = '%s.%s' % (prefix, name)
        if not isinstance(wanted, bool):
            errors.append('%s: %s is not a boolean; write true (on) or false (off)' % (where, validate.show(wanted)))
        elif name not in current:
            errors.append(_unknown_feature(where, name, device, current))
        elif current[name]['fixed'] and current[name]['on'] != wanted:
            errors.append('%s: %s cannot be changed on this device/driver: ethtool -k %s prints %s: %s; '
                          'leave it out or ask for %s' % (where, str(wanted).lower(), device, name,
                                                          _shown(current[name]), str(current[name]['on']).lower()))
    return errors


def mtu_errors(params, link):
    """``mtu`` within 68..65535 and, once the device is read, within its ``min_mtu``..``max_mtu``."""
    mtu = params.get('mtu')
    if mtu is None:
        return []
    where = names_of(params)('mtu')
    error = validate.int_in(where, mtu, MTU_MIN, MTU_MAX, 'give an MTU in bytes, for example 1550 for VXLAN over a 1500 underlay')
    if error:
        return [error]
    if link is None:
        return []
    device = params['device']
    if link.get('max_mtu') is not None and mtu > link['max_mtu']:
        return ['%s: %d is above the max_mtu %d of %s (ip -d link show dev %s); the driver refuses it, lower it or raise the '
                'device limit first' % (where, mtu, link['max_mtu'], device, device)]
    if link.get('min_mtu') is not None and mtu < link['min_mtu']:
        return ['%s: %d is below the min_mtu %d of %s (ip -d link show dev %s)' % (where, mtu, link['min_mtu'], device, device)]
    return []


def name_errors(params):
    """The device's and the namespace's names by the one rule for names (validate.py), before anything is read."""
    name = names_of(params)
    found = [validate.interface_name(name('device'), params.get('device'), 'a network device')]
    if params.get('namespace'):
        found.append(validate.netns_name(name('namespace'), params['namespace']))
    return [error for error in found if error]


def device_error(params, rc, out, err):
    """The message for an ``ip link show`` that failed: no such namespace, or no such device in it."""
    name = names_of(params)
    said = (err or out or '').strip()
    namespace = params.get('namespace')
    if namespace and 'network namespace' in said:
        return '%s: network namespace %s cannot be entered (%s); create it first or fix the name' % (
            name('namespace'), validate.show(namespace), said)
    place = 'in network namespace %s' % validate.show(namespace) if namespace else 'on this host'
    return '%s: device %s does not exist %s (ip link show said: %s, rc %d)' % (
        name('device'), validate.show(params['device']), place, said, rc)


def errors_of(params, link, current):
    """Every problem at once. ``link`` / ``current`` are ``None`` when the device could not be read."""
    errors = mtu_errors(params, link)
    if current is not None:
        errors += feature_errors(params, current)
    return errors


def changes(params, link, current):
    """``(mtu or None, [(feature, bool)])``: what differs from the request."""
    mtu = params.get('mtu')
    new_mtu = mtu if mtu is not None and link['mtu'] != mtu else None
    feats = [(name, wanted) for name, wanted in (params.get('features') or {}).items() if current[name]['on'] != wanted]
    return new_mtu, feats


def plan(params, link, current):
    """The argv lists that make the device what is asked: ``ip link set dev D mtu N``, one ``ethtool -K``."""
    device, namespace = params['device'], params.get('namespace')
    new_mtu, feats = changes(params, link, current)
    commands = []
    if new_mtu is not None:
        commands.append(in_namespace(namespace, ['ip', 'link', 'set', 'dev', device, 'mtu', str(new_mtu)]))
    if feats:
        argv = ['ethtool', '-K', device]
        for name, wanted in feats:
            argv += [name, 'on' if wanted else 'off']
        commands.append(in_namespace(namespace, argv))
    return commands


def expected(params, link, current):
    """``(mtu, {feature: bool})`` the device has once the plan ran (the check-mode answer)."""
    mtu = params.get('mtu')
    feats = dict((name, current[name]['on']) for name in current)
    feats.update((params.get('features') or {}))
    return (mtu if mtu is not None else link['mtu']), feats


def readback_errors(params, link, current, messages=''):
    """What the re-read device still lacks: an MTU that stayed, features ``ethtool -K`` left as they were."""
    errors = []
    device = params['device']
    option = names_of(params)
    said = ' (ethtool -K said: %s)' % ' / '.join(m.strip() for m in messages.splitlines() if m.strip()) if messages.strip() else ''
    mtu = params.get('mtu')
    if mtu is not None and link['mtu'] != mtu:
        errors.append('%s: %s still has mtu %s after ip link set dev %s mtu %d' % (option('mtu'), device, link['mtu'], device, mtu))
    for name, wanted in (params.get('features') or {}).items():
        detail = current.get(name)
        if detail is None or detail['on'] != wanted:
            errors.append('%s.%s: ethtool -K %s %s %s did not change it: ethtool -k %s prints %s: %s%s' % (
                option('features'), name, device, name, 'on' if wanted else 'off', device, name,
                'nothing' if detail is None else _shown(detail), said))
    return errors


def view(params, mtu, feats):
    """The diff's side: the MTU and the requested features."""
    return {'mtu': mtu, 'features': dict((name, feats.get(name)) for name in (params.get('features') or {}))}
