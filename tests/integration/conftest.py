"""Shared set-up for integration tests: the collection on ``sys.path`` and a
running Open vSwitch (userspace datapath) for tests that need one.

``ovs`` starts ovsdb-server and ovs-vswitchd with ``ovs-ctl`` when they are
not running and stops them at the end of the session if it started them, so a
test run leaves the machine as it found it.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
import conftest as _unit_conftest  # noqa: E402,F401  pylint: disable=wrong-import-position,unused-import

OVS_CTL = "/usr/share/openvswitch/scripts/ovs-ctl"


def _ovs_running():
    if not shutil.which("ovs-vsctl"):
        return False
    return subprocess.run(["ovs-vsctl", "--timeout=2", "show"], capture_output=True, check=False).returncode == 0


@pytest.fixture(scope="session")
def ovs():
    """A running Open vSwitch; fails (never skips) when it cannot be had."""
    started = False
    if not _ovs_running():
        if os.geteuid() != 0 or not os.path.exists(OVS_CTL):
            pytest.fail("Open vSwitch is needed: run as root with openvswitch-switch installed (make test installs it)")
        subprocess.run([OVS_CTL, "start", "--system-id=random"], check=True, capture_output=True)
        started = True
    yield
    if started:
        subprocess.run([OVS_CTL, "stop"], check=False, capture_output=True)


@pytest.fixture
def topology(ovs, request):  # pylint: disable=unused-argument,redefined-outer-name
    """The two-port softgen bench of tests/integration/softgen_lab.py, named by the test module's PREFIX."""
    from softgen_lab import two_port_bridge  # pylint: disable=import-outside-toplevel
    with two_port_bridge(request.module.PREFIX):
        yield


@pytest.fixture
def softgen(topology, tmp_path, request):  # pylint: disable=unused-argument,redefined-outer-name
    """softgen running on that bench; yields its RPC and publisher ports."""
    from softgen_lab import running_softgen  # pylint: disable=import-outside-toplevel
    with running_softgen(request.module.PREFIX, tmp_path / "softgen.log") as ports:
        yield ports


@pytest.fixture
def softgen_process(topology, tmp_path, request):  # pylint: disable=unused-argument,redefined-outer-name
    """softgen running on that bench, as a process a test can kill and start again (same ports)."""
    from softgen_lab import running_softgen  # pylint: disable=import-outside-toplevel
    with running_softgen(request.module.PREFIX, tmp_path / "softgen.log", process=True) as process:
        yield process


SCHEMA_NB = "/usr/share/ovn/ovn-nb.ovsschema"


@pytest.fixture(scope="module")
def nb(tmp_path_factory):
    """An ovsdb-server serving an empty Northbound database on a private unix socket."""
    for tool in ("ovsdb-tool", "ovsdb-server", "ovn-nbctl"):
        if not shutil.which(tool):
            pytest.fail("%s is needed: install the ovn-common and openvswitch-common packages" % tool)
    if not os.path.exists(SCHEMA_NB):
        pytest.fail("%s is needed: install ovn-common" % SCHEMA_NB)
    workdir = tmp_path_factory.mktemp("ovn-nb")
    db = str(workdir / "nb.db")
    sock = str(workdir / "nb.sock")
    pidfile = str(workdir / "ovsdb-server.pid")
    subprocess.run(["ovsdb-tool", "create", db, SCHEMA_NB], check=True, capture_output=True)
    subprocess.run(["ovsdb-server", "--detach", "--no-chdir", "--pidfile=" + pidfile, "--unixctl=" + str(workdir / "ctl"),
                    "--remote=punix:" + sock, "--log-file=" + str(workdir / "ovsdb-server.log"), db],
                   check=True, capture_output=True)
    for _attempt in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    yield "unix:" + sock
    with open(pidfile) as handle:
        pid = int(handle.read().strip())
    os.kill(pid, signal.SIGTERM)
    for _attempt in range(100):
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.05)


@pytest.fixture(scope="module")
def playbook_env(tmp_path_factory):
    """The environment of an ansible-playbook that sees this checkout as the collection (linked)."""
    base = tmp_path_factory.mktemp("collections")
    (base / "ansible_collections" / "offload").mkdir(parents=True)
    os.symlink(ROOT, base / "ansible_collections" / "offload" / "testbed")
    return dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(base), ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
