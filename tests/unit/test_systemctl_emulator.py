"""The systemctl emulator of tests/emulators/systemd keeps systemd's semantics the trex_server test relies on."""
import os
import shutil
import subprocess
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EMULATOR = os.path.join(ROOT, "tests", "emulators", "systemd", "systemctl")
UNIT = "trex-server-t.service"

pytestmark = pytest.mark.skipif(not (shutil.which("systemctl", path="/usr/bin:/bin")),
                                reason="the emulator runs the real systemctl (package systemd) for unit-file verbs")


@pytest.fixture(name="systemctl")
def fixture_systemctl(tmp_path):
    env = dict(os.environ, SYSTEMCTL_EMU_ROOT=str(tmp_path))
    (tmp_path / "etc" / "systemd" / "system").mkdir(parents=True)

    def run(*args):
        return subprocess.run([EMULATOR] + list(args), env=env, capture_output=True, text=True, check=False)

    yield run, tmp_path
    run("stop", UNIT)


def write_unit(root, seconds):
    (root / "etc" / "systemd" / "system" / UNIT).write_text(
        "[Unit]\nDescription=test unit\n[Service]\nType=simple\nExecStart=/bin/sleep %d\n[Install]\nWantedBy=multi-user.target\n" % seconds)


def show(run):
    return dict(line.split("=", 1) for line in run("show", UNIT).stdout.splitlines())


def cmdline(pid):
    with open("/proc/%s/cmdline" % pid, "rb") as handle:
        return handle.read().split(b"\0")[:-1]


def test_missing_unit_is_not_found(systemctl):
    run, _root = systemctl
    props = show(run)
    assert props["LoadState"] == "not-found"
    assert props["ActiveState"] == "inactive"
    failed = run("start", UNIT)
    assert failed.returncode == 5
    assert failed.stderr == "Failed to start %s: Unit %s not found.\n" % (UNIT, UNIT)


def test_enable_start_reload_restart_stop(systemctl):
    run, root = systemctl
    write_unit(root, 301)
    assert run("is-enabled", UNIT).stdout.strip() == "disabled"
    enabled = run("enable", UNIT)
    assert enabled.returncode == 0
    # the real systemctl made the symlink in the root
    assert os.path.islink(root / "etc" / "systemd" / "system" / "multi-user.target.wants" / UNIT)
    assert run("is-enabled", UNIT).stdout.strip() == "enabled"

    assert run("start", UNIT).returncode == 0
    props = show(run)
    assert (props["LoadState"], props["ActiveState"], props["SubState"], props["UnitFileState"]) == ("loaded", "active", "running", "enabled")
    first = props["MainPID"]
    assert cmdline(first) == [b"/bin/sleep", b"301"]
    active = run("is-active", UNIT)
    assert (active.returncode, active.stdout) == (0, "active\n")

    # changed on disk, not reloaded: systemd restarts the unit it has loaded, and warns
    write_unit(root, 302)
    assert show(run)["NeedDaemonReload"] == "yes"
    restarted = run("restart", UNIT)
    assert "Run 'systemctl daemon-reload' to reload units." in restarted.stderr
    second = show(run)["MainPID"]
    assert second != first
    assert cmdline(second) == [b"/bin/sleep", b"301"]

    assert run("daemon-reload").returncode == 0
    assert show(run)["NeedDaemonReload"] == "no"
    run("restart", UNIT)
    third = show(run)["MainPID"]
    assert cmdline(third) == [b"/bin/sleep", b"302"]

    assert run("stop", UNIT).returncode == 0
    deadline = time.monotonic() + 5
    while os.path.exists("/proc/%s" % third) and time.monotonic() < deadline:
        with open("/proc/%s/stat" % third) as handle:
            if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.05)
    inactive = run("is-active", UNIT)
    assert (inactive.returncode, inactive.stdout) == (3, "inactive\n")
    assert show(run)["MainPID"] == "0"
    calls = (root / "run" / "systemctl-emu" / "calls").read_text().splitlines()
    assert calls.count("restart %s" % UNIT) == 2 and "daemon-reload" in calls
