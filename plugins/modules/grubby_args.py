#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: grubby_args
short_description: Kernel arguments of the boot entries, with grubby, compared as sets
version_added: 0.2.0
description:
  - Reads C(grubby --info=ALL) (or C(--info=DEFAULT)), compares each boot entry's arguments with O(args) for the
    keys in O(managed_keys), and runs C(grubby --update-kernel=... --remove-args=... --args=...) with only what
    differs.
  - Arguments are compared as sets per key, so the order on the line does not matter, and a duplicate counts as a
    difference that is repaired. The hugepage keys are one ordered group, because the kernel pairs each
    C(hugepages=) with the C(hugepagesz=) before it.
  - Tokens with other keys, such as C(root=), C(ro) and C($tuned_params), are never removed.
  - After writing, reads the entries again and fails if grubby did not leave them as planned.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description:
      - Reads the entries and returns the planned O(ignore:commands).
      - Runs no grubby command that writes.
  diff_mode:
    support: full
    description:
      - Returns the managed arguments of every entry before and after.
options:
  args:
    description:
      - The kernel arguments wanted on every targeted entry, one argument (C(key=value) or a flag) per item.
      - An empty item, or one with blanks or quotes, is refused before anything is read or written.
      - Hugepage sizes (C(hugepagesz=), C(default_hugepagesz=)) must be ones an x86 CPU can map, C(2M) or C(1G).
    type: list
    elements: str
    required: true
  managed_keys:
    description:
      - Argument keys this module owns; current tokens with these keys that are not in O(args) are removed.
      - Defaults to the keys of the C(boot_params) role (IOMMU, hugepages, CPU isolation) plus the keys of O(args).
    type: list
    elements: str
  target:
    description: C(ALL) updates every boot entry (new kernels inherit the arguments); C(DEFAULT) only the default one.
    type: str
    choices: [ALL, DEFAULT]
    default: ALL
  grubby:
    description: The grubby command.
    type: str
    default: grubby
"""

EXAMPLES = r"""
- name: The ConnectX-6 Lx reference bench's hugepages and IOMMU on every boot entry
  offload.testbed.grubby_args:
    args: [intel_iommu=on, iommu=pt, default_hugepagesz=1G, hugepagesz=1G, hugepages=32, hugepagesz=2M, hugepages=0]
  register: grub
"""

RETURN = r"""
commands:
  description: The grubby commands run (or, in check mode, that would run).
  returned: always
  type: list
  elements: str
  sample: ["grubby --update-kernel=ALL '--args=intel_iommu=on iommu=pt'"]
entries:
  description: Per kernel path, the tokens removed and added.
  returned: always
  type: dict
"""


from ansible.module_utils.basic import AnsibleModule

from ansible_collections.offload.testbed.plugins.module_utils.prepare import boot_params as bp
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.parse.grubby import parse_grubby_info
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line


def arg_errors(wanted):
    """O(args): one kernel argument per item, and hugepage sizes an x86 CPU can map."""
    errors = []
    for i, token in enumerate(wanted):
        if not token or any(c.isspace() or c in '"\'' for c in token):
            errors.append('args[%d]: %s is not one kernel argument; write one argument (key=value or a flag) per item, '
                          'without spaces or quotes' % (i, validate.show(token)))
    errors.extend(validate.hugepages('args', validate.hugepage_args([t for t in wanted if t])))
    return errors


def read_entries(runner, target):
    argv = [runner.module.params['grubby'], '--info=%s' % target]
    out = runner.read(argv)[1]
    entries = parse_grubby_info(out)
    if not entries:
        runner.fail('%s printed no Linux boot entry' % command_line(argv), stdout=out)
    return entries


def managed_view(entries, keys):
    return dict((e['kernel'], [t for t in e['args'] if bp.arg_key(t) in keys]) for e in entries)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            args=dict(type='list', elements='str', required=True),
            managed_keys=dict(type='list', elements='str', no_log=False),
            target=dict(type='str', default='ALL', choices=['ALL', 'DEFAULT']),
            grubby=dict(type='str', default='grubby'),
        ),
        supports_check_mode=True,
    )
    wanted = module.params['args']
    errors = arg_errors(wanted)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    keys = module.params['managed_keys'] or bp.managed_keys(wanted)
    for token in wanted:
        if bp.arg_key(token) not in keys:
            module.fail_json(msg='args: %s has key %s, which is not in managed_keys' % (token, bp.arg_key(token)))
    target = module.params['target']
    runner = HostRunner(module)
    entries = read_entries(runner, target)
    commands, plans = bp.grubby_commands(entries, wanted, keys, target, module.params['grubby'])
    for argv in commands:
        runner.change(argv, fields=dict(entries=plans))
    result = {'changed': bool(commands), 'commands': runner.commands, 'entries': plans}
    before = managed_view(entries, keys)
    if commands and not module.check_mode:
        entries = read_entries(runner, target)
        leftover, unused = bp.grubby_commands(entries, wanted, keys, target, module.params['grubby'])
        if leftover:
            module.fail_json(msg='grubby did not leave the arguments as planned; still to do: %s'
                             % '; '.join(command_line(argv) for argv in leftover), **result)
    if module._diff:
        after = dict((kernel, [t for t in before[kernel] if t not in plans[kernel]['remove']] + plans[kernel]['add']) for kernel in before)
        result['diff'] = {
            'before': '\n'.join('%s: %s' % (k, ' '.join(v)) for k, v in sorted(before.items())) + '\n',
            'after': '\n'.join('%s: %s' % (k, ' '.join(v)) for k, v in sorted(after.items())) + '\n',
        }
    module.exit_json(**result)


if __name__ == '__main__':
    main()
