"""The asynchronous channel of both TRex client generations.

The old client (PyPI ``trex-stl-lib``, handshake ``api_sync``) reads every
message from the publisher socket: ``{"name", "type", "data", "baseline"}``,
and declares the server gone after 3 s without one.

The current client (TRex v3 ``trex.stl.api``, handshake ``api_sync_v2``) only
waits on the publisher for a trigger, the two bytes ``{}``, or for 0.5 s of
silence, and then pulls the messages over RPC: ``get_async_events`` with its
``session_id`` returns the messages queued for that session since its last
call, each with a ``seq`` that must follow the previous one without a gap.

One publisher socket cannot serve both: ``{}`` crashes the old client's
subscriber (the message has no ``name``), and a publisher that never pauses
for 0.5 s keeps the current client from ever pulling.  So the handshake tells
the generations apart (each gets its own API handle), :class:`Generations`
remembers which were heard from lately, and the publisher picks its form:

* only current clients: a ``{}`` trigger after every event, nothing else;
* only old clients: the old messages at once, statistics every :data:`TICK_OLD` s;
* both: the old messages gathered over :data:`MIXED_SILENCE` s and sent
  together with the statistics, so that the current clients find their
  0.5 s of silence between two bursts and pull (events reach old clients up
  to that much later).

An old client's handshake comes before its subscriber connects, and a trigger is sent only under
the lock the handshake takes (:meth:`Generations.while_current_only`): once ``api_sync`` has
answered, no ``{}`` reaches an old subscriber, also when the publisher was waiting for messages in
the current form when the old client arrived (a bench of the old client right after one of the
current client, within :data:`PRESENT_FOR`).
"""
import collections
import threading
import time

OLD, CURRENT = "old", "current"
# how long a generation counts as present after its last RPC (an idle old
# client that reads the publisher only, e.g. a bench's receiving side)
PRESENT_FOR = 120.0
# periodic statistics for old clients; the silence between two bursts when both generations listen
TICK_OLD = 0.5
MIXED_SILENCE = 0.6
# most messages kept for a session that does not pull; a session silent this long is forgotten
SESSION_QUEUE = 10000
SESSION_IDLE = 60.0
TRIGGER = b"{}"


class Generations:
    """Which client generations spoke lately, and the publisher form that serves them."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.last = {OLD: None, CURRENT: None}
        self.holders = set()
        self.lock = threading.Lock()

    def heard(self, generation):
        with self.lock:
            self.last[generation] = self.clock()

    def while_current_only(self, send):
        """``send()`` (a trigger) if only current clients listen; whether it was sent. Under the lock of
        :meth:`heard`, so that no trigger follows an old client's handshake."""
        with self.lock:
            if self.mode() != CURRENT:
                return False
            send()
            return True

    def holding(self, generations):
        """The generations of the sessions that own ports now (an owner counts as present however idle)."""
        self.holders = set(generations)

    def present(self, generation):
        last = self.last[generation]
        return generation in self.holders or (last is not None and self.clock() - last < PRESENT_FOR)

    def mode(self):
        """``current`` (triggers only), ``mixed`` or ``old`` (also when nobody spoke yet)."""
        old, current = self.present(OLD), self.present(CURRENT)
        if current and not old:
            return CURRENT
        return "mixed" if current else OLD


class Sessions:
    """The messages each current-generation session has not pulled yet."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self.lock = threading.Lock()
        self.queues = {}

    def add(self, message):
        """Queue ``message`` (a publisher dict) for every session."""
        with self.lock:
            for session in self.queues.values():
                session["queue"].append(dict(message))

    def pull(self, session_id):
        """The messages queued for ``session_id`` since its last pull, numbered on from the last one.

        A session's first pull opens its queue and returns nothing queued
        before it; sessions that stopped pulling are forgotten."""
        now = self.clock()
        with self.lock:
            for key in [k for k, s in self.queues.items() if now - s["pulled"] > SESSION_IDLE and k != session_id]:
                del self.queues[key]
            session = self.queues.setdefault(session_id, {"queue": collections.deque(maxlen=SESSION_QUEUE), "seq": 1, "pulled": now})
            session["pulled"] = now
            messages = list(session["queue"])
            session["queue"].clear()
            for message in messages:
                message["seq"] = session["seq"]
                session["seq"] += 1
        return messages
