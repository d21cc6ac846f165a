# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of iproute2 ``ip`` outputs: ``ip netns list``, ``ip -j addr show``
and ``ip -j route show`` (each also with ``-n NS``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines


def parse_netns_list(text):
    """``ip netns list`` -> set of names (``name (id: 3)`` lines tolerated)."""
    names = set()
    for line in lines(text):
        line = line.strip()
        if line:
            names.add(line.split()[0])
    return names


def _json_list(text):
    text = (text or "").strip()
    return json.loads(text) if text else []


def parse_ip_addr_json(text):
    """``ip -j [-n NS] addr show`` -> {ifname: {"mtu", "mac", "up", "addresses"}}.

    Only global addresses count (``scope global``); link-local ones are the
    kernel's, not the lab's.
    """
    links = {}
    for item in _json_list(text):
        addrs = set()
        for info in item.get("addr_info", []):
            if info.get("scope") == "global" and info.get("local") is not None:
                addrs.add("%s/%s" % (info["local"], info.get("prefixlen")))
        links[item.get("ifname")] = {
            "mtu": item.get("mtu"),
            "mac": (item.get("address") or "").lower(),
            "up": "UP" in (item.get("flags") or []),
            "addresses": addrs,
        }
    return links


def parse_ip_route_json(text):
    """``ip -j [-n NS] route show`` -> {destination: gateway}; ``default`` for the default route."""
    return dict((item.get("dst"), item.get("gateway")) for item in _json_list(text))
