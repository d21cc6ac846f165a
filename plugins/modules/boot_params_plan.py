#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: boot_params_plan
short_description: Compute the offload bench's kernel arguments from the host's CPU topology and memory
version_added: 0.2.0
description:
  - Reads the CPU topology (C(thread_siblings_list) of every CPU, the NUMA nodes' CPU lists), the CPU flags and
    vendor, the memory size, the running command line, the 1G hugepages per NUMA node and the isolated CPUs from
    sysfs and procfs, and changes nothing.
  - Returns the kernel arguments of the bench (IOMMU, 1G hugepages, isolated CPUs closed under their hyper-thread
    siblings) and the reasons the host cannot take them; the C(boot_params) role refuses on those before it changes
    anything. Each reason names the role's variable (C(boot_params_<option>)), the bad value and the fix.
  - The reasons are isolating CPU 0 or a whole NUMA node, CPUs the host does not have or a list that is no cpulist,
    isolation arguments listed twice or none for the CPUs; hugepages of every size (1G, 2M and those of the extra
    arguments together) above a share of the memory, a page size the CPU cannot map (1G without C(pdpe1gb), anything
    but 2M and 1G), negative counts; an IOMMU vendor that is not the CPU's; extra arguments that are not one argument
    each or contradict the role's; a memory share outside 0..1; sysfs and procfs roots that are none; and, when
    given, a grubby or update-grub command the host does not have, a GRUB drop-in that GRUB does not read or whose
    directory does not exist, a reboot command the host does not have, a reboot timeout outside 10..86400, a state
    file path that is none.
  - Also returns what the running kernel did not take, for the check after a reboot.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: The module only reads.
  diff_mode:
    description: Nothing changes, so there is no diff.
options:
  iommu:
    description:
      - C(intel) or C(amd) add C(<vendor>_iommu=on iommu=pt); C(auto) picks the IOMMU the ACPI tables announce
        (C(DMAR) Intel, C(IVRS) AMD), else the CPU vendor's; C(none) adds no IOMMU argument.
    type: str
    choices: [auto, intel, amd, none]
    default: auto
  hugepages_1g:
    description: Number of 1G hugepages (also the default hugepage size); 0 adds no hugepage argument.
    type: int
    default: 0
  hugepages_2m:
    description: Number of 2M hugepages written after the 1G ones.
    type: int
    default: 0
  isolated_cpus:
    description: CPUs to isolate, as a kernel cpulist (C(2-15)); their hyper-thread siblings are added.
    type: str
    default: ''
  isolation_args:
    description: The kernel arguments that receive the isolated CPU list.
    type: list
    elements: str
    choices: [isolcpus, nohz_full, rcu_nocbs]
    default: [isolcpus, nohz_full, rcu_nocbs]
  extra_args:
    description: More kernel arguments to keep on the command line.
    type: list
    elements: str
    default: []
  max_memory_fraction:
    description: Largest share of the memory the 1G hugepages may take.
    type: float
    default: 0.9
  sysfs_root:
    description: Where sysfs is mounted (a fake tree in tests).
    type: path
    default: /sys
  procfs_root:
    description: Where procfs is mounted (a fake tree in tests).
    type: path
    default: /proc
  method:
    description: How the role writes the arguments (C(boot_params_method) resolved); selects which of the following are checked.
    type: str
    choices: [grubby, grub_dropin]
  grubby_command:
    description: The grubby command, checked on the host's PATH with O(method=grubby).
    type: str
  update_grub_command:
    description: The command that regenerates the GRUB configuration, checked with O(method=grub_dropin).
    type: list
    elements: str
  grub_dropin:
    description: The GRUB drop-in, checked with O(method=grub_dropin).
    type: str
  state_file:
    description: The role's record of what it wrote.
    type: str
  reboot_ok:
    description: Whether the role may reboot; with it, O(reboot_command) is checked.
    type: bool
  reboot_timeout:
    description: Seconds a reboot may take.
    type: int
  reboot_command:
    description: The command that reboots the host and returns once it is back (empty for M(ansible.builtin.reboot)).
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: The ConnectX-6 Lx reference bench's arguments, CPUs 2-15 and their siblings isolated
  offload.testbed.boot_params_plan:
    iommu: intel
    hugepages_1g: 32
    isolated_cpus: 2-15
  register: plan

- name: Refuse what the host cannot take
  ansible.builtin.assert:
    that: plan.errors | length == 0
    fail_msg: "{{ plan.errors | join('; ') }}"
"""

RETURN = r"""
args:
  description: The kernel arguments, in order.
  returned: always
  type: list
  elements: str
  sample: [intel_iommu=on, iommu=pt, default_hugepagesz=1G, hugepagesz=1G, hugepages=32, hugepagesz=2M, hugepages=0]
managed_keys:
  description: The argument keys the C(grubby_args) module compares and rewrites.
  returned: always
  type: list
  elements: str
isolated:
  description: The isolated CPUs with their siblings, as a cpulist.
  returned: always
  type: str
  sample: 2-15,34-47
iommu:
  description: The IOMMU vendor used (C(auto) resolved), or null when the CPU vendor is unknown.
  returned: always
  type: str
errors:
  description: Why the host cannot take the arguments; empty when it can.
  returned: always
  type: list
  elements: str
running:
  description: The running kernel's command line, boot id, 1G hugepages per NUMA node, isolated and nohz_full CPUs.
  returned: always
  type: dict
running_problems:
  description: What the running kernel did not take; empty when it took everything.
  returned: always
  type: list
  elements: str
topology:
  description: Online CPUs, NUMA nodes with their CPUs, memory in kB, whether the CPU has pdpe1gb.
  returned: always
  type: dict
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.offload.testbed.plugins.module_utils.prepare import boot_params as bp
from ansible_collections.offload.testbed.plugins.module_utils.host.cpulist import cpulist, parse_cpulist


def _read(path, default=None):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return default


def _numbered(directory, prefix):
    """``{N: path}`` for entries ``<prefix>N`` of a directory."""
    result = {}
    try:
        names = os.listdir(directory)
    except OSError:
        return result
    for name in names:
        match = re.match(r'^%s(\d+)$' % prefix, name)
        if match:
            result[int(match.group(1))] = os.path.join(directory, name)
    return result


def read_host(sysfs, procfs):
    """Everything the plan needs from sysfs and procfs, as plain values."""
    cpu_dir = os.path.join(sysfs, 'devices', 'system', 'cpu')
    node_dir = os.path.join(sysfs, 'devices', 'system', 'node')
    cpus = _numbered(cpu_dir, 'cpu')
    online_text = _read(os.path.join(cpu_dir, 'online'))
    online = parse_cpulist(online_text) if online_text is not None else set(cpus)
    siblings = {}
    for cpu, path in cpus.items():
        text = _read(os.path.join(path, 'topology', 'thread_siblings_list'))
        if text is not None:
            siblings[cpu] = parse_cpulist(text)
    nodes = {}
    hugepages = {}
    for node, path in _numbered(node_dir, 'node').items():
        nodes[node] = parse_cpulist(_read(os.path.join(path, 'cpulist'), ''))
        count = _read(os.path.join(path, 'hugepages', 'hugepages-1048576kB', 'nr_hugepages'))
        hugepages[node] = int(count.strip()) if count and count.strip().isdigit() else 0
    flags = set()
    vendor = None
    for line in (_read(os.path.join(procfs, 'cpuinfo'), '') or '').splitlines():
        key, sep, value = line.partition(':')
        if not sep:
            continue
        key = key.strip()
        if key == 'flags' and not flags:
            flags = set(value.split())
        elif key == 'vendor_id' and vendor is None:
            vendor = value.strip()
    mem_total = None
    for line in (_read(os.path.join(procfs, 'meminfo'), '') or '').splitlines():
        match = re.match(r'^MemTotal:\s+(\d+)\s*kB', line)
        if match:
            mem_total = int(match.group(1))
    return {
        'procfs_ok': os.path.isfile(os.path.join(procfs, 'cpuinfo')),
        'sysfs_ok': os.path.isdir(cpu_dir),
        'online': online,
        'siblings': siblings,
        'nodes': nodes,
        'flags': flags,
        'vendor': vendor,
        'acpi_iommu': next((kind for kind, table in sorted(bp.IOMMU_TABLES.items())
                            if os.path.exists(os.path.join(sysfs, 'firmware', 'acpi', 'tables', table))), None),
        'mem_total_kb': mem_total,
        'running': {
            'cmdline': (_read(os.path.join(procfs, 'cmdline'), '') or '').strip(),
            'boot_id': (_read(os.path.join(procfs, 'sys', 'kernel', 'random', 'boot_id'), '') or '').strip(),
            'hugepages_1g_per_node': hugepages,
            'isolated': (_read(os.path.join(cpu_dir, 'isolated'), '') or '').strip(),
            'nohz_full': (_read(os.path.join(cpu_dir, 'nohz_full'), '') or '').strip(),
        },
    }


def plan(params, host, programs=None, directories=None):
    """The module's result from its parameters and :func:`read_host`'s values.

    ``programs`` and ``directories`` are what :func:`probe` found on the host.
    """
    errors = root_errors(params, host)
    requested, isolated, cpu_errors = bp.cpu_errors(params['isolated_cpus'], params['isolation_args'], host, params['sysfs_root'])
    iommu, iommu_errors = bp.iommu_errors(params['iommu'], host['vendor'], host['acpi_iommu'])
    errors += cpu_errors + iommu_errors + bp.count_errors(params)
    counts_ok = all(isinstance(params[n], int) and params[n] >= 0 for n in ('hugepages_1g', 'hugepages_2m'))
    hugepages_1g = params['hugepages_1g'] if counts_ok else 0
    own = bp.wanted_args(iommu, hugepages_1g, isolated, params['isolation_args'], params['hugepages_2m'] if counts_ok else 0)
    args = bp.wanted_args(iommu, hugepages_1g, isolated, params['isolation_args'], params['hugepages_2m'] if counts_ok else 0,
                          params['extra_args'])
    errors += bp.extra_arg_errors(params['extra_args'], own) + bp.hugepage_errors(params, args, host)
    errors += bp.settings_errors(params, programs or {}, directories or {})
    running = host['running']
    problems = bp.running_problems(args, running['cmdline'], hugepages_1g, running['hugepages_1g_per_node'],
                                   isolated, running['isolated'], running['nohz_full'], params['isolation_args'])
    return {
        'changed': False,
        'args': args,
        'managed_keys': bp.managed_keys(params['extra_args']),
        'isolated': cpulist(isolated),
        'iommu': iommu,
        'errors': errors,
        'running': running,
        'running_problems': problems,
        'topology': {
            'online': cpulist(host['online']),
            'nodes': dict((str(node), cpulist(cpus)) for node, cpus in host['nodes'].items()),
            'mem_total_kb': host['mem_total_kb'],
            'pdpe1gb': 'pdpe1gb' in host['flags'],
        },
    }


def root_errors(params, host):
    """sysfs and procfs roots where there is nothing of them."""
    errors = []
    if not host.get('procfs_ok'):
        errors.append('boot_params_procfs_root: %r has no cpuinfo; point it at where procfs is mounted (/proc)' % params['procfs_root'])
    if not host.get('sysfs_ok'):
        errors.append('boot_params_sysfs_root: %r has no devices/system/cpu; point it at where sysfs is mounted (/sys)' % params['sysfs_root'])
    return errors


def probe(module):
    """The commands (on the host's PATH) and the directories the role's settings name."""
    p = module.params
    commands = [p['grubby_command']] + (p['update_grub_command'] or [])[:1] + (p['reboot_command'] or [])[:1]
    programs = dict((command, module.get_bin_path(command)) for command in commands if command)
    paths = [p['state_file'], (p['grub_dropin'] or '').rsplit('/', 1)[0] or '/']
    directories = dict((path, os.path.isdir(path)) for path in paths if path)
    return programs, directories


ARGUMENT_SPEC = dict(
    iommu=dict(type='str', default='auto', choices=['auto', 'intel', 'amd', 'none']),
    hugepages_1g=dict(type='int', default=0),
    hugepages_2m=dict(type='int', default=0),
    isolated_cpus=dict(type='str', default=''),
    isolation_args=dict(type='list', elements='str', default=list(bp.ISOLATION_ARGS), choices=list(bp.ISOLATION_ARGS)),
    extra_args=dict(type='list', elements='str', default=[]),
    max_memory_fraction=dict(type='float', default=0.9),
    sysfs_root=dict(type='path', default='/sys'),
    procfs_root=dict(type='path', default='/proc'),
    method=dict(type='str', choices=['grubby', 'grub_dropin']),
    grubby_command=dict(type='str'),
    update_grub_command=dict(type='list', elements='str'),
    grub_dropin=dict(type='str'),
    state_file=dict(type='str'),
    reboot_ok=dict(type='bool'),
    reboot_timeout=dict(type='int'),
    reboot_command=dict(type='list', elements='str'),
)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    host = read_host(module.params['sysfs_root'], module.params['procfs_root'])
    programs, directories = probe(module)
    module.exit_json(**plan(module.params, host, programs, directories))


if __name__ == '__main__':
    main()
