"""A port's ASTF side in the server: the handle of its :mod:`softgen.astfworker` process and the counters it reports."""
import logging
import threading

from softgen.astf_flows import COUNTERS
from softgen.workerproc import WorkerProcess

LOG = logging.getLogger("softgen")


class AstfSide(WorkerProcess):
    """One port's ASTF worker (client or server side) and its latest counters."""

    what = "ASTF worker"

    def __init__(self, port, side):
        super().__init__()
        self.port = port
        self.index = port.index
        self.side = side
        self.counters = {"total": dict.fromkeys(COUNTERS, 0), "groups": {}}
        self.lock = threading.Lock()
        self.hello = threading.Event()

    def spawn(self, on_done):
        """The worker, in the port's namespace; ``on_done(side, event)`` when a client run ended (or the worker did)."""
        self.start_process("softgen.astfworker", ["--netns", self.port.netns or "-", "--iface", self.port.iface, "--side", self.side],
                           lambda event: self.on_event(event, on_done), "astf%d-reader" % self.index)

    def on_event(self, event, on_done):
        kind = event.get("ev")
        if kind == "stats":
            with self.lock:
                self.counters = event["counters"]
        elif kind == "ack":
            self.acked(event.get("id", 0))
        elif kind == "hello":
            self.hello.set()
        elif kind == "done":
            on_done(self, event)
        elif kind == "error":
            LOG.warning("port %d ASTF %s side: %s", self.index, self.side, event.get("msg"))
        elif kind == "exit":
            LOG.warning("port %d: the ASTF worker exited with %s", self.index, event.get("rc"))
            self.acked(float("inf"))
            on_done(self, {"ev": "done", "exit": True})

    def total(self, tg_id=None):
        """The worker's counters: in all, or of template group ``tg_id``."""
        with self.lock:
            if tg_id is None:
                return dict(self.counters["total"])
            return dict(self.counters["groups"].get(str(tg_id), {}))
