#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: doca_host_packages
short_description: Install RPM packages with the dnf command line, only those rpm reports missing
version_added: 0.2.0
description:
  - Asks C(rpm -q NAME) for each package and installs the missing ones with one
    C(dnf install -y) (C(yum) where there is no dnf), with the repository options given.
  - It drives the C(rpm) and C(dnf) programs found on C(PATH) rather than the dnf Python bindings, so
    the same task runs on a RHEL-family host and against the emulators of the tests.
  - A package may come from a file (O(packages[].src), a local C(.rpm)); it is still checked by name.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Queries rpm and returns the dnf command it would run.
  diff_mode:
    support: full
    description: Returns the missing packages before and after.
options:
  names:
    description: Packages by name, from the enabled repositories.
    type: list
    elements: str
    default: []
  packages:
    description: Packages that may come from a file; O(names) and O(packages) are installed together.
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description: The package name C(rpm -q) checks (C(doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64)).
        type: str
        required: true
      src:
        description: A local C(.rpm) file to install instead of the name from a repository.
        type: str
  disablerepo:
    description: C(--disablerepo) values (C(*) to use only O(enablerepo)).
    type: list
    elements: str
    default: []
  enablerepo:
    description: C(--enablerepo) values.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Install the DOCA kernel package from its local repository only
  offload.testbed.doca_host_packages:
    names: [doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64]
    disablerepo: ["*"]
    enablerepo: [doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64]
"""

RETURN = r"""
missing:
  description: Packages rpm did not know before the run.
  returned: always
  type: list
  elements: str
commands:
  description: The dnf command run (or that would run in check mode).
  returned: always
  type: list
  elements: str
"""

import shlex

from ansible.module_utils.basic import AnsibleModule


def missing_packages(module, rpm, packages):
    missing = []
    for package in packages:
        rc, _out, _err = module.run_command([rpm, '-q', package['name']])
        if rc != 0:
            missing.append(package)
    return missing


def main():
    module = AnsibleModule(
        argument_spec=dict(
            names=dict(type='list', elements='str', default=[]),
            packages=dict(type='list', elements='dict', default=[], options=dict(
                name=dict(type='str', required=True),
                src=dict(type='str'),
            )),
            disablerepo=dict(type='list', elements='str', default=[]),
            enablerepo=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    packages = [dict(name=name, src=None) for name in module.params['names']] + module.params['packages']
    if not packages:
        module.fail_json(msg='give at least one package in names or packages')
    rpm = module.get_bin_path('rpm', required=True)
    before = missing_packages(module, rpm, packages)
    commands = []
    if before:
        dnf = module.get_bin_path('dnf') or module.get_bin_path('yum')
        if not dnf:
            module.fail_json(msg='neither dnf nor yum is installed; this step is for RHEL-family hosts')
        argv = [dnf, 'install', '-y']
        argv += ['--disablerepo=%s' % repo for repo in module.params['disablerepo']]
        argv += ['--enablerepo=%s' % repo for repo in module.params['enablerepo']]
        argv += [package.get('src') or package['name'] for package in before]
        commands.append(argv)
    result = dict(changed=bool(commands), commands=[shlex.join(c) for c in commands], missing=[p['name'] for p in before])
    after = before
    if commands and not module.check_mode:
        rc, out, err = module.run_command(commands[0])
        if rc != 0:
            module.fail_json(msg='%s failed (rc %s): %s' % (result['commands'][0], rc, (err or out).strip()), stdout=out, stderr=err, **result)
        after = missing_packages(module, rpm, packages)
        if after:
            module.fail_json(msg='dnf returned 0 but rpm still does not know %s' % ', '.join(p['name'] for p in after), stdout=out, **result)
    if module._diff:
        result['diff'] = dict(before='\n'.join(p['name'] for p in before) + '\n', after='\n'.join(p['name'] for p in after) + '\n')
    module.exit_json(**result)


if __name__ == '__main__':
    main()
