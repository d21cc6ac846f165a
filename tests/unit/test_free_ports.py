"""free_ports: distinct, free, and outside the range the kernel hands out by itself."""
import socket

import pytest

from ansible_collections.offload.testbed.tests.support import free_ports as free_ports_mod
from ansible_collections.offload.testbed.tests.support.free_ports import free_port, free_ports


def test_ports_are_distinct_below_the_ephemeral_range_and_bindable():
    first = free_ports_mod._first_ephemeral()  # pylint: disable=protected-access
    for attempt in range(20):
        ports = free_ports(4)
        assert len(set(ports)) == 4, attempt
        assert all(free_ports_mod.LOWEST <= port < first for port in ports)
        held = []
        try:
            for port in ports:
                sock = socket.socket()
                held.append(sock)
                sock.bind(("127.0.0.1", port))
        finally:
            for sock in held:
                sock.close()


def test_a_held_port_is_never_returned(monkeypatch):
    monkeypatch.setattr(free_ports_mod, "_first_ephemeral", lambda: free_ports_mod.LOWEST + 3)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", free_ports_mod.LOWEST + 1))
        assert sorted(free_ports(2)) == [free_ports_mod.LOWEST, free_ports_mod.LOWEST + 2]


def test_too_few_free_ports_is_an_error_that_says_so(monkeypatch):
    monkeypatch.setattr(free_ports_mod, "_first_ephemeral", lambda: free_ports_mod.LOWEST + 1)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", free_ports_mod.LOWEST))
        with pytest.raises(RuntimeError, match="fewer than 1 free ports on 127.0.0.1 between 20000"):
            free_ports(1)


def test_udp_ports_too():
    port = free_port(socket.SOCK_DGRAM)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", port))
