# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every line the emulators of tests/emulators print is a recorded real output.

Each emulator runs in the states its consumers put it in (its own world set-up:
tests/emulators/grubby/fake_host.py, tests/emulators/host/make_world.py,
ddp_emu.py make-world, ...), every command under the form it is listed with in
tests/fixtures/emulated_outputs.yml. A printed line must equal a line of that
form's recorded files once the form's masks (below: values only) are applied
to both; a JSON document must have, at every level, keys that the recorded
documents have at that level, in their order, with values of the same types.
Every form must be run, and every recorded file must exist and have its row in
tests/fixtures/SOURCES.md (or in the README beside it).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
EMULATORS = os.path.join(ROOT, 'tests', 'emulators')
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures')
with open(os.path.join(FIXTURES, 'emulated_outputs.yml')) as _handle:
    FORMS = yaml.safe_load(_handle)

# The values that vary from one host, device or run to another. Applied in
# this order; every match becomes <name>.
MASKS = dict((name, re.compile(pattern)) for name, pattern in (
    ('handle', r'pci/[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7](?:/\d+)?'),
    ('pci', r'\b[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\b'),
    # the NVIDIA/Mellanox tools' values (mlnx forms)
    ('bdf', r'\b(?:[0-9a-f]{4}:)?[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]\b'),
    ('mst_device', r'\bmt\d+_pci(?:conf|_cr)\d+\b'),
    ('psid', r'\b[A-Z]{2,3}_?\d{10}\b'),
    ('card', r'(?<=Device Type:      )\S+|(?<=Part Number:      )\S+|(?<=Description:      ).+|(?<=<Description>)[^<]*'),
    ('status', r'(?<=<Status>)(?:Update required|Up to date|No matching image found)(?=</Status>)'),
    ('guid', r'\b[0-9a-f]{16}\b|\b[0-9a-f]{12}\b'),
    ('product_version', r'\brel-\d+_\d+_\d+\b'),
    ('mac', r'\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b'),
    ('kernel_args', r'(?<=^args=)".*"$'),
    ('driver_line', r'(?<=^Driver:\t)\S+$'),
    ('repo_id', r'(?<=Bad id for repo: )\S+, byte = \S'),
    ('strerror', r'(?<=: )(?:No such device|Invalid argument|No such file or directory|Operation not supported)$'),
    ('unit', r'[\w@.-]+\.service\b'),
    ('quoted', r'"[^"]*"|\'[^\']*\''),
    ('eswitch_mode', r'\b(?:legacy|switchdev)\b'),
    ('link_flags', r'<[A-Z_,-]*>'),
    ('link_state', r'\bstate (?:UP|DOWN|UNKNOWN)\b'),
    ('kernel_release', r'\b\d+\.\d+\.\d+-[A-Za-z0-9._+~^-]*[A-Za-z0-9_^]'),
    ('package', r'(?<=package )\S+|(?<=matching )\S+|(?<=argument: )\S+|(?<=match: )\S+|(?<=package: )\S+|(?<=Name: )\S+'
                r'|^[a-z][\w.+^-]*-\d[\w.+^~-]*$'),
    ('path', r'(?<![\w.])/[\w./^+~-]+'),
    ('netdev', r'\b(?:en[ops]|eth|pf\d|p\d)[A-Za-z0-9]*'),
    ('version', r'\b\d+(?:\.\d+)+\b'),
    ('hex', r'\b0x[0-9a-fA-F]+\b|\b[0-9A-F]{8}\b'),
    ('number', r'\b\d+\b'),
    ('columns', r'(?<=\S) +(?=\S)'),
))


def mask(line, names):
    for name in MASKS:
        if name in names:
            line = MASKS[name].sub(' ' if name == 'columns' else '<%s>' % name, line)
    return line


def fixture_path(name):
    return os.path.join(ROOT, name) if '/' in name else os.path.join(FIXTURES, name)


def read(name):
    with open(fixture_path(name)) as handle:
        return handle.read()


def json_documents(text):
    try:
        return [json.loads(text)]
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def shapes(value, path='', found=None):
    """``{path: [key order, ...]}`` of every object, and ``{path: type}`` of every leaf, of a JSON document."""
    found = found if found is not None else ({}, {})
    if isinstance(value, dict):
        keys = []
        for key in value:
            key = '<handle>' if '/' in key else key
            if key not in keys:
                keys.append(key)
        found[0].setdefault(path, []).append(keys)
        for key, item in value.items():
            shapes(item, '%s.%s' % (path, '<handle>' if '/' in key else key), found)
    elif isinstance(value, list):
        for item in value:
            shapes(item, path + '[]', found)
    else:
        found[1].setdefault(path, set()).add(type(value).__name__)
    return found


def is_subsequence(keys, recorded):
    it = iter(recorded)
    return all(key in it for key in keys)


def json_problems(out, files):
    recorded = ({}, {})
    for name in files:
        for doc in json_documents(read(name)):
            shapes(doc, found=recorded)
    problems = []
    for doc in json_documents(out):
        objects, leaves = shapes(doc)
        for path, orders in objects.items():
            for keys in orders:
                if not any(is_subsequence(keys, rec) for rec in recorded[0].get(path, [])):
                    problems.append('object %s has keys %s, recorded: %s' % (path or '.', keys, recorded[0].get(path)))
        for path, kinds in leaves.items():
            if not kinds <= recorded[1].get(path, set()):
                problems.append('%s is %s, recorded: %s' % (path, sorted(kinds), sorted(recorded[1].get(path, []))))
    return problems


def untraceable(form, out):
    """The printed lines (or JSON problems) of ``out`` that no recorded file of ``form`` has."""
    spec = FORMS[form]
    if spec.get('json'):
        return json_problems(out, spec['files'])
    names = spec.get('masks', [])
    known = set()
    for name in spec['files']:
        known.update(mask(line, names) for line in read(name).splitlines())
    return [line for line in out.splitlines() if mask(line, names) not in known]


class Runner(object):
    """Runs emulators and checks what each prints against its form."""

    def __init__(self, env):
        self.env = dict(os.environ, **env)
        self.seen = []

    def run(self, form, argv, rc=0, stream='stdout', env=None):
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=dict(self.env, **(env or {})))
        out = proc.stdout if stream == 'stdout' else proc.stderr
        assert proc.returncode == rc, (argv, proc.returncode, proc.stdout, proc.stderr)
        assert out.strip(), (argv, 'printed nothing on', stream)
        bad = untraceable(form, out)
        assert not bad, '%s (%s) printed lines no recorded output has: %s' % (' '.join(argv), form, bad)
        self.seen.append(form)
        return proc

    def quiet(self, argv):
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=self.env)
        assert proc.returncode == 0 and not proc.stdout.strip(), (argv, proc.returncode, proc.stdout, proc.stderr)
        return proc


SEEN = set()


@pytest.fixture
def runner_for():
    runners = []

    def make(env):
        runners.append(Runner(env))
        return runners[-1]
    yield make
    for runner in runners:
        SEEN.update(runner.seen)


def emulator(*parts):
    return os.path.join(EMULATORS, *parts)


def test_devlink_and_ip_through_the_switchdev_sequence(tmp_path, runner_for):
    """The sequence of the sriov_switchdev role on the fake host of fake_host.py."""
    subprocess.run([sys.executable, emulator('grubby', 'fake_host.py'), str(tmp_path)], check=True)
    run = runner_for({'OFFLOAD_EMU_SYSFS': str(tmp_path / 'sys'), 'OFFLOAD_EMU_STATE': str(tmp_path / 'state')})
    devlink, ip = emulator('devlink', 'devlink'), emulator('iplink', 'ip')
    numvfs = tmp_path / 'sys' / 'bus' / 'pci' / 'devices' / '0000:08:00.1' / 'sriov_numvfs'
    run.run('devlink dev eswitch show', [devlink, 'dev', 'eswitch', 'show'])
    run.run('devlink -j dev eswitch show', [devlink, '-j', 'dev', 'eswitch', 'show', 'pci/0000:08:00.1'])
    run.run('devlink -j (old iproute2)', [devlink, '-j', 'dev', 'eswitch', 'show'], rc=1, stream='stderr', env={'DEVLINK_EMU_NO_JSON': '1'})
    run.run('devlink (no such device)', [devlink, 'dev', 'eswitch', 'show', 'pci/0000:99:00.0'], rc=1, stream='stderr')
    numvfs.write_text('2\n')
    run.run('devlink dev eswitch set (VFs present)', [devlink, 'dev', 'eswitch', 'set', 'pci/0000:08:00.1', 'mode', 'switchdev'],
            rc=1, stream='stderr')
    numvfs.write_text('0\n')
    run.quiet([devlink, 'dev', 'eswitch', 'set', 'pci/0000:08:00.1', 'mode', 'switchdev'])
    numvfs.write_text('2\n')
    run.quiet([ip, 'link', 'set', 'dev', 'enp8s0f1np1', 'vf', '1', 'mac', '50:54:00:00:00:06'])
    run.run('ip link set vf mac (no such VF)', [ip, 'link', 'set', 'dev', 'enp8s0f1np1', 'vf', '2', 'mac', '50:54:00:00:00:07'],
            rc=2, stream='stderr')
    run.quiet([ip, 'link', 'set', 'dev', 'enp8s0f1v1', 'address', '50:54:00:00:00:06'])
    run.quiet([ip, 'link', 'set', 'dev', 'enp8s0f1v1', 'up'])
    run.run('devlink dev eswitch show', [devlink, 'dev', 'eswitch', 'show', 'pci/0000:08:00.1'])
    run.run('devlink port show', [devlink, 'port', 'show'])
    run.run('devlink -j port show', [devlink, '-j', 'port', 'show'])
    for name in ('enp8s0f1np1', 'enp8s0f1v1', 'enp8s0f1npf1vf0'):
        run.run('ip -j link show', [ip, '-j', 'link', 'show', 'dev', name])
    run.run('ip link show', [ip, 'link', 'show', 'dev', 'enp8s0f1np1'])
    run.run('ip link show (no such device)', [ip, '-j', 'link', 'show', 'dev', 'enp8s0f9'], rc=1, stream='stderr')
    run.run('ip link set (no such device)', [ip, 'link', 'set', 'dev', 'enp8s0f9', 'up'], rc=1, stream='stderr')


def test_ddptool_and_ethtool_through_a_profile_load(tmp_path, runner_for):
    """The ddp_profile role's calls on ddp_emu.py's X710 world: list, load, list, refusals, rollback."""
    state, firmware, controller = tmp_path / 'state', tmp_path / 'firmware', tmp_path / 'controller'
    subprocess.run([sys.executable, emulator('ddp', 'ddp_emu.py'), 'make-world', str(state), str(firmware), str(controller)], check=True)
    (firmware / 'gtp.pkgo').write_bytes((controller / 'gtp.pkgo').read_bytes())
    run = runner_for({'DDP_EMU_STATE': str(state), 'DDP_EMU_FIRMWARE': str(firmware)})
    ddptool, ethtool = emulator('ddp', 'ddptool'), emulator('ddp', 'ethtool')
    run.run('ddptool', [ddptool, '-a'])
    run.run('ethtool -i (i40e)', [ethtool, '-i', 'enp2s0f1'])
    run.run('ethtool -i (no such device)', [ethtool, '-i', 'enp9s0f0'], rc=71, stream='stderr')
    run.quiet([ethtool, '-f', 'enp2s0f0', 'gtp.pkgo', '100'])
    run.run('ddptool', [ddptool, '-s', '0000:02:00.2'])
    run.run('ddptool', [ddptool])
    run.run('ethtool -f (refused)', [ethtool, '-f', 'enp2s0f0', 'gtp.pkgo', '100'], rc=255, stream='stderr')
    run.run('ethtool -f (refused)', [ethtool, '-f', 'enp2s0f1', 'gtp.pkgo', '100'], rc=255, stream='stderr')
    run.run('ethtool -f (refused)', [ethtool, '-f', 'enp2s0f0', 'nosuch.pkgo', '100'], rc=255, stream='stderr')
    run.quiet([ethtool, '-f', 'enp2s0f0', '-', '100'])
    run.run('ethtool -f (refused)', [ethtool, '-f', 'enp2s0f0', '-', '100'], rc=255, stream='stderr')


def doca_world(tmp_path, manager):
    root = tmp_path / manager
    kver = '5.14.0-611.47.1.sl9_7^2.x86_64'
    subprocess.run([sys.executable, emulator('host', 'make_world.py'), str(root), EMULATORS, kver, manager], check=True)
    env = {'DOCA_EMU_STATE': str(root / 'state' / 'doca'), 'DOCA_EMU_REPOSDIR': str(root / 'etc' / 'yum.repos.d'),
           'DOCA_EMU_APT_SOURCES': str(root / 'etc' / 'apt' / 'sources.list.d'), 'DOCA_EMU_MODULES_DIR': str(root / 'modules'),
           'DOCA_EMU_KERNEL_RELEASE': kver, 'PATH': os.path.join(EMULATORS, 'doca') + os.pathsep + os.environ['PATH']}
    return root, env


def test_dnf_rpm_and_doca_kernel_support_through_the_doca_host_steps(tmp_path, runner_for):
    """doca_host on a RHEL-family host (make_world.py dnf): the ConnectX-6 Lx reference bench's kernel with a '^'."""
    root, env = doca_world(tmp_path, 'dnf')
    run = runner_for(env)
    doca = os.path.join(EMULATORS, 'doca')
    run.run('rpm -q', [os.path.join(doca, 'rpm'), '-q', 'doca-host', 'doca-extra'], rc=2)
    run.quiet([os.path.join(doca, 'dnf'), 'install', '-y', str(root / 'controller' / 'doca-host-3.3.0-088000_26.01_rhel9.x86_64.rpm')])
    run.quiet([os.path.join(doca, 'dnf'), 'install', '-y', 'doca-extra', 'jsoncpp'])
    run.run('rpm -q', [os.path.join(doca, 'rpm'), '-q', 'doca-host', 'doca-extra', 'doca-networking'], rc=1)
    run.run('dnf install (no match)', [os.path.join(doca, 'dnf'), 'install', '-y', 'kernel-devel-6.1.0'], rc=1)
    run.run('dnf install (no match)', [os.path.join(doca, 'dnf'), 'install', '-y', 'kernel-devel-6.1.0'], rc=1, stream='stderr')
    run.run('dnf install --enablerepo (unknown repo)', [os.path.join(doca, 'dnf'), 'install', '-y', '--enablerepo=doca-kernel',
                                                        'doca-networking'], rc=1, stream='stderr')
    script = str(root / 'opt' / 'mellanox' / 'doca' / 'tools' / 'doca-kernel-support')
    run.run("doca-kernel-support (release with '^')", [script], rc=1, stream='stderr')
    run.run('doca-kernel-support', [script], env={'DOCA_EMU_KERNEL_RELEASE': '5.14.0-611.47.1.el9_7.x86_64'})
    repo = root / 'etc' / 'yum.repos.d' / 'doca-kernel-5.14.0-611.47.1.sl9_7^2.x86_64.repo'
    repo.write_text('[doca-kernel-5.14.0-611.47.1.sl9_7^2.x86_64]\nbaseurl=file:///nonexistent\n')
    run.run('dnf (bad repository id)', [os.path.join(doca, 'dnf'), 'install', '-y', 'doca-networking'], stream='stderr')


def test_apt_and_dpkg_query_through_the_doca_host_steps(tmp_path, runner_for):
    """doca_host on a Debian/Ubuntu host (make_world.py apt)."""
    root, env = doca_world(tmp_path, 'apt')
    run = runner_for(env)
    doca = os.path.join(EMULATORS, 'doca')
    run.run('dpkg-query -W', [os.path.join(doca, 'dpkg-query'), '-W', '-f=${Status}\\n', 'doca-host'], rc=1, stream='stderr')
    run.run('apt-get install', [os.path.join(doca, 'apt-get'), 'install', '-y',
                                str(root / 'controller' / 'doca-host_3.3.0-088000-26.01-ubuntu2404_amd64.deb')])
    run.run('apt-get install', [os.path.join(doca, 'apt-get'), 'install', '-y', 'doca-networking'], rc=100)
    run.run('apt-get install', [os.path.join(doca, 'apt-get'), 'install', '-y', 'doca-networking'], rc=100, stream='stderr')
    run.run('apt-get update', [os.path.join(doca, 'apt-get'), 'update'])
    run.run('apt-get install', [os.path.join(doca, 'apt-get'), 'install', '-y', 'doca-networking'])
    run.run('dpkg-query -W', [os.path.join(doca, 'dpkg-query'), '-W', '-f=${Status}\\n', 'doca-host', 'doca-networking'])
    run.run('apt-get install (unsupported file)', [os.path.join(doca, 'apt-get'), 'install', '-y', str(root / 'nosuch.txt')],
            rc=100, stream='stderr')


def test_grubby_through_an_update(tmp_path, runner_for):
    """boot_params' read, update and read again on the Fedora 37 entries."""
    run = runner_for({'OFFLOAD_EMU_STATE': str(tmp_path)})
    grubby = emulator('grubby', 'grubby')
    run.run('grubby --info', [grubby, '--info=ALL'])
    run.quiet([grubby, '--update-kernel=ALL', '--args=intel_iommu=on iommu=pt hugepages=16', '--remove-args=rhgb'])
    run.run('grubby --info', [grubby, '--info=ALL'])
    run.run('grubby --info', [grubby, '--info=DEFAULT'])


def test_dpdk_lspci_and_ip(tmp_path, runner_for):
    """What dpdk-devbind.py reads on the emulated tree of pci_kernel.py."""
    subprocess.run([sys.executable, emulator('dpdk', 'pci_kernel.py'), 'build', str(tmp_path)], check=True)
    run = runner_for({'DPDK_EMU_ROOT': str(tmp_path)})
    run.run('lspci -Dvmmnnk (dpdk)', [emulator('dpdk', 'lspci'), '-Dvmmnnk'])
    run.run('ip -j addr show (dpdk)', [emulator('dpdk', 'ip'), '-j', 'addr', 'show'])
    run.run('ip -o route (dpdk)', [emulator('dpdk', 'ip'), '-o', 'route'])
    run.run('modprobe -n (dpdk)', [emulator('dpdk', 'modprobe'), '-n', 'igb_uio'], rc=1, stream='stderr')


def mlnx_world(tmp_path):
    """The emulated host of make_world.py: a Lenovo ConnectX-6 Lx on old firmware, a ConnectX-6 Dx whose burned
    firmware waits for a reset, the vendor's bundle for mlxfwmanager and firmware images."""
    root = tmp_path / 'world'
    subprocess.run([sys.executable, emulator('host', 'make_world.py'), str(root), EMULATORS, '5.14.0-611.47.1.el9_7.x86_64', 'dnf'],
                   check=True)
    return root, {'MLNX_EMU_STATE': str(root / 'state' / 'mlnx')}


def mlnx(name):
    return emulator('mlnx', name)


def test_mlnx_tools_through_a_burn_and_a_reset(tmp_path, runner_for):
    """nic_firmware's calls (and doca_host's query, mst and openibd) from the read to the reset."""
    root, env = mlnx_world(tmp_path)
    run = runner_for(env)
    image = str(root / 'controller' / 'fw-ConnectX6Lx-LNV0000000033-26.47.1026.bin')
    bundle = str(root / 'opt' / 'firmware' / 'mlxfwmanager_LES_25B_DOCA_3.2.0_build3')
    run.run('mlxfwmanager --query', [mlnx('mlxfwmanager'), '--query'])
    run.run('mlxfwmanager --query', [bundle, '--query'])
    run.run('mlxfwmanager --query --query-format XML', [bundle, '-d', '0000:32:00.0', '--query', '--query-format', 'XML'])
    run.run('mlxfwmanager --query --query-format XML', [mlnx('mlxfwmanager'), '-d', '0000:81:00.0', '-i', bundle, '--query',
                                                        '--query-format', 'XML'])
    run.run('flint -d PCI q', [mlnx('flint'), '-d', '0000:81:00.0', 'q'])
    run.run('flint -d PCI q', [mlnx('mstflint'), '-d', '0000:32:00.0', 'q'])
    run.run('flint -i IMAGE q', [mlnx('flint'), '-i', image, 'q'])
    run.run('flint burn (PSID mismatch)', [mlnx('flint'), '-d', '0000:32:00.0', '-i',
                                           str(root / 'controller' / 'fw-ConnectX6Lx-MT_0000000158-26.47.1026.bin'), '-y', 'burn'], rc=1)
    run.run('flint (cannot open device)', [mlnx('flint'), '-d', '0000:99:00.0', 'q'], rc=1, stream='stderr')
    run.run('flint -d PCI -i IMAGE burn', [mlnx('flint'), '-d', '0000:32:00.0', '-i', image, '-y', 'burn'])
    run.run('flint -d PCI q', [mlnx('flint'), '-d', '0000:32:00.0', 'q'])
    run.run('mlxfwreset -d PCI -y reset', [mlnx('mlxfwreset'), '-d', '0000:32:00.0', '-y', 'reset'])
    run.run('mlxfwreset -d PCI -y reset', [mlnx('mlxfwreset'), '-d', '0000:81:00.0', '-y', 'reset'])
    run.run('mst start', [mlnx('mst'), 'restart'])
    run.run('mst status', [mlnx('mst'), 'status'])
    run.quiet([mlnx('mst'), 'stop'])
    for action in ('restart', 'stop', 'start'):
        run.run('openibd', [emulator('doca', 'openibd'), action])
    run.quiet([emulator('doca', 'openibd'), 'status'])
    run.run('ethtool -i (mlx5)', [mlnx('ethtool'), '-i', 'ens3f0np0'])
    run.run('ethtool -i (mlx5, no such device)', [mlnx('ethtool'), '-i', 'ens9f0np0'], rc=71, stream='stderr')
    run.run('mlxfwmanager --query', [bundle, '--query'])
    run.run('mlxfwmanager --query --query-format XML', [bundle, '-d', '0000:32:00.0', '--query', '--query-format', 'XML'])


def test_mlnx_bundle_update_and_downgrade_burns(tmp_path, runner_for):
    """The vendor's bundle burning the card (mlxfwmanager -u), mstflint's burn, and flint asked to downgrade."""
    root, env = mlnx_world(tmp_path)
    run = runner_for(env)
    bundle = str(root / 'opt' / 'firmware' / 'mlxfwmanager_LES_25B_DOCA_3.2.0_build3')
    run.run('mlxfwmanager -u', [bundle, '-d', '0000:32:00.0', '-u', '-y', '--no-progress'])
    old = tmp_path / 'old.bin'
    old.write_text('PSID: LNV0000000033\nFW Version: 26.43.1014\n')
    run.run('flint -d PCI -i IMAGE burn', [emulator('mlnx', 'flint'), '-d', '0000:32:00.0', '-i', str(old), '-y', 'burn'])
    run.run('mstflint -d PCI -i IMAGE burn', [emulator('mlnx', 'mstflint'), '-d', '0000:32:00.0', '-i',
                                              str(root / 'controller' / 'fw-ConnectX6Lx-LNV0000000033-26.47.1026.bin'), '-y', 'burn'])
    calls = (root / 'state' / 'mlnx' / 'calls.log').read_text().splitlines()
    assert calls == ['mlxfwmanager update 0000:32:00.0 26.47.1026', 'flint burn 0000:32:00.0 26.43.1014',
                     'flint burn 0000:32:00.0 26.47.1026']


def test_systemctl_start_of_a_unit_it_does_not_have(tmp_path, runner_for):
    run = runner_for({'SYSTEMCTL_EMU_ROOT': str(tmp_path)})
    run.run('systemctl start (no such unit)', [emulator('systemd', 'systemctl'), 'start', 'trex-server.service'], rc=5, stream='stderr')


def test_the_check_catches_an_invented_line():
    """The masks are values only: a changed word, an added line or a JSON key nobody printed is caught."""
    assert untraceable('devlink dev eswitch show', 'pci/0000:08:00.1: mode switchdev inline-mode none encap-mode basic\n') == []
    assert untraceable('devlink dev eswitch show', 'pci/0000:08:00.1: mode switchdev inline-mode none encap basic\n')
    assert untraceable('devlink dev eswitch set (VFs present)', 'devlink answers: Device or resource busy\n')
    assert untraceable('devlink -j port show', '{"port":{"pci/0000:08:00.1/1":{"type":"eth","netdev":"x","vf":0}}}')
    assert not untraceable('devlink -j port show', '{"port":{"pci/0000:08:00.1/1":{"type":"eth","netdev":"x"}}}')


def test_every_form_ran_and_every_file_is_recorded():
    """Runs last in this module: every form of emulated_outputs.yml was exercised above."""
    sources = read('SOURCES.md')
    for form, spec in FORMS.items():
        for name in spec['files']:
            assert os.path.exists(fixture_path(name)), (form, name)
            readme = [os.path.join(os.path.dirname(fixture_path(name)), doc) for doc in ('README.md', 'SOURCES.md')]
            rows = sources + ''.join(read(doc) for doc in readme if os.path.exists(doc) and os.path.dirname(doc) != FIXTURES)
            assert os.path.basename(name) in rows, '%s (%s) has no row in SOURCES.md' % (name, form)
    missing = sorted(set(FORMS) - SEEN)
    assert not missing, 'forms no test ran: %s' % missing
