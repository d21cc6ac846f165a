# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/text.py, the helpers the tool parsers share."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, na, norm_key, pairs, to_int


def test_lines_of_text_stdout_lines_and_none():
    assert lines('a\nb\n') == ['a', 'b']
    assert lines(['a', 'b']) == ['a', 'b']
    assert lines(('a',)) == ['a']
    assert lines(None) == []
    assert lines('') == []


@pytest.mark.parametrize('value, expected', [
    ('  22.29.1016 ', '22.29.1016'), ('N/A', None), ('n/a', None), ('NA', None), ('NOT AVAIL', None), ('   ', None), (None, None),
])
def test_na(value, expected):
    assert na(value) == expected


@pytest.mark.parametrize('value, expected', [
    (3, 3), (' 7 ', 7), ('x', None), (None, None), (True, None), (False, None), ('NOT AVAIL', None),
])
def test_to_int(value, expected):
    assert to_int(value) == expected


def test_norm_key():
    assert norm_key('FW Version(Running)') == 'fw_version_running'
    assert norm_key(' PCI Device Name ') == 'pci_device_name'


def test_pairs():
    assert pairs(['mode', 'switchdev', 'inline-mode', 'none']) == {'mode': 'switchdev', 'inline-mode': 'none'}
    assert pairs(['encap']) == {'encap': None}
    assert pairs([]) == {}
