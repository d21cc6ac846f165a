# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/datapath/ovn_build.py: version strings as the
tools print them (tests/fixtures), the tag choice, source identities of real
tarballs and trees, the records and the plan."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import subprocess
import tarfile

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_sources
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import command_line

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "ovn_build")
A, B, C = "a" * 40, "b" * 40, "c" * 40


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def refs_with(*tags):
    """``git ls-remote`` lines of annotated tags (the tag object, then the peeled commit)."""
    lines = []
    for i, tag in enumerate(tags):
        lines.append("%040x\trefs/tags/%s" % (i + 1, tag))
        lines.append("%040x\trefs/tags/%s^{}" % (i + 1000, tag))
    lines.append(A + "\trefs/heads/main")
    lines.append(A + "\tHEAD")
    return ob.parse_ls_remote("\n".join(lines) + "\n")


def test_debian_ovs_is_an_upstream_release():
    version = ob.parse_ovs_version(fixture("ovs_vswitchd_version_debian12.txt"))
    assert (version["version"], version["scheme"], version["upstream"]) == ("3.1.0", "upstream", (3, 1, 0))


def test_a_git_hash_after_the_version_is_kept_out_of_the_release():
    version = ob.parse_ovs_version(fixture("ovs_vswitchd_version_bluefield_mlnx.txt"))
    assert (version["version"], version["upstream"], version["line"]) == (
        "2.17.2-24a81c8", (2, 17, 2), "ovs-vswitchd (Open vSwitch) 2.17.2-24a81c8")


def test_doca_numbering_does_not_pass_for_an_upstream_release():
    version = ob.parse_ovs_version(fixture("ovs_vsctl_version_doca_3_2.txt"))
    assert (version["version"], version["scheme"], version["upstream"]) == ("3.2.1005", "doca", None)


def test_a_doca_package_names_its_upstream_base():
    lines = fixture("bf_info_doca_openvswitch_packages.txt").splitlines()
    assert [ob.package_base(line) for line in lines] == [(3, 3, 5), (3, 3, 4)]
    assert ob.version_scheme("2.9.2-0010-25.02-based-3.3.3") == dict(scheme="based", upstream=(3, 3, 3))


def test_no_version_line_is_none():
    assert ob.parse_ovs_version("ovs-vswitchd: command not found\n") is None


def test_built_ovn_version():
    assert ob.parse_tool_version(fixture("ovn_nbctl_version_built_24_03_8.txt")) == dict(ovn="24.03.8", ovs_library="3.3.8")


def test_ls_remote_prefers_the_peeled_commit_of_an_annotated_tag():
    refs = ob.parse_ls_remote("%s\trefs/tags/v3.3.8\n%s\trefs/tags/v3.3.8^{}\n%s\trefs/heads/branch-3.3\n" % (A, B, C))
    assert ob.resolve_ref(refs, "v3.3.8") == (B, "refs/tags/v3.3.8")
    assert ob.resolve_ref(refs, "branch-3.3") == (C, "refs/heads/branch-3.3")
    assert ob.resolve_ref(refs, "refs/heads/branch-3.3") == (C, "refs/heads/branch-3.3")
    assert ob.resolve_ref(refs, C) == (C, C)
    assert ob.resolve_ref(refs, "v3.3.9") is None


def test_the_same_patch_release_when_it_is_tagged():
    refs = refs_with("v3.1.0", "v3.1.2", "v3.3.4", "v3.3.5", "v3.3.8")
    version = ob.parse_ovs_version("ovs-vswitchd (Open vSwitch) 3.3.5\n")
    tag, why = ob.closest_tag(version, refs)
    assert tag == "v3.3.5"
    assert why == "the host runs Open vSwitch 3.3.5 (ovs-vswitchd (Open vSwitch) 3.3.5); v3.3.5 is that release"


def test_the_nearest_patch_release_of_the_same_minor_otherwise():
    refs = refs_with("v3.1.0", "v3.1.2", "v3.1.5", "v3.3.8")
    version = ob.parse_ovs_version(fixture("ovs_vswitchd_version_debian12.txt").replace("3.1.0", "3.1.3"))
    tag, why = ob.closest_tag(version, refs)
    assert tag == "v3.1.2"
    assert "v3.1.3 is not tagged, v3.1.2 is the nearest release of 3.1" in why
    # Equally near: the newer one (patch releases only fix bugs).
    version["upstream"] = (3, 1, 1)
    assert ob.closest_tag(version, refs_with("v3.1.0", "v3.1.2"))[0] == "v3.1.2"


def test_a_doca_package_base_is_mapped_and_said():
    version = ob.parse_ovs_version(fixture("ovs_vsctl_version_doca_3_2.txt"))
    version["upstream"] = ob.package_base(fixture("bf_info_doca_openvswitch_packages.txt"))
    tag, why = ob.closest_tag(version, refs_with("v3.3.4", "v3.3.5", "v3.3.8"))
    assert tag == "v3.3.5"
    assert ", based on 3.3.5; v3.3.5 is that release" in why


def test_doca_numbering_without_a_base_is_refused():
    version = ob.parse_ovs_version(fixture("ovs_vsctl_version_doca_3_2.txt"))
    with pytest.raises(ValueError, match=r"3\.2\.1005 .*does not say which upstream release"):
        ob.closest_tag(version, refs_with("v3.2.1", "v3.3.8"))


def test_no_tag_of_the_minor_is_refused_with_the_newest_tags():
    version = ob.parse_ovs_version(fixture("ovs_vswitchd_version_debian12.txt"))
    with pytest.raises(ValueError) as exc:
        ob.closest_tag(version, refs_with("v3.3.8", "v24.03.8"))
    assert "no v3.1.* tag exists (the newest: v3.3.8, v24.03.8)" in str(exc.value)


def test_gitlink_of_the_ovs_submodule():
    assert ob.parse_gitlink("160000 commit %s\tovs\n" % B) == B
    assert ob.parse_gitlink("") is None


def make_tar(path, members, commit=None):
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT, pax_headers={"comment": commit} if commit else None) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_the_release_archives_carry_the_commits_of_their_tags():
    """The archives the resolver finds (OFFLOAD_TESTBED_SOURCES, ../shared/sources, or downloaded) were made by git
    archive from the upstream tags: the commit is in the pax header, and each is the tree of its project."""
    try:
        found = ovn_sources.find(ovn_sources.ARCHIVES, ROOT)
    except ovn_sources.SourceError as exc:
        found = str(exc)
    if isinstance(found, str):
        pytest.fail(found, pytrace=False)
    for each in found:
        release = ovn_sources.RELEASES[each["name"]]
        ident, problems, project = ob.inspect_archive(each["path"], None)
        assert (ident, problems) == (release["commit"], []), each
        assert project[0] == {"openvswitch-3.3.8.tar.gz": "ovs", "ovn-24.03.8.tar.gz": "ovn"}[each["name"]]
        assert ovn_sources.check(each["path"], release)[0] in ("sha256", "tree")


def test_archive_identity_checksum_and_tree(tmp_path):
    good = str(tmp_path / "good.tar.gz")
    make_tar(good, {"ovs/boot.sh": b"#!/bin/sh\n", "ovs/configure.ac": b"AC_INIT\n"})
    ident, problems, project = ob.inspect_archive(good, None)
    assert problems == [] and ident == "sha256:" + ob.file_sha256(good) and project == (None, None)
    commit = str(tmp_path / "commit.tar.gz")
    make_tar(commit, {"ovs/boot.sh": b"", "ovs/configure.ac": b""}, commit=C)
    assert ob.inspect_archive(commit, None) == (C, [], (None, None))
    assert "has SHA-256 %s, not %s" % (ob.file_sha256(good), "0" * 64) in ob.inspect_archive(good, "0" * 64)[1][0]
    bad = str(tmp_path / "bad.tar.gz")
    make_tar(bad, {"ovs/README": b""})
    assert "missing boot.sh, configure.ac" in ob.inspect_archive(bad, None)[1][0]
    (tmp_path / "plain.txt").write_text("not a tarball")
    assert "is not a tar archive" in ob.inspect_archive(str(tmp_path / "plain.txt"), None)[1][0]


def test_directory_identity_follows_content_not_git_or_build(tmp_path):
    tree = tmp_path / "ovn"
    (tree / "_build").mkdir(parents=True)
    (tree / "boot.sh").write_text("#!/bin/sh\n")
    (tree / "configure.ac").write_text("AC_INIT\n")
    first, problems, dummy = ob.inspect_dir(str(tree))
    assert problems == [] and first.startswith("tree:")
    (tree / "_build" / "Makefile").write_text("all:\n")
    subprocess.check_call(["git", "init", "-q", str(tree)])
    assert ob.inspect_dir(str(tree))[0] == first
    (tree / "configure.ac").write_text("AC_INIT([ovn], [24.03.9])\n")
    assert ob.inspect_dir(str(tree))[0] != first
    (tree / "boot.sh").unlink()
    assert ob.inspect_dir(str(tree))[1] == ["%s is not an Open vSwitch or OVN source tree: it has no boot.sh" % tree]


def params(**extra):
    base = dict(ovs_git_url="https://github.com/openvswitch/ovs.git", ovs_ref="v3.3.8", ovs_archive=None, ovs_dir=None,
                ovs_archive_sha256=None, ovs_configure_options=[], ovn_git_url="https://github.com/ovn-org/ovn.git",
                ovn_ref="v24.03.8", ovn_archive=None, ovn_dir=None, ovn_archive_sha256=None, ovn_configure_options=[],
                workdir="/usr/src/ovn", prefix="/usr", sysconfdir="/etc", localstatedir="/var", jobs=None, install_ovs=False)
    base.update(extra)
    return base


def name(option):
    return "ovn_build_" + option


def test_good_options_pass():
    assert ob.check_options(params(), name) == []


def test_every_bad_option_at_once_named_as_the_user_wrote_it():
    errors = ob.check_options(params(jobs=0, ovs_archive="/a.tgz", ovs_dir="/d", ovn_archive_sha256="abc", ovn_ref="auto",
                                     prefix="opt/ovn"), name)
    assert errors == [
        "ovn_build_ovs_archive and ovn_build_ovs_dir are both set; give one source for Open vSwitch (or neither, for ovn_build_ovs_git_url)",
        "ovn_build_ovn_archive_sha256: 'abc' is not a SHA-256 checksum (64 hexadecimal digits, as sha256sum prints it)",
        "ovn_build_ovn_ref: auto applies to Open vSwitch only; give an OVN tag, branch or commit",
        "ovn_build_jobs: 0 is not a number of parallel make jobs; give 1 or more, or leave it unset for one per CPU of the host",
        "ovn_build_prefix: 'opt/ovn' is not an absolute path",
    ]


def test_auto_and_submodule_need_git():
    errors = ob.check_options(params(ovs_ref="submodule", ovs_archive="/ovs.tgz", ovn_archive="/ovn.tgz"), name)
    assert errors[0].startswith("ovn_build_ovs_ref: submodule chooses what is fetched from ovn_build_ovs_git_url, but ovn_build_ovs_archive is set")
    assert errors[1].startswith("ovn_build_ovs_ref: submodule reads the commit OVN pins from its git history; an OVN archive carries none")


SOURCES = {"ovs": dict(kind="git", url="u", ref="v3.3.8", id=B, fetch="refs/tags/v3.3.8"),
           "ovn": dict(kind="archive", path="/w/sources/ovn.tgz", id=C)}


def test_first_run_fetches_builds_and_installs_in_order():
    p = params(workdir="/w", prefix="/opt/ovn")
    paths = ob.layout(p)
    want = ob.wanted_records(p, SOURCES, paths)
    steps = ob.plan_steps(p, SOURCES, ob.decide(want, {}), paths, 2)
    assert [(comp, step) for comp, step, dummy in steps] == [
        ("ovs", "fetch"), ("ovs", "boot"), ("ovs", "configure"), ("ovs", "make"),
        ("ovn", "fetch"), ("ovn", "boot"), ("ovn", "configure"), ("ovn", "make"), ("ovn", "install")]
    assert steps[5][2] == [(["./boot.sh"], "/w/ovn")]
    assert steps[6][2] == [(["rm", "-rf", "/w/ovn/_build"], None), (["mkdir", "-p", "/w/ovn/_build"], None),
                           (["../configure", "--prefix=/opt/ovn", "--sysconfdir=/etc", "--localstatedir=/var",
                             "--with-ovs-source=/w/ovs", "--with-ovs-build=/w/ovs/_build"], "/w/ovn/_build")]
    assert steps[7][2] == [(["make", "-j2"], "/w/ovn/_build")]
    assert steps[4][2] == [(["rm", "-rf", "/w/ovn"], None), (["mkdir", "-p", "/w/ovn"], None),
                           (["tar", "-xf", "/w/sources/ovn.tgz", "--strip-components=1", "-C", "/w/ovn"], None)]
    assert command_line(*steps[8][2][0]) == "(cd /w/ovn/_build && make install)"


def test_records_on_disk_skip_everything():
    p = params(workdir="/w")
    paths = ob.layout(p)
    want = ob.wanted_records(p, SOURCES, paths)
    have = dict(want, ovn_install=dict(want["ovn_install"], ovn_version="24.03.8"))
    assert ob.plan_steps(p, SOURCES, ob.decide(want, have), paths, 2) == []


def test_a_new_ovn_commit_rebuilds_ovn_only():
    p = params(workdir="/w")
    paths = ob.layout(p)
    have = ob.wanted_records(p, SOURCES, paths)
    sources = dict(SOURCES, ovn=dict(SOURCES["ovn"], id=A))
    todo = ob.decide(ob.wanted_records(p, sources, paths), have)
    assert [s[:2] for s in ob.plan_steps(p, sources, todo, paths, 2)] == [
        ("ovn", "fetch"), ("ovn", "boot"), ("ovn", "configure"), ("ovn", "make"), ("ovn", "install")]


def test_new_ovs_flags_rebuild_ovs_and_ovn_without_fetching_ovs():
    p = params(workdir="/w")
    paths = ob.layout(p)
    have = ob.wanted_records(p, SOURCES, paths)
    todo = ob.decide(ob.wanted_records(params(workdir="/w", ovs_configure_options=["--enable-shared"]), SOURCES, paths), have)
    assert [s[:2] for s in ob.plan_steps(p, SOURCES, todo, paths, 2)] == [
        ("ovs", "boot"), ("ovs", "configure"), ("ovs", "make"), ("ovn", "boot"), ("ovn", "configure"), ("ovn", "make"),
        ("ovn", "install")]


def test_git_fetch_commands():
    paths = ob.layout(params(workdir="/w"))
    assert ob.fetch_commands("ovs", SOURCES["ovs"], paths)[1:] == [
        (["git", "init", "-q", "/w/ovs"], None),
        (["git", "-C", "/w/ovs", "fetch", "-q", "--depth", "1", "u", "refs/tags/v3.3.8"], None),
        (["git", "-C", "/w/ovs", "checkout", "-q", "--detach", "FETCH_HEAD"], None)]


def test_install_ovs_installs_both_and_a_missing_ovs_install_alone_is_redone():
    p = params(workdir="/w", prefix="/opt/ovn", install_ovs=True)
    paths = ob.layout(p)
    want = ob.wanted_records(p, SOURCES, paths)
    steps = ob.plan_steps(p, SOURCES, ob.decide(want, {}), paths, 2)
    assert [s[:2] for s in steps] == [("ovs", "fetch"), ("ovs", "boot"), ("ovs", "configure"), ("ovs", "make"),
                                      ("ovs", "install"), ("ovn", "fetch"), ("ovn", "boot"), ("ovn", "configure"),
                                      ("ovn", "make"), ("ovn", "install")]
    assert steps[4][2] == [(["make", "install"], "/w/ovs/_build")]
    have = dict(want, ovs_install=None)
    assert [s[:2] for s in ob.plan_steps(p, SOURCES, ob.decide(want, have), paths, 2)] == [("ovs", "install")]


def test_a_build_cut_short_resumes_after_its_last_step():
    p = params(workdir="/w")
    paths = ob.layout(p)
    want = ob.wanted_records(p, SOURCES, paths)
    have = dict(want, ovn_install=None, ovn_build=ob.build_record(want, "ovn", "boot"))
    assert ob.build_record(want, "ovn", "boot")["partial"] == ["boot"]
    assert "partial" not in ob.build_record(want, "ovn", "make")
    assert [s[:2] for s in ob.plan_steps(p, SOURCES, ob.decide(want, have), paths, 2)] == [
        ("ovn", "configure"), ("ovn", "make"), ("ovn", "install")]
    # A new tree is built from its start, whatever the record of the old one said.
    have["ovn_source"] = dict(id=A)
    assert [s[:2] for s in ob.plan_steps(p, SOURCES, ob.decide(want, have), paths, 2)] == [
        ("ovn", "fetch"), ("ovn", "boot"), ("ovn", "configure"), ("ovn", "make"), ("ovn", "install")]


def test_ovn_is_fetched_first_when_open_vswitch_is_the_commit_it_pins():
    p = params(workdir="/w")
    paths = ob.layout(p)
    sources = dict(SOURCES, ovs=dict(kind="git", url="u", ref="submodule", id=None, fetch=None))
    want = ob.wanted_records(p, sources, paths)
    steps = ob.plan_steps(p, sources, ob.decide(want, {}), paths, 2)
    assert [s[:2] for s in steps][:3] == [("ovn", "fetch"), ("ovs", "fetch"), ("ovs", "boot")]


def test_durations_for_people():
    assert [ob.duration(x) for x in (0.4, 7, 59.6, 114.2, 3600)] == ["0 s", "7 s", "1 min 0 s", "1 min 54 s", "60 min 0 s"]


def test_which_project_a_tree_is(tmp_path):
    ovs = {"ovs-3.3.8/boot.sh": b"", "ovs-3.3.8/configure.ac": b"AC_PREREQ(2.63)\nAC_INIT(openvswitch, 3.3.8, bugs@openvswitch.org)\n"}
    make_tar(str(tmp_path / "ovs.tar.gz"), ovs)
    assert ob.inspect_archive(str(tmp_path / "ovs.tar.gz"), None)[2] == (
        "ovs", "configure.ac: AC_INIT(openvswitch, 3.3.8, bugs@openvswitch.org)")
    ovn = {"ovn/boot.sh": b"", "ovn/configure.ac": b"AC_INIT([ovn], [24.03.8])\n"}
    make_tar(str(tmp_path / "ovn.tar.gz"), ovn)
    assert ob.inspect_archive(str(tmp_path / "ovn.tar.gz"), None)[2] == ("ovn", "configure.ac: AC_INIT([ovn], [24.03.8])")
    # A fork that renames the package: the program only that project has.
    tree = tmp_path / "fork"
    (tree / "controller").mkdir(parents=True)
    (tree / "boot.sh").write_text("")
    (tree / "configure.ac").write_text("AC_INIT(ovn-fork, 1.0)\n")
    (tree / "controller" / "ovn-controller.c").write_text("int main(void) { return 0; }\n")
    assert ob.inspect_dir(str(tree))[2] == ("ovn", "it has controller/ovn-controller.c")
    (tree / "controller" / "ovn-controller.c").unlink()
    assert ob.inspect_dir(str(tree))[2] == (None, None)


def test_sources_given_the_other_way_round_are_refused_naming_both_variables():
    found = {"ovs": ("archive", "/c/ovn-24.03.8.tar.gz", ("ovn", "configure.ac: AC_INIT(ovn, 24.03.8)")),
             "ovn": ("archive", "/c/openvswitch-3.3.8.tar.gz", ("ovs", "configure.ac: AC_INIT(openvswitch, 3.3.8)"))}
    assert ob.mismatched_sources(found, name) == [
        "ovn_build_ovs_archive: /c/ovn-24.03.8.tar.gz is the OVN source (configure.ac: AC_INIT(ovn, 24.03.8)), not the "
        "Open vSwitch one; the Open vSwitch and OVN sources are given the other way round: swap ovn_build_ovs_archive "
        "and ovn_build_ovn_archive",
        "ovn_build_ovn_archive: /c/openvswitch-3.3.8.tar.gz is the Open vSwitch source (configure.ac: AC_INIT(openvswitch, "
        "3.3.8)), not the OVN one; the Open vSwitch and OVN sources are given the other way round: swap "
        "ovn_build_ovs_archive and ovn_build_ovn_archive"]
    one = {"ovs": ("dir", "/c/ovn", ("ovn", "it has controller/ovn-controller.c")), "ovn": ("dir", "/c/ovn", ("ovn", "x"))}
    assert ob.mismatched_sources(one, name) == [
        "ovn_build_ovs_dir: /c/ovn is the OVN source (it has controller/ovn-controller.c), not the Open vSwitch one; "
        "give ovn_build_ovs_dir the Open vSwitch source"]
    assert ob.mismatched_sources({"ovs": ("dir", "/c/x", (None, None))}, name) == []


def test_an_archive_and_its_tree_unpacked_have_one_digest_whatever_the_packing(tmp_path):
    members = {"ovs-3.3.8/boot.sh": b"#!/bin/sh\n", "ovs-3.3.8/configure.ac": b"AC_INIT(openvswitch, 3.3.8)\n",
               "ovs-3.3.8/lib/a.c": b"int a;\n", "ovs-3.3.8/lib-b.c": b"int b;\n"}
    make_tar(str(tmp_path / "one.tar.gz"), members)
    make_tar(str(tmp_path / "two.tar.gz"), dict(("openvswitch-3.3.8/" + k.split("/", 1)[1], v) for k, v in members.items()), commit=C)
    assert ob.file_sha256(str(tmp_path / "one.tar.gz")) != ob.file_sha256(str(tmp_path / "two.tar.gz"))
    digest = ob.content_digest(ob.archive_entries(str(tmp_path / "one.tar.gz")))
    assert ob.content_digest(ob.archive_entries(str(tmp_path / "two.tar.gz"))) == digest
    with tarfile.open(str(tmp_path / "one.tar.gz")) as tar:
        tar.extractall(str(tmp_path / "x"), filter="tar")
    assert ob.tree_digest(str(tmp_path / "x" / "ovs-3.3.8")) == digest
    (tmp_path / "x" / "ovs-3.3.8" / "lib" / "a.c").write_text("int a = 1;\n")
    assert ob.tree_digest(str(tmp_path / "x" / "ovs-3.3.8")) != digest
