# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench fingerprint: what a run measured on, as flat fields, and whether two runs may be compared.

``fingerprint(document)`` reads a results document (the header ``trex_bench`` writes: ``datapath``,
``generator`` and ``metadata.dut_system``, what ``dut_health`` read on the DUT when the run started) and
gives one mapping of dotted field names to text, for example ``nics.ens1f0np0.firmware`` or
``ovs_other_config.hw-offload``. A value the run did not record is absent, not empty.

Two parts:

* the **family**: the hardware of the bench (DUT host, CPU model, each NIC's PCI id and PSID, the
  generator's client). Runs of one family make one trend series; a firmware update, a new DOCA or kernel
  stays in the series, and the change of a series names the fields that changed with it.
* the **datapath** fields (``datapath``, ``ovs_other_config.*``, ``dpdk_version``, ``pmd_cpus``,
  ``hw_tc_offload.*``): what a comparison of datapaths is about. Every other field must be equal between
  two compared runs; ``refusals`` names the ones that are not.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

FAMILY = ("dut_host", "cpu_model", "generator")
FAMILY_NIC = ("pci_id", "pci_subsystem", "psid")
DATAPATH_FIELDS = ("datapath", "dpdk_version", "pmd_cpus")
DATAPATH_PREFIXES = ("ovs_other_config.", "hw_tc_offload.")
# (field, the dut_system key it is read from): one text per run.
SYSTEM_FIELDS = (("kernel", "kernel"), ("cmdline", "cmdline"), ("cpu_model", "cpu_model"), ("isolated_cpus", "isolated_cpus"),
                 ("ovs_version", "ovs_version"), ("ovn_version", "ovn_version"), ("dpdk_version", "dpdk_version"))
NIC_FIELDS = (("driver", "driver"), ("driver_version", "version"), ("firmware", "firmware_version"), ("psid", "psid"),
              ("bus_info", "bus_info"), ("numa_node", "numa_node"), ("pci_id", "pci_id"), ("pci_subsystem", "pci_subsystem"))


def _text(value):
    """A recorded value as the fingerprint's text: numbers and booleans as JSON writes them."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _mapping(prefix, values):
    return dict(("%s.%s" % (prefix, key), _text(value)) for key, value in (values or {}).items() if value is not None)


def _generator(document):
    found = document.get("generator") or {}
    version = found.get("version")
    if isinstance(version, dict):
        version = version.get("version")
    return {"generator": found.get("client"), "generator_version": version}


def _pmd_cpus(cores):
    """``2 (node 0), 3 (node 0)``: the PMD cores and the NUMA node of each (``node ?`` when not known)."""
    return ", ".join("%s (node %s)" % (core, "?" if cores[core] is None else cores[core]) for core in sorted(cores, key=int))


def fingerprint(document):
    """Every field of the bench a run recorded, ``{field: text}``."""
    metadata = document.get("metadata") or {}
    system = metadata.get("dut_system") or {}
    found = {"dut_host": metadata.get("dut_host") or metadata.get("inventory_hostname"), "datapath": document.get("datapath")}
    found.update(_generator(document))
    found.update((field, system.get(key)) for field, key in SYSTEM_FIELDS)
    if system.get("pmd_cpus"):
        found["pmd_cpus"] = _pmd_cpus(system["pmd_cpus"])
    for name, nic in (system.get("nics") or {}).items():
        found.update(("nics.%s.%s" % (name, field), (nic or {}).get(key)) for field, key in NIC_FIELDS)
    for prefix in ("ovs_other_config", "hw_tc_offload", "hugepages", "doca_packages"):
        found.update(_mapping(prefix, system.get(prefix)))
    return dict((field, _text(value)) for field, value in found.items() if value is not None and value != "")


def recorded(document):
    """The run's bench fingerprint: as recorded, else computed from what a document written before it recorded."""
    return document.get("bench_fingerprint") or fingerprint(document)


def of_columns(recorded_value, conditions, generator, datapath):
    """A run's fingerprint from its row in the database: the recorded one, else computed from its conditions (the
    document's ``metadata``), generator and datapath (a run written before runs recorded one)."""
    return recorded_value or fingerprint({"metadata": conditions or {}, "generator": generator, "datapath": datapath})


def is_family(field):
    """Whether the field names the hardware of the bench (one trend series per family)."""
    parts = field.split(".")
    return field in FAMILY or (len(parts) == 3 and parts[0] == "nics" and parts[2] in FAMILY_NIC)


def family(found):
    """The family's fields of a fingerprint and a short id of them (``3f2a9c1e``)."""
    fields = dict((field, value) for field, value in found.items() if is_family(field))
    return fields, hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()[:8]


def is_datapath(field):
    """Whether a comparison of datapaths is about this field."""
    return field in DATAPATH_FIELDS or field.startswith(DATAPATH_PREFIXES)


def differences(first, second):
    """``[(field, value in first, value in second)]`` of every field the two differ in (None where one has none), sorted."""
    return [(field, first.get(field), second.get(field)) for field in sorted(set(first) | set(second)) if first.get(field) != second.get(field)]


def refusals(first, second, accept=()):
    """The differences of two compared runs' fingerprints that are neither the datapath's nor accepted by name: fields both
    runs recorded with different values (a field one run did not record cannot be compared; see ``unrecorded``)."""
    return [item for item in differences(first, second)
            if None not in item[1:] and not is_datapath(item[0]) and item[0] not in accept]


def by_label(documents, labels):
    """``{label: [recorded fingerprint of each run of that datapath]}``: what a comparison of ``labels`` checks."""
    return dict((label, [recorded(document) for document in documents if document.get("datapath") == label]) for label in labels)


def unrecorded(prints):
    """The fields (not the datapath's) that some compared runs (``by_label``) recorded and others did not, sorted: what
    the comparison could not check (a run without ``bench_dut_interfaces`` has no NIC fields)."""
    found = [one for runs in prints.values() for one in runs]
    fields = set(field for one in found for field in one if not is_datapath(field))
    return sorted(field for field in fields if any(field not in one for one in found))


def refusal_text(item):
    """``nics.ens1f0np0.firmware (26.41.1000 against 26.43.2036)``."""
    return "%s (%s against %s)" % item


def refused_by_label(prints, labels, accept=()):
    """``{label: [(field, value of the label's run, value of the baseline's)]}``: what a run of each label (the last the
    baseline) and a run of the baseline differ in (``prints`` from ``by_label``), but for the datapath's fields and those
    ``accept`` names."""
    found = {}
    for label in labels[:-1]:
        items = []
        for first in prints[label]:
            for second in prints[labels[-1]]:
                items.extend(item for item in refusals(first, second, accept) if item not in items)
        if items:
            found[label] = items
    return found


def compare_refusal(prints, labels, accept=(), name="compare"):
    """Why the runs of ``labels`` (``prints`` from ``by_label``) may not be compared, naming every field at once, or None."""
    found = refused_by_label(prints, labels, accept)
    if not found:
        return None
    problems = ["the runs of %s and %s differ in %s" % (label, labels[-1], ", ".join(refusal_text(item) for item in items))
                for label, items in sorted(found.items())]
    fields = sorted(set(item[0] for items in found.values() for item in items))
    return ("%s: %s; a comparison needs one bench for every label, the datapath aside. Measure them again on one bench, or accept "
            "these differences by name with %s_accept: [%s]" % (name, "; ".join(problems), name, ", ".join(fields)))
