"""The VM lab, run for real (docs/vm_lab.md): three Debian guests under QEMU,
reached over SSH with become; playbooks/site.yml on them, then compare.yml
(the kernel datapath with TC flower against without), a second run that must
change nothing, a real reboot of the DUT, and the lab removed.

What is checked on the guests is read on the guests (over the same SSH), and
what is checked in the results is read from the results files. One module
fixture runs the lab once; each test reads one part of what it left.
"""
# pylint: disable=redefined-outer-name
import glob
import json
import os
import re
import shlex
import subprocess
import time

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("BIN") or os.path.join(ROOT, ".venv", "bin")
INVENTORY = os.path.join(ROOT, "inventories", "vm")
DUT_PF = "enp2s0"
DUT_VF_MACS = ["52:54:00:0e:00:10", "52:54:00:0e:00:11"]
DPDK_VF = "0000:02:10.2"
GUESTS = os.path.join(ROOT, ".tmp", "vm-lab", "guests")


def _ssh_argvs():
    """``ssh`` to each guest as Ansible reaches it: user, key, port and SSH options from inventories/vm/hosts.yml."""
    with open(os.path.join(INVENTORY, "hosts.yml")) as handle:
        guests = yaml.safe_load(handle)["all"]["children"]["vm_guests"]
    options = guests["vars"]["ansible_ssh_common_args"].split()
    key = os.path.normpath(guests["vars"]["ansible_ssh_private_key_file"].replace("{{ inventory_dir }}", INVENTORY))
    login = "%s@%s" % (guests["vars"]["ansible_user"], guests["vars"]["ansible_host"])
    return dict((name, ["ssh", "-i", key, "-p", str(host["ansible_port"])] + options + ["-o", "BatchMode=yes", login])
                for name, host in guests["hosts"].items())


SSH = _ssh_argvs()


def _env(tmp_path):
    base = tmp_path / "collections"
    (base / "ansible_collections" / "offload").mkdir(parents=True)
    os.symlink(ROOT, base / "ansible_collections" / "offload" / "testbed")
    return dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(base), ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                ANSIBLE_NOCOLOR="1", ANSIBLE_HOME=str(tmp_path / "ansible-home"))


class Lab(object):
    """Runs the lab's playbooks and commands on its guests; keeps each playbook's time and log."""

    def __init__(self, tmp_path):
        self.env = _env(tmp_path)
        self.logs = tmp_path
        self.results = str(tmp_path / "results")
        self.suffix = "-vmtest"
        self.times = {}

    def playbook(self, name, playbook, *args, json_out=False):
        env = dict(self.env, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json") if json_out else self.env
        started = time.time()
        proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", INVENTORY, os.path.join(ROOT, "playbooks", playbook)]
                              + list(args), env=env, cwd=ROOT, capture_output=True, text=True, check=False)
        self.times[name] = round(time.time() - started)
        (self.logs / ("%s.log" % name)).write_text(proc.stdout + proc.stderr)
        print("vm lab: %s took %d s (log %s)" % (name, self.times[name], self.logs / ("%s.log" % name)))
        assert proc.returncode == 0, "%s failed:\n%s" % (name, (proc.stdout + proc.stderr)[-6000:])
        return json.loads(proc.stdout) if json_out else proc.stdout

    def bench_args(self):
        return ["-e", "bench_results_dir=%s" % self.results, "-e", "bench_run_suffix=%s" % self.suffix]

    def shell(self, host, command):
        """stdout of ``command`` run as root on a guest: ``sudo sh -c`` over the lab's SSH (the inventory's user,
        key, port and options), without an Ansible process and a module start per check."""
        proc = subprocess.run(SSH[host] + ["sudo -n sh -c %s" % shlex.quote(command)],
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, "%s on %s: rc %d\n%s%s" % (command, host, proc.returncode, proc.stdout, proc.stderr)
        return proc.stdout.strip()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab(tmp_path_factory.mktemp("vm-lab"))
    try:
        lab.playbook("up", "vm_lab.yml")
        lab.site = lab.playbook("site", "site.yml", *lab.bench_args())
        lab.playbook("compare", "compare.yml", *lab.bench_args())
        # The virtual lab's packet checks (gen01's namespaces) ran in the first run: what is checked here is that nothing changes.
        lab.second = lab.playbook("site-again", "site.yml", "--tags", "prepare,ovn_build,datapath,topology", "-e", "site_lab_checks=false",
                                  json_out=True)
        yield lab
    finally:
        lab.playbook("down", "vm_lab.yml", "-e", "vm_lab_state=absent")
        print("vm lab: times in seconds %s" % json.dumps(lab.times))


def _results(lab, label):
    documents = []
    for path in glob.glob(os.path.join(lab.results, "*.json")):
        with open(path) as handle:
            document = json.load(handle)
        if isinstance(document, dict) and document.get("datapath") == label:
            documents.append(document)
    return documents


def test_a_second_run_changes_nothing_in_prepare_datapath_and_topology(lab):
    changed = dict((host, stats["changed"]) for host, stats in lab.second["stats"].items() if host != "localhost")
    assert changed == {"ctl01": 0, "dut01": 0, "gen01": 0}, changed
    assert all(stats["failures"] == 0 and stats["unreachable"] == 0 for stats in lab.second["stats"].values())


def test_doca_and_firmware_ran_inside_gen01_against_its_emulated_connectx_behind_the_guard(lab):
    # The world is at the checkout's path inside the guest (roles/vm_lab, tasks emulated.yml).
    world = os.path.join(ROOT, ".tmp", "virtual-lab", "hardware", "gen01")
    guard = re.search(r"TASK \[offload\.testbed\.virtual_lab : Refuse host stages that could touch the real machine[^\n]*\n(\w+): \[(\w+)\]",
                      lab.site)
    assert guard and guard.groups() == ("ok", "gen01"), lab.site[-3000:]
    mlnx = lab.shell("gen01", "cat %s/state/mlnx/calls.log" % world).splitlines()
    doca = lab.shell("gen01", "cat %s/state/doca/calls.log" % world).splitlines()
    cards = json.loads(lab.shell("gen01", "cat %s/state/mlnx/devices.json" % world))
    assert [line for line in mlnx if line.startswith("flint burn")] == ["flint burn 0000:32:00.0 26.47.1026"], mlnx
    assert len([line for line in doca if line.startswith("doca-kernel-support ")]) == 1, doca
    assert [card["running"] for card in cards if card["pci"] == "0000:32:00.0"] == ["26.47.1026"], cards
    # Nothing of it on dut01, whose host stages are the real ones.
    assert lab.shell("dut01", "test -e %s && echo present || echo absent" % world) == "absent"


def test_boot_arguments_took_effect_through_grub_and_a_real_reboot(lab):
    cmdline = lab.shell("dut01", "cat /proc/cmdline").split()
    assert {"intel_iommu=on", "iommu=pt", "hugepagesz=2M", "hugepages=256", "isolcpus=1"} <= set(cmdline), cmdline
    assert lab.shell("dut01", "cat /sys/devices/system/cpu/isolated") == "1"
    assert lab.shell("dut01", "cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages") == "256"
    assert lab.shell("dut01", "test -f /etc/default/grub.d/90-offload-testbed.cfg && echo grub") == "grub"


def test_legacy_sriov_vfs_with_both_macs_and_a_vf_on_vfio_under_the_viommu(lab):
    link = json.loads(lab.shell("dut01", "ip -j link show dev %s" % DUT_PF))[0]
    assert [vf["address"] for vf in link["vfinfo_list"]] == DUT_VF_MACS
    assert lab.shell("dut01", "cat /sys/class/net/%s/device/virtfn0/net/*/address" % DUT_PF) == DUT_VF_MACS[0]
    assert lab.shell("dut01", "basename $(readlink /sys/bus/pci/devices/%s/driver)" % DPDK_VF) == "vfio-pci"
    assert DPDK_VF in lab.shell("dut01", "ls /sys/bus/pci/devices/%s/iommu_group/devices" % DPDK_VF).split()


def test_ovn_with_ssl_and_geneve_between_the_two_chassis(lab):
    show = lab.shell("ctl01", "ovn-sbctl --db=unix:/var/run/ovn/ovnsb_db.sock show")
    assert "Chassis dut01" in show and "Chassis gen01" in show and show.count("Encap geneve") == 2
    for chassis in ("dut01", "gen01"):
        assert lab.shell(chassis, "ovs-vsctl get Open_vSwitch . external_ids:ovn-remote") == '"ssl:10.10.0.4:6642"'
        assert lab.shell(chassis, "ovn-appctl -t ovn-controller connection-status") == "connected"
    assert "type: geneve" in lab.shell("dut01", "ovs-vsctl show")


def test_results_carry_the_guest_kernel_the_datapath_and_a_tc_share(lab):
    system, with_tc = _results(lab, "system"), _results(lab, "system-tc")
    assert system and with_tc
    for document in system + with_tc:
        assert document["metadata"]["dut_system"]["kernel"].endswith("-amd64")
        assert "VM lab" in document["metadata"]["lab"]
    offload = [trial["offload"] for document in with_tc for search in document["searches"] for trial in search["trials"]
               if trial.get("offload") and trial["offload"].get("tc_share") is not None]
    assert offload and max(record["tc_share"] for record in offload) > 0
    assert all(record["offloaded_share"] == 0.0 for record in offload if record["offloaded_share"] is not None)


def _lower_bounds(document):
    return [goal["lower_bound"] for search in document["searches"] for goal in ((search.get("result") or {}).get("goals") or {}).values()]


def test_the_userspace_datapath_and_ovs_dpdk_carried_the_benchs_traffic(lab):
    """netdev and dpdk ran on dut01 as their other_config says, and every bench packet crossed them (a bound above zero)."""
    for label, dpdk_init in (("netdev", None), ("dpdk", "true")):
        documents = _results(lab, label)
        assert documents, label
        for document in documents:
            other_config = document["metadata"]["dut_system"]["ovs_other_config"]
            assert other_config.get("default-datapath-type") == "netdev" and other_config.get("dpdk-init") == dpdk_init, other_config
            assert document["metadata"]["compare_variant"]["datapath"] == label
            assert any(bound > 0 for bound in _lower_bounds(document)), (label, document["searches"])
    # restored: the kernel datapath again, no PMD mask left behind
    assert lab.shell("dut01", "ovs-vsctl get Open_vSwitch . other_config:default-datapath-type") == "system"
    assert "pmd-cpu-mask" not in lab.shell("dut01", "ovs-vsctl get Open_vSwitch . other_config")


def test_the_report_opens_with_the_kernel_datapath_comparison(lab):
    with open(os.path.join(lab.results, "report", "report.md")) as handle:
        report = handle.read()
    assert report.splitlines()[0].endswith("system-tc, netdev, dpdk against system"), report.splitlines()[0]
    assert "| scenario | system-tc / system udp | netdev / system udp | dpdk / system udp |" in report


def test_testpmd_drives_the_vf_on_vfio_and_its_frames_reach_the_generator(lab):
    """The DPDK in a VM bench's check: DPDK's igb VF driver runs the VF that dpdk_host bound to vfio-pci (under the
    emulated IOMMU), on the boot-time hugepages; testpmd's frames leave with the VF's MAC and arrive on gen01."""
    mac = DUT_VF_MACS[1]
    lab.shell("gen01", "rm -f /tmp/vf.pcap; setsid -f timeout 120 tcpdump -c 50 -w /tmp/vf.pcap -ni enp2s0 ether src %s "
                       ">/dev/null 2>&1; sleep 3; echo listening" % mac)
    out = lab.shell("dut01", "timeout -s INT 25 dpdk-testpmd -l 0,1 -a %s --file-prefix=vmtest -m 128 -- --forward-mode=txonly "
                             "--stats-period 5 --nb-cores=1 </dev/null 2>&1 | grep -aE 'Port 0|TX-packets' || true" % DPDK_VF)
    # (testpmd prints the link's "Link up" event only when it comes before the first stats: not a check)
    assert "Port 0: %s" % mac.upper() in out, out
    sent = [int(word) for line in out.splitlines() if "TX-packets:" in line for word in [line.split("TX-packets:")[1].split()[0]]]
    assert sent and max(sent) > 0, out
    seen = lab.shell("gen01", "sleep 2; tcpdump -enr /tmp/vf.pcap 2>/dev/null | grep -c '%s > 02:00:00:00:00:00' || true" % mac)
    assert int(seen) > 0, seen


def _qemu_runs(name):
    """Whether the guest's QEMU process (its pid file under .tmp/vm-lab/guests) still runs."""
    try:
        with open(os.path.join(GUESTS, "%s.pid" % name)) as handle:
            os.kill(int(handle.read().strip()), 0)
    except (OSError, ValueError):
        return False
    return True


def reboot(lab, name):
    """Reboot a guest through Ansible's reboot module, as the lab's roles do.

    QEMU 10 running the DUT (igb with SR-IOV VFs, intel-iommu) now and then
    exits while the guest reboots: its process is gone and its console stops
    in the next boot's PCI scan. Then the reboot module is stopped, that
    console log kept as ``<name>.console.log.exited`` and the guest started
    again on its own disk by the lab's playbook: a power cycle in place of the
    warm reset, said on stdout. Anything else that fails the reboot fails it.
    """
    proc = subprocess.Popen([os.path.join(BIN, "ansible"), "-i", INVENTORY, name, "-m", "ansible.builtin.reboot", "-a", "reboot_timeout=600"],
                            env=lab.env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    while proc.poll() is None and _qemu_runs(name):
        time.sleep(2)
    if proc.poll() is None:
        proc.terminate()
        proc.communicate()
        console = os.path.join(GUESTS, "%s.console.log" % name)
        os.replace(console, console + ".exited")
        print("vm lab: %s's QEMU exited while the guest rebooted (console log %s.exited); started again on its disk" % (name, console))
        lab.playbook("up-again", "vm_lab.yml")
        return
    out = proc.communicate()[0]
    assert proc.returncode == 0, "reboot of %s: rc %d\n%s" % (name, proc.returncode, out[-3000:])


def test_vfs_and_their_macs_come_back_after_another_reboot(lab):
    reboot(lab, "dut01")
    link = json.loads(lab.shell("dut01", "ip -j link show dev %s" % DUT_PF))[0]
    assert [vf["address"] for vf in link["vfinfo_list"]] == DUT_VF_MACS
    # The unit that redid them ran in this boot, and succeeded.
    unit = "offload-testbed-sriov-switchdev.service"
    assert lab.shell("dut01", "systemctl show -p ExecMainStatus --value %s" % unit) == "0"
    assert lab.shell("dut01", "systemctl show -p ExecMainStartTimestampMonotonic --value %s" % unit) != "0"
