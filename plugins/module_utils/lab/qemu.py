# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The VM lab's QEMU processes on this machine: read which guest runs with
which command line, and start, stop or restart one (the plan comes from
``lab.vm``). The commands run through the host runner (``host.runner``)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import signal
import socket
import time

from ansible_collections.offload.testbed.plugins.module_utils.lab import vm as vm_lab
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner

STOP_WAIT = 20
# Where KVM guests hang here, they hang before the kernel prints its banner
# (the console ends at GRUB's "Loading Linux ..."); a KVM guest that boots
# prints it within seconds. The probe gives up when it has not come by then.
KERNEL_BANNER = b"Linux version "
KERNEL_START = 20


def read_running(files):
    """(argv, pid) of the guest's QEMU process, or (None, None) when its pid file names no live QEMU."""
    try:
        with open(files["pidfile"]) as handle:
            pid = int(handle.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            argv = vm_lab.running_argv(handle.read())
    except (OSError, ValueError):
        return None, None
    return (argv, pid) if argv and "qemu" in os.path.basename(argv[0]) else (None, None)


def backing_file(module, qemu_img, disk):
    """The base image of a guest's overlay (``qemu-img info -U``: the guest may run), or None."""
    if not os.path.exists(disk):
        return None
    rc, out, _err = HostRunner(module).read([qemu_img, "info", "--output=json", "-U", disk], check_rc=False)
    if rc != 0:
        return None
    return module.from_json(out).get("backing-filename")


def stop(pid):
    """SIGTERM, then SIGKILL after STOP_WAIT seconds."""
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
    """[(guest, action, pid)] for every guest: the planner's action, or a restart when the overlay has another base."""
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
    """Stop, start or restart one guest (a restart keeps the console log of the boot it ends as ``previous_console``);
    a guest that does not start fails the module, naming its console log."""
    files = vm_lab.guest_files(lab["state_dir"], guest["name"])
    if action in ("stop", "restart") and pid:
        stop(pid)
        remove(files, ["pidfile", "monitor"] + (["disk"] if action == "stop" or lab["state"] == "running" else []))
        if action == "restart" and os.path.exists(files["console"]):
            os.replace(files["console"], files["previous_console"])
    if action in ("start", "restart"):
        # Called only to change the host (never in check mode).
        runner = HostRunner(module, dry=False)
        if not os.path.exists(files["disk"]):
            runner.change([lab["qemu_img"], "create", "-q", "-f", "qcow2", "-b", lab["base_image"], "-F", "qcow2", files["disk"]])
        rc, out, err = runner.change(vm_lab.guest_argv(guest, lab), check_rc=False)
        if rc != 0:
            module.fail_json(msg="guest %s did not start (rc=%d): %s; its console log: %s"
                             % (guest["name"], rc, (err or out).strip(), files["console"]))


def _ssh_banner(port, deadline):
    """Whether an SSH server answers on 127.0.0.1:port before ``deadline`` (QEMU's user network accepts the TCP
    connection at once and closes it while nothing listens in the guest: only the banner counts)."""
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
                conn.settimeout(3)
                if conn.recv(4).startswith(b"SSH-"):
                    return True
        except (OSError, socket.timeout):
            pass
        time.sleep(1)
    return False


def _console_shows(path, text, deadline):
    """Whether the console log at ``path`` holds ``text`` before ``deadline``."""
    while True:
        try:
            with open(path, "rb") as handle:
                if text in handle.read():
                    return True
        except OSError:
            pass
        if time.time() >= deadline:
            return False
        time.sleep(1)


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def kvm_probe(module, qemu_bin, base_image, work_dir, timeout):
    """Boot ``base_image`` (a throwaway snapshot) under KVM and wait ``timeout`` seconds for its SSH server.

    Returns ``(True, reason)`` when it answered, else ``(False, reason)``; the probe's QEMU is stopped either way.
    On some hosts KVM guests hang in early boot (after "Probing EDD"): TCG is the lab's answer there.
    """
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "no usable /dev/kvm"
    files = {"pidfile": os.path.join(work_dir, "kvm-probe.pid"), "console": os.path.join(work_dir, "kvm-probe.console.log")}
    port = _free_port()
    argv = [qemu_bin, "-name", "kvm-probe"] + vm_lab.probe_argv(base_image, port, files)
    started = time.time()
    rc, out, err = HostRunner(module).read(argv, check_rc=False)
    if rc != 0:
        return False, "QEMU refused KVM (rc=%d): %s" % (rc, (err or out).strip())
    kernel_wait = min(KERNEL_START, timeout)
    kernel = _console_shows(files["console"], KERNEL_BANNER, started + kernel_wait)
    answered = kernel and _ssh_banner(port, started + timeout)
    pid = read_running(files)[1]
    if pid:
        stop(pid)
    remove(files, ["pidfile"])
    if answered:
        return True, "a KVM guest answered over SSH in %d s" % (time.time() - started)
    if not kernel:
        return False, "a KVM guest's kernel did not start within %d s (its console log: %s)" % (kernel_wait, files["console"])
    return False, "a KVM guest did not answer over SSH within %d s (its console log: %s)" % (timeout, files["console"])


def resolve_accel(module, lab, timeout):
    """``(accel, reason)`` for ``accel: auto``: KVM when the probe's guest boots, TCG otherwise. The answer is kept in
    ``state_dir/accel.json`` for this QEMU binary and host kernel, so the probe runs once per lab; in check mode
    without that file nothing is started and TCG is assumed."""
    qemu_bin = module.get_bin_path(lab["qemu"]) or lab["qemu"]
    key = {"qemu": qemu_bin, "qemu_mtime": int(os.stat(qemu_bin).st_mtime) if os.path.exists(qemu_bin) else None,
           "kernel": os.uname()[2]}
    cache = os.path.join(lab["state_dir"], "accel.json")
    try:
        with open(cache) as handle:
            known = json.load(handle)
        if known.get("key") == key:
            return known["accel"], known["reason"] + " (probed before: %s)" % cache
    except (OSError, ValueError, KeyError):
        pass
    if module.check_mode:
        return "tcg", "KVM not probed in check mode; TCG assumed"
    os.makedirs(lab["state_dir"], exist_ok=True)
    booted, reason = kvm_probe(module, qemu_bin, lab["base_image"], lab["state_dir"], timeout)
    accel = "kvm" if booted else "tcg"
    with open(cache, "w") as handle:
        json.dump({"key": key, "accel": accel, "reason": reason}, handle)
    return accel, reason
