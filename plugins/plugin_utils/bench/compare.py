# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What ``playbooks/compare.yml`` compares: two *variants* of the DUT's Open vSwitch.

A variant is a label (the ``datapath`` stored with the results and used by
the report's speedup table), the ``ovs`` role's datapath, ``other_config``
keys merged into the inventory's ``ovs_other_config`` and, optionally,
``hw-offload``. ``bench_compare_datapaths: [A, B]`` is the short form: two
variants named after their datapath.

Pure functions; the ``bench_compare_plan`` filter wraps :func:`plan`.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.ovs import DATAPATHS, truth

DEFAULT_DATAPATHS = ["doca", "system"]
VARIANT_KEYS = ("name", "datapath", "other_config", "hw_offload")
# other_config keys the ovs role writes from its own variables: a variant sets
# them through those (datapath, hw_offload) or not at all, so that restoring
# the inventory's configuration never removes what the role manages.
ROLE_KEYS = {
    "default-datapath-type": "set datapath instead",
    "hw-offload": "set hw_offload instead",
    "doca-init": "the ovs role sets it from ovs_doca_init (read only at start)",
    "dpdk-init": "the ovs role sets it from ovs_dpdk_init (read only at start; set datapath: dpdk)",
    "dpdk-socket-mem": "the ovs role sets it from ovs_dpdk_socket_mem (read only at start)",
    "dpdk-socket-limit": "the ovs role sets it from ovs_dpdk_socket_limit (read only at start)",
    "dpdk-lcore-mask": "the ovs role sets it from ovs_dpdk_lcore_mask (read only at start)",
    "dpdk-hugepage-dir": "the ovs role sets it from ovs_dpdk_hugepage_dir (read only at start)",
    "dpdk-extra": "the ovs role sets it from ovs_dpdk_extra (read only at start)",
    "pmd-cpu-mask": "the ovs role sets it from ovs_pmd_cpu_mask (read only at start)",
    "hw-offload-ct-size": "the ovs role sets it from ovs_hw_offload_ct_size",
}
# The name becomes part of result file names (<name>-<scenario>-<protocol>.json).
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _config_value(value):
    """An other_config value as OVSDB stores it: booleans as true/false, numbers as text, null kept (removes the key)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def plan(variants=None, datapaths=None, inventory_other_config=None, inventory_hw_offload=None, pair=None):
    """The two variants, what the ``ovs`` role gets for each, and how to restore the inventory's configuration.

    ``variants``: ``bench_compare_variants`` (None when unset); ``datapaths``:
    ``bench_compare_datapaths`` (None when unset); ``inventory_other_config``
    and ``inventory_hw_offload``: the DUT's ``ovs_other_config`` and
    ``ovs_hw_offload`` (None when the inventory leaves it to the role's default);
    ``pair``: ``bench_compare_pair``, two datapaths for this run only (a job's
    survey answer), which win over ``variants`` and ``datapaths`` (None when unset).

    Returns ``{"errors": [...], "variants": [...], "names": [A, B],
    "restore_other_config": {...}}``. Each variant is ``{"name", "datapath",
    "other_config" (the variant's own keys), "hw_offload" (the variant's,
    or None), "ovs_other_config" (the inventory's with the variant's merged),
    "ovs_hw_offload"}``. ``restore_other_config`` is the inventory's
    ``other_config`` with every key that a variant adds set to None, which
    the ``ovs`` role removes from the database.
    """
    errors = []
    inventory = inventory_other_config if isinstance(inventory_other_config, dict) else {}
    if inventory_other_config is not None and not isinstance(inventory_other_config, dict):
        errors.append("ovs_other_config: %r is not a mapping" % (inventory_other_config,))
    if pair is not None:
        raw, variant_errors = _given_datapaths(pair, "bench_compare_pair")
        source = "bench_compare_pair"
    else:
        raw, variant_errors = _given_variants(variants, datapaths)
        source = "bench_compare_variants" if variants is not None else "bench_compare_datapaths"
    errors += variant_errors
    if len(raw) == 2 and isinstance(raw[0].get("name"), str) and raw[0].get("name") == raw[1].get("name"):
        errors.append("%s: both variants are named %r; the results and the speedup table tell them apart by name" % (source, raw[0]["name"]))
    if errors:
        return {"errors": errors, "variants": [], "names": [], "restore_other_config": dict(inventory)}
    resolved, added = [], set()
    for variant in raw:
        resolved.append(_resolve(variant, inventory, inventory_hw_offload))
        added.update(key for key in resolved[-1]["other_config"] if key not in inventory)
    restore = dict(inventory)
    restore.update(dict((key, None) for key in sorted(added)))
    return {"errors": [], "variants": resolved, "names": [variant["name"] for variant in resolved], "restore_other_config": restore}


def _given_variants(variants, datapaths):
    """The two variants as given (``bench_compare_variants``, or ``bench_compare_datapaths`` as variants), and the errors."""
    errors, raw = [], []
    if variants is not None and datapaths is not None:
        errors.append("bench_compare_variants and bench_compare_datapaths: give one of them, not both")
    elif variants is not None:
        if not isinstance(variants, list) or len(variants) != 2:
            errors.append("bench_compare_variants: give a list of exactly two variants such as "
                          "[{name: netdev, datapath: netdev}, {name: netdev-noemc, datapath: netdev, other_config: {emc-insert-inv-prob: '0'}}], got %r"
                          % (variants,))
        else:
            for index, variant in enumerate(variants):
                where = "bench_compare_variants[%d]" % index
                if not isinstance(variant, dict):
                    errors.append("%s: %r is not a mapping with name and datapath" % (where, variant))
                    continue
                errors += _variant_errors(where, variant)
                raw.append(variant)
    else:
        return _given_datapaths(DEFAULT_DATAPATHS if datapaths is None else datapaths, "bench_compare_datapaths")
    return raw, errors


def _given_datapaths(given, name):
    """Two datapaths ``given`` as variable ``name``, each a variant named after it, and the errors."""
    errors, raw = [], []
    if not isinstance(given, list) or len(given) != 2:
        errors.append("%s: give a list of exactly two datapaths [A, B] (the report shows A / B), got %r" % (name, given))
        return raw, errors
    for index, datapath in enumerate(given):
        if datapath not in DATAPATHS:
            errors.append("%s[%d]: %r is not one of %s" % (name, index, datapath, ", ".join(DATAPATHS)))
        raw.append({"name": datapath, "datapath": datapath})
    return raw, errors


def _resolve(variant, inventory, inventory_hw_offload):
    """One valid variant with what the ``ovs`` role gets for it: the inventory's other_config with the variant's merged,
    and the hw-offload in force (the variant's, else the inventory's, else on for doca only)."""
    own = dict((str(key), _config_value(value)) for key, value in (variant.get("other_config") or {}).items())
    merged = dict(inventory)
    merged.update(own)
    hw_offload = variant.get("hw_offload")
    if hw_offload is not None:
        effective = bool(hw_offload)
    elif inventory_hw_offload is not None and str(inventory_hw_offload) != "":
        effective = truth(inventory_hw_offload)
    else:
        effective = variant["datapath"] == "doca"
    return {"name": str(variant["name"]), "datapath": variant["datapath"], "other_config": own,
            "hw_offload": hw_offload, "ovs_other_config": merged, "ovs_hw_offload": effective}


def _variant_errors(where, variant):
    errors = []
    unknown = sorted(str(key) for key in variant if key not in VARIANT_KEYS)
    if unknown:
        errors.append("%s: unknown keys %s; a variant has %s" % (where, ", ".join(unknown), ", ".join(VARIANT_KEYS)))
    name = variant.get("name")
    if not isinstance(name, str) or not NAME_RE.match(name):
        errors.append("%s.name: %r is not a label of letters, digits, '.', '_' and '-' (it names the result files and the report's columns)"
                      % (where, name))
    if variant.get("datapath") not in DATAPATHS:
        errors.append("%s.datapath: %r is not one of %s" % (where, variant.get("datapath"), ", ".join(DATAPATHS)))
    other = variant.get("other_config")
    if other is not None:
        if not isinstance(other, dict):
            errors.append("%s.other_config: %r is not a mapping of Open_vSwitch other_config keys" % (where, other))
        else:
            for key, value in other.items():
                if key in ROLE_KEYS:
                    errors.append("%s.other_config: %s cannot be set here; %s" % (where, key, ROLE_KEYS[key]))
                elif isinstance(value, (dict, list)):
                    errors.append("%s.other_config.%s: %r is not a single value" % (where, key, value))
    hw_offload = variant.get("hw_offload")
    if hw_offload is not None and not isinstance(hw_offload, bool):
        errors.append("%s.hw_offload: %r is not true or false" % (where, hw_offload))
    return errors
