# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OVN built from source against an Open vSwitch tree: the pure part.

DOCA ships Open vSwitch but no OVN, so the ConnectX-6 Lx reference bench
builds OVN by hand: Open vSwitch at the upstream tag closest to the one the
host runs, built but not installed, then OVN configured with
``--with-ovs-source`` and ``--with-ovs-build``, built and installed. This file
holds what needs no host: reading version strings and ``git ls-remote``, the
choice of a tag, the identity of a source, the configure flags, the record of
a build and the plan of commands. ``datapath/ovn_build_host.py`` reads the
host for ``offload.testbed.ovn_build`` (the module), calls these and runs the
plan.

A *component* is ``ovs`` or ``ovn``; its source is a dict with the module's
options without the component prefix: ``git_url``, ``ref``, ``archive``,
``archive_sha256``, ``dir`` and ``source_id``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os
import re
import tarfile

from ansible_collections.offload.testbed.plugins.module_utils.host.files import read_text

COMPONENTS = ('ovs', 'ovn')
TITLES = {'ovs': 'Open vSwitch', 'ovn': 'OVN'}
RECORD_NAME = 'offload-testbed-build.json'
SOURCE_RECORD = '.offload-testbed-source.json'
BUILD_RECORD = '.offload-testbed-build.json'
# What marks a source tree of either project (both are autotools projects).
TREE_FILES = ('boot.sh', 'configure.ac')
# The trees a directory's identity leaves out: git's own data and build output.
TREE_SKIP = ('.git', '_build')
# A build's steps, in order; each shows as its own step of the role, with its time.
BUILD_STEPS = ('boot', 'configure', 'make')
# Every step of a plan: the build's, and the link ovn-ctl needs (the module's).
STEPS = ('fetch',) + BUILD_STEPS + ('install', 'link')

# Which project a tree is: the name configure.ac gives AC_INIT, else a program only that project has.
PROJECTS = {'openvswitch': 'ovs', 'ovn': 'ovn'}
MARKERS = {'ovs': 'vswitchd/ovs-vswitchd.c', 'ovn': 'controller/ovn-controller.c'}
_AC_INIT_RE = re.compile(r'^AC_INIT\(\s*\[?(?P<name>[A-Za-z0-9_.-]+)\]?\s*,[^)\n]*\)', re.M)

_SHA1_RE = re.compile(r'^[0-9a-f]{40}$')
_SHA256_RE = re.compile(r'^[0-9a-f]{64}$')
_TAG_RE = re.compile(r'^v(\d+)\.(\d+)\.(\d+)$')
# "ovs-vswitchd (Open vSwitch) 3.1.0" (Debian 12), "ovs-vswitchd (Open vSwitch) 2.17.2-24a81c8" (a BlueField-2
# image), "ovs-vsctl (Open vSwitch) 3.2.1005" (DOCA 3.2): tests/fixtures/ovn_build/
_OVS_VERSION_RE = re.compile(r'\(Open vSwitch\)\s+(?P<version>\d+\.\d+\.\d+\S*)')
_BASED_RE = re.compile(r'based-(\d+)\.(\d+)\.(\d+)')
# "ovn-nbctl 24.03.8" / "Open vSwitch Library 3.3.8" / "DB Schema 7.3.0"
_OVN_TOOL_RE = re.compile(r'^ovn-\S+\s+(?P<ovn>\d+\.\d+\.\d+\S*)\s*$', re.M)
_OVS_LIBRARY_RE = re.compile(r'^Open vSwitch Library\s+(?P<ovs>\d+\.\d+\.\d+\S*)\s*$', re.M)


class BuildError(Exception):
    """Bad input or a host that cannot build; ``errors`` lists every reason at once."""

    def __init__(self, errors):
        self.errors = list(errors)
        super(BuildError, self).__init__('; '.join(self.errors))


def source_kind(src):
    """``archive``, ``dir`` or ``git``: an archive or a directory wins over the git URL."""
    if src.get('archive'):
        return 'archive'
    if src.get('dir'):
        return 'dir'
    return 'git'


def is_commit(ref):
    return bool(_SHA1_RE.match(ref or ''))


def check_options(params, name):
    """Meaning checks that need no host; ``name(option)`` spells an option as the user wrote it."""
    errors = []
    for comp in COMPONENTS:
        src = component_source(params, comp)
        if src.get('archive') and src.get('dir'):
            errors.append('%s and %s are both set; give one source for %s (or neither, for %s)'
                          % (name(comp + '_archive'), name(comp + '_dir'), TITLES[comp], name(comp + '_git_url')))
        sha = src.get('archive_sha256') or ''
        if sha and not _SHA256_RE.match(sha.lower()):
            errors.append('%s: %r is not a SHA-256 checksum (64 hexadecimal digits, as sha256sum prints it)'
                          % (name(comp + '_archive_sha256'), sha))
        if source_kind(src) == 'git' and not src.get('git_url'):
            errors.append('%s is empty and no %s or %s is given; say where the %s source is'
                          % (name(comp + '_git_url'), name(comp + '_archive'), name(comp + '_dir'), TITLES[comp]))
        if not (src.get('ref') or '').strip():
            errors.append('%s is empty; give a tag, a branch or a full commit' % name(comp + '_ref'))
    errors.extend(_check_special_refs(params, name))
    jobs = params.get('jobs')
    if jobs is not None and jobs < 1:
        errors.append('%s: %s is not a number of parallel make jobs; give 1 or more, or leave it unset for one per CPU'
                      ' of the host' % (name('jobs'), jobs))
    for option in ('prefix', 'sysconfdir', 'localstatedir', 'workdir'):
        if not os.path.isabs(params.get(option) or ''):
            errors.append('%s: %r is not an absolute path' % (name(option), params.get(option)))
    return errors


def _check_special_refs(params, name):
    errors = []
    if params.get('ovn_ref') in ('auto', 'submodule'):
        errors.append('%s: %s applies to Open vSwitch only; give an OVN tag, branch or commit'
                      % (name('ovn_ref'), params['ovn_ref']))
    ovs = component_source(params, 'ovs')
    if ovs.get('ref') in ('auto', 'submodule') and source_kind(ovs) != 'git':
        errors.append('%s: %s chooses what is fetched from %s, but %s is set; leave %s at a tag or drop the %s'
                      % (name('ovs_ref'), ovs['ref'], name('ovs_git_url'), name('ovs_' + source_kind(ovs)),
                         name('ovs_ref'), source_kind(ovs)))
    if ovs.get('ref') == 'submodule' and source_kind(component_source(params, 'ovn')) != 'git':
        errors.append('%s: submodule reads the commit OVN pins from its git history; an OVN %s carries none '
                      '(set %s, or give the Open vSwitch tag)'
                      % (name('ovs_ref'), source_kind(component_source(params, 'ovn')), name('ovn_git_url')))
    return errors


def component_source(params, comp):
    prefix = comp + '_'
    return dict((key[len(prefix):], value) for key, value in params.items() if key.startswith(prefix))


# -- reading tools' outputs ------------------------------------------------


def parse_ovs_version(text):
    """``ovs-vswitchd --version`` -> dict(version, line, scheme, upstream) or None.

    ``upstream`` is the (major, minor, patch) of the upstream release the
    binary is, or None when the text does not say. Three schemes are known:
    an upstream release with or without a suffix (Debian's ``3.1.0``,
    ``2.17.2-24a81c8`` on an older BlueField image); a DOCA package version
    that names its base (``2.9.2-0010-25.02-based-3.3.3``); and DOCA's own
    numbering from DOCA 3.1 on (``3.1.0057``, ``3.2.1005``): the DOCA release
    and a four-digit build, which only looks like an upstream version.
    """
    for line in (text or '').splitlines():
        match = _OVS_VERSION_RE.search(line)
        if match:
            version = match.group('version')
            return dict(version=version, line=line.strip(), **version_scheme(version))
    return None


def version_scheme(version):
    """{scheme, upstream} of an Open vSwitch version string (see parse_ovs_version)."""
    based = _BASED_RE.search(version or '')
    if based:
        return dict(scheme='based', upstream=tuple(int(x) for x in based.groups()))
    match = re.match(r'^(\d+)\.(\d+)\.(\d+)', version or '')
    if not match:
        return dict(scheme='unknown', upstream=None)
    if len(match.group(3)) >= 4:
        return dict(scheme='doca', upstream=None)
    return dict(scheme='upstream', upstream=tuple(int(x) for x in match.groups()))


def package_base(text):
    """The upstream base a DOCA package version names (``...-based-3.3.5``), or None."""
    based = _BASED_RE.search(text or '')
    return tuple(int(x) for x in based.groups()) if based else None


def parse_tool_version(text):
    """``ovn-nbctl --version`` -> dict(ovn, ovs_library); a missing line gives None."""
    ovn = _OVN_TOOL_RE.search(text or '')
    ovs = _OVS_LIBRARY_RE.search(text or '')
    return dict(ovn=ovn.group('ovn') if ovn else None, ovs_library=ovs.group('ovs') if ovs else None)


def parse_ls_remote(text):
    """``git ls-remote`` -> {refname: commit}; a peeled tag (``^{}``) replaces the tag object."""
    refs = {}
    for line in (text or '').splitlines():
        parts = line.split('\t')
        if len(parts) != 2 or not is_commit(parts[0].strip()):
            continue
        sha, refname = parts[0].strip(), parts[1].strip()
        if refname.endswith('^{}'):
            refs[refname[:-3]] = sha
        else:
            refs.setdefault(refname, sha)
    return refs


def resolve_ref(refs, ref):
    """(commit, refname to fetch) of a tag, branch, full ref name or commit; None when it is not there."""
    if is_commit(ref):
        return ref, ref
    for refname in ('refs/tags/' + ref, 'refs/heads/' + ref, ref):
        if refname in refs:
            return refs[refname], refname
    return None


def release_tags(refs):
    """{(major, minor, patch): tag} of the ``vX.Y.Z`` tags among ``refs``."""
    tags = {}
    for refname in refs:
        if refname.startswith('refs/tags/'):
            match = _TAG_RE.match(refname[len('refs/tags/'):])
            if match:
                tags[tuple(int(x) for x in match.groups())] = refname[len('refs/tags/'):]
    return tags


def closest_tag(version, refs):
    """The upstream tag for the Open vSwitch the host runs, and why; ValueError when none fits.

    ``version`` is parse_ovs_version()'s answer, its ``upstream`` filled in
    (from a DOCA package's ``based-`` when the binary does not say). The OVSDB
    schema and the OpenFlow features change between minor releases (3.1,
    3.2, 3.3), so only a tag of the same major.minor can do: the same patch
    release when it is tagged, otherwise the nearest one (the newer of two
    equally near, since patch releases only fix bugs).
    """
    seen = '%s (%s)' % (version['version'], version['line'])
    want = version.get('upstream')
    if want is None:
        raise ValueError('the host runs Open vSwitch %s, which does not say which upstream release it is built on '
                         '(DOCA numbers its own releases so from DOCA 3.1 on; its release notes name the base, '
                         '"based-3.3.x")' % seen)
    base = '' if version.get('scheme') == 'upstream' else ', based on %d.%d.%d' % want
    tags = release_tags(refs)
    same = sorted(key for key in tags if key[:2] == want[:2])
    if not same:
        known = ', '.join(tags[key] for key in sorted(tags)[-6:]) or 'no vX.Y.Z tag at all'
        raise ValueError('the host runs Open vSwitch %s%s, and no v%d.%d.* tag exists (the newest: %s)'
                         % ((seen, base) + want[:2] + (known,)))
    best = min(same, key=lambda key: (abs(key[2] - want[2]), -key[2]))
    tag = tags[best]
    if best == want:
        return tag, 'the host runs Open vSwitch %s%s; %s is that release' % (seen, base, tag)
    return tag, ('the host runs Open vSwitch %s%s; v%d.%d.%d is not tagged, %s is the nearest release of %d.%d'
                 % ((seen, base) + want + (tag,) + want[:2]))


def parse_gitlink(text):
    """``git ls-tree COMMIT ovs`` -> the commit the ``ovs`` submodule is pinned at, or None."""
    parts = (text or '').split()
    if len(parts) >= 3 and parts[1] == 'commit' and is_commit(parts[2]):
        return parts[2]
    return None


# -- sources on disk -----------------------------------------------------


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def inspect_archive(path, expected_sha256):
    """(identity, problems, project) of a tarball: its identity is git's commit id in it when there is one, else its
    SHA-256; its project is what tree_project() says of it."""
    if not os.path.isfile(path):
        return None, ['%s does not exist or is not a file' % path], None
    sha = file_sha256(path)
    if expected_sha256 and sha != expected_sha256.lower():
        return None, ['%s has SHA-256 %s, not %s; the file is not the one you meant (or is damaged)'
                      % (path, sha, expected_sha256.lower())], None
    try:
        with tarfile.open(path) as tar:
            commit = (tar.pax_headers or {}).get('comment', '')
            members = dict((member.name.rstrip('/'), member) for member in tar.getmembers())
            tops = set(name.split('/', 1)[0] for name in members if name)
            top = sorted(tops)[0] if len(tops) == 1 else None
            project = tree_project(lambda rel: _member_text(tar, members.get('%s/%s' % (top, rel))))
    except (tarfile.TarError, EOFError, OSError) as exc:
        return None, ['%s is not a tar archive: %s' % (path, exc)], None
    missing = [f for f in TREE_FILES if not any('%s/%s' % (each, f) in members for each in tops)]
    if top is None or missing:
        return None, ['%s is not a source tree in one top directory with %s (has %s; missing %s)'
                      % (path, ' and '.join(TREE_FILES), ', '.join(sorted(tops)[:3]) or 'nothing', ', '.join(missing) or '-')], None
    return (commit if is_commit(commit) else 'sha256:' + sha), [], project


def _member_text(tar, member):
    """The text of a regular file of an open archive, or None."""
    if member is None or not member.isfile():
        return None
    return tar.extractfile(member).read().decode('utf-8', 'replace')


def tree_project(read):
    """(component, evidence) of a source tree: ``ovs`` or ``ovn``, by the name its ``configure.ac`` gives AC_INIT, else
    by a program only that project has; (None, None) when neither says. ``read(relative path)`` is the text or None."""
    match = _AC_INIT_RE.search(read('configure.ac') or '')
    if match and match.group('name') in PROJECTS:
        return PROJECTS[match.group('name')], 'configure.ac: %s' % match.group(0).strip()
    for comp, marker in sorted(MARKERS.items()):
        if read(marker) is not None:
            return comp, 'it has %s' % marker
    return None, None


def mismatched_sources(found, name):
    """Errors for sources of the other project (the Open vSwitch tree given as OVN's, or the other way round).

    ``found`` maps a component to (option suffix ``archive`` or ``dir``, path, (project, evidence)).
    """
    errors = []
    for comp in COMPONENTS:
        if comp not in found:
            continue
        kind, path, (project, evidence) = found[comp]
        if project is None or project == comp:
            continue
        option = name('%s_%s' % (comp, kind))
        other = found.get(project)
        if other is not None and other[2][0] == comp:
            fix = ('the Open vSwitch and OVN sources are given the other way round: swap %s and %s'
                   % (name('ovs_' + found['ovs'][0]), name('ovn_' + found['ovn'][0])))
        else:
            fix = 'give %s the %s source' % (option, TITLES[comp])
        errors.append('%s: %s is the %s source (%s), not the %s one; %s'
                      % (option, path, TITLES[project], evidence, TITLES[comp], fix))
    return errors


def tree_entries(path):
    """(relative path, line) of every file and link of a tree (``.git`` and ``_build`` left out), as content_digest reads them."""
    entries = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if d not in TREE_SKIP]
        for name in files:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            if os.path.islink(full):
                entries.append((rel, 'L %s %s\n' % (rel, os.readlink(full))))
            else:
                entries.append((rel, 'F %s %o %s\n' % (rel, os.stat(full).st_mode & 0o111, file_sha256(full))))
    return entries


def archive_entries(path):
    """The entries of tree_entries() for the tree in a tarball (its top directory left out): the same lines as for
    that tree unpacked, so that two archives of one tree agree whatever their compression or top directory."""
    entries = []
    with tarfile.open(path) as tar:
        for member in tar:
            rel = member.name.split('/', 1)[1] if '/' in member.name else ''
            if not rel or rel.split('/', 1)[0] in TREE_SKIP:
                continue
            if member.issym():
                entries.append((rel, 'L %s %s\n' % (rel, member.linkname)))
            elif member.isfile():
                digest = hashlib.sha256()
                handle = tar.extractfile(member)
                for chunk in iter(lambda: handle.read(1 << 20), b''):
                    digest.update(chunk)
                entries.append((rel, 'F %s %o %s\n' % (rel, member.mode & 0o111, digest.hexdigest())))
    return entries


def content_digest(entries):
    """SHA-256 over the lines of the entries, sorted by path: what a tree holds, not how it was packed."""
    digest = hashlib.sha256()
    for dummy, line in sorted(entries):
        digest.update(line.encode('utf-8'))
    return digest.hexdigest()


def tree_digest(path):
    """content_digest() of a directory's tree."""
    return content_digest(tree_entries(path))


def inspect_dir(path):
    """(identity, problems, project) of a source directory."""
    if not os.path.isdir(path):
        return None, ['%s does not exist or is not a directory' % path], None
    missing = [f for f in TREE_FILES if not os.path.isfile(os.path.join(path, f))]
    if missing:
        return None, ['%s is not an Open vSwitch or OVN source tree: it has no %s' % (path, ' and no '.join(missing))], None
    return 'tree:' + tree_digest(path), [], tree_project(lambda rel: read_text(os.path.join(path, rel), None))


# -- what is built, and where --------------------------------------------


def layout(params):
    """Paths of the trees, builds, logs and installed files."""
    work = params['workdir']
    prefix = params['prefix']
    paths = dict(workdir=work, prefix=prefix, bindir=os.path.join(prefix, 'bin'),
                 ovn_datadir=os.path.join(prefix, 'share', 'ovn'), ovs_datadir=os.path.join(prefix, 'share', 'openvswitch'))
    for comp in COMPONENTS:
        paths[comp + '_src'] = os.path.join(work, comp)
        paths[comp + '_build'] = os.path.join(work, comp, '_build')
        paths[comp + '_log'] = os.path.join(work, comp + '-build.log')
    paths['ovn_ctl'] = os.path.join(paths['ovn_datadir'], 'scripts', 'ovn-ctl')
    paths['nb_schema'] = os.path.join(paths['ovn_datadir'], 'ovn-nb.ovsschema')
    paths['sb_schema'] = os.path.join(paths['ovn_datadir'], 'ovn-sb.ovsschema')
    paths['ovn_record'] = os.path.join(paths['ovn_datadir'], RECORD_NAME)
    paths['ovs_record'] = os.path.join(paths['ovs_datadir'], RECORD_NAME)
    paths['ovs_lib_link'] = os.path.join(paths['ovs_datadir'], 'scripts', 'ovs-lib')
    return paths


def configure_flags(params, comp, paths):
    """``../configure`` arguments: the ConnectX-6 Lx reference bench's prefixes, OVN pointed at the Open vSwitch tree and build."""
    flags = ['--prefix=' + params['prefix'], '--sysconfdir=' + params['sysconfdir'],
             '--localstatedir=' + params['localstatedir']]
    if comp == 'ovn':
        flags += ['--with-ovs-source=' + paths['ovs_src'], '--with-ovs-build=' + paths['ovs_build']]
    return flags + list(params.get(comp + '_configure_options') or [])


def wanted_records(params, sources, paths):
    """The records a finished build leaves: of each source tree, each build, and each install."""
    ovs_build = dict(commit=sources['ovs']['id'], configure=configure_flags(params, 'ovs', paths))
    ovn_build = dict(commit=sources['ovn']['id'], configure=configure_flags(params, 'ovn', paths), ovs=ovs_build)
    install = dict(ovn_commit=sources['ovn']['id'], ovs_commit=sources['ovs']['id'], ovn_configure=ovn_build['configure'],
                   ovs_configure=ovs_build['configure'], prefix=params['prefix'],
                   # With ``submodule`` the commit OVN pins, so that a second run knows it without the tree.
                   ovs_pin=sources['ovs']['id'] if sources['ovs'].get('ref') == 'submodule' else None)
    return dict(ovs_source=dict(id=sources['ovs']['id']), ovn_source=dict(id=sources['ovn']['id']),
                ovs_build=ovs_build, ovn_build=ovn_build, ovn_install=install,
                ovs_install=install if params.get('install_ovs') else None)


def same_record(have, want):
    """A record matches when every key it should have is there with the same value (extra keys, such as versions, aside)."""
    if want is None:
        return True
    return isinstance(have, dict) and all(have.get(key) == value for key, value in want.items())


def built(have, want):
    """A build is done when its record matches and says no step is left (a build cut short records the steps it did)."""
    return same_record(have, want) and not (have or {}).get('partial')


def build_steps_left(have, want):
    """The steps of a build still to run: after those a matching record of a build cut short lists, else all."""
    if same_record(have, want) and (have or {}).get('partial'):
        return [step for step in BUILD_STEPS if step not in have['partial']]
    return list(BUILD_STEPS)


def decide(want, have):
    """What has to happen, from the wanted records and those on the host (None where missing):
    ``COMP_fetch`` and ``COMP_install`` are True or False, ``COMP_build`` the build steps to run."""
    todo = {}
    todo['ovn_install'] = not same_record(have.get('ovn_install'), want['ovn_install'])
    todo['ovs_install'] = not same_record(have.get('ovs_install'), want['ovs_install'])
    needed = {'ovn': todo['ovn_install'] and not built(have.get('ovn_build'), want['ovn_build'])}
    needed['ovs'] = (needed['ovn'] or todo['ovs_install']) and not built(have.get('ovs_build'), want['ovs_build'])
    for comp in COMPONENTS:
        todo[comp + '_fetch'] = needed[comp] and not same_record(have.get(comp + '_source'), want[comp + '_source'])
        # A new tree is built from the start; the same tree resumes where its build stopped.
        resumed = build_steps_left(have.get(comp + '_build'), want[comp + '_build'])
        todo[comp + '_build'] = [] if not needed[comp] else list(BUILD_STEPS) if todo[comp + '_fetch'] else resumed
    return todo


def fetch_commands(comp, source, paths):
    """Commands that lay the source of ``comp`` out in its tree (the tree is emptied first)."""
    tree = paths[comp + '_src']
    kind = source['kind']
    cmds = [(['rm', '-rf', tree], None)]
    if kind == 'archive':
        cmds += [(['mkdir', '-p', tree], None), (['tar', '-xf', source['path'], '--strip-components=1', '-C', tree], None)]
    elif kind == 'dir':
        cmds += [(['mkdir', '-p', tree], None), (['cp', '-a', source['path'].rstrip('/') + '/.', tree], None)]
    else:
        cmds += [(['git', 'init', '-q', tree], None),
                 (['git', '-C', tree, 'fetch', '-q', '--depth', '1', source['url'], source['fetch']], None),
                 (['git', '-C', tree, 'checkout', '-q', '--detach', 'FETCH_HEAD'], None)]
    return cmds


def build_commands(comp, params, paths, jobs):
    """[(step, commands)]: ./boot.sh in the tree, configure in a fresh ``_build``, make."""
    build = paths[comp + '_build']
    return [('boot', [(['./boot.sh'], paths[comp + '_src'])]),
            ('configure', [(['rm', '-rf', build], None), (['mkdir', '-p', build], None),
                           (['../configure'] + configure_flags(params, comp, paths), build)]),
            ('make', [(['make', '-j%d' % jobs], build)])]


def plan_steps(params, sources, todo, paths, jobs):
    """[(component, step, [(argv, cwd), ...])] in the order they run; OVN is fetched first when the Open vSwitch
    commit is the one OVN pins and not known yet (``submodule``)."""
    steps = []
    for comp in COMPONENTS:
        if todo[comp + '_fetch']:
            steps.append((comp, 'fetch', fetch_commands(comp, sources[comp], paths)))
        steps.extend((comp, step, cmds) for step, cmds in build_commands(comp, params, paths, jobs) if step in todo[comp + '_build'])
        if todo[comp + '_install']:
            steps.append((comp, 'install', [(['make', 'install'], paths[comp + '_build'])]))
    if sources['ovs'].get('id') is None:
        steps.sort(key=lambda step: step[:2] != ('ovn', 'fetch'))
    return steps


def build_record(want, comp, step):
    """The record a build step leaves in ``_build``: the wanted one, with the steps done so far until make is done."""
    record = dict(want[comp + '_build'])
    if step != BUILD_STEPS[-1]:
        record['partial'] = list(BUILD_STEPS[:BUILD_STEPS.index(step) + 1])
    return record


def describe(comp, step, source, paths, jobs):
    """One line of the plan, for people: the step, the component, where, and how."""
    title = TITLES[comp]
    if step == 'fetch':
        where = {'archive': 'archive ' + str(source.get('path')), 'dir': 'directory ' + str(source.get('path')),
                 'git': '%s %s' % (source.get('url'), source.get('ref'))}[source['kind']]
        return 'fetch %s %s (%s) into %s' % (title, where, source['id'], paths[comp + '_src'])
    if step == 'boot':
        return 'boot.sh %s in %s' % (title, paths[comp + '_src'])
    if step == 'configure':
        return 'configure %s in %s' % (title, paths[comp + '_build'])
    if step == 'make':
        return 'make %s in %s (make -j%d)' % (title, paths[comp + '_build'], jobs)
    return 'install %s into %s' % (title, paths['prefix'])


def duration(seconds):
    """``7 s``, ``1 min 54 s``: how long a step took, for people."""
    seconds = int(round(seconds))
    return '%d s' % seconds if seconds < 60 else '%d min %d s' % divmod(seconds, 60)
