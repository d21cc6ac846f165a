# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The traffic of the ``netns_exchange`` module: an echo server in one network
namespace, a client in another, and the kernel error counters of both.

:func:`echo_server` and :func:`echo_client` are what run inside the
namespaces (each in a child forked by :mod:`netns`); :func:`run` drives them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import socket
import struct
import time

from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.netns import NetnsError

# The largest message: a UDP datagram's payload, with room to spare under 65507.
MAX_SIZE = 65000
# Over UDP each message starts with its sequence number (struct "!Q").
SEQ_SIZE = 8

WARM = b"WARM"
STOP = b"STOP"


def first_wait(timeout, retries):
    """How long the client tries to reach the server at all: ``timeout`` for each of the ``retries + 1`` tries.

    The first packets through a freshly built path (address resolution, the
    first upcalls of a datapath, OVN's buffered packets at a gateway) can take
    seconds in a slow guest. The UDP warm-up and the TCP connect get this long.
    """
    return timeout * (retries + 1)


def _tcp_echo(sock, timeout):
    """Echo one TCP connection until the client closes it (``timeout`` for each read): ``(peer, bytes)``."""
    conn, peer = sock.accept()
    conn.settimeout(timeout)
    total = 0
    while True:
        data = conn.recv(65536)
        if not data:
            break
        conn.sendall(data)
        total += len(data)
    conn.close()
    return peer, total


def _udp_echo(sock, idle):
    """Echo datagrams until STOP, or until nothing arrives for the socket's timeout (the first datagram) or for
    ``idle`` seconds (every later one): ``(peer, bytes, messages)``.

    A message the client sends again is echoed again but counted once (by its sequence number).
    """
    total, seen, peer = 0, set(), ("", 0)
    try:
        while True:
            data, peer = sock.recvfrom(65536)
            sock.settimeout(idle)
            if data == STOP:
                break
            sock.sendto(data, peer)
            if data != WARM and data[:8] not in seen:
                seen.add(data[:8])
                total += len(data)
    except socket.timeout:
        pass
    return peer, total, len(seen)


def option_errors(params):
    """Every bad option of the module, before any namespace is entered: a list of messages naming the option and value."""
    errors = netns.traffic_errors(params)
    errors.extend(netns.namespace_error(name, params[name]) for name in ("server_namespace", "client_namespace"))
    errors.extend(validate.name_list("ovs_interfaces", params["ovs_interfaces"], validate.database_name, "the name of an Open vSwitch interface"))
    for name in ("server_address", "connect_address"):
        if name == "server_address" or params[name] is not None:
            errors.append(netns.address_error(name, params[name]))
    errors.append(netns.at_least("count", params["count"], 1, "send at least 1 message"))
    low = SEQ_SIZE if params["protocol"] == "udp" else 1
    errors.append(validate.int_in("size", params["size"], low, MAX_SIZE,
                                  "give the bytes per message, %d..%d over %s%s" % (
                                      low, MAX_SIZE, params["protocol"].upper(),
                                      " (each message carries its 8-byte sequence number)" if low == SEQ_SIZE else "")))
    return [error for error in errors if error]


def echo_server(ready, protocol, address, port, timeout, wait):
    """Echo one TCP client, or UDP datagrams, on ``address:port``.

    Waits ``wait`` seconds for the client's first connection or datagram, then
    ``timeout`` for each TCP read, twice ``timeout`` between datagrams. Returns
    ``{"peer": source address seen, "bytes": payload echoed, "messages": UDP
    messages (None over TCP)}``.
    """
    sock = netns.listen(protocol, address, port, wait)
    ready()
    if protocol == "tcp":
        peer, total = _tcp_echo(sock, timeout)
        messages = None
    else:
        peer, total, messages = _udp_echo(sock, timeout * 2)
    sock.close()
    return {"peer": peer[0], "bytes": total, "messages": messages}


def _tcp_client(address, port, count, size, timeout, retries):
    sent = received = nbytes = 0
    sock = socket.create_connection((address, port), timeout=first_wait(timeout, retries))
    sock.settimeout(timeout)
    for _i in range(count):
        msg = os.urandom(size)
        sock.sendall(msg)
        sent += 1
        got = b""
        while len(got) < size:
            chunk = sock.recv(size - len(got))
            if not chunk:
                break
            got += chunk
        if got == msg:
            received += 1
            nbytes += len(got)
    sock.close()
    return {"sent": sent, "received": received, "bytes": nbytes, "warmup": 0, "resent": 0}


def _warm_up(sock, destination, wait):
    """WARM datagrams until one comes back (at most ``wait`` seconds): the first datagram through a
    router may wait for address resolution. Returns how many were sent."""
    warmup = 0
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        sock.sendto(WARM, destination)
        warmup += 1
        sock.settimeout(0.25)
        try:
            if sock.recvfrom(65536)[0] == WARM:
                break
        except socket.timeout:
            pass
    return warmup


def _udp_client(address, port, count, size, timeout, retries):
    destination = (address, port)
    sock = socket.socket(netns.family(address), socket.SOCK_DGRAM)
    warmup = _warm_up(sock, destination, first_wait(timeout, retries))
    # Each message starts with its sequence number: a late answer to an earlier
    # message is recognised and skipped, it never counts for the current one.
    # A message whose answer is late is sent again, `retries` times, spread
    # over the same `timeout`: a reply dropped while a freshly built router
    # still settles costs a second, not the message.
    sent = received = nbytes = resent = 0
    for i in range(count):
        msg = struct.pack("!Q", i) + os.urandom(max(size - 8, 0))
        answer, again = netns.udp_ask(sock, msg, destination, timeout, retries, msg.__eq__)
        sent += 1
        resent += again
        if answer is not None:
            received += 1
            nbytes += len(answer)
    sock.sendto(STOP, destination)
    sock.close()
    return {"sent": sent, "received": received, "bytes": nbytes, "warmup": warmup, "resent": resent}


def echo_client(protocol, address, port, count, size, timeout, retries):
    """Send ``count`` messages of ``size`` bytes to the echo server and check each answer.

    Returns ``{"sent", "received" (intact answers), "bytes", "warmup" (UDP
    warm-up datagrams), "resent" (UDP copies sent again)}``.
    """
    if protocol == "tcp":
        return _tcp_client(address, port, count, size, timeout, retries)
    return _udp_client(address, port, count, size, timeout, retries)


def moved_errors(side, before, after):
    """Error and discard counters of ``/proc/net/snmp`` (Ip, Udp, Tcp) that moved: ``{"client UdpInCsumErrors": 50}``."""
    moved = {}
    for table in ("Ip", "Udp", "Tcp"):
        for key, value in after.get(table, {}).items():
            delta = value - before.get(table, {}).get(key, value)
            if delta and (key.endswith("Errors") or key.endswith("Errs") or key in ("InDiscards", "NoPorts")):
                moved["%s %s%s" % (side, table, key)] = delta
    return moved


def _converse(params, server, deadline):
    """The client's run against a listening server: ``(client, server, error)``."""
    try:
        client = netns.call(params["client_namespace"], echo_client, params["protocol"],
                            params["connect_address"] or params["server_address"], params["port"], params["count"],
                            params["size"], params["timeout"], params["retries"], timeout=deadline)
    except NetnsError as exc:
        server.kill()  # it would wait for a client that is gone
        return None, None, "client in namespace %s failed: %s" % (params["client_namespace"], exc)
    try:
        return client, server.result(deadline), None
    except NetnsError as exc:
        return client, None, "echo server in namespace %s failed: %s" % (params["server_namespace"], exc)


def run(params):
    """The exchange the module's options (``params``) describe.

    Returns ``{"client": echo_client's result, "server": echo_server's,
    "error": the first failure or None, "kernel_errors": moved_errors of
    both sides}``.
    """
    sides = (("client", params["client_namespace"]), ("server", params["server_namespace"]))
    before = dict((side, netns.counters(ns)) for side, ns in sides)
    # the client's longest run, and a little more: the server waits that long for its first datagram
    deadline = first_wait(params["timeout"], params["retries"]) + params["timeout"] * (params["count"] + 3)
    out = {"client": None, "server": None, "error": None}
    with netns.start(params["server_namespace"], echo_server, params["protocol"], params["server_address"], params["port"],
                     params["timeout"], deadline) as server:
        try:
            server.ready(deadline)
        except NetnsError as exc:
            out["error"] = "echo server in namespace %s did not start: %s" % (params["server_namespace"], exc)
        else:
            out["client"], out["server"], out["error"] = _converse(params, server, deadline)
    out["kernel_errors"] = {}
    for side, ns in sides:
        out["kernel_errors"].update(moved_errors(side, before[side], netns.counters(ns)))
    return out
