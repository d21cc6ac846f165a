"""trex_bench's stateful search: the option's checks, the ASTF profile it builds (with TRex's own client classes), and a
trial's counts read from TRex's counters, over a fake ASTF client that answers as TRex's does."""
import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import stateful
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.astf import ASTFGenerator
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import GeneratorLost, LatencyUnsupported
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import profile as bp

from test_bench_spec import validate

TASK = {"results_dir": "/tmp/r", "client": "trex", "scenario": "lb", "lb_vip": "18.0.0.172", "protocol": "tcp", "flows": 100,
        "src_base": "48.0.0.1", "dst_port": 80, "stateful": {}}


def checked(**task):
    refused, args, errors = validate(dict(TASK, **task))
    assert refused == [] and errors == [], (refused, errors)
    return args


def test_a_stateful_search_has_one_frame_size_connections_and_records_its_messages():
    args = checked()
    assert args["stateful"] == {"request_size": 100, "response_size": 1000} and args["frame_sizes"] == [units.CONNECTIONS]
    assert bp.build_streams(args, units.CONNECTIONS, 100) == [] and bp.build_latency_frame(args, units.CONNECTIONS) is None
    assert bp.profile(args, units.CONNECTIONS)["stateful"] == {"request_size": 100, "response_size": 1000}
    request, response = stateful.messages(args)
    assert (len(request), len(response)) == (100, 1000)
    assert request.startswith(b"GET /offload.testbed HTTP/1.1\r\n") and response.startswith(b"HTTP/1.1 200 OK\r\n")
    assert request.endswith(b"\r\n\r\n") and response.endswith(b"\r\n\r\n")


@pytest.mark.parametrize("task, message", [
    ({"client": "trex_stl_lib"}, "stateful: TRex's ASTF API is in TRex v3's client only; set client: trex (and generator: trex)"),
    ({"stateful": {"request_size": 10}}, "stateful.request_size: 10 is outside 40..1048576 bytes"),
    ({"stateful": {"response_size": 2 << 20}}, "stateful.response_size: 2097152 is outside 48..1048576 bytes"),
    ({"encapsulation": {"type": "vxlan"}}, "encapsulation: a stateful search sends its own connections; drop encapsulation or stateful"),
    ({"scenario": "routing", "direction": "bidir"}, "direction: a stateful search's connections go both ways already; use direction uni"),
    ({"flows": [10, 100]}, "flows: a stateful search takes one flow count, its clients' addresses; give one number"),
])
def test_what_a_stateful_search_cannot_do_is_refused_by_name(task, message):
    refused, _args, errors = validate(dict(TASK, **task))
    assert refused == [] and message in errors, errors


def test_the_units_of_a_stateful_search_are_connections_per_second():
    assert units.size_text(units.CONNECTIONS) == "connections" and units.gbps_l1(1000.0, units.CONNECTIONS) is None
    assert units.line_share(1000.0, units.CONNECTIONS, 25) is None
    assert units.rate_text(1500.0, units.CONNECTIONS) == "1.5 kcps" and units.rate_text(1500.0, 64) == "1.5 kpps"
    assert sorted([units.CONNECTIONS, 1518, units.IMIX, 64], key=units.size_order) == [64, units.IMIX, 1518, units.CONNECTIONS]


class FakeASTF:
    """TRex's ASTF API module as far as the generator uses it: the profile classes record what they were given."""

    def __init__(self, server_counters):
        self.server_counters = server_counters
        self.clients = []

    def __getattr__(self, name):
        if name.startswith("ASTF") and name != "ASTFClient":
            return lambda *args, **kwargs: (name, args, kwargs)
        raise AttributeError(name)

    def ASTFProgram(self, stream=True):  # pylint: disable=invalid-name
        return FakeProgram(stream)

    def ASTFClient(self, **kwargs):  # pylint: disable=invalid-name
        client = FakeClient(kwargs, self.server_counters)
        self.clients.append(client)
        return client


class FakeProgram:
    def __init__(self, stream):
        self.stream = stream
        self.steps = []

    def __getattr__(self, name):
        return lambda *args: self.steps.append((name,) + args)


class FakeClient:
    """Connections start at the multiplier's rate; 2 % of them end in a drop (TRex's tcps_closed counts them too)."""

    def __init__(self, kwargs, server_counters):
        self.kwargs = kwargs
        self.calls = []
        self.server_counters = server_counters
        self.started = None

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))

    def start(self, mult, duration, nc=False):
        self.calls.append(("start", mult, duration, nc))
        self.started = (mult, duration)

    def get_stats(self):
        if self.started is None:
            return {"traffic": {"client": {}, "server": dict(self.server_counters)}}
        offered = int(self.started[0] * self.started[1])
        drops = offered // 50
        return {"traffic": {"client": {"tcps_connattempt": offered, "tcps_connects": offered - drops, "tcps_closed": offered,
                                       "tcps_conndrops": drops, "sg_active_flows_max": 7, "sg_first_byte_count": 10,
                                       "sg_first_byte_usec_sum": 1500, "sg_first_byte_usec_max": 400}, "server": {}}}


def test_a_trial_counts_connections_started_and_completed_and_what_the_servers_accepted(monkeypatch):
    monkeypatch.setattr("socket.create_connection", lambda *_args, **_kwargs: type("S", (), {"close": lambda self: None})())
    args = checked(ports=[0], rx_server={"server": "127.0.0.1", "sync_port": 4531, "async_port": 4530, "ports": [0, 1, 2]})
    accepted = {"tcps_accepts": 100}
    astf = FakeASTF(accepted)
    generator = ASTFGenerator(astf, args)
    generator.connect()
    servers, clients = astf.clients
    # the servers' side: loaded and started once, answering until the end; the clients' side: loaded only
    assert [call[0] for call in servers.calls] == ["connect", "reset", "load_profile", "start"] and servers.started == (1, -1)
    assert [call[0] for call in clients.calls] == ["connect", "reset", "load_profile"]
    reply = generator.trial(500.0, 2.0)
    assert (reply["offered"], reply["received"], reply["achieved_load"]) == (1000, 980, 500.0)
    assert reply["connections"]["client"]["tcps_conndrops"] == 20 and reply["concurrent_max"] == 7
    assert reply["first_byte_us"] == {"avg": 150.0, "max": 400}
    # the server side's counters are a running total: the trial records what changed during it (none here)
    assert reply["connections"]["server"]["tcps_accepts"] == 0
    assert ("start", 500.0, 2.0, False) in clients.calls and ("wait_on_traffic", (), {"timeout": 32.0}) in clients.calls
    with pytest.raises(LatencyUnsupported):
        generator.latency_trial(100.0, 1.0, None, 10, 5)
    generator.stop()
    assert [call[0] for call in clients.calls[-2:]] == ["reset", "disconnect"] and generator.client is None


def test_a_client_that_breaks_off_mid_trial_is_a_lost_generator(monkeypatch):
    monkeypatch.setattr("socket.create_connection", lambda *_args, **_kwargs: type("S", (), {"close": lambda self: None})())
    generator = ASTFGenerator(FakeASTF({}), checked())
    generator.connect()

    def broken(**_kwargs):
        raise RuntimeError("subscriber timeout")
    generator.client.wait_on_traffic = broken
    with pytest.raises(GeneratorLost, match="the trial at 100.0 connections/s did not finish on 127.0.0.1:4501: subscriber timeout"):
        generator.trial(100.0, 1.0)


def test_the_profile_is_one_template_at_one_connection_a_second_from_the_clients_to_the_vip():
    args = checked()
    made = stateful.build_profile(FakeASTF({}), args, 100, 1, "18.0.0.172")
    name, _args, kwargs = made
    template = kwargs["templates"][0][2]
    client_template = template["client_template"][2]
    assert name == "ASTFProfile" and client_template["cps"] == 1 and client_template["port"] == 80
    dist_client = kwargs["default_ip_gen"][2]["dist_client"][2]
    dist_server = kwargs["default_ip_gen"][2]["dist_server"][2]
    assert dist_client["ip_range"] == ["48.0.0.1", "48.0.0.100"] and dist_server["ip_range"] == ["18.0.0.172", "18.0.0.172"]
    request, response = stateful.messages(args)
    assert client_template["program"].steps == [("send", request), ("recv", len(response))]
    assert template["server_template"][2]["program"].steps == [("recv", len(request)), ("send", response)]


@pytest.mark.parametrize("counters, udp, expected", [
    ({"tcps_connattempt": 10, "tcps_closed": 10, "tcps_drops": 1, "tcps_conndrops": 2}, False, (10, 7)),
    ({"udps_connects": 10, "udps_closed": 10, "udps_keepdrops": 3}, True, (10, 7)),
    ({}, False, (0, 0)),
])
def test_completed_connections_are_the_closed_ones_without_the_drops(counters, udp, expected):
    assert stateful.completed(counters, udp) == expected
