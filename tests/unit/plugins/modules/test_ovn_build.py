"""ovn_build with run_command answered from a table of exact commands.

The version strings are the tools' own (tests/fixtures); the records are real
files in a temporary directory, so a second run sees what the first wrote.
"""
import json
import os

import yaml

from ansible_collections.offload.testbed.plugins.modules import ovn_build
from modtest import run_module

FIX = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "ovn_build")
OVS_URL = "https://github.com/openvswitch/ovs.git"
OVN_URL = "https://github.com/ovn-org/ovn.git"
OVS_TAG = "1" * 40
OVS_COMMIT = "bc99439446a1c0b94498ad7ea44f3d1d933ead90"
OVN_TAG = "2" * 40
OVN_COMMIT = "697058648fdecfb67d7f3a11513e27af9c5d49a6"
LS_OVS = "%s\trefs/tags/v3.3.5\n%s\trefs/tags/v3.3.5^{}\n%s\trefs/tags/v3.3.8\n%s\trefs/tags/v3.3.8^{}\n" % (
    "3" * 40, "4" * 40, OVS_TAG, OVS_COMMIT)
LS_OVN = "%s\trefs/tags/v24.03.8\n%s\trefs/tags/v24.03.8^{}\n%s\trefs/heads/main\n" % (OVN_TAG, OVN_COMMIT, "5" * 40)


def read(name):
    with open(os.path.join(FIX, name)) as handle:
        return handle.read()


def args(tmp_path, **extra):
    ovs_lib = tmp_path / "ovs-lib"
    ovs_lib.write_text("# the host's ovs-lib\n")
    base = dict(workdir=str(tmp_path / "w"), prefix=str(tmp_path / "p"), ovs_lib=str(ovs_lib), jobs=2,
                variable_prefix="ovn_build_")
    base.update(extra)
    return base


def reads():
    return {("git", "ls-remote", OVS_URL): (0, LS_OVS, ""), ("git", "ls-remote", OVN_URL): (0, LS_OVN, "")}


def build_commands(tmp_path):
    w, p = str(tmp_path / "w"), str(tmp_path / "p")
    flags = ["--prefix=" + p, "--sysconfdir=/etc", "--localstatedir=/var"]
    cmds = []
    for comp, url, ref, commit in (("ovs", OVS_URL, "refs/tags/v3.3.8", OVS_COMMIT), ("ovn", OVN_URL, "refs/tags/v24.03.8", OVN_COMMIT)):
        tree = os.path.join(w, comp)
        extra = ["--with-ovs-source=%s/ovs" % w, "--with-ovs-build=%s/ovs/_build" % w] if comp == "ovn" else []
        cmds += [("rm", "-rf", tree), ("git", "init", "-q", tree), ("git", "-C", tree, "fetch", "-q", "--depth", "1", url, ref),
                 ("git", "-C", tree, "checkout", "-q", "--detach", "FETCH_HEAD"), ("git", "-C", tree, "rev-parse", "HEAD"),
                 ("./boot.sh",), ("rm", "-rf", tree + "/_build"), ("mkdir", "-p", tree + "/_build"),
                 tuple(["../configure"] + flags + extra), ("make", "-j2")]
        if comp == "ovn":
            cmds += [("make", "install")]
    cmds += [("mkdir", "-p", p + "/share/openvswitch/scripts"),
             ("ln", "-sfn", str(tmp_path / "ovs-lib"), p + "/share/openvswitch/scripts/ovs-lib")]
    return cmds, {
        ("git", "-C", w + "/ovs", "rev-parse", "HEAD"): (0, OVS_COMMIT + "\n", ""),
        ("git", "-C", w + "/ovn", "rev-parse", "HEAD"): (0, OVN_COMMIT + "\n", "")}


def test_argument_spec_is_the_documented_one():
    doc = yaml.safe_load(ovn_build.DOCUMENTATION)["options"]
    spec = ovn_build.argument_spec()
    assert set(doc) == set(spec)
    for name, option in spec.items():
        assert doc[name]["type"] == option["type"], name
        assert doc[name].get("default") == option.get("default"), name
        assert doc[name].get("elements") == option.get("elements"), name


def test_check_mode_plans_from_the_refs_and_runs_nothing_else(tmp_path, monkeypatch):
    result, failed, calls = run_module(ovn_build.main, dict(args(tmp_path), _ansible_check_mode=True, _ansible_diff=True),
                                       reads(), monkeypatch)
    assert not failed, result["msg"]
    assert sorted(calls) == sorted(reads())
    assert [line.split(" (")[0] for line in result["plan"]] == [
        "fetch Open vSwitch %s v3.3.8" % OVS_URL, "boot.sh Open vSwitch in %s/w/ovs" % tmp_path,
        "configure Open vSwitch in %s/w/ovs/_build" % tmp_path, "make Open vSwitch in %s/w/ovs/_build" % tmp_path,
        "fetch OVN %s v24.03.8" % OVN_URL, "boot.sh OVN in %s/w/ovn" % tmp_path, "configure OVN in %s/w/ovn/_build" % tmp_path,
        "make OVN in %s/w/ovn/_build" % tmp_path, "install OVN into %s/p" % tmp_path,
        "link %s/p/share/openvswitch/scripts/ovs-lib to the host's ovs-lib" % tmp_path]
    assert [(s["component"], s["step"]) for s in result["steps"]] == [
        ("ovs", "fetch"), ("ovs", "boot"), ("ovs", "configure"), ("ovs", "make"), ("ovn", "fetch"), ("ovn", "boot"),
        ("ovn", "configure"), ("ovn", "make"), ("ovn", "install"), ("ovn", "link")]
    assert [s["line"] for s in result["steps"]] == result["plan"]
    assert result["changed"] and result["fetch"] == ["ovn", "ovs"]
    assert '"ovs_commit": "%s"' % OVS_COMMIT in result["diff"]["after"] and result["diff"]["before"] == ""
    assert not (tmp_path / "w").exists() and not (tmp_path / "p").exists()


def test_build_runs_the_plan_in_order_then_a_second_run_does_nothing(tmp_path, monkeypatch):
    commands, answers = build_commands(tmp_path)
    table = reads()
    table.update((c, (0, "", "")) for c in commands)
    table.update(answers)
    table[("git", "-C", str(tmp_path / "w" / "ovn"), "ls-tree", "HEAD", "ovs")] = (0, "", "")
    result, failed, calls = run_module(ovn_build.main, args(tmp_path), table, monkeypatch)
    assert not failed, result["msg"]
    assert [c for c in calls if c in set(commands)] == commands
    assert result["changed"] and len(result["plan"]) == 10
    assert all(s["seconds"] >= 0 and s["took"].endswith(" s") for s in result["steps"])
    log = (tmp_path / "w" / "ovn-build.log").read_text()
    assert "$ (cd %s/w/ovn/_build && make -j2)\n[exit 0]\n" % tmp_path in log
    # What make install would have left, then the same run again.
    for path in ("p/bin/ovn-nbctl", "p/share/ovn/scripts/ovn-ctl"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    (tmp_path / "p/share/openvswitch/scripts").mkdir(parents=True)
    (tmp_path / "p/share/openvswitch/scripts/ovs-lib").symlink_to(tmp_path / "ovs-lib")
    version = (0, read("ovn_nbctl_version_built_24_03_8.txt"), "")
    table[(str(tmp_path / "p/bin/ovn-nbctl"), "--version")] = version
    result, failed, calls = run_module(ovn_build.main, args(tmp_path), table, monkeypatch)
    assert not failed, result["msg"]
    assert (result["changed"], result["plan"], result["commands"]) == (False, [], [])
    assert sorted(set(calls)) == sorted(set(reads()) | {(str(tmp_path / "p/bin/ovn-nbctl"), "--version")})
    assert result["facts"]["ovn_version"] == "24.03.8" and result["facts"]["ovs_commit"] == OVS_COMMIT


def test_a_failed_step_reports_its_log_and_last_lines_and_the_next_run_resumes_there(tmp_path, monkeypatch):
    commands, answers = build_commands(tmp_path)
    table = reads()
    table.update((c, (0, "", "")) for c in commands)
    table.update(answers)
    table[("make", "-j2")] = (2, "gcc -c lib/ovs-thread.c\n", "lib/ovs-thread.c:1:1: error: expected ';'\nmake: *** [all] Error 2\n")
    result, failed, calls = run_module(ovn_build.main, args(tmp_path), table, monkeypatch)
    assert failed
    assert result["msg"].startswith("Open vSwitch make failed at `(cd %s/w/ovs/_build && make -j2)` (exit 2); the whole log is %s/w/ovs-build.log"
                                    % (tmp_path, tmp_path))
    assert result["log_tail"][-2:] == ["make: *** [all] Error 2", "[exit 2]"]
    assert ("./boot.sh",) in calls and calls[-1] == ("make", "-j2")
    # The fetch, boot.sh and configure of Open vSwitch are recorded: the next run starts at its make.
    table[("make", "-j2")] = (0, "", "")
    table[("git", "-C", str(tmp_path / "w" / "ovn"), "ls-tree", "HEAD", "ovs")] = (0, "", "")
    result, failed, calls = run_module(ovn_build.main, args(tmp_path), table, monkeypatch)
    assert not failed, result["msg"]
    assert [(s["component"], s["step"]) for s in result["steps"]][:2] == [("ovs", "make"), ("ovn", "fetch")]
    assert calls.count(("./boot.sh",)) == 1 and [c for c in calls if c not in reads()][0] == ("make", "-j2")
    log = (tmp_path / "w" / "ovs-build.log").read_text()
    assert log.count("=== Open vSwitch make, ") == 2 and log.count("[exit 2]") == 1


def test_one_step_runs_alone_and_a_step_done_meanwhile_is_not_run_again(tmp_path, monkeypatch):
    commands, answers = build_commands(tmp_path)
    table = reads()
    table.update((c, (0, "", "")) for c in commands)
    table.update(answers)
    result, failed, calls = run_module(ovn_build.main, dict(args(tmp_path), step="ovs:fetch"), table, monkeypatch)
    assert not failed, result["msg"]
    assert [(s["component"], s["step"]) for s in result["steps"]] == [("ovs", "fetch")] and result["changed"]
    assert result["steps"][0]["line"].startswith("fetch Open vSwitch %s v3.3.8 (%s)" % (OVS_URL, OVS_COMMIT))
    assert [c for c in calls if c not in reads()] == commands[:5] and result["waited"] >= 0
    result, failed, calls = run_module(ovn_build.main, dict(args(tmp_path), step="ovs:fetch"), table, monkeypatch)
    assert (failed, result["changed"], result["steps"]) == (False, False, [])
    assert sorted(calls) == sorted(reads())
    result, failed, calls = run_module(ovn_build.main, dict(args(tmp_path), step="ovs:boot"), table, monkeypatch)
    assert [c for c in calls if c not in reads()] == [("./boot.sh",)]
    assert json.loads((tmp_path / "w/ovs/_build/.offload-testbed-build.json").read_text())["partial"] == ["boot"]


def test_auto_maps_doca_numbering_through_the_package_base(tmp_path, monkeypatch):
    monkeypatch.setattr(ovn_build.AnsibleModule, "get_bin_path", lambda self, name, *a, **kw: "/usr/bin/" + name if name == "dpkg-query" else None)
    table = reads()
    table[("ovs-vswitchd", "--version")] = (0, read("ovs_vsctl_version_doca_3_2.txt").replace("ovs-vsctl", "ovs-vswitchd"), "")
    table[("dpkg-query", "-W", "-f=${Version}\\n", "doca-openvswitch-switch")] = (0, "3.0.0-0056-25.04-based-3.3.5\n", "")
    result, failed, dummy = run_module(ovn_build.main, dict(args(tmp_path, ovs_ref="auto"), _ansible_check_mode=True), table, monkeypatch)
    assert not failed, result["msg"]
    assert (result["ovs"]["ref"], result["ovs"]["id"]) == ("v3.3.5", "4" * 40)
    assert result["ovs"]["reason"] == ("the host runs Open vSwitch 3.2.1005 (ovs-vswitchd (Open vSwitch) 3.2.1005; package "
                                       "3.0.0-0056-25.04-based-3.3.5), based on 3.3.5; v3.3.5 is that release")


def test_every_unknown_ref_at_once_before_anything(tmp_path, monkeypatch):
    result, failed, calls = run_module(ovn_build.main, args(tmp_path, ovs_ref="v3.3.99", ovn_ref="v24.09.0"), reads(), monkeypatch)
    assert failed
    assert result["errors"] == [
        "ovn_build_ovn_ref: v24.09.0 is not a tag, branch or full commit of %s (its newest release tags: v24.03.8)" % OVN_URL,
        "ovn_build_ovs_ref: v3.3.99 is not a tag, branch or full commit of %s (its newest release tags: v3.3.5, v3.3.8)" % OVS_URL]
    assert sorted(calls) == sorted(reads()) and not (tmp_path / "w").exists()


def test_an_unreachable_url_is_refused_with_what_git_said(tmp_path, monkeypatch):
    table = reads()
    table[("git", "ls-remote", OVS_URL)] = (128, "", "fatal: unable to access 'https://github.com/openvswitch/ovs.git/': "
                                                     "Could not resolve host: github.com\n")
    result, failed, dummy = run_module(ovn_build.main, args(tmp_path, ovs_ref="submodule"), table, monkeypatch)
    assert failed
    assert result["errors"] == ["ovn_build_ovs_git_url: git ls-remote %s failed (fatal: unable to access "
                                "'https://github.com/openvswitch/ovs.git/': Could not resolve host: github.com); check the URL "
                                "and that the host reaches it" % OVS_URL]


def test_no_ovs_lib_for_ovn_ctl_is_refused_before_anything(tmp_path, monkeypatch):
    result, failed, calls = run_module(ovn_build.main, args(tmp_path, ovs_lib=str(tmp_path / "none" / "ovs-lib")), reads(), monkeypatch)
    assert failed
    assert result["errors"] == ["ovn_build_ovs_lib: %s does not exist; ovn-ctl needs the ovs-lib (and ovsdb-server) of an installed "
                                "Open vSwitch: install Open vSwitch, point ovn_build_ovs_lib at its ovs-lib, or set "
                                "ovn_build_install_ovs" % (tmp_path / "none" / "ovs-lib")]
    assert sorted(calls) == sorted(reads()) and not (tmp_path / "w").exists()
