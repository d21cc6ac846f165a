"""softgen --astf's RPC layer: the context, the profile's states and their events, the counters, the refusals.

A server with two ``null`` ports, as test_rpc.py's; no profile here gets to its
workers (each stops before Parse loads it), so nothing touches this machine's
network. The real ASTF client and real connections: tests/integration/test_softgen_astf.py.
"""
import hashlib
import json
import time

import pytest

from softgen.rpc_astf import AstfMixin
from softgen.rpc_astf_traffic import AstfTrafficMixin
from test_rpc import Rpc, running_server
from test_astf_program import PROFILE

IDLE, LOADED, PARSE, DELETE = 0, 1, 2, 6


@pytest.fixture(scope="module")
def rpc():
    with running_server(["--astf"]) as started:
        client = Rpc(started["ctx"], started["rpc"])
        client.api_h = client.ok("api_sync_v2", {"name": "ASTF", "major": 2, "minor": 3})["api_h"]
        yield client
        client.sock.close(0)


def events(rpc, kinds=(50, 60, 61), wait=1.0):  # pylint: disable=redefined-outer-name
    """The ASTF events published since the last pull (after ``wait`` s): ``(type, data)``."""
    time.sleep(wait)
    messages = rpc.ok("get_async_events", {"session_id": 7, "user": "test"})["data"]
    return [(msg["type"], msg["data"]) for msg in messages if msg["name"] == "trex-event" and msg["type"] in kinds]


def states(seen):
    return [(kind, data.get("state"), data.get("error", "")) for kind, data in seen]


def upload(rpc, handler, profile):  # pylint: disable=redefined-outer-name
    """The client's fragmented upload: the first 1000 characters with the md5 of the whole, then the rest."""
    text = json.dumps(profile, sort_keys=True)
    md5 = hashlib.md5(text.encode()).hexdigest()
    first = rpc.ok("profile_fragment", {"handler": handler, "profile_id": "_", "fragment": text[:1000], "frag_first": True,
                                        "frag_last": False, "md5": md5})
    if first.get("matches_loaded"):
        return first
    return rpc.ok("profile_fragment", {"handler": handler, "profile_id": "_", "fragment": text[1000:], "frag_last": True})


def test_the_stateless_api_is_refused_as_trex_in_astf_mode_refuses_it(rpc):  # pylint: disable=redefined-outer-name
    assert "RPC configuration mismatch - server RPC configuration: 'ASTF', client RPC configuration: 'STL'" in \
        rpc.err("api_sync_v2", {"name": "STL", "major": 5, "minor": 1}, api=False)["specific_err"]
    assert rpc.ok("get_version")["mode"] == "ASTF"
    assert {"get_profile_list", "profile_fragment", "profile_clear", "start", "get_counter_desc"} <= set(rpc.ok("get_supported_cmds"))


def test_a_profile_loads_fails_to_parse_and_clears_with_trex_s_events(rpc):  # pylint: disable=redefined-outer-name
    assert rpc.err("profile_fragment", {"handler": "nobody", "fragment": "{}"})["specific_err"] == "must acquire the context for this operation"
    taken = rpc.ok("acquire", {"user": "alice", "session_id": 1, "force": False})
    assert sorted(taken["ports"]) == ["0", "1"] and set(taken["ports"].values()) == {taken["handler"]}
    assert "context is already taken" in rpc.err("acquire", {"user": "bob", "session_id": 2, "force": False})["specific_err"]
    handler = taken["handler"]
    events(rpc, wait=0)
    # a TCP program with TRex's tx_mode, which softgen cannot do with a socket: loaded, then refused when it parses
    profile = json.loads(json.dumps(PROFILE))
    profile["program_list"][0]["commands"].append({"name": "tx_mode", "flags": 1})
    profile["buf_list"].append("eA==" * 300)
    upload(rpc, handler, profile)
    assert states(events(rpc)) == [(60, LOADED, ""), (50, LOADED, "")]
    assert upload(rpc, handler, profile) == {"matches_loaded": True}
    assert rpc.ok("sync", {"profile_id": "sync"})["state_profile"] == {"_": LOADED}
    refused = rpc.err("start", {"handler": handler, "profile_id": "_", "mult": 1, "duration": 1, "nc": False, "latency_pps": 100})
    assert "latency_pps" in refused["specific_err"]
    rpc.ok("start", {"handler": handler, "profile_id": "_", "mult": 1, "duration": 1, "nc": False, "latency_pps": 0})
    # the error the client raises from start, naming the command and where it is
    error = "softgen cannot run this profile: program_list[0].commands[2]: command 'tx_mode' is not supported in a TCP program by softgen"
    seen = states(events(rpc))
    assert [(kind, state) for kind, state, _error in seen] == [(60, PARSE), (50, PARSE), (60, LOADED), (50, LOADED)]
    assert [text[:len(error)] for _kind, _state, text in seen] == ["", "", error, ""]
    # cleared: Delete at once, then (a moment later) cleared and Idle
    rpc.ok("profile_clear", {"handler": handler, "profile_id": "_"})
    assert [(kind, data.get("state")) for kind, data in events(rpc)] == [(60, DELETE), (61, None), (60, IDLE), (50, IDLE)]
    assert rpc.ok("get_profile_list", {"handler": handler}) == ["_"]
    rpc.ok("release", {"handler": handler})


def test_counters_are_described_once_and_read_per_side(rpc):  # pylint: disable=redefined-outer-name
    desc = rpc.ok("get_counter_desc", {"profile_id": "_"})["data"]
    assert [item["id"] for item in desc] == list(range(len(desc)))
    names = {item["name"]: item for item in desc}
    assert names["tcps_conndrops"]["info"] == "error" and names["tcps_connects"]["info"] == "info"
    assert names["m_active_flows"]["zero"] and names["m_active_flows"]["abs"]
    values = rpc.ok("get_total_counter_values", {"profile_id": "_"})
    assert set(values) >= {"epoch", "client", "server"}
    # nothing ran: only the counters shown at zero (the active flows) are there
    assert {desc[int(key)]["name"] for key in values["client"]} == {"m_active_flows", "m_est_flows"}
    assert rpc.ok("get_latency_stats")["data"]["epoch"] == values["epoch"]


def test_a_stateless_server_refuses_the_astf_client_as_trex_does():
    with running_server() as started:
        client = Rpc(started["ctx"], started["rpc"])
        refused = client.err("api_sync_v2", {"name": "ASTF", "major": 2, "minor": 3}, api=False)
        client.sock.close(0)
    assert refused["specific_err"] == "RPC configuration mismatch - server RPC configuration: 'STL', client RPC configuration: 'ASTF'"


class Context(AstfMixin, AstfTrafficMixin):
    """The ASTF methods without a server: no port, the events kept."""

    def __init__(self):
        self.events, self.methods, self.owned, self.ports = [], {}, set(), []
        self.astf_setup(None)

    def event(self, kind, data):
        self.events.append((kind, data.get("state")))


@pytest.mark.parametrize("event, ends", [({"ev": "done", "run": 3}, True), ({"ev": "done", "run": 2}, False),
                                         ({"ev": "done", "exit": True}, True)])
def test_a_run_ends_when_its_client_side_is_done_or_its_worker_is_gone(event, ends):
    context = Context()
    context.astf["run"] = 3
    profile = context.astf["profiles"]["_"]
    profile.update(state=4, running={"client"})
    context.astf_on_done("client", event)
    # Cleanup, then Loaded (the context's state follows each); an earlier run's done changes nothing
    assert context.events == ([(60, 5), (50, 5), (60, 1), (50, 1)] if ends else [])
