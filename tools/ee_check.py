"""Check the execution environment's build context that ``ansible-builder create`` made.

Usage: python tools/ee_check.py --context DIR [--definition meta/execution-environment.yml]
                                [--galaxy galaxy.yml] [--no-introspect]

Building the image needs a container engine, which this project's machines
cannot run; ``make ee`` makes the build context instead and this script checks
everything in it that the image build would rely on:

* the Containerfile is there, and every path a COPY or ADD takes from the
  context exists;
* the base image is an execution environment base (ansible-core and
  ansible-runner in it), the one the definition names;
* the galaxy requirements hold this collection as a file requirement whose
  tarball is in the context: a gzip tar with a MANIFEST.json of offload.testbed
  at galaxy.yml's version;
* every ``ansible-galaxy collection install`` of the Containerfile installs
  into /usr/share/ansible/collections, and the final stage copies that path
  from the galaxy stage: every user of the image (uid 1000) sees the
  collections; the final stage runs as the definition's user, not root;
* the context's Python requirements and bindep file are the definition's,
  the Python ones hold neither the whole ``ansible`` package nor a test tool,
  and bindep selects system packages on the image's platform (rpm);
* introspection (unless --no-introspect): the collections of the galaxy
  requirements that are files are installed into a temporary directory with
  ansible-galaxy, as the galaxy stage does, and the context's own
  ``_build/scripts/introspect.py`` runs on them with the arguments of the
  Containerfile's builder stage. It must succeed and find no requirement
  beyond the definition's.

Every problem found is printed, one per line; the exit status is 1 if there
is one.
"""
import argparse
import functools
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tarfile
import tempfile

import yaml
from bindep.depends import Depends, DependsException
from packaging.requirements import InvalidRequirement, Requirement

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
COLLECTIONS_PATH = "/usr/share/ansible/collections"
# Execution environment bases: images with ansible-core and ansible-runner
# (a plain OS image such as quay.io/centos/centos or ubi9 is not one).
EE_BASES = (
    re.compile(r"^ghcr\.io/ansible-community/community-ee-(base|minimal)(:|@|$)"),
    re.compile(r"^quay\.io/ansible/(awx-ee|creator-ee)(:|@|$)"),
    re.compile(r"^registry\.redhat\.io/ansible-automation-platform(-[0-9]+)?/ee-[a-z0-9-]+(:|@|$)"),
)
# Not for the image: the whole Ansible package (the base has ansible-core and
# the collections come from the galaxy requirements) and test tools.
NOT_RUN_TIME = frozenset(("ansible", "ansible-lint", "molecule", "pytest", "pytest-ansible", "ansible-builder",
                          "tox", "ansible-test"))
# The platform profiles bindep sees on the image (Fedora, CentOS Stream, RHEL).
IMAGE_PLATFORMS = (("platform:rpm", "platform:redhat", "platform:fedora"),
                   ("platform:rpm", "platform:redhat", "platform:centos", "platform:rhel"))


def _load_yaml(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def _read(path):
    with open(path) as handle:
        return handle.read()


def instructions(text):
    """The Containerfile's instructions as ``(stage, keyword, arguments)``, continuation lines joined."""
    found = []
    stage = None
    pending = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        whole = (pending + stripped).strip()
        pending = ""
        keyword, dummy, rest = whole.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            words = rest.split()
            stage = words[2] if len(words) >= 3 and words[1].upper() == "AS" else words[0]
        found.append((stage, keyword, rest.strip()))
    return found


def _copy_parts(rest):
    """``(flags, sources, destination)`` of a COPY or ADD (shell form or JSON form)."""
    if rest.startswith("["):
        words = json.loads(rest)
    else:
        words = shlex.split(rest)
    flags = [word for word in words if word.startswith("--")]
    paths = [word for word in words if not word.startswith("--")]
    return flags, paths[:-1], paths[-1] if paths else None


def check_containerfile(context, text, definition):
    problems = []
    found = instructions(text)
    stages = [stage for stage, keyword, dummy in found if keyword == "FROM"]
    final = stages[-1] if stages else None
    for dummy_stage, keyword, rest in found:
        if keyword not in ("COPY", "ADD"):
            continue
        flags, sources, dummy = _copy_parts(rest)
        if any(flag.startswith("--from=") for flag in flags):
            continue
        for source in sources:
            if re.match(r"^[a-z]+://", source):
                continue
            if not glob.glob(os.path.join(context, source)):
                problems.append("Containerfile: %s %s: %s is not in the context %s" % (keyword, rest, source, context))
    installs = [rest for dummy, keyword, rest in found if keyword == "RUN" and "ansible-galaxy collection install" in rest]
    if not installs:
        problems.append("Containerfile: no ansible-galaxy collection install: the collections are not installed")
    for rest in installs:
        words = shlex.split(rest)
        paths = [words[i + 1] for i, word in enumerate(words[:-1]) if word in ("-p", "--collections-path")]
        paths += [word.split("=", 1)[1] for word in words if word.startswith(("--collections-path=", "-p="))]
        if paths != [COLLECTIONS_PATH]:
            problems.append("Containerfile: RUN %s installs into %s, not %s: the job user (uid 1000) does not see "
                            "what goes to root's home" % (rest, paths or "the default path (root's ~/.ansible)",
                                                          COLLECTIONS_PATH))
    copied = [rest for stage, keyword, rest in found if stage == final and keyword == "COPY"
              and "--from=galaxy" in rest and _copy_parts(rest)[1:] == (["/usr/share/ansible"], "/usr/share/ansible")]
    if final and not copied:
        problems.append("Containerfile: the final stage does not copy /usr/share/ansible from the galaxy stage")
    users = [rest for stage, keyword, rest in found if stage == final and keyword == "USER"]
    want = str((definition.get("options") or {}).get("user", "1000"))
    if not users or users[-1] != want or users[-1] in ("root", "0"):
        problems.append("Containerfile: the final stage runs as %s, not as user %s"
                        % (users[-1] if users else "the base's user", want))
    base = ((definition.get("images") or {}).get("base_image") or {}).get("name")
    match = re.search(r'^ARG EE_BASE_IMAGE="?([^"\s]*)"?\s*$', text, re.M)
    if not match or match.group(1) != base:
        problems.append("Containerfile: EE_BASE_IMAGE is %s, the definition's base image %s"
                        % (match.group(1) if match else "not set", base))
    return problems


def check_base_image(definition):
    base = ((definition.get("images") or {}).get("base_image") or {}).get("name") or ""
    if not any(pattern.search(base) for pattern in EE_BASES):
        return ["images.base_image %r is not an execution environment base (one of %s)"
                % (base, ", ".join(pattern.pattern for pattern in EE_BASES))]
    return []


def collection_manifest(path):
    """``(collection_info, names, meta)`` of a collection tarball: its MANIFEST.json's collection_info, the
    names of its members and its meta/execution-environment.yml, if any; ValueError when it is not one."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            names = tar.getnames()
            if "MANIFEST.json" not in names:
                raise ValueError("%s has no MANIFEST.json: not a collection tarball" % path)
            manifest = json.load(tar.extractfile("MANIFEST.json"))
            meta = {}
            for name in ("meta/execution-environment.yml", "meta/execution-environment.yaml"):
                if name in names:
                    meta[name] = yaml.safe_load(tar.extractfile(name)) or {}
    except (tarfile.TarError, OSError, EOFError) as error:
        raise ValueError("%s is not a gzip tar archive: %s" % (path, error))
    if not isinstance(manifest, dict) or not isinstance(manifest.get("collection_info"), dict):
        raise ValueError("%s: MANIFEST.json has no collection_info" % path)
    return manifest["collection_info"], names, meta


def check_collection(context, galaxy):
    problems = []
    requirements_path = os.path.join(context, "_build", "requirements.yml")
    if not os.path.exists(requirements_path):
        return ["_build/requirements.yml is not in the context: the definition has no galaxy requirements"]
    requirements = _load_yaml(requirements_path) or {}
    collections = (requirements.get("collections") or []) if isinstance(requirements, dict) else []
    files = [entry for entry in collections if isinstance(entry, dict) and entry.get("type") == "file"]
    ours = []
    for entry in files:
        path = os.path.join(context, "_build", entry.get("name", ""))
        if not os.path.isfile(path):
            problems.append("_build/requirements.yml: %s (type file) is not in the context at %s; "
                            "run `make collection` before ansible-builder" % (entry.get("name"), path))
            continue
        try:
            info, names, meta = collection_manifest(path)
        except ValueError as error:
            problems.append(str(error))
            continue
        if (info.get("namespace"), info.get("name")) != (galaxy["namespace"], galaxy["name"]):
            continue
        ours.append(entry)
        if str(info.get("version")) != str(galaxy["version"]):
            problems.append("%s is %s.%s %s, galaxy.yml says version %s"
                            % (entry["name"], info.get("namespace"), info.get("name"), info.get("version"),
                               galaxy["version"]))
        for name, data in meta.items():
            # ansible-builder's introspection reads these paths from the collection's root.
            deps = (data.get("dependencies") or {}) if isinstance(data, dict) else {}
            for key in ("python", "system"):
                value = deps.get(key)
                if isinstance(value, str) and os.path.normpath(value) not in names:
                    problems.append("%s: the collection's %s names %s requirements %s, which is not in the "
                                    "collection (introspection reads it from the collection's root)"
                                    % (entry["name"], name, key, value))
    if not ours:
        problems.append("_build/requirements.yml has no file requirement holding the tarball of %s.%s"
                        % (galaxy["namespace"], galaxy["name"]))
    return problems


def _definition_file(definition_path, definition, key):
    value = (definition.get("dependencies") or {}).get(key)
    if not isinstance(value, str):
        return None
    return os.path.join(os.path.dirname(os.path.abspath(definition_path)), value)


def _requirement_names(lines):
    names = []
    for line in lines:
        line = re.sub(r"(^|\s+)#.*$", "", line).strip()
        if not line or line.startswith("-"):
            continue
        try:
            names.append(Requirement(line).name.lower().replace("_", "-"))
        except InvalidRequirement:
            names.append(line)
    return names


def _copied_text(context, definition_path, definition, key, what, problems):
    """The text of dependencies.``key`` as the context holds it (``_build/<its name>``), or None with the problem."""
    source = _definition_file(definition_path, definition, key)
    name = "_build/%s" % ("requirements.txt" if key == "python" else "bindep.txt")
    copy = os.path.join(context, name)
    if source is None:
        problems.append("the definition lists no %s (dependencies.%s)" % (what, key))
    elif not os.path.exists(copy):
        problems.append("%s is not in the context" % name)
    elif _read(copy) != _read(source):
        problems.append("%s differs from %s" % (name, os.path.relpath(source, ROOT)))
    else:
        return _read(copy)
    return None


def check_requirements(context, definition_path, definition):
    problems = []
    python = _copied_text(context, definition_path, definition, "python", "Python requirements file", problems)
    for name in _requirement_names(python.splitlines()) if python is not None else []:
        if name in NOT_RUN_TIME:
            problems.append("_build/requirements.txt installs %s into the image, which nothing imports there" % name)
    system = _copied_text(context, definition_path, definition, "system", "bindep file", problems)
    if system is not None:
        packages, error = image_packages(system)
        if error:
            problems.append("_build/bindep.txt: %s" % error)
        elif not packages:
            problems.append("_build/bindep.txt selects no package on the image's platform (rpm)")
    return problems


def image_packages(text):
    """The packages bindep selects from ``text`` on the image's platforms, or ``(None, error)``."""
    packages, error = _image_packages(text)
    return (None if packages is None else list(packages)), error


@functools.lru_cache(maxsize=8)
def _image_packages(text):
    # bindep builds its parser for every file it reads (about a second): once per text.
    try:
        depends = Depends(text)
    except DependsException as error:
        return None, "bindep cannot parse it: %s" % (str(error).splitlines() or [repr(error)])[0]
    found = set()
    for platforms in IMAGE_PLATFORMS:
        rules = depends.active_rules(list(platforms) + ["default"])
        found.update(rule[0] for rule in rules)
    return tuple(sorted(found)), None


def _galaxy_bin(name):
    local = os.path.join(os.path.dirname(sys.executable), name)
    return local if os.path.exists(local) else name


def introspect(context, text):
    """Install the file requirements and run the context's introspect.py as the builder stage would."""
    problems = []
    build = os.path.join(context, "_build")
    script = os.path.join(build, "scripts", "introspect.py")
    runs = [rest for dummy, keyword, rest in instructions(text) if keyword == "RUN" and "introspect.py introspect" in rest]
    if not runs:
        return ["Containerfile: no introspect.py step"]
    if not os.path.exists(script):
        return ["_build/scripts/introspect.py is not in the context"]
    requirements = _load_yaml(os.path.join(build, "requirements.yml")) or {}
    files = [entry["name"] for entry in requirements.get("collections") or []
             if isinstance(entry, dict) and entry.get("type") == "file"]
    copies = {}
    for dummy_stage, keyword, rest in instructions(text):
        if keyword == "COPY" and not rest.startswith("--"):
            dummy, sources, destination = _copy_parts(rest)
            if len(sources) == 1:
                copies[destination] = os.path.join(context, sources[0])
    with tempfile.TemporaryDirectory(prefix="ee-check-") as tmp:
        collections = os.path.join(tmp, "collections")
        if files:
            env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=collections)
            result = subprocess.run([_galaxy_bin("ansible-galaxy"), "collection", "install", "--offline", "-p",
                                     collections] + files, cwd=build, env=env, capture_output=True, text=True, check=False)
            if result.returncode != 0:
                return ["ansible-galaxy collection install %s failed: %s"
                        % (" ".join(files), (result.stderr or result.stdout).strip()[-600:])]
        argv = [sys.executable, script, "introspect", collections]
        for word in shlex.split(runs[0].split("introspect.py introspect", 1)[1]):
            option, dummy, value = word.partition("=")
            if option in ("--write-pip", "--write-bindep"):
                value = os.path.join(tmp, option[2:])
            elif value and not os.path.isabs(value):
                value = copies.get(value, os.path.join(build, value))
            argv.append("%s=%s" % (option, value) if value else option)
        result = subprocess.run(argv, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            said = ((result.stderr or result.stdout).strip().splitlines() or ["exit %d" % result.returncode])[-1]
            return ["introspect.py on the collections of the galaxy requirements failed, as the image build "
                    "would in its builder stage: %s" % said]
        for kind, user in (("pip", "requirements.txt"), ("bindep", "bindep.txt")):
            written = os.path.join(tmp, "write-" + kind)
            lines = _read(written).splitlines() if os.path.exists(written) else []
            extra = [line for line in lines if line.strip() and not line.endswith("# from collection user")]
            if extra:
                problems.append("introspection adds to %s what the definition does not list: %s"
                                % (user, "; ".join(extra)))
    return problems


def check(context, definition_path, galaxy_path, run_introspect=True):
    """Every problem of the build context ``context``, as sentences (empty: it is good)."""
    definition = _load_yaml(definition_path) or {}
    galaxy = _load_yaml(galaxy_path)
    problems = []
    if definition.get("version") != 3:
        problems.append("%s: version is %r, not 3" % (definition_path, definition.get("version")))
    problems += check_base_image(definition)
    containerfile = os.path.join(context, "Containerfile")
    if not os.path.isfile(containerfile):
        problems.append("%s is missing (ansible-builder create --output-filename Containerfile)" % containerfile)
        return problems
    text = _read(containerfile)
    problems += check_containerfile(context, text, definition)
    problems += check_collection(context, galaxy)
    problems += check_requirements(context, definition_path, definition)
    if run_introspect and not problems:
        problems += introspect(context, text)
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--context", required=True, help="the build context ansible-builder create made")
    parser.add_argument("--definition", default=os.path.join(ROOT, "meta", "execution-environment.yml"))
    parser.add_argument("--galaxy", default=os.path.join(ROOT, "galaxy.yml"))
    parser.add_argument("--no-introspect", dest="introspect", action="store_false",
                        help="skip installing the collection and running introspect.py")
    args = parser.parse_args(argv)
    problems = check(args.context, args.definition, args.galaxy, args.introspect)
    for problem in problems:
        print("ee_check: %s" % problem, file=sys.stderr)
    if problems:
        return 1
    galaxy = _load_yaml(args.galaxy)
    definition = _load_yaml(args.definition)
    packages, dummy = image_packages(_read(os.path.join(args.context, "_build", "bindep.txt")))
    names = _requirement_names(_read(os.path.join(args.context, "_build", "requirements.txt")).splitlines())
    print("ee_check: %s: the context is good: %s.%s %s on %s, Python %s, system %s"
          % (args.context, galaxy["namespace"], galaxy["name"], galaxy["version"],
             definition["images"]["base_image"]["name"], " ".join(names), " ".join(packages)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
