"""``python3 -m softgen --port NAME:NETNS:IFACE ...``: run the software TRex server."""
import argparse
import logging
import os
import signal
import sys

import zmq

from softgen.fastio import TX_MODES
from softgen.fieldengine import DEFAULT_RING_CAP
from softgen.server import SoftGenServer


def parse_port(spec):
    parts = spec.split(":")
    if len(parts) != 3 or not parts[0] or not parts[2]:
        raise argparse.ArgumentTypeError("port must be NAME:NETNS:IFACE (NETNS may be '-' or empty for the current namespace)")
    name, netns, iface = parts
    return name, (netns if netns not in ("", "-") else "-"), iface


def build_parser():
    parser = argparse.ArgumentParser(prog="softgen", description=(
        "Software packet generator speaking the TRex stateless protocol (and the advanced stateful one with --astf)"))
    parser.add_argument("--rpc-port", type=int, default=4501)
    parser.add_argument("--pub-port", type=int, default=4500)
    parser.add_argument("--bind", default="127.0.0.1")
    parser.add_argument("--port", dest="ports", action="append", type=parse_port, required=True,
                        help="NAME:NETNS:IFACE, repeatable; TRex port 0, 1, ... in order; IFACE 'null' is a sink")
    parser.add_argument("--ring-cap", type=int, default=DEFAULT_RING_CAP, help="most precomputed frames per stream")
    parser.add_argument("--tx-mode", choices=TX_MODES, default=TX_MODES[0],
                        help="ring: PACKET_TX_RING, each frame copied into its socket buffer (default); "
                             "ring-frags: PACKET_TX_RING, frames as page fragments of the ring; sendmmsg: no ring")
    parser.add_argument("--priority", choices=("realtime", "normal"), default="realtime",
                        help="realtime (default): the RPC server and the publisher run SCHED_RR, above any ordinary load, so "
                             "that a busy machine cannot silence the heartbeat; the port workers stay at normal priority")
    parser.add_argument("--cpus", type=parse_cpus, default=None,
                        help="CPUs (a list such as 0 or 0,2-3) of the server and its port workers, as taskset would pin "
                             "them: off the datapath's polling cores when generator and DUT share a machine")
    parser.add_argument("--astf", action="store_true",
                        help="TRex's advanced stateful mode (t-rex-64 --astf): ASTF profiles carried out with the kernel's "
                             "sockets in each port's namespace, for TRex's ASTF client")
    parser.add_argument("--astf-side", choices=("client", "server"), default=None,
                        help="with --astf, every port is a client (or a server) port; by default, as TRex, even ports are "
                             "clients and odd ports servers")
    parser.add_argument("--log-file", default=None)
    parser.add_argument("--verbose", action="store_true")
    return parser


def parse_cpus(text):
    """``0,2-3`` -> {0, 2, 3}: the kernel's cpulist form."""
    cpus = set()
    try:
        for part in text.split(","):
            first, _sep, last = part.partition("-")
            cpus.update(range(int(first), int(last or first) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError("--cpus: %r is not a CPU list such as 0 or 0,2-3" % text) from None
    return cpus


# SCHED_RR priority of the server's threads: above every SCHED_OTHER task, low among real-time ones
RT_PRIORITY = 10


def raise_priority(log):
    """Run this process's threads (RPC, publisher, worker readers) above ordinary load; its children do not inherit it.

    SCHED_RR with SCHED_RESET_ON_FORK, so the port workers (busy senders) start as
    ordinary tasks; without the privilege for real-time scheduling, nice -10 and the
    workers put themselves back to nice 0 (portworker.main). Returns what was obtained."""
    try:
        os.sched_setscheduler(0, os.SCHED_RR | os.SCHED_RESET_ON_FORK, os.sched_param(RT_PRIORITY))
        return "SCHED_RR %d" % RT_PRIORITY
    except (OSError, AttributeError) as error:
        log.warning("no real-time priority for softgen (%s); trying nice -10", error)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
        return "nice -10"
    except OSError as error:
        log.warning("softgen runs at normal priority (%s): a busy machine can delay its publisher", error)
        return "normal"


def main(argv=None):
    args = build_parser().parse_args(argv)
    logging.basicConfig(filename=args.log_file, level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.cpus is not None:
        # inherited by the port workers, which are started below
        os.sched_setaffinity(0, args.cpus)
        logging.getLogger("softgen").info("softgen CPUs: %s", ",".join(str(cpu) for cpu in sorted(args.cpus)))
    if args.priority == "realtime":
        logging.getLogger("softgen").info("softgen priority: %s", raise_priority(logging.getLogger("softgen")))
    server = SoftGenServer(args.ports, rpc_port=args.rpc_port, pub_port=args.pub_port, bind=args.bind, ring_cap=args.ring_cap,
                           tx_mode=args.tx_mode, astf=args.astf, astf_side=args.astf_side)

    def _stop(_signum, _frame):
        server.shutdown()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        server.bind()
    except zmq.ZMQError as exc:
        logging.getLogger("softgen").error("cannot bind %s / %s: %s", server.rpc_addr, server.pub_addr, exc)
        return 1
    try:
        server.start_ports()
    except (RuntimeError, OSError) as exc:
        logging.getLogger("softgen").error("%s", exc)
        for port in server.ports:
            port.stop_worker()
        for side in server.astf_sides:
            side.stop_worker()
        return 1
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
