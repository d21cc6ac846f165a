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
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads the guests and returns the planned O(ignore:commands); nothing is started or stopped.
  diff_mode:
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
  restart:
    description:
      - Names of guests to restart now, on a fresh overlay, whatever they run (a guest whose boot hung). The console
        log of the boot a restart ends is kept as C(<name>.console.log.1) in O(state_dir).
    type: list
    elements: str
    default: []
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
    description:
      - QEMU's accelerator. C(auto) boots the image once under KVM (a throwaway snapshot) and takes KVM when its SSH
        server answers within O(probe_timeout) seconds, TCG otherwise (on some hosts KVM guests hang in early boot);
        the answer is kept in O(state_dir)/accel.json for this QEMU and host kernel.
    type: str
    choices: [auto, tcg, kvm]
    default: auto
  probe_timeout:
    description:
      - Seconds the KVM probe's guest has to answer over SSH (O(accel=auto)).
      - The probe gives up sooner, after 20 seconds, when the guest's kernel has not printed its banner on the console
        by then (where KVM guests hang, they hang before it).
    type: int
    default: 60
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

- name: Start dut01 again on a fresh overlay (its boot hung)
  offload.testbed.vm_guest:
    guests: "{{ vm_lab_guests }}"
    base_image: "{{ vm_lab_dir }}/images/bookworm-0123456789abcdef.qcow2"
    state_dir: "{{ vm_lab_dir }}/guests"
    public_key: "{{ vm_lab_dir }}/id_ed25519.pub"
    restart: [dut01]
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
accel:
  description: The accelerator the guests run with, and why (C(accel_reason)).
  returned: always
  type: str
  sample: tcg
accel_reason:
  description: Why this accelerator (the KVM probe's answer, or the one asked for).
  returned: always
  type: str
  sample: "a KVM guest did not answer over SSH within 60 s (its console log: /srv/lab/guests/kvm-probe.console.log)"
"""

import os
import shlex

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.lab import qemu
from ansible_collections.offload.testbed.plugins.module_utils.lab import vm as vm_lab


def main():
    module = AnsibleModule(argument_spec=dict(
        guests=dict(type="list", elements="dict", required=True),
        state=dict(type="str", choices=["running", "absent"], default="running"),
        restart=dict(type="list", elements="str", default=[]),
        base_image=dict(type="path"), state_dir=dict(type="path", required=True), public_key=dict(type="path"),
        wire_base=dict(type="int", default=40000), accel=dict(type="str", choices=["auto", "tcg", "kvm"], default="auto"),
        probe_timeout=dict(type="int", default=60),
        qemu=dict(type="str", default="qemu-system-x86_64"), qemu_img=dict(type="str", default="qemu-img"),
    ), required_if=[("state", "running", ("base_image", "public_key"))], supports_check_mode=True)
    lab = dict(module.params)
    errors = vm_lab.validate(lab["guests"], lab["wire_base"], lab["restart"])
    if errors:
        module.fail_json(msg="invalid VM lab, nothing changed: " + "; ".join(errors), errors=errors)
    reason = "asked for (accel)"
    if lab["accel"] == "auto":
        lab["accel"], reason = qemu.resolve_accel(module, lab, lab["probe_timeout"]) if lab["state"] == "running" else ("tcg", "")
    actions = qemu.plan(module, lab)
    commands = ["%s %s" % (action, shlex.join(vm_lab.guest_argv(guest, lab)) if action != "stop" else guest["name"])
                for guest, action, _pid in actions if action]
    if not module.check_mode:
        os.makedirs(lab["state_dir"], exist_ok=True)
        for guest, action, pid in actions:
            if action:
                qemu.apply(module, lab, guest, action, pid)
    guests = dict((guest["name"], {"action": action or "none",
                                   "console": vm_lab.guest_files(lab["state_dir"], guest["name"])["console"]})
                  for guest, action, _pid in actions)
    module.exit_json(changed=bool(commands), commands=commands, guests=guests, accel=lab["accel"], accel_reason=reason)


if __name__ == "__main__":
    main()
