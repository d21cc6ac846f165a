# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every captured tool output in tests/fixtures has a parser, and each parses to something.

The field-by-field checks are in the test file of each tool (test_ethtool.py,
test_flint.py, test_mlxfwmanager.py, test_devlink.py, test_grubby.py,
test_ovs_appctl.py, test_ovs_dpctl.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import FIXTURES, PARSER_OF, TRANSCRIPTS, fixture


def test_every_fixture_is_covered():
    on_disk = set(name for name in os.listdir(FIXTURES) if name.endswith('.txt'))
    assert on_disk == set(PARSER_OF) | set(TRANSCRIPTS)
    assert not set(PARSER_OF) & set(TRANSCRIPTS)


@pytest.mark.parametrize('name', sorted(PARSER_OF))
def test_every_fixture_parses_to_something(name):
    assert PARSER_OF[name](fixture(name))
