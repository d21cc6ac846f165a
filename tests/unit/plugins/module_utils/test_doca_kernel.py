# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/prepare/doca_kernel.py: the names doca-kernel-support gives a kernel release."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare.doca_kernel import doca_kernel_names


def test_doca_kernel_names_caret_of_the_reference_bench():
    # The kernel release of the ConnectX-6 Lx reference bench has a caret.
    assert doca_kernel_names('5.14.0-611.47.1.sl9_7^2.x86_64') == {
        'pack': '5.14.0.611.47.1.sl9.7.2.x86.64',
        'repo_id': 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64',
        'package': 'doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64',
    }


@pytest.mark.parametrize('kver, pack, repo_id', [
    ('5.14.0-427.13.1.el9_4.x86_64', '5.14.0.427.13.1.el9.4.x86.64', 'doca-kernel-5.14.0-427.13.1.el9_4.x86_64'),
    ('6.1.0+rt5-amd64', '6.1.0.rt5.amd64', 'doca-kernel-6.1.0.rt5-amd64'),
    ('5.15.0-1~rc1_x86_64', '5.15.0.1.rc1.x86.64', 'doca-kernel-5.15.0-1.rc1_x86_64'),
    ('6.8.0-31-generic', '6.8.0.31.generic', 'doca-kernel-6.8.0-31-generic'),
    (' 5.14.0-611.47.1.sl9_7^2.x86_64\n', '5.14.0.611.47.1.sl9.7.2.x86.64', 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64'),
])
def test_doca_kernel_names_special_chars(kver, pack, repo_id):
    names = doca_kernel_names(kver)
    assert names == {'pack': pack, 'repo_id': repo_id, 'package': 'doca-kernel-' + pack}


@pytest.mark.parametrize('kver', ['', '   ', None])
def test_doca_kernel_names_empty(kver):
    with pytest.raises(ValueError):
        doca_kernel_names(kver)
