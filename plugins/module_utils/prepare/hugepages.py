# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hugepages at run time: sysfs counts per size and NUMA node, hugetlbfs mounts.

Pure code: the module (plugins/modules/dpdk_hugepages.py) reads the host into
plain values, these functions check the request against them and plan the
writes. A page request is ``{'size': '2M', 'count': 512, 'node': 0,
'mount': '/dev/hugepages'}``; ``node`` and ``mount`` are optional.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

SIZES_DIR = os.path.join('sys', 'kernel', 'mm', 'hugepages')
NODES_DIR = os.path.join('sys', 'devices', 'system', 'node')
# A hugepage size the CPU can map only with this /proc/cpuinfo flag (x86).
FLAG_OF_SIZE = {1048576: 'pdpe1gb'}


def parse_meminfo(text):
    """``/proc/meminfo`` or a node's ``meminfo`` -> ``{key: number}`` (kB, or a page count)."""
    values = {}
    for line in (text or '').splitlines():
        match = re.match(r'^(?:Node\s+\d+\s+)?([A-Za-z0-9_()]+):\s+(\d+)', line)
        if match:
            values[match.group(1)] = int(match.group(2))
    return values


def parse_sizes(names):
    """Directory names ``hugepages-2048kB`` -> the set of sizes in kB."""
    sizes = set()
    for name in names:
        match = re.match(r'^hugepages-(\d+)kB$', name)
        if match:
            sizes.add(int(match.group(1)))
    return sizes


def parse_flags(cpuinfo):
    """The first ``flags`` line of /proc/cpuinfo as a set."""
    for line in (cpuinfo or '').splitlines():
        key, sep, value = line.partition(':')
        if sep and key.strip() == 'flags':
            return set(value.split())
    return set()


def parse_mounts(text):
    """hugetlbfs lines of /proc/mounts -> ``{path: size in kB or None}``."""
    mounts = {}
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] == 'hugetlbfs':
            size = None
            for option in fields[3].split(','):
                if option.startswith('pagesize='):
                    size = validate.page_size_kib(option.split('=', 1)[1])
            mounts[fields[1].replace('\\040', ' ')] = size
    return mounts


def nr_path(root, size_kib, node=None):
    """The sysfs file of the page count of one size, of a NUMA node or of the whole host."""
    leaf = os.path.join('hugepages', 'hugepages-%dkB' % size_kib, 'nr_hugepages')
    if node is None:
        return os.path.join(root, 'sys', 'kernel', 'mm', leaf)
    return os.path.join(root, NODES_DIR, 'node%d' % node, leaf)


def key_of(size_kib, node):
    """The state file's key of a count: ``2048kB`` or ``2048kB@node0``."""
    return '%dkB' % size_kib + ('' if node is None else '@node%d' % node)


def normalise(entry):
    """A request's size in kB (or ``None``), count, node and mount, as far as they are well formed."""
    entry = entry if isinstance(entry, dict) else {}
    size = validate.page_size_kib(entry.get('size')) if entry.get('size') is not None else None
    node = entry.get('node')
    return {
        'size': size,
        'count': entry.get('count'),
        'node': node if isinstance(node, int) and not isinstance(node, bool) else None,
        'mount': entry.get('mount') if isinstance(entry.get('mount'), str) and entry.get('mount') else None,
    }


def requests(entries, default_size):
    """The requests as plain values for a caller (the role's persistence): sizes in kB and as text."""
    found = []
    for entry in entries:
        spec = normalise(entry)
        found.append({'size_kib': spec['size'], 'size': validate.size_text(spec['size']) if spec['size'] else None,
                      'count': spec['count'], 'node': spec['node'], 'mount': spec['mount'].rstrip('/') if spec['mount'] else None,
                      'default_size': spec['size'] is not None and spec['size'] == default_size and spec['node'] is None})
    return found


def size_error(name, raw, size, host):
    """A size the kernel does not offer, or 1G on a CPU without pdpe1gb."""
    offered = ' and '.join(validate.size_text(s) for s in sorted(host['sizes'])) or 'none'
    if size is None:
        return '%s: %s is not a page size; write 2M or 1G (the sizes this host offers: %s)' % (name, validate.show(raw), offered)
    flag = FLAG_OF_SIZE.get(size)
    if flag and flag not in host['flags']:
        return ('%s: %s pages need the CPU flag %s, which /proc/cpuinfo does not list: this CPU cannot map them; '
                'use 2M pages (sizes this host offers: %s)' % (name, validate.show(raw), flag, offered))
    if size not in host['sizes']:
        return ('%s: %s is not a page size this host offers (/sys/kernel/mm/hugepages has %s); use one of those'
                % (name, validate.show(raw), offered))
    return None


def entry_errors(name, entry, host, persist):
    """Every problem of one request, each naming ``name.field``."""
    if not isinstance(entry, dict):
        return ['%s: %s is not a mapping; write {size: 2M, count: 512}' % (name, validate.show(entry))]
    spec, errors = normalise(entry), []
    error = size_error('%s.size' % name, entry.get('size'), spec['size'], host)
    if error:
        errors.append(error)
    count = entry.get('count')
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        errors.append('%s.count: %s is not a page count; write a whole number, 0 or more' % (name, validate.show(count)))
    node = entry.get('node')
    if node is not None and spec['node'] not in host['nodes']:
        errors.append('%s.node: %s is not a NUMA node of this host (it has %s); leave it unset for the whole host'
                      % (name, validate.show(node), ', '.join(str(n) for n in sorted(host['nodes'])) or 'none'))
    mount = entry.get('mount')
    if mount is not None and not (isinstance(mount, str) and mount.startswith('/') and mount.rstrip('/')):
        errors.append('%s.mount: %s is not an absolute directory; write a path such as /mnt/huge-1G' % (name, validate.show(mount)))
    elif mount and spec['size'] and host['mounts'].get(mount.rstrip('/'), spec['size']) != spec['size']:
        errors.append('%s.mount: %s is already a hugetlbfs mount of %s pages, not %s; pick another directory'
                      % (name, mount, validate.size_text(host['mounts'][mount.rstrip('/')] or 0), validate.size_text(spec['size'])))
    if persist and (spec['node'] is not None or (spec['size'] and spec['size'] != host['default_size'])):
        errors.append('%s: only the default size (%s) for the whole host persists through sysctl (vm.nr_hugepages); '
                      'reserve %s pages%s at boot with the boot_params role, or set dpdk_host_hugepages_persist: false'
                      % (name, validate.size_text(host['default_size'] or 2048), validate.size_text(spec['size'] or 0),
                         '' if spec['node'] is None else ' per node'))
    return errors


def duplicate_errors(names, entries):
    """The same size and node asked twice (the second would overwrite the first)."""
    seen, errors = {}, []
    for name, entry in zip(names, entries):
        spec = normalise(entry)
        if spec['size'] is None:
            continue
        key = (spec['size'], spec['node'])
        if key in seen:
            errors.append('%s: %s pages%s are already asked by %s; give each size and node once'
                          % (name, validate.size_text(spec['size']), '' if spec['node'] is None else ' on node %d' % spec['node'], seen[key]))
        seen.setdefault(key, name)
    return errors


def _counts(names):
    return ', '.join('%s.count' % name for name in names)


def total_error(good, total, max_fraction):
    """All pages together above a share of MemTotal."""
    asked = sum(s['size'] * s['count'] for n, s in good)
    if not total or asked <= total * max_fraction:
        return None
    pages = ' + '.join('%d x %s' % (s['count'], validate.size_text(s['size'])) for n, s in good if s['count'])
    return ('%s: %s = %.1f GiB of hugepages is above %d%% of the memory (MemTotal %.1f GiB); ask for fewer pages'
            % (_counts(n for n, s in good if s['count']), pages, asked / 1048576.0, int(round(max_fraction * 100)), total / 1048576.0))


def available_error(good, host):
    """The pages added (beyond those there now) above what the host has available."""
    available = host['meminfo'].get('MemAvailable', host['meminfo'].get('MemFree'))
    more = [(n, (s['count'] - host['current'].get(key_of(s['size'], s['node']), 0)) * s['size']) for n, s in good]
    grow = sum(kib for n, kib in more if kib > 0)
    if available is None or grow <= available:
        return None
    return ('%s: the %.1f GiB more of hugepages asked is above the memory available (MemAvailable %.1f GiB); '
            'ask for fewer pages or free memory first' % (_counts(n for n, kib in more if kib > 0), grow / 1048576.0, available / 1048576.0))


def node_errors(good, nodes, max_fraction):
    """The pages of each NUMA node above a share of its MemTotal."""
    errors = []
    for node, meminfo in sorted(nodes.items()):
        on_node = [(n, s) for n, s in good if s['node'] == node]
        asked = sum(s['size'] * s['count'] for n, s in on_node)
        if on_node and meminfo.get('MemTotal') and asked > meminfo['MemTotal'] * max_fraction:
            errors.append('%s: %.1f GiB of hugepages on NUMA node %d is above %d%% of its memory (%.1f GiB); '
                          'spread the pages over the nodes or ask for fewer'
                          % (_counts(n for n, s in on_node), asked / 1048576.0, node, int(round(max_fraction * 100)), meminfo['MemTotal'] / 1048576.0))
    return errors


def memory_errors(names, entries, host, max_fraction):
    """The pages asked for against MemTotal (a share of it) and what the host has available, per host and per node."""
    specs = [normalise(e) for e in entries]
    good = [(n, s) for n, s in zip(names, specs)
            if s['size'] in host['sizes'] and isinstance(s['count'], int) and not isinstance(s['count'], bool) and s['count'] >= 0]
    total = total_error(good, host['meminfo'].get('MemTotal'), max_fraction)
    if total:
        return [total]
    return [e for e in [available_error(good, host)] if e] + node_errors(good, host['nodes'], max_fraction)


def errors(names, entries, host, max_fraction=0.9, persist=False):
    """Every problem of the request against the host, in the order of the list."""
    found = []
    for name, entry in zip(names, entries):
        found.extend(entry_errors(name, entry, host, persist))
    return found + duplicate_errors(names, entries) + memory_errors(names, entries, host, max_fraction)


def plan_counts(entries, current, recorded, state):
    """``[(size, node, old, new)]`` of the counts to write.

    ``present`` writes each request's count; ``absent`` gives back, for every
    count the state file ``recorded`` (key -> ``{'before': the count found
    before the role's first write, 'set': the count it wrote last}``), the
    pages the role added: what is there now less what it added (the count
    found, when nothing else changed it since).
    """
    steps = []
    if state == 'present':
        for entry in entries:
            spec = normalise(entry)
            old = current.get(key_of(spec['size'], spec['node']), 0)
            if old != spec['count']:
                steps.append((spec['size'], spec['node'], old, spec['count']))
        return steps
    for key, mark in sorted(recorded.items()):
        match = re.match(r'^(\d+)kB(?:@node(\d+))?$', key)
        if match and isinstance(mark, dict) and isinstance(mark.get('before'), int) and isinstance(mark.get('set'), int):
            size, node = int(match.group(1)), (int(match.group(2)) if match.group(2) else None)
            now = current.get(key, 0)
            target = max(0, now - (mark['set'] - mark['before']))
            if now != target:
                steps.append((size, node, now, target))
    return steps


def record_count(recorded, key, old, new):
    """The state file's mark of a count after the role wrote ``new`` over ``old`` (None: nothing left to give back)."""
    before = recorded[key]['before'] if isinstance(recorded.get(key), dict) and 'before' in recorded[key] else old
    return None if before == new else {'before': before, 'set': new}


def plan_mounts(entries, mounts, recorded, state):
    """``[('mount', path, size) | ('umount', path, size)]``: mounts asked and missing, or the role's own to remove."""
    if state == 'present':
        wanted = []
        for entry in entries:
            spec = normalise(entry)
            path = spec['mount'].rstrip('/') if spec['mount'] else None
            if path and path not in mounts and path not in [p for k, p, s in wanted]:
                wanted.append(('mount', path, spec['size']))
        return wanted
    return [('umount', path, mounts[path]) for path in sorted(recorded) if path in mounts]
