"""nic_firmware with run_command answered from the verbatim outputs in
tests/fixtures (values of the emulated cards put in where a test says so)."""
import os

import pytest

from ansible.module_utils import basic
from ansible_collections.offload.testbed.plugins.modules import nic_firmware
from modtest import run_module

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


MLXFW = fixture("mlxfwmanager_query_cx6dx_running_differs.txt")
# The same card once it runs what is burned: mlxfwmanager drops the FW (Running) line.
MLXFW_ACTIVE = "".join(line for line in MLXFW.splitlines(True) if "FW (Running)" not in line)
FLINT_Q = fixture("flint_q_bluefield2.txt")
MISMATCH = fixture("flint_burn_psid_mismatch.txt")
PCI = "0000:03:00.0"


def image_query(psid, version):
    return FLINT_Q.replace("24.33.1048", version).replace("MT_0000000723", psid)


@pytest.fixture
def host(tmp_path, monkeypatch):
    """Tools on the fake host and an empty sysfs; returns a helper to make image files."""
    tools = {"mlxfwmanager", "flint", "mlxfwreset", "ethtool"}

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return "/usr/bin/" + name if name in tools else None

    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", get_bin_path)
    (tmp_path / "sys").mkdir()

    def image(name):
        path = tmp_path / name
        path.write_text("binary image stands here\n")
        return str(path)

    return {"tools": tools, "image": image, "sys": str(tmp_path / "sys")}


def args(host, images, **extra):
    result = {"images": images, "sysfs_root": host["sys"]}
    result.update(extra)
    return result


def test_check_mode_plans_a_reboot_when_the_burned_image_is_not_running(host, monkeypatch):
    img = host["image"]("cx6dx.bin")
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, MLXFW, ""),
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("MT_0000000436", "22.45.3608"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, dict(args(host, {"MT_0000000436": {"image": img}}), _ansible_check_mode=True),
                                       table, monkeypatch)
    assert not failed
    assert result["changed"] is False and result["commands"] == []
    assert result["reboot_required"] is True
    assert result["plan"] == ["0000:03:00.0 PSID MT_0000000436 (NVIDIA): burned 22.45.3608, running 22.43.1020, wanted 22.45.3608 -> reboot"]
    assert calls == list(table)


def test_reset_activates_the_burned_image(host, monkeypatch):
    img = host["image"]("cx6dx.bin")
    reads = []

    def query(calls):
        reads.append(1)
        return (0, MLXFW if len(reads) == 1 else MLXFW_ACTIVE, "")

    table = {
        ("/usr/bin/mlxfwmanager", "--query"): query,
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("MT_0000000436", "22.45.3608"), ""),
        ("/usr/bin/mlxfwreset", "-d", PCI, "-y", "reset"): (0, "", ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": img}}, reset_ok=True), table, monkeypatch)
    assert not failed, result
    assert result["changed"] is True
    assert result["commands"] == ["/usr/bin/mlxfwreset -d 0000:03:00.0 -y reset"]
    assert result["reboot_required"] is False
    dev = result["devices"][0]
    assert (dev["action"], dev["running"], dev["running_after"], dev["burned_after"]) == ("reset", "22.43.1020", "22.45.3608", "22.45.3608")
    assert ("/usr/bin/flint", "-d", PCI, "-i", img, "-y", "burn") not in calls


def test_burn_then_reboot_required_without_reset(host, monkeypatch):
    img = host["image"]("cx6dx-new.bin")
    old = MLXFW_ACTIVE.replace("22.45.3608", "22.43.1020")
    reads = []

    def query(calls):
        reads.append(1)
        return (0, old if len(reads) == 1 else MLXFW, "")

    table = {
        ("/usr/bin/mlxfwmanager", "--query"): query,
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("MT_0000000436", "22.45.3608"), ""),
        ("/usr/bin/flint", "-d", PCI, "-i", img, "-y", "burn"): (0, "", ""),
    }
    result, failed, calls = run_module(nic_firmware.main, dict(args(host, {"MT_0000000436": {"image": img}}), _ansible_diff=True),
                                       table, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["/usr/bin/flint -d 0000:03:00.0 -i %s -y burn" % img]
    assert result["reboot_required"] is True
    dev = result["devices"][0]
    assert (dev["action"], dev["burned_after"], dev["running_after"]) == ("burn+reboot", "22.45.3608", "22.43.1020")
    assert result["diff"] == {"before": {PCI: {"psid": "MT_0000000436", "burned": "22.43.1020", "running": "22.43.1020"}},
                              "after": {PCI: {"psid": "MT_0000000436", "burned": "22.45.3608", "running": "22.43.1020"}}}


def test_psid_mismatch_is_refused_before_any_burn(host, monkeypatch):
    img = host["image"]("mt.bin")
    lenovo = MLXFW_ACTIVE.replace("MT_0000000436", "LNV0000000025").replace("22.45.3608", "22.43.1020")
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, lenovo, ""),
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("MT_0000000158", "22.45.3608"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"LNV0000000025": {"image": img}}, reset_ok=True), table, monkeypatch)
    assert failed
    assert result["msg"].startswith("nothing burned: 0000:03:00.0: the image %s is for PSID MT_0000000158 (NVIDIA) but the card is "
                                    "LNV0000000025 (Lenovo)" % img)
    assert calls == list(table)


def test_flints_own_psid_refusal_is_reported(host, monkeypatch):
    # The image's query said the right PSID but flint refuses the burn: its verbatim error is parsed.
    img = host["image"]("lnv.bin")
    lenovo = MLXFW_ACTIVE.replace("MT_0000000436", "LNV0000000025").replace("22.45.3608", "22.43.1020")
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, lenovo, ""),
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("LNV0000000025", "22.45.3608"), ""),
        ("/usr/bin/flint", "-d", PCI, "-i", img, "-y", "burn"): (1, MISMATCH, ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"LNV0000000025": {"image": img}}), table, monkeypatch)
    assert failed
    assert result["msg"] == "flint refused 0000:03:00.0: PSID on flash LNV0000000025 differs from the image's MT_0000000158"
    assert result["mismatch"] == {"flash_psid": "LNV0000000025", "image_psid": "MT_0000000158"}


def test_falls_back_to_flint_for_the_cards_in_sysfs(host, monkeypatch, tmp_path):
    host["tools"].discard("mlxfwmanager")
    for pci, vendor in (("0000:08:00.0", "0x15b3"), ("0000:08:00.1", "0x15b3"), ("0000:00:1f.6", "0x8086")):
        os.makedirs(os.path.join(host["sys"], "bus", "pci", "devices", pci))
        with open(os.path.join(host["sys"], "bus", "pci", "devices", pci, "vendor"), "w") as handle:
            handle.write(vendor + "\n")
    table = {("/usr/bin/flint", "-d", "0000:08:00.0", "q"): (0, FLINT_Q, "")}
    result, failed, calls = run_module(nic_firmware.main, args(host, {}), table, monkeypatch)
    assert not failed, result
    assert [(d["pci"], d["psid"], d["burned"], d["action"], d["sources"]) for d in result["devices"]] == [
        ("0000:08:00.0", "MT_0000000723", "24.33.1048", "no-image", ["flint"])]
    assert result["changed"] is False


def test_bad_arguments_fail_before_any_command(host, monkeypatch):
    bad = args(host, {"LNV0000000025": {"image": "/x.bin", "version": "22"}}, devices=["eth0"])
    result, failed, calls = run_module(nic_firmware.main, bad, {}, monkeypatch)
    assert failed and calls == []
    assert result["errors"] == ["images[LNV0000000025].version: '22' is not a firmware version such as 26.47.1026",
                                "devices[0]: 'eth0' is not a PCI address such as 0000:32:00.0"]
