# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugins/module_utils/boot_params.py: the arguments, the grubby plan over
the verbatim grubby fixture (replayed through the grubby emulator's own
update rules), the refusals and the after-reboot check."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.machinery
import importlib.util
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils import boot_params as bp
from ansible_collections.offload.testbed.plugins.module_utils.cpulist import parse_cpulist
from ansible_collections.offload.testbed.plugins.module_utils.parsers import parse_grubby_info

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
    """Seed 000's host: 32 cores, CPU n and n+32 are siblings."""
    return dict((cpu, '%d,%d' % (cpu % 32, cpu % 32 + 32)) for cpu in range(64))


def test_seed_000_arguments():
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


def refuse(hugepages, cpus, **topology):
    requested = parse_cpulist(cpus)
    host = dict(TOPOLOGY, **topology)
    return bp.refusals(hugepages, requested, bp.isolated_set(requested, SIBLINGS), host)


def test_a_sane_request_is_accepted():
    assert refuse(16, '2-3') == []


def test_refusals():
    assert refuse(0, '0-1')[0].startswith('boot_params_isolated_cpus: CPU 0 would be isolated;')
    assert 'as a hyper-thread sibling of 8' in refuse(0, '8')[0]
    assert refuse(0, '4-7') == ['boot_params_isolated_cpus: every CPU of NUMA node 1 (4-7,12-15) would be isolated; leave at least one '
                                'CPU (with its siblings) of each node to the kernel']
    assert refuse(0, '20') == ['boot_params_isolated_cpus: CPUs 20 do not exist on this host (it has 0-15)']
    assert refuse(4, '', flags={'lm'})[0].startswith('boot_params_hugepages_1g: 4 x 1G pages asked, but the CPU has no pdpe1gb flag')
    message = refuse(57, '')
    assert message == ['boot_params_hugepages_1g: 57 x 1G is above 90% of the host memory (62.8 GiB); set it to at most 56']
    assert refuse(56, '') == []


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
