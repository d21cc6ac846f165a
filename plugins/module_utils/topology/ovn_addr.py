# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Addresses of ``offload.testbed.ovn_topology``, as declared and as the
Northbound database stores them: MACs, IPs, CIDRs, prefixes and endpoints
(VIPs and backends), parsed and normalised so that the two spellings compare
equal; and the keys and labels that identify a static route and a NAT rule.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import ipaddress

from ansible.module_utils.six import string_types, text_type

from ansible_collections.offload.testbed.plugins.module_utils.host.validate import MAC_RE, ip, ip_value


def text(value):
    return text_type(value)


def is_mac(value):
    return isinstance(value, string_types) and bool(MAC_RE.match(value))


def cached_by_text(func):
    """Memoise a one-argument function for string arguments: a topology of
    thousands of VIPs, NAT rules and backends repeats the same addresses."""
    cache = {}

    def wrapper(value):
        if not isinstance(value, string_types):
            return func(value)
        try:
            return cache[value]
        except KeyError:
            result = cache[value] = func(value)
            return result
    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
    return wrapper


@cached_by_text
def parse_ip(value):
    """An ``ipaddress`` address or None (blanks around it are allowed)."""
    return ip(text(value).strip())


def parse_cidr(value):
    """An ``ipaddress`` interface for ``address/length`` (host bits allowed) or None."""
    value = text(value).strip()
    if "/" not in value:
        return None
    return ip_value(ipaddress.ip_interface, value)


def normalize_network(value):
    """A router port network as ``address/length``, or the text when it is none."""
    iface = parse_cidr(value)
    return text(iface) if iface is not None else text(value)


def normalize_prefix(value):
    """``48.0.0.1/16`` -> ``48.0.0.0/16``; a full-length prefix -> the bare address
    (what ``ovn-nbctl lr-route-add`` stores). None when it is not a prefix."""
    net = ip_value(functools.partial(ipaddress.ip_network, strict=False), text(value).strip())
    if net is None:
        return None
    if net.prefixlen == net.max_prefixlen:
        return text(net.network_address)
    return text(net)


@cached_by_text
def normalize_ip(value):
    addr = parse_ip(value)
    return text(addr) if addr is not None else text(value).strip()


def normalize_ip_or_prefix(value):
    value = text(value).strip()
    if "/" in value:
        norm = normalize_prefix(value)
        return norm if norm is not None else value
    return normalize_ip(value)


def as_network(value):
    """An address or a prefix (normalised) as an ``ipaddress`` network."""
    return ipaddress.ip_network(text(value), strict=False)


def _split_endpoint(value):
    """``(host, port text or None, bracketed)`` of an endpoint, or None."""
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        host, rest = value[1:end], value[end + 1:]
        if rest and not rest.startswith(":"):
            return None
        return host, (rest[1:] if rest else None), True
    if value.count(":") == 1:
        host, port = value.split(":")
        return host, port, False
    return value, None, False


@cached_by_text
def parse_endpoint(value):
    """``1.2.3.4:80``, ``[fd00::1]:80``, ``1.2.3.4`` or ``fd00::1`` ->
    ``(address, port)``; port is None when absent. None when invalid."""
    split = _split_endpoint(text(value).strip())
    if split is None:
        return None
    host, port, bracketed = split
    addr = parse_ip(host)
    if addr is None or (bracketed and addr.version != 6) or (port is not None and not bracketed and addr.version != 4):
        return None
    if port is not None:
        if not port.isdigit() or not 0 < int(port) < 65536:
            return None
        port = int(port)
    return addr, port


def format_endpoint(addr, port):
    if port is None:
        return text(addr)
    if addr.version == 6:
        return "[%s]:%d" % (addr, port)
    return "%s:%d" % (addr, port)


@cached_by_text
def normalize_endpoint(value):
    parsed = parse_endpoint(value)
    return text(value).strip() if parsed is None else format_endpoint(*parsed)


def normalize_backends(value):
    """A backends string (comma separated) as the normalised string."""
    items = [item for item in text(value).split(",") if item.strip()]
    return ",".join(normalize_endpoint(item) for item in items)


# -- how a static route and a NAT rule are identified ------------------------------------------

def route_key(prefix, nexthop, policy, output_port):
    return (policy or "dst-ip", prefix, nexthop, output_port or None)


def route_label(key):
    policy, prefix, nexthop, output_port = key
    label = "%s via %s" % (prefix, nexthop)
    if output_port:
        label += " port %s" % output_port
    if policy != "dst-ip":
        label += " (%s)" % policy
    return label


def nat_key(ntype, external_ip, logical_ip):
    return (ntype, normalize_ip(external_ip), normalize_ip_or_prefix(logical_ip))


def nat_label(key):
    return "%s %s %s" % key
