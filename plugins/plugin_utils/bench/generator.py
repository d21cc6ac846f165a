# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The generator interface of the bench, and the errors it raises.

:class:`~.run.BenchRun` drives a traffic generator through these few calls
only, so a second generator (iperf3 for the VXLAN offload bench, a DPDK
application for the DPDK-in-a-VM bench) is one class that implements them.
:class:`~.trex.TRexGenerator` implements them with the TRex stateless client.

A generator holds the streams of one frame size at a time (:meth:`load`) and
keeps them across :meth:`connect`: after a lost connection the bench calls
:meth:`connect` again and expects the same streams to be in place.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class BenchError(Exception):
    """A failure with a message meant for the user; the run stops."""


class GeneratorLost(Exception):
    """A trial did not finish: the connection to the generator was lost, its
    subscriber timed out, or its server restarted.  Nothing was measured; the
    bench reconnects and runs the trial again.

    ``reason`` is one line for the user; ``detail`` the client's whole error
    (a traceback, say), which goes to the results file only.
    """

    def __init__(self, reason, detail=None):
        super(GeneratorLost, self).__init__(reason)
        self.reason = reason
        self.detail = detail if detail is not None else reason


class LatencyUnsupported(BenchError):
    """The generator cannot measure latency; the run goes on without it."""


class SoakUnsupported(BenchError):
    """The generator cannot read its counters while traffic runs; the run goes on without a soak."""


def quiet_value(read, sleep, clock, poll, limit):
    """``read()`` once two reads ``poll`` s apart agree, at most ``limit`` s: how a generator closes a trial's
    counting window only when the receiving side is quiet (frames still in flight count in their own trial)."""
    deadline = clock() + limit
    last = read()
    while clock() < deadline:
        sleep(poll)
        now = read()
        if now == last:
            break
        last = now
    return last


class Generator:
    """What the bench needs of a traffic generator.  Loads are aggregate frames
    per second over the transmitting ports; durations are seconds."""

    where = "generator"

    def connect(self):
        """Connect (again) and make the ports ready, with the streams of the
        last :meth:`load` in place.  Raises :class:`BenchError` when nothing
        answers (a wrong address: not worth retrying at once) and
        :class:`GeneratorLost` when the handshake breaks off."""
        raise NotImplementedError

    def info(self):
        """A JSON-serialisable description (address, version) for the results file."""
        raise NotImplementedError

    def load(self, streams):
        """Use ``streams`` (``profile.build_streams`` of one frame size) for the next trials."""
        raise NotImplementedError

    def trial(self, load, duration):
        """Send ``load`` frames/s for ``duration`` s and count what came back.

        Returns a trial record with at least ``offered`` and ``received``
        (frames), ``achieved_load`` (frames/s really sent) and ``started``
        (epoch seconds); the counting window closes only once the receiving
        side is quiet, so late frames of one trial never count in the next.
        Raises :class:`GeneratorLost` when the trial did not finish.
        """
        raise NotImplementedError

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        """A :meth:`trial` of which ``latency_pps`` are latency frames
        (``frame``) of packet group ``pg_id``; the record adds the
        generator's per-group statistics ``tx_pgid_stats`` and
        ``rx_pgid_stats``.  Raises :class:`LatencyUnsupported` when the
        generator cannot measure latency."""
        raise NotImplementedError

    def soak_trial(self, load, duration, interval):
        """A :meth:`trial` whose counters are also read about every ``interval`` s while it runs: the record adds
        ``samples``, ``[{"t": seconds since the start, "offered": frames, "received": frames}]`` (running totals).
        Raises :class:`SoakUnsupported` when the generator cannot read them under traffic."""
        raise SoakUnsupported("generator %s cannot read its counters while traffic runs" % self.where)

    def free_pg_id(self, first):
        """The first packet-group id from ``first`` that the generator has not used."""
        raise NotImplementedError

    def stop(self):
        """Stop the traffic and disconnect; never raises."""
        raise NotImplementedError
