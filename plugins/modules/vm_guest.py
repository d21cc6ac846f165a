#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: vm_guest
short_description: The VM lab's QEMU guests running with the command line the lab declares, or stopped
version_added: 0.3.0
description:
  - Runs each guest of O(guests) as a daemonized C(qemu-system-x86_64) on a C(q35) machine with an emulated Intel IOMMU,
    its disk a qcow2 overlay of O(base_image), its management NIC QEMU's user network with C(127.0.0.1:ssh_port)
    forwarded to the guest's port 22, and its other NICs wires to other guests (UDP socket netdevs on 127.0.0.1).
  - Reads each guest's pid file and the command line of that process, compares it with the planned one, and starts,
    restarts (another command line, or an overlay on another base image) or leaves each guest; with O(state=absent)
    it stops them and removes their overlays, pid files and monitor sockets (the console logs stay).
  - Validates all guests before it reads or changes anything; every problem is reported at once, naming the variable.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Reads the guests and returns the planned O(ignore:commands); nothing is started or stopped.
  diff_mode:
    support: none
    description: The commands say what changes.
options:
  guests:
    description: The guests (C(vm_lab_guests)).
    type: list
    elements: dict
    required: true
  state:
    description: C(running) or C(absent).
    type: str
    choices: [running, absent]
    default: running
  base_image:
    description: The qcow2 image every guest's overlay is backed by.
    type: path
  state_dir:
    description: Where the overlays, pid files, monitor sockets and console logs go.
    type: path
    required: true
  public_key:
    description: The lab's SSH public key, given to every guest through C(fw_cfg).
    type: path
  wire_base:
    description: The first UDP port of the wires on 127.0.0.1.
    type: int
    default: 40000
  accel:
    description: QEMU's accelerator.
    type: str
    choices: [tcg, kvm]
    default: tcg
  qemu:
    description: The QEMU binary.
    type: str
    default: qemu-system-x86_64
  qemu_img:
    description: The qemu-img binary.
    type: str
    default: qemu-img
"""

EXAMPLES = r"""
- name: The three guests of the VM lab
  offload.testbed.vm_guest:
    guests: "{{ vm_lab_guests }}"
    base_image: "{{ vm_lab_dir }}/images/bookworm-0123456789abcdef.qcow2"
    state_dir: "{{ vm_lab_dir }}/guests"
    public_key: "{{ vm_lab_dir }}/id_ed25519.pub"
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, planned), in order.
  returned: always
  type: list
  elements: str
guests:
  description: Per guest, what was done (C(start), C(restart), C(stop) or C(none)) and its console log.
  returned: always
  type: dict
"""

import os
import shlex
import signal
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.lab import vm as vm_lab

STOP_WAIT = 20


def read_running(files):
    """The argv of the guest's QEMU process, or None when its pid file names no live QEMU."""
    try:
        with open(files["pidfile"]) as handle:
            pid = int(handle.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            argv = vm_lab.running_argv(handle.read())
    except (OSError, ValueError):
        return None, None
    return (argv, pid) if argv and "qemu" in os.path.basename(argv[0]) else (None, None)


def backing_file(module, qemu_img, disk):
    if not os.path.exists(disk):
        return None
    rc, out, _err = module.run_command([qemu_img, "info", "--output=json", "-U", disk])
    if rc != 0:
        return None
    return module.from_json(out).get("backing-filename")


def stop(module, pid):
    os.kill(pid, signal.SIGTERM)
    deadline = time.time() + STOP_WAIT
    while time.time() < deadline and os.path.exists("/proc/%d" % pid):
        time.sleep(0.2)
    if os.path.exists("/proc/%d" % pid):
        os.kill(pid, signal.SIGKILL)


def remove(files, keys):
    for key in keys:
        if os.path.exists(files[key]):
            os.unlink(files[key])


def plan(module, lab):
    """[(guest, action, pid)] for every guest."""
    actions = []
    for guest in lab["guests"]:
        files = vm_lab.guest_files(lab["state_dir"], guest["name"])
        running, pid = read_running(files)
        action = vm_lab.plan_guest(guest, lab, running)
        if lab["state"] == "running" and action is None and backing_file(module, lab["qemu_img"], files["disk"]) != lab["base_image"]:
            action = "restart"
        actions.append((guest, action, pid))
    return actions


def apply(module, lab, guest, action, pid):
    files = vm_lab.guest_files(lab["state_dir"], guest["name"])
    if action in ("stop", "restart") and pid:
        stop(module, pid)
        remove(files, ["pidfile", "monitor"] + (["disk"] if action == "stop" or lab["state"] == "running" else []))
    if action in ("start", "restart"):
        if not os.path.exists(files["disk"]):
            module.run_command([lab["qemu_img"], "create", "-q", "-f", "qcow2", "-b", lab["base_image"], "-F", "qcow2", files["disk"]],
                               check_rc=True)
        rc, out, err = module.run_command(vm_lab.guest_argv(guest, lab))
        if rc != 0:
            module.fail_json(msg="guest %s did not start (rc=%d): %s; its console log: %s"
                             % (guest["name"], rc, (err or out).strip(), files["console"]))


def main():
    module = AnsibleModule(argument_spec=dict(
        guests=dict(type="list", elements="dict", required=True),
        state=dict(type="str", choices=["running", "absent"], default="running"),
        base_image=dict(type="path"), state_dir=dict(type="path", required=True), public_key=dict(type="path"),
        wire_base=dict(type="int", default=40000), accel=dict(type="str", choices=["tcg", "kvm"], default="tcg"),
        qemu=dict(type="str", default="qemu-system-x86_64"), qemu_img=dict(type="str", default="qemu-img"),
    ), required_if=[("state", "running", ("base_image", "public_key"))], supports_check_mode=True)
    lab = dict(module.params)
    errors = vm_lab.validate(lab["guests"], lab["wire_base"])
    if errors:
        module.fail_json(msg="invalid VM lab, nothing changed: " + "; ".join(errors), errors=errors)
    actions = plan(module, lab)
    commands = ["%s %s" % (action, shlex.join(vm_lab.guest_argv(guest, lab)) if action != "stop" else guest["name"])
                for guest, action, _pid in actions if action]
    if not module.check_mode:
        os.makedirs(lab["state_dir"], exist_ok=True)
        for guest, action, pid in actions:
            if action:
                apply(module, lab, guest, action, pid)
    guests = dict((guest["name"], {"action": action or "none",
                                   "console": vm_lab.guest_files(lab["state_dir"], guest["name"])["console"]})
                  for guest, action, _pid in actions)
    module.exit_json(changed=bool(commands), commands=commands, guests=guests)


if __name__ == "__main__":
    main()
