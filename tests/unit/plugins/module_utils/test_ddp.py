"""The DDP parsers over the real texts of tests/unit/plugins/modules/fixtures/ddp
(README.md there names each source), the package header reader and the planner."""
import importlib.machinery
import importlib.util
import os
import struct

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.prepare import ddp
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "unit", "plugins", "modules", "fixtures", "ddp")
GTP = {"track_id": "80000008", "version": "1.0.3.0", "name": "GTPv1-C/U IPv4/IPv6 payload"}
MPLS = {"track_id": "DE010001", "version": "1.0.0.0", "name": "MPLSoUDP/GRE tunnels demo"}


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def make_package(path, *args):
    loader = importlib.machinery.SourceFileLoader("ddp_emu", os.path.join(ROOT, "tests", "emulators", "ddp", "ddp_emu.py"))
    spec = importlib.util.spec_from_loader("ddp_emu", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    module.make_package(path, *args)
    with open(path, "rb") as handle:
        return handle.read()


def test_ddptool_a_of_the_sriov_device_plugin_guide():
    rows = ddp.parse_ddptool(fixture("ddptool_a_sriovdp_1.0.0.0.txt"))
    assert [row["pci"] for row in rows] == ["0000:02:00.%d" % f for f in range(4)] + ["0000:03:02.%d" % f for f in range(4)]
    assert all(row["profile"] == GTP and row["status"] is None for row in rows)
    assert [row["netdev"] for row in rows][4:] == [None, "enp3s2f1", "enp3s2f2", None]
    assert rows[4]["device_id"] == "154C"


def test_ddptool_of_its_readme_with_no_profile_and_unsupported_firmware():
    rows = dict((row["pci"], row) for row in ddp.parse_ddptool(fixture("ddptool_readme_1.0.1.4.txt")))
    assert len(rows) == 8
    assert rows["0000:05:00.0"]["profile"] == MPLS and rows["0000:05:00.0"]["netdev"] == "enp5s0f3"
    assert rows["0000:03:00.0"]["profile"] is None and rows["0000:03:00.0"]["status"] == "Unsupported FW version"
    assert rows["0000:07:00.0"]["profile"] is None and rows["0000:07:00.0"]["status"] == "No profile loaded"
    assert rows["0000:60:00.1"]["profile"] == {"track_id": "C0000002", "version": "1.3.17.0", "name": "ICE COMMS Package"}


def test_a_text_without_a_table_has_no_rows():
    assert ddp.parse_ddptool("Intel(R) Dynamic Device Personalization Tool\nDDPTool version 1.0.1.4\n") == []
    assert ddp.parse_ddptool(None) == []


def test_ethtool_i_of_an_i40e_port():
    info = parse_ethtool_info(fixture("ethtool_i_i40e_sriovdp.txt"))
    assert info["driver"] == "i40e" and info["bus_info"] == "0000:02:00.0" and info["psid"] is None
    assert ddp.i40e_firmware(info["firmware_version"]) == {"nvm": "7.00", "eetrack": "0x80004cda", "combo": "1.2154.0"}
    assert ddp.i40e_firmware(None) == {"nvm": None, "eetrack": None, "combo": None}


@pytest.mark.parametrize("nvm, old", [("7.00", False), ("6.01", False), ("6.00", False), ("5.05", True), (None, False), ("x", False)])
def test_nvm_too_old(nvm, old):
    assert ddp.nvm_too_old(nvm) is old


def test_read_package_header(tmp_path):
    data = make_package(str(tmp_path / "p.pkgo"), "MPLSoUDP/GRE tunnels demo", "DE010001", "1.0.0.0")
    assert ddp.read_package(data) == (MPLS, None)
    assert ddp.group("DE010001") == 0x01 and ddp.group("80000008") == 0x00


def test_read_package_refusals(tmp_path):
    data = make_package(str(tmp_path / "p.pkgo"), "GTPv1-C/U IPv4/IPv6 payload", "80000008", "1.0.3.0")
    assert ddp.read_package(b"short") == (None, "it has 5 bytes, too few for a DDP package header")
    assert ddp.read_package(b"\x01" + data[1:])[1] == "its package version 1.0.0.0 is not one the i40e driver takes (major 0)"
    no_profile = data[:112] + struct.pack("<I", 0x12) + data[116:]
    assert ddp.read_package(no_profile)[1] == "it has no i40e profile segment (an X722 or 800-series package?)"
    no_meta = data[:16] + struct.pack("<I", 0x2) + data[20:]
    assert ddp.read_package(no_meta)[1] == "it has no metadata segment (no track id)"


@pytest.mark.parametrize("state, loaded, package, expect", [
    ("present", None, MPLS, ("load", None)),
    ("present", MPLS, MPLS, ("keep", None)),
    ("present", GTP, MPLS, ("keep", "other")),
    ("absent", None, None, ("keep", None)),
    ("absent", None, MPLS, ("keep", None)),
    ("absent", GTP, None, ("rollback", None)),
    ("absent", MPLS, MPLS, ("rollback", None)),
    ("absent", GTP, MPLS, ("keep", "other")),
])
def test_plan(state, loaded, package, expect):
    assert ddp.plan(state, loaded, package) == expect


def test_pf0_and_describe():
    assert ddp.pf0("0000:02:00.3") == "0000:02:00.0"
    assert ddp.describe(None) == "no profile"
    assert ddp.describe(GTP) == "'GTPv1-C/U IPv4/IPv6 payload' (track id 80000008, version 1.0.3.0)"
