"""softgen's ASTF profile compiler: what TRex's client uploads (``ASTFProfile.to_json``), checked and compiled."""
import base64

import pytest

from softgen.astf_program import ProfileError, address, compile_profile
from ansible_collections.offload.testbed.tests.support.documents import replaced


def b64(data):
    return base64.b64encode(data).decode()


# the JSON TRex's client (lbr-trex-client 3.4, ASTFProfile.to_json) uploads for an http_simple-shaped profile with
# one UDP template beside it: printed by the client, addresses and payloads as the virtual lab's load balancer takes them
PROFILE = {
    "buf_list": [b64(b"GET /3384 HTTP/1.1\r\n\r\n"), b64(b"HTTP/1.1 200 OK\r\n" + b"x" * 13), b64(b"ping"), b64(b"pong")],
    "ip_gen_dist_list": [
        {"dir": "c", "distribution": "seq", "ip_end": "48.0.0.100", "ip_offset": "1.0.0.0", "ip_start": "48.0.0.1"},
        {"dir": "s", "distribution": "seq", "ip_end": "18.0.0.172", "ip_offset": "1.0.0.0", "ip_start": "18.0.0.172"}],
    "program_list": [
        {"commands": [{"buf_index": 0, "name": "tx"}, {"min_bytes": 30, "name": "rx"}]},
        {"commands": [{"min_bytes": 22, "name": "rx"}, {"buf_index": 1, "name": "tx"}]},
        {"commands": [{"buf_index": 2, "name": "tx_msg"}, {"min_pkts": 1, "name": "rx_msg"}], "stream": False},
        {"commands": [{"min_pkts": 1, "name": "rx_msg"}, {"buf_index": 3, "name": "tx_msg"}], "stream": False}],
    "templates": [
        {"client_template": {"cluster": {}, "cps": 2, "ip_gen": {"dist_client": {"index": 0}, "dist_server": {"index": 1}},
                             "port": 80, "program_index": 0},
         "server_template": {"assoc": [{"port": 80}], "program_index": 1}, "tg_id": 1},
        {"client_template": {"cluster": {}, "cps": 1, "ip_gen": {"dist_client": {"index": 0}, "dist_server": {"index": 1}},
                             "port": 8080, "program_index": 2},
         "server_template": {"assoc": [{"port": 8080}], "program_index": 3}}],
    "tg_names": ["web"],
}


def test_an_http_and_a_udp_template_compile():
    compiled = compile_profile(PROFILE)
    web, udp = compiled["templates"]
    assert compiled["tg_names"] == ["web"]
    assert (web["udp"], web["tg_id"], web["client"]["cps"], web["client"]["port"], web["server"]["ports"]) == (False, 1, 2.0, 80, [80])
    assert web["client"]["program"]["commands"] == [{"name": "tx", "data": b"GET /3384 HTTP/1.1\r\n\r\n"},
                                                    {"name": "rx", "min_bytes": 30}]
    assert web["client"]["clients"] == {"first": 0x30000001, "count": 100, "random": False}
    assert (udp["udp"], udp["tg_id"], udp["server"]["program"]["commands"][1]["data"]) == (True, 0, b"pong")


def test_addresses_of_a_range_wrap():
    clients = compile_profile(PROFILE)["templates"][0]["client"]["clients"]
    assert [address(clients, n) for n in (0, 99, 100)] == ["48.0.0.1", "48.0.0.100", "48.0.0.1"]


def broken(path, value):
    return replaced(PROFILE, path, value)


@pytest.mark.parametrize("path, value, message", [
    (("program_list", 0, "commands", 1, "name"), "tx_mode", "program_list[0].commands[1]: command 'tx_mode' is not supported in a TCP program"),
    (("program_list", 2, "commands", 0, "name"), "tx", "program_list[2].commands[0]: command 'tx' is not supported in a UDP program"),
    (("program_list", 0, "commands", 0, "buf_index"), 9, "program_list[0].commands[0]: buf_index 9 is not in buf_list"),
    (("program_list", 0, "commands", 1, "min_bytes"), "30", "program_list[0].commands[1]: 'min_bytes' is '30', not an integer"),
    (("templates", 0, "client_template", "cps"), 0, "templates[0].client_template: cps 0 must be above 0"),
    (("templates", 0, "client_template", "program_index"), 7, "templates[0].client_template: program_index 7 is not in program_list"),
    (("templates", 1, "server_template", "program_index"), 1, "templates[1]: the client's program and the server's differ in protocol"),
    (("ip_gen_dist_list", 0, "ip_end"), "47.0.0.1", "ip_gen_dist_list[0]: ip_end 47.0.0.1 is before ip_start 48.0.0.1"),
    (("ip_gen_dist_list", 1, "ip_start"), "18.0.0.300", "ip_gen_dist_list[1]:"),
    (("templates", 0, "tg_id"), 5, "templates[0]: tg_id 5 is not in tg_names"),
    (("templates",), [], "the profile has no templates"),
])
def test_what_softgen_cannot_run_is_refused_naming_the_place(path, value, message):
    with pytest.raises(ProfileError) as error:
        compile_profile(broken(path, value))
    assert str(error.value).startswith(message)


def loop(offset):
    return broken(("program_list", 0, "commands"), [{"name": "set_var", "id": "var1", "val": 3}, {"name": "tx", "buf_index": 0},
                                                    {"name": "jmp_nz", "id": "var1", "offset": offset}])


def test_a_loop_jumps_inside_its_program_only():
    steps = compile_profile(loop(-1))["templates"][0]["client"]["program"]["commands"]
    assert [(step["name"], step.get("offset")) for step in steps] == [("set_var", None), ("tx", None), ("jmp_nz", -1)]
    with pytest.raises(ProfileError, match=r"program_list\[0\]\.commands\[2\]: jumps outside the program"):
        compile_profile(loop(-3))
