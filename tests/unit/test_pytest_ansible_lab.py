"""pytest-ansible: the collection's plugins through Ansible itself, on localhost.

The ``localhost`` fixture runs real modules through Ansible's executor; these
cases never touch the host (validation fails first, or check mode).
"""

BAD_LAB = {
    "bridge": "underlay",
    "networks": [{"name": "servers", "cidr": "192.168.0.0/24", "vlan": 4095}],
    "namespaces": [{"name": "ltb-pa", "links": [{"name": "eth0", "peer": "ltb-pa0", "network": "servers", "address": "192.168.5.3/24"}]}],
}


def test_module_refuses_bad_lab_through_ansible(localhost):
    result = getattr(localhost, "offload.testbed.virtual_lab_net")(**BAD_LAB)
    outcome = result["localhost"]
    assert outcome["failed"]
    assert "networks[0].vlan: 4095 (network servers) is outside 1..4094" in outcome["msg"]
    assert "namespaces[0].links[0].address: 192.168.5.3/24 is outside its subnet 192.168.0.0/24" in outcome["msg"]


def test_exchange_refuses_an_empty_run_through_ansible(localhost):
    exchange = getattr(localhost, "offload.testbed.netns_exchange")
    result = exchange(server_namespace="ltb-a", client_namespace="ltb-b", server_address="192.168.0.3", count=0)
    outcome = result["localhost"]
    assert outcome["failed"]
    assert outcome["msg"] == "count must be at least 1 and size within 1..65000 (8..65000 over UDP: each message carries its sequence number)"


def test_exchange_refuses_udp_messages_too_short_for_their_sequence_number(localhost):
    exchange = getattr(localhost, "offload.testbed.netns_exchange")
    result = exchange(server_namespace="ltb-a", client_namespace="ltb-b", server_address="192.168.0.3", protocol="udp", size=4)
    outcome = result["localhost"]
    assert outcome["failed"]
    assert outcome["msg"].startswith("count must be at least 1 and size within 1..65000 (8..65000 over UDP")
