#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: dpdk_hugepages
short_description: Hugepages at run time per size and NUMA node through sysfs, with their hugetlbfs mounts
version_added: 0.2.0
description:
  - Reserves hugepages without boot arguments, by writing C(nr_hugepages) of each size, for one NUMA node
    (C(/sys/devices/system/node/nodeN/hugepages/hugepages-<kB>kB/nr_hugepages)) or for the whole host
    (C(/sys/kernel/mm/hugepages/hugepages-<kB>kB/nr_hugepages)), and mounts a hugetlbfs per size
    (C(mount -t hugetlbfs -o pagesize=1G nodev /mnt/huge-1G)) where a request names a directory.
  - Before it writes anything it reads the page sizes the kernel offers (the directories under
    C(/sys/kernel/mm/hugepages)), the CPU flags (1G pages need C(pdpe1gb) in C(/proc/cpuinfo)), the memory
    (C(MemTotal) and C(MemAvailable) of C(/proc/meminfo), C(MemTotal) and C(MemFree) of each node's C(meminfo)),
    the counts and the hugetlbfs mounts of C(/proc/mounts), and refuses, every problem at once, a size the host
    cannot map, a node it does not have, a count that is none, the same size and node twice, a mount point that is
    a hugetlbfs of another size, a O(max_fraction) that is no fraction (C(90) for 0.9), more pages than O(max_fraction)
    of the memory or than the memory available.
  - After each write it reads the count back; when the kernel gave fewer pages (fragmented memory) it writes the
    previous count back and fails.
  - Records, in O(state_file), the count found before its first write of each size and node and the mounts it made,
    so that O(state=absent) gives back exactly the pages it reserved and unmounts only its own mounts.
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the host and returns the planned O(ignore:commands); nothing is written or mounted.
  diff_mode:
    support: full
    description: Returns the counts and mounts before and after.
options:
  pages:
    description: The page requests.
    type: list
    elements: dict
    default: []
    suboptions:
      size:
        description: The page size, C(2M) or C(1G) (C(2048kB) and C(1048576kB) too).
        type: raw
        required: true
      count:
        description: The number of pages of this size (on O(pages[].node), or on the whole host).
        type: raw
        required: true
      node:
        description: The NUMA node; unset for the whole host.
        type: raw
      mount:
        description: A directory to mount a hugetlbfs of this size on (created when missing).
        type: raw
  state:
    description: C(present) reserves and mounts; C(absent) gives back what O(state_file) records and unmounts the module's mounts.
    type: str
    choices: [present, absent]
    default: present
  max_fraction:
    description:
      - Largest share of C(MemTotal) (of the host, and of each node) all hugepages together may take, as a fraction (C(0.9) for 90 %).
      - Above 0 and at most 1; a percentage (C(90)) is refused, with the fraction to write.
    type: float
    default: 0.9
  persist:
    description: Whether the caller makes the pages persistent through C(vm.nr_hugepages); only the default size for the whole host can be.
    type: bool
    default: false
  root:
    description: Where the host's sysfs and procfs are found (C(root)/sys, C(root)/proc); a fake tree in tests.
    type: path
    default: /
  state_file:
    description: The module's record of the counts it found and the mounts it made (JSON).
    type: path
    default: /var/lib/offload-testbed/dpdk_host_hugepages.json
  names:
    description:
      - "How the messages call the options, for a caller whose users wrote them under other names
        (C({pages: dpdk_host_hugepages})); an option without one keeps its own name."
"""

EXAMPLES = r"""
- name: 512 x 2M pages on node 0 mounted on /dev/hugepages, 4 x 1G on node 1 on /mnt/huge-1G
  offload.testbed.dpdk_hugepages:
    pages:
      - {size: 2M, count: 512, node: 0, mount: /dev/hugepages}
      - {size: 1G, count: 4, node: 1, mount: /mnt/huge-1G}

- name: Give them back
  offload.testbed.dpdk_hugepages:
    state: absent
"""

RETURN = r"""
commands:
  description: The sysfs writes and commands run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
  sample: ["echo 512 > /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages",
           "mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages"]
errors:
  description: What is wrong with the request on this host; empty when nothing is.
  returned: always
  type: list
  elements: str
counts:
  description: Page counts after the run (planned in check mode), keyed C(2048kB) for the host or C(2048kB@node0) per node.
  returned: always
  type: dict
default_size:
  description: The host's default hugepage size in kB (C(Hugepagesize) of C(/proc/meminfo)).
  returned: always
  type: int
requests:
  description: The requests as the module read them, each with its size in kB (C(size_kib)), its size as C(2M) or
    C(1G) (C(size)), its C(count), C(node) and C(mount) (null when unset) and C(default_size) (whether it is the
    host's default size for the whole host, the one C(vm.nr_hugepages) sets).
  returned: always
  type: list
  elements: dict
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner

from ansible_collections.offload.testbed.plugins.module_utils.prepare import hugepages
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.files import read_record, read_text

ARGUMENT_SPEC = dict(
    pages=dict(type='list', elements='dict', default=[], options=dict(
        size=dict(type='raw', required=True),
        count=dict(type='raw', required=True),
        node=dict(type='raw'),
        mount=dict(type='raw'),
    )),
    state=dict(type='str', default='present', choices=['present', 'absent']),
    max_fraction=dict(type='float', default=0.9),
    persist=dict(type='bool', default=False),
    root=dict(type='path', default='/'),
    state_file=dict(type='path', default='/var/lib/offload-testbed/dpdk_host_hugepages.json'),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)


def _listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _count(path):
    text = read_text(path).strip()
    return int(text) if text.isdigit() else None


def read_host(root):
    """Sizes, flags, memory, nodes, counts and hugetlbfs mounts of the host under ``root``."""
    sizes = hugepages.parse_sizes(_listdir(os.path.join(root, hugepages.SIZES_DIR)))
    nodes = {}
    for name in _listdir(os.path.join(root, hugepages.NODES_DIR)):
        if name.startswith('node') and name[4:].isdigit():
            nodes[int(name[4:])] = hugepages.parse_meminfo(read_text(os.path.join(root, hugepages.NODES_DIR, name, 'meminfo')))
    current = {}
    for size in sizes:
        for node in [None] + sorted(nodes):
            count = _count(hugepages.nr_path(root, size, node))
            if count is not None:
                current[hugepages.key_of(size, node)] = count
    meminfo = hugepages.parse_meminfo(read_text(os.path.join(root, 'proc', 'meminfo')))
    return {
        'sizes': sizes, 'nodes': nodes, 'current': current, 'meminfo': meminfo,
        'flags': hugepages.parse_flags(read_text(os.path.join(root, 'proc', 'cpuinfo'))),
        'mounts': hugepages.parse_mounts(read_text(os.path.join(root, 'proc', 'mounts'))),
        'default_size': meminfo.get('Hugepagesize'),
    }


def load_record(path):
    try:
        record = read_record(path)
    except ValueError:
        record = {}
    record = record if isinstance(record, dict) else {}
    return {'counts': dict(record.get('counts') or {}), 'mounts': dict(record.get('mounts') or {})}


class Pages(object):
    """Writes counts and mounts (or, dry, only lists them), keeping the record up to date."""

    def __init__(self, module, root, record, dry):
        self.module, self.root, self.record, self.dry = module, root, record, dry
        self.runner = HostRunner(module, dry, errors=True)
        self.commands = self.runner.commands

    def fail(self, msg):
        self.runner.fail(msg)

    def set_count(self, size, node, old, new):
        path = hugepages.nr_path(self.root, size, node)
        self.runner.write(path, new)
        if self.dry:
            return
        key = hugepages.key_of(size, node)
        got = _count(path)
        if got != new:
            self.runner.write(path, old)
            self.fail('%s: the kernel gave %s of the %d %s pages asked (memory too fragmented or taken); the count is back at %d. '
                      'Ask for fewer, reserve them at boot (boot_params role), or free memory and retry'
                      % (path, got, new, validate.size_text(size), old))
        mark = hugepages.record_count(self.record['counts'], key, old, new)
        if mark is None:
            self.record['counts'].pop(key, None)
        else:
            self.record['counts'][key] = mark

    def mount(self, path, size):
        created = not os.path.isdir(path)
        if created and self.runner.note('mkdir -p %s' % path):
            os.makedirs(path)
        self.runner.change(['mount', '-t', 'hugetlbfs', '-o', 'pagesize=%s' % validate.size_text(size), 'nodev', path])
        self.record['mounts'][path] = {'size': size, 'created_dir': created}

    def umount(self, path):
        self.runner.change(['umount', path])
        if (self.record['mounts'].pop(path, None) or {}).get('created_dir') and self.runner.note('rmdir %s' % path):
            try:
                os.rmdir(path)
            except OSError as exc:
                self.module.warn('%s is unmounted but stays: %s' % (path, exc))

    def save(self, path):
        """Write the record; an empty one (everything given back) removes the file, so nothing of the role is left."""
        if self.dry:
            return
        if not self.record['counts'] and not self.record['mounts']:
            if os.path.exists(path):
                os.unlink(path)
            return
        directory = os.path.dirname(path)
        if directory and not os.path.isdir(directory):
            os.makedirs(directory)
        with open(path, 'w') as handle:
            json.dump(self.record, handle, indent=2, sort_keys=True)
            handle.write('\n')


def _diff(counts, mounts):
    return ''.join('%s: %d\n' % item for item in sorted(counts.items())) + ''.join('mount %s\n' % m for m in sorted(mounts))


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    name = validate.Names(p['names'])
    host = read_host(p['root'])
    names = [name('pages', index) for index in range(len(p['pages']))]
    errors = []
    if p['state'] == 'present':
        share = validate.fraction(name('max_fraction'), p['max_fraction'],
                                  'of the memory (of the host, and of each NUMA node) the hugepages may take')
        errors = ([share] if share else []) + hugepages.errors(names, p['pages'], host, 1.0 if share else p['max_fraction'], p['persist'])
    base = dict(changed=False, commands=[], errors=errors, counts=host['current'], default_size=host['default_size'],
                requests=hugepages.requests(p['pages'], host['default_size']))
    if p['validate_only'] or errors:
        if errors and not p['validate_only']:
            module.fail_json(msg='; '.join(errors), **base)
        module.exit_json(**base)
    record = load_record(p['state_file'])
    loaded = json.dumps(record, sort_keys=True)
    pages = Pages(module, p['root'], record, module.check_mode)
    counts = hugepages.plan_counts(p['pages'], host['current'], dict(record['counts']), p['state'])
    mounts = hugepages.plan_mounts(p['pages'], host['mounts'], list(record['mounts']), p['state'])
    for size, node, old, new in counts:
        pages.set_count(size, node, old, new)
    for action, path, size in mounts:
        if action == 'mount':
            pages.mount(path, size)
        else:
            pages.umount(path)
    if p['state'] == 'absent':
        record['counts'] = {}
    if json.dumps(record, sort_keys=True) != loaded:
        pages.save(p['state_file'])
    after = dict(host['current'], **dict((hugepages.key_of(size, node), new) for size, node, old, new in counts))
    mounted = dict(host['mounts'], **dict((path, size) for action, path, size in mounts if action == 'mount'))
    for action, path, size in mounts:
        if action == 'umount':
            mounted.pop(path, None)
    if not module.check_mode:
        after = read_host(p['root'])['current']
    result = dict(base)
    result.update(changed=bool(pages.commands), commands=pages.commands, counts=after)
    if module._diff:
        result['diff'] = {'before': _diff(host['current'], host['mounts']), 'after': _diff(after, mounted)}
    module.exit_json(**result)


if __name__ == '__main__':
    main()
