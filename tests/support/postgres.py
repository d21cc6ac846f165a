"""A private PostgreSQL server for a test session: Debian's postgresql binaries, a new cluster in a temporary
directory owned by the ``postgres`` user, listening on 127.0.0.1 at a free port and on a socket in that directory;
stopped and removed at the end. Nothing of the machine's own clusters is touched."""
import glob
import os
import shutil
import subprocess
import tempfile

from ansible_collections.offload.testbed.tests.support.free_ports import free_port

BIN_GLOB = "/usr/lib/postgresql/*/bin"
USER = "postgres"


def binaries():
    """The newest installed PostgreSQL's bin directory, or None."""
    found = sorted(glob.glob(BIN_GLOB), key=lambda path: int(path.split("/")[-2]) if path.split("/")[-2].isdigit() else 0)
    return found[-1] if found else None


class Server:
    """``start()`` a cluster, ``url`` for SQLAlchemy, ``stop()`` it."""

    def __init__(self):
        self.bin = binaries()
        self.base = None
        self.port = None

    def _as_postgres(self, *argv):
        command = ["runuser", "-u", USER, "--"] if os.geteuid() == 0 else []
        return subprocess.run(command + list(argv), capture_output=True, text=True, check=True, timeout=120)

    def start(self):
        self.base = tempfile.mkdtemp(prefix="offload-testbed-pg-")
        if os.geteuid() == 0:
            shutil.chown(self.base, USER)
        data = os.path.join(self.base, "data")
        self.port = free_port()
        self._as_postgres(os.path.join(self.bin, "initdb"), "-D", data, "-U", USER, "--auth=trust", "-E", "UTF8")
        options = "-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c fsync=off" % (self.port, self.base)
        self._as_postgres(os.path.join(self.bin, "pg_ctl"), "-D", data, "-o", options, "-l", os.path.join(self.base, "log"), "-w", "start")
        self._as_postgres(os.path.join(self.bin, "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "results")
        return self

    @property
    def url(self):
        return "postgresql+psycopg://%s@127.0.0.1:%d/results" % (USER, self.port)

    def stop(self):
        if self.base is None:
            return
        try:
            self._as_postgres(os.path.join(self.bin, "pg_ctl"), "-D", os.path.join(self.base, "data"), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None
