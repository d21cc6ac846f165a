# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the trex_server role: checks of the instances declared in the
inventory, the ``trex_cfg.yaml`` document of each TRex instance, and the
command line of each instance (real TRex or softgen, the software generator).

An instance is a dict (keys other than ``name`` and ``ports`` are optional)::

    {"name": "client", "rpc_port": 4501, "pub_port": 4500,
     "c": 4, "master_thread": 2, "latency_thread": 3, "threads": [4, 5, 6, 7],
     "socket": 0, "limit_memory": 2048, "extra_args": [],
     "ports": [{"pci": "0000:32:00.2", "ip": "10.20.0.3", "default_gw": "10.20.0.2",
                "vlan": 20, "dest_mac": None, "src_mac": None,
                "netns": "ltb-gen", "iface": "gen0"}]}

``pci``, the threads and ``c`` matter to real TRex (mode ``trex``); ``netns``
and ``iface`` to softgen (mode ``softgen``). Nothing here touches a host.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.host import validate as rules

MODES = ("trex", "softgen")
NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
DEFAULT_RPC_PORT = 4501
DEFAULT_PUB_PORT = 4500
# TRex pairs its ports (dual_if); an odd port count is padded with this.
DUMMY_PORT = "dummy"


def _int(value):
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def rpc_port(instance):
    return _int(instance.get("rpc_port", DEFAULT_RPC_PORT))


def pub_port(instance):
    return _int(instance.get("pub_port", DEFAULT_PUB_PORT))


def dual_if_count(instance):
    """TRex runs its ports in pairs: 3 ports take 2 pairs (one with a dummy)."""
    return (len(instance.get("ports") or []) + 1) // 2


def _port_errors(where, port, mode):
    """One port's values: the PCI address (trex) or namespace and interface (softgen), addresses, MACs, VLAN."""
    errors = []
    if mode == "trex":
        pci = port.get("pci")
        if not pci:
            errors.append("%s.pci: missing; real TRex takes its ports by PCI address (DDDD:BB:DD.F, e.g. 0000:32:00.0)" % where)
        else:
            errors.append(rules.pci_address("%s.pci" % where, pci))
        ip, gateway, dest_mac = port.get("ip"), port.get("default_gw"), port.get("dest_mac")
        if not dest_mac and not (ip and gateway):
            errors.append("%s: give ip and default_gw (L3: TRex resolves the gateway) or dest_mac (L2)" % where)
    else:
        if not port.get("netns") and port.get("netns") != "":
            errors.append("%s.netns: missing; softgen sends from an interface inside a network namespace "
                          "(an empty string means the host's namespace)" % where)
        elif port.get("netns"):
            errors.append(rules.netns_name("%s.netns" % where, port["netns"]))
        if not port.get("iface"):
            errors.append("%s.iface: missing; the interface softgen sends from and counts on" % where)
        else:
            errors.append(rules.interface_name("%s.iface" % where, port["iface"], "the interface softgen sends from and counts on"))
    for key in ("ip", "default_gw"):
        if port.get(key):
            errors.append(rules.ipv4_address("%s.%s" % (where, key), port[key]))
    # TRex sends from src_mac to dest_mac: both name one port, neither is multicast.
    for key in ("dest_mac", "src_mac"):
        if port.get(key):
            errors.append(rules.mac_address("%s.%s" % (where, key), port[key]))
    if port.get("vlan") is not None:
        errors.append(rules.vlan_id("%s.vlan" % where, port["vlan"], "leave vlan unset for an untagged port"))
    return [error for error in errors if error]


def _thread_errors(where, instance, isolated, seen_cpus):
    """Threads of one TRex instance: present, consistent with c, isolated, not shared."""
    errors = []
    c_value = _int(instance.get("c", 1))
    if c_value is None or c_value < 1:
        errors.append("%s.c: %r must be a whole number >= 1 (threads per pair of ports)" % (where, instance.get("c")))
        c_value = None
    named = []
    for key in ("master_thread", "latency_thread"):
        if instance.get(key) is None:
            errors.append("%s.%s: missing; pin it to one of the isolated CPUs (trex_server_isolated_cpus)" % (where, key))
        else:
            named.append((key, instance[key]))
    threads = instance.get("threads")
    if not isinstance(threads, list) or not threads:
        errors.append("%s.threads: missing; list the CPUs of the traffic threads, c per pair of ports" % where)
        threads = []
    elif c_value is not None and len(threads) != c_value * dual_if_count(instance):
        errors.append("%s.threads: %d CPUs listed, but c=%d and %d pair(s) of ports need exactly %d"
                      % (where, len(threads), c_value, dual_if_count(instance), c_value * dual_if_count(instance)))
    named.extend(("threads[%d]" % i, cpu) for i, cpu in enumerate(threads))
    for key, cpu in named:
        number = _int(cpu)
        if number is None or number < 0:
            errors.append("%s.%s: %r is not a CPU number" % (where, key, cpu))
            continue
        if isolated is not None and number not in isolated:
            errors.append("%s.%s: CPU %d is not one of the isolated CPUs (trex_server_isolated_cpus); TRex threads on "
                          "CPUs the kernel schedules on lose packets" % (where, key, number))
        if number in seen_cpus:
            errors.append("%s.%s: CPU %d is listed twice (already %s); every TRex thread needs its own CPU"
                          % (where, key, number, seen_cpus[number]))
        else:
            seen_cpus[number] = "%s.%s" % (where, key)
    return errors


CHECKSUM_RE = re.compile(r"^(md5|sha1|sha224|sha256|sha384|sha512):[0-9A-Fa-f]+$")


def archive_errors(archive, name):
    """Errors of the TRex archive settings: a URL or a controller file, and a checksum; ``name`` is the role's :class:`validate.Names`."""
    errors = []
    if not archive.get("url") and not archive.get("src"):
        errors.append("%s / %s: give the TRex release archive as a URL or a file on the controller" % (name("archive_url"), name("archive_src")))
    checksum = archive.get("checksum") or ""
    if not checksum:
        errors.append("%s: empty; give the archive's checksum as ALGORITHM:HEX (e.g. sha256:...), "
                      "it is verified before the archive is unpacked" % name("archive_checksum"))
    elif not CHECKSUM_RE.match(str(checksum)):
        errors.append("%s: %r is not ALGORITHM:HEX with ALGORITHM one of md5, sha1, sha224, sha256, sha384, sha512"
                      % (name("archive_checksum"), checksum))
    if not archive.get("version") or "/" in str(archive.get("version")):
        errors.append("%s: %r must be a non-empty version without '/' (e.g. v3.06); it names the install directory"
                      % (name("version"), archive.get("version")))
    return errors


def settings_errors(settings, name):
    """Errors of the role's own settings: ``bind`` (the address softgen listens on) and ``start_timeout``; ``name``
    is the role's :class:`validate.Names`."""
    errors = []
    if "bind" in settings:
        errors.append(rules.ipv4_address(name("bind"), settings["bind"]))
    if "start_timeout" in settings:
        value = settings["start_timeout"]
        number = _int(value.strip() if isinstance(value, str) else value)
        errors.append(rules.int_in(name("start_timeout"), value if number is None else number, 1, 3600,
                                   "give the seconds an instance has to answer on its RPC port, for example 60"))
    return [error for error in errors if error]


def validate(instances, mode="trex", isolated_cpus=None, prefix="trex_server_", archive=None, settings=None):
    """Errors of a set of instances, each starting with the variable at fault.

    ``isolated_cpus`` is a kernel cpulist (``"2-15,34-47"``); in mode ``trex``
    every thread must be one of them, and an empty value is an error.
    ``archive`` (mode ``trex``), a dict with ``url``, ``src``, ``checksum`` and
    ``version``, is checked with :func:`archive_errors`. ``settings``, a dict
    with ``bind`` and ``start_timeout``, is checked with :func:`settings_errors`.
    """
    name = rules.Names(prefix=prefix)
    if mode not in MODES:
        return ["%s: %r must be one of %s" % (name("mode"), mode, ", ".join(MODES))]
    errors = settings_errors(settings, name) if settings else []
    errors += archive_errors(archive, name) if mode == "trex" and archive is not None else []
    if not isinstance(instances, list) or not instances:
        return errors + ["%s: declare at least one instance (a list of dicts with name and ports)" % name("instances")]
    isolated = None
    if mode == "trex":
        isolated, error = _isolated_cpus(isolated_cpus, name)
        errors.extend(error)
    # what the instances before took: names, TCP ports, generator ports, CPUs; each with where it was
    seen = {"names": {}, "sockets": {}, "ports": {}, "cpus": {}}
    for index, instance in enumerate(instances):
        errors.extend(_instance_errors(name("instances", index), instance, mode, isolated, seen))
    return errors


def _isolated_cpus(value, name):
    """``trex_server_isolated_cpus`` as a set of CPUs, or None and why not."""
    cpus, error = rules.cpu_list(name("isolated_cpus"), value or "")
    if error:
        return None, [error]
    if not cpus:
        return None, ["%s: empty; TRex threads must be pinned to isolated CPUs "
                      "(boot_params_isolated_cpus, e.g. 2-15,34-47)" % name("isolated_cpus")]
    return cpus, []


def _instance_errors(where, instance, mode, isolated, seen):
    """One instance: its name, TCP ports, generator ports and (trex) threads, against what ``seen`` holds."""
    if not isinstance(instance, dict):
        return ["%s: must be a dict with name and ports" % where]
    errors = []
    name = instance.get("name")
    if not name or not NAME_RE.match(str(name)):
        errors.append("%s.name: %r must be 1-32 letters, digits, '-' or '_' (it names the service and config file)" % (where, name))
    elif name in seen["names"]:
        errors.append("%s.name: %r is already the name of %s" % (where, name, seen["names"][name]))
    else:
        seen["names"][name] = where
    for key, value in (("rpc_port", rpc_port(instance)), ("pub_port", pub_port(instance))):
        if value is None or not 1 <= value <= 65535:
            errors.append("%s.%s: %r is not a TCP port" % (where, key, instance.get(key)))
        elif value in seen["sockets"]:
            errors.append("%s.%s: TCP port %d is already %s; two instances side by side need their own "
                          "zmq_rpc_port and zmq_pub_port" % (where, key, value, seen["sockets"][value]))
        else:
            seen["sockets"][value] = "%s.%s" % (where, key)
    ports = instance.get("ports")
    if not isinstance(ports, list) or not ports:
        errors.append("%s.ports: declare at least one port" % where)
        ports = []
    for pindex, port in enumerate(ports):
        errors.extend(_port_entry_errors("%s.ports[%d]" % (where, pindex), port, mode, seen["ports"], "--astf" in (instance.get("extra_args") or [])))
    if mode == "trex":
        errors.extend(_thread_errors(where, instance, isolated, seen["cpus"]))
    return errors


def _port_entry_errors(where, port, mode, ports_seen, astf=False):
    """One entry of an instance's ports: its values, and whether another entry has the same port already.

    A softgen port may be in one stateless instance and one ASTF instance (``--astf``): the ASTF one opens the
    namespace's own sockets beside it, where TRex would need a NIC of its own."""
    if not isinstance(port, dict):
        return ["%s: must be a dict" % where]
    errors = _port_errors(where, port, mode)
    if mode == "trex":
        key = str(port.get("pci") or "").lower()
    else:
        key = "%s/%s" % (port.get("netns") or "", port.get("iface") or "")
    if key and key != "/":
        key = "ASTF " + key if astf else key
        if key in ports_seen:
            errors.append("%s: port %s is already %s; one port belongs to one instance" % (where, key, ports_seen[key]))
        else:
            ports_seen[key] = where
    return errors


def config_path(instance, instances, config_dir="/etc"):
    """``/etc/trex_cfg.yaml`` for a single instance, ``/etc/trex_cfg_<name>.yaml`` for several."""
    if len(instances) == 1:
        return "%s/trex_cfg.yaml" % config_dir.rstrip("/")
    return "%s/trex_cfg_%s.yaml" % (config_dir.rstrip("/"), instance["name"])


def render(instance):
    """The trex_cfg.yaml document of one instance (a list of one dict, as TRex reads it)."""
    ports = instance["ports"]
    interfaces = [str(port["pci"]).lower() for port in ports]
    if len(interfaces) % 2:
        interfaces.append(DUMMY_PORT)
    port_info = []
    for port in ports:
        info = {}
        for key in ("ip", "default_gw", "dest_mac", "src_mac"):
            if port.get(key):
                info[key] = str(port[key])
        if port.get("vlan") is not None:
            info["vlan"] = int(port["vlan"])
        port_info.append(info)
    c_value = int(instance.get("c", 1))
    threads = [int(cpu) for cpu in instance["threads"]]
    dual_if = [{"socket": int(instance.get("socket", 0)), "threads": threads[i * c_value:(i + 1) * c_value]}
               for i in range(dual_if_count(instance))]
    config = {
        "version": 2,
        "port_limit": len(interfaces),
        "interfaces": interfaces,
        "prefix": str(instance["name"]),
        "c": c_value,
        "zmq_pub_port": pub_port(instance),
        "zmq_rpc_port": rpc_port(instance),
        "port_info": port_info,
        "platform": {
            "master_thread_id": int(instance["master_thread"]),
            "latency_thread_id": int(instance["latency_thread"]),
            "dual_if": dual_if,
        },
    }
    if instance.get("limit_memory"):
        config["limit_memory"] = int(instance["limit_memory"])
    return [config]


def trex_argv(instance, cfg_file):
    """Command line of a real TRex instance, run from its install directory."""
    return ["./t-rex-64", "-i", "--cfg", cfg_file] + [str(arg) for arg in instance.get("extra_args") or []]


def softgen_argv(instance, python, bind="127.0.0.1", log_file=None):
    """Command line of softgen standing for one TRex instance (run with the package's parent dir as cwd)."""
    argv = [str(python), "-m", "softgen", "--rpc-port", str(rpc_port(instance)), "--pub-port", str(pub_port(instance)),
            "--bind", str(bind)]
    for index, port in enumerate(instance["ports"]):
        argv.extend(["--port", "%s:%s:%s" % (port.get("name") or "port%d" % index, port.get("netns") or "-", port["iface"])])
    if log_file:
        argv.extend(["--log-file", str(log_file)])
    return argv + [str(arg) for arg in instance.get("extra_args") or []]
