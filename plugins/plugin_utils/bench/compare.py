# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What ``playbooks/compare.yml`` compares: two or more *variants* of the DUT's Open vSwitch, the last the baseline.

A variant is a label (the ``datapath`` stored with the results and used by
the report's speedup table), the ``ovs`` role's datapath, ``other_config``
keys merged into the inventory's ``ovs_other_config`` and, optionally,
``hw-offload`` and the uplink's interface type and options (a datapath whose
physical port is reached another way, such as OVS-DPDK on DPDK's AF_PACKET
driver). ``bench_compare_datapaths: [A, B]`` is the short form: variants
named after their datapath.

Pure functions; the ``bench_compare_plan`` filter wraps :func:`plan`.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.datapath.ovs import DATAPATHS, HEX_RE, truth

DEFAULT_DATAPATHS = ["doca", "system"]
VARIANT_KEYS = ("name", "datapath", "other_config", "hw_offload", "uplink_type", "uplink_options", "pmd_cpu_mask")
# The most variants one comparison measures (each is a whole benchmark matrix).
MAX_VARIANTS = 6
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
    "pmd-cpu-mask": "set pmd_cpu_mask instead (the ovs role's ovs_pmd_cpu_mask)",
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


def plan(variants=None, datapaths=None, inventory_other_config=None, inventory_hw_offload=None, pair=None, inventory_pmd_cpu_mask=None):
    """The variants (two or more, the last the baseline), what the ``ovs`` role gets for each, and how to restore the inventory's configuration.

    ``variants``: ``bench_compare_variants`` (None when unset); ``datapaths``:
    ``bench_compare_datapaths`` (None when unset); ``inventory_other_config``
    and ``inventory_hw_offload``: the DUT's ``ovs_other_config`` and
    ``ovs_hw_offload`` (None when the inventory leaves it to the role's default);
    ``pair``: ``bench_compare_pair``, two datapaths for this run only (a job's
    survey answer), which win over ``variants`` and ``datapaths`` (None when unset);
    ``inventory_pmd_cpu_mask``: the DUT's ``ovs_pmd_cpu_mask`` (None or '' when unset).

    Returns ``{"errors": [...], "variants": [...], "names": [A, B, ...],
    "restore_other_config": {...}, "restore_uplink_options": {...}}``. Each variant is ``{"name", "datapath",
    "other_config" (the variant's own keys), "hw_offload" (the variant's,
    or None), "ovs_other_config" (the inventory's with the variant's merged,
    and set to None every key another variant adds: the ``ovs`` role removes
    it, so that no variant runs with what the one before it set),
    "ovs_hw_offload", "uplink_type", "uplink_options" and "pmd_cpu_mask" (the
    variant's, or None: the inventory's ``ovs_uplink_type``,
    ``ovs_uplink_options`` and ``ovs_pmd_cpu_mask``), "uplink_options_removed"
    (None for every uplink option another variant sets: the playbook puts
    the variant's or the inventory's options over it)}``.
    ``restore_uplink_options`` is None for every uplink option a variant
    sets; the inventory's options go over it at the restore. ``restore_other_config`` is the inventory's
    ``other_config`` with every key that a variant adds set to None, which
    the ``ovs`` role removes from the database (``pmd-cpu-mask`` too, when a
    variant sets one and the inventory does not).
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
    names = [variant.get("name") for variant in raw if isinstance(variant.get("name"), str)]
    for name in sorted(set(name for name in names if names.count(name) > 1)):
        errors.append("%s: %d variants are named %r; the results and the speedup table tell them apart by name" % (source, names.count(name), name))
    if errors:
        return {"errors": errors, "variants": [], "names": [], "restore_other_config": dict(inventory)}
    resolved = [_resolve(variant, inventory, inventory_hw_offload) for variant in raw]
    added = set(key for variant in resolved for key in variant["other_config"] if key not in inventory)
    if any(variant["pmd_cpu_mask"] for variant in resolved) and not inventory_pmd_cpu_mask:
        added.add("pmd-cpu-mask")
    # what one variant added does not stay for the next: each removes the others' keys it does not set itself
    for variant in resolved:
        own = set(variant["other_config"]) | (set(["pmd-cpu-mask"]) if variant["pmd_cpu_mask"] else set())
        variant["ovs_other_config"].update(dict((key, None) for key in sorted(added - own)))
    # the uplink's options likewise (dpdk-devargs of a DPDK uplink do not stay on the kernel device after it)
    option_keys = set(key for variant in resolved for key in (variant["uplink_options"] or {}))
    for variant in resolved:
        variant["uplink_options_removed"] = dict((key, None) for key in sorted(option_keys - set(variant["uplink_options"] or {})))
    restore = dict(inventory)
    restore.update(dict((key, None) for key in sorted(added)))
    return {"errors": [], "variants": resolved, "names": [variant["name"] for variant in resolved], "restore_other_config": restore,
            "restore_uplink_options": dict((key, None) for key in sorted(option_keys))}


def _given_variants(variants, datapaths):
    """The variants as given (``bench_compare_variants``, or ``bench_compare_datapaths`` as variants), and the errors."""
    errors, raw = [], []
    if variants is not None and datapaths is not None:
        errors.append("bench_compare_variants and bench_compare_datapaths: give one of them, not both")
    elif variants is not None:
        if not isinstance(variants, list) or not 2 <= len(variants) <= MAX_VARIANTS:
            errors.append("bench_compare_variants: give a list of 2 to %d variants, the last the baseline, such as "
                          "[{name: netdev, datapath: netdev}, {name: netdev-noemc, datapath: netdev, other_config: {emc-insert-inv-prob: '0'}}], got %r"
                          % (MAX_VARIANTS, variants))
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
    """Datapaths ``given`` as variable ``name``, each a variant named after it, and the errors."""
    errors, raw = [], []
    if not isinstance(given, list) or not 2 <= len(given) <= MAX_VARIANTS:
        errors.append("%s: give a list of 2 to %d datapaths [A, ..., B], the last the baseline (the report shows each / B), got %r"
                      % (name, MAX_VARIANTS, given))
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
            "hw_offload": hw_offload, "ovs_other_config": merged, "ovs_hw_offload": effective,
            "uplink_type": variant.get("uplink_type"), "uplink_options": variant.get("uplink_options"),
            "pmd_cpu_mask": variant.get("pmd_cpu_mask")}


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
    return errors + _uplink_errors(where, variant)


def _uplink_errors(where, variant):
    """The variant's uplink_type (an interface type: '' for a system device, dpdk, doca...) and uplink_options (single values)."""
    errors = []
    uplink_type = variant.get("uplink_type")
    if uplink_type is not None and (not isinstance(uplink_type, str) or not re.match(r"^[a-z0-9_]*$", uplink_type)):
        errors.append("%s.uplink_type: %r is not an interface type such as dpdk, or '' for a system device" % (where, uplink_type))
    options = variant.get("uplink_options")
    if options is not None and (not isinstance(options, dict) or any(isinstance(value, (dict, list)) for value in options.values())):
        errors.append("%s.uplink_options: %r is not a mapping of interface options such as {dpdk-devargs: ...}" % (where, options))
    mask = variant.get("pmd_cpu_mask")
    if mask is not None and (not isinstance(mask, str) or not HEX_RE.match(mask)):
        errors.append("%s.pmd_cpu_mask: %r is not a hexadecimal CPU mask such as '0x2' (quote it)" % (where, mask))
    return errors
