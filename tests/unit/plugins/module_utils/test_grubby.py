# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/grubby.py: ``grubby --info=ALL``.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.grubby import parse_grubby_info
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def test_grubby_info_all():
    entries = parse_grubby_info(fixture('grubby_info_all_fedora37.txt'))
    assert [e['index'] for e in entries] == [0, 1, 2, 3]
    common_args = ['ro', 'rootflags=subvol=root', 'rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1', 'rhgb', 'quiet']
    root = 'UUID=65c70529-e9ad-4778-9001-18fe8c525285'
    assert entries[0] == {
        'index': 0,
        'kernel': '/boot/vmlinuz-6.5.12-100.fc37.x86_64',
        'args': ['$tuned_params'] + common_args,
        'root': root,
        'initrd': '/boot/initramfs-6.5.12-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.12-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.12-100.fc37.x86_64',
    }
    assert entries[1] == {
        'index': 1,
        'kernel': '/boot/vmlinuz-6.5.10-100.fc37.x86_64',
        'args': common_args + ['$tuned_params'],
        'root': root,
        'initrd': '/boot/initramfs-6.5.10-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.10-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.10-100.fc37.x86_64',
    }
    assert entries[2] == {
        'index': 2,
        'kernel': '/boot/vmlinuz-6.5.7-100.fc37.x86_64',
        'args': common_args + ['$tuned_params'],
        'root': root,
        'initrd': '/boot/initramfs-6.5.7-100.fc37.x86_64.img $tuned_initrd',
        'title': 'Fedora Linux (6.5.7-100.fc37.x86_64) 37 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-6.5.7-100.fc37.x86_64',
    }
    assert entries[3] == {
        'index': 3,
        'kernel': '/boot/vmlinuz-0-rescue-c44543d15b2c4e898912c2497f734e67',
        'args': common_args,
        'root': root,
        'initrd': '/boot/initramfs-0-rescue-c44543d15b2c4e898912c2497f734e67.img',
        'title': 'Fedora Linux (0-rescue-c44543d15b2c4e898912c2497f734e67) 36 (Workstation Edition)',
        'id': 'c44543d15b2c4e898912c2497f734e67-0-rescue',
    }


def test_grubby_info_single_entry_missing_fields():
    # Variant: the first entry only, without initrd and title lines.
    text = '\n'.join(fixture('grubby_info_all_fedora37.txt').splitlines()[:4])
    assert parse_grubby_info(text) == [{
        'index': 0,
        'kernel': '/boot/vmlinuz-6.5.12-100.fc37.x86_64',
        'args': ['$tuned_params', 'ro', 'rootflags=subvol=root', 'rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1', 'rhgb', 'quiet'],
        'root': 'UUID=65c70529-e9ad-4778-9001-18fe8c525285',
        'initrd': None,
        'title': None,
        'id': None,
    }]


@pytest.mark.parametrize('text', ['', None, 'index=4\nnon linux entry\n', 'garbage\nkernel=/boot/vmlinuz-x\n'])
def test_grubby_info_empty_or_garbage(text):
    assert parse_grubby_info(text) == []
