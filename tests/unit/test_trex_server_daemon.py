# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/trex_server/files/trex-server-daemon: the daemon helper of hosts without systemd supervises
its server as systemd's Restart=on-failure does the role's unit.

Each test runs the real script on a launcher of its own (a shell script that records its start and then
runs as the test asks), in a state directory under tmp_path, and stops it at the end.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import signal
import subprocess
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DAEMON = os.path.join(ROOT, "roles", "trex_server", "files", "trex-server-daemon")
NAME = "client"


def daemon(state, action):
    return subprocess.run([DAEMON, action, str(state), NAME], capture_output=True, text=True, timeout=30, check=False)


def launcher(state, body):
    """The instance's launcher: it appends its pid to ``starts`` and then runs ``body``."""
    path = state / ("%s.sh" % NAME)
    path.write_text("#!/bin/sh\necho $$ >> %s\n%s\n" % (state / "starts", body))
    path.chmod(0o755)


def starts(state):
    path = state / "starts"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def wait_for(what, deadline=15.0):
    """``what()`` once it is true, polled for at most ``deadline`` s; the last value otherwise."""
    end = time.time() + deadline
    value = what()
    while not value and time.time() < end:
        time.sleep(0.1)
        value = what()
    return value


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def state(tmp_path):
    yield tmp_path
    daemon(tmp_path, "stop")


def test_a_server_killed_by_sigkill_is_started_again(state):
    launcher(state, "exec sleep 1000")
    assert daemon(state, "start").stdout.strip() == "started"
    [first] = wait_for(lambda: starts(state))
    supervisor = int((state / ("%s.pid" % NAME)).read_text())
    os.kill(first, signal.SIGKILL)
    again = wait_for(lambda: starts(state)[1:])
    assert again and again[0] != first and alive(again[0])
    # the daemon is the same supervisor: status, the pidfile and stop still find it
    assert daemon(state, "status").stdout.strip() == "running"
    assert int((state / ("%s.pid" % NAME)).read_text()) == supervisor
    log = (state / ("%s.log" % NAME)).read_text()
    assert "trex-server-daemon: client ended with status 137; starting it again in 2 s" in log
    assert daemon(state, "stop").stdout.strip() == "stopped"
    assert not alive(again[0]) and not alive(supervisor)
    assert starts(state) == [first, again[0]]


def test_a_server_that_ends_cleanly_is_not_started_again(state):
    launcher(state, "exit 0")
    daemon(state, "start")
    assert wait_for(lambda: daemon(state, "status").returncode == 3)
    assert len(starts(state)) == 1
    assert "trex-server-daemon: client ended (status 0); not restarted" in (state / ("%s.log" % NAME)).read_text()


def test_a_server_that_keeps_failing_is_given_up_after_its_fifth_start_in_thirty_seconds(state):
    launcher(state, "exit 3")
    daemon(state, "start")
    assert wait_for(lambda: daemon(state, "status").returncode == 3, deadline=30.0)
    log = (state / ("%s.log" % NAME)).read_text()
    assert len(starts(state)) == 5
    assert log.count("ended with status 3; starting it again in 2 s") == 4
    assert log.rstrip().endswith("trex-server-daemon: client ended with status 3, its 5th start within 30 s; not started again")
