# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/ovs_appctl.py: ``pmd-rxq-show``.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_appctl import parse_pmd_rxq_show
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_pmd_rxq_show_dual_numa():
    rxqs = parse_pmd_rxq_show(fixture('ovs_appctl_pmd_rxq_show_dual_numa.txt'))
    assert len(rxqs) == 8
    for queue, rxq in enumerate(rxqs):
        assert rxq == {
            'numa': 1, 'core': 1, 'port': 'p0', 'queue': queue, 'usage': None, 'enabled': True, 'isolated': False,
        }


def test_pmd_rxq_show_with_usage_and_disabled():
    # Variant of the fixture: numbers instead of NOT AVAIL, one disabled
    # queue, and a queue on the second PMD thread.
    text = fixture('ovs_appctl_pmd_rxq_show_dual_numa.txt')
    text = text.replace('queue-id:  0 (enabled)   pmd usage: NOT AVAIL', 'queue-id:  0 (enabled)   pmd usage: 43 %')
    text = text.replace('queue-id:  1 (enabled)', 'queue-id:  1 (disabled)')
    text += '  port: vf0               queue-id:  0 (enabled)   pmd usage:  7 %\n'
    rxqs = parse_pmd_rxq_show(text)
    assert rxqs[0]['usage'] == 43
    assert rxqs[1]['enabled'] is False
    assert rxqs[-1] == {'numa': 0, 'core': 2, 'port': 'vf0', 'queue': 0, 'usage': 7, 'enabled': True, 'isolated': False}


@pytest.mark.parametrize('text', ['', None, 'Displaying last 60 seconds pmd usage %\n', 'ovs-appctl: cannot connect\n'])
def test_pmd_rxq_show_empty_or_garbage(text):
    assert parse_pmd_rxq_show(text) == []
