# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fields of the objects ``offload.testbed.ovn_topology`` declares, and their types.

:data:`FIELDS` lists the fields of each kind of object (switch, port, router,
route, NAT rule, load balancer...); :func:`coerce_item` checks one declared
object against it and converts its values, and :func:`check_names` does so
for a list of named objects, with the one rule for names. Each problem is
appended to ``errors`` naming the object as the user wrote it; ``ovn_schema``
checks what the values mean.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.six import string_types

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_addr import text
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import database_name

# The fields of each kind of declared object and their types: "str", "int",
# "dict" (of strings), "strs" (list of strings; a string is split on commas)
# or ("list", kind). The module's argument_spec leaves these lists as
# ``elements: dict`` and this module checks them, so that every message names
# the object (``switches[sw0].ports[port1].tag``) and so that thousands of
# rules are checked quickly.
FIELDS = {
    "switch": {"name": "str", "ports": ("list", "switch_port"), "load_balancers": "strs"},
    "switch_port": {"name": "str", "type": "str", "addresses": "addresses", "router_port": "str", "network_name": "str",
                    "tag": "int", "options": "dict"},
    "router": {"name": "str", "ports": ("list", "router_port"), "static_routes": ("list", "static_route"),
               "nat": ("list", "nat"), "load_balancers": "strs"},
    "router_port": {"name": "str", "mac": "str", "networks": "strs", "gateway_chassis": ("list", "gateway_chassis")},
    "gateway_chassis": {"chassis": "str", "priority": "int"},
    "static_route": {"prefix": "str", "nexthop": "str", "output_port": "str", "policy": "str"},
    "nat": {"type": "str", "external_ip": "str", "logical_ip": "str", "logical_port": "str", "external_mac": "str"},
    "load_balancer": {"name": "str", "vip": "str", "backends": "strs", "vips": "dict", "protocol": "str"},
}

# What each kind of declared object's name names, for the one rule for names (validate.database_name).
NAMED = {"switch": "a logical switch name", "switch_port": "a logical switch port name", "router": "a logical router name",
         "router_port": "a logical router port name", "load_balancer": "a load balancer name"}


def opt_str(value):
    """The value as text; None stays None."""
    if value is None:
        return None
    return text(value)


def blank(value):
    """Whether the value is None or only white space."""
    return value is None or text(value).strip() == ""


def str_map(value):
    """A mapping (None: an empty one) with its keys and values as text."""
    return dict((text(k), text(v)) for k, v in (value or {}).items())


# -- field types ---------------------------------------------------------------------------------

def _scalar_text(value, where, errors):
    if isinstance(value, (dict, list, tuple, bool)):
        errors.append("%s: %r is not a string" % (where, value))
        return None
    return text(value)


def _as_int(value, where, errors):
    if not isinstance(value, bool):
        try:
            return int(value)
        except (TypeError, ValueError):
            pass
    errors.append("%s: %r is not an integer" % (where, value))
    return None


def _as_dict(value, where, errors):
    if isinstance(value, dict):
        return value
    errors.append("%s: %r is not a dictionary" % (where, value))
    return None


def _as_list(value, where, errors):
    if isinstance(value, (list, tuple)):
        return list(value)
    errors.append("%s: %r is not a list" % (where, value))
    return None


def _as_strings(value, where, errors, split):
    if isinstance(value, string_types):
        # like Ansible's list type: "a,b" is ["a", "b"]; an address entry ("MAC IP") holds no comma
        value = [v.strip() for v in value.split(",")] if split else [value]
    value = _as_list(value, where, errors)
    if value is None:
        return None
    return [_scalar_text(v, "%s[%d]" % (where, i), errors) for i, v in enumerate(value)]


FIELD_TYPES = {
    "str": _scalar_text,
    "int": _as_int,
    "dict": _as_dict,
    "strs": lambda value, where, errors: _as_strings(value, where, errors, True),
    "addresses": lambda value, where, errors: _as_strings(value, where, errors, False),
}


def coerce_item(item, kind, where, errors):
    """Check one declared object against :data:`FIELDS`; return a copy with
    its values converted (None for a field that is absent)."""
    if not isinstance(item, dict):
        errors.append("%s: %r is not a dictionary" % (where, item))
        return None
    fields = FIELDS[kind]
    for key in item:
        if key not in fields:
            errors.append("%s.%s: unknown field (known fields: %s)" % (where, key, ", ".join(sorted(fields))))
    out = {}
    for key, ftype in fields.items():
        value = item.get(key)
        convert = FIELD_TYPES.get(ftype, _as_list)
        out[key] = None if value is None else convert(value, "%s.%s" % (where, key), errors)
    return out


def check_names(items, where, errors, kind):
    """Return (name, coerced item) of the items that have a name; report
    missing and duplicate names and malformed items."""
    seen = set()
    out = []
    if items is not None and not isinstance(items, (list, tuple)):
        errors.append("%s: %r is not a list" % (where, items))
        return out
    for index, item in enumerate(items or []):
        label = item.get("name") if isinstance(item, dict) and item.get("name") is not None else index
        item = coerce_item(item, kind, "%s[%s]" % (where, label), errors)
        if item is None:
            continue
        name = item.get("name")
        if blank(name):
            errors.append("%s[%d].name: a name is required" % (where, index))
            continue
        name = text(name)
        problem = database_name("%s[%d].name" % (where, index), name, NAMED[kind])
        if problem:
            errors.append(problem)
        if name in seen:
            errors.append("%s[%s].name: %s is declared twice" % (where, name, name))
            continue
        seen.add(name)
        out.append((name, item))
    return out
