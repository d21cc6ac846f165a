# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the boot_params role: which kernel arguments, whether the
host can take them, what grubby must change, and whether the running kernel
took them.

Nothing here runs a command or reads a file: the modules read the host and
pass plain values in.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.cpulist import cpulist, expand_siblings, parse_cpulist

# Keys this collection owns on the kernel command line. Tokens with other keys
# (root=, ro, $tuned_params, ...) are never touched.
HUGEPAGE_KEYS = ('default_hugepagesz', 'hugepagesz', 'hugepages')
MANAGED_KEYS = ('intel_iommu', 'amd_iommu', 'iommu') + HUGEPAGE_KEYS + ('isolcpus', 'nohz_full', 'rcu_nocbs')
ISOLATION_ARGS = ('isolcpus', 'nohz_full', 'rcu_nocbs')
GIB_KB = 1024 * 1024


def arg_key(token):
    """``hugepages=32`` -> ``hugepages``; ``quiet`` -> ``quiet``."""
    return token.split('=', 1)[0]


def iommu_vendor(iommu, cpu_vendor):
    """``intel``/``amd``/``none`` from the request; ``auto`` from ``vendor_id``."""
    if iommu != 'auto':
        return iommu
    vendor = (cpu_vendor or '').strip()
    if vendor == 'GenuineIntel':
        return 'intel'
    if vendor in ('AuthenticAMD', 'HygonGenuine'):
        return 'amd'
    return None


def isolated_set(requested, siblings):
    """The requested CPUs closed under hyper-thread siblings (seed 000 lost 15 % without them)."""
    return expand_siblings(requested, siblings)


def wanted_args(iommu, hugepages_1g, isolated, isolation_args=ISOLATION_ARGS, hugepages_2m=0, extra=()):
    """The kernel arguments, in the order they are written.

    ``iommu`` is ``intel``, ``amd`` or ``none``; ``isolated`` a set of CPUs
    (already closed under siblings). The hugepage tokens form an ordered
    group: ``hugepages=N`` applies to the ``hugepagesz`` before it.
    """
    args = []
    if iommu in ('intel', 'amd'):
        args.extend(['%s_iommu=on' % iommu, 'iommu=pt'])
    if hugepages_1g:
        args.extend(['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=%d' % hugepages_1g,
                     'hugepagesz=2M', 'hugepages=%d' % hugepages_2m])
    if isolated:
        text = cpulist(isolated)
        args.extend('%s=%s' % (name, text) for name in isolation_args)
    for token in extra or ():
        if token not in args:
            args.append(token)
    return args


def managed_keys(extra=()):
    """Keys compared and rewritten: ours plus the keys of the extra arguments."""
    keys = list(MANAGED_KEYS)
    for token in extra or ():
        if arg_key(token) not in keys:
            keys.append(arg_key(token))
    return keys


def plan_entry(current, wanted, keys):
    """What to remove from and add to one boot entry's arguments.

    Tokens are compared as sets per key (a duplicate counts as a difference);
    the hugepage keys are compared as one ordered group because the kernel
    pairs each ``hugepages=`` with the ``hugepagesz=`` before it. Returns
    ``(remove, add)``: every current token of a differing key is removed (a
    token present twice is listed twice, grubby removes one occurrence per
    word) and every wanted token of it added. Unmanaged tokens such as
    ``$tuned_params`` never appear.
    """
    remove = []
    add = []
    current_hp = [t for t in current if arg_key(t) in HUGEPAGE_KEYS and arg_key(t) in keys]
    wanted_hp = [t for t in wanted if arg_key(t) in HUGEPAGE_KEYS]
    if current_hp != wanted_hp:
        remove.extend(current_hp)
        add.extend(wanted_hp)
    for key in keys:
        if key in HUGEPAGE_KEYS:
            continue
        have = [t for t in current if arg_key(t) == key]
        want = [t for t in wanted if arg_key(t) == key]
        if set(have) != set(want) or len(set(have)) != len(have):
            remove.extend(have)
            add.extend(want)
    order = dict((token, i) for i, token in enumerate(wanted))
    add.sort(key=lambda token: order.get(token, len(order)))
    return remove, add


def grubby_commands(entries, wanted, keys, target='ALL', grubby='grubby'):
    """The grubby command lines that bring every entry to ``wanted``.

    ``entries`` come from ``parse_grubby_info``. With ``target=ALL`` and the
    same change on every entry, one ``--update-kernel=ALL`` command; otherwise
    one command per differing entry, named by its kernel path. Returns
    ``(commands, plans)`` where ``plans`` maps each kernel to its
    ``{"remove", "add"}``.
    """
    plans = {}
    for entry in entries:
        remove, add = plan_entry(entry.get('args') or [], wanted, keys)
        plans[entry['kernel']] = {'remove': remove, 'add': add}
    changed = [kernel for kernel, plan in plans.items() if plan['remove'] or plan['add']]
    if not changed:
        return [], plans
    distinct = set((tuple(plan['remove']), tuple(plan['add'])) for plan in plans.values())
    if target == 'ALL' and len(distinct) == 1 and len(changed) == len(plans):
        groups = [('ALL', plans[changed[0]])]
    else:
        groups = [(kernel, plans[kernel]) for kernel in changed]
    commands = []
    for name, plan in groups:
        argv = [grubby, '--update-kernel=%s' % name]
        if plan['remove']:
            argv.append('--remove-args=%s' % ' '.join(plan['remove']))
        if plan['add']:
            argv.append('--args=%s' % ' '.join(plan['add']))
        commands.append(argv)
    return commands, plans


def refusals(hugepages_1g, requested, isolated, topology, max_memory_fraction=0.9):
    """Why the host cannot take the request (empty when it can).

    ``topology``: ``{"online": set, "nodes": {node: set}, "mem_total_kb": int,
    "flags": set}``. Refuses isolating CPU 0 (also as a sibling), isolating
    every CPU of a NUMA node, CPUs the host does not have, more 1G pages than
    ``max_memory_fraction`` of the memory, and 1G pages without ``pdpe1gb``.
    """
    errors = []
    online = topology.get('online') or set()
    unknown = set(requested) - online if online else set()
    if unknown:
        errors.append('boot_params_isolated_cpus: CPUs %s do not exist on this host (it has %s)' % (cpulist(unknown), cpulist(online)))
    if 0 in isolated:
        how = '' if 0 in requested else ' (as a hyper-thread sibling of %s)' % cpulist(requested)
        errors.append('boot_params_isolated_cpus: CPU 0 would be isolated%s; CPU 0 keeps the kernel housekeeping and '
                      'unpinned interrupts, leave it and its siblings out of the list' % how)
    for node in sorted(topology.get('nodes') or {}):
        cpus = topology['nodes'][node]
        if cpus and cpus <= set(isolated):
            errors.append('boot_params_isolated_cpus: every CPU of NUMA node %s (%s) would be isolated; leave at least one '
                          'CPU (with its siblings) of each node to the kernel' % (node, cpulist(cpus)))
    if hugepages_1g:
        if 'pdpe1gb' not in (topology.get('flags') or set()):
            errors.append('boot_params_hugepages_1g: %d x 1G pages asked, but the CPU has no pdpe1gb flag in /proc/cpuinfo '
                          'and cannot map 1G pages; set boot_params_hugepages_1g to 0' % hugepages_1g)
        total = topology.get('mem_total_kb')
        if total:
            limit = int(total * max_memory_fraction // GIB_KB)
            if hugepages_1g * GIB_KB > total * max_memory_fraction:
                errors.append('boot_params_hugepages_1g: %d x 1G is above %d%% of the host memory (%.1f GiB); '
                              'set it to at most %d' % (hugepages_1g, int(round(max_memory_fraction * 100)), total / float(GIB_KB), limit))
    return errors


def running_cpus(text):
    """A set from ``/sys/devices/system/cpu/isolated`` or ``nohz_full`` (the latter prints ``(null)`` when empty)."""
    text = (text or '').strip()
    if text == '(null)':
        return set()
    try:
        return parse_cpulist(text)
    except ValueError:
        return set()


def running_problems(wanted, cmdline, hugepages_1g, hugepages_per_node, isolated, running_isolated, running_nohz_full,
                     isolation_args=ISOLATION_ARGS):
    """What the running kernel did not take (empty when it took everything).

    ``cmdline`` is ``/proc/cmdline``; ``hugepages_per_node`` maps a NUMA node to
    its ``nr_hugepages`` of 1G pages; ``running_isolated`` and
    ``running_nohz_full`` are ``/sys/devices/system/cpu/isolated`` and
    ``.../nohz_full`` (cpulists).
    """
    problems = []
    tokens = (cmdline or '').split()
    missing = [token for token in wanted if token not in tokens]
    if missing:
        problems.append('/proc/cmdline lacks %s' % ' '.join(missing))
    total = sum(hugepages_per_node.values())
    if hugepages_1g and total != hugepages_1g:
        per_node = ', '.join('node%s: %d' % (node, count) for node, count in sorted(hugepages_per_node.items()))
        problems.append('the kernel reserved %d of %d 1G hugepages (%s); memory was too fragmented or too small'
                        % (total, hugepages_1g, per_node or 'no NUMA node has any'))
    if isolated:
        if 'isolcpus' in isolation_args and running_cpus(running_isolated) != set(isolated):
            problems.append('isolated CPUs are "%s", not %s' % ((running_isolated or '').strip(), cpulist(isolated)))
        if 'nohz_full' in isolation_args and running_cpus(running_nohz_full) != set(isolated):
            problems.append('nohz_full CPUs are "%s", not %s (a kernel without CONFIG_NO_HZ_FULL ignores it)'
                            % ((running_nohz_full or '').strip(), cpulist(isolated)))
    return problems
