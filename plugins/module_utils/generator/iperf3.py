# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""iperf3 (``--json``) for the TCP stream measurements: the client and server
command lines, and a parser of the client's JSON report.

What the parser reads of a client's ``iperf3 --json`` report (iperf 3.9 and
3.12 print the same layout; see docs/iperf3.md):

- ``end.sum_sent`` / ``end.sum_received``: ``bits_per_second``, ``bytes``,
  ``seconds``; ``retransmits`` in ``sum_sent`` (Linux and FreeBSD TCP only:
  absent on UDP and on systems without TCP_INFO). The sums leave out the
  intervals omitted with ``--omit``.
- ``end.streams`` (one entry a stream), else ``start.test_start.num_streams``.
- ``end.cpu_utilization_percent``: ``host_*`` is the client, ``remote_*`` the
  server.
- ``start.tcp_mss`` (set with ``--set-mss``) or ``start.tcp_mss_default``,
  ``start.version``, ``start.test_start.protocol``.
- ``error``: on a failure after the report was begun (connection refused, an
  MSS the kernel refuses), iperf3 prints ``{"start": ..., "error": "..."}``
  and, in 3.12, still exits 0. Errors in the command line itself are not JSON
  (``iperf3: parameter error - ...`` on stderr, the usage on stdout).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import socket
import subprocess
import time


IPERF3 = "iperf3"
DEFAULT_PORT = 5201
# iperf3's own limit (``TCP MSS too large (maximum = 9216 bytes)``) and
# Linux's TCP_MIN_MSS (a smaller TCP_MAXSEG is refused with EINVAL).
MSS_MAX = 9216
MSS_MIN = 88
CPU_KEYS = ("host_total", "host_user", "host_system", "remote_total", "remote_user", "remote_system")


class Iperf3Error(Exception):
    """The text is not an iperf3 JSON report; the message says what it is."""


def server_argv(bind, port):
    """A server that handles one client, bound to ``bind``, its report in JSON."""
    return [IPERF3, "--server", "--one-off", "--bind", bind, "--port", str(port), "--json"]


def client_argv(server, port, streams, duration, mss=None, length=None, omit=None, bind=None, zerocopy=False):
    """A TCP client of ``streams`` parallel streams for ``duration`` seconds, its report in JSON.

    ``mss``: ``--set-mss``; ``length``: ``--length`` (the buffer size of a
    write, bytes or with a K/M/G suffix); ``omit``: ``--omit`` seconds of
    slow start left out of the sums (0 or None: none); ``bind``: the client's
    own address; ``zerocopy``: ``--zerocopy`` (sendfile).
    """
    argv = [IPERF3, "--client", server, "--port", str(port), "--parallel", str(streams), "--time", str(duration), "--json"]
    if mss:
        argv += ["--set-mss", str(mss)]
    if length:
        argv += ["--length", str(length)]
    if omit:
        argv += ["--omit", str(omit)]
    if bind:
        argv += ["--bind", bind]
    if zerocopy:
        argv.append("--zerocopy")
    return argv


def load(text):
    """The JSON object iperf3 printed; :class:`Iperf3Error` for anything else."""
    stripped = (text or "").strip()
    if not stripped:
        raise Iperf3Error("iperf3 printed nothing (no JSON report)")
    try:
        doc = json.loads(stripped)
    except ValueError:
        first = stripped.splitlines()[0]
        raise Iperf3Error("iperf3 did not print a JSON report: %s" % (first if len(first) <= 200 else first[:200] + "..."))
    if not isinstance(doc, dict):
        raise Iperf3Error("iperf3 printed JSON that is not a report (a %s, not an object)" % type(doc).__name__)
    return doc


def error_of(doc):
    """The report's ``error`` message, None when there is none."""
    error = doc.get("error")
    if error is None or error == "":
        return None
    return str(error).strip()


def _section(doc, *path):
    """``doc[path[0]][path[1]]...``, ``{}`` wherever a level is missing or not an object."""
    for key in path:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc if isinstance(doc, dict) else {}


def _gbps(summary):
    bps = summary.get("bits_per_second")
    return None if bps is None else bps / 1e9


def _streams(doc):
    streams = _section(doc, "end").get("streams")
    if isinstance(streams, list) and streams:
        return len(streams)
    return _section(doc, "start", "test_start").get("num_streams")


def _cpu(doc):
    cpu = _section(doc, "end", "cpu_utilization_percent")
    return dict((key, cpu.get(key)) for key in CPU_KEYS)


def summary(doc):
    """The measurement of a loaded report, None for whatever it does not hold.

    Keys: sent_gbps, received_gbps, sent_bytes, received_bytes, seconds (of
    the receiver's sum, else the sender's), retransmits, streams, cpu (the six
    ``cpu_utilization_percent`` values), mss, version, protocol, omit,
    error.
    """
    start, end = _section(doc, "start"), _section(doc, "end")
    sent, received = _section(end, "sum_sent"), _section(end, "sum_received")
    test_start = _section(start, "test_start")
    seconds = received.get("seconds", sent.get("seconds"))
    return {
        "sent_gbps": _gbps(sent),
        "received_gbps": _gbps(received),
        "sent_bytes": sent.get("bytes"),
        "received_bytes": received.get("bytes"),
        "seconds": seconds,
        "retransmits": sent.get("retransmits"),
        "streams": _streams(doc),
        "cpu": _cpu(doc),
        "mss": start.get("tcp_mss", start.get("tcp_mss_default")),
        "version": start.get("version"),
        "protocol": test_start.get("protocol"),
        "omit": test_start.get("omit"),
        "error": error_of(doc),
    }


def parse(text):
    """:func:`summary` of the report in ``text``; :class:`Iperf3Error` when it is not one."""
    return summary(load(text))


def _local_address(line):
    """The local address and port of an ``ss -Hltn`` line: ``LISTEN 0 4096 127.0.0.1:5201 0.0.0.0:*``."""
    fields = line.split()
    if len(fields) < 5:
        return None
    address, _sep, port = fields[3].rpartition(":")
    address = address.strip("[]").split("%")[0]
    return address, port


def _is_address(text):
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            socket.inet_pton(family, text)
            return True
        except (socket.error, ValueError):
            pass
    return False


def listening(ss_text, bind, port):
    """Whether ``ss -Hltn`` shows a TCP listener on ``bind`` (or a wildcard address) port ``port``.

    A ``bind`` that is a name, not an address, matches any listener on the port.
    """
    wanted = (bind or "").strip("[]").split("%")[0]
    any_address = not _is_address(wanted)
    for line in (ss_text or "").splitlines():
        local = _local_address(line)
        if local and local[1] == str(port) and (any_address or local[0] in (wanted, "*", "0.0.0.0", "::", "::ffff:" + wanted)):
            return True
    return False


def ss_argv(port):
    """``ss`` listing the TCP listeners on ``port``, without a header."""
    return ["ss", "-Hltn", "sport = :%d" % int(port)]


# The one-off server runs in the background while the client runs to its end (with the module's run_command).
POLL_SECONDS = 0.1
REAP_SECONDS = 5


def start_server(argv, out, err, stdin):
    """The server process, its output to the files ``out`` and ``err``."""
    return subprocess.Popen(argv, stdout=out, stderr=err, stdin=stdin)


def server_exited(proc, seconds):
    """Whether the process exits (and is reaped) within ``seconds``."""
    deadline = time.time() + seconds
    while proc.poll() is None:
        if time.time() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def stop_server(proc, patience):
    """Reap the server, waiting ``patience`` seconds, then terminate and kill it; whether it had exited by itself."""
    if server_exited(proc, patience):
        return True
    proc.terminate()
    if not server_exited(proc, REAP_SECONDS):
        proc.kill()
        proc.wait()
    return False
