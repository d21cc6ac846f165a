# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/host/cpulist.py: kernel cpulists and hyper-thread siblings."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.host import cpulist as cpulists


def _siblings_2x16x2():
    """Thread siblings of the ConnectX-6 Lx reference bench's servers: 2 sockets x 16 cores x 2 threads (cpu N and N+32)."""
    table = {}
    for cpu in range(32):
        table[cpu] = set([cpu, cpu + 32])
        table[cpu + 32] = set([cpu, cpu + 32])
    return table


def test_expand_siblings_reference_bench_layout():
    result = cpulists.expand_siblings(set(range(2, 16)), _siblings_2x16x2())
    assert result == set(range(2, 16)) | set(range(34, 48))
    assert cpulists.cpulist(result) == '2-15,34-47'


def test_expand_siblings_transitive_and_string_forms():
    # 1 -> 2 -> 3 chain, keys as strings and values as cpulist strings
    # (what thread_siblings_list gives).
    siblings = {'1': '1-2', '2': '2-3', '3': [3], 7: '7'}
    assert cpulists.expand_siblings([1], siblings) == set([1, 2, 3])
    assert cpulists.expand_siblings('7', siblings) == set([7])


def test_expand_siblings_unknown_cpu_and_empty():
    assert cpulists.expand_siblings(set([5]), {}) == set([5])
    assert cpulists.expand_siblings(set(), _siblings_2x16x2()) == set()
    assert cpulists.expand_siblings(None, None) == set()


@pytest.mark.parametrize('cpus, text', [
    (set(), ''),
    (set([0]), '0'),
    (set([0, 1]), '0-1'),
    (set([0, 2, 4]), '0,2,4'),
    (set(range(2, 16)) | set(range(34, 48)), '2-15,34-47'),
    (set([1, 2, 3, 5, 7, 8]), '1-3,5,7-8'),
])
def test_cpulist_round_trip(cpus, text):
    assert cpulists.cpulist(cpus) == text
    assert cpulists.parse_cpulist(text) == cpus
    assert cpulists.cpulist(cpulists.parse_cpulist(text)) == text


def test_cpulist_accepts_unsorted_duplicates_and_strings():
    assert cpulists.cpulist([5, 3, 4, 3, '6']) == '3-6'


def test_parse_cpulist_forms():
    assert cpulists.parse_cpulist(' 2-4 , 8\n') == set([2, 3, 4, 8])
    assert cpulists.parse_cpulist('0-9:2/5') == set([0, 1, 5, 6])
    assert cpulists.parse_cpulist(None) == set()


@pytest.mark.parametrize('text', ['a-b', '3-1', '1-', '-1', '0x3', '1-4:0/2', '1;2'])
def test_parse_cpulist_garbage(text):
    with pytest.raises(ValueError):
        cpulists.parse_cpulist(text)


@pytest.mark.parametrize('cpus', [['x'], [True]])
def test_cpulist_garbage(cpus):
    with pytest.raises(ValueError):
        cpulists.cpulist(cpus)
