# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/datapath/ovn_sources.py, the resolver
of the release archives, and the lookup ovn_build_archive that calls it.

The archives here are real ``git archive`` outputs of a repository the test
makes: the release as this project keeps it (``--prefix=demo-1.0/``, gzip
-9) and the same tag packed another way (another top directory, git's own
gzip), as GitHub's archive of a tag is. A ``file://`` mirror stands for the
download. The last test re-packs the real OVN archive the same way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_sources as src

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
NAME = "demo-1.0.tar.gz"
GIT = ["git", "-c", "user.name=offload.testbed tests", "-c", "user.email=tests@offload.testbed.invalid"]


def git(repo, *args, **kw):
    return subprocess.run(GIT + ["-C", str(repo)] + list(args), check=True, capture_output=True, **kw).stdout


@pytest.fixture(name="world")
def fixture_world(tmp_path):
    """A repository tagged v1.0 (and a later commit), the release archive of the tag, a checkout with nothing beside it."""
    repo = tmp_path / "repo"
    (repo / "lib").mkdir(parents=True)
    (repo / "boot.sh").write_text("#!/bin/sh\nautoreconf --install --force\n")
    os.chmod(str(repo / "boot.sh"), 0o755)
    (repo / "configure.ac").write_text("AC_INIT(openvswitch, 1.0, bugs@openvswitch.org)\n")
    (repo / "lib" / "util.c").write_text("int util(void) { return 1; }\n")
    git(tmp_path, "init", "-q", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "release 1.0")
    git(repo, "tag", "v1.0")
    (repo / "lib" / "util.c").write_text("int util(void) { return 2; }\n")
    git(repo, "commit", "-q", "-am", "after the release")
    release_file = tmp_path / "release" / NAME
    release_file.parent.mkdir()
    release_file.write_bytes(gzip.compress(git(repo, "archive", "--format=tar", "--prefix=demo-1.0/", "v1.0"), 9))
    release = dict(title="Demo v1.0", tag="v1.0", repository="file://" + str(repo), url="file://%s/upstream/%s" % (tmp_path, NAME),
                   commit=git(repo, "rev-parse", "v1.0^{commit}", text=True).strip(), sha256=ob.file_sha256(str(release_file)),
                   tree=ob.content_digest(ob.archive_entries(str(release_file))))
    checkout = tmp_path / "clone" / "offload"
    checkout.mkdir(parents=True)
    return dict(tmp=tmp_path, repo=repo, release_file=release_file, releases={NAME: release}, checkout=str(checkout))


def other_packing(world, ref="v1.0", prefix="demo-github-1.0/"):
    """The tag packed as GitHub packs it: another top directory, git's own gzip, other bytes."""
    return git(world["repo"], "archive", "--format=tar.gz", "--prefix=" + prefix, ref)


def mirror(world, data):
    path = world["tmp"] / "mirror"
    path.mkdir(exist_ok=True)
    (path / NAME).write_bytes(data)
    return "file://%s/" % path


def resolve(world, environ):
    return src.resolve(NAME, world["checkout"], environ, world["releases"])


def test_a_file_mirror_is_fetched_into_the_cache_checked_and_kept(world):
    packed = other_packing(world)
    assert ob.file_sha256(str(world["release_file"])) != hashlib.sha256(packed).hexdigest()
    base = mirror(world, packed)
    found, problem = resolve(world, {src.ENV: base})
    cache = os.path.join(world["checkout"], ".tmp", "sources")
    assert problem is None
    assert found == dict(name=NAME, path=os.path.join(cache, NAME), verified="tree",
                         origin="%s=%s, from %s%s" % (src.ENV, base, base, NAME))
    with open(found["path"], "rb") as handle:
        assert handle.read() == packed
    assert sorted(os.listdir(cache)) == [NAME, NAME + ".sha256"]
    # Found again in the cache, the mirror gone.
    os.remove(str(world["tmp"] / "mirror" / NAME))
    again, problem = resolve(world, {src.ENV: base})
    assert (again["path"], again["verified"], problem) == (found["path"], "tree", None)
    assert again["origin"] == "the cache %s" % cache


def test_the_release_bytes_themselves_are_checked_by_their_sha256(world):
    base = mirror(world, world["release_file"].read_bytes())
    found, problem = resolve(world, {src.ENV: base})
    assert problem is None and found["verified"] == "sha256"


def test_a_damaged_download_is_refused_and_not_kept(world):
    packed = other_packing(world)
    # Cut short, as a broken transfer leaves it.
    base = mirror(world, packed[:len(packed) // 2])
    found, problem = resolve(world, {src.ENV: base})
    assert found is None
    assert problem.startswith("the file downloaded from %s%s (%s=%s) is not Demo v1.0: it is not a tar archive (" % (base, NAME, src.ENV, base))
    assert os.listdir(os.path.join(world["checkout"], ".tmp", "sources")) == []
    # One byte changed: the gzip stream may still unpack (its CRC is at its end), its tree then differs.
    data = bytearray(packed)
    data[len(data) // 2] ^= 0xFF
    found, problem = resolve(world, {src.ENV: mirror(world, bytes(data))})
    assert found is None and ("it is not a tar archive (" in problem or "neither its bytes nor its tree" in problem), problem
    assert os.listdir(os.path.join(world["checkout"], ".tmp", "sources")) == []
    with pytest.raises(src.SourceError) as exc:
        src.find([NAME], world["checkout"], {src.ENV: base}, world["releases"])
    assert str(exc.value).startswith("%s: the file downloaded from %s%s" % (NAME, base, NAME))
    assert str(exc.value).endswith(". Give it through OFFLOAD_TESTBED_SOURCES: a directory that holds %s, or a URL base under "
                                   "which it lies (file:///srv/mirror/ or https://mirror.example/sources/)" % NAME)


def test_another_tree_is_refused_with_both_digests(world):
    with tarfile.open(fileobj=io.BytesIO(other_packing(world))) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else None) for m in tar.getmembers()]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for member, data in members:
            if member.name.endswith("lib/util.c"):
                data = b"int util(void) { return 3; }\n"
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data) if data is not None else None)
    found, problem = resolve(world, {src.ENV: mirror(world, out.getvalue())})
    assert found is None
    assert "is not Demo v1.0: neither its bytes nor its tree are those of Demo v1.0: SHA-256 " in problem
    assert "tree digest %s" % ob.content_digest(ob.archive_entries(str(world["tmp"] / "mirror" / NAME))) in problem
    assert "not %s" % world["releases"][NAME]["tree"] in problem


def test_a_git_archive_of_another_commit_is_refused_by_its_commit(world):
    found, problem = resolve(world, {src.ENV: mirror(world, other_packing(world, ref="HEAD"))})
    assert found is None
    head = git(world["repo"], "rev-parse", "HEAD", text=True).strip()
    assert problem.endswith("is not Demo v1.0: it is a git archive of commit %s, not of file://%s v1.0 (%s)"
                            % (head, world["repo"], world["releases"][NAME]["commit"]))


def test_a_directory_in_the_variable(world):
    given = world["tmp"] / "given"
    given.mkdir()
    found, problem = resolve(world, {src.ENV: str(given)})
    assert (found, problem) == (None, "%s/%s (%s=%s) is not there" % (given, NAME, src.ENV, given))
    shutil.copy(str(world["release_file"]), str(given / NAME))
    found, problem = resolve(world, {src.ENV: str(given)})
    assert (found["path"], found["verified"], problem) == (str(given / NAME), "sha256", None)
    # Nothing is copied: the directory is used where it is.
    assert not os.path.exists(os.path.join(world["checkout"], ".tmp"))


def test_shared_sources_beside_the_checkout_unless_the_variable_says_otherwise(world):
    shared = os.path.join(world["checkout"], "..", "shared", "sources")
    os.makedirs(shared)
    shutil.copy(str(world["release_file"]), shared)
    found, problem = resolve(world, {})
    assert (found["path"], found["origin"], problem) == (os.path.normpath(os.path.join(shared, NAME)), "../shared/sources", None)
    base = mirror(world, other_packing(world))
    assert resolve(world, {src.ENV: base})[0]["verified"] == "tree"


def test_nothing_anywhere_and_no_network_is_one_message_naming_the_variable(world):
    # The upstream URL of the table points at nothing (these machines reach no upstream anyway).
    with pytest.raises(src.SourceError) as exc:
        src.find([NAME, NAME], world["checkout"], {}, world["releases"])
    shared = os.path.normpath(os.path.join(world["checkout"], "..", "shared", "sources"))
    upstream = world["releases"][NAME]["url"]
    problem = ("the download from %s (its upstream; no OFFLOAD_TESTBED_SOURCES, nothing in %s) failed: <urlopen error [Errno 2] "
               "No such file or directory: '%s'>" % (upstream, shared, upstream[len("file://"):]))
    assert str(exc.value) == ("%s: %s; %s: %s. Give them through OFFLOAD_TESTBED_SOURCES: a directory that holds %s and %s, or a "
                              "URL base under which they lie (file:///srv/mirror/ or https://mirror.example/sources/)"
                              % (NAME, problem, NAME, problem, NAME, NAME))


def test_an_unknown_name_is_refused():
    assert src.resolve("ovn-99.tar.gz", ROOT, {})[1] == (
        "none of the release archives known here (openvswitch-3.3.8.tar.gz, ovn-24.03.8.tar.gz)")


def real_archive(name):
    """The real release archive, as the resolver finds it for this checkout (fails with its message when it cannot)."""
    try:
        return src.find([name], ROOT)[0]["path"]
    except src.SourceError as exc:
        message = str(exc)
    pytest.fail(message, pytrace=False)


def lookup(checkout, environ):
    """``ansible localhost -m debug`` of the lookup, as an inventory calls it; (rc, output)."""
    env = dict((key, value) for key, value in os.environ.items() if key != src.ENV)
    env.update(environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".tmp", "pytest"), ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_NOCOLOR="1")
    expression = "{{ lookup('offload.testbed.ovn_build_archive', 'ovn-24.03.8.tar.gz', checkout='%s') }}" % checkout
    run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible"), "localhost", "-c", "local", "-m",
                          "ansible.builtin.debug", "-a", "msg=" + expression], capture_output=True, text=True, env=env, check=False)
    return run.returncode, " ".join((run.stdout + run.stderr).split())


def test_the_lookup_answers_the_path_or_fails_with_the_message(world):
    release = real_archive("ovn-24.03.8.tar.gz")
    given = world["tmp"] / "given"
    given.mkdir()
    rc, out = lookup(world["checkout"], {src.ENV: str(given)})
    assert rc != 0
    assert ("ovn-24.03.8.tar.gz: %s/ovn-24.03.8.tar.gz (%s=%s) is not there. Give it through %s: a directory that holds "
            "ovn-24.03.8.tar.gz" % (given, src.ENV, given, src.ENV)) in out, out
    shutil.copy(release, str(given))
    rc, out = lookup(world["checkout"], {src.ENV: str(given)})
    assert rc == 0 and "SUCCESS => msg: %s/ovn-24.03.8.tar.gz" % given in out, out


def test_the_real_ovn_archive_packed_another_way_passes_by_its_tree(tmp_path):
    """What GitHub's archive of v24.03.8 is expected to be: the same tree under ovn-24.03.8/, other bytes, no
    guarantee of the same compression. (github.com cannot be reached from here: this is the same tree re-packed.)"""
    path = real_archive("ovn-24.03.8.tar.gz")
    repacked = str(tmp_path / "v24.03.8.tar.gz")
    with tarfile.open(path) as old, tarfile.open(repacked, "w:gz", compresslevel=1, format=tarfile.GNU_FORMAT) as new:
        for member in old.getmembers():
            data = old.extractfile(member) if member.isfile() else None
            member.name = "ovn-github-24.03.8" + member.name[len("ovn-24.03.8"):]
            new.addfile(member, data)
    release = src.RELEASES["ovn-24.03.8.tar.gz"]
    assert ob.file_sha256(repacked) != release["sha256"]
    assert src.check(repacked, release) == ("tree", None)
    assert src.check(path, release)[0] in ("sha256", "tree")


def test_make_sources_says_where_each_archive_is_or_stops_with_the_message(world, tmp_path):
    """tools/ovn_sources.py, the command of `make sources`."""
    tool = [sys.executable, os.path.join(ROOT, "tools", "ovn_sources.py")]
    env = dict(os.environ, **{src.ENV: str(tmp_path / "empty")})
    run = subprocess.run(tool, capture_output=True, text=True, env=env, check=False)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.startswith("ovn_sources: the release archives the OVN build needs cannot be had: openvswitch-3.3.8.tar.gz: "
                                 "%s/openvswitch-3.3.8.tar.gz (%s=%s) is not there; ovn-24.03.8.tar.gz: "
                                 % (tmp_path / "empty", src.ENV, tmp_path / "empty"))
    assert "Give them through OFFLOAD_TESTBED_SOURCES" in run.stderr and len(run.stderr.splitlines()) == 1
    run = subprocess.run(tool + ["--digest", str(world["release_file"])], capture_output=True, text=True, check=True)
    release = world["releases"][NAME]
    assert run.stdout == "%s  sha256 %s  tree %s  commit %s\n" % (NAME, release["sha256"], release["tree"], release["commit"])
