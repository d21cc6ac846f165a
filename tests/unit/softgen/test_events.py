"""softgen.events: which client generations listen, and the queues of the current client's sessions."""
from softgen.events import CURRENT, OLD, PRESENT_FOR, SESSION_IDLE, Generations, Sessions


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_publisher_form_follows_the_generations_heard():
    clock = Clock()
    gens = Generations(clock)
    assert gens.mode() == OLD  # nobody spoke yet: the old form, which any TRex server sends
    gens.heard(CURRENT)
    assert gens.mode() == CURRENT
    gens.heard(OLD)
    assert gens.mode() == "mixed"
    clock.now += PRESENT_FOR + 1
    gens.heard(CURRENT)
    assert gens.mode() == CURRENT  # the old client went quiet long ago
    gens.holding([OLD])
    assert gens.mode() == "mixed"  # an idle old client that owns a port still listens


def test_no_trigger_follows_an_old_clients_handshake():
    """The publisher sends a trigger only while no old client is present, under the lock the handshake takes."""
    clock = Clock()
    gens = Generations(clock)
    sent = []
    gens.heard(CURRENT)
    assert gens.while_current_only(lambda: sent.append(b"{}")) is True and sent == [b"{}"]
    gens.heard(OLD)  # an old client's api_sync, before its subscriber connects
    assert gens.while_current_only(lambda: sent.append(b"{}")) is False and sent == [b"{}"]


def test_sessions_get_what_was_published_after_they_first_pulled_numbered_without_gaps():
    clock = Clock()
    sessions = Sessions(clock)
    sessions.add({"name": "trex-event", "type": 0, "data": {}})
    assert not sessions.pull(1)
    for kind in (1, 2, 3):
        sessions.add({"name": "trex-event", "type": kind, "data": {}})
    assert [(m["type"], m["seq"]) for m in sessions.pull(1)] == [(1, 1), (2, 2), (3, 3)]
    assert not sessions.pull(2)
    sessions.add({"name": "trex-event", "type": 4, "data": {}})
    assert [(m["type"], m["seq"]) for m in sessions.pull(1)] == [(4, 4)]
    assert [(m["type"], m["seq"]) for m in sessions.pull(2)] == [(4, 1)]


def test_a_session_that_stops_pulling_is_forgotten():
    clock = Clock()
    sessions = Sessions(clock)
    sessions.pull(1)
    clock.now += SESSION_IDLE + 1
    sessions.pull(2)
    assert set(sessions.queues) == {2}
