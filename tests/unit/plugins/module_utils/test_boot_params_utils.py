# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/prepare/boot_params.py: the arguments, the grubby plan over
the verbatim grubby fixture (replayed through the grubby emulator's own
update rules), the refusals and the after-reboot check."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.machinery
import importlib.util
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import boot_params as bp
from ansible_collections.offload.testbed.plugins.module_utils.host.cpulist import parse_cpulist
from ansible_collections.offload.testbed.plugins.module_utils.parse.grubby import parse_grubby_info

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
FIXTURE = os.path.join(ROOT, 'tests', 'fixtures', 'grubby_info_all_fedora37.txt')

SEED_ARGS = ['intel_iommu=on', 'iommu=pt', 'default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=32', 'hugepagesz=2M', 'hugepages=0',
             'isolcpus=2-15,34-47', 'nohz_full=2-15,34-47', 'rcu_nocbs=2-15,34-47']
KEYS = list(bp.MANAGED_KEYS)


def grubby_emulator():
    path = os.path.join(ROOT, 'tests', 'emulators', 'grubby', 'grubby')
    loader = importlib.machinery.SourceFileLoader('grubby_emulator', path)
    spec = importlib.util.spec_from_loader('grubby_emulator', loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def entries():
    with open(FIXTURE) as handle:
        return parse_grubby_info(handle.read())


def seed_siblings():
    """The ConnectX-6 Lx reference bench's host: 32 cores, CPU n and n+32 are siblings."""
    return dict((cpu, '%d,%d' % (cpu % 32, cpu % 32 + 32)) for cpu in range(64))


def test_reference_bench_arguments():
    isolated = bp.isolated_set(parse_cpulist('2-15'), seed_siblings())
    assert bp.wanted_args('intel', 32, isolated) == SEED_ARGS


def test_amd_none_and_nothing_requested():
    assert bp.wanted_args('amd', 0, set())[:2] == ['amd_iommu=on', 'iommu=pt']
    assert bp.wanted_args('none', 0, set()) == []
    assert bp.wanted_args('none', 0, set(), extra=['mitigations=off']) == ['mitigations=off']
    assert 'mitigations' in bp.managed_keys(['mitigations=off'])


@pytest.mark.parametrize('vendor, wanted', [('GenuineIntel', 'intel'), ('AuthenticAMD', 'amd'), ('CentaurHauls', None)])
def test_iommu_auto(vendor, wanted):
    assert bp.iommu_vendor('auto', vendor) == wanted
    assert bp.iommu_vendor('amd', vendor) == 'amd'


def test_plan_adds_everything_and_keeps_tuned_params():
    current = entries()[0]['args']
    remove, add = bp.plan_entry(current, SEED_ARGS, KEYS)
    assert remove == []
    assert add == SEED_ARGS


def test_plan_compares_as_sets():
    current = ['$tuned_params', 'rcu_nocbs=2-15,34-47', 'ro', 'iommu=pt', 'intel_iommu=on', 'quiet', 'isolcpus=2-15,34-47',
               'nohz_full=2-15,34-47', 'default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=32', 'hugepagesz=2M', 'hugepages=0']
    assert bp.plan_entry(current, SEED_ARGS, KEYS) == ([], [])


def test_plan_repairs_duplicates_and_other_values():
    current = ['ro', 'iommu=pt', 'iommu=pt', 'intel_iommu=on', 'amd_iommu=on', '$tuned_params']
    remove, add = bp.plan_entry(current, ['intel_iommu=on', 'iommu=pt'], KEYS)
    assert sorted(remove) == ['amd_iommu=on', 'iommu=pt', 'iommu=pt']
    assert add == ['iommu=pt']


def test_plan_hugepages_are_an_ordered_group():
    swapped = ['default_hugepagesz=1G', 'hugepagesz=2M', 'hugepages=32', 'hugepagesz=1G', 'hugepages=0']
    wanted = SEED_ARGS[2:7]
    remove, add = bp.plan_entry(swapped, wanted, KEYS)
    assert remove == swapped and add == wanted
    fewer = ['default_hugepagesz=1G', 'hugepagesz=1G', 'hugepages=16', 'hugepagesz=2M', 'hugepages=0']
    assert bp.plan_entry(fewer, wanted, KEYS) == (fewer, wanted)


def test_plan_removes_what_is_no_longer_wanted():
    current = ['ro'] + SEED_ARGS
    remove, add = bp.plan_entry(current, [], KEYS)
    assert sorted(remove) == sorted(SEED_ARGS) and add == []


def test_one_command_for_all_entries_of_the_fixture():
    commands, plans = bp.grubby_commands(entries(), SEED_ARGS, KEYS)
    assert commands == [['grubby', '--update-kernel=ALL', '--args=' + ' '.join(SEED_ARGS)]]
    assert len(plans) == 4


def test_per_entry_commands_when_entries_differ_or_default():
    current = entries()
    current[1]['args'] = current[1]['args'] + SEED_ARGS
    commands, unused = bp.grubby_commands(current, SEED_ARGS, KEYS)
    assert [argv[1] for argv in commands] == ['--update-kernel=/boot/vmlinuz-6.5.12-100.fc37.x86_64',
                                              '--update-kernel=/boot/vmlinuz-6.5.7-100.fc37.x86_64',
                                              '--update-kernel=/boot/vmlinuz-0-rescue-c44543d15b2c4e898912c2497f734e67']
    commands, unused = bp.grubby_commands(entries()[:1], SEED_ARGS, KEYS, target='DEFAULT')
    assert commands[0][1] == '--update-kernel=/boot/vmlinuz-6.5.12-100.fc37.x86_64'


@pytest.mark.parametrize('start', [
    [],
    ['iommu=pt', 'iommu=pt', 'hugepagesz=1G', 'hugepages=16', 'isolcpus=2-3'],
    ['default_hugepagesz=1G', 'hugepagesz=2M', 'hugepages=0', 'hugepagesz=1G', 'hugepages=32', 'amd_iommu=on'],
])
def test_plan_converges_in_one_step_with_grubby_rules(start):
    """Apply the planned commands with the grubby emulator's update rules, then plan again: nothing left."""
    emulator = grubby_emulator()
    current = entries()
    for entry in current:
        entry['args'] = entry['args'] + start
    commands, plans = bp.grubby_commands(current, SEED_ARGS, KEYS)
    for entry in current:
        plan = plans[entry['kernel']]
        entry['args'] = emulator.update(' '.join(entry['args']), plan['remove'], plan['add']).split()
        assert entry['args'].count('$tuned_params') <= 1
        assert 'rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1' in entry['args']
    assert bp.grubby_commands(current, SEED_ARGS, KEYS)[0] == []


TOPOLOGY = {
    'online': set(range(16)),
    'nodes': {0: parse_cpulist('0-3,8-11'), 1: parse_cpulist('4-7,12-15')},
    'mem_total_kb': 65842352,
    'flags': {'pdpe1gb', 'lm'},
}
SIBLINGS = dict((cpu, '%d,%d' % (cpu % 8, cpu % 8 + 8)) for cpu in range(16))


HOST = dict(TOPOLOGY, siblings=SIBLINGS, vendor='GenuineIntel', flags={'pse', 'pdpe1gb', 'lm'})
GOOD = {'hugepages_1g': 16, 'hugepages_2m': 0, 'max_memory_fraction': 0.9, 'extra_args': [], 'reboot_timeout': 1800}


def refuse(cpus, args=tuple(bp.ISOLATION_ARGS), **topology):
    return bp.cpu_errors(cpus, list(args), dict(HOST, **topology), '/sys')[2]


def test_a_sane_request_is_accepted():
    assert refuse('2-3') == [] and refuse('') == []
    assert bp.count_errors(GOOD) == [] and bp.iommu_errors('intel', 'GenuineIntel') == ('intel', [])
    assert bp.hugepage_errors(GOOD, bp.wanted_args('intel', 16, set()), HOST) == []


def test_cpu_refusals():
    assert refuse('0-1')[0].startswith('boot_params_isolated_cpus: CPU 0 would be isolated;')
    assert 'as a hyper-thread sibling of 8' in refuse('8')[0]
    assert refuse('4-7') == ['boot_params_isolated_cpus: every CPU of NUMA node 1 (4-7,12-15) would be isolated; leave at least one '
                             'CPU (with its siblings) of each node to the kernel']
    assert refuse('20') == ["boot_params_isolated_cpus: '20' names CPUs 20 this host does not have (it has 16 CPUs, 0..15); "
                            'list only those']
    assert refuse('3-2') == ["boot_params_isolated_cpus: '3-2' is not a cpulist (descending cpulist range: '3-2'); write CPU ids "
                             'and ranges such as 2-15,34-47']
    assert refuse('2-3', args=['isolcpus', 'isolcpus']) == ['boot_params_isolation_args: isolcpus is listed twice; list each argument once']
    assert refuse('2-3', args=[]) == ["boot_params_isolation_args is empty, so boot_params_isolated_cpus '2-3' would isolate nothing; "
                                      'list some of isolcpus, nohz_full, rcu_nocbs, or set boot_params_isolated_cpus to ""']
    assert refuse('2', siblings={}) == ['boot_params_isolated_cpus: no thread_siblings_list under /sys; cannot add the hyper-thread '
                                        'siblings']


def test_iommu_refusals():
    assert bp.iommu_errors('auto', 'AuthenticAMD') == ('amd', [])
    assert bp.iommu_errors('none', 'AuthenticAMD') == ('none', [])
    assert bp.iommu_errors('intel', 'AuthenticAMD')[1] == [
        "boot_params_iommu: 'intel' on a CPU whose vendor_id is AuthenticAMD (/proc/cpuinfo); intel_iommu=on does nothing there, set "
        'it to amd (or auto)']
    assert bp.iommu_errors('auto', 'CentaurHauls')[1] == [
        "boot_params_iommu: auto cannot tell the IOMMU from CPU vendor 'CentaurHauls'; set intel, amd or none"]


@pytest.mark.parametrize('change, message', [
    ({'hugepages_1g': -4}, 'boot_params_hugepages_1g: -4 is not a page count; write 0 (none) or more'),
    ({'hugepages_2m': -1}, 'boot_params_hugepages_2m: -1 is not a page count; write 0 (none) or more'),
    ({'max_memory_fraction': 90}, 'boot_params_max_memory_fraction: 90 is a percentage, but this is a share of the memory the hugepages '
                                  'may take written as a fraction (above 0, at most 1); write 0.9 for 90 %'),
    ({'max_memory_fraction': 1.5}, 'boot_params_max_memory_fraction: 1.5 is outside 0..1 (0 excluded); write the share of the memory '
                                   'the hugepages may take as a fraction, 0.9 for 90 %'),
    ({'max_memory_fraction': 0.0}, 'boot_params_max_memory_fraction: 0.0 is outside 0..1 (0 excluded); write the share of the '
                                   'memory the hugepages may take as a fraction, 0.9 for 90 %'),
    ({'reboot_timeout': 0}, 'boot_params_reboot_timeout: 0 is outside 10..86400; give the seconds a reboot of this host may take; a '
                            'server takes minutes, the default is 1800'),
])
def test_count_refusals(change, message):
    assert bp.count_errors(dict(GOOD, **change)) == [message]


def hugepages(extra=(), flags=('pse', 'pdpe1gb'), **change):
    params = dict(GOOD, extra_args=list(extra), **change)
    args = bp.wanted_args('intel', params['hugepages_1g'], set(), hugepages_2m=params['hugepages_2m'], extra=extra)
    return bp.hugepage_errors(params, args, dict(HOST, flags=set(flags)))


def test_hugepage_refusals_every_size_against_the_memory_and_the_cpu():
    assert hugepages(hugepages_1g=57) == ['boot_params_hugepages_1g: 57 x 1G = 57.0 GiB of hugepages is above 90% of the host memory '
                                          '(62.8 GiB); set boot_params_hugepages_1g to at most 56']
    assert hugepages(hugepages_1g=56) == []
    assert hugepages(hugepages_1g=0, hugepages_2m=30000) == [
        'boot_params_hugepages_2m: 30000 x 2M = 58.6 GiB of hugepages is above 90% of the host memory (62.8 GiB); set '
        'boot_params_hugepages_2m to at most 28934']
    assert hugepages(hugepages_1g=40, hugepages_2m=10000) == [
        'boot_params_hugepages_1g + boot_params_hugepages_2m: 10000 x 2M + 40 x 1G = 59.5 GiB of hugepages is above 90% of the host '
        'memory (62.8 GiB); reserve at most 56.5 GiB in all']
    assert hugepages(flags=['pse'], hugepages_1g=4) == [
        'boot_params_hugepages_1g: 4 x 1G pages asked, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; '
        'set them to 0']
    assert hugepages(['hugepagesz=4M'], hugepages_1g=0) == [
        "boot_params_extra_args: hugepage size '4M' is not one an x86 CPU can map; use 2M and 1G"]
    assert hugepages(['hugepagesz=1G'], flags=['pse'], hugepages_1g=0) == [
        'boot_params_extra_args: hugepage size 1G named, but the CPU has no pdpe1gb flag in /proc/cpuinfo and cannot map 1G pages; '
        'remove hugepagesz=1G']
    assert hugepages(['hugepagesz=1G', 'hugepages=60'], hugepages_1g=0) == [
        'boot_params_extra_args: 60 x 1G = 60.0 GiB of hugepages is above 90% of the host memory (62.8 GiB); reserve at most 56.5 '
        'GiB in all']
    assert hugepages(['hugepagesz=2M', 'hugepages=1024'], hugepages_1g=0) == []


def test_extra_argument_refusals():
    own = bp.wanted_args('intel', 16, {2, 3})
    assert bp.extra_arg_errors(['mitigations=off', 'iommu=pt', 'quiet'], own) == []
    assert bp.extra_arg_errors(['iommu=off', 'quiet splash', '', 'hugepagesz=2M', 'isolcpus=4'], own) == [
        "boot_params_extra_args[0]: 'iommu=off' contradicts iommu=pt, which boot_params_iommu writes; remove it, or leave "
        'boot_params_iommu out (none / "") to write your own',
        "boot_params_extra_args[1]: 'quiet splash' is not one kernel argument; write one argument (key=value or a flag) per item, "
        'without spaces or quotes',
        "boot_params_extra_args[2]: '' is not one kernel argument; write one argument (key=value or a flag) per item, without spaces "
        'or quotes',
        "boot_params_extra_args[3]: 'hugepagesz=2M' repeats a hugepage argument that boot_params_hugepages_1g and "
        'boot_params_hugepages_2m write (the kernel ignores a size given twice); set the pages there, or set both to 0 to write your own',
        "boot_params_extra_args[4]: 'isolcpus=4' contradicts isolcpus=2-3, which boot_params_isolated_cpus writes; remove it, or "
        'leave boot_params_isolated_cpus out (none / "") to write your own',
    ]
    assert bp.extra_arg_errors(['hugepagesz=2M', 'hugepages=many'], []) == [
        "boot_params_extra_args[1]: 'hugepages=many' is not a page count; write hugepages=N after the hugepagesz= of its size"]


def test_settings_refusals():
    found = {'grubby': '/usr/sbin/grubby', 'update-grub': '/usr/sbin/update-grub'}
    dirs = {'/etc/default/grub.d': True, '/var/lib/offload-testbed/boot_params.json': False}
    good = {'method': 'grubby', 'grubby_command': 'grubby', 'update_grub_command': ['update-grub'], 'reboot_ok': True,
            'grub_dropin': '/etc/default/grub.d/90-offload-testbed.cfg', 'state_file': '/var/lib/offload-testbed/boot_params.json',
            'reboot_command': []}
    assert bp.settings_errors(good, found, dirs) == []
    assert bp.settings_errors(dict(good, method='grub_dropin'), found, dirs) == []
    assert bp.settings_errors(dict(good, grubby_command='grubbyy'), found, dirs) == [
        "boot_params_grubby_command: 'grubbyy' is not on this host's PATH; install grubby (dnf install grubby), or on Debian and "
        'Ubuntu set boot_params_method: grub_dropin']
    dropin = dict(good, method='grub_dropin', update_grub_command=[], grub_dropin='/etc/default/grub.d/90-offload-testbed')
    assert bp.settings_errors(dropin, found, dirs) == [
        'boot_params_update_grub_command: [] is not a command; write its words as a list, for example [update-grub] or '
        '[grub2-mkconfig, -o, /boot/grub2/grub.cfg]',
        "boot_params_grub_dropin: '/etc/default/grub.d/90-offload-testbed' is not an absolute path ending with .cfg (grub-mkconfig "
        'reads only /etc/default/grub.d/*.cfg); write one such as /etc/default/grub.d/90-offload-testbed.cfg']
    missing = dict(good, method='grub_dropin', update_grub_command=['update-grub2'], grub_dropin='/etc/default/grub.e/x.cfg')
    assert bp.settings_errors(missing, found, dirs) == [
        "boot_params_update_grub_command: 'update-grub2' is not on this host's PATH; write the command that regenerates grub.cfg here "
        '(update-grub, or grub2-mkconfig -o /boot/grub2/grub.cfg)',
        "boot_params_grub_dropin: '/etc/default/grub.e/x.cfg' cannot be written, its directory /etc/default/grub.e does not exist on "
        'this host; create it, or check that this host boots with GRUB 2 from Debian or Ubuntu']
    assert bp.settings_errors(dict(good, reboot_command=['/opt/power-cycle'], state_file='state.json'), found, dirs) == [
        "boot_params_reboot_command: '/opt/power-cycle' is not on this host's PATH; write a command the host can run, or leave it "
        'empty to reboot with ansible.builtin.reboot',
        "boot_params_state_file: 'state.json' is not an absolute path of a file; write one such as "
        '/var/lib/offload-testbed/boot_params.json']


def test_two_megabyte_pages_alone_are_written():
    assert bp.wanted_args('none', 0, set(), hugepages_2m=1024) == ['hugepagesz=2M', 'hugepages=1024']


def test_running_kernel_took_everything():
    isolated = parse_cpulist('2-3,10-11')
    wanted = bp.wanted_args('intel', 16, isolated)
    cmdline = 'BOOT_IMAGE=/vmlinuz ro quiet ' + ' '.join(reversed(wanted))
    assert bp.running_problems(wanted, cmdline, 16, {0: 8, 1: 8}, isolated, '2-3,10-11', '2-3,10-11') == []


def test_running_kernel_problems():
    isolated = parse_cpulist('2-3,10-11')
    wanted = bp.wanted_args('intel', 16, isolated)
    problems = bp.running_problems(wanted, 'ro quiet intel_iommu=on', 16, {0: 8, 1: 0}, isolated, '', '(null)')
    assert problems[0].startswith('/proc/cmdline lacks iommu=pt default_hugepagesz=1G')
    assert problems[1] == 'the kernel reserved 8 of 16 1G hugepages (node0: 8, node1: 0); memory was too fragmented or too small'
    assert problems[2] == 'isolated CPUs are "", not 2-3,10-11'
    assert problems[3].startswith('nohz_full CPUs are "(null)", not 2-3,10-11')
    assert bp.running_cpus('(null)') == set() and bp.running_cpus('2-3') == {2, 3}


def test_the_platform_s_acpi_table_decides_the_iommu_over_the_cpu_vendor():
    # QEMU's TCG CPU says AuthenticAMD on a q35 machine with an emulated Intel IOMMU (ACPI DMAR).
    assert bp.iommu_errors('auto', 'AuthenticAMD', 'intel') == ('intel', [])
    assert bp.iommu_errors('intel', 'AuthenticAMD', 'intel') == ('intel', [])
    assert bp.iommu_errors('none', 'AuthenticAMD', 'intel') == ('none', [])
    assert bp.iommu_errors('amd', 'AuthenticAMD', 'intel')[1] == [
        "boot_params_iommu: 'amd' on a host whose IOMMU is announced by the ACPI table DMAR (an intel IOMMU); amd_iommu=on does "
        "nothing there, set it to intel (or auto)"]
    assert bp.iommu_errors('auto', 'GenuineIntel', 'amd') == ('amd', [])
