"""Loopback ports for servers that tests start.

A port from ``bind(("127.0.0.1", 0))`` comes from the kernel's ephemeral
range, and once that socket is closed the kernel may hand the same port to
the next ``bind(0)`` (two calls in a row gave softgen the same RPC and
publisher port) or to the local end of any outgoing connection, before the
server the test starts binds it. ``free_ports`` picks ports below the
ephemeral range (``/proc/sys/net/ipv4/ip_local_port_range``), which the
kernel never assigns on its own, and holds every socket it tried until all
are chosen, so the ports it returns are distinct and were free.
"""
import random
import socket

LOWEST = 20000
EPHEMERAL_RANGE = "/proc/sys/net/ipv4/ip_local_port_range"


def _first_ephemeral():
    try:
        with open(EPHEMERAL_RANGE, encoding="ascii") as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_ports(count, kind=socket.SOCK_STREAM, host="127.0.0.1"):
    """``count`` distinct ports on ``host`` that nothing holds and the kernel does not hand out by itself."""
    candidates = list(range(LOWEST, _first_ephemeral()))
    random.shuffle(candidates)
    held, ports = [], []
    try:
        for port in candidates:
            sock = socket.socket(socket.AF_INET, kind)
            held.append(sock)
            try:
                sock.bind((host, port))
            except OSError:
                continue
            ports.append(port)
            if len(ports) == count:
                return ports
    finally:
        for sock in held:
            sock.close()
    raise RuntimeError("fewer than %d free ports on %s between %d and the ephemeral range" % (count, host, LOWEST))


def free_port(kind=socket.SOCK_STREAM):
    """One port as :func:`free_ports` picks it."""
    return free_ports(1, kind)[0]
