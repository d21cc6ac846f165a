"""module_utils/prepare/dpdk_devbind.py on real outputs: dpdk-devbind.py --status and ip -j of this machine."""
import os

from ansible_collections.offload.testbed.plugins.module_utils.prepare import dpdk_devbind

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def machine():
    routes = dpdk_devbind.parse_routes(fixture("dpdk_ip_j_route_show_firecracker.json"))
    routes += dpdk_devbind.parse_routes(fixture("dpdk_ip_j_6_route_show_firecracker.json"))
    return {"addresses": dpdk_devbind.parse_addresses(fixture("dpdk_ip_j_addr_show_firecracker.json")), "routes": routes}


def management(addresses=(), interfaces=()):
    return {"host": machine(), "addresses": list(addresses), "interfaces": list(interfaces)}


def drivers(*registered, **modprobe):
    """The host's drivers as the module reads them: those registered, and what modprobe -n said of others (None: it loads them)."""
    return {"registered": set(registered or ("vfio-pci",)), "modprobe": modprobe}


def test_parse_status_of_this_machine():
    status = dpdk_devbind.parse_status(fixture("dpdk_devbind_status_firecracker_virtio.txt"))
    assert status["0000:00:03.0"] == {"section": "Network devices using kernel driver", "device": "Virtio 1.0 network device 1041",
                                      "if": "eth0", "drv": "virtio-pci", "unused": "", "active": True}
    assert status["0000:00:02.0"]["section"] == "Misc (rawdev) devices using kernel driver"
    assert sorted(status) == ["0000:00:02.0", "0000:00:03.0"]


def test_parse_ip_of_this_machine():
    host = machine()
    assert host["addresses"]["eth0"] == ["192.0.2.2", "fd00::2", "fe80::fc:ff:fe00:1"]
    assert {"dst": "default", "dev": "eth0", "gateway": "192.0.2.1"} in host["routes"]
    assert {"dst": "default", "dev": "eth0", "gateway": "fd00::1"} in host["routes"]
    assert dpdk_devbind.parse_addresses("not json") == {} and dpdk_devbind.parse_routes("") == []


def test_management_reasons_name_the_address_and_the_route():
    reasons = dpdk_devbind.management_reasons(["eth0"], machine(), {"addresses": [("192.0.2.2", "ansible_host")], "interfaces": []})
    assert reasons == [("eth0", "has the management address 192.0.2.2 (ansible_host)"),
                       ("eth0", "carries the default route (default via 192.0.2.1 dev eth0)"),
                       ("eth0", "carries the default route (default via fd00::1 dev eth0)")]
    assert dpdk_devbind.management_reasons(["enp134s0f0"], machine(), {"addresses": [("192.0.2.2", "x")]}) == []


def test_the_management_nic_is_refused_naming_device_interface_and_route():
    device = {"exists": True, "driver": "virtio-pci", "interfaces": ["eth0"], "up": ["eth0"]}
    errors = dpdk_devbind.device_errors("dpdk_host_devices[0]", {"pci": "0000:00:03.0", "driver": "vfio-pci"}, device, drivers(),
                                        management([("192.0.2.2", "ansible_host")]), "bound")
    assert errors == ["dpdk_host_devices[0].pci: 0000:00:03.0 (driver virtio-pci) carries the management of this host: its interface "
                      "eth0 has the management address 192.0.2.2 (ansible_host); eth0 carries the default route (default via 192.0.2.1 dev eth0); "
                      "eth0 carries the default route (default via fd00::1 dev eth0); binding it to vfio-pci would cut this host off "
                      "(Ansible connects through it). Remove it from the list, or connect through another NIC"]
    # giving it back is never refused
    assert dpdk_devbind.device_errors("d[0]", {"pci": "0000:00:03.0"}, device, drivers("virtio-pci"), management(), "unbound") == []


def test_a_management_interface_named_by_the_variable():
    device = {"exists": True, "driver": "i40e", "interfaces": ["enp134s0f0"], "up": []}
    errors = dpdk_devbind.device_errors("d[0]", {"pci": "0000:86:00.0"}, device, drivers("i40e", "vfio-pci"),
                                        management(interfaces=[("enp134s0f0", "dpdk_host_management_interfaces")]), "bound")
    assert errors[0].startswith("d[0].pci: 0000:86:00.0 (driver i40e) carries the management of this host: its interface enp134s0f0 "
                                "is a management interface (dpdk_host_management_interfaces)")


def test_a_missing_or_malformed_address_is_refused():
    missing = {"exists": False, "driver": None, "interfaces": [], "up": []}
    assert dpdk_devbind.device_errors("dpdk_host_devices[1]", {"pci": "0000:99:00.0"}, missing, drivers(), management(), "bound") == [
        "dpdk_host_devices[1].pci: '0000:99:00.0' is no PCI device of this host (there is no /sys/bus/pci/devices/0000:99:00.0); "
        "list the devices with lspci -D or dpdk-devbind.py --status and use one of those"]
    errors = dpdk_devbind.device_errors("dpdk_host_devices[1]", {"pci": 3000}, None, drivers(), management(), "bound")
    assert errors == ['dpdk_host_devices[1].pci: 3000 is not a PCI address (YAML reads an unquoted value made of decimal groups separated '
                      'by colons as a base-60 number; put the value in quotes); write domain:bus:device.function in hexadecimal, '
                      'for example "0000:08:00.1" (lspci -D shows it)']


# What kmod 30's modprobe -n printed on this machine, which has no module tree (tests/fixtures/SOURCES.md).
NOT_FOUND = "modprobe: FATAL: Module igb_uio not found in directory /lib/modules/6.18.44-fc-v1098 (rc 1)"


def test_a_driver_the_host_does_not_have():
    device = {"exists": True, "driver": "i40e", "interfaces": [], "up": []}
    assert dpdk_devbind.device_errors("d[0]", {"pci": "0000:86:00.0", "driver": "igb_uio"}, device, drivers("i40e", igb_uio=NOT_FOUND),
                                      management(), "bound") == [
        "d[0].driver: 'igb_uio' is not a driver of this host: it is not loaded (nothing at /sys/bus/pci/drivers/igb_uio) and modprobe "
        "cannot load it (%s); use vfio-pci, or install the driver's module first (igb_uio is built from DPDK's dpdk-kmods)" % NOT_FOUND]
    # given back to its kernel driver, the driver asked for does not matter
    assert dpdk_devbind.device_errors("d[0]", {"pci": "0000:86:00.0", "driver": "igb_uio"}, device, drivers("i40e"), management(), "unbound") == []


def test_a_driver_spelled_as_its_module_names_the_driver():
    device = {"exists": True, "driver": "i40e", "interfaces": [], "up": []}
    assert dpdk_devbind.device_errors("d[0]", {"pci": "0000:86:00.0", "driver": "vfio_pci"}, device, drivers("i40e", vfio_pci=None),
                                      management(), "bound") == [
        "d[0].driver: 'vfio_pci' is spelled 'vfio-pci' under /sys/bus/pci/drivers, the name dpdk-devbind.py binds with; write vfio-pci"]
    assert dpdk_devbind.driver_error("d[0].driver", "vfio/pci", drivers()).startswith("d[0].driver: 'vfio/pci' is no driver name")


def test_a_driver_modprobe_can_load_is_loaded_before_the_first_bind():
    device = {"exists": True, "driver": "i40e", "interfaces": ["enp134s0f0"], "up": ["enp134s0f0"]}
    entries = [{"pci": "0000:86:00.0", "driver": "uio_pci_generic"}, {"pci": "0000:86:00.1", "driver": "uio_pci_generic"}]
    assert dpdk_devbind.device_errors("d[0]", entries[0], device, drivers("i40e", uio_pci_generic=None), management(), "bound") == []
    devices = {"0000:86:00.0": device, "0000:86:00.1": dict(device, interfaces=[], up=[])}
    assert dpdk_devbind.plan(entries, devices, {}, "bound", {"i40e"}) == [
        ("modprobe", "uio_pci_generic"), ("down", "enp134s0f0"), ("bind", "0000:86:00.0", "uio_pci_generic", "i40e"),
        ("bind", "0000:86:00.1", "uio_pci_generic", "i40e")]
    assert dpdk_devbind.plan(entries, devices, {}, "bound", {"i40e", "uio_pci_generic"})[0] == ("down", "enp134s0f0")


def test_duplicates():
    assert dpdk_devbind.duplicate_errors(["d[0]", "d[1]"], [{"pci": "0000:86:00.0"}, {"pci": "0000:86:00.0".upper()}]) == [
        "d[1].pci: 0000:86:00.0 is already listed as d[0].pci; list each device once"]


def test_plan_downs_the_interfaces_then_binds_and_gives_back_what_is_recorded():
    devices = {"0000:86:00.0": {"driver": "i40e", "interfaces": ["enp134s0f0"], "up": ["enp134s0f0"]},
               "0000:86:00.1": {"driver": "vfio-pci", "interfaces": [], "up": []}}
    entries = [{"pci": "0000:86:00.0"}, {"pci": "0000:86:00.1", "driver": "vfio-pci"}]
    assert dpdk_devbind.plan(entries, devices, {}, "bound") == [("down", "enp134s0f0"), ("bind", "0000:86:00.0", "vfio-pci", "i40e")]
    recorded = {"0000:86:00.1": {"driver": "i40e", "interfaces": ["enp134s0f1"], "up": []}}
    assert dpdk_devbind.plan(entries, devices, recorded, "unbound") == [("bind", "0000:86:00.1", "i40e", "vfio-pci")]


def test_bind_argv():
    assert dpdk_devbind.bind_argv(["dpdk-devbind.py"], "0000:86:00.0", "vfio-pci") == ["dpdk-devbind.py", "-b", "vfio-pci", "0000:86:00.0"]
    assert dpdk_devbind.bind_argv(["dpdk-devbind.py"], "0000:86:00.0", None) == ["dpdk-devbind.py", "-u", "0000:86:00.0"]


def test_parse_lspci_real_records():
    virtio = dpdk_devbind.parse_lspci(fixture("lspci_Dvmmnnk_firecracker_virtio.txt"))
    assert virtio["0000:00:03.0"]["Device"] == "Virtio 1.0 network device [1041]" and virtio["0000:00:03.0"]["Driver"] == "virtio-pci"
    assert sorted(virtio) == ["0000:00:00.0", "0000:00:01.0", "0000:00:02.0", "0000:00:03.0", "0000:00:04.0", "0000:00:05.0"]
    xl710 = dpdk_devbind.parse_lspci(fixture("lspci_Dvmmnnk_xl710_vfio.txt"))["0000:86:00.0"]
    assert (xl710["Driver"], xl710["Module"], xl710["NUMANode"], xl710["IOMMUGroup"]) == ("vfio-pci", "i40e", "1", "8")


def test_active_interfaces_as_dpdk_devbind_sees_them():
    assert dpdk_devbind.active_interfaces(fixture("dpdk_ip_o_route_firecracker.txt")) == {"eth0", "mgt", "overlay"}
