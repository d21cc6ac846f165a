#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: doca_host_packages
short_description: Install packages with the dnf or apt-get command line, only those the package database lacks
version_added: 0.2.0
description:
  - With O(manager=dnf) asks C(rpm -q NAME) for each package and installs the missing ones with one
    C(dnf install -y) (C(yum) where there is no dnf), with the repository options given.
  - With O(manager=apt) asks C(dpkg-query -W -f='${Status}\n' NAME) (only C(install ok installed) counts) and installs
    the missing ones with one C(apt-get install -y), after C(apt-get update) when O(update_cache) is set.
  - It drives the programs found on C(PATH) rather than the dnf or apt Python bindings, so
    the same task runs on a real host and against the emulators of the tests.
  - A package may come from a file (O(packages[].src), a local C(.rpm) or C(.deb)); it is still checked by name.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Queries rpm or dpkg-query and returns the dnf or apt-get commands it would run.
  diff_mode:
    support: full
    description: Returns the missing packages before and after.
options:
  manager:
    description:
      - C(dnf) (RHEL family; C(rpm) and C(dnf) or C(yum)) or C(apt) (Debian, Ubuntu; C(dpkg-query) and C(apt-get)).
      - C(auto) picks C(dnf) when C(dnf) or C(yum) is on C(PATH), else C(apt) when C(apt-get) is.
    type: str
    choices: [auto, dnf, apt]
    default: auto
  update_cache:
    description:
      - With O(manager=apt), run C(apt-get update) before installing, and only when something is missing (a
        repository package just installed adds a source apt does not know yet). Ignored by dnf, which reads its
        repositories on every run.
    type: bool
    default: false
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
        description: The package name C(rpm -q) or C(dpkg-query) checks (C(doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64)).
        type: str
        required: true
      src:
        description: A local C(.rpm) or C(.deb) file to install instead of the name from a repository.
        type: str
  disablerepo:
    description: C(--disablerepo) values (C(*) to use only O(enablerepo)); dnf only.
    type: list
    elements: str
    default: []
  enablerepo:
    description: C(--enablerepo) values; dnf only.
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

- name: Install the doca-host repository package on Ubuntu, then DOCA from the source it adds
  offload.testbed.doca_host_packages:
    manager: apt
    packages:
      - {name: doca-host, src: /var/tmp/offload-testbed/doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb}

- name: The DOCA packages, after apt-get update (only when some are missing)
  offload.testbed.doca_host_packages:
    manager: apt
    update_cache: true
    names: [doca-networking, linux-headers-6.8.0-60-generic]
"""

RETURN = r"""
manager:
  description: The package manager used.
  returned: always
  type: str
  sample: apt
missing:
  description: Packages the package database did not know before the run.
  returned: always
  type: list
  elements: str
commands:
  description: The dnf or apt-get commands run (or that would run in check mode), in order.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner
from ansible_collections.offload.testbed.plugins.module_utils.prepare.doca_host import apt_install_argument, dpkg_installed


def missing_packages(runner, manager, query, packages):
    missing = []
    for package in packages:
        if manager == 'dnf':
            rc, _out, _err = runner.read([query, '-q', package['name']], check_rc=False)
            known = rc == 0
        else:
            rc, out, _err = runner.read([query, '-W', '-f=${Status}\\n', package['name']], check_rc=False)
            known = dpkg_installed(rc, out)
        if not known:
            missing.append(package)
    return missing


def planned_commands(module, manager, missing):
    """The commands that install `missing` (empty when nothing is)."""
    p = module.params
    if not missing:
        return []
    if manager == 'dnf':
        dnf = module.get_bin_path('dnf') or module.get_bin_path('yum')
        if not dnf:
            module.fail_json(msg='neither dnf nor yum is installed; use manager=apt on Debian and Ubuntu')
        argv = [dnf, 'install', '-y']
        argv += ['--disablerepo=%s' % repo for repo in p['disablerepo']]
        argv += ['--enablerepo=%s' % repo for repo in p['enablerepo']]
        return [argv + [package.get('src') or package['name'] for package in missing]]
    if p['disablerepo'] or p['enablerepo']:
        module.fail_json(msg='disablerepo and enablerepo are dnf options; with manager=apt leave them empty')
    apt = module.get_bin_path('apt-get', required=True)
    commands = [[apt, 'update']] if p['update_cache'] else []
    return commands + [[apt, 'install', '-y'] + [apt_install_argument(package) for package in missing]]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            manager=dict(type='str', choices=['auto', 'dnf', 'apt'], default='auto'),
            update_cache=dict(type='bool', default=False),
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
    manager = module.params['manager']
    if manager == 'auto':
        if module.get_bin_path('dnf') or module.get_bin_path('yum'):
            manager = 'dnf'
        elif module.get_bin_path('apt-get'):
            manager = 'apt'
        else:
            module.fail_json(msg='found neither dnf/yum nor apt-get on PATH; set manager to dnf or apt')
    query = module.get_bin_path('rpm' if manager == 'dnf' else 'dpkg-query', required=True)
    runner = HostRunner(module)
    before = missing_packages(runner, manager, query, packages)
    commands = planned_commands(module, manager, before)
    fields = dict(manager=manager, missing=[p['name'] for p in before])
    out = ''
    for argv in commands:
        out = runner.change(argv, fields=dict(fields, changed=True))[1]
    result = dict(fields, changed=bool(commands), commands=runner.commands)
    after = before
    if commands and not module.check_mode:
        after = missing_packages(runner, manager, query, packages)
        if after:
            module.fail_json(msg='%s returned 0 but the package database still does not know %s' % (
                os.path.basename(commands[-1][0]), ', '.join(p['name'] for p in after)), stdout=out, **result)
    if module._diff:
        result['diff'] = dict(before='\n'.join(p['name'] for p in before) + '\n', after='\n'.join(p['name'] for p in after) + '\n')
    module.exit_json(**result)


if __name__ == '__main__':
    main()
