# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure logic of the VM lab: the guests' QEMU command lines, the wires
between them and the key of the image they boot.

A guest definition is a dict::

    {"name": "dut01", "memory_mib": 2048, "cpus": 2, "ssh_port": 2222,
     "mgmt_mac": "52:54:00:0a:00:02",
     "nics": [{"wire": "dut-gen", "model": "igb", "mac": "52:54:00:0b:00:02"}]}

A wire is a point-to-point link between two guests' NICs: a pair of QEMU
``socket`` netdevs speaking UDP to each other on 127.0.0.1, so nothing touches
the host's own network. Its two ends take the ports ``wire_base + 2 * i`` and
``wire_base + 2 * i + 1`` for the ``i``-th wire in name order.

The management NIC (``enp0s3``) is QEMU's user network with port forwards on
127.0.0.1: ``ssh_port`` to the guest's port 22, and each of ``forwards``
(``[{"host": 24501, "guest": 4501}]``, TCP) for a service the controller
talks to, such as the generator's TRex RPC ports. The guest learns its name and
the lab's SSH key from ``fw_cfg`` entries (``opt/offload.testbed/hostname``
and ``opt/offload.testbed/authorized_keys``), so all guests boot one image.

Nothing here runs a command.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os

from ansible_collections.offload.testbed.plugins.module_utils.host.validate import int_in, mac_address, port_number, show

FW_CFG = "opt/offload.testbed"
NIC_MODELS = ("igb", "virtio-net-pci", "e1000e")
ACCELS = ("tcg", "kvm")
# The management NIC sits in slot 3 of the root bus (enp0s3 in the guest); wired NIC i behind the root port in slot 4 + i
# (bus i + 1: enp<i+1>s0), so the guest's interface names do not depend on which driver probes first.
MGMT_SLOT = 3
# Bump when the image recipe (roles/vm_lab/files/build-image.sh) changes what it writes.
IMAGE_RECIPE = 6


def image_key(suite, mirror, packages, recipe=IMAGE_RECIPE):
    """The cache key of an image: rebuilt only when the suite, mirror, package set or recipe changes."""
    text = json.dumps({"suite": suite, "mirror": mirror, "packages": sorted(set(packages)), "recipe": recipe}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _guest_errors(path, guest):
    errors = []
    if not isinstance(guest.get("name"), str) or not guest["name"].isalnum():
        errors.append("%s.name: %s is not a guest name; use letters and digits, for example dut01" % (path, show(guest.get("name"))))
    errors.append(int_in(path + ".memory_mib", guest.get("memory_mib"), 512, 65536, "give the guest's memory in MiB, for example 2048"))
    errors.append(int_in(path + ".cpus", guest.get("cpus"), 1, 64, "give the number of vCPUs, for example 2"))
    errors.append(port_number(path + ".ssh_port", guest.get("ssh_port")))
    errors.append(mac_address(path + ".mgmt_mac", guest.get("mgmt_mac")))
    for index, nic in enumerate(guest.get("nics") or []):
        where = "%s.nics[%d]" % (path, index)
        if nic.get("model") not in NIC_MODELS:
            errors.append("%s.model: %s is not a NIC this lab emulates; choose one of %s"
                          % (where, show(nic.get("model")), ", ".join(NIC_MODELS)))
        errors.append(mac_address(where + ".mac", nic.get("mac")))
    for index, forward in enumerate(guest.get("forwards") or []):
        where = "%s.forwards[%d]" % (path, index)
        errors.extend([port_number(where + ".host", forward.get("host")), port_number(where + ".guest", forward.get("guest"))])
    return [error for error in errors if error]


def _wire_errors(guests):
    ends = {}
    for guest in guests:
        for index, nic in enumerate(guest.get("nics") or []):
            ends.setdefault(nic.get("wire"), []).append("vm_lab_guests[%s].nics[%d]" % (guest.get("name"), index))
    return ["wire %s has %d end(s) (%s); a wire joins exactly two NICs" % (show(wire), len(where), ", ".join(where))
            for wire, where in sorted(ends.items(), key=lambda item: str(item[0])) if len(where) != 2]


def validate(guests, wire_base, restart=()):
    """Every problem of the guest list (and of the guests asked to restart) at once, each naming the variable as written."""
    known = [guest.get("name") for guest in guests]
    errors = ["restart: %s is not a guest of vm_lab_guests; name one of %s" % (show(name), ", ".join(map(str, known)))
              for name in restart if name not in known]
    names, ports, macs = set(), set(), set()
    for index, guest in enumerate(guests):
        path = "vm_lab_guests[%d]" % index
        errors.extend(_guest_errors(path, guest))
        forwards = enumerate(guest.get("forwards") or [])
        host_ports = [(guest.get("ssh_port"), "ssh_port")] + [(forward.get("host"), "forwards[%d].host" % number) for number, forward in forwards]
        for value, seen, what in [(guest.get("name"), names, "name")] + [(port, ports, key) for port, key in host_ports]:
            if value in seen:
                errors.append("%s.%s: %s is taken by another guest or port forward; give each its own" % (path, what, show(value)))
            seen.add(value)
        for mac in [guest.get("mgmt_mac")] + [nic.get("mac") for nic in guest.get("nics") or []]:
            if isinstance(mac, str) and mac.lower() in macs:
                errors.append("%s: MAC %s is used twice; every NIC of the lab needs its own" % (path, mac))
            macs.add(mac.lower() if isinstance(mac, str) else mac)
    errors.extend(_wire_errors(guests))
    wires = set(nic.get("wire") for guest in guests for nic in guest.get("nics") or [])
    errors.append(int_in("vm_lab_wire_base", wire_base, 1024, 65535 - 2 * len(wires),
                         "give the first UDP port of the wires, for example 40000"))
    return [error for error in errors if error]


def wire_ports(wire_base, guests):
    """``{(guest, nic index): (local port, peer port)}`` for every wired NIC (the guests validated)."""
    ends = {}
    for guest in guests:
        for index, nic in enumerate(guest.get("nics") or []):
            ends.setdefault(nic["wire"], []).append((guest["name"], index))
    ports = {}
    for number, wire in enumerate(sorted(ends)):
        first, second = ends[wire]
        ports[first] = (wire_base + 2 * number, wire_base + 2 * number + 1)
        ports[second] = (wire_base + 2 * number + 1, wire_base + 2 * number)
    return ports


def guest_files(state_dir, name):
    """Where a guest's disk, pid file, console log (and its previous boot's, kept over a restart) and monitor socket are."""
    return dict((key, os.path.join(state_dir, "%s.%s" % (name, suffix))) for key, suffix in (
        ("disk", "qcow2"), ("pidfile", "pid"), ("console", "console.log"), ("previous_console", "console.log.1"),
        ("monitor", "monitor.sock")))


def _machine(accel):
    argv = ["-machine", "q35,accel=%s,kernel-irqchip=split" % accel, "-device", "intel-iommu,intremap=on,caching-mode=on"]
    return argv + ["-cpu", "max"]


def _forwards(guest):
    """(host port, guest port) of every TCP forward of the management NIC, SSH first."""
    return [(guest["ssh_port"], 22)] + [(forward["host"], forward["guest"]) for forward in guest.get("forwards") or []]


def guest_argv(guest, lab):
    """The QEMU command line of one guest; ``lab`` has qemu, accel, state_dir, public_key and wire_base."""
    files = guest_files(lab["state_dir"], guest["name"])
    ports = wire_ports(lab["wire_base"], lab["guests"])
    argv = [lab["qemu"], "-name", guest["name"]] + _machine(lab["accel"])
    argv += ["-smp", str(guest["cpus"]), "-m", str(guest["memory_mib"]),
             "-drive", "file=%s,if=virtio,format=qcow2" % files["disk"],
             "-netdev", "user,id=mgmt" + "".join(",hostfwd=tcp:127.0.0.1:%d-:%d" % pair for pair in _forwards(guest)),
             "-device", "virtio-net-pci,netdev=mgmt,mac=%s,addr=0x%x" % (guest["mgmt_mac"], MGMT_SLOT)]
    for index, nic in enumerate(guest.get("nics") or []):
        local, peer = ports[(guest["name"], index)]
        argv += ["-netdev", "socket,id=w%d,udp=127.0.0.1:%d,localaddr=127.0.0.1:%d" % (index, peer, local),
                 "-device", "pcie-root-port,id=rp%d,chassis=%d,addr=0x%x" % (index, index + 1, MGMT_SLOT + 1 + index),
                 "-device", "%s,netdev=w%d,mac=%s,bus=rp%d" % (nic["model"], index, nic["mac"], index)]
    argv += ["-fw_cfg", "name=%s/hostname,string=%s" % (FW_CFG, guest["name"]),
             "-fw_cfg", "name=%s/authorized_keys,file=%s" % (FW_CFG, lab["public_key"]),
             "-display", "none", "-serial", "file:%s" % files["console"],
             "-monitor", "unix:%s,server=on,wait=off" % files["monitor"],
             "-daemonize", "-pidfile", files["pidfile"]]
    return argv


def probe_argv(base_image, ssh_port, files):
    """The KVM probe: the image as a throwaway snapshot, one vCPU, SSH forwarded to ``ssh_port``."""
    return _machine("kvm") + ["-smp", "1", "-m", "1024",
                              "-drive", "file=%s,if=virtio,format=qcow2,snapshot=on" % base_image,
                              "-netdev", "user,id=mgmt,hostfwd=tcp:127.0.0.1:%d-:22" % ssh_port,
                              "-device", "virtio-net-pci,netdev=mgmt,addr=0x%x" % MGMT_SLOT,
                              "-display", "none", "-serial", "file:%s" % files["console"],
                              "-daemonize", "-pidfile", files["pidfile"]]


def running_argv(cmdline_bytes):
    """``/proc/<pid>/cmdline`` -> argv (NUL-separated)."""
    return [part.decode("utf-8", "replace") for part in cmdline_bytes.split(b"\0") if part]


def plan_guest(guest, lab, running):
    """What to do for one guest: ``start``, ``restart`` (it runs another command line, or ``lab["restart"]`` names
    it), or nothing (``None``).

    ``running`` is the argv of the guest's QEMU process, or None when it does not run.
    """
    if lab["state"] == "absent":
        return "stop" if running else None
    if running is None:
        return "start"
    if guest["name"] in lab.get("restart", ()):
        return "restart"
    return None if running == guest_argv(guest, lab) else "restart"
