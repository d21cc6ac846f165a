"""module_utils.datapath.ovs: the role's meaning checks and the planner."""
import pytest

from ansible_collections.offload.testbed.plugins.filter.ovs import ovs_errors
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovs


def test_uplink_type_follows_the_datapath():
    assert [ovs.uplink_type(d) for d in ("doca", "netdev", "system")] == ["doca", "dpdk", ""]


def test_mask_cpus():
    assert ovs.mask_cpus("0xfc") == {2, 3, 4, 5, 6, 7}
    assert ovs.mask_cpus("4") == {2}


REFERENCE = {"datapath": "doca", "pmd_cpu_mask": "0xfc", "bridges": [{"name": "underlay", "ports": [
    {"name": "ens3f0np0", "trunks": [10, 20, 30], "options": {"n_rxq": 6}, "other_config": {"pmd-rxq-affinity": "0:2,1:3,2:4,3:5,4:6,5:7"}},
    {"name": "mgt", "type": "internal", "tag": 10, "address": "10.10.0.3/24"}]}]}


def test_reference_generator_is_sound_with_cpus_2_to_15_isolated():
    """The generator of the ConnectX-6 Lx reference bench."""
    assert ovs.validate(REFERENCE, isolated=set(range(2, 16)) | set(range(34, 48))) == []


@pytest.mark.parametrize("change, isolated, message", [
    ({"datapath": "vpp"}, None, "ovs_datapath: 'vpp' is not one of doca, system, netdev, dpdk"),
    ({"pmd_cpu_mask": "fcx"}, None, "ovs_pmd_cpu_mask: 'fcx' is not hexadecimal"),
    ({"pmd_cpu_mask": "0x3"}, {2, 3}, "ovs_pmd_cpu_mask: 0x3 puts PMD threads on CPUs 0,1, which are not isolated on this host (isolated: 2,3)"),
    ({"pmd_cpu_mask": "0xc"}, None, "ovs_bridges[0].ports[0] (ens3f0np0): pmd-rxq-affinity pins queues to cores 4,5,6,7, outside ovs_pmd_cpu_mask 0xc"),
])
def test_role_refusals_name_the_variable(change, isolated, message):
    config = dict(REFERENCE, **change)
    assert any(e.startswith(message) for e in ovs.validate(config, isolated=isolated)), ovs.validate(config, isolated=isolated)


@pytest.mark.parametrize("port, message", [
    ({"name": "p", "tag": 0}, "VLAN 0 is outside 1..4094 (ovs_bridges[0].ports[0].tag); VLAN 0 and 4095 are reserved, "
                              "leave the tag unset for an untagged port"),
    ({"name": "p", "tag": "ten"}, "VLAN 'ten' is outside 1..4094 (ovs_bridges[0].ports[0].tag)"),
    ({"name": "p", "trunks": [10, 4095]}, "VLAN 4095 is outside 1..4094 (ovs_bridges[0].ports[0].trunks[1]); VLAN 0 and 4095 are reserved, "
                                          "list only VLANs 1..4094"),
    ({"name": "p", "options": {"n_rxq": 0}}, "n_rxq 0 must be a whole number of at least 1"),
    ({"name": "p", "other_config": {"pmd-rxq-affinity": "0-2"}}, "pmd-rxq-affinity '0-2' is not a list of queue:core pairs"),
    ({"name": "p", "address": "10.10.0.3"}, "only internal ports take an address"),
    ({"name": "p", "type": "internal", "address": "10.10.0.300/24"}, "address '10.10.0.300/24' is not an address"),
])
def test_port_refusals(port, message):
    errors = ovs.validate({"datapath": "netdev", "bridges": [{"name": "b", "ports": [port]}]})
    assert any(message in e and e.startswith("ovs_bridges[0].ports[0] (p)") for e in errors), errors


def empty_model():
    return {"open_vswitch": {"other_config": {}, "external_ids": {}}, "bridges": {}, "ports": {}, "interfaces": {}}


def test_plan_moves_a_port_between_bridges_and_purges():
    model = empty_model()
    model["bridges"]["a"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {}, "other_config": {}, "ports": {"a", "p", "old"}}
    model["bridges"]["b"] = {"datapath_type": "netdev", "fail_mode": "", "external_ids": {}, "other_config": {}, "ports": {"b"}}
    model["ports"]["p"] = {"bridge": "a", "tag": 5, "trunks": [], "vlan_mode": None, "external_ids": {}, "other_config": {}}
    model["interfaces"]["p"] = {"type": "", "external_ids": {}, "options": {}, "other_config": {}}
    spec = {"bridges": [{"name": "b", "ports": [{"name": "p", "tag": 5}]}, {"name": "a", "ports": []}], "purge_ports": True}
    cmds, restart = ovs.plan(spec, model)
    assert cmds == [["del-port", "a", "p"], ["add-port", "b", "p"], ["set", "Port", "p", "tag=5"], ["del-port", "a", "old"]]
    assert restart == []


def test_restart_keys_only_when_they_change():
    model = empty_model()
    model["open_vswitch"]["other_config"] = {"pmd-cpu-mask": "0xfc", "doca-init": "true"}
    _cmds, restart = ovs.plan({"other_config": {"pmd-cpu-mask": "0xfc", "doca-init": "true", "hw-offload": "true"}}, model)
    assert restart == []
    _cmds, restart = ovs.plan({"other_config": {"pmd-cpu-mask": "0x3c"}}, model)
    assert restart == ["pmd-cpu-mask"]


def test_address_plan():
    links = {"mgt": {"up": True, "addresses": {"10.10.0.3/24"}}}
    assert ovs.address_plan([{"name": "mgt", "type": "internal", "address": "10.10.0.3/24"}], links) == []
    assert ovs.address_plan([{"name": "ovl", "type": "internal", "address": "10.30.0.3/24"}], links) == [
        ["ip", "link", "set", "dev", "ovl", "up"], ["ip", "addr", "add", "10.30.0.3/24", "dev", "ovl"]]


def test_a_bridge_that_changes_datapath_type_makes_its_internal_ports_anew():
    """system -> netdev: the kernel module's device goes, a tap comes; its address must be added again (the VM lab's
    overlay port, the Geneve endpoint, when compare.yml switches dut01 to the userspace datapath)."""
    model = {"bridges": {"underlay": {"datapath_type": "system"}, "br-int": {"datapath_type": "netdev"}}}
    ports = [{"name": "enp2s0", "type": ""}, {"name": "overlay", "type": "internal", "address": "10.30.0.3/24"}]
    spec = {"bridges": [{"name": "underlay", "datapath_type": "netdev", "ports": ports},
                        {"name": "br-int", "datapath_type": "netdev", "ports": [{"name": "mgt", "type": "internal"}]},
                        {"name": "new", "datapath_type": "netdev", "ports": [{"name": "x", "type": "internal"}]}]}
    assert ovs.recreated_ports(spec, model) == {"overlay"}
    model["bridges"]["underlay"]["datapath_type"] = "netdev"
    assert ovs.recreated_ports(spec, model) == set()


ROLE = {"datapath": "doca", "system_id": "gen01", "ovn_bridge": "br-int", "ovn_encap_type": "geneve",
        "ovn_bridge_mappings": "physnet1:underlay", "underlay_bridge": "underlay", "integration_bridge": "br-int",
        "uplink": "ens3f0np0", "uplink_trunks": [10, 20, 30], "uplink_n_rxq": 6, "pmd_cpu_mask": "0xfc",
        "uplink_pmd_rxq_affinity": "0:2,1:3,2:4,3:5,4:6,5:7",
        "representors": [{"name": "ens3f0npf0vf0", "bridge": "underlay", "tag": 20},
                         {"name": "ens3f0npf0vf1", "bridge": "br-int", "iface_id": "port1"}],
        "internal_ports": [{"name": "mgt", "tag": 10, "address": "10.10.0.3/24"}, {"name": "overlay", "tag": 30, "address": "10.30.0.3/24"}]}


def test_role_switch_is_the_reference_benchs_generator():
    """The generator of the ConnectX-6 Lx reference bench."""
    spec = ovs.role_switch(ROLE)
    assert spec["other_config"] == {"hw-offload": "false", "default-datapath-type": "doca", "pmd-cpu-mask": "0xfc"}
    assert spec["external_ids"]["system-id"] == "gen01"
    underlay, brint = spec["bridges"]
    assert (underlay["name"], underlay["fail_mode"], brint["name"], brint["fail_mode"]) == ("underlay", "standalone", "br-int", "secure")
    assert underlay["ports"][0] == {"name": "ens3f0np0", "type": "doca", "vlan_mode": "trunk", "trunks": [10, 20, 30],
                                    "options": {"n_rxq": 6}, "other_config": {"pmd-rxq-affinity": "0:2,1:3,2:4,3:5,4:6,5:7"}}
    assert underlay["ports"][1] == {"name": "ens3f0npf0vf0", "type": "doca", "tag": 20}
    assert brint["ports"] == [{"name": "ens3f0npf0vf1", "type": "doca", "external_ids": {"iface-id": "port1"}}]
    assert [p["name"] for p in underlay["ports"][2:]] == ["mgt", "overlay"]
    assert ovs.role_switch(dict(ROLE, datapath="netdev"))["bridges"][0]["ports"][0]["type"] == "dpdk"
    assert ovs.role_switch(dict(ROLE, datapath="system"))["bridges"][0]["ports"][0]["type"] == ""


@pytest.mark.parametrize("change, message", [
    ({"datapath": "kernel"}, "ovs_datapath: 'kernel' is not one of doca, system, netdev, dpdk"),
    ({"uplink_trunks": [10, 4095]}, "ovs_uplink_trunks[1]: 4095 is outside 1..4094; VLAN 0 and 4095 are reserved, list only VLANs 1..4094"),
    ({"uplink_trunks": ["x"]}, "ovs_uplink_trunks[0]: 'x' is outside 1..4094"),
    ({"uplink_n_rxq": 0}, "ovs_uplink_n_rxq: 0 is below 1"),
    ({"pmd_cpu_mask": "0xzz"}, "ovs_pmd_cpu_mask: '0xzz' is not hexadecimal"),
    ({"representors": [{"name": "vf0", "tag": 0}]}, "ovs_representors[0].tag: 0 is outside 1..4094; VLAN 0 and 4095 are reserved, "
                                                    "leave the tag unset for an untagged port"),
    ({"internal_ports": [{"name": "mgt", "tag": 4095}]}, "ovs_internal_ports[0].tag: 4095 is outside 1..4094"),
    ({"representors": [{"name": "vf0", "bridge": "br-ex"}]}, "ovs_representors[0].bridge: 'br-ex' is neither underlay nor br-int"),
    ({"internal_ports": [{"name": "mgt", "address": "10.10.0.3"}]}, "ovs_internal_ports[0].address: '10.10.0.3' is not an address"),
    ({"uplink_pmd_rxq_affinity": "0:2,1:9"}, "ovs_uplink_pmd_rxq_affinity: cores 9 are outside ovs_pmd_cpu_mask 0xfc"),
])
def test_role_refusals_use_the_role_variable_names(change, message):
    errors = ovs.validate_role(dict(ROLE, **change), isolated=set(range(2, 16)))
    assert any(e.startswith(message) for e in errors), errors


def test_pmd_cores_must_be_isolated_on_the_host():
    errors = ovs.validate_role(ROLE, isolated=set())
    assert errors == ["ovs_pmd_cpu_mask: 0xfc puts PMD threads on CPUs 2,3,4,5,6,7, which are not isolated on this host (isolated: none); "
                      "isolate them with boot_params or pick isolated CPUs"]


def test_a_null_value_removes_the_key_when_it_is_there():
    model = empty_model()
    model["open_vswitch"]["other_config"] = {"emc-insert-inv-prob": "0", "hw-offload": "false"}
    model["open_vswitch"]["external_ids"] = {"ovn-cms-options": "enable-chassis-as-gw"}
    model["bridges"]["underlay"] = {"datapath_type": "netdev", "fail_mode": "standalone", "external_ids": {}, "other_config": {"a": "1"},
                                    "ports": {"underlay"}}
    spec = {"other_config": {"emc-insert-inv-prob": None, "smc-enable": None, "hw-offload": "false"},
            "external_ids": {"ovn-cms-options": None},
            "bridges": [{"name": "underlay", "other_config": {"a": None}, "ports": []}]}
    cmds, restart = ovs.plan(spec, model)
    assert cmds == [["remove", "Open_vSwitch", ".", "other_config", "emc-insert-inv-prob"],
                    ["remove", "Open_vSwitch", ".", "external_ids", "ovn-cms-options"],
                    ["remove", "Bridge", "underlay", "other_config", "a"]]
    assert restart == []


def test_hw_offload_restarts_only_from_true_to_false():
    model = empty_model()
    assert ovs.plan({"other_config": {"hw-offload": "true"}}, model)[1] == []
    assert ovs.plan({"other_config": {"hw-offload": "false"}}, model)[1] == []
    model["open_vswitch"]["other_config"] = {"hw-offload": "true"}
    assert ovs.plan({"other_config": {"hw-offload": "true"}}, model)[1] == []
    assert ovs.plan({"other_config": {"hw-offload": "false"}}, model)[1] == ["hw-offload"]
    assert ovs.plan({"other_config": {"hw-offload": None}}, model) == ([["remove", "Open_vSwitch", ".", "other_config", "hw-offload"]], ["hw-offload"])


def test_removing_a_start_only_key_restarts():
    model = empty_model()
    model["open_vswitch"]["other_config"] = {"pmd-cpu-mask": "0xfc"}
    assert ovs.plan({"other_config": {"pmd-cpu-mask": None}}, model)[1] == ["pmd-cpu-mask"]
    assert ovs.plan({"other_config": {"doca-init": None}}, model) == ([], [])


def test_filter_reads_the_isolated_cpus_as_the_user_or_sysfs_wrote_them():
    assert ovs_errors(ROLE, "2-15,34-47\n") == []
    assert ovs_errors(ROLE, [2, 3, 4, 5, 6, 7]) == []
    assert ovs_errors(ROLE, None) == ovs_errors(ROLE, "") == []
    assert ovs_errors(ROLE, "8-15") == [
        "ovs_pmd_cpu_mask: 0xfc puts PMD threads on CPUs 2,3,4,5,6,7, which are not isolated on this host (isolated: 8,9,10,11,12,13,14,15); "
        "isolate them with boot_params or pick isolated CPUs"]


def test_filter_names_ovs_isolated_cpus_that_is_no_cpulist():
    errors = ovs_errors(ROLE, "2-x")
    assert len(errors) == 1 and errors[0].startswith("ovs_isolated_cpus: '2-x' is not a cpulist"), errors
    errors = ovs_errors(dict(ROLE, representors=[{"name": "vf0", "tag": 0}]), ["2", "three"], prefix="dut_ovs_")
    assert [error.split(":")[0] for error in errors] == ["dut_ovs_isolated_cpus", "dut_ovs_representors[0].tag"], errors


@pytest.mark.parametrize("change, message", [
    ({"ovn_encap_ip": "10.30.0.300"}, "ovs_ovn_encap_ip: '10.30.0.300' is not an IPv4 address; write four numbers 0..255 "
                                      "separated by dots, for example 10.10.0.4"),
    ({"ovn_remote": "10.10.0.4:6642"}, "ovs_ovn_remote: '10.10.0.4:6642' is not an OVSDB remote ('10.10.0.4:6642'); write ssl:IP:PORT, "
                                       "tcp:IP:PORT or unix:PATH (several separated by commas), for example ssl:10.10.0.4:6642"),
    ({"ovn_remote": "ssl:10.10.0.4:6642,tcp:10.10.0.5:70000"}, "ovs_ovn_remote: 'ssl:10.10.0.4:6642,tcp:10.10.0.5:70000' is not an "
                                                               "OVSDB remote ('tcp:10.10.0.5:70000')"),
    ({"ovn_nb": "ssl:10.10.0.4"}, "ovs_ovn_nb: 'ssl:10.10.0.4' is not an OVSDB remote"),
    ({"ovn_bridge_mappings": "physnet1"}, "ovs_ovn_bridge_mappings: 'physnet1' is not a list of bridge mappings ('physnet1'); write "
                                          "physnet:bridge pairs separated by commas, for example physnet1:underlay"),
    ({"ovn_bridge_mappings": "physnet1:underlay,physnet2"},
     "ovs_ovn_bridge_mappings: 'physnet1:underlay,physnet2' is not a list of bridge mappings ('physnet2')"),
    ({"ovn_bridge_mappings": "physnet1:"}, "ovs_ovn_bridge_mappings: 'physnet1:' is not a list of bridge mappings"),
    ({"ovn_bridge_mappings": "physnet1:a:b"}, "ovs_ovn_bridge_mappings: 'physnet1:a:b' is not a list of bridge mappings"),
    ({"ovn_bridge_mappings": "physnet1:underlay,physnet1:br-ex"}, "ovs_ovn_bridge_mappings: 'physnet1:underlay,physnet1:br-ex' maps "
                                                                  "network 'physnet1' twice"),
])
def test_ovn_external_ids_are_refused_before_the_database_changes(change, message):
    errors = ovs.validate_role(dict(ROLE, **change), isolated=set(range(2, 16)))
    assert [e for e in errors if e.startswith(message)] == errors and len(errors) == 1, errors
    assert ovs_errors(dict(ROLE, **change), "2-15") == errors


@pytest.mark.parametrize("change", [
    {"ovn_remote": "ssl:10.10.0.4:6642", "ovn_nb": "ssl:10.10.0.4:6641", "ovn_encap_ip": "10.30.0.3"},
    {"ovn_remote": "tcp:10.10.0.4:6642,ssl:10.10.0.5:6642", "ovn_bridge_mappings": "physnet1:underlay,physnet2:br-ex"},
    {"ovn_remote": "unix:/var/run/ovn/ovnsb_db.sock", "ovn_bridge_mappings": ""},
    {"ovn_remote": "", "ovn_nb": "", "ovn_encap_ip": ""},
])
def test_sound_ovn_external_ids_pass(change):
    assert ovs.validate_role(dict(ROLE, **change), isolated=set(range(2, 16))) == []


CONTROLLER = {"sb_db": "", "timeout": 60, "ssl_private_key": "/etc/ovn/ovn-controller-privkey.pem",
              "ssl_certificate": "/etc/ovn/ovn-controller-cert.pem", "ssl_ca_cert": "/etc/ovn/ovn-cacert.pem"}


@pytest.mark.parametrize("change", [{}, {"sb_db": "ssl:10.10.0.4:6642"}, {"sb_db": "tcp:127.0.0.1:6642,unix:/run/ovn/sb.sock"},
                                    {"timeout": "30"}])
def test_sound_ovn_controller_settings_pass(change):
    assert ovs.controller_errors(dict(CONTROLLER, **change)) == []


@pytest.mark.parametrize("change, message", [
    ({"sb_db": "tcp:127.0.0.1:70000"}, "ovn_controller_sb_db: 'tcp:127.0.0.1:70000' is not an OVSDB remote ('tcp:127.0.0.1:70000'); "
                                       "write ssl:IP:PORT, tcp:IP:PORT or unix:PATH (several separated by commas), for example "
                                       "ssl:10.10.0.4:6642 (or leave it \"\" to use the chassis' ovn-remote)"),
    ({"sb_db": "tcp:10.10.0.300:6642"}, "ovn_controller_sb_db: 'tcp:10.10.0.300:6642' is not an OVSDB remote ('tcp:10.10.0.300:6642')"),
    ({"sb_db": "ssl:10.10.0.4"}, "ovn_controller_sb_db: 'ssl:10.10.0.4' is not an OVSDB remote"),
    ({"timeout": 0}, "ovn_controller_timeout: 0 is not a number of seconds of at least 1; give the seconds to wait"),
    ({"timeout": "soon"}, "ovn_controller_timeout: 'soon' is not a number of seconds"),
    ({"ssl_ca_cert": "ovn-cacert.pem"}, "ovn_controller_ssl_ca_cert: 'ovn-cacert.pem' is not an absolute path; give the file's full path"),
])
def test_ovn_controller_refusals_name_the_variable(change, message):
    errors = ovs.controller_errors(dict(CONTROLLER, **change))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_ovn_controller_errors_filter():
    from ansible.errors import AnsibleFilterError
    from ansible_collections.offload.testbed.plugins.filter.ovs import FilterModule
    errors = FilterModule().filters()["ovn_controller_errors"]
    assert errors(dict(CONTROLLER, sb_db="tcp:10.10.0.300:6642"))[0].startswith("ovn_controller_sb_db: ")
    assert errors(CONTROLLER) == []
    with pytest.raises(AnsibleFilterError):
        errors("tcp:10.10.0.4:6642")


def test_uplink_type_of_the_dpdk_datapath_is_dpdk():
    assert ovs.uplink_type("dpdk") == "dpdk"


# OVS-DPDK as the virtual lab runs it (inventories/virtual/host_vars/lab-dut.yml)
DPDK = dict(ROLE, datapath="dpdk", dpdk_init=True, dpdk_socket_mem="256", dpdk_socket_limit="256", dpdk_lcore_mask="0x1", dpdk_extra="--no-pci",
            dpdk_hugepage_dir="/dev/hugepages", pmd_cpu_mask="0x2", uplink_pmd_rxq_affinity="", uplink="", representors=[])


def test_the_dpdk_datapath_is_the_userspace_one_with_dpdk_initialised_and_its_eal_arguments():
    spec = ovs.role_switch(DPDK)
    assert spec["other_config"] == {"hw-offload": "false", "default-datapath-type": "netdev", "dpdk-init": "true",
                                    "dpdk-socket-mem": "256", "dpdk-socket-limit": "256", "dpdk-lcore-mask": "0x1", "dpdk-hugepage-dir": "/dev/hugepages",
                                    "dpdk-extra": "--no-pci", "pmd-cpu-mask": "0x2"}
    assert [(b["name"], b["datapath_type"]) for b in spec["bridges"]] == [("underlay", "netdev"), ("br-int", "netdev")]
    uplink = ovs.role_switch(dict(DPDK, uplink="0000:03:00.0", uplink_options={"dpdk-devargs": "0000:03:00.0"}))["bridges"][0]["ports"][0]
    assert (uplink["type"], uplink["options"]) == ("dpdk", {"dpdk-devargs": "0000:03:00.0", "n_rxq": 6})


def test_dpdk_init_off_on_the_netdev_datapath_removes_it_and_restarts_ovs_vswitchd():
    """A bench switched back from dpdk to netdev (compare.yml): DPDK is not initialised at the next start."""
    spec = ovs.role_switch(dict(DPDK, datapath="netdev", dpdk_init=False))
    assert spec["other_config"]["dpdk-init"] is None
    model = empty_model()
    model["open_vswitch"]["other_config"] = {"dpdk-init": "true"}
    cmds, restart = ovs.plan({"other_config": {"dpdk-init": None}}, model)
    assert (cmds, restart) == ([["remove", "Open_vSwitch", ".", "other_config", "dpdk-init"]], ["dpdk-init"])
    # OVS-DOCA's own keys are left as they are
    assert "dpdk-init" not in ovs.role_switch(dict(ROLE, dpdk_init=False))["other_config"]


@pytest.mark.parametrize("key", ["dpdk-init", "dpdk-socket-mem", "dpdk-socket-limit", "dpdk-lcore-mask", "dpdk-hugepage-dir", "dpdk-extra"])
def test_the_eal_arguments_are_read_only_at_start(key):
    assert ovs.plan({"other_config": {key: "1"}}, empty_model())[1] == [key]


@pytest.mark.parametrize("change, message", [
    ({"dpdk_socket_mem": "1G"}, "ovs_dpdk_socket_mem: '1G' is not megabytes per NUMA node; write it like 1024 or 1024,1024"),
    ({"dpdk_socket_mem": "1024,,1024"}, "ovs_dpdk_socket_mem: '1024,,1024' is not megabytes per NUMA node"),
    ({"dpdk_socket_limit": "all"}, "ovs_dpdk_socket_limit: 'all' is not megabytes per NUMA node"),
    ({"dpdk_lcore_mask": "cpu0"}, "ovs_dpdk_lcore_mask: 'cpu0' is not hexadecimal; write the CPU mask like 0x1 (CPU 0)"),
    ({"dpdk_init": False}, "ovs_dpdk_init: false on the dpdk datapath, whose ports need DPDK initialised; "
                           "leave ovs_dpdk_init unset or true, or pick another ovs_datapath"),
])
def test_dpdk_refusals_name_the_variable(change, message):
    errors = ovs.validate_role(dict(DPDK, **change), isolated={1})
    assert any(e.startswith(message) for e in errors), errors


def test_the_virtual_labs_dpdk_settings_are_sound():
    assert ovs.validate_role(DPDK, isolated={1}) == []
    assert ovs.validate_role(dict(DPDK, dpdk_socket_mem="1024,1024"), isolated={1}) == []


MEMINFO = "MemTotal:       24683412 kB\nHugePages_Total:     %d\nHugePages_Free:      %d\nHugepagesize:       2048 kB\n"


def test_the_dpdk_datapath_is_refused_without_the_free_hugepages_its_socket_memory_needs():
    """ovs-vswitchd initialises DPDK as soon as dpdk-init is set, and aborts in a loop without hugepages."""
    assert ovs.dpdk_memory_errors(DPDK, MEMINFO % (0, 0), False) == [
        "ovs_dpdk_socket_mem: 256 MB of hugepages for DPDK, and the host has 0 MB free (HugePages_Free 0 of 2048 kB); "
        "reserve them first (the dpdk_host role's dpdk_host_hugepages, or boot_params), or ask for less"]
    assert ovs.dpdk_memory_errors(DPDK, MEMINFO % (192, 127), False)[0].startswith("ovs_dpdk_socket_mem: 256 MB of hugepages")
    assert ovs.dpdk_memory_errors(DPDK, MEMINFO % (192, 128), False) == []
    assert ovs.dpdk_memory_errors(dict(DPDK, dpdk_socket_mem="256,512"), MEMINFO % (192, 192), False)[0].startswith(
        "ovs_dpdk_socket_mem: 512 MB")
    assert ovs.dpdk_memory_errors(dict(DPDK, dpdk_socket_mem=""), MEMINFO % (0, 0), False)[0].startswith(
        "ovs_datapath: dpdk needs hugepages, and the host has 0 MB free")


def test_the_hugepages_are_not_checked_once_dpdk_holds_them_or_off_the_dpdk_datapath():
    assert ovs.dpdk_memory_errors(DPDK, MEMINFO % (192, 0), True) == []
    assert ovs.dpdk_memory_errors(dict(DPDK, datapath="netdev", dpdk_init=False), MEMINFO % (0, 0), False) == []


# The one rule for names (validate.py) on the ovs role's variables: the kernel's for bridges and for the ports the kernel
# sees, the database's (no white space around it) for the others.
@pytest.mark.parametrize("change, message", [
    ({"underlay_bridge": "underlay-of-the-lab", "representors": []},
     "ovs_underlay_bridge: 'underlay-of-the-lab' is 19 characters long; the kernel takes at most 15 in the name of an Open vSwitch bridge, "
     "a kernel interface too"),
    ({"integration_bridge": "br-int ", "representors": []},
     "ovs_integration_bridge: 'br-int ' has trailing white space, which the kernel refuses in the name of an Open vSwitch bridge"),
    ({"ovn_bridge": "br/int"}, "ovs_ovn_bridge: 'br/int' holds '/'"),
    ({"uplink": "ens3f0np0 "}, "ovs_uplink: 'ens3f0np0 ' has trailing white space, which the kernel refuses in the name of an Open "
                               "vSwitch port of type doca, a kernel interface too; write 'ens3f0np0'"),
    ({"representors": [{"name": "ens3f0npf0vf0-of-the-dut", "bridge": "underlay"}]},
     "ovs_representors[0].name: 'ens3f0npf0vf0-of-the-dut' is 24 characters long"),
    # 15 characters are the most the kernel takes
    ({"internal_ports": [{"name": "management-ports", "tag": 10}, {"name": "overlay-network", "tag": 30}]},
     "ovs_internal_ports[0].name: 'management-ports' is 16 characters long"),
    ({"system_id": " gen01"}, "ovs_system_id: ' gen01' has leading white space, which the database would keep as part of the chassis "
                              "name (external_ids:system-id) (what looks for 'gen01' would not find it); write 'gen01'"),
    ({"ovn_bridge_mappings": "physnet1: underlay"}, "ovs_ovn_bridge_mappings: ' underlay' has leading white space, which the kernel "
                                                    "refuses in the name of the bridge of a bridge mapping"),
    ({"ovn_bridge_mappings": "physnet1 :underlay"}, "ovs_ovn_bridge_mappings: 'physnet1 ' has trailing white space, which the database "
                                                    "would keep as part of the physical network name of a bridge mapping"),
])
def test_role_names_follow_the_one_rule(change, message):
    errors = ovs.validate_role(dict(ROLE, **change), isolated=set(range(2, 16)))
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_a_dpdk_uplink_is_a_row_not_a_kernel_interface():
    """On the dpdk datapath the uplink is a dpdk port, named as the user likes (only no white space around it)."""
    dpdk = dict(ROLE, datapath="dpdk", uplink="dpdk-uplink-port-0", representors=[], pmd_cpu_mask="", uplink_pmd_rxq_affinity="")
    assert [e for e in ovs.validate_role(dpdk, isolated=set(range(2, 16))) if "uplink" in e] == []
    errors = ovs.validate_role(dict(dpdk, uplink="dpdk-uplink-port-0 "), isolated=set(range(2, 16)))
    assert [e for e in errors if e.startswith("ovs_uplink: 'dpdk-uplink-port-0 ' has trailing white space, which the database")], errors


def test_the_interface_ovn_controller_must_route_through():
    assert ovs.controller_errors(dict(CONTROLLER, remote_interface="mgt")) == []
    assert ovs.controller_errors(dict(CONTROLLER, remote_interface="mgt ")) == [
        "ovn_controller_remote_interface: 'mgt ' has trailing white space, which the kernel refuses in the name of the interface "
        "ovn-controller reaches the Southbound database through; write 'mgt'"]
