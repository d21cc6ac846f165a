"""Build the fake host the emulators and the boot_params/sriov_switchdev
modules run against: a sysfs tree and a procfs tree under a directory.

    python fake_host.py ROOT [--no-pdpe1gb] [--mem-kb N]
    python fake_host.py ROOT --boot ID --cmdline ARGS --hugepages N,N --isolated CPUS

The first form builds the tree; the second "boots" it: a new boot id, a
command line, 1G hugepages per NUMA node and the isolated/nohz_full CPUs.

Creates ROOT/sys and ROOT/proc: 16 CPUs as 8 cores x 2 threads (CPU n and
n+8 are siblings), NUMA node 0 with CPUs 0-3,8-11 and node 1 with 4-7,12-15,
/proc/cpuinfo, /proc/meminfo, /proc/cmdline (the default grubby fixture
entry), a boot id, and a ConnectX PF enp8s0f1np1 at 0000:08:00.1 (the PF in
legacy mode in tests/fixtures/devlink_dev_eswitch_show_two_pfs.txt) with 8
possible VFs enp8s0f1v0..7, bound to (its ``driver`` link) the mlx5_core driver
with its bind/unbind files.
"""
import argparse
import os

CPUS = 16
CORES = 8
NODES = {0: '0-3,8-11', 1: '4-7,12-15'}
PF = 'enp8s0f1np1'
PF_PCI = '0000:08:00.1'
TOTALVFS = 8
BOOT_ID = '0b0e5f64-9d3c-4f7b-8d6e-2d1f0c9a7e11'
CMDLINE = ('BOOT_IMAGE=(hd0,gpt2)/vmlinuz-6.5.12-100.fc37.x86_64 root=UUID=65c70529-e9ad-4778-9001-18fe8c525285 ro '
           'rootflags=subvol=root rd.luks.uuid=luks-9da1fdf5-14ac-49fd-a388-8b1ee48f3df1 rhgb quiet')
FLAGS = 'fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx pdpe1gb rdtscp lm'


def write(path, text):
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory)
    with open(path, 'w') as handle:
        handle.write(text)


def vf_pci(index):
    return '0000:08:01.%d' % index


def build(root, pdpe1gb=True, mem_kb=65842352):
    sys_root = os.path.join(root, 'sys')
    proc = os.path.join(root, 'proc')
    cpu_dir = os.path.join(sys_root, 'devices', 'system', 'cpu')
    for cpu in range(CPUS):
        core = cpu % CORES
        write(os.path.join(cpu_dir, 'cpu%d' % cpu, 'topology', 'thread_siblings_list'), '%d,%d\n' % (core, core + CORES))
    write(os.path.join(cpu_dir, 'online'), '0-%d\n' % (CPUS - 1))
    write(os.path.join(cpu_dir, 'isolated'), '\n')
    write(os.path.join(cpu_dir, 'nohz_full'), '(null)\n')
    for node, cpus in NODES.items():
        node_dir = os.path.join(sys_root, 'devices', 'system', 'node', 'node%d' % node)
        write(os.path.join(node_dir, 'cpulist'), cpus + '\n')
        write(os.path.join(node_dir, 'hugepages', 'hugepages-1048576kB', 'nr_hugepages'), '0\n')
    flags = FLAGS if pdpe1gb else FLAGS.replace(' pdpe1gb', '')
    write(os.path.join(proc, 'cpuinfo'), ''.join(
        'processor\t: %d\nvendor_id\t: GenuineIntel\nphysical id\t: %d\ncore id\t\t: %d\nflags\t\t: %s\n\n'
        % (cpu, 0 if cpu % CORES < 4 else 1, cpu % CORES, flags) for cpu in range(CPUS)))
    write(os.path.join(proc, 'meminfo'), 'MemTotal:       %d kB\nMemFree:        %d kB\n' % (mem_kb, mem_kb // 2))
    write(os.path.join(proc, 'cmdline'), CMDLINE + '\n')
    write(os.path.join(proc, 'sys', 'kernel', 'random', 'boot_id'), BOOT_ID + '\n')
    devices = os.path.join(sys_root, 'bus', 'pci', 'devices')
    pf_dir = os.path.join(devices, PF_PCI)
    write(os.path.join(pf_dir, 'sriov_totalvfs'), '%d\n' % TOTALVFS)
    write(os.path.join(pf_dir, 'sriov_numvfs'), '0\n')
    write(os.path.join(sys_root, 'class', 'net', PF, 'address'), '0c:42:a1:d1:d0:e1\n')
    os.symlink(os.path.join('..', '..', '..', 'bus', 'pci', 'devices', PF_PCI), os.path.join(sys_root, 'class', 'net', PF, 'device'))
    for index in range(TOTALVFS):
        name = 'enp8s0f1v%d' % index
        write(os.path.join(devices, vf_pci(index), 'net', name, 'address'), '9a:4e:0c:6b:3f:%02x\n' % (0x10 + index))
        os.symlink(os.path.join('..', vf_pci(index)), os.path.join(pf_dir, 'virtfn%d' % index))
        write(os.path.join(sys_root, 'class', 'net', name, 'address'), '9a:4e:0c:6b:3f:%02x\n' % (0x10 + index))
        os.symlink(os.path.join('..', '..', '..', 'bus', 'pci', 'devices', vf_pci(index)), os.path.join(sys_root, 'class', 'net', name, 'device'))
    drivers = os.path.join(sys_root, 'bus', 'pci', 'drivers', 'mlx5_core')
    write(os.path.join(drivers, 'bind'), '')
    write(os.path.join(drivers, 'unbind'), '')
    os.symlink(os.path.join('..', '..', 'drivers', 'mlx5_core'), os.path.join(pf_dir, 'driver'))
    return root


def boot(root, boot_id, cmdline, hugepages, isolated):
    """What a reboot with new kernel arguments changes in the fake tree."""
    write(os.path.join(root, 'proc', 'sys', 'kernel', 'random', 'boot_id'), boot_id + '\n')
    write(os.path.join(root, 'proc', 'cmdline'), cmdline + '\n')
    for node, count in enumerate(hugepages):
        write(os.path.join(root, 'sys', 'devices', 'system', 'node', 'node%d' % node, 'hugepages', 'hugepages-1048576kB', 'nr_hugepages'),
              '%d\n' % count)
    for name in ('isolated', 'nohz_full'):
        write(os.path.join(root, 'sys', 'devices', 'system', 'cpu', name), (isolated or ('' if name == 'isolated' else '(null)')) + '\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    parser.add_argument('root')
    parser.add_argument('--no-pdpe1gb', action='store_true')
    parser.add_argument('--mem-kb', type=int, default=65842352)
    parser.add_argument('--boot', metavar='BOOT_ID')
    parser.add_argument('--cmdline', default=CMDLINE)
    parser.add_argument('--hugepages', default='0,0', help='1G pages per NUMA node')
    parser.add_argument('--isolated', default='')
    args = parser.parse_args()
    if args.boot:
        boot(args.root, args.boot, args.cmdline, [int(n) for n in args.hugepages.split(',')], args.isolated)
    else:
        build(args.root, not args.no_pdpe1gb, args.mem_kb)


if __name__ == '__main__':
    main()
