"""The ovn_build role builds the real Open vSwitch 3.3.8 and OVN 24.03.8.

The sources are the release archives of Open vSwitch v3.3.8 and OVN v24.03.8,
as the resolver finds them (plugins/module_utils/datapath/ovn_sources.py:
OFFLOAD_TESTBED_SOURCES, ../shared/sources, or downloaded and checked): once
from git (local repositories this test makes from the archives, reached
through ``file://`` URLs; Open vSwitch at the commit OVN pins,
``ovn_build_ovs_ref: submodule``), once from the archives.
Both install OVN under the test's own prefix, ``.tmp/ovn-build/prefix``; the
archive build is the one the virtual inventory's ``OVN=source`` lab and the
molecule scenario ``ovn_source`` use, so they find it built (the build is
kept between the steps of one ``make test``, never between runs: ``.tmp`` is
not in the repository). Bad settings are refused before anything is written.
Each step shows while it runs and says how long it took.

The compiler cache (ccache, when installed) is shared by the builds of this
one run; the first build is always a cold one.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
BASE = os.path.join(ROOT, ".tmp", "ovn-build")
PREFIX = os.path.join(BASE, "prefix")
WORK = os.path.join(BASE, "work")
WORK_GIT = os.path.join(BASE, "work-git")
PLAYBOOK = os.path.join(ROOT, "tests", "integration", "playbooks", "ovn_build.yml")
GIT_ID = ["-c", "user.name=offload.testbed tests", "-c", "user.email=tests@offload.testbed.invalid"]


def release_archives():
    """(Open vSwitch archive, OVN archive), as the resolver finds them; its one message when it cannot."""
    from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_sources
    try:
        return tuple(each["path"] for each in ovn_sources.find(ovn_sources.ARCHIVES, ROOT))
    except ovn_sources.SourceError as exc:
        message = str(exc)
    pytest.fail(message, pytrace=False)


OVS_ARCHIVE, OVN_ARCHIVE = release_archives()


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


@pytest.fixture(scope="module")
def collection_path(tmp_path_factory):
    base = tmp_path_factory.mktemp("collections")
    (base / "ansible_collections" / "offload").mkdir(parents=True)
    os.symlink(ROOT, base / "ansible_collections" / "offload" / "testbed")
    return str(base)


def git(*args, cwd=None):
    return subprocess.run(["git"] + GIT_ID + list(args), cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def repository_from_archive(archive, path, gitlink=None):
    """A git repository holding the archive's tree as one commit, tagged as the archive's release."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    with tarfile.open(archive) as tar:
        top = tar.getmembers()[0].name.split("/")[0]
        tar.extractall(os.path.dirname(path), filter="tar")
    shutil.rmtree(path)
    os.rename(os.path.join(os.path.dirname(path), top), path)
    git("init", "-q", path)
    git("add", "-A", "-f", cwd=path)  # the release tree whole, files its .gitignore names included
    if gitlink:
        git("update-index", "--add", "--cacheinfo", "160000,%s,ovs" % gitlink, cwd=path)
    git("commit", "-q", "-m", "release tree of %s" % top, cwd=path)
    git("tag", "-a", "-m", top, "v" + top.split("-", 1)[1], cwd=path)
    return git("rev-parse", "HEAD", cwd=path)


@pytest.fixture(scope="module")
def repos():
    """file:// repositories of Open vSwitch (tag v3.3.8) and OVN (v24.03.8 pinning that commit, and v24.03.8-lab on top)."""
    base = os.path.join(BASE, "git")
    ovs = repository_from_archive(OVS_ARCHIVE, os.path.join(base, "ovs"))
    ovn = repository_from_archive(OVN_ARCHIVE, os.path.join(base, "ovn"), gitlink=ovs)
    path = os.path.join(base, "ovn")
    with open(os.path.join(path, "NEWS"), "a") as handle:
        handle.write("\nBuilt by the offload.testbed tests: a second ref of the same release.\n")
    git("commit", "-q", "-am", "NEWS: a second ref", cwd=path)
    git("tag", "v24.03.8-lab", cwd=path)
    return dict(ovs_url="file://" + os.path.join(base, "ovs"), ovn_url="file://" + path, ovs=ovs, ovn=ovn,
                ovn_lab=git("rev-parse", "HEAD", cwd=path))


def build_env(collection_path):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collection_path, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_NOCOLOR="1", ANSIBLE_PYTHON_INTERPRETER=sys.executable)
    if os.path.isdir("/usr/lib/ccache"):
        env.update(PATH="/usr/lib/ccache:" + env["PATH"], CCACHE_DIR=os.path.join(BASE, "ccache"), CCACHE_BASEDIR=BASE,
                   CCACHE_NOHASHDIR="1")
    return env


def run_role(collection_path, tmp_path, variables, check=False):
    """ansible-playbook with the role; (returncode, stdout, report or None, recap changed count)."""
    report = tmp_path / "report.json"
    if report.exists():
        report.unlink()
    (tmp_path / "vars.json").write_text(json.dumps(dict(variables, ovn_build_test_report=str(report))))
    argv = [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", PLAYBOOK, "-e", "@%s" % (tmp_path / "vars.json")]
    run = subprocess.run(argv + (["--check", "--diff"] if check else []), capture_output=True, text=True,
                         env=build_env(collection_path), cwd=ROOT, check=False)
    recap = [line for line in run.stdout.splitlines() if line.startswith("localhost ") and "changed=" in line]
    changed = int(recap[-1].split("changed=")[1].split()[0]) if recap else None
    return run.returncode, run.stdout, json.loads(report.read_text()) if report.exists() else None, changed


def git_vars(repos, **extra):
    variables = dict(ovn_build_ovs_git_url=repos["ovs_url"], ovn_build_ovs_ref="submodule",
                     ovn_build_ovn_git_url=repos["ovn_url"], ovn_build_ovn_ref="v24.03.8",
                     ovn_build_workdir=WORK_GIT, ovn_build_prefix=PREFIX)
    variables.update(extra)
    return variables


def archive_vars(**extra):
    variables = dict(ovn_build_ovs_archive=OVS_ARCHIVE, ovn_build_ovs_archive_sha256=sha256(OVS_ARCHIVE),
                     ovn_build_ovn_archive=OVN_ARCHIVE, ovn_build_ovn_archive_sha256=sha256(OVN_ARCHIVE),
                     ovn_build_workdir=WORK, ovn_build_prefix=PREFIX)
    variables.update(extra)
    return variables


def installed_version():
    out = subprocess.run([os.path.join(PREFIX, "bin", "ovn-nbctl"), "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[:2]


def record():
    with open(os.path.join(PREFIX, "share", "ovn", "offload-testbed-build.json")) as handle:
        return json.load(handle)


def shows_progress(out, report):
    """Each step started (named as planned: the commit OVN pins is known once OVN is fetched), was waited for (a
    line each poll while it ran) and said how long it took."""
    words = " ".join(out.split())
    done = report["done"]
    planned = dict(((step["component"], step["step"]), step["line"]) for step in report["steps"])
    for step in done:
        assert "TASK [offload.testbed.ovn_build : Start %s]" % planned[(step["component"], step["step"])] in words, step
        # The debug message, as the YAML result format quotes it.
        assert "msg: '%s: %s'" % (step["line"].replace("'", "''"), step["took"]) in words, step
    longest = max(done, key=lambda step: step["seconds"])
    if longest["seconds"] > 20:
        assert "FAILED - RETRYING: [localhost]: Wait while it runs, a line each poll, %s (" % planned[
            (longest["component"], longest["step"])] in out, out[-3000:]


def bad_cases(repos, tmp_path):
    no_tree = tmp_path / "not-a-tree"
    no_tree.mkdir()
    (no_tree / "configure.ac").write_text("AC_INIT([openvswitch], [3.3.8])\n")
    fresh = dict(ovn_build_workdir=str(tmp_path / "work"), ovn_build_prefix=str(tmp_path / "prefix"))
    return {
        "a ref that does not exist": (
            git_vars(repos, ovn_build_ovn_ref="v24.03.99", **fresh),
            "ovn_build_ovn_ref: v24.03.99 is not a tag, branch or full commit of %s (its newest release tags: v24.03.8)" % repos["ovn_url"]),
        "a source without boot.sh": (
            dict(archive_vars(**fresh), ovn_build_ovs_archive="", ovn_build_ovs_dir=str(no_tree)),
            "ovn_build_ovs_dir: %s is not an Open vSwitch or OVN source tree: it has no boot.sh" % no_tree),
        "an archive whose checksum differs": (
            archive_vars(ovn_build_ovn_archive_sha256="0" * 64, **fresh),
            "ovn_build_ovn_archive_sha256: %s has SHA-256 %s, not %s" % (OVN_ARCHIVE, sha256(OVN_ARCHIVE), "0" * 64)),
        "the archives given the other way round": (
            archive_vars(ovn_build_ovs_archive=OVN_ARCHIVE, ovn_build_ovs_archive_sha256="", ovn_build_ovn_archive=OVS_ARCHIVE,
                         ovn_build_ovn_archive_sha256="", **fresh),
            "ovn_build_ovs_archive: %s is the OVN source (configure.ac: AC_INIT(ovn, 24.03.8, bugs@openvswitch.org)), not the "
            "Open vSwitch one; the Open vSwitch and OVN sources are given the other way round: swap ovn_build_ovs_archive and "
            "ovn_build_ovn_archive" % OVN_ARCHIVE),
        "an OVS version that maps to no known tag": (
            # The host runs Debian's ovs-vswitchd 3.1.0; the repository has v3.3.8 only.
            git_vars(repos, ovn_build_ovs_ref="auto", **fresh),
            "ovn_build_ovs_ref: auto: the host runs Open vSwitch 3.1.0 (ovs-vswitchd (Open vSwitch) 3.1.0), "
            "and no v3.1.* tag exists (the newest: v3.3.8)"),
        "no make jobs": (
            git_vars(repos, ovn_build_jobs=0, **fresh),
            "ovn_build_jobs: 0 is not a number of parallel make jobs; give 1 or more"),
    }


CASES = ["a ref that does not exist", "a source without boot.sh", "an archive whose checksum differs",
         "the archives given the other way round", "an OVS version that maps to no known tag", "no make jobs"]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_refused_before_anything_is_written(case, repos, collection_path, tmp_path):
    variables, message = bad_cases(repos, tmp_path)[case]
    rc, out, dummy, dummy2 = run_role(collection_path, tmp_path, variables)
    assert rc != 0, out[-2000:]
    assert message in " ".join(out.split()), out[-3000:]
    assert not os.path.exists(variables["ovn_build_workdir"]) and not os.path.exists(variables["ovn_build_prefix"])
    assert "Copy the source" not in out, "refused only after the copy"


def test_check_mode_says_what_would_be_fetched_built_installed_and_writes_nothing(repos, collection_path, tmp_path):
    variables = git_vars(repos, ovn_build_workdir=str(tmp_path / "work"), ovn_build_prefix=str(tmp_path / "prefix"))
    rc, out, report, dummy = run_role(collection_path, tmp_path, variables, check=True)
    assert rc == 0, out[-3000:]
    assert [line.split()[:2] for line in report["plan"][:-1]] == [
        ["fetch", "OVN"], ["fetch", "Open"], ["boot.sh", "Open"], ["configure", "Open"], ["make", "Open"],
        ["boot.sh", "OVN"], ["configure", "OVN"], ["make", "OVN"], ["install", "OVN"]]
    assert report["plan"][-1].startswith("link %s/share/openvswitch/scripts/ovs-lib " % (tmp_path / "prefix"))
    assert report["plan"][1] == "fetch Open vSwitch %s submodule (the commit OVN pins, read once OVN is fetched) into %s" % (
        repos["ovs_url"], tmp_path / "work" / "ovs")
    assert report["plan"][0] == "fetch OVN %s v24.03.8 (%s) into %s" % (repos["ovn_url"], repos["ovn"], tmp_path / "work" / "ovn")
    assert report["done"] == [] and "Start " not in out
    assert '"ovn_commit": "%s"' % repos["ovn"] in out  # the diff of the install record
    assert not (tmp_path / "work").exists() and not (tmp_path / "prefix").exists()


def test_git_build_at_the_commit_ovn_pins_then_nothing_to_do(repos, collection_path, tmp_path):
    rc, out, report, dummy = run_role(collection_path, tmp_path, git_vars(repos))
    assert rc == 0, out[-3000:]
    assert installed_version() == ["ovn-nbctl 24.03.8", "Open vSwitch Library 3.3.8"]
    assert [(step["component"], step["step"]) for step in report["done"]] == [
        ("ovn", "fetch"), ("ovs", "fetch"), ("ovs", "boot"), ("ovs", "configure"), ("ovs", "make"), ("ovn", "boot"),
        ("ovn", "configure"), ("ovn", "make"), ("ovn", "install"), ("ovn", "link")]
    shows_progress(out, report)
    assert (record()["ovn_commit"], record()["ovs_commit"], record()["ovs_pin"]) == (repos["ovn"], repos["ovs"], repos["ovs"])
    assert report["facts"]["ovn_version"] == "24.03.8" and report["facts"]["ovs_library_version"] == "3.3.8"
    # Open vSwitch is built, not installed: the host's own stays.
    assert not os.path.exists(os.path.join(PREFIX, "sbin", "ovs-vswitchd"))
    rc, out, report, changed = run_role(collection_path, tmp_path, git_vars(repos))
    assert (rc, changed, report["plan"]) == (0, 0, []), out[-3000:]


def test_a_new_ovn_ref_rebuilds_ovn_and_keeps_the_open_vswitch_build(repos, collection_path, tmp_path):
    rc, out, report, dummy = run_role(collection_path, tmp_path, git_vars(repos, ovn_build_ovn_ref="v24.03.8-lab"))
    assert rc == 0, out[-3000:]
    assert [(step["component"], step["step"]) for step in report["done"]] == [
        ("ovn", "fetch"), ("ovn", "boot"), ("ovn", "configure"), ("ovn", "make"), ("ovn", "install")]
    assert (record()["ovn_commit"], record()["ovs_commit"]) == (repos["ovn_lab"], repos["ovs"])
    with open(os.path.join(WORK_GIT, "ovn-build.log")) as handle:
        assert "$ (cd %s/ovn/_build && make -j" % WORK_GIT in handle.read()


def test_archive_build_then_nothing_to_do(collection_path, tmp_path):
    rc, out, report, dummy = run_role(collection_path, tmp_path, archive_vars())
    assert rc == 0, out[-3000:]
    shows_progress(out, report)
    assert installed_version() == ["ovn-nbctl 24.03.8", "Open vSwitch Library 3.3.8"]
    # git archive put the commits of the upstream tags into the archives (see shared/sources/README.md).
    assert (record()["ovn_commit"], record()["ovs_commit"]) == ("697058648fdecfb67d7f3a11513e27af9c5d49a6",
                                                                "bc99439446a1c0b94498ad7ea44f3d1d933ead90")
    assert os.path.islink(os.path.join(PREFIX, "share", "openvswitch", "scripts", "ovs-lib"))
    rc, out, report, changed = run_role(collection_path, tmp_path, archive_vars())
    assert (rc, changed, report["plan"]) == (0, 0, []), out[-3000:]
    rc, out, report, changed = run_role(collection_path, tmp_path, archive_vars(), check=True)
    assert (rc, changed, report["plan"]) == (0, 0, []), out[-3000:]
