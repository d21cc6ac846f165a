"""softgen's ASTF flows with real sockets on loopback: a client template's connections against its server template.

The client side binds to addresses of 127.0.0.0/8 (IP_TRANSPARENT needs root,
as softgen does); the server listens on a free port of this machine.
"""
import asyncio
import copy

import pytest

from softgen import astf_flows
from softgen.astf_flows import Counters, tcp_client, udp_client
from softgen.astf_program import compile_profile
from softgen.astf_server import Servers
from ansible_collections.offload.testbed.tests.support.free_ports import free_port
from test_astf_program import PROFILE


def lab_profile(tcp_port, udp_port, client_program=None):
    profile = copy.deepcopy(PROFILE)
    profile["ip_gen_dist_list"][0].update(ip_start="127.0.0.2", ip_end="127.0.0.9")
    profile["ip_gen_dist_list"][1].update(ip_start="127.0.0.1", ip_end="127.0.0.1")
    for template, port in zip(profile["templates"], (tcp_port, udp_port)):
        template["client_template"]["port"] = port
        template["server_template"]["assoc"] = [{"port": port}]
    if client_program:
        profile["program_list"][0]["commands"] = client_program
    return compile_profile(profile)["templates"]


def run_flows(templates, count, serve=True):
    """``count`` flows of each template against its server; the client's and the server's counters."""
    async def main():
        loop = asyncio.get_running_loop()
        client, server = Counters(), Counters()
        servers = Servers(loop, server)
        if serve:
            servers.open(templates)
        flows = [(udp_client if t["udp"] else tcp_client)(loop, t, n, client, None) for t in templates for n in range(count)]
        await asyncio.gather(*flows)
        await asyncio.sleep(0.05)
        servers.close()
        return client.total, server.total
    return asyncio.run(main())


def test_each_connection_runs_both_programs_and_closes():
    client, server = run_flows(lab_profile(free_port(), free_port()), 20)
    assert (client["tcps_connattempt"], client["tcps_connects"], client["tcps_closed"], client["tcps_drops"]) == (20, 20, 20, 0)
    assert (server["tcps_accepts"], server["tcps_closed"]) == (20, 20)
    assert (client["tcps_sndbyte"], server["tcps_rcvbyte"]) == (20 * 22, 20 * 22)
    assert (server["tcps_sndbyte"], client["tcps_rcvbyte"]) == (20 * 30, 20 * 30)
    assert (client["udps_connects"], client["udps_closed"], client["udps_sndpkt"], client["udps_rcvpkt"]) == (20, 20, 20, 20)
    assert (server["udps_accepts"], server["udps_rcvpkt"], server["udps_sndpkt"]) == (20, 20, 20)
    assert client["sg_first_byte_count"] == 40 and client["sg_first_byte_usec_max"] > 0
    assert client["m_active_flows"] == server["m_active_flows"] == 0


def test_a_loop_sends_its_request_as_often_as_its_variable_says():
    program = [{"name": "set_var", "id": "var1", "val": 3}, {"name": "tx", "buf_index": 0}, {"name": "jmp_nz", "id": "var1", "offset": -1},
               {"name": "rx", "min_bytes": 30}]
    templates = lab_profile(free_port(), free_port(), program)[:1]
    client, server = run_flows(templates, 2)
    assert (client["tcps_sndtotal"], client["tcps_sndbyte"], client["tcps_closed"]) == (6, 6 * 22, 2)
    assert server["tcps_closed"] == 2


def test_no_server_counts_dropped_connections(monkeypatch):
    monkeypatch.setattr(astf_flows, "FLOW_TIMEOUT", 0.3)
    client, _server = run_flows(lab_profile(free_port(), free_port()), 5, serve=False)
    # TRex's closed counters include the flows that broke off
    assert (client["tcps_connattempt"], client["tcps_connects"], client["tcps_conndrops"], client["tcps_closed"]) == (5, 0, 5, 5)
    # a UDP flow without an answer ends when its wait for one times out
    assert (client["udps_connects"], client["udps_closed"], client["udps_keepdrops"]) == (5, 5, 5)


def test_a_server_that_answers_less_than_the_client_waits_for_drops_the_flow(monkeypatch):
    monkeypatch.setattr(astf_flows, "FLOW_TIMEOUT", 0.3)
    program = [{"name": "tx", "buf_index": 0}, {"name": "rx", "min_bytes": 31}]
    client, server = run_flows(lab_profile(free_port(), free_port(), program)[:1], 3)
    assert (client["tcps_connects"], client["tcps_closed"], client["tcps_drops"]) == (3, 3, 3)
    assert server["tcps_closed"] == 3


def test_clearing_keeps_the_flows_that_are_open():
    counters = Counters()
    counters.add(1, "m_active_flows", 2)
    counters.add(1, "tcps_connects", 2)
    counters.clear()
    assert (counters.total["m_active_flows"], counters.total["tcps_connects"], counters.groups[1]["m_active_flows"]) == (2, 0, 2)


@pytest.mark.parametrize("usec", [10, 30])
def test_first_byte_latency_keeps_sum_count_and_max(usec):
    counters = Counters()
    counters.first_byte(0, usec)
    counters.first_byte(0, 20)
    assert (counters.total["sg_first_byte_count"], counters.total["sg_first_byte_usec_sum"],
            counters.total["sg_first_byte_usec_max"]) == (2, usec + 20, max(usec, 20))
