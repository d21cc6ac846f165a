"""Shared state of the devlink and ip emulators: a fake kernel made of the
fake sysfs tree ($OFFLOAD_EMU_SYSFS, built by the tests) and a JSON file in
$OFFLOAD_EMU_STATE/net.json (eswitch modes, link addresses and flags, the
PF-side MAC of every VF).

The eswitch modes start from the verbatim fixture
tests/fixtures/devlink_dev_eswitch_show_two_pfs.txt.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ESWITCH_FIXTURE = os.path.join(HERE, '..', '..', 'fixtures', 'devlink_dev_eswitch_show_two_pfs.txt')


def env(name):
    value = os.environ.get(name)
    if not value:
        sys.stderr.write('emulator: %s is not set\n' % name)
        sys.exit(2)
    return value


def sysfs():
    return env('OFFLOAD_EMU_SYSFS')


def state_path():
    return os.path.join(env('OFFLOAD_EMU_STATE'), 'net.json')


def log(tool, argv):
    directory = env('OFFLOAD_EMU_STATE')
    if not os.path.isdir(directory):
        os.makedirs(directory)
    with open(os.path.join(directory, 'calls.log'), 'a') as handle:
        handle.write('%s %s\n' % (tool, ' '.join(argv)))


def parse_eswitch_fixture(path):
    result = {}
    with open(path) as handle:
        for line in handle:
            head, sep, rest = line.strip().partition(': ')
            if not sep:
                continue
            words = rest.split()
            result[head] = [[words[i], words[i + 1]] for i in range(0, len(words) - 1, 2)]
    return result


def load():
    path = state_path()
    if os.path.exists(path):
        with open(path) as handle:
            return json.load(handle)
    return {'eswitch': parse_eswitch_fixture(ESWITCH_FIXTURE), 'links': {}, 'vf_macs': {}}


def save(state):
    with open(state_path(), 'w') as handle:
        json.dump(state, handle, indent=1, sort_keys=True)


def netdevs():
    """``{netdev: pci}`` of the netdevs in the fake sysfs with a device link."""
    result = {}
    net = os.path.join(sysfs(), 'class', 'net')
    for name in sorted(os.listdir(net)) if os.path.isdir(net) else []:
        device = os.path.join(net, name, 'device')
        result[name] = os.path.basename(os.path.realpath(device)) if os.path.exists(device) else None
    return result


def pci_dir(pci):
    return os.path.join(sysfs(), 'bus', 'pci', 'devices', pci)


def numvfs(pci):
    try:
        with open(os.path.join(pci_dir(pci), 'sriov_numvfs')) as handle:
            return int(handle.read().strip() or 0)
    except (IOError, OSError, ValueError):
        return 0


def pf_of(pci):
    for name, address in netdevs().items():
        if address == pci and os.path.exists(os.path.join(pci_dir(pci), 'sriov_totalvfs')):
            return name
    return None


def mode(state, handle):
    for key, value in state['eswitch'].get(handle, []):
        if key == 'mode':
            return value
    return None


def representors(state):
    """``{rep netdev: (pf handle, pf netdev, pfnum, vf index)}`` of PFs in switchdev with VFs."""
    result = {}
    for handle in state['eswitch']:
        pci = handle.split('/', 1)[1]
        pf = pf_of(pci)
        if pf is None or mode(state, handle) != 'switchdev':
            continue
        pfnum = int(pci.rsplit('.', 1)[1])
        stem = re.sub(r'np\d+$', '', pf)
        for index in range(numvfs(pci)):
            result['%snpf%dvf%d' % (stem, pfnum, index)] = (handle, pf, pfnum, index)
    return result
