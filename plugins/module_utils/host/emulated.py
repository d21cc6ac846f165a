# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The guard of the virtual lab's host stages.

In the virtual inventory every host is the machine that runs the lab, and
the host preparation roles (doca_host, nic_firmware, boot_params,
sriov_switchdev) run against emulated hardware: a fake sysfs/procfs tree and
the emulators of the real command lines, first on PATH. ``errors`` tells
every way a host stage could still reach the real machine: a path outside
the emulated host's root, a command that does not resolve to an emulator, a
NetworkManager reload, a systemd unit enabled, or a reboot by anything but
the emulated one. The play stops on the first error, before any role runs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

# Every variable of the host roles that names a file or directory on the
# host. Each must be set (the roles' defaults are the real machine's paths).
PATH_VARIABLES = (
    'boot_params_grub_dropin', 'boot_params_procfs_root', 'boot_params_state_file', 'boot_params_sysfs_root',
    'doca_host_download_dir', 'doca_host_kernel_support_path', 'doca_host_reposdir',
    'nic_firmware_sysfs_root',
    'sriov_switchdev_nm_conf', 'sriov_switchdev_script', 'sriov_switchdev_sysfs_root', 'sriov_switchdev_unit',
)
# Variables that name a command (an argv list or a program), with the roles'
# defaults: a program name is found on PATH.
COMMAND_DEFAULTS = {
    'boot_params_grubby_command': 'grubby',
    'boot_params_reboot_command': '',
    'boot_params_update_grub_command': 'update-grub',
    'doca_host_mlxfwmanager': 'mlxfwmanager',
    'doca_host_openibd': '/etc/init.d/openibd',
    'doca_host_mst': 'mst',
    'nic_firmware_openibd': '/etc/init.d/openibd',
    'nic_firmware_mst': 'mst',
    'nic_firmware_reboot_command': '',
}
# Programs the roles' modules find on PATH (get_bin_path, run_command).
PROGRAMS = (
    'apt-get', 'devlink', 'dnf', 'dpkg-query', 'ethtool', 'flint', 'grubby', 'ip', 'mlxfwmanager',
    'mlxfwreset', 'mst', 'rpm',
)
# Switches that would reach the real machine whatever the paths say; their
# roles' defaults are true, so each must be set to false.
MUST_BE_OFF = ('sriov_switchdev_nm_reload', 'sriov_switchdev_unit_enable')
# Host roles with no emulated host: they may not be among site_host_roles
# (playbooks/prepare.yml) in the virtual lab (role -> why, and what to do).
NOT_EMULATED = {
    'dpdk_host': 'its hugepages are this machine\'s own, reserved by the virtual_lab role for the dpdk datapath '
                 '(lab_datapath: dpdk), and it has no emulated PCI devices; leave it out',
}


def under(path, root):
    """Whether ``path`` (absolute, normalised) lies inside ``root``."""
    if not isinstance(path, str) or not os.path.isabs(path):
        return False
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip('/') + '/')


def program(value):
    """The program of a command variable: the first word of an argv list or the string."""
    if isinstance(value, (list, tuple)):
        return value[0] if value else ''
    return value or ''


# boot_params runs one of these, as boot_params_method says.
UNUSED_BY_METHOD = {'grubby': 'boot_params_update_grub_command', 'grub_dropin': 'boot_params_grubby_command'}


def commands(values):
    """Command variable -> the program it runs (set, else the role's default); the one boot_params skips is left out."""
    method = values['boot_params_method'] if 'boot_params_method' in values else 'auto'
    return dict((name, program(values[name] if name in values else default))
                for name, default in COMMAND_DEFAULTS.items() if name != UNUSED_BY_METHOD.get(method))


def programs(values):
    """Every program name the guard must find on the host's PATH."""
    names = set(PROGRAMS)
    names.update(first for first in commands(values).values() if first and not os.path.isabs(first))
    return sorted(names)


def path_errors(values, root):
    """Path variables (and firmware image paths) unset or outside ``root``."""
    errors = []
    for name in PATH_VARIABLES:
        if name not in values:
            errors.append('%s: not set; its role default is a path of the real machine: set it under %s' % (name, root))
        elif not under(values[name], root):
            errors.append('%s: %s is outside the emulated host %s' % (name, values[name], root))
    for psid, spec in sorted((values['nic_firmware_images'] if 'nic_firmware_images' in values else {}).items()):
        image = (spec or {}).get('image', '')
        if not under(image, root):
            errors.append('nic_firmware_images[%s].image: %s is outside the emulated host %s' % (psid, image, root))
    return errors


def command_errors(values, resolved, emulators):
    """Commands that would run a real program instead of an emulator.

    ``resolved`` maps a program name to where PATH finds it on the host
    (``command -v``; empty when nowhere); ``emulators`` is the emulators' directory.
    """
    errors = []
    for name, first in sorted(commands(values).items()):
        where = first if os.path.isabs(first) else resolved.get(first, '')
        if first and not under(where, emulators):
            errors.append('%s: %s runs %s, not an emulator in %s' % (name, first, where or 'nothing (not on PATH)', emulators))
    for name in PROGRAMS:
        if not under(resolved.get(name, ''), emulators):
            errors.append('PATH: %s is %s, not an emulator in %s' % (name, resolved.get(name) or 'not found', emulators))
    return errors


def switch_errors(values):
    """Switches that must be off, and a reboot that is not the emulated one."""
    errors = ['%s: %s would act on the real machine; set it to false' % (name, 'unset (the default true)' if name not in values else 'true')
              for name in MUST_BE_OFF if name not in values or values[name]]
    roles = values['site_host_roles'] if 'site_host_roles' in values else []
    errors += ['site_host_roles: %s would act on the real machine: %s' % (role, why) for role, why in sorted(NOT_EMULATED.items())
               if role in (roles or [])]
    for role in ('boot_params', 'nic_firmware'):
        if role + '_reboot_ok' in values and values[role + '_reboot_ok'] and not commands(values)[role + '_reboot_command']:
            errors.append('%s_reboot_ok: true without %s_reboot_command would reboot the real machine;'
                          ' set %s_reboot_command to the emulated reboot' % (role, role, role))
    return errors


def errors(values, resolved, root, emulators):
    """Every reason the host stages could touch the real machine, each naming its variable.

    ``values`` is the host's variables (a mapping that answers ``in`` and
    ``[]``, such as hostvars[host]); a variable it lacks takes its role's default.
    """
    for name, where in (('virtual_lab_hardware_root', root), ('virtual_lab_emulators', emulators)):
        if not isinstance(where, str) or not os.path.isabs(where) or os.path.normpath(where) == '/':
            return ['%s: %r is not a directory of its own' % (name, where)]
    return path_errors(values, root) + command_errors(values, resolved, emulators) + switch_errors(values)
