"""tools/ee_check.py: the execution environment's build context, made by ansible-builder from this
repository's definition (meta/execution-environment.yml, meta/ee-requirements.yml, requirements.txt,
bindep.txt) around a small collection tarball, is accepted; each way a context can break is refused."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_spec = importlib.util.spec_from_file_location("ee_check", os.path.join(ROOT, "tools", "ee_check.py"))
ee_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ee_check)
BIN = os.path.dirname(sys.executable)
with open(os.path.join(ROOT, "galaxy.yml")) as _handle:
    VERSION = str(yaml.safe_load(_handle)["version"])


def _tool(name):
    path = os.path.join(BIN, name)
    return path if os.path.exists(path) else name


def _collection(where, version=VERSION, files=None):
    """Build a small offload.testbed tarball under ``where``; ``files`` maps extra paths to their text."""
    src = os.path.join(str(where), "src")
    os.makedirs(os.path.join(src, "meta"))
    galaxy = dict(namespace="offload", name="testbed", version=version, readme="README.md", authors=["tests"],
                  license=["GPL-3.0-or-later"])
    with open(os.path.join(src, "galaxy.yml"), "w") as handle:
        yaml.safe_dump(galaxy, handle)
    for path, text in dict({"README.md": "test\n", "meta/runtime.yml": "---\nrequires_ansible: '>=2.16.0'\n"},
                           **(files or {})).items():
        os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
        with open(os.path.join(src, path), "w") as handle:
            handle.write(text)
    out = os.path.join(str(where), "out")
    subprocess.run([_tool("ansible-galaxy"), "collection", "build", "--output-path", out, src], check=True,
                   capture_output=True)
    return os.path.join(out, "offload-testbed-%s.tar.gz" % version)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of the repository's definition files, a small tarball where `make collection` puts it, and the
    context ansible-builder create makes of them (``context``)."""
    base = tmp_path_factory.mktemp("ee")
    repo = base / "repo"
    (repo / "meta").mkdir(parents=True)
    for name in ("meta/execution-environment.yml", "meta/ee-requirements.yml", "requirements.txt", "bindep.txt"):
        shutil.copy(os.path.join(ROOT, name), str(repo / name))
    with open(str(repo / "galaxy.yml"), "w") as handle:
        yaml.safe_dump(dict(namespace="offload", name="testbed", version=VERSION), handle)
    (repo / ".tmp" / "build").mkdir(parents=True)
    shutil.copy(_collection(base / "collection"), str(repo / ".tmp" / "build" / "offload-testbed.tar.gz"))
    subprocess.run([_tool("ansible-builder"), "create", "-f", "meta/execution-environment.yml", "--context",
                    "context", "--output-filename", "Containerfile"], cwd=str(repo), check=True,
                   capture_output=True)
    return repo


@pytest.fixture
def context(repo, tmp_path):
    """A copy of the good context, to break."""
    copy = str(tmp_path / "context")
    shutil.copytree(str(repo / "context"), copy)
    return copy


def _check(repo, context, definition=None, galaxy=None, introspect=False):
    return ee_check.check(context, definition or str(repo / "meta" / "execution-environment.yml"),
                          galaxy or str(repo / "galaxy.yml"), introspect)


def _edit(path, old, new):
    with open(path) as handle:
        text = handle.read()
    assert old in text
    with open(path, "w") as handle:
        handle.write(text.replace(old, new))


def test_the_repository_definition_makes_a_good_context(repo):
    assert _check(repo, str(repo / "context"), introspect=True) == []


def test_main_says_what_is_in_the_image(repo, capsys):
    assert ee_check.main(["--context", str(repo / "context"), "--definition",
                          str(repo / "meta" / "execution-environment.yml"), "--galaxy", str(repo / "galaxy.yml")]) == 0
    out = capsys.readouterr().out
    assert "offload.testbed %s" % VERSION in out and "trex-stl-lib" in out and "rsync" in out


def test_a_missing_copy_source_is_refused(repo, context):
    os.remove(os.path.join(context, "_build", "scripts", "entrypoint"))
    problems = _check(repo, context)
    assert any("_build/scripts/entrypoint is not in the context" in problem for problem in problems), problems


def test_the_collection_install_goes_where_every_user_sees_it(repo, context):
    _edit(os.path.join(context, "Containerfile"), "RUN rm -rf /output",
          "COPY _build/collections/offload-testbed.tar.gz /tmp/c.tar.gz\n"
          "RUN ansible-galaxy collection install /tmp/c.tar.gz\nRUN rm -rf /output")
    problems = _check(repo, context)
    assert any("installs into the default path" in problem for problem in problems), problems


def test_without_the_tarball_it_is_refused(repo, context):
    os.remove(os.path.join(context, "_build", "collections", "offload-testbed.tar.gz"))
    problems = _check(repo, context)
    assert any("run `make collection`" in problem for problem in problems), problems


def test_a_file_that_is_not_a_tarball_is_refused(repo, context):
    with open(os.path.join(context, "_build", "collections", "offload-testbed.tar.gz"), "w") as handle:
        handle.write("not a tarball\n")
    problems = _check(repo, context)
    assert any("is not a gzip tar archive" in problem for problem in problems), problems


def test_another_version_than_galaxy_yml_is_refused(repo, context, tmp_path):
    galaxy = str(tmp_path / "galaxy.yml")
    with open(galaxy, "w") as handle:
        yaml.safe_dump(dict(namespace="offload", name="testbed", version="9.9.9"), handle)
    problems = _check(repo, context, galaxy=galaxy)
    assert any("galaxy.yml says version 9.9.9" in problem for problem in problems), problems


def test_another_collection_is_not_this_one(repo, context, tmp_path):
    galaxy = str(tmp_path / "galaxy.yml")
    with open(galaxy, "w") as handle:
        yaml.safe_dump(dict(namespace="other", name="testbed", version=VERSION), handle)
    problems = _check(repo, context, galaxy=galaxy)
    assert any("no file requirement holding the tarball of other.testbed" in problem for problem in problems)


@pytest.mark.parametrize("image", ["quay.io/centos/centos:stream9", "docker.io/redhat/ubi9:latest",
                                   "quay.io/fedora/fedora:44"])
def test_a_plain_os_image_is_not_an_ee_base(image):
    problems = ee_check.check_base_image({"images": {"base_image": {"name": image}}})
    assert problems and "is not an execution environment base" in problems[0]


@pytest.mark.parametrize("image", ["ghcr.io/ansible-community/community-ee-base:latest", "quay.io/ansible/awx-ee:24.6.1",
                                   "registry.redhat.io/ansible-automation-platform-25/ee-minimal-rhel9:latest"])
def test_ee_bases(image):
    assert ee_check.check_base_image({"images": {"base_image": {"name": image}}}) == []


def test_requirements_that_differ_from_the_definition_are_refused(repo, context):
    with open(os.path.join(context, "_build", "requirements.txt"), "a") as handle:
        handle.write("netaddr\n")
    problems = _check(repo, context)
    assert any("_build/requirements.txt differs from" in problem for problem in problems), problems


def test_the_whole_ansible_package_is_refused(repo, context, tmp_path):
    definition = tmp_path / "meta" / "execution-environment.yml"
    definition.parent.mkdir()
    shutil.copy(str(repo / "meta" / "execution-environment.yml"), str(definition))
    with open(str(repo / "requirements.txt")) as handle:
        text = handle.read() + "ansible>=9\nmolecule>=24\n"
    for path in (str(tmp_path / "requirements.txt"), os.path.join(context, "_build", "requirements.txt")):
        with open(path, "w") as handle:
            handle.write(text)
    shutil.copy(str(repo / "bindep.txt"), str(tmp_path / "bindep.txt"))
    problems = _check(repo, context, definition=str(definition))
    assert any("installs ansible into the image" in problem for problem in problems), problems
    assert any("installs molecule into the image" in problem for problem in problems), problems


def test_a_bindep_without_rpm_packages_is_refused():
    packages, error = ee_check.image_packages("rsync [platform:dpkg]\n")
    assert (packages, error) == ([], None)
    assert ee_check.image_packages("rsync [platform:rpm]\ngit [platform:dpkg]\n") == (["rsync"], None)
    packages, error = ee_check.image_packages("rsync [platform:rpm\n")
    assert packages is None and error.startswith("bindep cannot parse it")


def test_the_final_stage_does_not_run_as_root(repo, context):
    _edit(os.path.join(context, "Containerfile"), "USER 1000", "USER root")
    problems = _check(repo, context)
    assert any("runs as root, not as user 1000" in problem for problem in problems), problems


def test_a_collection_ee_file_with_paths_outside_the_collection_breaks_introspection(repo, context, tmp_path):
    # The tarball of before: meta/execution-environment.yml in it, with paths relative to meta/.
    tarball = _collection(tmp_path / "c", files={
        "meta/execution-environment.yml": "---\nversion: 3\ndependencies:\n  python: ../requirements.txt\n",
        "requirements.txt": "jsonschema\n"})
    shutil.copy(tarball, os.path.join(context, "_build", "collections", "offload-testbed.tar.gz"))
    problems = _check(repo, context)
    assert any("names python requirements ../requirements.txt, which is not in the collection" in problem
               for problem in problems), problems
    with open(os.path.join(context, "Containerfile")) as handle:
        failed = ee_check.introspect(context, handle.read())
    assert failed and "failed, as the image build would in its builder stage" in failed[0], failed


def test_introspection_finds_requirements_the_definition_does_not_list(repo, context, tmp_path):
    _edit(os.path.join(context, "_build", "exclude-collections.txt"), "offload.testbed", "other.collection")
    tarball = _collection(tmp_path / "c", files={"requirements.txt": "netaddr\n"})
    shutil.copy(tarball, os.path.join(context, "_build", "collections", "offload-testbed.tar.gz"))
    with open(os.path.join(context, "Containerfile")) as handle:
        problems = ee_check.introspect(context, handle.read())
    assert any("netaddr  # from collection offload.testbed" in problem for problem in problems), problems


def test_instructions_join_continuation_lines_and_name_stages():
    text = "FROM base:1 AS one\nRUN a \\\n  b\n# comment\nFROM one AS two\nCOPY --from=one /x /x\n"
    assert ee_check.instructions(text) == [("one", "FROM", "base:1 AS one"), ("one", "RUN", "a b"),
                                           ("two", "FROM", "one AS two"), ("two", "COPY", "--from=one /x /x")]
