"""lab.qemu: the SSH banner wait of the KVM probe, against real sockets on loopback, and the probe's answer kept per
QEMU binary and host kernel."""
import json
import os
import socket
import threading
import time

from ansible_collections.offload.testbed.plugins.module_utils.lab import qemu


def _server(reply):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)

    def serve():
        while True:
            try:
                conn, _addr = sock.accept()
            except OSError:  # the test closed the socket
                return
            conn.sendall(reply)
            conn.close()
    threading.Thread(target=serve, daemon=True).start()
    return sock


def test_an_ssh_banner_counts():
    sock = _server(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
    assert qemu._ssh_banner(sock.getsockname()[1], time.time() + 5) is True
    sock.close()


def test_a_connection_closed_without_a_banner_does_not_count():
    # QEMU's user network accepts and closes the connection while nothing listens in the guest.
    sock = _server(b"")
    assert qemu._ssh_banner(sock.getsockname()[1], time.time() + 2) is False
    sock.close()


class FakeModule(object):
    check_mode = False

    def get_bin_path(self, name):
        return None


def test_the_probe_runs_once_per_qemu_and_kernel(tmp_path, monkeypatch):
    calls = []

    def probe(module, qemu_bin, base_image, work_dir, timeout):
        calls.append((qemu_bin, base_image, timeout))
        return False, "a KVM guest did not answer over SSH within %d s" % timeout
    monkeypatch.setattr(qemu, "kvm_probe", probe)
    lab = {"qemu": "qemu-system-x86_64", "state_dir": str(tmp_path), "base_image": "/img.qcow2"}
    assert qemu.resolve_accel(FakeModule(), lab, 60) == ("tcg", "a KVM guest did not answer over SSH within 60 s")
    accel, reason = qemu.resolve_accel(FakeModule(), lab, 60)
    assert accel == "tcg" and reason.startswith("a KVM guest did not answer") and "probed before" in reason
    assert calls == [("qemu-system-x86_64", "/img.qcow2", 60)]
    with open(os.path.join(str(tmp_path), "accel.json")) as handle:
        assert json.load(handle)["key"]["kernel"] == os.uname()[2]


def test_check_mode_without_an_answer_starts_nothing(tmp_path, monkeypatch):
    def probe(*args):
        raise AssertionError("probed in check mode: %r" % (args,))
    monkeypatch.setattr(qemu, "kvm_probe", probe)
    module = FakeModule()
    module.check_mode = True
    lab = {"qemu": "qemu-system-x86_64", "state_dir": str(tmp_path / "guests"), "base_image": "/img.qcow2"}
    assert qemu.resolve_accel(module, lab, 60) == ("tcg", "KVM not probed in check mode; TCG assumed")
    assert not os.path.exists(str(tmp_path / "guests"))


class RunModule(FakeModule):
    def __init__(self):
        self.commands = []

    def run_command(self, argv, check_rc=False):
        self.commands.append(argv)
        return 0, "", ""


def test_a_restart_keeps_the_console_log_of_the_boot_it_ends(tmp_path, monkeypatch):
    stopped = []
    monkeypatch.setattr(qemu, "stop", stopped.append)
    guest = {"name": "dut01", "memory_mib": 2048, "cpus": 2, "ssh_port": 2222, "mgmt_mac": "52:54:00:0a:00:02", "nics": []}
    lab = {"qemu": "qemu-system-x86_64", "qemu_img": "qemu-img", "accel": "tcg", "state_dir": str(tmp_path), "state": "running",
           "public_key": "/lab/id_ed25519.pub", "base_image": "/lab/base.qcow2", "wire_base": 40000, "guests": [guest]}
    (tmp_path / "dut01.console.log").write_text("Loading initial ramdisk ...\n")
    (tmp_path / "dut01.qcow2").write_text("overlay of the boot that hung")
    module = RunModule()
    qemu.apply(module, lab, guest, "restart", 4242)
    assert stopped == [4242]
    assert (tmp_path / "dut01.console.log.1").read_text() == "Loading initial ramdisk ...\n"
    assert not (tmp_path / "dut01.console.log").exists()
    assert [argv[:2] for argv in module.commands] == [["qemu-img", "create"], ["qemu-system-x86_64", "-name"]]


def test_the_probe_sees_the_kernel_start_on_the_console(tmp_path):
    console = tmp_path / "kvm-probe.console.log"
    console.write_bytes(b"Booting `Debian GNU/Linux'\r\nLoading Linux 6.1.0-50-amd64 ...\r\n")
    # where KVM guests hang here, the console ends there: no banner before the deadline
    started = time.time()
    assert qemu._console_shows(str(console), qemu.KERNEL_BANNER, started + 1) is False
    assert time.time() - started < 3
    console.write_bytes(console.read_bytes() + b"[    0.000000] Linux version 6.1.0-50-amd64 (debian-kernel@lists.debian.org)\r\n")
    assert qemu._console_shows(str(console), qemu.KERNEL_BANNER, time.time() + 5) is True
    assert qemu._console_shows(str(tmp_path / "absent.log"), qemu.KERNEL_BANNER, time.time()) is False
