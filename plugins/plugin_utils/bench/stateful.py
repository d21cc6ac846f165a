# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``stateful`` option of ``trex_bench``: connections per second through the DUT, with TRex's ASTF client.

A stateful search's load is connections per second (CPS). Each trial starts
the client side's profile at that multiplier for the trial's duration: every
connection sends one request and waits for the whole answer (TCP: TRex's
``http_simple`` shape; UDP: a query and its answer), and a connection counts
as received only when it ended without an error. TRex's counters say so:
``tcps_connattempt`` offered, ``tcps_closed`` minus ``tcps_drops`` and
``tcps_conndrops`` completed (``udps_connects``, ``udps_closed`` minus
``udps_keepdrops`` for UDP). The server side (``rx_server``: the TRex, or
softgen, whose ports are the backends behind the DUT) runs the same profile,
started once and left answering; each trial records what it accepted.

The clients come from ``src_base`` over ``flows`` addresses; the servers are
the scenario's destination: ``dst_base`` over ``destinations`` (routing), the
NAT address (nat) or the VIP (lb), at ``dst_port``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import show_converted

# the smallest request and answer: an HTTP request line with its empty line, a status line with Content-Length
MIN_REQUEST, MIN_RESPONSE, MAX_PAYLOAD = 40, 48, 1 << 20
# the counters a trial records of each side
CLIENT_KEYS = ("tcps_connattempt", "tcps_connects", "tcps_closed", "tcps_drops", "tcps_conndrops", "udps_connects", "udps_closed",
               "udps_keepdrops", "sg_active_flows_max", "sg_first_byte_count", "sg_first_byte_usec_sum", "sg_first_byte_usec_max")
SERVER_KEYS = ("tcps_accepts", "tcps_closed", "tcps_drops", "udps_accepts", "udps_closed", "udps_keepdrops")


def options():
    """The suboptions of ``stateful`` (unset: the stateless search of frames)."""
    return dict(
        request_size=dict(type="int", default=100),
        response_size=dict(type="int", default=1000),
    )


def check(args, errors):
    """What a stateful search needs and what cannot go with it; sets its one "frame size", ``connections``."""
    state = args.get("stateful")
    if not state:
        return
    name = validate.Names()
    for field, low in (("request_size", MIN_REQUEST), ("response_size", MIN_RESPONSE)):
        if not validate.is_int_in(state[field], low, MAX_PAYLOAD):
            errors.append("%s: %s is outside %d..%d bytes" % (name("stateful", field), show_converted(state[field]), low, MAX_PAYLOAD))
    if args["generator"] != "trex" or args["client"] != "trex":
        errors.append("stateful: TRex's ASTF API is in TRex v3's client only; set client: trex (and generator: trex)")
    for option in ("encapsulation", "profile"):
        if args.get(option):
            errors.append("%s: a stateful search sends its own connections; drop %s or stateful" % (option, option))
    if args["direction"] != "uni":
        errors.append("direction: a stateful search's connections go both ways already; use direction uni")
    if isinstance(args["flows"], list):
        errors.append("flows: a stateful search takes one flow count, its clients' addresses; give one number")
    args["frame_sizes"] = [units.CONNECTIONS]


def _http(first_line_text, size, pad_header):
    """An HTTP message of exactly ``size`` bytes: ``first_line_text``, a header that fills it, the empty line."""
    head = "%s\r\n%s: " % (first_line_text, pad_header)
    return (head + "x" * (size - len(head) - 4) + "\r\n\r\n").encode("ascii")


def messages(args):
    """The request and the answer of each connection."""
    state = args["stateful"]
    return (_http("GET /offload.testbed HTTP/1.1", state["request_size"], "X-Fill"),
            _http("HTTP/1.1 200 OK", state["response_size"], "X-Fill"))


def address_range(first, count):
    return [first, str(ipaddress.IPv4Address(first) + max(1, count) - 1)]


def build_profile(astf, args, flows, servers, server):
    """The ASTF profile: one template at 1 connection/s (TRex's multiplier is then the CPS), its programs on either side."""
    request, response = messages(args)
    ip_gen = astf.ASTFIPGen(glob=astf.ASTFIPGenGlobal(ip_offset="1.0.0.0"),
                            dist_client=astf.ASTFIPGenDist(ip_range=address_range(args["src_base"], flows), distribution="seq"),
                            dist_server=astf.ASTFIPGenDist(ip_range=address_range(server, servers), distribution="seq"))
    udp = args["protocol"] == "udp"
    client, served = astf.ASTFProgram(stream=not udp), astf.ASTFProgram(stream=not udp)
    if udp:
        client.send_msg(request)
        client.recv_msg(1)
        served.recv_msg(1)
        served.send_msg(response)
    else:
        client.send(request)
        client.recv(len(response))
        served.recv(len(request))
        served.send(response)
    template = astf.ASTFTemplate(client_template=astf.ASTFTCPClientTemplate(program=client, ip_gen=ip_gen, cps=1, port=args["dst_port"]),
                                 server_template=astf.ASTFTCPServerTemplate(program=served, assoc=astf.ASTFAssociationRule(port=args["dst_port"])))
    return astf.ASTFProfile(default_ip_gen=ip_gen, templates=[template])


def completed(counters, udp):
    """(offered, completed) connections of a client side's counters."""
    if udp:
        return counters.get("udps_connects", 0), counters.get("udps_closed", 0) - counters.get("udps_keepdrops", 0)
    drops = counters.get("tcps_drops", 0) + counters.get("tcps_conndrops", 0)
    return counters.get("tcps_connattempt", 0), counters.get("tcps_closed", 0) - drops


def record(client, server_before, server_after):
    """The connection counters of a trial: the client's, the server side's difference, concurrency and first-byte latency."""
    sides = {"client": {key: client.get(key, 0) for key in CLIENT_KEYS}}
    if server_after is not None:
        sides["server"] = {key: server_after.get(key, 0) - server_before.get(key, 0) for key in SERVER_KEYS}
    count = client.get("sg_first_byte_count", 0)
    extra = {"connections": sides}
    if "sg_active_flows_max" in client:
        extra["concurrent_max"] = client["sg_active_flows_max"]
    if count:
        extra["first_byte_us"] = {"avg": client.get("sg_first_byte_usec_sum", 0) / float(count), "max": client.get("sg_first_byte_usec_max", 0)}
    return extra
