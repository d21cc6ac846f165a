# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The current TRex client (PyPI's lbr-trex-client) in a process of its own, for the unit tests.

It brings TRex's patched scapy 2.4.3, which cannot share a process with the old client
(trex-stl-lib on the system's scapy) the tests run in. Run as
``python current_trex_client.py MODE`` with a JSON request on stdin; prints a JSON reply:

``offsets``
    ``{"packets": [{"frame": hex, "fields": [...], "layers": [...]}], "programs": [...]}``:
    what the current client's packet builder resolves each named field and layer of each
    frame to, and the compiled field-engine instructions of each program
    (``{"frame": hex, "vm": [[class name, keyword arguments], ...]}``).
``api``
    ``{"calls": [[method, args, kwargs], ...], "stream": {...}}``: the current client as
    ``trex.load_client("trex", None)`` loads it (the collection on ``PYTHONPATH``), whether
    ``STLClient`` takes each call the adapter makes, what ``disarm`` does to a client,
    and the compiled instructions of the adapter's stream.
``after-old``
    ``{}``: the old client first (as a loop of the bench runs it in one Ansible worker), then the current
    client's ASTF API: where each came from and the ZeroMQ binding the current one uses.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import inspect
import json
import signal
import sys
import warnings


def compile_program(api, program):
    """The compiled instructions of a stream of ``program["frame"]`` with ``program["vm"]``."""
    instructions = [getattr(api, name)(**kwargs) for name, kwargs in program["vm"]]
    builder = api.STLPktBuilder(pkt_buffer=bytes.fromhex(program["frame"]), vm=api.STLScVmRaw(instructions))
    return api.STLStream(packet=builder, mode=api.STLTXCont(pps=1)).to_json()["vm"]["instructions"]


def offsets(request):
    importlib.import_module("lbr_trex_client")
    api = importlib.import_module("trex.stl.api")
    reply = {"scapy": sys.modules["scapy"].__file__, "packets": [], "programs": []}
    for packet in request["packets"]:
        frame = bytes.fromhex(packet["frame"])
        fields = {name: list(api.STLPktBuilder(pkt_buffer=frame)._name_to_offset(name)) for name in packet["fields"]}
        layers = {name: api.STLPktBuilder(pkt_buffer=frame)._pkt_layer_offset(name) for name in packet["layers"]}
        reply["packets"].append({"fields": fields, "layers": layers})
    reply["programs"] = [compile_program(api, program) for program in request["programs"]]
    return reply


def refused_calls(client_class, calls):
    """``method: error`` for each call of ``calls`` that ``client_class``'s signatures do not take."""
    refused = {}
    for method, args, kwargs in calls:
        try:
            inspect.signature(getattr(client_class, method)).bind(None, *args, **kwargs)
        except (AttributeError, TypeError) as error:
            refused[method] = str(error)
    return refused


def guarded(trex, api):
    """A client before and after ``disarm``, and what a subscriber crash does then."""
    client = api.STLClient(server="127.0.0.1", sync_port=1, async_port=2, verbose_level="error")
    before = client.conn.async_.get_timeout_sec()
    trex.disarm(client)
    causes = []
    client.conn.is_connected = lambda: True
    client.conn.mark_for_disconnect = causes.append
    try:
        raise RuntimeError("the subscriber broke")
    except RuntimeError as error:
        # without the guard, the client sends SIGTERM to this process here
        client.ctx.event_handler.on_event("subscriber crashed", error)
    return {"timeout_before": before, "timeout_after": client.conn.async_.get_timeout_sec(), "crash_causes": causes}


def signals_on_a_lost_connection(trex, api, disarmed):
    """The signals this process gets when a connection is lost during an API call (which turns on
    ``sigint_on_conn_lost`` first), with the client disarmed or as the client comes."""
    client = api.STLClient(server="127.0.0.1", sync_port=1, async_port=2, verbose_level="error")
    if disarmed:
        trex.disarm(client)
    got = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: got.append(signal.Signals(signum).name))
    try:
        client.conn.sigint_on_conn_lost_enable()
        client.conn.mark_for_disconnect("the server went away")
    finally:
        signal.signal(signal.SIGINT, previous)
    return {"signals": got, "cause": client.conn.get_disconnection_cause()}


def api_check(request):
    trex = importlib.import_module("ansible_collections.offload.testbed.plugins.plugin_utils.bench.trex")
    api = trex.load_client("trex", None)
    stream = dict(request["stream"], frame=bytes.fromhex(request["stream"]["frame"]))
    return {"api": api.__file__, "scapy": sys.modules["scapy"].__file__, "has_logger_api": hasattr(api, "LoggerApi"),
            "refused": refused_calls(api.STLClient, request["calls"]), "guard": guarded(trex, api),
            "lost": {"as_it_comes": signals_on_a_lost_connection(trex, api, False), "disarmed": signals_on_a_lost_connection(trex, api, True)},
            "subscriber_timeout": trex.SUBSCRIBER_TIMEOUT,
            "stream": trex.to_trex_stream(api, stream).to_json()["vm"]["instructions"]}


def after_old(_request):
    trex = importlib.import_module("ansible_collections.offload.testbed.plugins.plugin_utils.bench.trex")
    old = trex.load_client("trex_stl_lib", None)
    astf = trex.load_client("trex", None, stateful=True)
    return {"old": old.__file__, "astf": astf.__file__, "client": astf.ASTFClient.__name__, "zmq": sys.modules["zmq.context"].__file__}


def main():
    warnings.simplefilter("ignore")
    request = json.load(sys.stdin)
    reply = {"offsets": offsets, "api": api_check, "after-old": after_old}[sys.argv[1]](request)
    json.dump(reply, sys.stdout)


if __name__ == "__main__":
    main()
