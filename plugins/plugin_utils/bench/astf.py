# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""TRex's ASTF client behind the bench's generator interface: a stateful search's trials (``stateful.py``).

The client side is the server at ``server``/``sync_port``; the server side the
one at ``rx_server`` (without it, one server has both sides: TRex's even ports
are clients, its odd ports servers). Loads are connections per second; a
trial's ``offered`` and ``received`` are connections started and completed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import stateful
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, Generator, GeneratorLost, LatencyUnsupported
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import destination
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.spec import flow_counts
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.trex import check_reachable, error_text, first_line, server_version

# seconds a trial may take beyond its duration while its last connections end (softgen waits up to 5 s at each step)
DRAIN = 30.0


class ASTFGenerator(Generator):
    """A TRex server in ASTF mode (and the one of the servers' side) for a stateful search."""

    def __init__(self, astf, args):
        self.astf = astf
        self.args = args
        self.client = None
        self.server_side = None
        self.where = "%s:%d" % (args["server"], args["sync_port"])
        if args["rx_server"]:
            self.where += " (servers: %s:%d)" % (args["rx_server"]["server"], args["rx_server"]["sync_port"])

    def open_client(self, server, sync_port, async_port):
        check_reachable(server, sync_port, "check the server and its sync_port, and that the TRex server runs in ASTF mode "
                                           "(t-rex-64 --astf, softgen --astf)")
        client = self.astf.ASTFClient(server=server, sync_port=sync_port, async_port=async_port, verbose_level="error")
        try:
            client.connect()
            client.reset()
        except Exception as error:  # pylint: disable=broad-except
            raise GeneratorLost("the TRex server at %s:%d/%d did not take an ASTF client: %s (is it in ASTF mode?)" % (
                server, sync_port, async_port, first_line(error_text(error))), error_text(error))
        return client

    def connect(self):
        """Both sides connected and the profile loaded; the server side started, answering until :meth:`stop`."""
        self.stop()
        args = self.args
        profile = stateful.build_profile(self.astf, args, flow_counts(args)[0], args["destinations"] if args["scenario"] == "routing" else 1,
                                         destination(args))
        rx_server = args["rx_server"]
        try:
            if rx_server:
                self.server_side = self.open_client(rx_server["server"], rx_server["sync_port"], rx_server["async_port"])
                self.server_side.load_profile(profile)
                self.server_side.start(mult=1, duration=-1)
            self.client = self.open_client(args["server"], args["sync_port"], args["async_port"])
            self.client.load_profile(profile)
        except GeneratorLost:
            raise
        except Exception as error:  # pylint: disable=broad-except
            raise GeneratorLost("the ASTF profile did not load on %s: %s" % (self.where, first_line(error_text(error))), error_text(error))

    def info(self):
        info = {"server": self.args["server"], "sync_port": self.args["sync_port"], "client": "trex", "ports": list(self.args["ports"]),
                "mode": "ASTF", "rx_server": self.args["rx_server"]}
        info["version"] = server_version(self.client)
        return info

    def load(self, streams):
        """Nothing to load per search: the connections are the profile's, loaded by :meth:`connect`."""

    def server_counters(self):
        if self.server_side is None:
            return None
        return self.server_side.get_stats()["traffic"]["server"]

    def trial(self, load, duration):
        try:
            return self._trial(load, duration)
        except (BenchError, GeneratorLost):
            raise
        except Exception as error:  # pylint: disable=broad-except
            raise GeneratorLost("the trial at %.1f connections/s did not finish on %s: %s" % (load, self.where, first_line(error_text(error))),
                                error_text(error))

    def _trial(self, load, duration):
        """``load`` connections/s for ``duration`` s; the trial ends when its last connection did."""
        client = self.client
        client.clear_stats()
        before = self.server_counters()
        started = time.time()
        client.start(mult=load, duration=duration, nc=False)
        client.wait_on_traffic(timeout=duration + DRAIN)
        stats = client.get_stats()["traffic"]
        after = self.server_counters()
        offered, done = stateful.completed(stats["client"], self.args["protocol"] == "udp")
        if after is None:
            before, after = {}, stats["server"]
        reply = {"offered": offered, "received": done, "started": started, "achieved_load": offered / duration}
        reply.update(stateful.record(stats["client"], before, after))
        return reply

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        raise LatencyUnsupported("a stateful search measures each connection's first-byte latency (first_byte_us in its trials), "
                                 "not latency streams")

    def free_pg_id(self, first):
        return first

    def stop(self):
        """Traffic stopped and the profile cleared on both sides (softgen then removes its address rule), then disconnect."""
        for client in (self.client, self.server_side):
            if client is None:
                continue
            try:
                client.reset()
            except Exception:  # pylint: disable=broad-except
                pass
            try:
                client.disconnect()
            except Exception:  # pylint: disable=broad-except
                pass
        self.client = self.server_side = None
