#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: doca_kernel_support
short_description: Fix and run doca-kernel-support for the running kernel when its DOCA kernel package is missing
version_added: 0.2.0
description:
  - Makes the C(KVERS_PACK) line of C(doca-kernel-support) turn every character outside C([A-Za-z0-9.]) of the
    kernel release into C(.) (the shipped line misses C(^), and C(5.14.0-611.47.1.sl9_7^2.x86_64) breaks rpmbuild
    with C(Illegal char '^')).
  - When C(rpm -q doca-kernel-PACK) says the package for O(kernel_release) is missing and no local repository for it
    exists yet, runs the script, then renames the local repository it left in O(reposdir) to an id without C(^)
    (C(doca_kernel_names) gives the names). The packages themselves are installed by M(offload.testbed.doca_host_packages).
  - Does nothing when the package is installed (no rebuild).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Returns what it would fix and whether it would build, without writing or running anything.
  diff_mode:
    support: full
    description: Returns the script's C(KVERS_PACK) line and the repository file before and after.
options:
  kernel_release:
    description: The kernel release the modules are for (C(uname -r) of the running kernel).
    type: str
    required: true
  script:
    description: Path of the installed C(doca-kernel-support).
    type: path
    default: /opt/mellanox/doca/tools/doca-kernel-support
  reposdir:
    description: Directory of the dnf repository files.
    type: path
    default: /etc/yum.repos.d
  repo_baseurl:
    description:
      - C(baseurl) of the local repository when the script left no repository file behind
        (for example C(file:///usr/share/doca-host-26.01-1.0.0.0/Modules/RELEASE)).
    type: str
"""

EXAMPLES = r"""
- name: Build the DOCA kernel packages for the running kernel when needed
  offload.testbed.doca_kernel_support:
    kernel_release: "{{ ansible_facts.kernel }}"
  register: doca_kernel
"""

RETURN = r"""
names:
  description: C(doca_kernel_names) of the release (C(pack), C(repo_id), C(package)).
  returned: always
  type: dict
installed:
  description: Whether the DOCA kernel package for the release was installed before the run.
  returned: always
  type: bool
built:
  description: Whether the script ran (or would run in check mode).
  returned: always
  type: bool
fixed:
  description: Files rewritten (or that would be).
  returned: always
  type: list
  elements: str
commands:
  description: Commands run (or that would run).
  returned: always
  type: list
  elements: str
"""

import glob
import os
import re
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner
from ansible_collections.offload.testbed.plugins.module_utils.prepare import doca_host as dh
from ansible_collections.offload.testbed.plugins.module_utils.prepare.doca_kernel import doca_kernel_names

# What uname -r prints: digits first, then what rpm takes in a version (the '^' included).
KERNEL_RELEASE_RE = re.compile(r'^[0-9]+\.[0-9]+[A-Za-z0-9._+~^-]*$')


def read(path):
    with open(path) as handle:
        return handle.read()


def write(module, path, text):
    """Write atomically, keeping the mode of an existing file."""
    directory = os.path.dirname(path) or '.'
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.doca_kernel_support.')
    with os.fdopen(fd, 'w') as handle:
        handle.write(text)
    if os.path.exists(path):
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
    else:
        os.chmod(tmp, 0o644)
    module.atomic_move(tmp, path)


def repo_files(reposdir):
    return sorted(glob.glob(os.path.join(reposdir, '*.repo')))


def plan_repo_fixes(reposdir, kver, repo_id):
    """{path: (before, after)} of the repository files to rewrite, and whether repo_id then exists."""
    fixes = {}
    present = False
    for path in repo_files(reposdir):
        text = read(path)
        fixed = dh.fix_repo_text(text, kver, repo_id)
        if fixed != text:
            fixes[path] = (text, fixed)
        present = present or repo_id in dh.repo_ids(fixed)
    return fixes, present


def fix_script(module, script, result, diff):
    """Make the KVERS_PACK line of the installed script the fixed one; False when the script is not installed yet."""
    if not os.path.exists(script):
        if module.check_mode:
            result.update(changed=True, msg='%s is not installed yet (doca-extra ships it); it would be fixed and run' % script)
            return False
        module.fail_json(msg='%s does not exist: install doca-extra (it ships the script) or set doca_host_kernel_support_path' % script)
    text = read(script)
    fixed, found = dh.fix_kvers_pack(text)
    if not found:
        module.fail_json(msg='%s has no KVERS_PACK= line: this DOCA version is not the one the fix knows; check the script by hand' % script)
    if fixed != text:
        result['fixed'].append(script)
        diff[0].append('\n'.join(line for line in text.splitlines() if 'KVERS_PACK=' in line))
        diff[1].append(dh.KVERS_PACK_FIXED)
        if not module.check_mode:
            write(module, script, fixed)
    return True


def build_and_fix_repos(runner, script, kver, names, result, diff):
    """Run the script when no local repository for the release exists, then give that repository an id dnf accepts."""
    module = runner.module
    params = module.params
    fixes, present = plan_repo_fixes(params['reposdir'], kver, names['repo_id'])
    if not present and not fixes:
        # No local repository for this kernel yet: build it.
        result['built'] = True
        # result['commands'] is the runner's own list: a failure returns the result as it stands.
        runner.change([script], fields=result)
        if not module.check_mode:
            fixes, present = plan_repo_fixes(params['reposdir'], kver, names['repo_id'])
    for path, (before, after) in sorted(fixes.items()):
        result['fixed'].append(path)
        diff[0].append(before)
        diff[1].append(after)
        if not module.check_mode:
            write(module, path, after)
    if not present and not module.check_mode:
        if not params['repo_baseurl']:
            module.fail_json(msg='%s left no repository %s in %s: set doca_host_kernel_repo_baseurl to the directory it built' % (
                script, names['repo_id'], params['reposdir']), **result)
        path = os.path.join(params['reposdir'], names['repo_id'] + '.repo')
        text = dh.repo_file_text(names['repo_id'], params['repo_baseurl'])
        write(module, path, text)
        result['fixed'].append(path)
        diff[1].append(text)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            kernel_release=dict(type='str', required=True),
            script=dict(type='path', default='/opt/mellanox/doca/tools/doca-kernel-support'),
            reposdir=dict(type='path', default='/etc/yum.repos.d'),
            repo_baseurl=dict(type='str'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    kver = params['kernel_release'].strip()
    if not KERNEL_RELEASE_RE.match(kver):
        module.fail_json(msg='kernel_release: %r is not a kernel release; give what uname -r prints, for example '
                             '5.14.0-611.47.1.sl9_7^2.x86_64' % params['kernel_release'])
    names = doca_kernel_names(kver)
    result = dict(changed=False, names=names, installed=False, built=False, fixed=[], commands=[])
    diff = ([], [])
    script = params['script']
    if not fix_script(module, script, result, diff):
        module.exit_json(**result)

    rpm = module.get_bin_path('rpm', required=True)
    runner = HostRunner(module)
    result['commands'] = runner.commands
    rc, _out, _err = runner.read([rpm, '-q', names['package']], check_rc=False)
    result['installed'] = rc == 0
    if not result['installed']:
        build_and_fix_repos(runner, script, kver, names, result, diff)
    result['changed'] = bool(result['fixed'] or result['commands'])
    if module._diff:
        result['diff'] = dict(before='\n'.join(diff[0]) + '\n', after='\n'.join(diff[1]) + '\n')
    module.exit_json(**result)


if __name__ == '__main__':
    main()
