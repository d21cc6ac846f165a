"""A worker process of the server, driven over its stdin and stdout: JSON commands in, JSON events out, one a line.

:class:`softgen.port.Port` (its :mod:`softgen.portworker`) and
:class:`softgen.astf_port.AstfSide` (its :mod:`softgen.astfworker`) are
both one.
"""
import json
import logging
import os
import subprocess
import sys
import threading

from softgen.protocol import RpcError, exec_err

LOG = logging.getLogger("softgen")


class WorkerProcess:
    """The process handle, its reader thread, and the commands sent to it; ``index`` and ``what`` name it in errors."""

    index = 0
    what = "worker process"

    def __init__(self):
        self.proc = None
        self.ack_cond = threading.Condition()
        self.ack_sent = self.ack_done = 0

    def start_process(self, module, args, on_event, thread_name):
        """``python -m <module> <args>`` with the softgen package importable; ``on_event(event)`` for each line it writes,
        then ``{"ev": "exit", "rc": ...}`` when it ended."""
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        cmd = [sys.executable, "-m", module] + list(args)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, bufsize=1)  # pylint: disable=consider-using-with
        threading.Thread(target=self._read_loop, args=(on_event,), daemon=True, name=thread_name).start()

    def _read_loop(self, on_event):
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            on_event(event)
        on_event({"ev": "exit", "rc": self.proc.wait()})

    def send(self, **cmd):
        if self.proc is None or self.proc.poll() is not None:
            raise exec_err("port {0}: {1} is not running".format(self.index, self.what))
        try:
            self.proc.stdin.write(json.dumps(cmd) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise exec_err("port {0}: {1} is gone".format(self.index, self.what)) from exc

    def call(self, timeout=2.0, **cmd):
        """Send ``cmd`` and return once the worker carried it out and reported its counters (TRex's DP barrier)."""
        with self.ack_cond:
            self.ack_sent += 1
            ack = self.ack_sent
        self.send(ack=ack, **cmd)
        with self.ack_cond:
            if not self.ack_cond.wait_for(lambda: self.ack_done >= ack, timeout):
                LOG.warning("port %d: the %s did not confirm '%s' within %.1f s", self.index, self.what, cmd.get("cmd"), timeout)

    def acked(self, ack):
        with self.ack_cond:
            self.ack_done = max(self.ack_done, ack)
            self.ack_cond.notify_all()

    def stop_worker(self, timeout=3):
        if self.proc is None:
            return
        try:
            self.send(cmd="quit")
        except RpcError:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
