# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The bench fingerprint: what dut_health reads of the host (bench_host, on a sysfs and /proc laid out in a temporary
directory) and the fields, family and refusals fingerprint.py makes of a results document."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import bench_host
from ansible_collections.offload.testbed.plugins.module_utils.bench import fingerprint as fp
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture


def document(firmware="26.41.1000", psid="MT_0000000531", datapath="doca", other_config=None, **system):
    """A results document's header as trex_bench writes it, on the ConnectX-6 Lx reference bench's DUT."""
    dut_system = {"hostname": "dut01", "kernel": "6.1.0-28-amd64", "cmdline": "BOOT_IMAGE=/vmlinuz isolcpus=2-5", "cpu_model": "Intel(R) Xeon(R) Gold 6338",
                  "isolated_cpus": "2-5", "hugepages": {"2048kB": 1024, "1048576kB": 0}, "ovs_version": "ovs-vswitchd (Open vSwitch) 3.3.4",
                  "ovn_version": None, "dpdk_version": "DPDK 23.11.0", "ovs_other_config": other_config or {"doca-init": "true", "hw-offload": "true"},
                  "pmd_cpus": {"3": 0, "2": 0}, "doca_packages": {"doca-networking": "3.1.0-091000"},
                  "nics": {"ens1f0np0": {"driver": "mlx5_core", "version": "25.07-0.9.7", "firmware_version": firmware, "psid": psid,
                                         "bus_info": "0000:3b:00.0", "numa_node": 0, "pci_id": "15b3:101f", "pci_subsystem": "15b3:0016"}}}
    dut_system.update(system)
    return {"datapath": datapath, "metadata": {"dut_host": "dut01", "dut_system": dut_system},
            "generator": {"client": "trex_stl_lib", "version": {"version": "v3.04", "mode": "STL"}}}


def test_every_recorded_field_is_text_under_its_dotted_name_and_an_unrecorded_one_is_absent():
    found = fp.fingerprint(document())
    assert found["nics.ens1f0np0.firmware"] == "26.41.1000" and found["nics.ens1f0np0.numa_node"] == "0"
    assert found["pmd_cpus"] == "2 (node 0), 3 (node 0)" and found["hugepages.2048kB"] == "1024"
    assert found["ovs_other_config.doca-init"] == "true" and found["doca_packages.doca-networking"] == "3.1.0-091000"
    assert found["generator"] == "trex_stl_lib" and found["generator_version"] == "v3.04" and found["datapath"] == "doca"
    assert "ovn_version" not in found and all(isinstance(value, str) for value in found.values())


def test_a_run_written_before_fingerprints_is_fingerprinted_from_what_it_recorded():
    old = document()
    assert fp.recorded(old) == fp.fingerprint(old)
    assert fp.recorded(dict(old, bench_fingerprint={"kernel": "5.14"})) == {"kernel": "5.14"}


def test_a_firmware_update_stays_in_the_family_another_card_does_not():
    before = fp.family(fp.fingerprint(document()))
    assert fp.family(fp.fingerprint(document(firmware="26.43.2026")))[1] == before[1]
    assert fp.family(fp.fingerprint(document(psid="MT_0000000532")))[1] != before[1]
    assert sorted(before[0]) == ["cpu_model", "dut_host", "generator", "nics.ens1f0np0.pci_id", "nics.ens1f0np0.pci_subsystem",
                                 "nics.ens1f0np0.psid"]


def test_the_datapaths_fields_may_differ_in_a_comparison_the_bench_may_not():
    doca = fp.fingerprint(document())
    kernel = fp.fingerprint(document(datapath="system", other_config={"hw-offload": "false"}, pmd_cpus={}, dpdk_version=None))
    assert fp.refusals(doca, kernel) == []
    other = fp.fingerprint(document(datapath="system", firmware="26.43.2026", isolated_cpus="", hugepages={"2048kB": 0, "1048576kB": 0}))
    assert fp.refusals(doca, other) == [("hugepages.2048kB", "1024", "0"), ("nics.ens1f0np0.firmware", "26.41.1000", "26.43.2026")]
    assert fp.refusals(doca, other, accept=["hugepages.2048kB"]) == [("nics.ens1f0np0.firmware", "26.41.1000", "26.43.2026")]
    assert fp.refusal_text(("kernel", "6.1.0-28-amd64", "6.1.0-29-amd64")) == "kernel (6.1.0-28-amd64 against 6.1.0-29-amd64)"


def test_a_field_one_compared_run_did_not_record_is_not_refused_but_said():
    """isolated_cpus empty (none isolated) is not recorded; a run without bench_dut_interfaces has no NIC fields."""
    documents = [document(), document(datapath="system", isolated_cpus="", nics={}, other_config={"hw-offload": "false"})]
    assert fp.compare_refusal(fp.by_label(documents, ["doca", "system"]), ["doca", "system"]) is None
    assert fp.unrecorded(fp.by_label(documents, ["doca", "system"])) == [
        "isolated_cpus", "nics.ens1f0np0.bus_info", "nics.ens1f0np0.driver", "nics.ens1f0np0.driver_version", "nics.ens1f0np0.firmware",
        "nics.ens1f0np0.numa_node", "nics.ens1f0np0.pci_id", "nics.ens1f0np0.pci_subsystem", "nics.ens1f0np0.psid"]


def test_compare_refusal_names_every_label_against_the_baseline_at_once():
    documents = [document(datapath="doca"), document(datapath="dpdk", kernel="6.1.0-29-amd64"), document(datapath="system", firmware="26.43.2026")]
    text = fp.compare_refusal(fp.by_label(documents, ["doca", "dpdk", "system"]), ["doca", "dpdk", "system"])
    assert text.startswith("compare: the runs of doca and system differ in nics.ens1f0np0.firmware (26.41.1000 against 26.43.2026); "
                           "the runs of dpdk and system differ in kernel (6.1.0-29-amd64 against 6.1.0-28-amd64), nics.ens1f0np0.firmware")
    assert text.endswith("compare_accept: [kernel, nics.ens1f0np0.firmware]")
    assert fp.compare_refusal(fp.by_label(documents, ["doca", "dpdk", "system"]), ["doca", "dpdk", "system"], ["kernel", "nics.ens1f0np0.firmware"]) is None


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A /sys and /proc of a two-node machine with one NIC on node 1, hugepages of two sizes and isolated CPUs."""
    sys_dir, proc = tmp_path / "sys", tmp_path / "proc"
    files = {"devices/system/cpu/isolated": "2-5\n", "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages": "512\n",
             "kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages": "0\n", "class/net/ens1f0np0/device/numa_node": "1\n",
             "class/net/ens1f0np0/device/vendor": "0x15b3\n", "class/net/ens1f0np0/device/device": "0x101f\n",
             "class/net/ens1f0np0/device/subsystem_vendor": "0x15b3\n", "class/net/ens1f0np0/device/subsystem_device": "0x0016\n"}
    for path, text in files.items():
        (sys_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (sys_dir / path).write_text(text)
    for cpu, node in ((2, 0), (3, 1)):
        (sys_dir / ("devices/system/cpu/cpu%d/node%d" % (cpu, node))).mkdir(parents=True)
    proc.mkdir()
    (proc / "cpuinfo").write_text(fixture(os.path.join("proc", "proc_cpuinfo_2cpu.txt")))
    monkeypatch.setattr(bench_host, "SYS", str(sys_dir))
    monkeypatch.setattr(bench_host, "PROC", str(proc))
    return tmp_path


def test_the_host_is_read_from_sysfs_and_proc(host):
    assert bench_host.system_facts() == {"cpu_model": "Intel(R) Xeon(R) Processor", "isolated_cpus": "2-5",
                                         "hugepages": {"1048576kB": 0, "2048kB": 512}}
    assert bench_host.nic_device("ens1f0np0") == {"numa_node": 1, "pci_id": "15b3:101f", "pci_subsystem": "15b3:0016"}
    assert bench_host.nic_device("veth0") == {"numa_node": None, "pci_id": None, "pci_subsystem": None}


def test_the_pmd_cores_come_from_pmd_stats_show_else_from_the_threads_cpus(host):
    pmd = {"main": {"packets_received": 10}, "pmd3": {"numa": 1, "core": 3}}
    assert bench_host.pmd_cores(pmd, [{"cpu": 2}]) == {"3": 1}
    assert bench_host.pmd_cores({}, [{"cpu": 3}, {"cpu": 2}, {"cpu": 3}]) == {"2": 0, "3": 1}
    assert bench_host.pmd_cores({}, []) == {}


def test_installed_packages_are_read_from_dpkg_query_and_rpm():
    assert bench_host.parse_installed(fixture("dpkg_query_W_abbrev_package_version_debian12.txt")) == {
        "openvswitch-switch": "3.1.0-2+deb12u1", "ovn-common": "23.03.1-1~deb12u2"}
    assert bench_host.parse_installed("") == {}
    # rpm -q's line of a missing package has no tab in any format: no package (the installed one is in the --qf form only)
    assert bench_host.parse_installed(fixture("rpm_q_installed_and_missing_rpm_4_18.txt")) == {}
