"""vm_lab: validation naming the variables, wires, the QEMU command line, the image key and the plan per guest."""
import copy

from ansible_collections.offload.testbed.plugins.module_utils.lab import vm as vm_lab

GUESTS = [
    {"name": "dut01", "memory_mib": 2048, "cpus": 2, "ssh_port": 2222, "mgmt_mac": "52:54:00:0a:00:02",
     "nics": [{"wire": "dut-gen", "model": "igb", "mac": "52:54:00:0b:00:02"}]},
    {"name": "gen01", "memory_mib": 1536, "cpus": 2, "ssh_port": 2223, "mgmt_mac": "52:54:00:0a:00:03",
     "nics": [{"wire": "dut-gen", "model": "igb", "mac": "52:54:00:0b:00:03"}]},
]
LAB = {"qemu": "qemu-system-x86_64", "accel": "tcg", "state_dir": "/lab/guests", "public_key": "/lab/id_ed25519.pub",
       "wire_base": 40000, "guests": GUESTS, "state": "running"}


def test_a_good_lab_has_no_errors():
    assert vm_lab.validate(GUESTS, 40000) == []


def test_every_problem_at_once_naming_the_variable():
    guests = copy.deepcopy(GUESTS)
    guests[0]["memory_mib"] = 100
    guests[1]["ssh_port"] = 2222
    guests[1]["nics"][0]["model"] = "mlx5"
    guests[1]["nics"][0]["mac"] = "52:54:00:0b:00:02"
    errors = vm_lab.validate(guests, 40000)
    assert "vm_lab_guests[0].memory_mib: 100 is outside 512..65536; give the guest's memory in MiB, for example 2048" in errors
    assert "vm_lab_guests[1].ssh_port: 2222 is taken by another guest or port forward; give each its own" in errors
    assert any(e.startswith("vm_lab_guests[1].nics[0].model: 'mlx5' is not a NIC this lab emulates") for e in errors)
    assert "vm_lab_guests[1]: MAC 52:54:00:0b:00:02 is used twice; every NIC of the lab needs its own" in errors
    assert len(errors) == 4


def test_a_wire_with_one_end_is_refused():
    guests = copy.deepcopy(GUESTS)
    guests[1]["nics"][0]["wire"] = "gen-nowhere"
    errors = vm_lab.validate(guests, 40000)
    assert "wire 'dut-gen' has 1 end(s) (vm_lab_guests[dut01].nics[0]); a wire joins exactly two NICs" in errors
    assert "wire 'gen-nowhere' has 1 end(s) (vm_lab_guests[gen01].nics[0]); a wire joins exactly two NICs" in errors


def test_the_two_ends_of_a_wire_send_to_each_other():
    ports = vm_lab.wire_ports(40000, GUESTS)
    assert ports == {("dut01", 0): (40000, 40001), ("gen01", 0): (40001, 40000)}


def test_the_command_line_of_a_guest():
    argv = vm_lab.guest_argv(GUESTS[0], LAB)
    text = " ".join(argv)
    assert argv[:3] == ["qemu-system-x86_64", "-name", "dut01"]
    assert "-machine q35,accel=tcg,kernel-irqchip=split -device intel-iommu,intremap=on,caching-mode=on -cpu max" in text
    assert "-netdev user,id=mgmt,hostfwd=tcp:127.0.0.1:2222-:22 -device virtio-net-pci,netdev=mgmt,mac=52:54:00:0a:00:02,addr=0x3" in text
    assert "-netdev socket,id=w0,udp=127.0.0.1:40001,localaddr=127.0.0.1:40000" in text
    assert "-device pcie-root-port,id=rp0,chassis=1,addr=0x4 -device igb,netdev=w0,mac=52:54:00:0b:00:02,bus=rp0" in text
    assert "-fw_cfg name=opt/offload.testbed/hostname,string=dut01" in text
    assert "-fw_cfg name=opt/offload.testbed/authorized_keys,file=/lab/id_ed25519.pub" in text
    assert text.endswith("-serial file:/lab/guests/dut01.console.log -monitor unix:/lab/guests/dut01.monitor.sock,server=on,wait=off "
                         "-daemonize -pidfile /lab/guests/dut01.pid")


def test_the_image_key_follows_the_package_set_not_its_order():
    first = vm_lab.image_key("bookworm", "http://deb.debian.org/debian", ["python3", "sudo"])
    assert first == vm_lab.image_key("bookworm", "http://deb.debian.org/debian", ["sudo", "python3", "sudo"])
    assert first != vm_lab.image_key("bookworm", "http://deb.debian.org/debian", ["python3", "sudo", "tcpdump"])
    assert first != vm_lab.image_key("trixie", "http://deb.debian.org/debian", ["python3", "sudo"])
    assert len(first) == 16 and int(first, 16) >= 0


def test_the_plan_of_a_guest():
    argv = vm_lab.guest_argv(GUESTS[0], LAB)
    assert vm_lab.plan_guest(GUESTS[0], LAB, None) == "start"
    assert vm_lab.plan_guest(GUESTS[0], LAB, argv) is None
    assert vm_lab.plan_guest(GUESTS[0], LAB, argv[:-1]) == "restart"
    assert vm_lab.plan_guest(GUESTS[0], dict(LAB, state="absent"), argv) == "stop"
    assert vm_lab.plan_guest(GUESTS[0], dict(LAB, state="absent"), None) is None


def test_a_guest_named_to_restart_restarts_whatever_it_runs():
    argv = vm_lab.guest_argv(GUESTS[0], LAB)
    lab = dict(LAB, restart=["dut01"])
    assert vm_lab.plan_guest(GUESTS[0], lab, argv) == "restart"
    assert vm_lab.plan_guest(GUESTS[0], lab, None) == "start"
    assert vm_lab.plan_guest(GUESTS[1], lab, vm_lab.guest_argv(GUESTS[1], LAB)) is None
    assert vm_lab.plan_guest(GUESTS[0], dict(lab, state="absent"), argv) == "stop"


def test_a_guest_to_restart_that_the_lab_does_not_have_is_refused():
    assert vm_lab.validate(GUESTS, 40000, ["dut01"]) == []
    assert vm_lab.validate(GUESTS, 40000, ["dut1"]) == ["restart: 'dut1' is not a guest of vm_lab_guests; name one of dut01, gen01"]


def test_proc_cmdline_is_read_as_argv():
    assert vm_lab.running_argv(b"qemu-system-x86_64\0-name\0dut01\0") == ["qemu-system-x86_64", "-name", "dut01"]


def test_port_forwards_of_the_management_nic():
    guests = copy.deepcopy(GUESTS)
    guests[1]["forwards"] = [{"host": 24501, "guest": 4501}, {"host": 24500, "guest": 4500}]
    lab = dict(LAB, guests=guests)
    argv = vm_lab.guest_argv(guests[1], lab)
    assert argv[argv.index("-netdev") + 1] == (
        "user,id=mgmt,hostfwd=tcp:127.0.0.1:2223-:22,hostfwd=tcp:127.0.0.1:24501-:4501,hostfwd=tcp:127.0.0.1:24500-:4500")


def test_a_forward_on_a_taken_port_or_out_of_range_is_refused():
    guests = copy.deepcopy(GUESTS)
    guests[1]["forwards"] = [{"host": 2222, "guest": 4501}, {"host": 24500, "guest": 70000}]
    errors = vm_lab.validate(guests, 40000)
    assert "vm_lab_guests[1].forwards[0].host: 2222 is taken by another guest or port forward; give each its own" in errors
    assert any(e.startswith("vm_lab_guests[1].forwards[1].guest: 70000") for e in errors)
    assert len(errors) == 2
