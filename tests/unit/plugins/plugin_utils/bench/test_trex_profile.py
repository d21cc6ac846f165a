"""trex_bench's ``profile`` and ``tunables``: a profile in TRex's format loaded by the old client (in this process), its
streams' shares and frame size, its record in the results, its rate changes, and what is refused."""
import hashlib
import os
import sys

import pytest

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import profile as bp
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import trex, trex_profile
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError

from test_bench_spec import validate

PROFILES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "integration", "profiles"))


@pytest.fixture(name="old_api")
def fixture_old_api(monkeypatch):
    """trex-stl-lib 0.3's API; the profiles of tests/integration/profiles pick it when TRex v3's client is not importable."""
    monkeypatch.setitem(sys.modules, "trex.stl", None)
    monkeypatch.delitem(sys.modules, "profile_common", raising=False)
    return trex.load_client("trex_stl_lib", None)


def checked(name, **task):
    refused, args, errors = validate(dict({"results_dir": "/tmp/r", "profile": os.path.join(PROFILES, name)}, **task))
    assert refused == [] and errors == [], errors
    return args


def test_an_imix_profile_gives_its_three_streams_in_its_proportions_and_its_average_frame(old_api):
    args = checked("imix.py", tunables={"pps": 140, "flows": 50}, frame_sizes=[64, 128], flows=[10, 100])
    trex_profile.attach(old_api, args)
    streams = bp.build_streams(args, args["frame_sizes"][0], 1)
    assert [(stream["pps"], stream["frame_bytes"], stream["port"]) for stream in streams] == [(140.0, 64, 0), (80.0, 594, 0), (20.0, 1518, 0)]
    assert [round(stream["share"] * 48, 6) for stream in streams] == [28, 16, 4]
    # (140 x 64 + 80 x 594 + 20 x 1518) / 240 = 361.8: one search at 362 B
    assert args["frame_sizes"] == [362] and bp.searches_of(args) == [(362, 1)]
    with open(os.path.join(PROFILES, "imix.py"), "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert bp.profile(args, 362)["trex_profile"] == {"file": "imix.py", "sha256": digest, "tunables": {"pps": 140, "flows": 50},
                                                     "streams": 3, "pps": 240.0}


def test_the_tunables_reach_the_profile_and_change_the_run_s_fingerprint(old_api):
    runs = []
    for flows in (50, 60):
        args = checked("imix.py", tunables={"flows": flows})
        trex_profile.attach(old_api, args)
        vm = args["profile_streams"][0]["trex"].to_json()["vm"]["instructions"]
        runs.append(([ins["max_value"] - ins["min_value"] + 1 for ins in vm if ins["type"] == "flow_var"], bp.fingerprint(args)))
    assert runs[0][0] == [50] and runs[1][0] == [60] and runs[0][1] != runs[1][1]


def test_a_stream_at_another_rate_is_a_copy_and_the_profile_keeps_its_own(old_api):
    args = checked("imix.py")
    trex_profile.attach(old_api, args)
    stream = args["profile_streams"][1]
    clone = trex.to_trex_stream(old_api, stream, pps=1234.5)
    assert clone.to_json()["mode"]["rate"] == {"type": "pps", "value": 1234.5}
    assert stream["trex"].to_json()["mode"]["rate"] == {"type": "pps", "value": 160.0}
    assert clone.to_json()["packet"] == stream["trex"].to_json()["packet"]


def test_the_latency_frame_is_the_profile_s_first_packet(old_api):
    args = checked("udp_1pkt_latency.py")
    trex_profile.attach(old_api, args)
    assert len(bp.build_latency_frame(args, args["frame_sizes"][0])) == 14 + 20 + 8 + 30


def test_a_profile_s_flow_stats_and_latency_streams_are_its_packet_groups(old_api):
    args = checked("udp_1pkt_latency.py", tunables={"pg_id": 40})
    trex_profile.attach(old_api, args)
    assert [stream.get("packet_group") for stream in args["profile_streams"]] == [{"pg_id": 40, "kind": "stats"},
                                                                                  {"pg_id": 41, "kind": "latency"}]
    plain = checked("imix.py")
    trex_profile.attach(old_api, plain)
    assert [stream.get("packet_group") for stream in plain["profile_streams"]] == [None, None, None]


def test_rates_in_bps_and_percentages_become_frames_per_second():
    assert trex_profile.stream_pps({"type": "pps", "value": 10}, 64, None) == 10.0
    assert trex_profile.stream_pps({"type": "bps_L2", "value": 1e6}, 125, None) == 1000.0
    assert trex_profile.stream_pps({"type": "bps_L1", "value": 1e6}, 105, None) == 1000.0
    assert trex_profile.stream_pps({"type": "percentage", "value": 50}, 64, None) is None
    assert round(trex_profile.stream_pps({"type": "percentage", "value": 50}, 64, 10.0)) == 7440476


def test_a_burst_is_refused_naming_the_stream(old_api):
    args = checked("udp_1pkt_vxlan.py")
    with pytest.raises(BenchError) as raised:
        trex_profile.attach(old_api, args)
    assert str(raised.value) == ("profile: udp_1pkt_vxlan.py: stream 0 sends single_burst; a search sends every stream for a trial's "
                                 "duration: give it STLTXCont (continuous), or run the profile with TRex's own console")


def test_a_profile_that_fails_is_refused_with_its_error(old_api, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def register():\n    raise ValueError('no such tunable: sizes')\n")
    args = checked(str(broken))
    with pytest.raises(BenchError) as raised:
        trex_profile.attach(old_api, args)
    assert str(raised.value).startswith("profile: %s did not load with tunables {}: " % broken) and "no such tunable: sizes" in str(raised.value)


@pytest.mark.parametrize("task, needle", [
    ({"tunables": {"size": 64}}, "tunables: ['size'] are a profile's; set profile, or drop them"),
    ({"profile": "/nonexistent/imix.py"}, "profile: /nonexistent/imix.py is not a readable file on the controller"),
    ({"profile": os.path.join(PROFILES, "..", "trex_calls.py"), "encapsulation": {"type": "vxlan"}},
     "encapsulation: a profile brings its own frames; drop encapsulation or profile"),
    ({"profile": os.path.join(PROFILES, "imix.py"), "generator": "testpmd", "testpmd": {"tx_interface": "a", "rx_interface": "b"}, "flows": 1},
     "profile: a TRex profile needs generator trex"),
])
def test_a_bad_profile_argument_is_refused_naming_it(task, needle):
    refused, _args, errors = validate(dict({"results_dir": "/tmp/r"}, **task))
    assert refused == [] and any(needle in error for error in errors), errors


def test_a_profile_that_is_not_python_is_refused(tmp_path):
    yaml_profile = tmp_path / "imix.yaml"
    yaml_profile.write_text("- stream: {}\n")
    refused, _args, errors = validate({"results_dir": "/tmp/r", "profile": str(yaml_profile)})
    assert refused == [] and errors == ["profile: %s is not a Python profile (.py), the kind TRex's start -f loads" % yaml_profile]
