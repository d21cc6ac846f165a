"""The emulated kernel of the dpdk emulators: a PCI sysfs tree under
$DPDK_EMU_ROOT/sys and what the kernel does with the files dpdk-devbind.py
writes into it.

    python pci_kernel.py build ROOT   the tree: this machine's virtio NIC (eth0, the
                                      management NIC, tests/fixtures/lspci_Dvmmnnk_firecracker_virtio.txt)
                                      and an Intel XL710 port on i40e (tests/fixtures/lspci_Dvmmnnk_xl710_vfio.txt)
    python pci_kernel.py apply ROOT   after dpdk-devbind.py ran on it: every PCI address written
                                      to a driver's unbind file leaves that driver (its netdevs go),
                                      every one written to a bind file gets the driver (its netdevs
                                      come back when it is the driver that had them), driver_override
                                      is reset once dpdk-devbind.py wrote "\\0" to it

There is no IOMMU (no sys/kernel/iommu_groups entries), as on this machine.
State beside the tree: ROOT/state/dpdk (calls.log, the netdevs of unbound devices).
The emulators find ROOT in $DPDK_EMU_ROOT, else above $OFFLOAD_EMU_SYSFS.
"""
import json
import os
import re
import shutil
import sys

PCI = re.compile(r'[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]')
# PCI address -> (driver, the directory under the device that holds net/, interface, vendor, device, class)
DEVICES = {
    '0000:00:03.0': ('virtio-pci', 'virtio2', 'eth0', '0x1af4', '0x1041', '0x020000'),
    '0000:86:00.0': ('i40e', '', 'enp134s0f0', '0x8086', '0x1583', '0x020000'),
}
MODULES = ('i40e', 'virtio_pci')
UP = '0x1003\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as handle:
        handle.write(text)


def pci_dir(root, pci=''):
    return os.path.join(root, 'sys', 'bus', 'pci', 'devices', pci)


def drivers_dir(root, driver=''):
    return os.path.join(root, 'sys', 'bus', 'pci', 'drivers', driver)


def stash_dir(root, pci):
    return os.path.join(root, 'state', 'dpdk', 'stash', pci)


def add_driver(root, driver):
    for name in ('bind', 'unbind', 'new_id'):
        path = os.path.join(drivers_dir(root, driver), name)
        if not os.path.exists(path):
            write(path, '')


def link_driver(root, pci, driver):
    os.symlink(os.path.join('..', '..', 'drivers', driver), os.path.join(pci_dir(root, pci), 'driver'))


def build(root):
    for pci, (driver, sub, interface, vendor, device, klass) in sorted(DEVICES.items()):
        base = pci_dir(root, pci)
        for name, value in (('vendor', vendor), ('device', device), ('class', klass), ('driver_override', '(null)')):
            write(os.path.join(base, name), value + '\n')
        write(os.path.join(base, sub, 'net', interface, 'flags'), UP)
        write(os.path.join(root, 'state', 'dpdk', 'netdevs.json'), '{}\n')
        add_driver(root, driver)
        link_driver(root, pci, driver)
    for module in MODULES:
        os.makedirs(os.path.join(root, 'sys', 'module', module), exist_ok=True)
    os.makedirs(os.path.join(root, 'sys', 'kernel', 'iommu_groups'), exist_ok=True)


def driver_of(root, pci):
    link = os.path.join(pci_dir(root, pci), 'driver')
    return os.path.basename(os.readlink(link)) if os.path.islink(link) else None


def net_parent(root, pci):
    for base, dirs, dummy in os.walk(pci_dir(root, pci)):
        if 'net' in dirs:
            return base
    return None


def netdevs(root):
    with open(os.path.join(root, 'state', 'dpdk', 'netdevs.json')) as handle:
        return json.load(handle)


def unbind(root, pci, driver, owners):
    if driver_of(root, pci) != driver:
        return
    os.unlink(os.path.join(pci_dir(root, pci), 'driver'))
    parent = net_parent(root, pci)
    if parent:
        owners[pci] = {'driver': driver, 'parent': os.path.relpath(parent, pci_dir(root, pci))}
        shutil.move(os.path.join(parent, 'net'), stash_dir(root, pci))


def bind(root, pci, driver, owners):
    if driver_of(root, pci) is not None or not os.path.isdir(pci_dir(root, pci)):
        return
    link_driver(root, pci, driver)
    owner = owners.get(pci)
    if owner and owner['driver'] == driver:
        shutil.move(stash_dir(root, pci), os.path.join(pci_dir(root, pci), owner['parent'], 'net'))
        del owners[pci]


def take(path):
    with open(path) as handle:
        text = handle.read()
    if text:
        with open(path, 'w'):
            pass
    return PCI.findall(text.lower())


def apply(root):
    owners = netdevs(root)
    drivers = sorted(os.listdir(drivers_dir(root)))
    for driver in drivers:
        for pci in take(os.path.join(drivers_dir(root, driver), 'unbind')):
            unbind(root, pci, driver, owners)
    for driver in drivers:
        for pci in take(os.path.join(drivers_dir(root, driver), 'bind')):
            bind(root, pci, driver, owners)
    for pci in os.listdir(pci_dir(root)):
        path = os.path.join(pci_dir(root, pci), 'driver_override')
        with open(path) as handle:
            if handle.read() in ('\0', ''):
                write(path, '(null)\n')
    write(os.path.join(root, 'state', 'dpdk', 'netdevs.json'), json.dumps(owners, sort_keys=True) + '\n')


def log(root, tool, argv):
    path = os.path.join(root, 'state', 'dpdk', 'calls.log')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'a') as handle:
        handle.write('%s %s\n' % (tool, ' '.join(argv)))


def emu_root():
    """$DPDK_EMU_ROOT, else the directory above $OFFLOAD_EMU_SYSFS (the other emulators' fake sysfs, as in the bad-input corpus)."""
    root = os.environ.get('DPDK_EMU_ROOT') or (os.path.dirname(os.environ['OFFLOAD_EMU_SYSFS']) if os.environ.get('OFFLOAD_EMU_SYSFS') else '')
    if not root:
        sys.stderr.write('dpdk emulator: neither DPDK_EMU_ROOT nor OFFLOAD_EMU_SYSFS is set\n')
        sys.exit(2)
    return root


if __name__ == '__main__':
    {'build': build, 'apply': apply}[sys.argv[1]](sys.argv[2])
