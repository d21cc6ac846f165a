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

from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.cpulist import cpulist, expand_siblings, parse_cpulist

# Keys this collection owns on the kernel command line. Tokens with other keys
# (root=, ro, $tuned_params, ...) are never touched.
HUGEPAGE_KEYS = ('default_hugepagesz', 'hugepagesz', 'hugepages')
MANAGED_KEYS = ('intel_iommu', 'amd_iommu', 'iommu') + HUGEPAGE_KEYS + ('isolcpus', 'nohz_full', 'rcu_nocbs')
ISOLATION_ARGS = ('isolcpus', 'nohz_full', 'rcu_nocbs')
GIB_KB = 1024 * 1024
MB2_KB = 2048
IOMMU_VENDORS = {'intel': ('GenuineIntel',), 'amd': ('AuthenticAMD', 'HygonGenuine')}
# The role's variable that writes each key it owns (an extra argument with another value contradicts it).
KEY_OWNERS = {'intel_iommu': 'boot_params_iommu', 'amd_iommu': 'boot_params_iommu', 'iommu': 'boot_params_iommu',
              'isolcpus': 'boot_params_isolated_cpus', 'nohz_full': 'boot_params_isolated_cpus', 'rcu_nocbs': 'boot_params_isolated_cpus'}
REBOOT_TIMEOUT = (10, 86400)


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
    """The requested CPUs closed under hyper-thread siblings (the ConnectX-6 Lx reference bench lost 15 % without them)."""
    return expand_siblings(requested, siblings)


def wanted_args(iommu, hugepages_1g, isolated, isolation_args=ISOLATION_ARGS, hugepages_2m=0, extra=()):
    """The kernel arguments, in the order they are written.

    ``iommu`` is ``intel``, ``amd`` or ``none``; ``isolated`` a set of CPUs
    (already closed under siblings). The hugepage tokens form an ordered
    group: ``hugepages=N`` applies to the ``hugepagesz`` before it. 2M pages
    alone keep the kernel's default size (2M on x86).
    """
    args = []
    if iommu in ('intel', 'amd'):
        args.extend(['%s_iommu=on' % iommu, 'iommu=pt'])
    if hugepages_1g:
        args.extend(['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=%d' % hugepages_1g,
                     'hugepagesz=2M', 'hugepages=%d' % hugepages_2m])
    elif hugepages_2m:
        args.extend(['hugepagesz=2M', 'hugepages=%d' % hugepages_2m])
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


def refusals(requested, isolated, topology):
    """Why the host cannot take the isolated CPUs (empty when it can).

    ``topology``: ``{"online": set, "nodes": {node: set}}``. Refuses isolating
    CPU 0 (also as a sibling) and every CPU of a NUMA node. CPUs the host does
    not have are :func:`cpu_errors`'.
    """
    errors = []
    if 0 in isolated:
        how = '' if 0 in requested else ' (as a hyper-thread sibling of %s)' % cpulist(requested)
        errors.append('boot_params_isolated_cpus: CPU 0 would be isolated%s; CPU 0 keeps the kernel housekeeping and '
                      'unpinned interrupts, leave it and its siblings out of the list' % how)
    for node in sorted(topology.get('nodes') or {}):
        cpus = topology['nodes'][node]
        if cpus and cpus <= set(isolated):
            errors.append('boot_params_isolated_cpus: every CPU of NUMA node %s (%s) would be isolated; leave at least one '
                          'CPU (with its siblings) of each node to the kernel' % (node, cpulist(cpus)))
    return errors


def cpu_errors(text, isolation_args, host, sysfs_root):
    """``(requested, isolated, errors)`` of ``boot_params_isolated_cpus`` and ``boot_params_isolation_args``."""
    requested, error = validate.cpu_list('boot_params_isolated_cpus', text if text is not None else '', host.get('online'))
    errors = [error] if error else []
    isolated = isolated_set(requested, host.get('siblings'))
    if requested and not host.get('siblings'):
        errors.append('boot_params_isolated_cpus: no thread_siblings_list under %s; cannot add the hyper-thread siblings' % sysfs_root)
    errors.extend(refusals(requested, isolated, host))
    seen = set()
    for name in isolation_args or []:
        if name in seen:
            errors.append('boot_params_isolation_args: %s is listed twice; list each argument once' % name)
        seen.add(name)
    if requested and not isolation_args:
        errors.append('boot_params_isolation_args is empty, so boot_params_isolated_cpus %s would isolate nothing; list some of '
                      '%s, or set boot_params_isolated_cpus to ""' % (validate.show(text), ', '.join(ISOLATION_ARGS)))
    return requested, isolated, errors


# The ACPI table that announces each kind of IOMMU (sysfs firmware/acpi/tables/<name>).
IOMMU_TABLES = {'intel': 'DMAR', 'amd': 'IVRS'}


def iommu_errors(iommu, cpu_vendor, platform=None):
    """``(vendor, errors)``: ``boot_params_iommu`` resolved and checked against the platform.

    ``platform`` is the IOMMU the ACPI tables announce (``intel`` for DMAR, ``amd`` for IVRS), which is what the
    kernel's ``<vendor>_iommu`` driver looks for; without such a table the CPU's ``vendor_id`` stands in. (QEMU's
    TCG CPU says AuthenticAMD on a machine with an emulated Intel IOMMU.)
    """
    if platform is None:
        return _iommu_by_cpu(iommu, cpu_vendor)
    vendor = platform if iommu == 'auto' else iommu
    if vendor in IOMMU_TABLES and vendor != platform:
        return vendor, ['boot_params_iommu: %s on a host whose IOMMU is announced by the ACPI table %s (an %s IOMMU); '
                        '%s_iommu=on does nothing there, set it to %s (or auto)'
                        % (validate.show(iommu), IOMMU_TABLES[platform], platform, vendor, platform)]
    return vendor, []


def _iommu_by_cpu(iommu, cpu_vendor):
    vendor = iommu_vendor(iommu, cpu_vendor)
    if vendor is None:
        return None, ['boot_params_iommu: auto cannot tell the IOMMU from CPU vendor %s; set intel, amd or none'
                      % validate.show(cpu_vendor)]
    if cpu_vendor and vendor in IOMMU_VENDORS and cpu_vendor not in IOMMU_VENDORS[vendor]:
        right = [name for name, vendors in sorted(IOMMU_VENDORS.items()) if cpu_vendor in vendors]
        fix = 'set it to %s (or auto)' % right[0] if right else 'set it to none'
        return vendor, ['boot_params_iommu: %s on a CPU whose vendor_id is %s (/proc/cpuinfo); %s_iommu=on does nothing there, %s'
                        % (validate.show(iommu), cpu_vendor, vendor, fix)]
    return vendor, []


def count_errors(params):
    """The numbers: page counts, the memory share, the reboot timeout."""
    errors = []
    for name in ('hugepages_1g', 'hugepages_2m'):
        value = params.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            errors.append('boot_params_%s: %s is not a page count; write 0 (none) or more' % (name, validate.show(value)))
    error = validate.fraction('boot_params_max_memory_fraction', params.get('max_memory_fraction'), 'of the memory the hugepages may take')
    errors.extend([error] if error else [])
    if params.get('reboot_timeout') is not None:
        error = validate.int_in('boot_params_reboot_timeout', params['reboot_timeout'], REBOOT_TIMEOUT[0], REBOOT_TIMEOUT[1],
                                'give the seconds a reboot of this host may take; a server takes minutes, the default is 1800')
        errors.extend([error] if error else [])
    return errors


def extra_arg_errors(extra, own):
    """``boot_params_extra_args``: one argument per item, none contradicting what the role writes (``own``)."""
    errors = []
    owned = dict((arg_key(token), token) for token in own)
    for i, token in enumerate(extra or []):
        where = 'boot_params_extra_args[%d]' % i
        if not isinstance(token, str) or not token or any(c.isspace() or c in '"\'' for c in token):
            errors.append('%s: %s is not one kernel argument; write one argument (key=value or a flag) per item, without '
                          'spaces or quotes' % (where, validate.show(token)))
            continue
        key, sep, value = token.partition('=')
        if key in KEY_OWNERS and key in owned and owned[key] != token:
            errors.append('%s: %s contradicts %s, which %s writes; remove it, or leave %s out (none / "") to write your own'
                          % (where, validate.show(token), owned[key], KEY_OWNERS[key], KEY_OWNERS[key]))
        elif key in HUGEPAGE_KEYS and any(arg_key(t) in HUGEPAGE_KEYS for t in own):
            errors.append('%s: %s repeats a hugepage argument that boot_params_hugepages_1g and boot_params_hugepages_2m write '
                          '(the kernel ignores a size given twice); set the pages there, or set both to 0 to write your own'
                          % (where, validate.show(token)))
        elif key == 'hugepages' and not value.isdigit():
            errors.append('%s: %s is not a page count; write hugepages=N after the hugepagesz= of its size' % (where, validate.show(token)))
    return errors


def hugepage_errors(params, args, topology):
    """Every hugepage size (1G, 2M and those of the extra arguments) against the CPU flags, and all of them together
    against ``max_memory_fraction`` of the memory."""
    counts = dict((name, params.get(name)) for name in ('hugepages_1g', 'hugepages_2m'))
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in counts.values()):
        return []
    # Without /proc/cpuinfo (boot_params_procfs_root refused) the flags are unknown, not absent.
    flags = topology.get('flags') or set() if topology.get('procfs_ok', True) else None
    mem = topology.get('mem_total_kb')
    fraction = params.get('max_memory_fraction')
    fraction = fraction if isinstance(fraction, (int, float)) and 0 < fraction <= 1 else 0.9
    sizes = (('boot_params_hugepages_1g', GIB_KB, counts['hugepages_1g']), ('boot_params_hugepages_2m', MB2_KB, counts['hugepages_2m']))
    errors = []
    for name, size, count in sizes:
        errors.extend(validate.hugepages(name, {size: count}, None, flags))
    extra = [t for t in params.get('extra_args') or [] if isinstance(t, str) and arg_key(t) in HUGEPAGE_KEYS]
    errors.extend(validate.hugepages('boot_params_extra_args', validate.hugepage_args(extra), None, flags, named=True))
    names = [name for name, size, count in sizes if count] + (['boot_params_extra_args'] if extra else [])
    fix = None
    if mem and len(names) == 1 and not extra:
        size = dict((name, size) for name, size, count in sizes)[names[0]]
        fix = 'set %s to at most %d' % (names[0], int(mem * fraction // size))
    pages = dict((size, count) for size, count in validate.hugepage_args(args).items() if size in validate.HUGEPAGE_FLAGS)
    return errors + validate.hugepages(' + '.join(names) or 'boot_params_extra_args', pages, mem, None, fraction, fix=fix)


def settings_errors(params, programs, directories):
    """How the role writes and reboots: the commands exist on the host, the files' places make sense.

    ``programs`` maps a command to its path on the host (None when not on
    its PATH); ``directories`` a directory to whether it exists.
    """
    errors = []
    method = params.get('method')
    if method == 'grubby' and not programs.get(params.get('grubby_command')):
        errors.append('boot_params_grubby_command: %s is not on this host\'s PATH; install grubby (dnf install grubby), or on '
                      'Debian and Ubuntu set boot_params_method: grub_dropin' % validate.show(params.get('grubby_command')))
    if method == 'grub_dropin':
        errors.extend(_dropin_errors(params, programs, directories))
    reboot = params.get('reboot_command') or []
    if params.get('reboot_ok') and reboot and not programs.get(reboot[0]):
        errors.append('boot_params_reboot_command: %s is not on this host\'s PATH; write a command the host can run, or leave '
                      'it empty to reboot with ansible.builtin.reboot' % validate.show(reboot[0]))
    state = params.get('state_file')
    if state is not None and (not state.startswith('/') or state.endswith('/') or directories.get(state)):
        errors.append('boot_params_state_file: %s is not an absolute path of a file; write one such as '
                      '/var/lib/offload-testbed/boot_params.json' % validate.show(state))
    return errors


def _dropin_errors(params, programs, directories):
    errors = []
    command = params.get('update_grub_command') or []
    if not command or not all(isinstance(word, str) and word for word in command):
        errors.append('boot_params_update_grub_command: %s is not a command; write its words as a list, for example '
                      '[update-grub] or [grub2-mkconfig, -o, /boot/grub2/grub.cfg]' % validate.show(command))
    elif not programs.get(command[0]):
        errors.append('boot_params_update_grub_command: %s is not on this host\'s PATH; write the command that regenerates '
                      'grub.cfg here (update-grub, or grub2-mkconfig -o /boot/grub2/grub.cfg)' % validate.show(command[0]))
    dropin = params.get('grub_dropin') or ''
    parent = dropin.rsplit('/', 1)[0] or '/'
    if not dropin.startswith('/') or not dropin.endswith('.cfg'):
        errors.append('boot_params_grub_dropin: %s is not an absolute path ending with .cfg (grub-mkconfig reads only '
                      '/etc/default/grub.d/*.cfg); write one such as /etc/default/grub.d/90-offload-testbed.cfg' % validate.show(dropin))
    elif not directories.get(parent):
        errors.append('boot_params_grub_dropin: %s cannot be written, its directory %s does not exist on this host; create it, '
                      'or check that this host boots with GRUB 2 from Debian or Ubuntu' % (validate.show(dropin), parent))
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
