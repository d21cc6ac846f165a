"""Emulator of ``systemctl`` for hosts without systemd as PID 1 (this lab's machines, containers).

The unit-file verbs are the real ``systemctl`` run offline on a root
directory (``systemctl --root=$SYSTEMCTL_EMU_ROOT enable ...``): the symlinks,
``is-enabled`` answers and messages are systemd's own. The manager verbs,
which need a running systemd, are emulated with state under
``$SYSTEMCTL_EMU_ROOT/run/systemctl-emu``:

- ``daemon-reload`` loads every unit file under ``etc/systemd/system`` of the
  root; a unit never loaded is loaded when first used, as systemd does.
- ``start``/``stop``/``restart`` run the loaded unit's ``ExecStart=`` in a
  session of its own and stop its process group with SIGTERM, then SIGKILL.
  Like systemd, a unit file changed on disk and not reloaded keeps running
  its loaded ``ExecStart=`` (with systemd's warning), so a role that forgets
  ``daemon-reload`` is caught.
- ``show`` prints ``Key=Value`` properties (those Ansible's systemd_service
  module reads, in systemd's order); ``is-active`` prints ``active`` or
  ``inactive`` with systemd's exit codes (0, 3).

Every call is appended to ``$SYSTEMCTL_EMU_ROOT/run/systemctl-emu/calls``.
"""
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import recorded  # noqa: E402  pylint: disable=wrong-import-position

UNIT_FILE_VERBS = {"enable", "disable", "reenable", "is-enabled", "list-unit-files", "mask", "unmask", "preset"}


def root():
    path = os.environ.get("SYSTEMCTL_EMU_ROOT")
    if not path:
        sys.stderr.write("systemctl emulator: SYSTEMCTL_EMU_ROOT is not set\n")
        sys.exit(1)
    return path


def state_dir():
    path = os.path.join(root(), "run", "systemctl-emu")
    os.makedirs(path, exist_ok=True)
    return path


def unit_path(unit):
    return os.path.join(root(), "etc", "systemd", "system", unit)


def real_systemctl():
    here = os.path.dirname(os.path.realpath(__file__))
    for directory in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/bin"]:
        candidate = os.path.join(directory, "systemctl")
        if os.path.realpath(os.path.dirname(candidate)) != here and os.access(candidate, os.X_OK):
            return candidate
    sys.stderr.write("systemctl emulator: the real systemctl (Debian package systemd) is needed for unit-file verbs\n")
    sys.exit(1)


def load_state(unit):
    try:
        with open(os.path.join(state_dir(), unit + ".json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {"pid": 0, "loaded": None}


def save_state(unit, state):
    path = os.path.join(state_dir(), unit + ".json")
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(state, handle)
    os.replace(path + ".tmp", path)


def read_unit(unit):
    try:
        with open(unit_path(unit), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def loaded(unit, state):
    """The unit's loaded text: loaded on first use when the manager never saw it."""
    if state["loaded"] is None:
        state["loaded"] = read_unit(unit)
        save_state(unit, state)
    return state["loaded"]


def directive(text, key):
    value = ""
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith(key + "="):
            value = line.split("=", 1)[1].strip()
    return value


def alive(pid):
    if pid <= 0:
        return False
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def digest(text):
    return hashlib.sha256((text or "").encode()).hexdigest()


def need_reload(unit, state):
    return state["loaded"] is not None and digest(state["loaded"]) != digest(read_unit(unit))


def warn_changed(unit, state):
    if need_reload(unit, state):
        sys.stderr.write("Warning: The unit file, source configuration file or drop-ins of %s changed on disk. "
                         "Run 'systemctl daemon-reload' to reload units.\n" % unit)


def unit_file_state(unit):
    proc = subprocess.run([real_systemctl(), "--root=" + root(), "is-enabled", unit], capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def show(unit):
    state = load_state(unit)
    if read_unit(unit) is None and state["loaded"] is None:
        lines = ["Type=simple", "MainPID=0", "ExecMainPID=0", "Id=" + unit, "Names=" + unit, "Description=" + unit,
                 "LoadState=not-found", "ActiveState=inactive", "SubState=dead", "FragmentPath=", "UnitFileState=",
                 'LoadError=org.freedesktop.systemd1.NoSuchUnit "Unit %s not found."' % unit]
    else:
        text = loaded(unit, state)
        running = alive(state["pid"])
        pid = state["pid"] if running else 0
        lines = ["Type=" + (directive(text, "Type") or "simple"), "Restart=" + (directive(text, "Restart") or "no"),
                 "MainPID=%d" % pid, "ExecMainPID=%d" % state["pid"], "Id=" + unit, "Names=" + unit,
                 "Description=" + (directive(text, "Description") or unit), "LoadState=loaded",
                 "ActiveState=" + ("active" if running else "inactive"), "SubState=" + ("running" if running else "dead"),
                 "FragmentPath=/etc/systemd/system/" + unit, "UnitFileState=" + unit_file_state(unit),
                 "NeedDaemonReload=" + ("yes" if need_reload(unit, state) else "no")]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def start(unit):
    state = load_state(unit)
    if read_unit(unit) is None and state["loaded"] is None:
        sys.stderr.write(recorded.text("systemctl_start_unit_not_found.txt").replace("ufw.service", unit))
        return 5
    warn_changed(unit, state)
    if alive(state["pid"]):
        return 0
    argv = shlex.split(directive(loaded(unit, state), "ExecStart").lstrip("-@+!"))
    with open(os.path.join(state_dir(), unit + ".log"), "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,  # pylint: disable=consider-using-with
                                close_fds=True)
    state["pid"] = proc.pid
    save_state(unit, state)
    return 0


def stop(unit):
    state = load_state(unit)
    warn_changed(unit, state)
    pid = state["pid"]
    if alive(pid):
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pid, sig)
            except OSError:
                break
            deadline = time.monotonic() + wait
            while alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not alive(pid):
                break
    state["pid"] = 0
    save_state(unit, state)
    return 0


def daemon_reload():
    directory = os.path.dirname(unit_path("x"))
    names = set(os.listdir(directory)) if os.path.isdir(directory) else set()
    names |= {name[:-5] for name in os.listdir(state_dir()) if name.endswith(".json")}
    for unit in sorted(names):
        if not unit.endswith(".service"):
            continue
        state = load_state(unit)
        state["loaded"] = read_unit(unit)
        save_state(unit, state)
    return 0


def main(argv):
    with open(os.path.join(state_dir(), "calls"), "a", encoding="utf-8") as handle:
        handle.write(" ".join(argv) + "\n")
    words = [arg for arg in argv if not arg.startswith("-")]
    if not words:
        sys.stderr.write("systemctl emulator: no verb\n")
        return 1
    verb, units = words[0], words[1:]
    if verb in UNIT_FILE_VERBS:
        options = [arg for arg in argv if arg.startswith("-") and arg not in ("--system", "--no-block")]
        return subprocess.run([real_systemctl(), "--root=" + root()] + options + [verb] + units, check=False).returncode
    if verb == "daemon-reload":
        return daemon_reload()
    if verb == "show":
        return max([show(unit) for unit in units] or [0])
    if verb == "is-active":
        active = [alive(load_state(unit)["pid"]) for unit in units]
        sys.stdout.write("".join("active\n" if flag else "inactive\n" for flag in active))
        return 0 if active and all(active) else 3
    if verb in ("start", "stop", "restart"):
        rc = 0
        for unit in units:
            if verb in ("stop", "restart"):
                rc = rc or stop(unit)
            if verb in ("start", "restart"):
                rc = rc or start(unit)
        return rc
    sys.stderr.write("systemctl emulator: verb %s is not emulated\n" % verb)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
