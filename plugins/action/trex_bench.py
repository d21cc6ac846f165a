# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action ``offload.testbed.trex_bench``: throughput search through a TRex server, on the controller.

The TRex client runs in the controller's Python and talks to the generator's
server over the network; the task's host is the device under test, on which
the ``dut_health`` module runs before and after every trial.  See
``plugins/modules/trex_bench.py`` for the arguments and ``docs/bench.md``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import io
import os
import socket
import sys
import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.offload.testbed.plugins.module_utils.bench_health import compare_health, health_summary
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.latency import has_latency, latency_points, pg_known, reference_load, summarize
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import (
    build_latency_frame, build_streams, check_args, fingerprint, profile, search_settings)
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.results import (
    Replay, ResumeError, Store, is_generator_limited, now, progress_line)
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.search import DEFAULT_GOALS, search

display = Display()

HEALTH_MODULE = "offload.testbed.dut_health"


class BenchError(Exception):
    """A failure with a message meant for the user."""


class LatencyUnsupported(BenchError):
    """The generator cannot measure latency; the run goes on without it."""


class InvalidTrial(BenchError):
    """The DUT was not healthy during a trial, every retry included."""


def error_text(error):
    """The message of an exception; trex_stl_lib 0.3's STLError.__str__ breaks on Python 3.11, its ``msg`` does not."""
    return getattr(error, "msg", None) or str(error) or type(error).__name__


def load_client(args):
    """The TRex client API module chosen by ``client``/``client_path``."""
    if args["client"] == "trex":
        path = os.path.abspath(os.path.expanduser(args["client_path"]))
        if not os.path.isdir(os.path.join(path, "trex", "stl")):
            raise BenchError("client_path: %s holds no trex/stl package; point it at trex-core's "
                             "scripts/automation/trex_control_plane/interactive of the server's version" % path)
        if path not in sys.path:
            sys.path.insert(0, path)
        name = "trex.stl.api"
    else:
        name = "trex_stl_lib.api"
    try:
        return importlib.import_module(name)
    except Exception as error:  # pylint: disable=broad-except
        raise BenchError("client %s: cannot import %s in the controller's Python %s (%s); install it with "
                         "'pip install trex-stl-lib pyzmq scapy' or set client: trex and client_path"
                         % (args["client"], name, sys.executable, error_text(error)))


def to_trex_stream(api, stream, pps=1):
    """A TRex stream from ``bench_profile.build_streams`` data (rate ``pps``; 1 pps is scaled by start's mult)."""
    instructions = []
    for ins in stream["vm"]:
        if ins["type"] == "flow_var":
            instructions.append(api.STLVmFlowVar(name=ins["name"], min_value=ins["min"], max_value=ins["max"], size=ins["size"], op=ins["op"]))
        elif ins["type"] == "write":
            instructions.append(api.STLVmWrFlowVar(fv_name=ins["name"], pkt_offset=ins["offset"]))
        elif ins["type"] == "fix_checksum_hw":
            fix = api.STLVmFixChecksumHw(l3_offset=ins["l3_offset"], l4_offset=ins["l4_offset"], l4_type=ins["l4_type"])
            # trex-stl-lib 0.3 (PyPI) ignores a numeric l3_offset: it compiles l2_len=0, so the server
            # would checksum the Ethernet header as IPv4 and every varied frame would leave with bad IPv4
            # and UDP/TCP checksums (a conntrack on the DUT drops them). The current client sets
            # l2_len from l3_offset itself; setting it here is the same for both.
            fix.l2_len = ins["l3_offset"]
            instructions.append(fix)
    builder = api.STLPktBuilder(pkt_buffer=stream["frame"], vm=api.STLScVmRaw(instructions) if instructions else None)
    return api.STLStream(packet=builder, mode=api.STLTXCont(pps=pps))


def _us(value):
    return "n/a" if value is None else "%.0f" % value


class ClientOutput(io.TextIOBase):
    """The TRex client prints some events itself (``CPU util. is high`` from its
    subscriber thread), which an Ansible worker must not write to stdout. While
    the bench runs, stdout is this object: each complete line goes to
    ``display.v`` (shown with -v), prefixed with where it came from."""

    def __init__(self):
        super(ClientOutput, self).__init__()
        self._saved = None
        self._partial = ""
        self._busy = False

    def start(self):
        self._saved, sys.stdout = sys.stdout, self

    def stop(self):
        if self._saved is not None:
            sys.stdout, self._saved = self._saved, None
        if self._partial.strip():
            display.v("trex_bench: TRex client: %s" % self._partial.strip())
        self._partial = ""

    def writable(self):
        return True

    def write(self, text):
        if self._busy or self._saved is None:
            # display itself writing (outside a worker, display writes to stdout): pass it through
            return (self._saved or sys.__stdout__).write(text)
        self._busy = True
        try:
            lines = (self._partial + text).split("\n")
            self._partial = lines.pop()
            for line in lines:
                if line.strip():
                    display.v("trex_bench: TRex client: %s" % line.strip())
        finally:
            self._busy = False
        return len(text)


class Generator:
    """The TRex client with the few calls the bench needs."""

    def __init__(self, api, args):
        self.api = api
        self.args = args
        self.client = None
        self.rx_client = None
        self.tx_ports = []
        self.rx_ports = []
        self.streams = []

    def open_client(self, where, server, sync_port, async_port, ports):
        """A connected client of the server at ``server``, which must have ``ports``."""
        try:
            socket.create_connection((server, sync_port), timeout=5).close()
        except (OSError, socket.timeout) as error:
            raise BenchError("no generator reachable: nothing answers at %s:%d (%s); check %s and its sync_port, "
                             "and that the TRex server runs on the generator host" % (server, sync_port, error, where))
        # trex_stl_lib 0.3 takes a LoggerApi level, the current client a level name
        verbose = self.api.LoggerApi.VERBOSE_QUIET if self.args["client"] == "trex_stl_lib" else "error"
        client = self.api.STLClient(server=server, sync_port=sync_port, async_port=async_port, verbose_level=verbose)
        try:
            client.connect()
        except Exception as error:  # pylint: disable=broad-except
            raise BenchError("no generator reachable: the TRex server at %s:%d/%d did not complete the handshake: %s "
                             "(does the client '%s' match the server's version? is async_port right?)"
                             % (server, sync_port, async_port, error_text(error), self.args["client"]))
        available = list(client.get_all_ports())
        missing = [port for port in ports if port not in available]
        if missing:
            try:
                client.disconnect()
            except Exception:  # pylint: disable=broad-except
                pass
            prefix = "ports" if where == "server" else "rx_server.ports"
            raise BenchError("%s: the generator at %s has no port(s) %s; it has %s" % (
                prefix, server, ", ".join(str(port) for port in missing), available))
        return client

    def connect(self):
        args = self.args
        self.client = self.open_client("server", args["server"], args["sync_port"], args["async_port"], args["ports"])
        rx_server = args["rx_server"]
        if rx_server:
            # Only read: the receiving ports keep the configuration of whoever set them up.
            self.rx_client = self.open_client("rx_server", rx_server["server"], rx_server["sync_port"], rx_server["async_port"], rx_server["ports"])
        self.client.reset(ports=args["ports"])
        if args["port_l3"]:
            self.set_l3()

    def set_l3(self):
        args = self.args
        client = self.client
        if args["client"] == "trex":
            # the current client resolves the gateway itself
            for port, cfg in zip(args["ports"], args["port_l3"]):
                client.set_l3_mode(port, cfg["src"], cfg["gateway"])
            return
        client.set_service_mode(ports=args["ports"], enabled=True)
        try:
            for port, cfg in zip(args["ports"], args["port_l3"]):
                if not client.ports[port].set_l3_mode(cfg["src"], cfg["gateway"]):
                    raise BenchError("port_l3: port %d refused L3 mode %s -> %s" % (port, cfg["src"], cfg["gateway"]))
            for port, cfg in zip(args["ports"], args["port_l3"]):
                deadline = time.time() + 10.0
                while True:
                    client.ports[port].sync()
                    if client.ports[port].get_layer_cfg()["ipv4"].get("state") == "resolved":
                        break
                    if time.time() > deadline:
                        raise BenchError("port_l3: port %d could not resolve its gateway %s by ARP within 10 s" % (port, cfg["gateway"]))
                    time.sleep(0.2)
        finally:
            client.set_service_mode(ports=args["ports"], enabled=False)

    def info(self):
        info = {"server": self.args["server"], "sync_port": self.args["sync_port"], "client": self.args["client"], "ports": list(self.args["ports"]),
                "rx_server": self.args["rx_server"]}
        try:
            version = self.client.get_server_version()
            info["version"] = {key: version.get(key) for key in ("version", "mode", "build_date") if key in version}
        except Exception:  # pylint: disable=broad-except
            info["version"] = None
        return info

    def load_streams(self, streams):
        self.streams = streams
        tx_ports = []
        self.client.remove_all_streams(ports=self.args["ports"])
        for stream in streams:
            self.client.add_streams(to_trex_stream(self.api, stream), ports=[stream["port"]])
            tx_ports.append((stream["port"], stream["share"]))
        self.tx_ports = tx_ports
        self.rx_ports = list(self.args["ports"]) if len(streams) > 1 else [self.args["ports"][-1]]

    def received(self):
        """ipackets of the receiving ports: since clear_stats, or a running total on rx_server."""
        if self.rx_client is not None:
            stats = self.rx_client.get_stats(ports=self.args["rx_server"]["ports"])
            return sum(int(stats[port]["ipackets"]) for port in self.args["rx_server"]["ports"])
        stats = self.client.get_stats(ports=self.args["ports"])
        return sum(int(stats[port]["ipackets"]) for port in self.rx_ports)

    def trial(self, load, duration):
        """Send ``load`` frames/s (all transmitting ports together) for ``duration`` s; counters after ``settle``."""
        reply = self.send({port: "%.6fpps" % (load * share) for port, share in self.tx_ports}, duration)
        reply["achieved_load"] = reply["offered"] / duration
        return reply

    def send(self, mults, duration):
        """Start every transmitting port at its multiplier for ``duration`` s; offered and received frames."""
        client = self.client
        ports = [port for port, _share in self.tx_ports]
        client.clear_stats(ports=self.args["ports"])
        before = self.received() if self.rx_client is not None else 0
        started = time.time()
        for port in ports:
            client.start(ports=[port], mult=mults[port], duration=duration, force=True)
        client.wait_on_traffic(ports=ports, timeout=duration + 30)
        if self.args["settle"]:
            time.sleep(self.args["settle"])
        stats = client.get_stats(ports=self.args["ports"])
        offered = sum(int(stats[port]["opackets"]) for port in ports)
        return {"offered": offered, "received": self.received() - before, "started": started}

    def latency_trial(self, load, duration, frame, latency_pps, pg_id):
        """``load`` frames/s for ``duration`` s of which ``latency_pps`` are latency frames of
        packet group ``pg_id``; returns the trial's counters and both servers' pgid statistics.

        The streams are loaded with absolute rates and started at multiplier 1
        (a pps multiplier would scale the latency stream with the traffic);
        the search's streams are put back afterwards.
        """
        client = self.client
        ports = [port for port, _share in self.tx_ports]
        try:
            client.remove_all_streams(ports=self.args["ports"])
            for stream in self.streams:
                client.add_streams(to_trex_stream(self.api, stream, pps=(load - latency_pps) * stream["share"]), ports=[stream["port"]])
            marker = self.api.STLStream(packet=self.api.STLPktBuilder(pkt_buffer=frame), mode=self.api.STLTXCont(pps=latency_pps),
                                        flow_stats=self.api.STLFlowLatencyStats(pg_id=pg_id))
            try:
                client.add_streams(marker, ports=[ports[0]])
            except Exception as error:  # pylint: disable=broad-except
                raise LatencyUnsupported("the generator refused a latency stream: %s" % error_text(error))
            reply = self.send({port: "1" for port in ports}, duration)
            reply["tx_pgid_stats"] = client.get_pgid_stats([pg_id])
            reply["rx_pgid_stats"] = self.rx_client.get_pgid_stats([pg_id]) if self.rx_client is not None else reply["tx_pgid_stats"]
        finally:
            self.load_streams(self.streams)
        return reply

    def free_pg_id(self, first):
        """The first packet group id from ``first`` that neither server knows: a receiving server keeps
        the counters of every group it saw (the bench never clears it), also from earlier runs."""
        pg_id = first
        for _attempt in range(1000):
            try:
                known = any(pg_known(client.get_pgid_stats([pg_id]), pg_id) for client in (self.client, self.rx_client) if client is not None)
            except Exception as error:  # pylint: disable=broad-except
                raise LatencyUnsupported("the generator cannot report packet-group statistics (get_pgid_stats): %s" % error_text(error))
            if not known:
                return pg_id
            pg_id += 1
        raise LatencyUnsupported("packet group ids %d..%d are all in use on the generator; set latency_pg_id elsewhere" % (first, pg_id - 1))

    def stop(self):
        if self.client is not None:
            try:
                self.client.stop(ports=self.args["ports"])
            except Exception:  # pylint: disable=broad-except
                pass

    def disconnect(self):
        for client in (self.client, self.rx_client):
            if client is not None:
                try:
                    client.disconnect()
                except Exception:  # pylint: disable=broad-except
                    pass
        self.client = self.rx_client = None


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset()

    def health(self, task_vars, system=False, interfaces=None):
        """The DUT's health from the ``dut_health`` module on the task's host."""
        module_args = {"system": system}
        if interfaces:
            module_args["interfaces"] = interfaces
        reply = self._execute_module(module_name=HEALTH_MODULE, module_args=module_args, task_vars=task_vars)
        if reply.get("failed"):
            raise BenchError("dut_health on %s failed: %s (set dut_health: false to benchmark without it)"
                             % (task_vars.get("inventory_hostname"), reply.get("msg")))
        return reply

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        args, errors = check_args(dict(self._task.args))
        if errors:
            result.update(failed=True, msg="trex_bench: invalid arguments, nothing was sent:\n- " + "\n- ".join(errors), errors=errors)
            return result
        if args["goals"] is None:
            args["goals"] = [dict(goal) for goal in DEFAULT_GOALS]
        if args["run_id"] is None:
            args["run_id"] = "%s-%s-%s-%s" % (args["datapath"], args["scenario"], args["protocol"], time.strftime("%Y%m%dT%H%M%S", time.gmtime()))
        streams = {size: build_streams(args, size) for size in args["frame_sizes"]}
        if self._task.check_mode:
            result.update(changed=False, skipped=False, msg="check mode: arguments are valid; no traffic sent, nothing written",
                          run_id=args["run_id"])
            return result
        api = None
        generator = None
        store = None
        client_output = ClientOutput()
        try:
            client_output.start()
            api = load_client(args)
            results_dir = os.path.abspath(os.path.expanduser(args["results_dir"]))
            try:
                os.makedirs(results_dir, exist_ok=True)
            except OSError as error:
                raise BenchError("results_dir: cannot create %s: %s" % (results_dir, error))
            generator = Generator(api, args)
            generator.connect()
            health = self.health(task_vars, system=True, interfaces=args["dut_interfaces"]) if args["dut_health"] else None
            if health is not None and health.get("pid") is None:
                raise BenchError("dut_health: ovs-vswitchd is not running on %s; start it, or set dut_health: false "
                                 "for a DUT without Open vSwitch" % task_vars.get("inventory_hostname"))
            header = {
                "datapath": args["datapath"],
                "goals": args["goals"],
                "search": search_settings(args),
                "metadata": dict(args["metadata"], dut_host=task_vars.get("inventory_hostname"), controller=socket.gethostname(),
                                 dut_system=(health or {}).get("system")),
                "generator": generator.info(),
            }
            store = Store(results_dir, args["run_id"], fingerprint(args), header)
            store.save()
            summaries = self.run_searches(args, generator, streams, store, task_vars)
            store.finish("complete")
        except (BenchError, ResumeError) as error:
            return self.fail(result, store, str(error))
        except Exception as error:  # pylint: disable=broad-except
            return self.fail(result, store, "%s: %s" % (type(error).__name__, error_text(error)))
        finally:
            if generator is not None:
                generator.stop()
                generator.disconnect()
            client_output.stop()
        result.update(
            changed=store.measured > 0,
            run_id=args["run_id"],
            results_file=store.path,
            csv_file=store.csv_path,
            resumed=store.resumed,
            searches=summaries,
        )
        stats = {"trex_bench": {args["run_id"]: [{"frame_size": item["profile"]["frame_size"], "scenario": args["scenario"], "protocol": args["protocol"],
                                                  "goals": {name: goal["lower_bound"] for name, goal in item["goals"].items()}} for item in summaries]}}
        result["ansible_stats"] = {"data": stats, "per_host": False, "aggregate": True}
        return result

    def fail(self, result, store, message):
        where = ""
        if store is not None:
            try:
                store.finish("failed", message)
            except Exception:  # pylint: disable=broad-except
                pass
            where = "; every finished trial is in %s: run again with run_id=%s to resume" % (store.path, store.run_id)
        result.update(failed=True, msg="trex_bench: %s%s" % (message, where))
        if store is not None:
            result["results_file"] = store.path
        return result

    def run_searches(self, args, generator, streams, store, task_vars):
        summaries = []
        settings = search_settings(args)
        sizes = args["frame_sizes"]
        expected = len(args["goals"]) * 2 * args["final_duration"] + 6 * args["initial_duration"]
        run_started = time.time()
        for position, size in enumerate(sizes):
            entry = store.search_entry(profile(args, size))
            if entry["status"] == "complete":
                display.display("trex_bench %s: frame size %d already complete in %s" % (store.run_id, size, store.path))
                generator.load_streams(streams[size])
                self.run_latency(args, generator, store, entry, size)
                summaries.append({"profile": entry["profile"], "goals": entry["result"]["goals"], "trial_seconds": entry["result"]["trial_seconds"],
                                  "trials": entry["result"]["trials"], "latency": entry.get("latency")})
                continue
            generator.load_streams(streams[size])
            if args["warmup_duration"] > 0:
                reply = generator.trial(settings["warmup_load"], args["warmup_duration"])
                entry["warmup"] = {"load": settings["warmup_load"], "duration": args["warmup_duration"], "offered": reply["offered"],
                                   "received": reply["received"], "time": now()}
                store.save()
                display.display("trex_bench %s: %d B warm-up %.1f pps x %.2f s: sent %d received %d" % (
                    store.run_id, size, settings["warmup_load"], args["warmup_duration"], reply["offered"], reply["received"]))
            recorded = list(entry["trials"])
            pending = {}

            def measure(load, duration):
                return self.measure(args, generator, store, entry, pending, load, duration, task_vars)

            def on_trial(trial):
                index = trial["index"]
                if index < len(recorded):
                    trial = dict(recorded[index], replayed=True)
                else:
                    trial = dict(trial, **pending.pop("extra", {}))
                    store.add_trial(entry, trial)
                    store.measured += 1
                left = max(0.0, expected - sum(item["duration"] for item in entry["trials"])) + expected * (len(sizes) - position - 1)
                display.display("trex_bench %s %d B: %s" % (store.run_id, size, progress_line(index, trial, time.time() - run_started, left)))

            replay = Replay(recorded, measure)
            result = search(replay, args["max_load"], goals=args["goals"], min_load=settings["min_load"], final_duration=args["final_duration"],
                            width=args["width"], initial_duration=args["initial_duration"], on_trial=on_trial, max_trials=args["max_trials"],
                            upper_bound_duration=args["upper_bound_duration"])
            final = store.finish_search(entry, result, args["max_load"])
            display.display("trex_bench %s %d B: %s" % (store.run_id, size, ", ".join(
                "%s %.1f pps%s" % (name, goal["lower_bound"], " (generator-limited)" if goal["generator_limited"] else "")
                for name, goal in final["goals"].items())))
            self.run_latency(args, generator, store, entry, size)
            summaries.append({"profile": entry["profile"], "goals": final["goals"], "trial_seconds": final["trial_seconds"], "trials": final["trials"],
                              "latency": entry.get("latency")})
        return summaries

    def run_latency(self, args, generator, store, entry, size):
        """Latency at ``latency_loads`` x the PDR of a finished search, one trial per load, each saved as it ends.

        A generator that refuses latency streams ends the latency part of the
        run (recorded as skipped), not the run. Points already in the file
        (a resumed run) are not measured again.
        """
        if not args["latency_loads"] or (entry.get("latency") or {}).get("skipped"):
            return
        goal, reference = reference_load(entry["result"]["goals"])
        latency = entry.setdefault("latency", {"reference_goal": goal, "reference_load": reference, "points": [], "skipped": None})
        if reference <= 0:
            latency["skipped"] = "no goal has a lower bound above 0 frames/s"
            store.save()
            return
        duration = args["latency_duration"] if args["latency_duration"] is not None else args["final_duration"]
        frame = build_latency_frame(args, size)
        done = set(point["fraction"] for point in latency["points"])
        for point in latency_points(entry["result"]["goals"], args["latency_loads"], args["latency_pps"]):
            if point["fraction"] in done:
                continue
            try:
                # a packet group neither server has seen: the receiving server's counters are never cleared
                pg_id = generator.free_pg_id(store.document.get("latency_next_pg_id", args["latency_pg_id"]))
                store.document["latency_next_pg_id"] = pg_id + 1
                store.save()
                reply = generator.latency_trial(point["load"], duration, frame, point["latency_pps"], pg_id)
            except LatencyUnsupported as error:
                latency["skipped"] = str(error)
                store.save()
                display.warning("trex_bench %s %d B: no latency: %s" % (store.run_id, size, error))
                return
            if not has_latency(reply["rx_pgid_stats"], pg_id):
                latency["skipped"] = ("the generator reported no latency statistics for packet group %d: it accepted the latency stream "
                                      "but does not measure latency" % pg_id)
                store.save()
                display.warning("trex_bench %s %d B: no latency: %s" % (store.run_id, size, latency["skipped"]))
                return
            lost = reply["offered"] - reply["received"]
            record = dict(point, duration=duration, pg_id=pg_id, frame_size=len(frame) + 4, offered=reply["offered"], received=reply["received"],
                          loss_ratio=(lost / reply["offered"]) if reply["offered"] else 1.0,
                          time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reply["started"])))
            record.update(summarize(reply["tx_pgid_stats"], reply["rx_pgid_stats"], pg_id))
            latency["points"].append(record)
            store.save()
            display.display("trex_bench %s %d B: latency at %.0f%% of %s (%.1f pps): min %s avg %s max %s us, 99%% <= %s us, %s of %s latency frames back" % (
                store.run_id, size, point["fraction"] * 100, goal, point["load"], _us(record["min_us"]), _us(record["avg_us"]), _us(record["max_us"]),
                _us(record["percentiles_us"].get("99")), record["latency_received"], record["latency_sent"]))

    def measure(self, args, generator, store, entry, pending, load, duration, task_vars):
        """One valid trial: health before and after, retried when the DUT was not healthy."""
        attempts = 0
        while True:
            before = self.health(task_vars) if args["dut_health"] else None
            reply = generator.trial(load, duration)
            after = self.health(task_vars) if args["dut_health"] else None
            reasons = compare_health(before, after)
            extra = {
                "achieved_load": reply["achieved_load"],
                "generator_limited": is_generator_limited(load, duration, reply["offered"]),
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reply["started"])),
            }
            if args["dut_health"]:
                extra["health_before"] = health_summary(before)
                extra["health_after"] = health_summary(after)
            if not reasons:
                pending["extra"] = extra
                return {"offered": reply["offered"], "received": reply["received"], "achieved_load": reply["achieved_load"]}
            lost = reply["offered"] - reply["received"]
            invalid = dict(extra, load=load, duration=duration, offered=reply["offered"], received=reply["received"],
                           loss_ratio=(lost / reply["offered"]) if reply["offered"] else 1.0, invalid=reasons)
            store.add_invalid(entry, invalid)
            display.warning("trex_bench %s: trial at %.1f pps x %.2f s is INVALID: %s" % (store.run_id, load, duration, "; ".join(reasons)))
            attempts += 1
            if attempts > args["retries"]:
                raise InvalidTrial("the DUT was not healthy during %d attempt(s) of the trial at %.1f pps x %.2f s: %s"
                                   % (attempts, load, duration, "; ".join(reasons)))
