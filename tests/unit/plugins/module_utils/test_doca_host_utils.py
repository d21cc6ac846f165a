# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/prepare/doca_host.py.

The KVERS_PACK fix is run by bash here: the fixed line must give, for every
kernel release, exactly the ``pack`` of ``doca_kernel_names``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import doca_host as dh
from ansible_collections.offload.testbed.plugins.module_utils.prepare.doca_kernel import doca_kernel_names

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
EMULATOR = os.path.join(ROOT, 'tests', 'emulators', 'doca', 'doca-kernel-support')
SHIPPED = 'KVERS_PACK="${KVERS//[ _-]/.}"'

RELEASES = [
    '5.14.0-611.47.1.sl9_7^2.x86_64',    # the ConnectX-6 Lx reference bench (SberLinux)
    '5.14.0-427.13.1.el9_4.x86_64',
    '6.8.0-45-generic',
    '6.12.0+rt5~bpo12',
    '4.18.0-553.el8_10.x86_64 debug',
]


def bash_pack(line, kver):
    script = 'KVERS="$1"\n%s\nprintf %%s "$KVERS_PACK"\n' % line
    return subprocess.run(['bash', '-c', script, 'pack', kver], capture_output=True, text=True, check=True).stdout


def test_the_emulator_carries_the_shipped_line():
    with open(EMULATOR) as handle:
        assert SHIPPED in handle.read().splitlines()


@pytest.mark.parametrize('kver', RELEASES)
def test_fixed_line_gives_the_pack_of_doca_kernel_names(kver):
    with open(EMULATOR) as handle:
        fixed, found = dh.fix_kvers_pack(handle.read())
    assert found == 1
    line = [text for text in fixed.splitlines() if text.startswith('KVERS_PACK=')][0]
    assert line == dh.KVERS_PACK_FIXED
    assert bash_pack(line, kver) == doca_kernel_names(kver)['pack']


def test_shipped_line_keeps_the_caret():
    # What broke rpmbuild on the ConnectX-6 Lx reference bench.
    assert bash_pack(SHIPPED, '5.14.0-611.47.1.sl9_7^2.x86_64') == '5.14.0.611.47.1.sl9.7^2.x86.64'


def test_fix_keeps_indentation_is_idempotent_and_reports_unknown_scripts():
    text = 'a=1\n    KVERS_PACK="${KVERS//[ _-]/.}"\nb=2\n'
    fixed, found = dh.fix_kvers_pack(text)
    assert (fixed, found) == ('a=1\n    %s\nb=2\n' % dh.KVERS_PACK_FIXED, 1)
    assert dh.fix_kvers_pack(fixed) == (fixed, 1)
    assert dh.fix_kvers_pack('echo no such line\n') == ('echo no such line\n', 0)


# The stanza doca-kernel-support left on the ConnectX-6 Lx reference bench (with the raw release), and
# the one its operator wrote by hand.
SEED_REPO = ('[doca-kernel-5.14.0-611.47.1.sl9_7^2.x86_64]\n'
             'name=DOCA kernel (kernel 5.14.0-611.47.1.sl9_7^2.x86_64)\n'
             'baseurl=file:///usr/share/doca-host-26.01-1.0.0.0/Modules/5.14.0-611.47.1.sl9_7^2.x86_64\n'
             'enabled=1\n'
             'gpgcheck=0\n')
SEED_FIXED = ('[doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64]\n'
              'name=DOCA kernel (kernel 5.14.0-611.47.1.sl9_7.2.x86_64)\n'
              'baseurl=file:///usr/share/doca-host-26.01-1.0.0.0/Modules/5.14.0-611.47.1.sl9_7^2.x86_64\n'
              'enabled=1\n'
              'gpgcheck=0\n')


def test_repo_fix_gives_the_seeds_stanza():
    kver = '5.14.0-611.47.1.sl9_7^2.x86_64'
    repo_id = doca_kernel_names(kver)['repo_id']
    assert dh.fix_repo_text(SEED_REPO, kver, repo_id) == SEED_FIXED
    assert dh.fix_repo_text(SEED_FIXED, kver, repo_id) == SEED_FIXED
    assert dh.repo_ids(SEED_FIXED) == [repo_id]


def test_repo_fix_leaves_other_sections_alone():
    kver = '5.14.0-611.47.1.sl9_7^2.x86_64'
    repo_id = doca_kernel_names(kver)['repo_id']
    other = '[baseos]\nname=BaseOS ^ stays\nbaseurl=file:///x\n\n'
    assert dh.fix_repo_text(other + SEED_REPO, kver, repo_id) == other + SEED_FIXED


@pytest.mark.parametrize('repo_id, bad', [
    ('doca-kernel-5.14.0-611.47.1.sl9_7^2.x86_64', True),
    ('doca-kernel-6.12.0+rt5', True),
    ('doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64', False),
    ('baseos:9', False),
])
def test_bad_repo_id(repo_id, bad):
    assert dh.bad_repo_id(repo_id) is bad


def test_repo_file_text():
    assert dh.repo_file_text('doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64', 'file:///m/5.14.0-611.47.1.sl9_7^2.x86_64') == (
        '[doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64]\nname=DOCA kernel (kernel 5.14.0-611.47.1.sl9_7.2.x86_64)\n'
        'baseurl=file:///m/5.14.0-611.47.1.sl9_7^2.x86_64\nenabled=1\ngpgcheck=0\n')


# dpkg-query -W -f='${Status}\n' NAME, as dpkg 1.21 (Debian 12) answers.
@pytest.mark.parametrize('rc, out, installed', [
    (0, 'install ok installed\n', True),
    (0, 'hold ok installed\n', True),
    # removed, its configuration kept (dpkg -r)
    (0, 'deinstall ok config-files\n', False),
    # never installed or purged: "dpkg-query: no packages found matching NAME" on stderr
    (1, '', False),
    (0, 'install ok half-configured\n', False),
])
def test_dpkg_installed(rc, out, installed):
    assert dh.dpkg_installed(rc, out) is installed


def test_apt_install_argument_is_a_path_or_the_name():
    assert dh.apt_install_argument({'name': 'doca-networking', 'src': None}) == 'doca-networking'
    assert dh.apt_install_argument({'name': 'doca-host', 'src': '/var/tmp/doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb'}) \
        == '/var/tmp/doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb'
    # apt-get reads an argument without "/" as a package name
    assert dh.apt_install_argument({'name': 'doca-host', 'src': 'doca-host.deb'}) == './doca-host.deb'
