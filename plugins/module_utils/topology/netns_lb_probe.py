# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The traffic of the ``netns_lb_probe`` module: a server in each backend's
network namespace that answers with the backend's name, and a client that
counts which backend answered each new flow to the virtual IP.

:func:`name_server` and :func:`probe_client` are what run inside the
namespaces (each in a child forked by :mod:`netns`); :func:`run` drives them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import socket

from ansible_collections.offload.testbed.plugins.module_utils.host import netns
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.netns import NetnsError


def option_errors(params):
    """Every bad option of the module, before any namespace is entered: a list of messages naming the option and value."""
    errors = netns.traffic_errors(params, "the attempts that must get an answer")
    errors.append(netns.namespace_error("client_namespace", params["client_namespace"]))
    errors.append(netns.address_error("vip", params["vip"]))
    errors.append(netns.at_least("count", params["count"], 1, "send at least 1 connection or datagram"))
    errors.append(netns.at_least("min_per_backend", params["min_per_backend"], 0, "give the answers every backend must give, 0 or more"))
    if not params["backends"]:
        errors.append("backends: %s is empty; list at least one backend as {namespace: NS, address: IP}" % validate.show(params["backends"]))
    for i, backend in enumerate(params["backends"] or []):
        errors.append(netns.namespace_error("backends[%d].namespace" % i, backend["namespace"]))
        errors.append(netns.address_error("backends[%d].address" % i, backend["address"]))
    return [error for error in errors if error]


def name_server(ready, protocol, address, port, name, lifetime):
    """Answer every TCP connection, or UDP datagram, on ``address:port`` with ``name``.

    Runs until STOP (UDP), until nothing comes for ``lifetime`` seconds, or until it is killed.
    """
    sock = netns.listen(protocol, address, port, lifetime, backlog=64)
    answer = name.encode()
    ready()
    try:
        while True:
            if protocol == "tcp":
                conn, _peer = sock.accept()
                conn.sendall(answer)
                conn.close()
            else:
                data, peer = sock.recvfrom(2048)
                if data == b"STOP":
                    break
                sock.sendto(answer, peer)
    except (socket.timeout, OSError):
        pass
    sock.close()


def _attempt(protocol, vip, port, index, timeout, retries):
    """One new flow to the VIP: ``(answer, copies sent again)``.

    UDP uses one socket per attempt (a new flow through the load balancer); a
    datagram whose answer is late is sent again from that socket, ``retries``
    times over ``timeout``, so it stays the same flow.
    """
    if protocol == "tcp":
        sock = socket.create_connection((vip, port), timeout=timeout)
        got = b""
        while True:
            chunk = sock.recv(256)
            if not chunk:
                break
            got += chunk
        sock.close()
        return got, 0
    sock = socket.socket(netns.family(vip), socket.SOCK_DGRAM)
    try:
        got, resent = netns.udp_ask(sock, b"hello %d" % index, (vip, port), timeout, retries, bool)
    finally:
        sock.close()
    return got or b"", resent


def probe_client(protocol, vip, port, count, timeout, retries):
    """``count`` new flows to ``vip:port``: ``{"hits": {name: answers}, "answered", "attempts", "resent"}``."""
    hits, answered, resent = {}, 0, 0
    for i in range(count):
        try:
            got, again = _attempt(protocol, vip, port, i, timeout, retries)
        except OSError:
            continue
        resent += again
        if got:
            answered += 1
            hits[got.decode()] = hits.get(got.decode(), 0) + 1
    return {"hits": hits, "answered": answered, "attempts": count, "resent": resent}


def run(params):
    """The probe the module's options (``params``) describe: ``{"client": probe_client's result, "error": None or why}``."""
    lifetime = params["timeout"] * (params["count"] + 5)
    out = {"error": None, "client": None}
    servers = []
    try:
        for backend in params["backends"]:
            server = netns.start(backend["namespace"], name_server, params["protocol"], backend["address"], params["port"],
                                 backend["namespace"], lifetime)
            servers.append(server)
            try:
                server.ready(lifetime)
            except NetnsError as exc:
                out["error"] = "server in namespace %s did not start: %s" % (backend["namespace"], exc)
                return out
        try:
            out["client"] = netns.call(params["client_namespace"], probe_client, params["protocol"], params["vip"], params["port"],
                                       params["count"], params["timeout"], params["retries"], timeout=lifetime)
        except NetnsError as exc:
            out["error"] = "client in namespace %s failed: %s" % (params["client_namespace"], exc)
        return out
    finally:
        for server in servers:
            server.kill()
