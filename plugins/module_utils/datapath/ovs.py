# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the ``ovs`` role and the ``ovs_switch`` module: meaning
checks of the role's variables, and the plan that turns the switch read
with ``ovs-vsctl --format=json`` into the declared one in ONE transaction.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate as rules
from ansible_collections.offload.testbed.plugins.module_utils.host.cpulist import cpulist
from ansible_collections.offload.testbed.plugins.module_utils.prepare.hugepages import parse_meminfo
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovsdb import quote_value

DATAPATHS = ("doca", "system", "netdev", "dpdk")
# other_config keys that ovs-vswitchd only reads when it starts: the DPDK EAL's
# arguments are taken once, at dpdk-init (ovs-vswitchd.conf.db(5)).
RESTART_KEYS = ("doca-init", "dpdk-init", "pmd-cpu-mask", "dpdk-socket-mem", "dpdk-socket-limit", "dpdk-lcore-mask",
                "dpdk-hugepage-dir", "dpdk-extra")
# The role's variables (no prefix) for the EAL of the dpdk and doca datapaths -> other_config keys.
EAL_KEYS = (("dpdk_socket_mem", "dpdk-socket-mem"), ("dpdk_socket_limit", "dpdk-socket-limit"), ("dpdk_lcore_mask", "dpdk-lcore-mask"),
            ("dpdk_hugepage_dir", "dpdk-hugepage-dir"), ("dpdk_extra", "dpdk-extra"))
SOCKET_MEM_RE = re.compile(r"^\d+(,\d+)*$")
HEX_RE = re.compile(r"^(0x)?[0-9a-fA-F]+$")
AFFINITY_RE = re.compile(r"^\s*\d+\s*:\s*\d+\s*(,\s*\d+\s*:\s*\d+\s*)*$")
# What a refused VLAN tag or trunk says to do.
UNTAGGED = "VLAN 0 and 4095 are reserved, leave the tag unset for an untagged port"
TRUNK = "VLAN 0 and 4095 are reserved, list only VLANs 1..4094"


def uplink_type(datapath):
    """Interface type of a physical port for a datapath (the ConnectX-6 Lx reference bench: type=doca)."""
    return {"doca": "doca", "netdev": "dpdk", "dpdk": "dpdk", "system": ""}[datapath]


def bridge_datapath(datapath):
    """A bridge's ``datapath_type`` for the role's datapath: OVS-DPDK is the userspace datapath (``netdev``) with
    DPDK initialised and ports of type ``dpdk``; Open vSwitch has no datapath type of that name."""
    return "netdev" if datapath == "dpdk" else datapath


def mask_cpus(mask):
    """``0xfc`` -> {2, 3, 4, 5, 6, 7}."""
    value = int(str(mask), 16)
    return set(bit for bit in range(value.bit_length()) if value >> bit & 1)


def validate(config, isolated=None, prefix="ovs_"):
    """Errors in the role's variables, each naming the variable and the fix.

    ``config`` holds the role variables without their prefix: ``datapath``,
    ``pmd_cpu_mask``, ``bridges`` (each with ``ports``), and ``isolated`` is
    the host's isolated CPU set (None when unknown: not checked).
    """
    name = rules.Names(prefix=prefix)
    errors = []
    if config.get("datapath") not in DATAPATHS:
        errors.append("%s: %r is not one of doca, system, netdev, dpdk" % (name("datapath"), config.get("datapath")))
    mask = config.get("pmd_cpu_mask")
    if mask:
        if not HEX_RE.match(str(mask)):
            errors.append("%s: %r is not hexadecimal; write the CPU mask like 0xfc (CPUs 2-7)" % (name("pmd_cpu_mask"), mask))
        else:
            cpus = mask_cpus(mask)
            if not cpus:
                errors.append("%s: %r selects no CPU" % (name("pmd_cpu_mask"), mask))
            elif isolated is not None and not cpus <= set(isolated):
                errors.append("%s: %s puts PMD threads on CPUs %s, which are not isolated on this host (isolated: %s); "
                              "isolate them with boot_params or pick isolated CPUs"
                              % (name("pmd_cpu_mask"), mask, ",".join(str(c) for c in sorted(cpus - set(isolated))),
                                 ",".join(str(c) for c in sorted(isolated)) or "none"))
    for i, bridge in enumerate(config.get("bridges") or []):
        for j, port in enumerate(bridge.get("ports") or []):
            var = name("bridges", i, "ports", j)
            where = "%s (%s)" % (var, port.get("name"))
            errors += _port_vlan_errors(var, where, port)
            n_rxq = (port.get("options") or {}).get("n_rxq")
            if n_rxq is not None and (not str(n_rxq).isdigit() or int(n_rxq) < 1):
                errors.append("%s: n_rxq %r must be a whole number of at least 1" % (where, n_rxq))
            affinity = (port.get("other_config") or {}).get("pmd-rxq-affinity")
            if affinity is not None:
                if not AFFINITY_RE.match(str(affinity)):
                    errors.append("%s: pmd-rxq-affinity %r is not a list of queue:core pairs such as 0:2,1:3" % (where, affinity))
                elif mask and HEX_RE.match(str(mask)):
                    cores = set(int(pair.split(":")[1]) for pair in str(affinity).split(","))
                    outside = cores - mask_cpus(mask)
                    if outside:
                        errors.append("%s: pmd-rxq-affinity pins queues to cores %s, outside %s %s"
                                      % (where, ",".join(str(c) for c in sorted(outside)), name("pmd_cpu_mask"), mask))
            address = port.get("address")
            if address is not None:
                if not _prefixed_address(address):
                    errors.append("%s: address %r is not an address with a prefix length such as 10.10.0.3/24" % (where, address))
                if port.get("type") != "internal":
                    errors.append("%s: only internal ports take an address (set type: internal)" % where)
    return errors


def _prefixed_address(value):
    """Whether ``value`` is an address with a prefix length (``10.10.0.3/24``)."""
    return "/" in str(value) and rules.ip_value(ipaddress.ip_interface, value) is not None


def _vlan_errors(tag_var, tag, trunks_var, trunks):
    """An access tag and trunk VLANs of the role, each named as the user wrote it (``ovs_representors[0].tag``)."""
    errors = []
    if tag is not None:
        errors.append(rules.vlan_id(tag_var, tag, UNTAGGED))
    for k, vlan in enumerate(trunks or []):
        errors.append(rules.vlan_id("%s[%d]" % (trunks_var, k), vlan, TRUNK))
    return [error for error in errors if error]


def _port_vlan_errors(var, where, port):
    """A declared port's tag and trunks. The shared VLAN rule decides; the message starts, as the port's
    other messages do, with the port and its name, and names the variable (``bridges[0].ports[1].tag``)."""
    vlans = [] if port.get("tag") is None else [("%s.tag" % var, port["tag"], UNTAGGED)]
    vlans += [("%s.trunks[%d]" % (var, k), vlan, TRUNK) for k, vlan in enumerate(port.get("trunks") or [])]
    return ["%s: VLAN %s is outside %d..%d (%s); %s" % (where, rules.show(vlan), rules.VLAN_MIN, rules.VLAN_MAX, name, fix)
            for name, vlan, fix in vlans if rules.vlan_id(name, vlan, fix)]


def _kv_sets(column, want, have):
    """``column:key=value`` arguments for keys whose value differs (a None value is no set: see :func:`_kv_removes`)."""
    out = []
    for key in sorted(want):
        value = want[key]
        if value is None:
            continue
        if str(have.get(key)) != str(value):
            out.append("%s:%s=%s" % (column, key, quote_value(value)))
    return out


def _kv_removes(table, record, column, want, have):
    """``remove`` sub-commands for the keys declared None that the record has: a None value removes the key."""
    return [["remove", table, record, column, key] for key in sorted(want) if want[key] is None and key in have]


def plan(spec, model):
    """ovs-vsctl sub-commands for ONE transaction, and the restart keys that change.

    ``spec``: {"other_config": {}, "external_ids": {}, "bridges": [{"name",
    "datapath_type", "fail_mode", "other_config", "external_ids", "ports":
    [{"name", "type", "tag", "trunks", "vlan_mode", "options",
    "other_config", "external_ids"}]}], "purge_ports": bool, "state"}.
    ``model``: :func:`ovsdb.switch_model`.
    """
    bridges = spec.get("bridges") or []
    if spec.get("state", "present") == "absent":
        return [["--if-exists", "del-br", bridge["name"]] for bridge in bridges if bridge["name"] in model["bridges"]], []
    cmds, restart = _open_vswitch_plan(spec, model["open_vswitch"])
    everywhere = set(port["name"] for bridge in bridges for port in bridge.get("ports") or [])
    for bridge in bridges:
        cmds += _bridge_plan(bridge, model, everywhere, spec.get("purge_ports"))
    return cmds, restart


def _open_vswitch_plan(spec, ovs):
    """The Open_vSwitch record's sub-commands, and the keys read only at start that change."""
    want_other = spec.get("other_config") or {}
    want_ids = spec.get("external_ids") or {}
    cmds = []
    sets = _kv_sets("other_config", want_other, ovs["other_config"]) + _kv_sets("external_ids", want_ids, ovs["external_ids"])
    if sets:
        cmds.append(["set", "Open_vSwitch", "."] + sets)
    cmds += _kv_removes("Open_vSwitch", ".", "other_config", want_other, ovs["other_config"])
    cmds += _kv_removes("Open_vSwitch", ".", "external_ids", want_ids, ovs["external_ids"])
    restart = []
    for key in RESTART_KEYS:
        if key not in want_other:
            continue
        want = want_other[key]
        if (want is not None and str(ovs["other_config"].get(key)) != str(want)) or (want is None and key in ovs["other_config"]):
            restart.append(key)
    # hw-offload: "Changing this value requires restarting the daemon"
    # (ovs-vswitchd.conf.db(5)); ovs-vswitchd turns the flow API on at run
    # time once but never off, so only true -> false (absent is false) restarts.
    if "hw-offload" in want_other and truth(ovs["other_config"].get("hw-offload")) and not truth(want_other["hw-offload"]):
        restart.append("hw-offload")
    return cmds, restart


def _bridge_plan(bridge, model, everywhere, purge):
    """One bridge's sub-commands: created if missing, its columns, its ports, and (``purge``) the ports it should not have."""
    name = bridge["name"]
    cmds = []
    cur = model["bridges"].get(name)
    if cur is None:
        cmds.append(["add-br", name])
        cur = {"datapath_type": "", "fail_mode": "", "external_ids": {}, "other_config": {}, "ports": set([name])}
    bsets = []
    for column in ("datapath_type", "fail_mode"):
        if bridge.get(column) and cur[column] != bridge[column]:
            bsets.append("%s=%s" % (column, bridge[column]))
    bsets += _kv_sets("other_config", bridge.get("other_config") or {}, cur["other_config"])
    bsets += _kv_sets("external_ids", bridge.get("external_ids") or {}, cur["external_ids"])
    if bsets:
        cmds.append(["set", "Bridge", name] + bsets)
    cmds += _kv_removes("Bridge", name, "other_config", bridge.get("other_config") or {}, cur["other_config"])
    cmds += _kv_removes("Bridge", name, "external_ids", bridge.get("external_ids") or {}, cur["external_ids"])
    declared = set([name])
    for port in bridge.get("ports") or []:
        declared.add(port["name"])
        cmds += _port_plan(name, port, model)
    if purge:
        # A port declared on another bridge moves there; it is not purged here.
        for extra in sorted(cur["ports"] - declared - everywhere):
            cmds.append(["del-port", name, extra])
    return cmds


def _port_plan(bridge, port, model):
    """One port's sub-commands: added (or moved from another bridge), its VLANs, its interface's columns."""
    pname = port["name"]
    cmds = []
    pcur = model["ports"].get(pname)
    icur = model["interfaces"].get(pname)
    if pcur is not None and pcur["bridge"] != bridge:
        cmds.append(["del-port", pcur["bridge"], pname])
        pcur = icur = None
    if pcur is None:
        cmds.append(["add-port", bridge, pname])
        pcur = {"tag": None, "trunks": [], "vlan_mode": None, "external_ids": {}, "other_config": {}}
        icur = {"type": "", "external_ids": {}, "options": {}, "other_config": {}}
    psets = []
    tag = port.get("tag")
    if tag is not None and pcur["tag"] != int(tag):
        psets.append("tag=%d" % int(tag))
    trunks = sorted(int(t) for t in port.get("trunks") or [])
    if trunks and pcur["trunks"] != trunks:
        psets.append("trunks=%s" % ",".join(str(t) for t in trunks))
    if port.get("vlan_mode") and pcur["vlan_mode"] != port["vlan_mode"]:
        psets.append("vlan_mode=%s" % port["vlan_mode"])
    if psets:
        cmds.append(["set", "Port", pname] + psets)
    if tag is None and pcur["tag"] is not None and port.get("clear_tag", True) and not trunks:
        cmds.append(["clear", "Port", pname, "tag"])
    isets = []
    if port.get("type") is not None and icur["type"] != port["type"]:
        isets.append("type=%s" % (port["type"] or '""'))
    for column in ("options", "other_config", "external_ids"):
        isets += _kv_sets(column, port.get(column) or {}, icur[column])
    if isets:
        cmds.append(["set", "Interface", pname] + isets)
    for column in ("options", "other_config", "external_ids"):
        cmds += _kv_removes("Interface", pname, column, port.get(column) or {}, icur[column])
    return cmds


def recreated_ports(spec, model):
    """The internal ports whose kernel device Open vSwitch makes anew in this transaction: their bridge changes datapath
    type (a tap on the userspace datapath, a device of the kernel module on the system one), and the addresses and
    offload settings of the old device go with it."""
    names = set()
    for bridge in spec.get("bridges") or []:
        cur = model["bridges"].get(bridge["name"])
        if cur is not None and bridge.get("datapath_type") and cur["datapath_type"] != bridge["datapath_type"]:
            names.update(port["name"] for port in bridge.get("ports") or [] if port.get("type") == "internal")
    return names


def address_plan(ports, links):
    """``ip`` commands that bring internal ports up with their addresses.

    ``ports``: declared ports with ``address``; ``links``: ``ip -j addr``
    parsed (ifname -> {"up", "addresses"}); a port not yet there gets all.
    """
    cmds = []
    for port in ports:
        if port.get("type") != "internal" or not port.get("address"):
            continue
        name = port["name"]
        cur = links.get(name)
        want = str(ipaddress.ip_interface(port["address"]))
        if cur is None or not cur["up"]:
            cmds.append(["ip", "link", "set", "dev", name, "up"])
        if cur is None or want not in cur["addresses"]:
            cmds.append(["ip", "addr", "add", want, "dev", name])
    return cmds


def truth(value):
    """Whether a variable or an other_config value means true (a boolean, or true/yes/1/on as text)."""
    return str(value).lower() in ("true", "yes", "1", "on")


def role_switch(v):
    """The ``ovs`` role's variables (without the ``ovs_`` prefix) -> the
    ``ovs_switch`` declaration: {"other_config", "external_ids", "bridges"}.

    Every bridge gets the one datapath; the uplink is a trunk of
    ``uplink_trunks`` typed for the datapath (doca, dpdk, or a system
    device); representors carry an access tag and, on the integration
    bridge, ``iface-id``; internal ports carry their tag and address.
    """
    datapath = v["datapath"]
    other = {"hw-offload": "true" if truth(v.get("hw_offload")) else "false", "default-datapath-type": bridge_datapath(datapath)}
    other.update(_eal_config(v))
    for key, name in (("hw_offload_ct_size", "hw-offload-ct-size"), ("pmd_cpu_mask", "pmd-cpu-mask")):
        if v.get(key):
            other[name] = str(v[key])
    other.update(v.get("other_config") or {})
    ids = {"system-id": v["system_id"], "ovn-bridge": v["ovn_bridge"], "ovn-encap-type": v["ovn_encap_type"],
           "ovn-bridge-mappings": v["ovn_bridge_mappings"]}
    for key, name in (("ovn_remote", "ovn-remote"), ("ovn_nb", "ovn-nb"), ("ovn_encap_ip", "ovn-encap-ip")):
        if v.get(key):
            ids[name] = v[key]
    ids.update(v.get("external_ids") or {})

    underlay, integration = [], []
    if v.get("uplink"):
        kind = v.get("uplink_type") or uplink_type(datapath)
        # "system" is the database's "" (a system device): written as "", it reads back the same.
        port = {"name": v["uplink"], "type": "" if kind == "system" else kind, "vlan_mode": "trunk",
                "trunks": list(v.get("uplink_trunks") or []), "options": dict(v.get("uplink_options") or {}), "other_config": {}}
        if int(v.get("uplink_n_rxq") or 0) > 0:
            port["options"]["n_rxq"] = int(v["uplink_n_rxq"])
        if v.get("uplink_pmd_rxq_affinity"):
            port["other_config"]["pmd-rxq-affinity"] = v["uplink_pmd_rxq_affinity"]
        underlay.append(port)
    rep_type = "doca" if datapath == "doca" else ""
    for rep in v.get("representors") or []:
        port = {"name": rep["name"], "type": rep.get("type", rep_type)}
        if rep.get("tag") is not None:
            port["tag"] = int(rep["tag"])
        if rep.get("iface_id"):
            port["external_ids"] = {"iface-id": rep["iface_id"]}
        (integration if rep.get("bridge", v["underlay_bridge"]) == v["integration_bridge"] else underlay).append(port)
    for internal in v.get("internal_ports") or []:
        port = {"name": internal["name"], "type": "internal", "offloads_off": list(v.get("internal_offloads_off") or [])}
        if internal.get("tag") is not None:
            port["tag"] = int(internal["tag"])
        if internal.get("address"):
            port["address"] = internal["address"]
        underlay.append(port)
    bridges = [{"name": v["underlay_bridge"], "datapath_type": bridge_datapath(datapath), "fail_mode": "standalone", "ports": underlay},
               {"name": v["integration_bridge"], "datapath_type": bridge_datapath(datapath), "fail_mode": "secure", "ports": integration}]
    return {"other_config": other, "external_ids": ids, "bridges": bridges}


def _eal_config(v):
    """``doca-init`` and ``dpdk-init`` as asked, and the EAL's arguments (socket memory, lcore mask, hugepage
    directory, extra arguments) that are set: the dpdk and doca datapaths share them. ``dpdk-init`` off on the
    system and netdev datapaths removes the key (a bench switched back from dpdk; ovs-vswitchd restarts without
    DPDK); OVS-DOCA's own keys are left as they are."""
    other = {}
    for key, name in (("doca_init", "doca-init"), ("dpdk_init", "dpdk-init")):
        if truth(v.get(key)):
            other[name] = "true"
    if v.get("dpdk_init") is not None and not truth(v.get("dpdk_init")) and v.get("datapath") in ("system", "netdev"):
        other["dpdk-init"] = None
    for key, name in EAL_KEYS:
        if v.get(key) not in (None, ""):
            other[name] = str(v[key])
    return other


def _eal_errors(v, name):
    """The EAL variables: socket memory in MB per NUMA node, a hexadecimal lcore mask, dpdk-init on the dpdk datapath."""
    errors = []
    for key in ("dpdk_socket_mem", "dpdk_socket_limit"):
        mem = v.get(key)
        if mem not in (None, "") and not SOCKET_MEM_RE.match(str(mem).replace(" ", "")):
            errors.append("%s: %r is not megabytes per NUMA node; write it like 1024 or 1024,1024" % (name(key), mem))
    mask = v.get("dpdk_lcore_mask")
    if mask not in (None, "") and not HEX_RE.match(str(mask)):
        errors.append("%s: %r is not hexadecimal; write the CPU mask like 0x1 (CPU 0)" % (name("dpdk_lcore_mask"), mask))
    if v.get("datapath") == "dpdk" and v.get("dpdk_init") is not None and not truth(v.get("dpdk_init")):
        errors.append("%s: false on the dpdk datapath, whose ports need DPDK initialised; "
                      "leave %s unset or true, or pick another %s" % (name("dpdk_init"), name("dpdk_init"), name("datapath")))
    return errors


def validate_role(v, isolated=None, prefix="ovs_"):
    """Errors in the ``ovs`` role's variables (no prefix in ``v``), named as the user wrote them."""
    name = rules.Names(prefix=prefix)
    errors = validate({"datapath": v.get("datapath"), "pmd_cpu_mask": v.get("pmd_cpu_mask")}, isolated, prefix)
    errors += _vlan_errors(None, None, name("uplink_trunks"), v.get("uplink_trunks"))
    errors += _eal_errors(v, name)
    n_rxq = v.get("uplink_n_rxq")
    if n_rxq is not None and (not str(n_rxq).lstrip("-").isdigit() or int(n_rxq) < 1):
        errors.append("%s: %s is below 1; give the number of RX queues "
                      "(the ConnectX-6 Lx reference bench: 1 on the DUT, 6 on the generator)" % (name("uplink_n_rxq"), n_rxq))
    affinity = v.get("uplink_pmd_rxq_affinity")
    if affinity:
        if not AFFINITY_RE.match(str(affinity)):
            errors.append("%s: %r is not a list of queue:core pairs such as 0:2,1:3" % (name("uplink_pmd_rxq_affinity"), affinity))
        elif v.get("pmd_cpu_mask") and HEX_RE.match(str(v["pmd_cpu_mask"])):
            outside = set(int(pair.split(":")[1]) for pair in str(affinity).split(",")) - mask_cpus(v["pmd_cpu_mask"])
            if outside:
                errors.append("%s: cores %s are outside %s %s"
                              % (name("uplink_pmd_rxq_affinity"), ",".join(str(c) for c in sorted(outside)), name("pmd_cpu_mask"), v["pmd_cpu_mask"]))
    for i, rep in enumerate(v.get("representors") or []):
        errors += _vlan_errors(name("representors", i, "tag"), rep.get("tag"), None, None)
        if rep.get("bridge") not in (None, v.get("underlay_bridge"), v.get("integration_bridge")):
            errors.append("%s: %r is neither %s nor %s"
                          % (name("representors", i, "bridge"), rep.get("bridge"), v.get("underlay_bridge"), v.get("integration_bridge")))
    for i, port in enumerate(v.get("internal_ports") or []):
        errors += _vlan_errors(name("internal_ports", i, "tag"), port.get("tag"), None, None)
        if port.get("address") is not None and not _prefixed_address(port["address"]):
            errors.append("%s: %r is not an address with a prefix length such as 10.10.0.3/24"
                          % (name("internal_ports", i, "address"), port["address"]))
    errors += ovn_errors(v, name) + role_name_errors(v, name)
    return errors


def role_name_errors(v, name):
    """The bridge, port, chassis and network names of the ``ovs`` role, by the one rule for names of validate.py;
    ``name`` is the role's :class:`validate.Names`."""
    found = [rules.interface_name(name(key), v[key], rules.OVS_BRIDGE)
             for key in ("underlay_bridge", "integration_bridge", "ovn_bridge") if key in v]
    if v.get("uplink"):
        derived = uplink_type(v["datapath"]) if v.get("datapath") in DATAPATHS else None
        found.append(rules.ovs_port_name(name("uplink"), v["uplink"], v.get("uplink_type") or derived))
    for i, rep in enumerate(v.get("representors") or []):
        kind = rep.get("type", "doca" if v.get("datapath") == "doca" else "") if isinstance(rep, dict) else None
        found.append(rules.ovs_port_name(name("representors", i, "name"), rep.get("name") if isinstance(rep, dict) else rep, kind))
    for i, port in enumerate(v.get("internal_ports") or []):
        found.append(rules.ovs_port_name(name("internal_ports", i, "name"), port.get("name") if isinstance(port, dict) else port, "internal"))
    if v.get("system_id"):
        found.append(rules.database_name(name("system_id"), v["system_id"], "the chassis name (external_ids:system-id)"))
    mappings = v.get("ovn_bridge_mappings")
    if mappings and not bridge_mappings_error(name("ovn_bridge_mappings"), mappings):
        # ovn-controller splits the pairs at ',' and ':' and keeps the white space around each part
        for pair in mappings.split(","):
            network, dummy, bridge = pair.partition(":")
            found.append(rules.database_name(name("ovn_bridge_mappings"), network, "the physical network name of a bridge mapping"))
            found.append(rules.interface_name(name("ovn_bridge_mappings"), bridge, "the bridge of a bridge mapping, " + rules.OVS_BRIDGE))
    return [error for error in found if error]


def ovn_errors(v, name):
    """The external_ids ovn-controller reads: ``ovn_remote``, ``ovn_nb``, ``ovn_encap_ip``, ``ovn_bridge_mappings``;
    ``name`` is the role's :class:`validate.Names`."""
    errors = []
    for key in ("ovn_remote", "ovn_nb"):
        if v.get(key):
            errors.append(rules.ovsdb_remote(name(key), v[key]))
    if v.get("ovn_encap_ip"):
        errors.append(rules.ipv4_address(name("ovn_encap_ip"), v["ovn_encap_ip"]))
    if v.get("ovn_bridge_mappings"):
        errors.append(bridge_mappings_error(name("ovn_bridge_mappings"), v["ovn_bridge_mappings"]))
    return [error for error in errors if error]


def bridge_mappings_error(name, value):
    """``ovn-bridge-mappings``: physnet:bridge pairs separated by commas (``physnet1:underlay,physnet2:br-ex``)."""
    fix = ("write physnet:bridge pairs separated by commas, for example physnet1:underlay "
           "(the localnet network name, a colon, the bridge that reaches it)")
    if not isinstance(value, str):
        return "%s: %s is not a list of bridge mappings; %s" % (name, rules.show(value), fix)
    seen = {}
    for pair in value.split(","):
        network, colon, bridge = pair.strip().partition(":")
        if not colon or not network.strip() or not bridge.strip() or ":" in bridge:
            return "%s: %s is not a list of bridge mappings (%r); %s" % (name, rules.show(value), pair.strip(), fix)
        if network.strip() in seen:
            return ("%s: %s maps network %r twice (%r and %r); map each network to one bridge"
                    % (name, rules.show(value), network.strip(), seen[network.strip()], pair.strip()))
        seen[network.strip()] = pair.strip()
    return None


def controller_errors(v, prefix="ovn_controller_"):
    """Errors in the ``ovn_controller`` role's variables (no prefix in ``v``): ``sb_db``, ``timeout``,
    the SSL files and ``remote_interface``, each named as the user wrote it."""
    name = rules.Names(prefix=prefix)
    errors = []
    if v.get("sb_db"):
        error = rules.ovsdb_remote(name("sb_db"), v["sb_db"])
        if error:
            errors.append('%s (or leave it "" to use the chassis\' ovn-remote)' % error)
    timeout = v.get("timeout")
    number = None if isinstance(timeout, bool) else timeout
    try:
        number = int(str(number).strip())
    except ValueError:
        number = None
    if number is None or number < 1:
        errors.append("%s: %s is not a number of seconds of at least 1; give the seconds to wait for the chassis "
                      "in the Southbound database, for example 60" % (name("timeout"), rules.show(timeout)))
    if v.get("remote_interface"):
        errors += [e for e in [rules.interface_name(name("remote_interface"), v["remote_interface"], "the interface ovn-controller reaches "
                                                    "the Southbound database through")] if e]
    for key in ("ssl_private_key", "ssl_certificate", "ssl_ca_cert"):
        if not str(v.get(key) or "").startswith("/"):
            errors.append("%s: %s is not an absolute path; give the file's full path, for example /etc/ovn/%s"
                          % (name(key), rules.show(v.get(key)),
                             {"ssl_private_key": "ovn-controller-privkey.pem", "ssl_certificate": "ovn-controller-cert.pem",
                              "ssl_ca_cert": "ovn-cacert.pem"}[key]))
    return errors


# The datapaths whose ovs-vswitchd runs DPDK's EAL, and the role variables that make it do so: OVS-DPDK's dpdk-init,
# and OVS-DOCA, built on DPDK, with doca-init (and dpdk-init, which upstream's DOCA howto sets too).
EAL_DATAPATHS = {"dpdk": ("dpdk_init",), "doca": ("doca_init", "dpdk_init")}


def dpdk_memory_errors(v, meminfo, initialized, prefix="ovs_"):
    """Hugepages for DPDK's EAL before ``dpdk-init`` (the dpdk datapath) or ``doca-init`` (the doca datapath) is set:
    ovs-vswitchd initialises the EAL as soon as the key is in the database, and aborts (its monitor restarting it
    in a loop) when the EAL finds no free hugepage. ``meminfo`` is the text of /proc/meminfo (its default page
    size); ``initialized`` is ``Open_vSwitch:dpdk_initialized`` (or ``doca_initialized``): the EAL already holds
    its memory, nothing to check."""
    keys = EAL_DATAPATHS.get(v.get("datapath"), ())
    if not any(truth(v.get(key)) for key in keys) or truth(initialized):
        return []
    info = parse_meminfo(meminfo)
    page_kb, free = info.get("Hugepagesize", 0), info.get("HugePages_Free", 0)
    free_mb = free * page_kb // 1024
    mem = str(v.get("dpdk_socket_mem") or "").replace(" ", "")
    need = max([int(mb) for mb in mem.split(",") if mb.isdigit()] or [1])
    if free_mb >= need:
        return []
    name = rules.Names(prefix=prefix)
    what = "%s: %d MB of hugepages for DPDK" % (name("dpdk_socket_mem"), need) if mem else \
        "%s: %s needs hugepages" % (name("datapath"), v["datapath"])
    if v["datapath"] == "doca":
        what += " (OVS-DOCA runs on DPDK's EAL)"
    return ["%s, and the host has %d MB free (HugePages_Free %d of %d kB); reserve them first (the dpdk_host role's "
            "dpdk_host_hugepages, or boot_params), or ask for less" % (what, free_mb, free, page_kb)]


def _pinned(affinity):
    """``0:2,1:3`` -> {0: 2, 1: 3}; {} for what is not a list of queue:core pairs (validate_role refuses it)."""
    if not affinity or not AFFINITY_RE.match(str(affinity)):
        return {}
    return dict((int(queue), int(core)) for queue, core in (pair.split(":") for pair in str(affinity).split(",")))


def _mask_in_effect(v, name):
    """``(variable, mask)`` the role wrote as ``pmd-cpu-mask``: an ``ovs_other_config`` key wins over ``ovs_pmd_cpu_mask``."""
    other = v.get("other_config") or {}
    if other.get("pmd-cpu-mask"):
        return "%s['pmd-cpu-mask']" % name("other_config"), str(other["pmd-cpu-mask"])
    if v.get("pmd_cpu_mask"):
        return name("pmd_cpu_mask"), str(v["pmd_cpu_mask"])
    return name("pmd_cpu_mask"), None


def pmd_rxq_errors(rxqs, v, isolated=None, command="dpif-netdev/pmd-rxq-show", prefix="ovs_"):
    """Receive queues polled where they should not be, read after the PMDs were configured.

    ``rxqs``: :func:`ovs_appctl.parse_pmd_rxq_show` of ``ovs-appctl command``
    (``dpif-doca/pmd-rxq-show`` on OVS-DOCA, as the ConnectX-6 Lx reference
    bench read it); ``v``: the role's variables (no prefix); ``isolated``: the host's isolated
    CPUs (a set, empty when none is; None when unknown: not checked, as :func:`validate` does). Each
    message names the port, the queue, the core and the variable to fix: a
    core outside the PMD mask, a core that is not isolated, a queue of the
    uplink that is not on the core ``uplink_pmd_rxq_affinity`` pins it to.
    """
    name = rules.Names(prefix=prefix)
    mask_var, mask = _mask_in_effect(v, name)
    cores = mask_cpus(mask) if mask and HEX_RE.match(mask) else None
    pinned = _pinned(v.get("uplink_pmd_rxq_affinity")) if v.get("uplink") else {}
    errors = []
    for rxq in rxqs:
        where = "port %s queue %d is polled by the PMD thread on core %s (ovs-appctl %s)" % (rxq["port"], rxq["queue"], rxq["core"], command)
        if cores is not None and rxq["core"] not in cores:
            errors.append("%s: %s, outside the mask %s (CPUs %s); ovs-vswitchd reads the mask only when it starts: restart it "
                          "(ovs-ctl --no-ovsdb-server restart), and give %s CPUs this host has" % (mask_var, where, mask, cpulist(cores), mask_var))
        if isolated is not None and rxq["core"] not in isolated:
            errors.append("%s: %s, which is not isolated on this host (isolated: %s); give %s isolated CPUs only, or isolate "
                          "core %s with boot_params (boot_params_isolated_cpus) and reboot"
                          % (mask_var, where, cpulist(isolated) or "none", mask_var, rxq["core"]))
        if rxq["port"] == v.get("uplink") and pinned.get(rxq["queue"], rxq["core"]) != rxq["core"]:
            errors.append("%s: %s, not by the one on core %d it is pinned to; put core %d in %s "
                          "(a queue pinned outside the mask is moved) or pin the queue to a core of the mask"
                          % (name("uplink_pmd_rxq_affinity"), where, pinned[rxq["queue"]], pinned[rxq["queue"]], mask_var))
    return errors


def hw_tc_offload_devices(v, prefix="ovs_"):
    """``[{"device", "var"}]`` whose ``hw-tc-offload`` must be on: with ``hw_offload`` on the system datapath, Open
    vSwitch offloads its flows as TC flower rules on its ports, and a port with ``hw-tc-offload`` off keeps them in
    software without a word (the ConnectX-6 Dx ASAP2 bench: ``ethtool -k PF`` must show ``hw-tc-offload: on``). They are
    the uplink (the PF) and every representor the role puts on a bridge, when their interface type is a system device;
    ``var`` names the variable that declares each one. Empty on the other datapaths: OVS-DOCA and OVS-DPDK do not
    offload through TC. Empty too with ``other_config: {tc-policy: skip_hw}``: the TC rules are asked to stay in
    software (a NIC without TC offload, as the VM lab's igb, whose hw-tc-offload is off [fixed])."""
    if v.get("datapath") != "system" or not truth(v.get("hw_offload")) or (v.get("other_config") or {}).get("tc-policy") == "skip_hw":
        return []
    name, devices = rules.Names(prefix=prefix), []
    if v.get("uplink") and (v.get("uplink_type") or "") in ("", "system"):
        devices.append({"device": v["uplink"], "var": name("uplink")})
    for i, rep in enumerate(v.get("representors") or []):
        if isinstance(rep, dict) and rep.get("name") and (rep.get("type") or "") in ("", "system"):
            devices.append({"device": rep["name"], "var": name("representors", i, "name")})
    return devices
