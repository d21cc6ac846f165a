"""nic_firmware with run_command answered from the verbatim outputs in
tests/fixtures (values of the emulated cards put in where a test says so)."""
import os
import zipfile

import pytest

from ansible.module_utils import basic
from ansible_collections.offload.testbed.plugins.modules import nic_firmware
from modtest import run_module

from ansible_collections.offload.testbed.plugins.module_utils.host import validate

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures"))


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


CX6LX_QUERY = fixture("mlxfwmanager_query_cx6lx_update_required.txt")
RUNNING_ROW = [line for line in fixture("mlxfwmanager_query_cx3pro_running_differs.txt").splitlines(True) if "FW (Running)" in line][0]
FLINT_Q = fixture("flint_q_bluefield2.txt")
MISMATCH = fixture("flint_burn_psid_mismatch.txt")
PCI = "0000:03:00.0"


def mlxfw(burned, running=None, psid="MT_0000000436", pci=PCI):
    """Variant of the ConnectX-6 Lx query: this card's values put in, and the FW (Running) row of the
    ConnectX-3 Pro query (mlxfwmanager_query_cx3pro_running_differs.txt) when a burn waits for a reset."""
    text = CX6LX_QUERY.replace("MT_0000000575", psid).replace("0002:01:00.0", pci).replace("26.33.1048", burned)
    if running and running != burned:
        fw_row = [line for line in text.splitlines(True) if line.lstrip().startswith("FW ")][0]
        text = text.replace(fw_row, fw_row + RUNNING_ROW.replace("2.42.5016", running))
    return text


MLXFW = mlxfw("22.45.3608", "22.43.1020")
# The same card once it runs what is burned: mlxfwmanager drops the FW (Running) line.
MLXFW_ACTIVE = mlxfw("22.45.3608")


def image_query(psid, version):
    """Variant of the recorded image query (mstflint -i IMAGE q): this image's PSID and version put in."""
    return fixture("mstflint_i_image_q_cx4lx.txt").replace("14.32.1912", version).replace("MT_0000000267", psid)


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
    assert facts["LNV0000000033"] == {"path": good, "key": "src", "kind": "bin", "psid": "LNV0000000033", "fw_version": "26.47.1026",
                                      "error": None}
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


@pytest.fixture
def module_tmp(tmp_path, monkeypatch):
    """The module's temporary directory, where the images of a zip are taken out."""
    path = tmp_path / "module-tmp"
    path.mkdir()
    monkeypatch.setattr(basic.AnsibleModule, "tmpdir", property(lambda self: str(path)))
    return str(path)


def shipped_zip(tmp_path, members):
    """A zip as NVIDIA ships it, with these members (the emulated images stand for the binary ones)."""
    path = tmp_path / "fw-ConnectX6Dx-rel-22_45_3608-MCX623106AC-CDA_Ax-UEFI-14.38.16-FlexBoot-3.7.500.signed.bin.zip"
    with zipfile.ZipFile(str(path), "w") as archive:
        for name in members:
            archive.writestr(name, "binary image stands here\n")
    return str(path)


def test_a_zip_as_shipped_burns_the_image_of_the_cards_psid(host, monkeypatch, tmp_path, module_tmp):
    archive = shipped_zip(tmp_path, ["fw-158.bin", "fw-436.bin"])
    first, second = os.path.join(module_tmp, "0-fw-158.bin"), os.path.join(module_tmp, "1-fw-436.bin")
    reads = []

    def query(calls):
        reads.append(1)
        return (0, mlxfw("22.43.1020") if len(reads) == 1 else MLXFW, "")

    table = {
        ("/usr/bin/mlxfwmanager", "--query"): query,
        ("/usr/bin/flint", "-i", first, "q"): (0, image_query("MT_0000000158", "16.35.4030"), ""),
        ("/usr/bin/flint", "-i", second, "q"): (0, image_query("MT_0000000436", "22.45.3608"), ""),
        ("/usr/bin/flint", "-d", PCI, "-i", second, "-y", "burn"): (0, fixture("flint_burn_cx6_downgrade.txt"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": archive}}), table, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["/usr/bin/flint -d 0000:03:00.0 -i %s -y burn" % second]
    assert result["reboot_required"] is True and result["pending"] == [PCI] and result["activated"] == []
    dev = result["devices"][0]
    assert (dev["kind"], dev["action"], dev["wanted"], dev["burned_after"]) == ("zip", "burn+reboot", "22.45.3608", "22.45.3608")


def test_a_zip_without_an_image_for_the_card_is_refused_before_any_burn(host, monkeypatch, tmp_path, module_tmp):
    archive = shipped_zip(tmp_path, ["fw-158.bin"])
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, mlxfw("22.43.1020"), ""),
        ("/usr/bin/flint", "-i", os.path.join(module_tmp, "0-fw-158.bin"), "q"): (0, image_query("MT_0000000158", "16.35.4030"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": archive}}, variable_prefix=FW),
                                       table, monkeypatch)
    assert failed and result["commands"] == []
    assert result["errors"] == [
        "nic_firmware_images[MT_0000000436].image: the zip %s holds images for PSID MT_0000000158 (fw-158.bin), none for "
        "MT_0000000436 (NVIDIA); point it at the download for the card's own vendor line (firmware is never burned across "
        "PSIDs)" % archive]


def bundle_program(tmp_path):
    """A vendor's self-extracting bundle for mlxfwmanager (an executable)."""
    path = tmp_path / "mlxfwmanager_LES_25B_DOCA_3.2.0_build3"
    path.write_text("#!/bin/sh\n# the images stand here\n")
    path.chmod(0o755)
    return str(path)


def bundle_xml(psid, burned, available, status):
    """Variant of the recorded XML query: this card's values put in."""
    return (fixture("mlxfwmanager_query_xml_cx6lx_update_required.xml").replace("MT_0000000575", psid)
            .replace("0002:01:00.0", PCI).replace("26.33.1048", burned).replace('available="26.43.1014"', 'available="%s"' % available)
            .replace("Update required", status))


def test_a_bundle_is_read_with_the_card_and_burned_by_mlxfwmanager(host, monkeypatch, tmp_path):
    bundle = bundle_program(tmp_path)
    reads = []

    def query(calls):
        reads.append(1)
        return (0, mlxfw("22.43.1020") if len(reads) == 1 else mlxfw("22.45.3608", "22.43.1020"), "")

    table = {
        ("/usr/bin/mlxfwmanager", "--query"): query,
        (bundle, "-d", PCI, "--query", "--query-format", "XML"): (0, bundle_xml("MT_0000000436", "22.43.1020", "22.45.3608", "Update required"), ""),
        (bundle, "-d", PCI, "-u", "-y", "--no-progress"): (0, fixture("mlxfwmanager_update_cx3.txt"), ""),
        ("/usr/bin/mlxfwreset", "-d", PCI, "-y", "reset"): (0, fixture("mlxfwreset_reset_cx4.txt"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": bundle}}, reset_ok=True), table, monkeypatch)
    assert not failed, result
    assert result["commands"] == ["%s -d 0000:03:00.0 -u -y --no-progress" % bundle, "/usr/bin/mlxfwreset -d 0000:03:00.0 -y reset"]
    assert result["activated"] == [PCI]
    assert (result["devices"][0]["kind"], result["devices"][0]["wanted"]) == ("program", "22.45.3608")


def test_a_bundle_without_an_image_for_the_card_is_refused(host, monkeypatch, tmp_path):
    bundle = bundle_program(tmp_path)
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, mlxfw("22.43.1020"), ""),
        (bundle, "-d", PCI, "--query", "--query-format", "XML"): (
            0, bundle_xml("MT_0000000436", "22.43.1020", "N/A", "No matching image found"), ""),
    }
    result, failed, calls = run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": bundle}}, variable_prefix=FW),
                                       table, monkeypatch)
    assert failed and result["commands"] == []
    assert result["errors"] == ["nic_firmware_images[MT_0000000436].image: the bundle %s has no image for PSID MT_0000000436 "
                                "(NVIDIA) (mlxfwmanager -i BUNDLE --query: No matching image found); give the vendor's bundle for "
                                "the card's own vendor line" % bundle]


def test_one_bundle_may_serve_two_psids_but_one_image_may_not(host, monkeypatch, tmp_path):
    bundle, image = bundle_program(tmp_path), host["image"]("one.bin")
    images = {"MT_0000000436": {"image": bundle}, "LNV0000000033": {"image": bundle}, "DEL0000000027": {"image": image},
              "HPE0000000014": {"image": image}}
    result, failed, calls = run_module(nic_firmware.main, args(host, images, variable_prefix=FW, stage="plan"),
                                       {("/usr/bin/mlxfwmanager", "--query"): (0, "", "")}, monkeypatch)
    assert failed
    assert [error for error in result["errors"] if "is also the image of" in error] == [
        "nic_firmware_images[HPE0000000014].image: '%s' is also the image of nic_firmware_images[DEL0000000027]; an image "
        "carries one PSID: give each PSID its own file" % image]


def verify(host, monkeypatch, query):
    """stage: verify on a card that mlxfwmanager reads as ``query``, with its image 22.45.3608."""
    img = host["image"]("cx6dx.bin")
    table = {
        ("/usr/bin/mlxfwmanager", "--query"): (0, query, ""),
        ("/usr/bin/flint", "-i", img, "q"): (0, image_query("MT_0000000436", "22.45.3608"), ""),
    }
    return run_module(nic_firmware.main, args(host, {"MT_0000000436": {"image": img}}, stage="verify"), table, monkeypatch)[:2]


def test_verify_fails_naming_the_card_that_does_not_run_the_planned_firmware(host, monkeypatch):
    result, failed = verify(host, monkeypatch, MLXFW)
    assert failed and result["commands"] == []
    assert result["msg"].startswith("the cards do not run the planned firmware: 0000:03:00.0 PSID MT_0000000436 (NVIDIA) runs "
                                    "22.43.1020 (burned 22.45.3608), wanted 22.45.3608; the later stages")


def test_verify_passes_when_every_card_runs_the_planned_firmware(host, monkeypatch):
    result, failed = verify(host, monkeypatch, MLXFW_ACTIVE)
    assert not failed and result["changed"] is False
    assert [(dev["pci"], dev["running"], dev["action"]) for dev in result["devices"]] == [(PCI, "22.45.3608", "none")]
