#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: dpdk_vfio
short_description: The vfio-pci driver loaded, in no-IOMMU mode only where that is explicitly allowed
version_added: 0.2.0
description:
  - Loads C(vfio-pci) (C(modprobe vfio-pci)) when C(/sys/module/vfio_pci) is missing.
  - Before it loads anything it asks C(modprobe -n) whether the host has each module it would load, and refuses, naming
    O(names) C(load), a host whose kernel has no C(vfio-pci) or C(vfio) module (a kernel built without VFIO, a missing
    module tree).
  - Reads whether the host has an IOMMU (entries under C(/sys/kernel/iommu_groups)). Without one (a VM without a
    virtual IOMMU, a host booted without C(intel_iommu=on)) vfio-pci binds devices only in the vfio module's no-IOMMU
    mode; the module turns it on (C(modprobe vfio enable_unsafe_noiommu_mode=1), or the module parameter in sysfs
    when vfio is loaded already) only with O(noiommu), and warns what it gives up. Without O(noiommu) it refuses,
    naming the option.
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.module.validate
attributes:
  check_mode:
    description: Reads the host and returns the planned O(ignore:commands); nothing is loaded or written.
  diff_mode:
    description: The commands say what changes.
options:
  noiommu:
    description:
      - Allow the no-IOMMU mode of vfio on a host without an IOMMU. It gives up DMA isolation (a device can write
        anywhere in memory) and taints the kernel.
    type: bool
    default: false
  root:
    description: Where the host's sysfs is found (C(root)/sys); a fake tree in tests.
    type: path
    default: /
  modprobe:
    description: The modprobe command.
    type: str
    default: modprobe
  validate_only:
    description: Only read the host and check; return the problems in RV(errors) and change nothing.
  names:
    description:
      - "How the messages call the options (C({noiommu: dpdk_host_vfio_noiommu})); C(load) names what asked for vfio-pci to be
        loaded (C(dpdk_host_vfio_load)), C(modprobe) by default."
"""

EXAMPLES = r"""
- name: vfio-pci on a VM without a virtual IOMMU, knowing what that gives up
  offload.testbed.dpdk_vfio:
    noiommu: true
"""

RETURN = r"""
commands:
  description: The commands and sysfs writes run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
  sample: ["modprobe vfio enable_unsafe_noiommu_mode=1", "modprobe vfio-pci"]
errors:
  description: Why vfio-pci cannot be used as asked on this host; empty when it can.
  returned: always
  type: list
  elements: str
iommu_groups:
  description: The number of IOMMU groups of the host.
  returned: always
  type: int
noiommu:
  description: Whether vfio is (or, in check mode, will be) in no-IOMMU mode.
  returned: always
  type: bool
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner

ARGUMENT_SPEC = dict(
    noiommu=dict(type='bool', default=False),
    root=dict(type='path', default='/'),
    modprobe=dict(type='str', default='modprobe'),
    validate_only=dict(type='bool', default=False),
    names=dict(type='dict', default={}),
)
NOIOMMU_PARAMETER = os.path.join('sys', 'module', 'vfio', 'parameters', 'enable_unsafe_noiommu_mode')
WARNING = ('vfio is in no-IOMMU mode (%s: true) on a host without an IOMMU: devices bound to vfio-pci have no DMA isolation, '
           'a device (or the DPDK application driving it) can write anywhere in memory, and the kernel is tainted. '
           'Use it only on a lab VM; enable the IOMMU (intel_iommu=on / amd_iommu=on iommu=pt) for anything else')


def read_host(root):
    groups = os.path.join(root, 'sys', 'kernel', 'iommu_groups')
    try:
        count = len(os.listdir(groups))
    except OSError:
        count = 0
    try:
        with open(os.path.join(root, NOIOMMU_PARAMETER)) as handle:
            noiommu = handle.read().strip() in ('Y', '1')
    except (IOError, OSError):
        noiommu = False
    module = os.path.join(root, 'sys', 'module')
    return {'groups': count, 'vfio': os.path.isdir(os.path.join(module, 'vfio')),
            'vfio_pci': os.path.isdir(os.path.join(module, 'vfio_pci')), 'noiommu': noiommu}


def names_of(params):
    """How the messages call the options (what asked for vfio-pci to be loaded is ``modprobe`` unless named)."""
    return validate.Names(dict({'load': 'modprobe'}, **params['names']))


def errors_of(params, host):
    name = names_of(params)('noiommu')
    if host['groups'] or params['noiommu'] or host['noiommu']:
        return []
    return ['%s: this host has no IOMMU (nothing under /sys/kernel/iommu_groups: a VM without a virtual IOMMU, or a host '
            'booted without intel_iommu=on / amd_iommu=on), so vfio-pci can bind devices only in no-IOMMU mode, which gives up '
            'DMA isolation (a device can write anywhere in memory) and taints the kernel. Enable the IOMMU (boot_params role, '
            'boot_params_iommu), or set %s: true to accept that' % (name, name)]


def load_errors(runner, params, steps):
    """What ``modprobe -n`` says of each module the plan loads: the host's kernel must have it (run in check mode too)."""
    name = names_of(params)('load')
    errors = []
    for step in steps:
        if step[0] != 'modprobe':
            continue
        rc, out, err = runner.read([params['modprobe'], '-n', step[1][1]], check_rc=False)
        if rc != 0:
            errors.append('%s: the kernel of this host has no %s module to load (modprobe -n %s: %s, rc %d); install the kernel\'s '
                          'VFIO modules (CONFIG_VFIO_PCI), or set %s to false and bind the devices to a driver the host has'
                          % (name, step[1][1], step[1][1], (err or out).strip() or 'no output', rc, name))
    return errors


def plan(params, host):
    """``[('modprobe', argv) | ('write', path, value)]``."""
    steps = []
    wants_noiommu = not host['groups'] and params['noiommu'] and not host['noiommu']
    if wants_noiommu and not host['vfio']:
        steps.append(('modprobe', [params['modprobe'], 'vfio', 'enable_unsafe_noiommu_mode=1']))
    elif wants_noiommu:
        steps.append(('write', os.path.join(params['root'], NOIOMMU_PARAMETER), '1'))
    if not host['vfio_pci']:
        steps.append(('modprobe', [params['modprobe'], 'vfio-pci']))
    return steps


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    host = read_host(p['root'])
    steps = plan(p, host)
    runner = HostRunner(module)
    errors = errors_of(p, host) + load_errors(runner, p, steps)
    noiommu = not host['groups'] and (host['noiommu'] or p['noiommu'])
    result = dict(changed=False, commands=runner.commands, errors=errors, iommu_groups=host['groups'], noiommu=noiommu)
    if errors and not p['validate_only']:
        module.fail_json(msg='; '.join(errors), **result)
    if p['validate_only'] or errors:
        module.exit_json(**result)
    fields = dict(errors=errors, iommu_groups=host['groups'], noiommu=noiommu)
    for step in steps:
        if step[0] == 'modprobe':
            runner.change(step[1], fields=fields)
        else:
            runner.write(step[1], step[2], **fields)
    if noiommu:
        module.warn(WARNING % names_of(p)('noiommu'))
    if host['groups'] and p['noiommu']:
        module.warn('%s: true is not used: this host has an IOMMU (%d groups), vfio-pci isolates its devices'
                    % (names_of(p)('noiommu'), host['groups']))
    result['changed'] = bool(result['commands'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
