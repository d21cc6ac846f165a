# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a Python function inside a network namespace, in a forked child.

The module process forks; the child enters the namespace with setns(2), as
softgen's port workers do (``/run/netns/NAME`` opened and handed to
``os.setns``, or to libc's ``setns`` through ctypes before Python 3.12), and
calls the function. The module process itself never changes namespace. The
child reports over a pipe, one JSON document a line: ``{"ready": true}``
once a server listens, then ``{"result": ...}`` or ``{"error": "..."}``.

Also what the traffic modules (netns_exchange, netns_lb_probe) share: the
options they all have, and the socket helpers of their programs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ctypes
import json
import os
import select
import signal
import socket
import time
import traceback

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

CLONE_NEWNET = 0x40000000
NETNS_RUN_DIR = "/run/netns"


def in_namespace(namespace, argv):
    """``argv`` run in network namespace ``namespace`` with ``ip netns exec``; a copy of it without one."""
    return ["ip", "netns", "exec", namespace] + list(argv) if namespace else list(argv)


class NetnsError(Exception):
    """A child could not enter its namespace, failed, or did not answer in time; the message says which."""


def _setns(fd):
    """setns(fd, CLONE_NEWNET): os.setns from Python 3.12 on, libc's through ctypes before."""
    if hasattr(os, "setns"):
        os.setns(fd, CLONE_NEWNET)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def enter(name):
    """Move the calling process into network namespace ``name``; an empty name stays where it is.

    Refuses what ``ip netns exec`` refuses, in its words.
    """
    if not name:
        return
    if "/" in name or name in (".", ".."):
        raise NetnsError('Invalid netns name "%s"' % name)
    try:
        fd = os.open(os.path.join(NETNS_RUN_DIR, name), os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise NetnsError('Cannot open network namespace "%s": %s' % (name, exc.strerror))
    try:
        _setns(fd)
    except OSError as exc:
        raise NetnsError('setting the network namespace "%s" failed: %s' % (name, exc.strerror))
    finally:
        os.close(fd)


def _send(fd, report):
    data = (json.dumps(report) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def _describe(exc):
    """``ConnectionRefusedError: [Errno 111] Connection refused``: the last line of the traceback."""
    if isinstance(exc, NetnsError):
        return str(exc)
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _child(fd, namespace, func, args, server):
    """The forked child: enter, run, report, and leave without running the parent's exit handlers."""
    code = 1
    try:
        enter(namespace)
        if server:
            args = (lambda: _send(fd, {"ready": True}),) + tuple(args)
        _send(fd, {"result": func(*args)})
        code = 0
    except Exception as exc:  # pylint: disable=broad-except
        # whatever went wrong goes back to the parent, unless it is gone
        try:
            _send(fd, {"error": _describe(exc)})
        except OSError:
            pass
    finally:
        os._exit(code)


class Child(object):
    """``func(*args)`` run in a forked child inside ``namespace`` (``""``: the caller's namespace).

    With ``server``, the function gets one more first argument, ``ready``, to
    call once it listens; :meth:`ready` waits for that. :meth:`result` waits
    for what the function returned. Both raise :class:`NetnsError` with the
    child's words when it fails, and when it does not answer in time (then it
    is killed). Use it as a context manager, or call :meth:`kill`.
    """

    def __init__(self, namespace, func, args=(), server=False):
        self.namespace = namespace
        self.returncode = None
        self._buffer = b""
        self._eof = False
        rfd, wfd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(rfd)
            os.close(wfd)
            raise
        if pid == 0:
            os.close(rfd)
            _child(wfd, namespace, func, args, server)
        os.close(wfd)
        self.pid = pid
        self._fd = rfd

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.kill()

    def _line(self, deadline):
        """The next line the child wrote; None once it closed the pipe. Raises ``socket.timeout`` at the deadline."""
        while b"\n" not in self._buffer:
            if self._eof or self._fd is None:
                return None
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise socket.timeout()
            if select.select([self._fd], [], [], left)[0]:
                chunk = os.read(self._fd, 65536)
                self._buffer += chunk
                self._eof = not chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _next(self, timeout):
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            line = self._line(deadline)
        except socket.timeout:
            self.kill()
            raise NetnsError("no answer within %g s" % timeout)
        if line is None:
            self._reap()
            raise NetnsError("ended without an answer (%s)" % self._status())
        report = json.loads(line.decode())
        if "error" in report:
            self._reap()
            raise NetnsError(report["error"])
        return report

    def ready(self, timeout=None):
        """Wait until the server function calls ``ready()``."""
        if "ready" not in self._next(timeout):
            self.kill()
            raise NetnsError("returned before it listened")

    def result(self, timeout=None):
        """Wait for what the function returns."""
        report = self._next(timeout)
        while "result" not in report:
            report = self._next(timeout)
        self._reap()
        return report["result"]

    def _status(self):
        if self.returncode is not None and self.returncode < 0:
            return "killed by signal %d" % -self.returncode
        return "exit code %s" % self.returncode

    def _reap(self):
        if self.returncode is None:
            _pid, status = os.waitpid(self.pid, 0)
            self.returncode = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def kill(self):
        """Kill the child if it still runs, and reap it."""
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:  # already gone (ProcessLookupError)
                pass
        self._reap()


def start(namespace, func, *args):
    """A server: ``func(ready, *args)`` in a child inside ``namespace``; wait with :meth:`Child.ready`."""
    return Child(namespace, func, args, server=True)


def call(namespace, func, *args, **kwargs):
    """``func(*args)`` in a child inside ``namespace``: what it returns (JSON types), or :class:`NetnsError`.

    ``timeout`` (keyword, seconds, None: no limit) bounds the wait.
    """
    timeout = kwargs.pop("timeout", None)
    if kwargs:
        raise TypeError("call() takes only timeout as a keyword, not %s" % ", ".join(sorted(kwargs)))
    with Child(namespace, func, args) as child:
        return child.result(timeout)


def argument_spec(**options):
    """A traffic module's argument spec: its own ``options`` and protocol, timeout, retries and min_ratio."""
    spec = dict(
        protocol=dict(type="str", choices=["tcp", "udp"], default="tcp"),
        timeout=dict(type="float", default=5.0),
        retries=dict(type="int", default=4),
        min_ratio=dict(type="float", default=1.0),
    )
    spec.update(options)
    return spec


def at_least(name, value, low, fix):
    """A number (not a bool) of at least ``low``; ``None`` or the message naming ``name`` and ``value``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= low:
        return None
    return "%s: %s is below %s; %s" % (name, validate.show(value), low, fix)


def namespace_error(name, value):
    """A namespace the traffic is run in, by the one rule for names; ``""`` is the machine's own namespace."""
    return None if value == "" else validate.netns_name(name, value)


def address_error(name, value):
    """An address a socket binds or connects to without a name lookup: dotted IPv4, or IPv6 (it has a colon)."""
    if isinstance(value, str) and ":" in value:
        try:
            socket.inet_pton(socket.AF_INET6, value)
            return None
        except (OSError, ValueError):
            return "%s: %s is not an IPv6 address; write it as ip -6 addr shows it, for example fd00::4" % (name, validate.show(value))
    return validate.ipv4_address(name, value)


def traffic_errors(params, share_of="the messages that must come back"):
    """The options every traffic module has: ``port``, ``timeout``, ``retries`` and ``min_ratio`` (0..1).

    Returns a list of messages, each naming the option and its bad value.
    """
    errors = [validate.port_number("port", params["port"]),
              at_least("retries", params["retries"], 0, "give 0 (every message sent once) or more"),
              None if isinstance(params["timeout"], (int, float)) and params["timeout"] > 0 else
              "timeout: %s is not above 0; give the seconds to wait for an answer, for example 5" % validate.show(params["timeout"])]
    ratio = params["min_ratio"]
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0 <= ratio <= 1:
        errors.append("min_ratio: %s is outside 0..1; give the share of %s, 1.0 for all of them or 0.9 for nine in ten"
                      % (validate.show(ratio), share_of))
    return [error for error in errors if error]


def drive(module, run, what):
    """``run(module.params)``, the traffic of a module: its outcome, or the module fails.

    It fails with ``<what> failed: <why>`` when ``run`` raises (it could not
    fork, say), and with the outcome's ``error`` when there is one.
    """
    try:
        outcome = run(module.params)
    except (OSError, ValueError) as exc:
        module.fail_json(msg="%s failed: %s" % (what, exc))
    if outcome["error"]:
        module.fail_json(msg=outcome["error"])
    return outcome


def family(address):
    """The socket family of an address: IPv6 when it has a colon."""
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def listen(protocol, address, port, timeout, backlog=1):
    """A bound socket: a TCP listener (``SO_REUSEADDR``, ``backlog``) or a UDP socket; ``timeout`` on it."""
    if protocol == "tcp":
        sock = socket.socket(family(address), socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(backlog)
    else:
        sock = socket.socket(family(address), socket.SOCK_DGRAM)
        sock.bind((address, port))
    sock.settimeout(timeout)
    return sock


def udp_ask(sock, message, destination, timeout, retries, accept):
    """Send a datagram and wait up to ``timeout`` for an answer that ``accept(answer)`` takes.

    An answer ``accept`` refuses (a late answer to an earlier question) is
    skipped. While none comes, the same datagram from the same socket (the
    same flow) is sent again, ``retries`` times spread evenly over
    ``timeout``. Returns ``(answer or None, copies sent again)``.
    """
    step = timeout / (retries + 1)
    sock.sendto(message, destination)
    resent = 0
    end = time.monotonic() + timeout
    again = time.monotonic() + step
    while True:
        now = time.monotonic()
        if now >= end:
            return None, resent
        if now >= again:
            sock.sendto(message, destination)
            resent += 1
            again = now + step
        sock.settimeout(max(min(end, again) - now, 0.001))
        try:
            answer, _peer = sock.recvfrom(65536)
        except socket.timeout:
            continue
        if accept(answer):
            return answer, resent


def snmp_counters():
    """``/proc/net/snmp`` of the calling process's namespace: ``{"Ip": {"InDiscards": 0, ...}, "Udp": {...}, ...}``."""
    with open("/proc/net/snmp") as handle:
        lines = handle.read().splitlines()
    out = {}
    for head, values in zip(lines[0::2], lines[1::2]):
        names, numbers = head.split()[1:], values.split()[1:]
        out[head.split(":")[0]] = dict(zip(names, (int(v) for v in numbers)))
    return out


def counters(namespace):
    """:func:`snmp_counters` of ``namespace``; empty when it cannot be read (no such namespace)."""
    try:
        return call(namespace, snmp_counters, timeout=10)
    except NetnsError:
        return {}


def refuse_bad_options(module, option_errors):
    """Fail the module, before anything runs, with every error ``option_errors(params)`` finds, each naming its option."""
    errors = option_errors(module.params)
    if errors:
        module.fail_json(msg="; ".join(errors), errors=errors)
