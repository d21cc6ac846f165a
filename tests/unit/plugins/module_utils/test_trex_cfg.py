"""module_utils.generator.trex_cfg: checks of TRex instances, trex_cfg.yaml rendering,
command lines; and the filters of plugins/filter/trex_server.py over them."""
import copy
import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.filter.trex_server import FilterModule
from ansible_collections.offload.testbed.plugins.module_utils.generator import trex_cfg

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FILTERS = FilterModule().filters()
ISOLATED = "2-15,34-47"
ARCHIVE = {"url": "https://trex-tgn.cisco.com/trex/release/v3.06.tar.gz", "src": "", "checksum": "sha256:" + "ab" * 32, "version": "v3.06"}


def reference_instances():
    """The lab-cx6lx inventory's instances (the ConnectX-6 Lx reference bench: client port with 4 cores, three backends)."""
    with open(os.path.join(ROOT, "inventories", "lab-cx6lx", "group_vars", "generator.yml")) as handle:
        return yaml.safe_load(handle)["trex_server_instances"]


def virtual_instances():
    with open(os.path.join(ROOT, "inventories", "virtual", "group_vars", "generator.yml")) as handle:
        return yaml.safe_load(handle)["trex_server_instances"]


def test_shipped_inventories_are_sound():
    assert trex_cfg.validate(reference_instances(), "trex", ISOLATED, archive=ARCHIVE) == []
    assert trex_cfg.validate(virtual_instances(), "softgen") == []


def test_render_client_instance_as_trex_reads_it():
    client = reference_instances()[0]
    assert trex_cfg.render(client) == [{
        "version": 2, "port_limit": 2, "interfaces": ["0000:32:00.2", "dummy"], "prefix": "client", "c": 4,
        "zmq_pub_port": 4500, "zmq_rpc_port": 4501,
        "port_info": [{"ip": "10.20.0.3", "default_gw": "10.20.0.2"}],
        "platform": {"master_thread_id": 8, "latency_thread_id": 9, "dual_if": [{"socket": 0, "threads": [10, 11, 12, 13]}]},
    }]


def test_render_three_ports_as_two_pairs_with_a_dummy():
    servers = reference_instances()[1]
    cfg = trex_cfg.render(servers)[0]
    assert cfg["interfaces"] == ["0000:32:00.3", "0000:32:00.4", "0000:32:00.5", "dummy"]
    assert cfg["port_limit"] == 4
    assert cfg["platform"]["dual_if"] == [{"socket": 0, "threads": [44]}, {"socket": 0, "threads": [45]}]
    assert [info["ip"] for info in cfg["port_info"]] == ["192.168.0.3", "192.168.0.4", "192.168.0.5"]
    assert (cfg["zmq_rpc_port"], cfg["zmq_pub_port"]) == (4511, 4510)


def test_render_l2_port_vlan_memory_and_defaults():
    instance = {"name": "x", "master_thread": 2, "latency_thread": 3, "threads": [4], "limit_memory": 1024,
                "ports": [{"pci": "0000:AF:00.1", "dest_mac": "50:54:00:00:00:06", "src_mac": "50:54:00:00:00:07", "vlan": 20},
                          {"pci": "0000:af:00.0", "dest_mac": "50:54:00:00:00:08"}]}
    cfg = trex_cfg.render(instance)[0]
    assert cfg["interfaces"] == ["0000:af:00.1", "0000:af:00.0"]
    assert cfg["port_info"][0] == {"dest_mac": "50:54:00:00:00:06", "src_mac": "50:54:00:00:00:07", "vlan": 20}
    assert (cfg["c"], cfg["zmq_rpc_port"], cfg["zmq_pub_port"], cfg["limit_memory"]) == (1, 4501, 4500, 1024)


def test_rendered_pci_addresses_survive_a_yaml_round_trip():
    # 0000:32:00.2 looks like a YAML 1.1 sexagesimal float: the dump must quote it.
    text = yaml.safe_dump(trex_cfg.render(reference_instances()[0]))
    assert yaml.safe_load(text)[0]["interfaces"][0] == "0000:32:00.2"


def errors_of(mutate, mode="trex", isolated=ISOLATED):
    instances = reference_instances()
    mutate(instances)
    return trex_cfg.validate(instances, mode, isolated, archive=ARCHIVE)


@pytest.mark.parametrize("pci", ["32:00.2", "0000:32:00", "0000:32:20.0", "0000:32:00.8", "0000:3g:00.0", "0000-32-00.2"])
def test_bad_pci_address_is_refused(pci):
    def mutate(instances):
        instances[1]["ports"][2]["pci"] = pci
    errors = errors_of(mutate)
    assert len(errors) == 1
    # validate.pci_address's words, as for every PCI address the collection takes
    assert errors[0].startswith("trex_server_instances[1].ports[2].pci: %r is not a PCI address" % pci)


def test_missing_pci_is_refused_in_trex_mode_only():
    errors = errors_of(lambda i: i[0]["ports"][0].pop("pci"))
    assert errors == ["trex_server_instances[0].ports[0].pci: missing; real TRex takes its ports by PCI address "
                      "(DDDD:BB:DD.F, e.g. 0000:32:00.0)"]


def test_cpu_listed_twice_is_refused():
    def mutate(instances):
        instances[1]["threads"] = [44, 10]
    errors = errors_of(mutate)
    assert errors == ["trex_server_instances[1].threads[1]: CPU 10 is listed twice (already trex_server_instances[0].threads[0]); "
                      "every TRex thread needs its own CPU"]


def test_master_and_latency_on_one_cpu_is_refused():
    errors = errors_of(lambda i: i[0].update(latency_thread=8))
    assert errors == ["trex_server_instances[0].latency_thread: CPU 8 is listed twice (already trex_server_instances[0].master_thread); "
                      "every TRex thread needs its own CPU"]


def test_cpu_outside_isolated_set_is_refused():
    errors = errors_of(lambda i: i[0].update(threads=[10, 11, 12, 16]))
    assert errors == ["trex_server_instances[0].threads[3]: CPU 16 is not one of the isolated CPUs (trex_server_isolated_cpus); "
                      "TRex threads on CPUs the kernel schedules on lose packets"]


def test_empty_or_bad_isolated_set_is_refused():
    assert errors_of(lambda i: None, isolated="") == [
        "trex_server_isolated_cpus: empty; TRex threads must be pinned to isolated CPUs (boot_params_isolated_cpus, e.g. 2-15,34-47)"]
    errors = errors_of(lambda i: None, isolated="2-x")
    assert len(errors) == 1 and errors[0].startswith("trex_server_isolated_cpus: '2-x' is not a cpulist")


def test_thread_count_must_match_c_and_pairs():
    errors = errors_of(lambda i: i[0].update(threads=[10, 11, 12]))
    assert errors == ["trex_server_instances[0].threads: 3 CPUs listed, but c=4 and 1 pair(s) of ports need exactly 4"]
    errors = errors_of(lambda i: i[1].update(c=0))
    assert errors == ["trex_server_instances[1].c: 0 must be a whole number >= 1 (threads per pair of ports)"]


def test_missing_threads_are_refused():
    def mutate(instances):
        del instances[0]["master_thread"]
        del instances[0]["threads"]
    assert errors_of(mutate) == [
        "trex_server_instances[0].master_thread: missing; pin it to one of the isolated CPUs (trex_server_isolated_cpus)",
        "trex_server_instances[0].threads: missing; list the CPUs of the traffic threads, c per pair of ports"]


def test_two_instances_on_one_port_are_refused():
    errors = errors_of(lambda i: i[1]["ports"][0].update(pci="0000:32:00.2"))
    assert errors == ["trex_server_instances[1].ports[0]: port 0000:32:00.2 is already trex_server_instances[0].ports[0]; "
                      "one port belongs to one instance"]
    # PCI addresses compare without case
    errors = errors_of(lambda i: i[1]["ports"][0].update(pci="0000:32:00.2".upper()))
    assert len(errors) == 1 and "is already trex_server_instances[0].ports[0]" in errors[0]


def test_a_softgen_port_may_be_in_one_stateless_and_one_astf_instance():
    """The virtual lab's ASTF instances (softgen --astf) share gen0 and the backends with the stateless ones; two ASTF
    instances on one port are refused as two stateless ones are."""
    instances = virtual_instances()
    astf = [instance for instance in instances if "--astf" in instance["extra_args"]]
    assert [instance["name"] for instance in astf] == ["astf-client", "astf-servers"]
    assert trex_cfg.validate(instances, "softgen") == []
    twice = instances + [dict(astf[0], name="astf-again", rpc_port=4571, pub_port=4570)]
    assert trex_cfg.validate(twice, "softgen") == [
        "trex_server_instances[%d].ports[0]: port ASTF ltb-gen/gen0 is already trex_server_instances[2].ports[0]; one port belongs to one instance"
        % len(instances)]


@pytest.mark.parametrize("key,value,already", [("rpc_port", 4501, "trex_server_instances[0].rpc_port"),
                                               ("rpc_port", 4500, "trex_server_instances[0].pub_port"),
                                               ("pub_port", 4501, "trex_server_instances[0].rpc_port")])
def test_two_instances_on_one_tcp_port_are_refused(key, value, already):
    errors = errors_of(lambda i: i[1].update({key: value}))
    assert errors == ["trex_server_instances[1].%s: TCP port %d is already %s; two instances side by side need their own "
                      "zmq_rpc_port and zmq_pub_port" % (key, value, already)]


def test_default_tcp_ports_collide():
    def mutate(instances):
        for instance in instances:
            instance.pop("rpc_port")
            instance.pop("pub_port")
    errors = errors_of(mutate)
    assert [error.split(":")[0] for error in errors] == ["trex_server_instances[1].rpc_port", "trex_server_instances[1].pub_port"]


def test_names_must_be_unique_and_plain():
    assert errors_of(lambda i: i[1].update(name="client")) == [
        "trex_server_instances[1].name: 'client' is already the name of trex_server_instances[0]"]
    errors = errors_of(lambda i: i[1].update(name="a b"))
    assert len(errors) == 1 and errors[0].startswith("trex_server_instances[1].name: 'a b' must be")


def test_port_needs_gateway_or_mac_and_sane_values():
    def mutate(instances):
        instances[0]["ports"][0] = {"pci": "0000:32:00.2", "ip": "10.20.0.300", "vlan": 4095}
    assert errors_of(mutate) == [
        "trex_server_instances[0].ports[0]: give ip and default_gw (L3: TRex resolves the gateway) or dest_mac (L2)",
        "trex_server_instances[0].ports[0].ip: '10.20.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, for example 10.10.0.4",
        "trex_server_instances[0].ports[0].vlan: 4095 is outside 1..4094; leave vlan unset for an untagged port"]
    errors = errors_of(lambda i: i[0]["ports"][0].update(dest_mac="50:54:00:00:00"))
    assert len(errors) == 1 and errors[0].startswith("trex_server_instances[0].ports[0].dest_mac: '50:54:00:00:00' is not a MAC address")


def test_meaning_not_only_form():
    """A multicast MAC, an unquoted PCI address that YAML read as a number, a VLAN that is no number."""
    def mutate(instances):
        instances[0]["ports"][0].update(src_mac="01:00:5e:00:00:01", dest_mac="00:00:00:00:00:00", vlan="ten")
        instances[1]["ports"][0]["pci"] = 1172.0  # 0000:19:32 unquoted: YAML 1.1 base 60
    errors = errors_of(mutate)
    assert [error.split(": ")[0] for error in errors] == [
        "trex_server_instances[0].ports[0].dest_mac", "trex_server_instances[0].ports[0].src_mac",
        "trex_server_instances[0].ports[0].vlan", "trex_server_instances[1].ports[0].pci"], errors
    assert "'01:00:5e:00:00:01' is a multicast address" in errors[1]
    assert errors[2] == "trex_server_instances[0].ports[0].vlan: 'ten' is outside 1..4094; leave vlan unset for an untagged port"
    assert errors[3].startswith("trex_server_instances[1].ports[0].pci: 1172.0 is not a PCI address")


def test_isolated_cpus_must_be_a_cpulist():
    assert errors_of(lambda i: None, isolated="2-15,34-47") == []
    errors = errors_of(lambda i: None, isolated=[2, 3])
    assert len(errors) == 1 and errors[0].startswith("trex_server_isolated_cpus: [2, 3] is not a cpulist"), errors


def test_archive_settings_are_checked():
    bad = dict(ARCHIVE, url="", checksum="")
    errors = trex_cfg.validate(reference_instances(), "trex", ISOLATED, archive=bad)
    assert [error.split(":")[0] for error in errors] == ["trex_server_archive_url / trex_server_archive_src", "trex_server_archive_checksum"]
    errors = trex_cfg.validate(reference_instances(), "trex", ISOLATED, archive=dict(ARCHIVE, checksum="sha256 abc", version="a/b"))
    assert errors == ["trex_server_archive_checksum: 'sha256 abc' is not ALGORITHM:HEX with ALGORITHM one of md5, sha1, sha224, "
                      "sha256, sha384, sha512",
                      "trex_server_version: 'a/b' must be a non-empty version without '/' (e.g. v3.06); it names the install directory"]
    # softgen needs no archive
    assert trex_cfg.validate(virtual_instances(), "softgen", archive=bad) == []


def test_softgen_mode_checks_namespaces_and_interfaces():
    instances = virtual_instances()
    instances[1]["ports"][2] = {"netns": "ltb-srv1", "iface": "eth0"}
    instances[0]["ports"][0].pop("iface")
    instances[0]["ports"].append({"iface": "this-name-is-too-long"})
    assert trex_cfg.validate(instances, "softgen") == [
        "trex_server_instances[0].ports[0].iface: missing; the interface softgen sends from and counts on",
        "trex_server_instances[0].ports[1].netns: missing; softgen sends from an interface inside a network namespace "
        "(an empty string means the host's namespace)",
        "trex_server_instances[0].ports[1].iface: 'this-name-is-too-long' is 21 characters long; the kernel takes at most 15 in the name "
        "of the interface softgen sends from and counts on (IFNAMSIZ 16 with the closing NUL): shorten it, for example to 'this-name-is-to'",
        "trex_server_instances[1].ports[2]: port ltb-srv1/eth0 is already trex_server_instances[1].ports[0]; one port belongs to one instance",
    ]


def test_softgen_namespaces_and_interfaces_follow_the_one_rule_for_names():
    instances = virtual_instances()
    instances[0]["ports"][0].update(netns="ltb-gen ", iface="gen0:1")
    assert trex_cfg.validate(instances, "softgen") == [
        "trex_server_instances[0].ports[0].netns: 'ltb-gen ' has trailing white space, which would be part of the namespace's name "
        "(ip netns list shows it); write 'ltb-gen'",
        "trex_server_instances[0].ports[0].iface: 'gen0:1' holds ':'; the kernel refuses '/', ':' and white space in the name of the "
        "interface softgen sends from and counts on: use letters, digits, '-', '_' and '.'"]


def test_empty_or_unknown_definitions():
    assert trex_cfg.validate([], "softgen") == ["trex_server_instances: declare at least one instance (a list of dicts with name and ports)"]
    assert trex_cfg.validate(virtual_instances(), "dpdk") == ["trex_server_mode: 'dpdk' must be one of trex, softgen"]
    assert trex_cfg.validate([{"name": "a", "ports": []}], "softgen", prefix="x_") == ["x_instances[0].ports: declare at least one port"]


def test_config_path_and_command_lines():
    instances = reference_instances()
    assert trex_cfg.config_path(instances[0], instances) == "/etc/trex_cfg_client.yaml"
    assert trex_cfg.config_path(instances[0], instances[:1], "/etc/") == "/etc/trex_cfg.yaml"
    assert trex_cfg.trex_argv(dict(instances[0], extra_args=["--no-scapy-server"]), "/etc/trex_cfg_client.yaml") == [
        "./t-rex-64", "-i", "--cfg", "/etc/trex_cfg_client.yaml", "--no-scapy-server"]
    virtual = virtual_instances()
    assert trex_cfg.softgen_argv(virtual[1], "/usr/bin/python3", log_file="/var/log/s.log") == [
        "/usr/bin/python3", "-m", "softgen", "--rpc-port", "4511", "--pub-port", "4510", "--bind", "127.0.0.1",
        "--port", "srv1:ltb-srv1:eth0", "--port", "srv2:ltb-srv2:eth0", "--port", "srv3:ltb-srv3:eth0", "--log-file", "/var/log/s.log", "--cpus", "0"]
    assert trex_cfg.softgen_argv({"name": "h", "ports": [{"iface": "veth0", "netns": ""}]}, "py")[-2:] == ["--port", "port0:-:veth0"]


def test_filters_wrap_the_module_utils():
    assert set(FILTERS) == {"trex_server_errors", "trex_server_cfg", "trex_server_command", "trex_server_config_path"}
    instances = reference_instances()
    assert FILTERS["trex_server_errors"](instances, "trex", ISOLATED, "trex_server_", ARCHIVE) == []
    assert FILTERS["trex_server_cfg"](instances[0]) == trex_cfg.render(instances[0])
    assert FILTERS["trex_server_command"](instances[1], "trex", instances, "/etc")[:4] == ["./t-rex-64", "-i", "--cfg", "/etc/trex_cfg_servers.yaml"]
    assert FILTERS["trex_server_command"](virtual_instances()[0], "softgen", virtual_instances(), "/etc", "py", "0.0.0.0")[:9] == [
        "py", "-m", "softgen", "--rpc-port", "4501", "--pub-port", "4500", "--bind", "0.0.0.0"]
    assert FILTERS["trex_server_config_path"](instances[1], instances, "/tmp/x") == "/tmp/x/trex_cfg_servers.yaml"
    broken = copy.deepcopy(instances[0])
    broken["ports"][0]["pci"] = "32:00.2"
    with pytest.raises(AnsibleFilterError, match=r"trex_server_cfg: trex_server_instances\[0\]\.ports\[0\]\.pci"):
        FILTERS["trex_server_cfg"](broken)
    with pytest.raises(AnsibleFilterError, match="mode must be trex or softgen"):
        FILTERS["trex_server_command"](instances[0], "dpdk", instances)


SETTINGS = {"bind": "127.0.0.1", "start_timeout": 60}


@pytest.mark.parametrize("change, message", [
    ({"bind": "127.0.0.300"}, "trex_server_bind: '127.0.0.300' is not an IPv4 address; write four numbers 0..255 separated by dots, "
                              "for example 10.10.0.4"),
    ({"bind": "localhost"}, "trex_server_bind: 'localhost' is not an IPv4 address"),
    ({"start_timeout": 0}, "trex_server_start_timeout: 0 is outside 1..3600; give the seconds an instance has to answer on its RPC port, "
                           "for example 60"),
    ({"start_timeout": "0"}, "trex_server_start_timeout: 0 is outside 1..3600"),
    ({"start_timeout": "soon"}, "trex_server_start_timeout: 'soon' is outside 1..3600"),
])
def test_role_settings_are_refused_before_anything_is_installed(change, message):
    errors = FILTERS["trex_server_errors"](virtual_instances(), "softgen", None, "trex_server_", None, dict(SETTINGS, **change))
    assert errors == [message] or (len(errors) == 1 and errors[0].startswith(message)), errors
    errors = trex_cfg.validate(reference_instances(), "trex", ISOLATED, archive=ARCHIVE, settings=dict(SETTINGS, **change))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_sound_role_settings_pass():
    assert trex_cfg.validate(virtual_instances(), "softgen", settings=SETTINGS) == []
    assert trex_cfg.validate(virtual_instances(), "softgen", settings={"bind": "10.20.0.1", "start_timeout": "30"}) == []
    with pytest.raises(AnsibleFilterError):
        FILTERS["trex_server_errors"](virtual_instances(), "softgen", None, "trex_server_", None, "127.0.0.1")
