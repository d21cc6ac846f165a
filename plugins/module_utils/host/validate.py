# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""One rule per concept a user writes: PCI address, VLAN id, MAC, CPU list, hugepages,
a share of the memory, and names (of kernel interfaces, namespaces, database rows).

Every role, module and action that takes one of these checks it here, so the
same value is refused everywhere with the same words. Each check takes the
name of the variable as the user wrote it (``sriov_switchdev_pfs[0].pci``)
and the value, and returns ``None`` when the value is good or one message
that names the variable, the bad value and the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import math
import re

from ansible_collections.offload.testbed.plugins.module_utils.host.cpulist import parse_cpulist

PCI_RE = re.compile(r'^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[01][0-9A-Fa-f]\.[0-7]$')
MAC_RE = re.compile(r'^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$')
VLAN_MIN, VLAN_MAX = 1, 4094
KIB = {'K': 1, 'M': 1024, 'G': 1024 * 1024}
# The page sizes an x86 CPU can map, each with the /proc/cpuinfo flag that says it can.
HUGEPAGE_FLAGS = {2048: 'pse', 1048576: 'pdpe1gb'}


class Names(object):
    """How a message calls an option: by the variable the user wrote, the one way in every role, filter and module.

    ``names`` maps an option to the variable a role's user set (a module's
    ``names`` option, ``{'pages': 'dpdk_host_hugepages'}``); any other option
    is ``prefix`` and its own name (a role's ``*_errors`` filter: ``ovs_`` and
    ``bridges``). Called with a path after the option, it names an item in it:
    ``names('bridges', 0, 'ports')`` is ``ovs_bridges[0].ports``. A ``Names``
    given as ``names`` is copied.
    """

    def __init__(self, names=None, prefix=''):
        if isinstance(names, Names):
            names, prefix = names.names, names.prefix
        self.names = dict(names or {})
        self.prefix = prefix

    def __call__(self, option, *path):
        text = self.names.get(option, self.prefix + option)
        for step in path:
            text += '[%d]' % step if is_int(step) else '.' + step
        return text


def show(value):
    """A value as the user wrote it: strings quoted, the rest as YAML would show them."""
    return repr(value) if isinstance(value, str) else str(value)


def show_converted(value):
    """A value an argument spec converted, as the user wrote it: type float turns 20 into 20.0, this shows 20.

    Lists show each item so. (A float YAML made, such as the base-60 1172.0
    of an unquoted 0:19:32, is shown by ``show`` as YAML made it.)
    """
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return '[%s]' % ', '.join(show_converted(item) for item in value)
    return show(value)


def is_int(value):
    """An integer, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_int_in(value, low, high=None):
    """An integer (not a bool) in ``low..high`` (no upper end when ``high`` is None)."""
    return is_int(value) and low <= value and (high is None or value <= high)


def is_number(value):
    """A finite number, not a bool (NaN and the infinities pass an argument spec's float)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_positive(value):
    """A finite number above 0."""
    return is_number(value) and value > 0


def ip_value(kind, value):
    """``kind(str(value))`` for an ``ipaddress`` factory (``ip_network`` is strict: host bits set make it no
    network), or None when ``value`` is none."""
    try:
        return kind(str(value))
    except ValueError:
        return None


def ipv4(value):
    """``value`` as an ``ipaddress.IPv4Address`` (dotted, no prefix), or None."""
    return ip_value(ipaddress.IPv4Address, value)


def ip(value):
    """``value`` as an IPv4 or IPv6 ``ipaddress`` address, or None."""
    return ip_value(ipaddress.ip_address, value)


def base60(value):
    """The hint for a number YAML 1.1 read from an unquoted ``50:54:00:00:00:06`` or ``0000:08:00.1``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ''
    return (' (YAML reads an unquoted value made of decimal groups separated by colons as a base-60 number; '
            'put the value in quotes)')


def pci_address(name, value):
    """A PCI address in full form, domain included: ``0000:08:00.1``."""
    if isinstance(value, str) and PCI_RE.match(value):
        return None
    return ('%s: %s is not a PCI address%s; write domain:bus:device.function in hexadecimal, '
            'for example "0000:08:00.1" (lspci -D shows it)' % (name, show(value), base60(value)))


def vlan_id(name, value, unset='leave it unset for untagged'):
    """An 802.1Q VLAN id: 1..4094 (0 means priority tagged, 4095 is reserved)."""
    if isinstance(value, int) and not isinstance(value, bool) and VLAN_MIN <= value <= VLAN_MAX:
        return None
    if isinstance(value, str) and value.strip().isdigit() and VLAN_MIN <= int(value) <= VLAN_MAX:
        return None
    return '%s: %s is outside %d..%d; %s' % (name, show(value), VLAN_MIN, VLAN_MAX, unset)


def mac_address(name, value, unicast=True):
    """A MAC address ``50:54:00:00:00:06``; with ``unicast``, neither multicast nor all zeros."""
    if not isinstance(value, str) or not MAC_RE.match(value):
        return ('%s: %s is not a MAC address%s; write six pairs of hexadecimal digits separated by colons, '
                'for example "50:54:00:00:00:06"' % (name, show(value), base60(value)))
    if unicast and int(value[:2], 16) & 1:
        return ('%s: %s is a multicast address; a port needs a unicast one (an even first octet, '
                'for example 02:%s)' % (name, show(value), value[3:]))
    if unicast and value.replace(':', '') == '000000000000':
        return '%s: %s is all zeros; give the port a unicast address such as 02:00:00:00:00:01' % (name, show(value))
    return None


def cpu_list(name, value, online=None):
    """A kernel cpulist (``2-15,34-47``) of CPUs the host has. Returns ``(cpus, error)``."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return set(), '%s: %s is not a cpulist; write CPU ids and ranges such as 2-15,34-47' % (name, show(value))
    try:
        cpus = parse_cpulist(value)
    except ValueError as exc:
        return set(), '%s: %s is not a cpulist (%s); write CPU ids and ranges such as 2-15,34-47' % (name, show(value), exc)
    missing = sorted(cpus - set(online)) if online else []
    if missing:
        return cpus, ('%s: %s names CPUs %s this host does not have (it has %d CPUs, 0..%d); list only those'
                      % (name, show(value), ','.join(str(cpu) for cpu in missing), len(online), max(online)))
    return cpus, None


def page_size_kib(text):
    """``2M`` / ``1G`` / ``2048k`` / ``1048576kB`` -> KiB, or ``None`` when it is no size."""
    match = re.match(r'^\s*(\d+)\s*([KkMmGg])?[Bb]?\s*$', str(text))
    if not match:
        return None
    return int(match.group(1)) * KIB[(match.group(2) or 'K').upper()]


def size_text(kib):
    """1048576 -> ``1G``, 2048 -> ``2M``."""
    for unit in ('G', 'M'):
        if kib % KIB[unit] == 0:
            return '%d%s' % (kib // KIB[unit], unit)
    return '%dK' % kib


def hugepage_args(tokens):
    """The ``{size_kib: count}`` a kernel command line reserves (``hugepagesz=X hugepages=N`` pairs).

    ``hugepages=`` before any ``hugepagesz=`` counts for ``default_hugepagesz``
    (2M when unset). Sizes that are no size at all are keyed by their text.
    A size named by ``hugepagesz=`` or ``default_hugepagesz=`` without a count
    is there with 0, so that :func:`hugepages` can refuse a size the CPU cannot map.
    """
    default = next((t.split('=', 1)[1] for t in tokens if t.startswith('default_hugepagesz=')), None)
    size = page_size_kib(default or '2M') or default
    pages = {size: 0} if default is not None else {}
    for token in tokens:
        key, dummy, value = token.partition('=')
        if key == 'hugepagesz':
            size = page_size_kib(value) or value
            pages.setdefault(size, 0)
        elif key == 'hugepages' and value.isdigit():
            pages[size] = pages.get(size, 0) + int(value)
    return pages


def hugepages(name, pages, mem_total_kib=None, flags=None, max_fraction=0.9, named=False, fix=None):
    """Every hugepage size against the CPU's flags, and their sum against the memory.

    ``pages`` maps a size in KiB (or the text of a size that is none) to a
    count. ``flags`` is the set of /proc/cpuinfo flags (unchecked when
    ``None``); ``mem_total_kib`` is MemTotal (unchecked when ``None``).
    With ``named``, a size with no page is checked against the flags too
    (a ``hugepagesz=1G`` on the command line of a CPU without pdpe1gb).
    ``fix`` replaces the advice of the memory message. Returns a list of messages.
    """
    errors = []
    for size in sorted(pages, key=str):
        if not isinstance(size, int) or size not in HUGEPAGE_FLAGS:
            offered = ' and '.join(size_text(s) for s in sorted(HUGEPAGE_FLAGS))
            errors.append('%s: hugepage size %s is not one an x86 CPU can map; use %s'
                          % (name, show(size if not isinstance(size, int) else size_text(size)), offered))
        elif flags is not None and (pages[size] or named) and HUGEPAGE_FLAGS[size] not in flags:
            asked = '%d x %s pages asked' % (pages[size], size_text(size)) if pages[size] else 'hugepage size %s named' % size_text(size)
            errors.append('%s: %s, but the CPU has no %s flag in /proc/cpuinfo and cannot map %s pages; '
                          '%s' % (name, asked, HUGEPAGE_FLAGS[size], size_text(size),
                                  'set them to 0' if pages[size] else 'remove hugepagesz=%s' % size_text(size)))
    total = sum(size * count for size, count in pages.items() if isinstance(size, int))
    if mem_total_kib and total > mem_total_kib * max_fraction:
        asked = ' + '.join('%d x %s' % (pages[s], size_text(s)) for s in sorted(s for s in pages if isinstance(s, int)) if pages[s])
        fix = fix or 'reserve at most %.1f GiB in all' % (mem_total_kib * max_fraction / 1048576.0)
        errors.append('%s: %s = %.1f GiB of hugepages is above %d%% of the host memory (%.1f GiB); %s'
                      % (name, asked, total / 1048576.0, int(round(max_fraction * 100)), mem_total_kib / 1048576.0, fix))
    return errors


def int_in(name, value, low, high, fix):
    """An integer (not a bool) within ``low..high``."""
    if is_int_in(value, low, high):
        return None
    return '%s: %s is outside %d..%d; %s' % (name, show(value), low, high, fix)


def ipv4_address(name, value):
    """A dotted IPv4 address (no prefix): ``10.10.0.4``."""
    if isinstance(value, str) and ipv4(value) is not None:
        return None
    return '%s: %s is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4' % (name, show(value))


def port_number(name, value, kind='TCP/UDP'):
    """A TCP or UDP port: 1..65535 (``kind``: the protocol the port is of, for the message)."""
    return int_in(name, value, 1, 65535, 'give a %s port number, for example 6642' % kind)


def ovsdb_remote(name, value):
    """An OVSDB remote as ovsdb-client takes it: ``ssl:IP:PORT``, ``tcp:IP:PORT`` or ``unix:PATH``; a comma-separated list too."""
    fix = 'write ssl:IP:PORT, tcp:IP:PORT or unix:PATH (several separated by commas), for example ssl:10.10.0.4:6642'
    if not isinstance(value, str) or not value.strip():
        return '%s: %s is not an OVSDB remote; %s' % (name, show(value), fix)
    for remote in value.split(','):
        scheme, dummy, rest = remote.strip().partition(':')
        if scheme == 'unix' and rest.startswith('/'):
            continue
        host, dummy, port = rest.rpartition(':')
        if scheme not in ('ssl', 'tcp') or ipv4_address(name, host.strip('[]')) or not port.isdigit() or port_number(name, int(port)):
            return '%s: %s is not an OVSDB remote (%r); %s' % (name, show(value), remote.strip(), fix)
    return None


# ---------------------------------------------------------------- shares

def fraction(name, value, of='of the memory', example=0.9):
    """A share written as a fraction: above 0, at most 1 (``0.9`` for 90 %).

    A whole number from 2 to 100 was most likely meant as a percentage
    (``90``): the message says so and gives the fraction to write.
    """
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        number = None
    if number is not None and 0 < number <= 1:
        return None
    if number is not None and 2 <= number <= 100 and float(number).is_integer():
        return ('%s: %s is a percentage, but this is a share %s written as a fraction (above 0, at most 1); '
                'write %g for %d %%' % (name, show(value), of, number / 100.0, number))
    return ('%s: %s is outside 0..1 (0 excluded); write the share %s as a fraction, %g for %g %%'
            % (name, show(value), of, example, example * 100))


# ---------------------------------------------------------------- names
#
# One rule for the names a user gives to what the roles and modules create or
# look for, by kind: a kernel network interface (netdevs, Open vSwitch bridges
# and the ports the kernel sees), a network namespace, and a name kept in an
# Open vSwitch or OVN database. All three refuse what is not text, an empty
# name, white space around it and control characters in it.

# The kernel's dev_valid_name() (net/core/dev.c): not empty, shorter than
# IFNAMSIZ (16, the closing NUL included), neither "." nor "..", and no '/',
# ':' or white space; dev_get_valid_name() reads a '%' as a pattern it fills in
# with a number (eth%d), so a name with '%' is not the name the device gets.
IFNAMSIZ = 16
IFNAME_REFUSED = '/:%'
# ip netns (iproute2, ip/ipnetns.c, invalid_name()): a file under /run/netns,
# so not empty, at most NAME_MAX (255) bytes, neither "." nor "..", no '/'.
NAME_MAX = 255


def _name_text_problem(value, what):
    """What every name must be: text, not empty, without control characters. ``None`` when it is."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return '%s is not a name; write %s as text' % (show(value), what)
    text = str(value)
    if not text.strip():
        return '%s is empty; give %s' % (show(text), what)
    control = [char for char in text if not char.isprintable() and not char.isspace()]
    if control:
        return '%s holds the control character %r; write %s in printable characters' % (show(text), control[0], what)
    return None


def _surrounding_blank(text):
    """``'leading'``, ``'trailing'`` or ``'leading and trailing'`` white space around ``text``; ``''`` for none."""
    where = [side for side, blank in (('leading', text[:1].isspace()), ('trailing', text[-1:].isspace())) if blank]
    return ' and '.join(where)


def _shared_problem(name, value, what, blank_means):
    """The message for what every kind of name refuses (see :func:`_name_text_problem`) and white space around it
    (``blank_means``: what becomes of it), or ``None``."""
    problem = _name_text_problem(value, what)
    if problem:
        return '%s: %s' % (name, problem)
    text = str(value)
    blank = _surrounding_blank(text)
    if blank:
        return '%s: %s has %s white space, %s; write %s' % (name, show(text), blank, blank_means, show(text.strip()))
    return None


def interface_name(name, value, what='a network interface'):
    """A kernel network interface name, as the kernel takes it (dev_valid_name()).

    ``what`` says what gets the name (:data:`OVS_BRIDGE`, ``'the PF (its
    netdev)'``). Returns ``None`` or the message.
    """
    problem = _shared_problem(name, value, 'the name of %s' % what, 'which the kernel refuses in the name of %s' % what)
    if problem:
        return problem
    text = str(value)
    size = len(text.encode('utf-8'))
    if size >= IFNAMSIZ:
        short = text.encode('utf-8')[:IFNAMSIZ - 1].decode('utf-8', 'ignore')
        unit = 'characters' if size == len(text) else 'bytes in UTF-8'
        return ('%s: %s is %d %s long; the kernel takes at most %d in the name of %s (IFNAMSIZ %d with the closing NUL): '
                'shorten it, for example to %s' % (name, show(text), size, unit, IFNAMSIZ - 1, what, IFNAMSIZ, show(short)))
    if text in ('.', '..'):
        return "%s: %s is no name the kernel gives %s ('.' and '..' are refused); use letters, digits, '-' and '_'" % (name, show(text), what)
    refused = sorted(set(char for char in text if char in IFNAME_REFUSED or char.isspace()))
    if refused:
        why = ("the kernel reads '%' as a pattern it fills in with a number (eth%d)" if refused == ['%']
               else "the kernel refuses '/', ':' and white space in the name of %s" % what)
        return ("%s: %s holds %s; %s: use letters, digits, '-', '_' and '.'"
                % (name, show(text), ', '.join(repr(char) for char in refused), why))
    return None


def netns_name(name, value):
    """A network namespace name as ``ip netns`` takes it, without white space (it goes into command lines and units)."""
    problem = _shared_problem(name, value, 'the name of a network namespace',
                              "which would be part of the namespace's name (ip netns list shows it)")
    if problem:
        return problem
    text = str(value)
    if len(text.encode('utf-8')) > NAME_MAX or text in ('.', '..') or '/' in text or any(char.isspace() for char in text):
        return ("%s: %s is no network namespace name (ip netns takes 1 to %d characters, no '/', not '.' or '..', and a "
                "name with white space breaks the command lines it goes into); use letters, digits, '-', '_' and '.'"
                % (name, show(text), NAME_MAX))
    return None


def database_name(name, value, what='a name'):
    """A name written into an Open vSwitch or OVN database: printable text without white space around it.

    The database keeps a name as it is given, white space included; what
    looks for it later by its visible name does not find it.
    """
    stripped = str(value).strip() if isinstance(value, (str, int)) and not isinstance(value, bool) else value
    return _shared_problem(name, value, what, 'which the database would keep as part of %s (what looks for %s would not find it)'
                           % (what, show(stripped)))


def name_list(name, values, check, *args):
    """``check`` (one of the name rules above) on each item of a list, named ``name[0]``, ``name[1]``..."""
    if not isinstance(values, (list, tuple)):
        return ['%s: %s is not a list; write the names as a list, for example [eth0]' % (name, show(values))]
    return [error for error in (check('%s[%d]' % (name, index), value, *args) for index, value in enumerate(values)) if error]


# Open vSwitch interface types whose name reaches no kernel: DPDK's ports (ovs-vswitchd's own, named
# as the user likes) and patch ports (inside ovs-vswitchd). Every other port is a kernel interface
# (a system device, internal, tap, OVS-DOCA's doca ports on the PF and representor netdevs) or, on
# the kernel datapath, a vport whose name the openvswitch module takes with at most IFNAMSIZ - 1
# characters (vport_policy, OVS_VPORT_ATTR_NAME, net/openvswitch/datapath.c): tunnels too.
OVS_ROW_TYPES = ('dpdk', 'dpdkvhostuser', 'dpdkvhostuserclient', 'patch')
OVS_BRIDGE = 'an Open vSwitch bridge, a kernel interface too'


def ovs_port_name(name, value, port_type=None):
    """An Open vSwitch port: a database name for the types of OVS_ROW_TYPES, a kernel interface name for the others."""
    if port_type in OVS_ROW_TYPES:
        return database_name(name, value, 'the name of an Open vSwitch port')
    also = 'a kernel interface too' if port_type in (None, '', 'system', 'internal', 'tap', 'doca') else 'a port of the kernel datapath too'
    return interface_name(name, value, 'an Open vSwitch port of type %s, %s' % (port_type or 'system', also))
