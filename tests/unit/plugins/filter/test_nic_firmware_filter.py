# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filter that names the command finishing what role nic_firmware had to stop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys

from ansible_collections.offload.testbed.plugins.filter.nic_firmware import FilterModule, nic_firmware_rerun_command


def test_the_run_again_with_the_variable_added():
    argv = ['/opt/venv/bin/ansible-playbook', '-i', 'inventories/lab-cx6lx', 'playbooks/site.yml', '--limit', 'dut01',
            '-e', 'bench_repeat=3']
    assert nic_firmware_rerun_command({'nic_firmware_reboot_ok': True}, argv) == (
        'ansible-playbook -i inventories/lab-cx6lx playbooks/site.yml --limit dut01 -e bench_repeat=3 '
        '-e nic_firmware_reboot_ok=true')


def test_words_are_quoted_for_the_shell():
    argv = ['ansible-playbook', '-i', 'my inventory', 'site.yml', '-e', '{"a": 1}']
    assert nic_firmware_rerun_command({'x': 'y z', 'b': False}, argv) == (
        "ansible-playbook -i 'my inventory' site.yml -e '{\"a\": 1}' -e b=false -e 'x=y z'")


def test_a_run_not_started_by_ansible_playbook_names_the_playbook_to_fill_in():
    assert nic_firmware_rerun_command({'nic_firmware_reboot_ok': True}, ['/usr/bin/python3', '-m', 'pytest']) == (
        'ansible-playbook PLAYBOOK -e nic_firmware_reboot_ok=true')


def test_default_is_this_process_command_line(monkeypatch):
    monkeypatch.setattr(sys, 'argv', ['/usr/local/bin/ansible-playbook', 'site.yml'])
    assert FilterModule().filters()['nic_firmware_rerun_command']({'nic_firmware_reboot_ok': True}) == (
        'ansible-playbook site.yml -e nic_firmware_reboot_ok=true')
