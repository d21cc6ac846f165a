"""nic_firmware with run_command answered from the verbatim outputs in
tests/fixtures (values of the emulated cards put in where a test says so)."""
import os

import pytest

from ansible.module_utils import basic
from ansible_collections.offload.testbed.plugins.modules import nic_firmware
from modtest import run_module

from ansible_collections.offload.testbed.plugins.module_utils import validate

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
    (tmp_path / "sys" / "bus" / "pci" / "devices").mkdir(parents=True)

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
    assert result["msg"] == ("invalid nic_firmware arguments, nothing burned: images[LNV0000000025].image: the image %s is for PSID "
                             "MT_0000000158 (NVIDIA) but the card at 0000:03:00.0 is LNV0000000025 (Lenovo); point it at the image "
                             "of the card's own vendor line (firmware is never burned across PSIDs)" % img)
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


LENOVO = MLXFW_ACTIVE.replace("MT_0000000436", "LNV0000000033").replace("22.45.3608", "26.43.1014")
QUERY = {("/usr/bin/mlxfwmanager", "--query"): (0, LENOVO, "")}
FW = "nic_firmware_"


def test_bad_arguments_are_refused_all_at_once_naming_the_variables(host, monkeypatch):
    bad = args(host, {"LNV0000000025": {"image": "/x.bin", "version": "22"}}, devices=["eth0", 1920.0], variable_prefix=FW)
    result, failed, calls = run_module(nic_firmware.main, dict(bad, stage="plan"), QUERY, monkeypatch)
    assert failed and calls == list(QUERY)
    assert result["errors"] == [
        "nic_firmware_images[LNV0000000025].version: '22' is not a firmware version; write MAJOR.MINOR.SUBMINOR as flint "
        "prints it, for example 26.47.1026, or drop version to take the image's own",
        "nic_firmware_devices[0]: 'eth0' is not a PCI address; write domain:bus:device.function in hexadecimal, for example "
        "\"0000:08:00.1\" (lspci -D shows it)",
        validate.pci_address("nic_firmware_devices[1]", 1920.0),
    ]
    assert result["msg"].startswith("invalid nic_firmware variables, nothing changed: nic_firmware_images[LNV0000000025].version")


def test_a_device_where_no_card_is_is_refused_naming_the_cards(host, monkeypatch):
    result, failed, calls = run_module(nic_firmware.main, dict(args(host, {}, devices=["0000:33:00.0", "0000:03:00.0"]),
                                                               variable_prefix=FW, stage="plan"), QUERY, monkeypatch)
    assert failed and calls == list(QUERY)
    assert result["errors"] == [
        "nic_firmware_devices[0]: no card at '0000:33:00.0' on this host (mlxfwmanager --query, sysfs vendor 0x15b3); it has "
        "0000:03:00.0 (PSID LNV0000000033): list cards by those addresses, or leave nic_firmware_devices empty to handle every card",
        "nic_firmware_devices[1]: the card at 0000:03:00.0 is PSID LNV0000000033 (Lenovo) and nic_firmware_images has no image "
        "for it; add one for LNV0000000033 (the image of the card's own vendor line), or drop the card from "
        "nic_firmware_devices",
    ]


def test_a_card_in_sysfs_only_counts_and_its_function_1_does_not(host, monkeypatch):
    for pci in ("0000:08:00.0", "0000:08:00.1"):
        os.makedirs(os.path.join(host["sys"], "bus", "pci", "devices", pci))
        with open(os.path.join(host["sys"], "bus", "pci", "devices", pci, "vendor"), "w") as handle:
            handle.write("0x15b3\n")
    table = dict(QUERY)
    table[("/usr/bin/flint", "-d", "0000:08:00.0", "q")] = (0, FLINT_Q, "")
    result, failed, calls = run_module(nic_firmware.main, args(host, {}, devices=["0000:08:00.1"], stage="plan"), table, monkeypatch)
    assert failed
    assert result["errors"] == [
        "devices[0]: no card at '0000:08:00.1' on this host (mlxfwmanager --query, sysfs vendor 0x15b3); it has "
        "0000:03:00.0 (PSID LNV0000000033), 0000:08:00.0 (PSID MT_0000000723): list cards by those addresses, or leave "
        "devices empty to handle every card"]


def test_no_sysfs_and_an_image_missing_on_the_host(host, monkeypatch, tmp_path):
    bad = args(host, {"LNV0000000033": {"image": str(tmp_path / "none.bin")}}, sysfs_root=str(tmp_path / "nosys"), variable_prefix=FW)
    result, failed, calls = run_module(nic_firmware.main, dict(bad, stage="plan"), QUERY, monkeypatch)
    assert failed and calls == list(QUERY)
    assert result["errors"] == [
        "nic_firmware_sysfs_root: '%s' has no bus/pci/devices; point it at the root of sysfs, /sys" % (tmp_path / "nosys"),
        "nic_firmware_images[LNV0000000033].image: %s does not exist on the host; put it there, or set "
        "nic_firmware_images[LNV0000000033].src to the image on the controller" % (tmp_path / "none.bin"),
    ]


def test_a_version_the_image_cannot_give_is_refused(host, monkeypatch):
    img = host["image"]("lnv.bin")
    table = dict(QUERY)
    table[("/usr/bin/flint", "-i", img, "q")] = (0, image_query("LNV0000000033", "26.47.1026"), "")
    images = {"LNV0000000033": {"image": img, "version": "26.48.1000"}}
    result, failed, calls = run_module(nic_firmware.main, args(host, images, variable_prefix=FW), table, monkeypatch)
    assert failed and calls == list(table)
    assert result["errors"] == [
        "nic_firmware_images[LNV0000000033].version: '26.48.1000' but the image %s is 26.47.1026 (flint -i IMAGE q); burning "
        "it cannot give 26.48.1000: set version to 26.47.1026 or drop it" % img]


def test_read_images_reads_each_src_on_the_controller(host, monkeypatch, tmp_path):
    good, other = host["image"]("lnv.bin"), host["image"]("mt.bin")
    images = {
        "LNV0000000033": {"src": good, "image": "/h/lnv.bin"},
        "MT_0000000436": {"src": other, "image": "/h/mt.bin"},
        "DEL0000000027": {"src": str(tmp_path / "missing.bin"), "image": "/h/del.bin"},
        "HPE0000000014": {"src": str(tmp_path), "image": "/h/hpe.bin"},
        "MT_0000000158": {"image": "/h/158.bin"},
    }
    table = {
        ("/usr/bin/flint", "-i", good, "q"): (0, image_query("LNV0000000033", "26.47.1026"), ""),
        ("/usr/bin/flint", "-i", other, "q"): (1, "", ""),
    }
    result, failed, calls = run_module(nic_firmware.main, {"images": images, "stage": "read_images", "variable_prefix": FW},
                                       table, monkeypatch)
    assert not failed and result["changed"] is False and calls == [("/usr/bin/flint", "-i", good, "q"), ("/usr/bin/flint", "-i", other, "q")]
    facts = result["image_facts"]
    assert sorted(facts) == ["DEL0000000027", "HPE0000000014", "LNV0000000033", "MT_0000000436"]
    assert facts["LNV0000000033"] == {"path": good, "key": "src", "psid": "LNV0000000033", "fw_version": "26.47.1026", "error": None}
    assert facts["DEL0000000027"]["error"] == ("nic_firmware_images[DEL0000000027].src: %s does not exist on the controller; "
                                               "fix the path" % (tmp_path / "missing.bin"))
    assert facts["HPE0000000014"]["error"] == ("nic_firmware_images[HPE0000000014].src: %s is a directory on the controller; "
                                               "give the firmware image (.bin) in it" % tmp_path)
    assert facts["MT_0000000436"]["error"].startswith("nic_firmware_images[MT_0000000436].src: flint -i %s q failed on the "
                                                      "controller (rc 1)" % other)


def test_read_images_without_flint_on_the_controller(host, monkeypatch):
    host["tools"].difference_update({"flint", "mstflint"})
    img = host["image"]("lnv.bin")
    result, failed, calls = run_module(nic_firmware.main, {"images": {"LNV0000000033": {"src": img, "image": "/h/lnv.bin"}},
                                                           "stage": "read_images", "variable_prefix": FW}, {}, monkeypatch)
    assert not failed and calls == []
    assert result["image_facts"]["LNV0000000033"]["error"] == (
        "nic_firmware_images[LNV0000000033].src: cannot read the PSID of %s: the controller has neither flint nor mstflint; "
        "install mstflint there (the image is read before anything is copied or burned)" % img)


def controller(psid, version, path="/c/fw.bin"):
    return {"path": path, "key": "src", "psid": psid, "fw_version": version, "error": None}


def test_plan_checks_the_controllers_image_before_the_copy(host, monkeypatch):
    images = {"LNV0000000033": {"src": "/c/fw.bin", "image": "/h/fw.bin"}}
    plan = dict(args(host, images, variable_prefix=FW), stage="plan", image_facts={"LNV0000000033": controller("MT_0000000158", "26.47.1026")})
    result, failed, calls = run_module(nic_firmware.main, plan, QUERY, monkeypatch)
    assert failed and calls == list(QUERY)
    assert result["errors"] == [
        "nic_firmware_images[LNV0000000033].src: the image /c/fw.bin is for PSID MT_0000000158 (NVIDIA) but the card at "
        "0000:03:00.0 is LNV0000000033 (Lenovo); point it at the image of the card's own vendor line (firmware is never "
        "burned across PSIDs)"]
    plan["image_facts"] = {"LNV0000000033": controller("LNV0000000033", "26.47.1026")}
    result, failed, calls = run_module(nic_firmware.main, plan, QUERY, monkeypatch)
    assert not failed and result["changed"] is False and calls == list(QUERY)
    assert result["copies"] == [{"psid": "LNV0000000033", "src": "/c/fw.bin", "image": "/h/fw.bin"}]
    assert result["plan"] == ["0000:03:00.0 PSID LNV0000000033 (Lenovo): burned 26.43.1014, running 26.43.1014, wanted 26.47.1026 "
                              "-> burn+reboot"]


def test_a_broken_src_of_a_psid_this_host_lacks_is_refused_too(host, monkeypatch):
    images = {"LNV0000000033": {"image": "/h/lnv.bin", "version": "26.43.1014"},
              "MT_0000000436": {"src": "/c/mt.bin", "image": "/h/mt.bin"}}
    facts = {"MT_0000000436": dict(controller(None, None, "/c/mt.bin"),
                                   error="nic_firmware_images[MT_0000000436].src: /c/mt.bin does not exist on the controller; fix the path")}
    result, failed, calls = run_module(nic_firmware.main, dict(args(host, images, variable_prefix=FW), stage="plan", image_facts=facts),
                                       QUERY, monkeypatch)
    assert failed and result["errors"] == [
        "nic_firmware_images[LNV0000000033].image: /h/lnv.bin does not exist on the host; put it there, or set "
        "nic_firmware_images[LNV0000000033].src to the image on the controller",
        facts["MT_0000000436"]["error"]]


def test_check_mode_takes_the_controllers_facts_for_an_image_not_copied_yet(host, monkeypatch):
    images = {"LNV0000000033": {"src": "/c/fw.bin", "image": "/h/fw.bin"}}
    burn = dict(args(host, images, variable_prefix=FW), _ansible_check_mode=True,
                image_facts={"LNV0000000033": controller("LNV0000000033", "26.47.1026")})
    result, failed, calls = run_module(nic_firmware.main, burn, QUERY, monkeypatch)
    assert not failed and calls == list(QUERY)
    assert result["commands"] == ["/usr/bin/flint -d 0000:03:00.0 -i /h/fw.bin -y burn"] and result["reboot_required"] is True


def test_the_list_form_burns_and_names_its_entries_by_index(host, monkeypatch):
    img = host["image"]("lnv.bin")
    images = [{"psid": "LNV0000000033", "image": img}, {"psid": "LNV0000000033", "image": "/h/other.bin"}]
    table = dict(QUERY)
    table[("/usr/bin/flint", "-i", img, "q")] = (0, image_query("LNV0000000033", "26.47.1026"), "")
    result, failed, calls = run_module(nic_firmware.main, args(host, images, variable_prefix=FW), table, monkeypatch)
    assert failed and calls == list(table)
    assert result["errors"] == ["nic_firmware_images[1].psid: 'LNV0000000033' is also the PSID of nic_firmware_images[0]; a card "
                                "takes one image: keep one entry per PSID"]
    result, failed, calls = run_module(nic_firmware.main, dict(args(host, images[:1], variable_prefix=FW), _ansible_check_mode=True),
                                       table, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["/usr/bin/flint -d 0000:03:00.0 -i %s -y burn" % img]
