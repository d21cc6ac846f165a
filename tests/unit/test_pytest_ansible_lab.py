"""pytest-ansible: the collection's plugins through Ansible itself, on localhost.

The ``localhost`` fixture runs real modules through Ansible's executor; these
cases never touch the host (validation fails first, a namespace is not there, or
check mode).
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
    assert outcome["msg"] == "count: 0 is below 1; send at least 1 message"


def test_exchange_refuses_udp_messages_too_short_for_their_sequence_number(localhost):
    exchange = getattr(localhost, "offload.testbed.netns_exchange")
    result = exchange(server_namespace="ltb-a", client_namespace="ltb-b", server_address="192.168.0.3", protocol="udp", size=4)
    outcome = result["localhost"]
    assert outcome["failed"]
    assert outcome["msg"] == ("size: 4 is outside 8..65000; give the bytes per message, 8..65000 over UDP "
                              "(each message carries its 8-byte sequence number)")


def test_exchange_names_a_missing_namespace_through_ansible(localhost):
    """The module and its module_utils (netns, netns_exchange) as Ansible ships them; the namespace is not there."""
    exchange = getattr(localhost, "offload.testbed.netns_exchange")
    result = exchange(server_namespace="t15n-absent", client_namespace="", server_address="10.215.9.1", count=1, timeout=0.5)
    outcome = result["localhost"]
    assert outcome["failed"]
    assert outcome["msg"] == ('echo server in namespace t15n-absent did not start: '
                              'Cannot open network namespace "t15n-absent": No such file or directory')


def test_lb_probe_names_a_missing_namespace_through_ansible(localhost):
    probe = getattr(localhost, "offload.testbed.netns_lb_probe")
    result = probe(client_namespace="", vip="10.215.9.1", port=80, backends=[{"namespace": "t15n-absent", "address": "10.215.9.1"}])
    outcome = result["localhost"]
    assert outcome["failed"]
    assert outcome["msg"] == ('server in namespace t15n-absent did not start: '
                              'Cannot open network namespace "t15n-absent": No such file or directory')
