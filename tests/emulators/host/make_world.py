# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the emulated SmartNIC host for the molecule scenario host_doca_firmware
and the virtual lab (roles/virtual_lab, tasks hardware.yml).

Usage: python make_world.py ROOT EMULATORS KERNEL_RELEASE [dnf|apt]

ROOT gets the state of the emulators in tests/emulators (doca, mlnx), the
repositories and package files dnf (or apt) installs from, the firmware images on the
"controller" and a fake sysfs tree. One process instead of one Ansible task
per file keeps the scenario fast.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys
import zipfile

PCI = 'sys/bus/pci/devices/'
# The vendor's files as shipped: Lenovo's self-extracting bundle for mlxfwmanager on the host (executable), and
# NVIDIA's download for one PSID, the image in a zip, on the controller.
BUNDLE = 'opt/firmware/mlxfwmanager_LES_25B_DOCA_3.2.0_build3'
ZIP = 'controller/fw-ConnectX6Dx-rel-22_45_3608-MCX623106AC-CDA_Ax-UEFI-14.38.16-FlexBoot-3.7.500.signed.bin.zip'


def bundle(emulators, images):
    """An emulated self-extracting bundle: mlxfwmanager with these (PSID, version) images inside."""
    lines = ['#!/usr/bin/env bash', '# Emulated vendor bundle for mlxfwmanager (see %s/mlnx/mlnx_emu.py); its images:' % emulators]
    for psid, version in images:
        lines += ['# PSID: %s' % psid, '# FW Version: %s' % version]
    return '\n'.join(lines + ['exec "${EMU_PYTHON:-python3}" "%s/mlnx/mlnx_emu.py" mlxfwmanager -i "$0" "$@"' % emulators, ''])


def write_zip(root):
    """NVIDIA's download for MT_0000000436: the image in a zip."""
    member = os.path.basename(ZIP)[:-len('.zip')]
    with zipfile.ZipFile(os.path.join(root, ZIP), 'w') as archive:
        archive.writestr(member, 'PSID: MT_0000000436\nFW Version: 22.45.3608\n')


def packages_dnf(root, emulators, kver):
    return {
        # The doca-host repository package adds the doca repository.
        'controller/doca-host-3.3.0-088000_26.01_rhel9.x86_64.rpm': 'Name: doca-host\nRepo: doca %s/repos/doca\n' % root,
        'repos/doca/doca-openvswitch.rpm': 'Name: doca-openvswitch\n',
        'repos/doca/doca-networking.rpm': 'Name: doca-networking\n',
        # doca-extra ships doca-kernel-support (the emulator, with the shipped KVERS_PACK line).
        'repos/doca/doca-extra.rpm': 'Name: doca-extra\nFile: %s/opt/mellanox/doca/tools/doca-kernel-support %s/doca/doca-kernel-support\n' % (
            root, emulators),
        'repos/doca/doca-ofed-userspace.rpm': 'Name: doca-ofed-userspace\n',
        'repos/baseos/jsoncpp.rpm': 'Name: jsoncpp\n',
        'repos/baseos/kernel-devel-%s.rpm' % kver: 'Name: kernel-devel-%s\n' % kver,
        'etc/yum.repos.d/baseos.repo': '[baseos]\nname=BaseOS\nbaseurl=file://%s/repos/baseos\nenabled=1\ngpgcheck=0\n' % root,
    }


def packages_apt(root, emulators, kver):
    return {
        # The .deb adds a local apt source; apt sees it only after apt-get update.
        'controller/doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb': 'Name: doca-host\nSource: doca %s/repos/doca\n' % root,
        'repos/doca/doca-networking.deb': 'Name: doca-networking\n',
        'repos/ubuntu/linux-headers-%s.deb' % kver: 'Name: linux-headers-%s\n' % kver,
        'etc/apt/sources.list.d/ubuntu.list': 'deb [trusted=yes] file:%s/repos/ubuntu ./\n' % root,
        # The distribution's lists are current (apt-get update ran when the host was installed).
        'state/doca/apt-lists.json': json.dumps({'linux-headers-%s' % kver: '%s/repos/ubuntu/linux-headers-%s.deb' % (root, kver)}),
    }


def world(root, emulators, kver, manager='dnf'):
    cards = [
        # A Lenovo ConnectX-6 Lx on old firmware.
        {'pci': '0000:32:00.0', 'psid': 'LNV0000000033', 'burned': '26.43.1014', 'running': '26.43.1014',
         'netdev': 'ens3f0np0', 'device_type': 'ConnectX6LX', 'base_guid': '08c0eb030053eaec', 'base_mac': '08c0eb53eaec'},
        # An NVIDIA ConnectX-6 Dx whose burned firmware waits for a reset.
        {'pci': '0000:81:00.0', 'psid': 'MT_0000000436', 'burned': '22.45.3608', 'running': '22.43.1020',
         'netdev': 'ens5f0np0', 'device_type': 'ConnectX6DX', 'part_number': 'MCX623106AC-CDA_Ax',
         'description': 'ConnectX-6 Dx EN adapter card; 100GbE; Dual-port QSFP56; PCIe 4.0 x16; Crypto and Secure Boot',
         'base_guid': '1c34da030073458a', 'base_mac': '1c34da73458a'},
    ]
    files = (packages_apt if manager == 'apt' else packages_dnf)(root, emulators, kver)
    files.update({
        'state/doca/installed': '',
        # Firmware images: what flint -i IMAGE q reads.
        'controller/fw-ConnectX6Lx-LNV0000000033-26.47.1026.bin': 'PSID: LNV0000000033\nFW Version: 26.47.1026\n',
        'controller/fw-ConnectX6Dx-MT_0000000436-22.45.3608.bin': 'PSID: MT_0000000436\nFW Version: 22.45.3608\n',
        'controller/fw-ConnectX6Lx-MT_0000000158-26.47.1026.bin': 'PSID: MT_0000000158\nFW Version: 26.47.1026\n',
        # The vendor's self-extracting bundle for mlxfwmanager, as the reference bench ran it (BUNDLE).
        BUNDLE: bundle(emulators, [('LNV0000000033', '26.47.1026')]),
        'state/mlnx/devices.json': json.dumps(cards, indent=1, sort_keys=True) + '\n',
        # sysfs: two cards (function 0 and 1 of the first), and a NIC of another vendor.
        PCI + '0000:32:00.0/vendor': '0x15b3\n',
        PCI + '0000:32:00.0/net/ens3f0np0/': None,
        PCI + '0000:32:00.0/infiniband/mlx5_0/board_id': 'LNV0000000033\n',
        PCI + '0000:32:00.1/vendor': '0x15b3\n',
        PCI + '0000:32:00.1/net/ens3f1np1/': None,
        PCI + '0000:81:00.0/vendor': '0x15b3\n',
        PCI + '0000:81:00.0/net/ens5f0np0/': None,
        PCI + '0000:81:00.0/infiniband/mlx5_2/board_id': 'MT_0000000436\n',
        PCI + '0000:00:1f.6/vendor': '0x8086\n',
    })
    return files


def main(argv):
    root, emulators, kver = argv[1:4]
    manager = argv[4] if len(argv) > 4 else 'dnf'
    for path, content in sorted(world(root, emulators, kver, manager).items()):
        full = os.path.join(root, path)
        directory = full if content is None else os.path.dirname(full)
        if not os.path.isdir(directory):
            os.makedirs(directory)
        if content is not None:
            with open(full, 'w') as handle:
                handle.write(content)
    for directory in ('state/mlnx', 'etc/yum.repos.d', 'etc/apt/sources.list.d'):
        if not os.path.isdir(os.path.join(root, directory)):
            os.makedirs(os.path.join(root, directory))
    os.chmod(os.path.join(root, BUNDLE), 0o755)
    write_zip(root)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
