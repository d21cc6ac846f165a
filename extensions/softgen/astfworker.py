"""One port's side of an ASTF profile: a process in the port's namespace that opens and answers real connections.

Started by the server (ASTF mode, :mod:`softgen.rpc_astf`) as ``python3 -m
softgen.astfworker --netns NS --iface IF --side client|server``; JSON
commands on stdin, JSON events on stdout, one object a line, as
:mod:`softgen.portworker`:

- ``load`` (``profile``: the profile's JSON, compiled by :mod:`softgen.astf_program`):
  a server side listens on the templates' ports;
- ``start`` (``mult``, ``duration``, ``share``, ``nc``): a client side opens
  each template's connections at ``cps x mult x share`` a second for
  ``duration`` s (-1: until ``stop``), then waits for the open flows to end
  (``nc``: closes them at once), and reports ``done``;
- ``update`` (``mult``), ``stop``, ``clear`` (counters), ``sync`` (counters now), ``unload``, ``quit``.

Events: ``hello``, ``stats`` (``counters``: :class:`softgen.astf_flows.Counters`,
four times a second while they change), ``done``, ``error``.

While a profile is loaded every address that arrives on the interface is
local to the namespace (``ip rule iif IF lookup`` a table of its own, 4242 plus
the interface's index, whose default route is local), so client sockets bound to the profile's client range
(``IP_TRANSPARENT``) get their answers and the server side answers any address
a NAT or a load balancer sent the flow to; ``arp_ignore`` 1 keeps the
kernel answering ARP for the interface's own addresses only. The rule goes
with ``unload`` and when the worker ends.
"""
import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import time

from softgen import fastio
from softgen.astf_flows import Counters, tcp_client, udp_client
from softgen.astf_program import compile_profile
from softgen.astf_server import Servers

# the rule's priority (before the main table's 32766) and the first of its tables (plus the interface's index)
RULE_PRIORITY = 4242
RULE_TABLE_BASE = 4242
STATS_INTERVAL = 0.25
TICK = 0.002


def emit(**event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def rule_table(iface):
    """The routing table of ``iface``'s rule: one per interface, so that two ports in one namespace keep theirs apart."""
    try:
        return str(RULE_TABLE_BASE + socket.if_nametoindex(iface))
    except OSError:
        return str(RULE_TABLE_BASE)


def local_rule(iface, present):
    """Make every address arriving on ``iface`` local (``present``), or undo it; returns the errors of ``ip``."""
    table = rule_table(iface)
    commands = [["ip", "rule", "del", "iif", iface, "lookup", table],
                ["ip", "route", "flush", "table", table]]
    if present:
        commands += [["ip", "route", "replace", "local", "0.0.0.0/0", "dev", "lo", "table", table],
                     ["ip", "rule", "add", "iif", iface, "lookup", table, "priority", str(RULE_PRIORITY)],
                     ["sysctl", "-qw", "net.ipv4.conf.%s.arp_ignore=1" % iface]]
    errors = []
    for position, command in enumerate(commands):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode and position >= 2:
            errors.append("%s: %s" % (" ".join(command), done.stderr.strip()))
    return errors


class Worker:
    """The asyncio side of the worker: the loaded profile, the client run in progress, the server's listeners."""

    def __init__(self, loop, iface, side):
        self.loop = loop
        self.iface = iface
        self.side = side
        self.counters = Counters()
        self.templates = []
        self.servers = None
        self.run_task = None
        self.flows = set()
        self.last = None
        self.mult = 1.0
        self.quit = asyncio.Event()

    def command(self, line):
        try:
            cmd = json.loads(line)
        except ValueError:
            emit(ev="error", msg="not JSON: %r" % line[:80])
            return
        handler = getattr(self, "on_" + str(cmd.get("cmd")), None)
        if handler is None:
            emit(ev="error", msg="unknown command %r" % cmd.get("cmd"))
            return
        try:
            handler(cmd)
        except (OSError, ValueError, KeyError) as error:
            # a listener's port taken, a profile it cannot run (the server checked it first): said, and the worker goes on
            emit(ev="error", msg="%s: %s" % (cmd.get("cmd"), error))
        if "ack" in cmd:
            self.publish(force=True)
            emit(ev="ack", id=cmd["ack"])

    def on_load(self, cmd):
        self.on_unload(cmd)
        self.templates = compile_profile(cmd["profile"])["templates"]
        for error in local_rule(self.iface, True):
            emit(ev="error", msg=error)
        if self.side == "server":
            self.servers = Servers(self.loop, self.counters)
            self.servers.open(self.templates)

    def on_unload(self, _cmd):
        self.on_stop(_cmd)
        if self.servers is not None:
            self.servers.close()
            self.servers = None
        if self.templates:
            local_rule(self.iface, False)
        self.templates = []

    def on_start(self, cmd):
        if self.side != "client" or not self.templates:
            return
        self.on_stop(cmd)
        self.run_task = self.loop.create_task(self.run(cmd))

    def on_update(self, cmd):
        """A new multiplier for the run in progress, from now on (TRex's ``update``)."""
        self.mult = cmd["mult"]

    def on_stop(self, _cmd):
        if self.run_task is not None and not self.run_task.done():
            self.run_task.cancel()
        for flow in list(self.flows):
            flow.cancel()

    def on_sync(self, _cmd):
        """Nothing to do: the ack that follows carries the counters as they are now."""

    def on_clear(self, _cmd):
        self.counters.clear()

    def on_quit(self, cmd):
        self.on_unload(cmd)
        self.quit.set()

    async def run(self, cmd):
        """Open the templates' flows at their rates for the run's duration; ``done`` once they ended."""
        self.mult = cmd.get("mult", 1.0)
        duration = cmd.get("duration", -1)
        opened = [0] * len(self.templates)
        rng = random.Random(cmd.get("seed", 0))
        started = time.monotonic()
        try:
            await self.open_flows(cmd.get("share", 1.0), duration, opened, rng)
            if cmd.get("nc"):
                self.on_stop(cmd)
            while self.flows:
                await asyncio.wait(set(self.flows))
        finally:
            self.publish(force=True)
            emit(ev="done", run=cmd.get("run", 0), opened=sum(opened), seconds=time.monotonic() - started)

    async def open_flows(self, share, duration, opened, rng):
        """Each template's flows at ``cps x mult x share`` a second; a new ``mult`` (``update``) counts from its time on."""
        started = since = time.monotonic()
        mult, base = self.mult, list(opened)
        while duration < 0 or time.monotonic() - started < duration:
            if self.mult != mult:
                mult, base, since = self.mult, list(opened), time.monotonic()
            elapsed = time.monotonic() - since
            for index, template in enumerate(self.templates):
                due = base[index] + int(template["client"]["cps"] * mult * share * elapsed) + 1
                limit = template["client"].get("limit")
                while opened[index] < due and (not limit or opened[index] < limit):
                    self.open_flow(template, opened[index], rng)
                    opened[index] += 1
            await asyncio.sleep(TICK)

    def open_flow(self, template, serial, rng):
        flow = (udp_client if template["udp"] else tcp_client)(self.loop, template, serial, self.counters, rng)
        task = self.loop.create_task(flow)
        self.flows.add(task)
        task.add_done_callback(self.flows.discard)

    def publish(self, force=False):
        snapshot = self.counters.snapshot()
        if force or snapshot != self.last:
            self.last = snapshot
            emit(ev="stats", counters=snapshot, ts=time.monotonic())

    async def stats_loop(self):
        while not self.quit.is_set():
            self.publish()
            await asyncio.sleep(STATS_INTERVAL)


async def serve(iface, side):
    loop = asyncio.get_running_loop()
    worker = Worker(loop, iface, side)
    reader = asyncio.StreamReader(limit=1 << 26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    stats = loop.create_task(worker.stats_loop())
    emit(ev="hello", side=side)
    try:
        while not worker.quit.is_set():
            line = await reader.readline()
            if not line:
                break
            worker.command(line.decode())
    finally:
        worker.on_quit({})
        stats.cancel()


def main(argv=None):
    parser = argparse.ArgumentParser(description="softgen ASTF worker")
    parser.add_argument("--netns", default="-")
    parser.add_argument("--iface", required=True)
    parser.add_argument("--side", choices=("client", "server"), required=True)
    args = parser.parse_args(argv)
    fastio.enter_netns(args.netns)
    asyncio.run(serve(args.iface, args.side))
    return 0


if __name__ == "__main__":
    sys.exit(main())
