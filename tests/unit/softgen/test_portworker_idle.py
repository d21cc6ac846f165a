"""An idle port worker wakes seldom: its stats slow down once its counters are still, a command brings them back
at once, and its resolver sleeps until a gateway needs resolving. Run for real on a ``null`` port (no socket)."""
import threading
import time

import pytest

from softgen import portworker


@pytest.fixture
def worker(monkeypatch):
    monkeypatch.setattr(portworker, "STATS_INTERVAL", 0.02)
    monkeypatch.setattr(portworker, "IDLE_STATS_INTERVAL", 0.5)
    monkeypatch.setattr(portworker, "QUIET_AFTER", 0.2)
    port = portworker.PortWorker("null0", 16)
    port.sent = []
    monkeypatch.setattr(port, "emit", lambda **event: port.sent.append((time.monotonic(), event)))
    thread = threading.Thread(target=port.stats_loop, daemon=True)
    thread.start()
    yield port
    port.quit.set()
    port.stats_wake.set()
    thread.join(5)


def _stats_between(port, start, end):
    return [event for at, event in port.sent if start <= at < end and event["ev"] == "stats"]


def test_stats_slow_down_once_the_counters_are_still(worker):
    time.sleep(1.3)
    started = worker.sent[0][0]
    # lively for QUIET_AFTER (0.2 s at 0.02 s), then one a 0.5 s
    assert len(_stats_between(worker, started, started + 0.2)) >= 3
    assert 1 <= len(_stats_between(worker, started + 0.3, started + 1.3)) <= 3


def test_a_command_wakes_the_stats_at_once_and_moving_counters_keep_them_lively(worker, monkeypatch):
    monkeypatch.setattr(portworker, "IDLE_STATS_INTERVAL", 60.0)  # idle: none comes on its own any more
    time.sleep(0.8)
    woken = time.monotonic()
    assert not _stats_between(worker, woken - 0.2, woken)
    worker.stats_wake.set()
    time.sleep(0.1)
    worker.counters["opackets"] = 10
    time.sleep(0.4)
    assert len(_stats_between(worker, woken, woken + 0.5)) >= 4
    assert worker.sent[-1][1]["opackets"] == 10


def test_the_resolver_sleeps_until_a_gateway_needs_resolving(monkeypatch):
    port = portworker.PortWorker("null0", 16)
    requests = []
    monkeypatch.setattr(port, "send_arp_request", lambda: requests.append(time.monotonic()))
    thread = threading.Thread(target=port.resolver_loop, daemon=True)
    thread.start()
    time.sleep(0.6)
    assert not requests
    port.handle_cmd({"cmd": "l3", "src": "10.20.0.3", "dst": "10.20.0.2"})
    time.sleep(1.2)
    # one with the command, then one each 0.5 s while the gateway's MAC is unknown
    assert 2 <= len(requests) <= 4
    port.gw_mac = "02:00:00:00:00:01"
    time.sleep(0.6)
    count = len(requests)
    time.sleep(0.6)
    assert len(requests) == count
    port.quit.set()
    port.resolve.set()
    thread.join(5)


class _WaitingSocket:
    """A socket whose ``recvfrom`` blocks until a frame comes; the frame arrives after the capture was stopped."""

    def __init__(self, stop):
        self.stop, self.closed = stop, False

    def recvfrom(self, _size):
        self.stop.set()
        return b"\x00" * 60, ("lo", 0x0003, 0, 1, b"")

    def close(self):
        self.closed = True


def test_a_stopped_capture_s_reader_does_not_copy_the_frame_it_was_waiting_for():
    """A capture stopped while its reader waits in recvfrom: the frame that then arrives belongs to whatever capture runs
    next (whose own reader copies it), so the stopped reader drops it and ends; handled, it was in the next capture twice."""
    port = portworker.PortWorker("null0", 16)
    stop = threading.Event()
    sock = _WaitingSocket(stop)
    copied = []
    port.rx_loop(0x0003, copied.append, stop, sock)
    assert copied == [] and sock.closed
