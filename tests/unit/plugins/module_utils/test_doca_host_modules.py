# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Modules doca_kernel_support and doca_host_packages with run_command
answered from a table of exact commands (tests/unit/plugins/modules/modtest.py)
and real files in a temporary directory."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

import pytest

from ansible.module_utils import basic
from ansible_collections.offload.testbed.plugins.module_utils.prepare import doca_host as dh
from ansible_collections.offload.testbed.plugins.modules import doca_host_packages
from ansible_collections.offload.testbed.plugins.modules import doca_kernel_support

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'modules'))
from modtest import run_module  # noqa: E402  pylint: disable=wrong-import-position

KVER = '5.14.0-611.47.1.sl9_7^2.x86_64'
PACKAGE = 'doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64'
REPO_ID = 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64'
SCRIPT = '#!/bin/bash\nKVERS=$(uname -r)\nKVERS_PACK="${KVERS//[ _-]/.}"\necho build\n'


@pytest.fixture
def world(tmp_path, monkeypatch):
    def get_bin_path(self, name, required=False, opt_dirs=None):
        return '/usr/bin/' + name if name in ('rpm', 'dnf') else None

    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', get_bin_path)
    script = tmp_path / 'doca-kernel-support'
    script.write_text(SCRIPT)
    script.chmod(0o755)
    reposdir = tmp_path / 'yum.repos.d'
    reposdir.mkdir()
    (reposdir / 'baseos.repo').write_text('[baseos]\nbaseurl=file:///b\n')
    return {'script': str(script), 'reposdir': str(reposdir)}


def kargs(world, **extra):
    result = {'kernel_release': KVER, 'script': world['script'], 'reposdir': world['reposdir']}
    result.update(extra)
    return result


def builds_repo(world):
    """The script run: leaves the repository with the raw release in its id, as on the ConnectX-6 Lx reference bench."""
    def answer(calls):
        with open(os.path.join(world['reposdir'], 'doca-kernel-%s.repo' % KVER), 'w') as handle:
            handle.write('[doca-kernel-%s]\nname=DOCA kernel (kernel %s)\nbaseurl=file:///m/%s\nenabled=1\ngpgcheck=0\n' % (KVER, KVER, KVER))
        return (0, 'built\n', '')
    return answer


def read(path):
    with open(path) as handle:
        return handle.read()


def test_builds_fixes_script_and_repository(world, monkeypatch):
    table = {('/usr/bin/rpm', '-q', PACKAGE): (1, 'package %s is not installed\n' % PACKAGE, ''),
             (world['script'],): builds_repo(world)}
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world), table, monkeypatch)
    assert not failed, result
    assert (result['changed'], result['built'], result['installed']) == (True, True, False)
    assert result['names'] == {'pack': '5.14.0.611.47.1.sl9.7.2.x86.64', 'repo_id': REPO_ID, 'package': PACKAGE}
    assert dh.KVERS_PACK_FIXED in read(world['script']).splitlines()
    assert os.stat(world['script']).st_mode & 0o777 == 0o755
    repo = read(os.path.join(world['reposdir'], 'doca-kernel-%s.repo' % KVER))
    assert dh.repo_ids(repo) == [REPO_ID]
    assert 'baseurl=file:///m/%s\n' % KVER in repo
    assert read(os.path.join(world['reposdir'], 'baseos.repo')) == '[baseos]\nbaseurl=file:///b\n'


def test_installed_package_means_no_rebuild(world, monkeypatch):
    fixed, found = dh.fix_kvers_pack(SCRIPT)
    with open(world['script'], 'w') as handle:
        handle.write(fixed)
    table = {('/usr/bin/rpm', '-q', PACKAGE): (0, PACKAGE + '\n', '')}
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world), table, monkeypatch)
    assert not failed and found == 1
    assert (result['changed'], result['built'], result['installed'], result['commands']) == (False, False, True, [])
    assert calls == [('/usr/bin/rpm', '-q', PACKAGE)]


def test_check_mode_writes_nothing(world, monkeypatch):
    table = {('/usr/bin/rpm', '-q', PACKAGE): (1, '', '')}
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world, _ansible_check_mode=True, _ansible_diff=True), table, monkeypatch)
    assert not failed
    assert (result['changed'], result['built'], result['commands']) == (True, True, [world['script']])
    assert read(world['script']) == SCRIPT
    assert sorted(os.listdir(world['reposdir'])) == ['baseos.repo']
    assert result['diff']['before'] == 'KVERS_PACK="${KVERS//[ _-]/.}"\n'
    assert result['diff']['after'] == dh.KVERS_PACK_FIXED + '\n'


def test_failed_build_reports_the_scripts_error(world, monkeypatch):
    # What rpmbuild prints for the '^' the shipped KVERS_PACK line leaves (tests/fixtures/SOURCES.md).
    with open(os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures', 'rpmbuild_illegal_char_caret_in_name_rpm_4_18.txt')) as handle:
        err = handle.read()
    table = {('/usr/bin/rpm', '-q', PACKAGE): (1, '', ''), (world['script'],): (1, '', err)}
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world), table, monkeypatch)
    assert failed
    assert "Illegal char '^'" in result['msg'] and result['msg'].startswith(world['script'] + ' failed (rc 1)')


def test_no_repository_left_behind(world, monkeypatch):
    table = {('/usr/bin/rpm', '-q', PACKAGE): (1, '', ''), (world['script'],): (0, '', '')}
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world), table, monkeypatch)
    assert failed and 'set doca_host_kernel_repo_baseurl' in result['msg']
    os.remove(world['script'])
    with open(world['script'], 'w') as handle:
        handle.write(SCRIPT)
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world, repo_baseurl='file:///m/' + KVER), table, monkeypatch)
    assert not failed
    assert read(os.path.join(world['reposdir'], REPO_ID + '.repo')) == dh.repo_file_text(REPO_ID, 'file:///m/' + KVER)


def test_unknown_script_is_refused(world, monkeypatch):
    with open(world['script'], 'w') as handle:
        handle.write('#!/bin/bash\necho another script\n')
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world), {}, monkeypatch)
    assert failed and 'has no KVERS_PACK= line' in result['msg'] and calls == []


def test_packages_installs_only_the_missing_ones(world, monkeypatch):
    table = {
        ('/usr/bin/rpm', '-q', 'doca-host'): (0, 'doca-host\n', ''),
        ('/usr/bin/rpm', '-q', PACKAGE): (1, '', ''),
        ('/usr/bin/dnf', 'install', '-y', '--disablerepo=*', '--enablerepo=' + REPO_ID, PACKAGE): (0, 'Complete!\n', ''),
    }
    state = {'installed': False}

    def rpm_q(calls):
        return (0, PACKAGE, '') if state['installed'] else (1, '', '')

    def dnf(calls):
        state['installed'] = True
        return (0, '', '')

    table[('/usr/bin/rpm', '-q', PACKAGE)] = rpm_q
    table[('/usr/bin/dnf', 'install', '-y', '--disablerepo=*', '--enablerepo=' + REPO_ID, PACKAGE)] = dnf
    params = {'names': ['doca-host', PACKAGE], 'disablerepo': ['*'], 'enablerepo': [REPO_ID]}
    result, failed, calls = run_module(doca_host_packages.main, dict(params, _ansible_check_mode=True), table, monkeypatch)
    assert not failed and result['changed'] and result['missing'] == [PACKAGE]
    assert not state['installed']
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert not failed and result['changed'] and state['installed']
    assert result['commands'] == ['/usr/bin/dnf install -y \'--disablerepo=*\' --enablerepo=%s %s' % (REPO_ID, PACKAGE)]
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert not failed and not result['changed'] and result['commands'] == []


def test_packages_from_a_file_and_a_failing_dnf(world, monkeypatch):
    table = {
        ('/usr/bin/rpm', '-q', 'doca-host'): (1, 'package doca-host is not installed\n', ''),
        ('/usr/bin/dnf', 'install', '-y', '/tmp/doca-host-3.3.0-088000_26.01_rhel9.x86_64.rpm'): (1, '', 'Error: nothing provides jsoncpp\n'),
    }
    params = {'packages': [{'name': 'doca-host', 'src': '/tmp/doca-host-3.3.0-088000_26.01_rhel9.x86_64.rpm'}]}
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert failed and result['msg'].endswith('failed (rc 1): Error: nothing provides jsoncpp')


DEB = '/var/tmp/offload-testbed/doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb'
STATUS = '-f=${Status}\\n'


@pytest.fixture
def apt_host(monkeypatch):
    def get_bin_path(self, name, required=False, opt_dirs=None):
        return '/usr/bin/' + name if name in ('dpkg-query', 'apt-get') else None

    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', get_bin_path)


def dpkg_query(state, name):
    """dpkg-query -W as dpkg answers: installed, or rc 1 and a message on stderr."""
    def answer(calls):
        if name in state['installed']:
            return (0, 'install ok installed\n', '')
        return (1, '', 'dpkg-query: no packages found matching %s\n' % name)
    return answer


def test_apt_updates_the_cache_then_installs_only_the_missing(apt_host, monkeypatch):
    state = {'installed': {'doca-host'}, 'updated': 0}

    def update(calls):
        state['updated'] += 1
        return (0, 'Reading package lists...\n', '')

    def install(calls):
        state['installed'].update(['doca-networking', 'linux-headers-6.8.0-60-generic'])
        return (0, '', '')

    names = ['doca-host', 'doca-networking', 'linux-headers-6.8.0-60-generic']
    table = dict((('/usr/bin/dpkg-query', '-W', STATUS, name), dpkg_query(state, name)) for name in names)
    table[('/usr/bin/apt-get', 'update')] = update
    table[('/usr/bin/apt-get', 'install', '-y', 'doca-networking', 'linux-headers-6.8.0-60-generic')] = install
    params = {'names': names, 'update_cache': True}
    # auto finds no dnf or yum, but apt-get
    result, failed, calls = run_module(doca_host_packages.main, dict(params, _ansible_check_mode=True, _ansible_diff=True), table, monkeypatch)
    assert not failed and result['changed'] and result['manager'] == 'apt'
    assert result['commands'] == ['/usr/bin/apt-get update', '/usr/bin/apt-get install -y doca-networking linux-headers-6.8.0-60-generic']
    assert result['diff'] == {'before': 'doca-networking\nlinux-headers-6.8.0-60-generic\n', 'after': 'doca-networking\nlinux-headers-6.8.0-60-generic\n'}
    assert state == {'installed': {'doca-host'}, 'updated': 0}
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert not failed and result['changed'] and state['updated'] == 1
    assert calls[3:5] == [('/usr/bin/apt-get', 'update'), ('/usr/bin/apt-get', 'install', '-y', 'doca-networking', 'linux-headers-6.8.0-60-generic')]
    # nothing missing: no apt-get update either
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert not failed and not result['changed'] and result['commands'] == [] and state['updated'] == 1
    assert all(call[0] == '/usr/bin/dpkg-query' for call in calls)


def test_apt_installs_a_local_deb_by_path_and_reports_apt_errors(apt_host, monkeypatch):
    state = {'installed': set()}
    table = {
        ('/usr/bin/dpkg-query', '-W', STATUS, 'doca-host'): dpkg_query(state, 'doca-host'),
        ('/usr/bin/apt-get', 'install', '-y', DEB): (100, 'Reading package lists...\n', 'E: Unsupported file %s given on commandline\n' % DEB),
    }
    params = {'manager': 'apt', 'packages': [{'name': 'doca-host', 'src': DEB}]}
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert failed
    assert result['msg'] == '/usr/bin/apt-get install -y %s failed (rc 100): E: Unsupported file %s given on commandline' % (DEB, DEB)


def test_apt_that_installs_nothing_is_caught(apt_host, monkeypatch):
    state = {'installed': set()}
    table = {
        ('/usr/bin/dpkg-query', '-W', STATUS, 'doca-networking'): dpkg_query(state, 'doca-networking'),
        ('/usr/bin/apt-get', 'install', '-y', 'doca-networking'): (0, '', ''),
    }
    result, failed, calls = run_module(doca_host_packages.main, {'manager': 'apt', 'names': ['doca-networking']}, table, monkeypatch)
    assert failed and result['msg'] == 'apt-get returned 0 but the package database still does not know doca-networking'


def test_apt_refuses_dnf_repository_options(apt_host, monkeypatch):
    state = {'installed': set()}
    table = {('/usr/bin/dpkg-query', '-W', STATUS, 'doca-networking'): dpkg_query(state, 'doca-networking')}
    params = {'manager': 'apt', 'names': ['doca-networking'], 'enablerepo': ['doca']}
    result, failed, calls = run_module(doca_host_packages.main, params, table, monkeypatch)
    assert failed and result['msg'] == 'disablerepo and enablerepo are dnf options; with manager=apt leave them empty'


def test_auto_without_any_package_manager(monkeypatch):
    monkeypatch.setattr(basic.AnsibleModule, 'get_bin_path', lambda self, name, required=False, opt_dirs=None: None)
    result, failed, calls = run_module(doca_host_packages.main, {'names': ['x']}, {}, monkeypatch)
    assert failed and result['msg'] == 'found neither dnf/yum nor apt-get on PATH; set manager to dnf or apt' and calls == []


@pytest.mark.parametrize('kver', ['', '^5.14.0-611.47.1.sl9_7^2.x86_64', '5.14.0 611', 'x86_64', '5.14.0/611'])
def test_a_kernel_release_that_uname_never_prints_is_refused_before_anything(world, monkeypatch, kver):
    result, failed, calls = run_module(doca_kernel_support.main, kargs(world, kernel_release=kver), {}, monkeypatch)
    assert failed and calls == []
    assert result['msg'] == ('kernel_release: %r is not a kernel release; give what uname -r prints, for example '
                             '5.14.0-611.47.1.sl9_7^2.x86_64' % kver)
    assert read(world['script']) == SCRIPT
