"""ddp_profile with ethtool and ddptool answered by the emulator of tests/emulators/ddp
(whose texts are the fixtures of fixtures/ddp) or by those fixtures verbatim; every
command the module may run is in the test's table."""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.offload.testbed.plugins.modules import ddp_profile
from modtest import run_module
from test_dpdk_docs import differences, rendered

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
EMU = os.path.join(ROOT, "tests", "emulators", "ddp")
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "ddp")
MPLS = {"name": "MPLSoUDP/GRE tunnels demo", "track_id": "DE010001", "version": "1.0.0.0"}
GTP = {"name": "GTPv1-C/U IPv4/IPv6 payload", "track_id": "80000008", "version": "1.0.3.0"}
LOAD = ("ethtool", "-f", "enp2s0f0", "mplsogreudp.pkgo", "100")
ROLLBACK = ("ethtool", "-f", "enp2s0f0", "-", "100")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def emulator():
    loader = importlib.machinery.SourceFileLoader("ddp_emu", os.path.join(EMU, "ddp_emu.py"))
    spec = importlib.util.spec_from_loader("ddp_emu", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class Bench(object):
    """An emulated X710 (four ports at 0000:02:00.x), a ConnectX port and the packages, under tmp_path."""

    def __init__(self, tmp_path):
        self.root = str(tmp_path)
        self.state, self.firmware = os.path.join(self.root, "state"), os.path.join(self.root, "fw")
        self.controller, self.mlnx = os.path.join(self.root, "controller"), os.path.join(self.root, "mlnx")
        emulator().make_world(self.state, self.firmware, self.controller, self.mlnx)
        for name in ("mplsogreudp.pkgo", "gtp.pkgo"):
            with open(os.path.join(self.controller, name), "rb") as src, open(os.path.join(self.firmware, name), "wb") as dst:
                dst.write(src.read())
        self.env = dict(os.environ, DDP_EMU_STATE=self.state, DDP_EMU_FIRMWARE=self.firmware, MLNX_EMU_STATE=self.mlnx, EMU_PYTHON=sys.executable)

    def answer(self, argv):
        def run(calls):
            done = subprocess.run([os.path.join(EMU, argv[0])] + list(argv[1:]), env=self.env, capture_output=True, text=True, check=False)
            return done.returncode, done.stdout, done.stderr
        return run

    def table(self, *extra, **answers):
        argvs = [("ethtool", "-i", "enp2s0f0"), ("ddptool", "-s", "0000:02:00.0")] + list(extra)
        table = dict((argv, self.answer(argv)) for argv in argvs)
        table.update(answers.get("fixed", {}))
        return table

    def args(self, **kw):
        base = {"device": "enp2s0f0", "profile": "mplsogreudp.pkgo", "firmware_dir": self.firmware}
        base.update(kw)
        return base

    def world(self):
        with open(os.path.join(self.state, "ports.json")) as handle:
            return json.load(handle)

    def calls(self):
        path = os.path.join(self.state, "calls.log")
        return open(path).read().splitlines() if os.path.exists(path) else []


@pytest.fixture
def bench(tmp_path):
    return Bench(tmp_path)


def test_loads_then_keeps(bench, monkeypatch):
    result, failed, calls = run_module(ddp_profile.main, bench.args(_ansible_diff=True), bench.table(LOAD), monkeypatch)
    assert not failed, result
    assert result["changed"] and result["commands"] == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"]
    assert calls == [("ethtool", "-i", "enp2s0f0"), ("ddptool", "-s", "0000:02:00.0"), LOAD, ("ddptool", "-s", "0000:02:00.0")]
    assert (result["profile_name"], result["track_id"], result["version"]) == (MPLS["name"], MPLS["track_id"], MPLS["version"])
    assert result["loaded"] == [MPLS] and result["before"] is None and result["package"] == MPLS
    assert result["pci"] == "0000:02:00.0" and result["driver"] == "i40e"
    assert result["firmware"] == {"nvm": "7.00", "eetrack": "0x80004cda", "combo": "1.2154.0"}
    assert result["diff"] == {"before": "no profile\n", "after": "profile MPLSoUDP/GRE tunnels demo track_id DE010001 version 1.0.0.0\n"}
    assert bench.calls() == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"]
    result, failed, calls = run_module(ddp_profile.main, bench.args(), bench.table(), monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == []
    assert result["track_id"] == "DE010001" and result["before"] == MPLS
    assert bench.calls() == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"]


def test_an_absolute_profile_path_in_the_firmware_dir(bench, monkeypatch):
    args = bench.args(profile=os.path.join(bench.firmware, "mplsogreudp.pkgo"))
    result, failed, calls = run_module(ddp_profile.main, args, bench.table(LOAD), monkeypatch)
    assert not failed and result["commands"] == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"]


def test_check_mode_writes_nothing(bench, monkeypatch):
    before = bench.world()
    result, failed, calls = run_module(ddp_profile.main, bench.args(_ansible_check_mode=True, _ansible_diff=True), bench.table(), monkeypatch)
    assert not failed and result["changed"]
    assert result["commands"] == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100"] and LOAD not in calls
    assert result["profile_name"] == MPLS["name"] and result["diff"]["before"] == "no profile\n"
    assert bench.world() == before and bench.calls() == []


def test_rolls_back_then_nothing(bench, monkeypatch):
    run_module(ddp_profile.main, bench.args(), bench.table(LOAD), monkeypatch)
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent", _ansible_diff=True), bench.table(ROLLBACK), monkeypatch)
    assert not failed, result
    assert result["commands"] == ["ethtool -f enp2s0f0 - 100"] and result["loaded"] == [] and result["profile_name"] is None
    assert result["before"] == MPLS and result["diff"]["after"] == "no profile\n"
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent", profile=None), bench.table(), monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == []
    assert bench.calls() == ["ethtool -f enp2s0f0 mplsogreudp.pkgo 100", "ethtool -f enp2s0f0 - 100"]


def test_rollback_without_a_profile_named_takes_whatever_is_loaded(bench, monkeypatch):
    run_module(ddp_profile.main, bench.args(profile="gtp.pkgo"), bench.table(("ethtool", "-f", "enp2s0f0", "gtp.pkgo", "100")), monkeypatch)
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent", profile=None), bench.table(ROLLBACK), monkeypatch)
    assert not failed and result["commands"] == ["ethtool -f enp2s0f0 - 100"] and result["before"] == GTP


def test_rollback_after_a_driver_reload_fails_naming_the_ways_left(bench, monkeypatch):
    run_module(ddp_profile.main, bench.args(), bench.table(LOAD), monkeypatch)
    subprocess.run([sys.executable, os.path.join(EMU, "ddp_emu.py"), "driver-reload"], env=bench.env, check=True)
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent"), bench.table(ROLLBACK), monkeypatch)
    assert failed
    assert result["msg"].startswith("ethtool -f enp2s0f0 - 100 failed (rc 255): Flashing failed: No such file or directory; the i40e driver")
    assert "There is no DDP profile to restore." in result["msg"] and "ddp del PORT BACKUP.pkgo" in result["msg"]
    assert result["commands"] == ["ethtool -f enp2s0f0 - 100"]


def test_refuses_a_different_profile_loaded_verbatim(bench, monkeypatch):
    """ethtool -i and ddptool -a exactly as the SR-IOV device plugin's guide shows them: enp2s0f0 carries the GTP profile."""
    table = {("ethtool", "-i", "enp2s0f0"): (0, fixture("ethtool_i_i40e_sriovdp.txt"), ""),
             ("ddptool", "-s", "0000:02:00.0"): (0, fixture("ddptool_a_sriovdp_1.0.0.0.txt"), "")}
    result, failed, calls = run_module(ddp_profile.main, bench.args(names={"device": "ddp_profile_devices[0]", "profile": "ddp_profile_package"}),
                                       table, monkeypatch)
    assert failed and result["commands"] == []
    assert result["errors"] == [
        "ddp_profile_devices[0]: 'enp2s0f0' has DDP profile 'GTPv1-C/U IPv4/IPv6 payload' (track id 80000008, version 1.0.3.0) loaded,"
        " not ddp_profile_package 'mplsogreudp.pkgo', 'MPLSoUDP/GRE tunnels demo' (track id DE010001, version 1.0.0.0); the 700-series"
        " takes one profile at a time here: roll it back first (state absent runs ethtool -f enp2s0f0 - 100), then load this one"]
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent"), table, monkeypatch)
    assert failed and "ethtool rolls back only the profile loaded last: leave profile unset" in result["msg"]
    result, failed, calls = run_module(ddp_profile.main, bench.args(profile=None), table, monkeypatch)
    assert failed and result["errors"] == ["profile: not set; state present needs the DDP package (.pkgo) to load"]
    result, failed, calls = run_module(ddp_profile.main, bench.args(state="absent", profile=None, _ansible_check_mode=True), table, monkeypatch)
    assert not failed and result["commands"] == ["ethtool -f enp2s0f0 - 100"] and result["before"]["track_id"] == "80000008"


def test_refuses_a_port_that_is_no_i40e(bench, monkeypatch):
    table = bench.table(("ethtool", "-i", "ens3f0np0"))
    result, failed, calls = run_module(ddp_profile.main, bench.args(device="ens3f0np0"), table, monkeypatch)
    assert failed and result["errors"] == [
        "device: 'ens3f0np0' is driven by mlx5_core, not i40e; DDP profiles of this kind are for Intel Ethernet 700-series ports"
        " (X710, XL710, XXV710, X722): name one of those"]
    assert ("ddptool", "-s", "0000:32:00.0") not in calls


def test_refuses_a_missing_port_with_ethtool_own_words(bench, monkeypatch):
    table = {("ethtool", "-i", "nosuch0"): (71, "", fixture("ethtool_i_no_such_device_stderr.txt"))}
    result, failed, calls = run_module(ddp_profile.main, bench.args(device="nosuch0"), table, monkeypatch)
    assert failed and result["errors"] == [
        "device: 'nosuch0': ethtool -i answered rc 71 (Cannot get driver information: No such device); name the netdev of the 700-series port (ip -br link)"]


def test_every_problem_at_once_before_any_change(bench, monkeypatch):
    with open(os.path.join(bench.firmware, "notes.pkgo"), "wb") as handle:
        handle.write(b"not a package")
    args = bench.args(device="enp2s0f1", profile="notes.pkgo", names={"device": "ddp_profile_devices[1]", "profile": "ddp_profile_package"})
    argvs = [("ethtool", "-i", "enp2s0f1"), ("ddptool", "-s", "0000:02:00.1")]
    table = dict((argv, bench.answer(argv)) for argv in argvs)
    result, failed, calls = run_module(ddp_profile.main, args, table, monkeypatch)
    assert failed and result["commands"] == []
    assert result["errors"] == [
        "ddp_profile_package: %s/notes.pkgo is no DDP package for the i40e driver: its package version 110.111.116.32 is not one the"
        " i40e driver takes (major 0); use the .pkgo of the profile for Intel 700-series" % bench.firmware,
        "ddp_profile_devices[1]: 'enp2s0f1' is function 1 (0000:02:00.1); the i40e driver takes DDP only on function 0 of the adapter, which"
        " applies it to every port: name the netdev of 0000:02:00.0"]
    assert bench.calls() == []


@pytest.mark.parametrize("profile, expect", [
    ("missing.pkgo", "profile: {fw}/missing.pkgo does not exist; the i40e driver loads 'missing.pkgo' from firmware_dir {fw}: copy the package there"),
    ("/tmp/elsewhere.pkgo", "profile: '/tmp/elsewhere.pkgo' is not inside firmware_dir '{fw}', the only directory the i40e driver loads DDP packages from"),
    ("../x.pkgo", "profile: '../x.pkgo' is not inside firmware_dir"),
    ("x" * 60 + ".pkgo", "profile: '" + "x" * 60 + ".pkgo' is 65 characters; the i40e driver takes names of up to 63"),
    (None, "profile: not set; state present needs the DDP package (.pkgo) to load"),
])
def test_refuses_the_profile(bench, monkeypatch, profile, expect):
    result, failed, calls = run_module(ddp_profile.main, bench.args(profile=profile), bench.table(), monkeypatch)
    assert failed and result["errors"][0].startswith(expect.format(fw=bench.firmware)), result["errors"]
    assert len(result["errors"]) == 1 and bench.calls() == []


def test_validate_only_reports_and_changes_nothing(bench, monkeypatch):
    result, failed, calls = run_module(ddp_profile.main, bench.args(profile="missing.pkgo", validate_only=True), bench.table(), monkeypatch)
    assert not failed and not result["changed"] and result["commands"] == [] and len(result["errors"]) == 1
    result, failed, calls = run_module(ddp_profile.main, bench.args(validate_only=True), bench.table(), monkeypatch)
    assert not failed and result["errors"] == [] and result["package"] == MPLS and bench.calls() == []


def test_package_info_stands_for_a_file_not_copied_yet(bench, monkeypatch):
    os.remove(os.path.join(bench.firmware, "mplsogreudp.pkgo"))
    args = bench.args(package_info=MPLS, validate_only=True)
    result, failed, calls = run_module(ddp_profile.main, args, bench.table(), monkeypatch)
    assert not failed and result["errors"] == [] and result["package"] == MPLS
    result, failed, calls = run_module(ddp_profile.main, bench.args(package_info=MPLS), bench.table(), monkeypatch)
    assert failed and result["errors"] == ["profile: %s/mplsogreudp.pkgo is not on the host; copy the package there before loading it" % bench.firmware]
    result, failed, calls = run_module(ddp_profile.main, bench.args(package_info={"name": "x"}, validate_only=True), bench.table(), monkeypatch)
    assert result["errors"][0].startswith("package_info: {'name': 'x'} lacks track_id, version")


def test_ddptool_failure_names_its_exit_code(bench, monkeypatch):
    table = bench.table(fixed={("ddptool", "-s", "0000:02:00.0"): (6, "", "")})
    result, failed, calls = run_module(ddp_profile.main, bench.args(), table, monkeypatch)
    assert failed and result["errors"] == [
        "device: 'enp2s0f0': ddptool -s 0000:02:00.0 answered rc 6 (Unsupported base driver version); it needs the i40e driver loaded and root"]


def test_ddptool_unsupported_fw_version_row_verbatim(bench, monkeypatch):
    ethtool_i = fixture("ethtool_i_i40e_sriovdp.txt").replace("bus-info: 0000:02:00.0", "bus-info: 0000:03:00.0")
    table = {("ethtool", "-i", "enp3s0f2"): (0, ethtool_i, ""), ("ddptool", "-s", "0000:03:00.0"): (0, fixture("ddptool_readme_1.0.1.4.txt"), "")}
    result, failed, calls = run_module(ddp_profile.main, bench.args(device="enp3s0f2"), table, monkeypatch)
    assert failed and result["errors"] == [
        "device: 'enp3s0f2': ddptool says 'Unsupported FW version' for 0000:03:00.0; DDP needs an NVM of 6.0 or later"]


def test_read_package_stage(bench, monkeypatch):
    args = {"stage": "read_package", "profile": os.path.join(bench.controller, "gtp.pkgo")}
    result, failed, calls = run_module(ddp_profile.main, args, {}, monkeypatch)
    assert not failed and result["package"] == GTP and calls == [] and not result["changed"]
    args = {"stage": "read_package", "profile": os.path.join(bench.controller, "none.pkgo"), "names": {"profile": "ddp_profile_package"}}
    result, failed, calls = run_module(ddp_profile.main, args, {}, monkeypatch)
    assert failed and result["msg"].startswith("ddp_profile_package: %s/none.pkgo is no DDP package for the i40e driver: cannot be read" % bench.controller)


def test_documentation_is_the_argument_spec():
    doc = rendered("ddp_profile")
    assert doc["module"] == "ddp_profile"
    assert differences(doc["options"], ddp_profile.ARGUMENT_SPEC) == []
    assert yaml.safe_load(ddp_profile.EXAMPLES) and yaml.safe_load(ddp_profile.RETURN)
