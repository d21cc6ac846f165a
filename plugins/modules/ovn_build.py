#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ovn_build
short_description: Build OVN from source against an Open vSwitch tree, and install it
version_added: 0.3.0
description:
  - Lays out the Open vSwitch and OVN sources (a git URL and ref, an archive or a directory on the host), builds Open
    vSwitch in C(_build) without installing it (unless O(install_ovs)), builds OVN configured with
    C(--with-ovs-source) and C(--with-ovs-build) pointing at that tree, and installs OVN under O(prefix), as the
    ConnectX-6 Lx reference bench does by hand next to DOCA's Open vSwitch.
  - Reads first, then writes. A record next to the install (C(PREFIX/share/ovn/offload-testbed-build.json), with the
    OVN commit, the Open vSwitch commit, the configure flags and the prefix) and one in each source tree and build make
    a second run skip everything; a change of either source or of the flags rebuilds what depends on it.
  - O(ovs_ref=auto) reads C(ovs-vswitchd --version) on the host and picks the upstream tag of the same major.minor
    (the same patch release when tagged, else the nearest), saying why in the C(reason) of RV(ovs). O(ovs_ref=submodule) takes
    the commit the OVN tree pins in its C(ovs) submodule.
  - Every command's output goes to a log on the host (RV(logs)); a failed step reports the last lines of it.
  - The steps are C(fetch), C(boot) (C(./boot.sh)), C(configure), C(make) and C(install) of each component (and C(link)
    of the C(ovs-lib) C(ovn-ctl) loads); O(step) runs one of them, so that a caller (the role, with C(async)) shows
    each step and its time (RV(steps)). A build cut short resumes at the step after the last one done.
  - An archive or a directory whose tree is the other project's (C(configure.ac)'s C(AC_INIT), else
    C(vswitchd/ovs-vswitchd.c) or C(controller/ovn-controller.c)), such as the two archives given the other way
    round, is refused before anything is written.
  - With O(inspect), runs no build and only checks the archives and directories given (the role runs it on the
    controller before copying them) and returns their identity in RV(sources).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Resolves the refs and returns what would be fetched, built and installed (RV(plan), RV(commands)); writes nothing.
  diff_mode:
    support: full
    description: The install record before and after.
options:
  ovs_git_url:
    description: Git URL of Open vSwitch, used when neither O(ovs_archive) nor O(ovs_dir) is given.
    type: str
    default: https://github.com/openvswitch/ovs.git
  ovs_ref:
    description:
      - Tag, branch or full commit of Open vSwitch to fetch from O(ovs_git_url).
      - V(auto) picks the upstream tag closest to the Open vSwitch the host runs (C(ovs-vswitchd --version)).
      - V(submodule) takes the commit OVN pins (OVN from git only).
    type: str
    default: v3.3.8
  ovs_archive:
    description: Tarball of an Open vSwitch source tree on the host (one top directory with C(boot.sh)), for example made with C(git archive).
    type: path
  ovs_archive_sha256:
    description: SHA-256 the archive must have; checked before anything is built.
    type: str
  ovs_dir:
    description: Open vSwitch source tree on the host; copied into O(workdir) before building.
    type: path
  ovs_source_id:
    description: Identity of O(ovs_archive) or O(ovs_dir) as O(inspect) returned it; computed here when not given.
    type: str
  ovs_configure_options:
    description: More arguments of Open vSwitch's C(configure), for example C(--enable-shared).
    type: list
    elements: str
    default: []
  ovn_git_url:
    description: Git URL of OVN, used when neither O(ovn_archive) nor O(ovn_dir) is given.
    type: str
    default: https://github.com/ovn-org/ovn.git
  ovn_ref:
    description: Tag, branch or full commit of OVN to fetch from O(ovn_git_url).
    type: str
    default: v24.03.8
  ovn_archive:
    description: Tarball of an OVN source tree on the host.
    type: path
  ovn_archive_sha256:
    description: SHA-256 the OVN archive must have.
    type: str
  ovn_dir:
    description: OVN source tree on the host.
    type: path
  ovn_source_id:
    description: Identity of O(ovn_archive) or O(ovn_dir) as O(inspect) returned it.
    type: str
  ovn_configure_options:
    description: More arguments of OVN's C(configure).
    type: list
    elements: str
    default: []
  workdir:
    description: Directory on the host for the source trees (C(ovs/), C(ovn/)), their C(_build) directories and the build logs.
    type: path
    default: /usr/src/offload-testbed-ovn
  prefix:
    description: C(--prefix) of both builds; OVN (and Open vSwitch with O(install_ovs)) is installed there.
    type: path
    default: /usr
  sysconfdir:
    description: C(--sysconfdir) of both builds.
    type: path
    default: /etc
  localstatedir:
    description: C(--localstatedir) of both builds.
    type: path
    default: /var
  jobs:
    description: Parallel C(make) jobs; one per CPU of the host when not given.
    type: int
  install_ovs:
    description: Install the Open vSwitch build too (for hosts that run no Open vSwitch of their own).
    type: bool
    default: false
  ovs_lib:
    description:
      - The C(ovs-lib) of the Open vSwitch the host runs. C(ovn-ctl) loads C(PREFIX/share/openvswitch/scripts/ovs-lib);
        when O(prefix) has none (Open vSwitch not installed there), a link to this file is made.
    type: path
    default: /usr/share/openvswitch/scripts/ovs-lib
  inspect:
    description: Only check O(ovs_archive), O(ovs_dir), O(ovn_archive) and O(ovn_dir) and return their identity; build nothing.
    type: bool
    default: false
  variable_prefix:
    description: Prefix of the names errors give the options, so that they name the variables of the calling role (V(ovn_build_)).
    type: str
    default: ""
  step:
    description:
      - Run only this step of the plan, C(COMPONENT:STEP), when the plan has it; otherwise change nothing. The plan is
        read again first (under the work directory's lock), so a step another run has done meanwhile is not run twice.
      - Unset, the whole plan runs in one call.
    type: str
    choices: ["ovs:fetch", "ovs:boot", "ovs:configure", "ovs:make", "ovs:install",
              "ovn:fetch", "ovn:boot", "ovn:configure", "ovn:make", "ovn:install", "ovn:link"]
notes:
  - A build takes minutes (about 4 for both on two cores). One call prints nothing until it ends; the role runs
    each step as its own call with C(async) and polls it, so that each step shows while it runs, with its time.
seealso:
  - name: OVN installation guide
    description: Building OVN against an Open vSwitch source tree.
    link: https://docs.ovn.org/en/latest/intro/install/general.html
"""

EXAMPLES = r"""
- name: Build OVN v24.03.8 against Open vSwitch v3.3.8 (the ConnectX-6 Lx reference bench)
  offload.testbed.ovn_build:
    ovs_ref: v3.3.8
    ovn_ref: v24.03.8

- name: Build against the upstream tag closest to the Open vSwitch the host runs (DOCA-OVS)
  offload.testbed.ovn_build:
    ovs_ref: auto
  register: ovn_build_result

- name: Build from archives copied to the host, OVN under /opt/ovn
  offload.testbed.ovn_build:
    ovs_archive: /var/tmp/openvswitch-3.3.8.tar.gz
    ovn_archive: /var/tmp/ovn-24.03.8.tar.gz
    ovn_archive_sha256: 121b1a42864dc941b992041ee41b1071373e39e45d666f5aadcd01374980a6bc
    prefix: /opt/ovn
"""

RETURN = r"""
plan:
  description: What was done (or would be in check mode), a line per step; empty when everything was up to date.
  returned: always
  type: list
  elements: str
  sample: ["fetch Open vSwitch https://github.com/openvswitch/ovs.git v3.3.8 (bc99439446a1c0b94498ad7ea44f3d1d933ead90) into /usr/src/offload-testbed-ovn/ovs"]
commands:
  description: The commands of the plan, as shell lines.
  returned: always
  type: list
  elements: str
steps:
  description:
    - The steps of RV(plan), each with its C(component), C(step) and C(line); once run, with the C(seconds) it took
      and C(took), the same for people (C(1 min 54 s)).
  returned: unless O(inspect)
  type: list
  elements: dict
  sample: [{"component": "ovs", "step": "make", "line": "make Open vSwitch in /usr/src/offload-testbed-ovn/ovs/_build (make -j2)",
            "seconds": 114.2, "took": "1 min 54 s"}]
waited:
  description: Seconds this run waited for another build in the same work directory (the hosts of a one-box lab).
  returned: when something was to be run
  type: float
fetch:
  description: The components (C(ovs), C(ovn)) whose sources the plan fetches; the role copies only their archives and directories.
  returned: unless O(inspect)
  type: list
  elements: str
ovs:
  description: The Open vSwitch source (C(kind), C(ref), C(commit) or identity C(id), and C(reason) when O(ovs_ref=auto)).
  returned: always
  type: dict
ovn:
  description: The OVN source, as RV(ovs).
  returned: always
  type: dict
sources:
  description: With O(inspect), the identity of each archive or directory (C(ovs), C(ovn)).
  returned: when O(inspect)
  type: dict
facts:
  description:
    - Where the OVN that runs is (C(prefix), C(bindir), C(ovn_ctl), C(nb_schema), C(sb_schema)) and what it is
      (C(ovn_version), C(ovs_library_version), C(ovn_commit), C(ovs_commit)), for the ovn_central and ovn_controller roles.
  returned: unless O(inspect)
  type: dict
logs:
  description: The build logs on the host, per component.
  returned: unless O(inspect)
  type: dict
"""

import fcntl
import json
import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob


def argument_spec():
    spec = {}
    for comp, url, ref in (('ovs', 'https://github.com/openvswitch/ovs.git', 'v3.3.8'),
                           ('ovn', 'https://github.com/ovn-org/ovn.git', 'v24.03.8')):
        spec.update({comp + '_git_url': dict(type='str', default=url), comp + '_ref': dict(type='str', default=ref),
                     comp + '_archive': dict(type='path'), comp + '_archive_sha256': dict(type='str'),
                     comp + '_dir': dict(type='path'), comp + '_source_id': dict(type='str'),
                     comp + '_configure_options': dict(type='list', elements='str', default=[])})
    spec.update(workdir=dict(type='path', default='/usr/src/offload-testbed-ovn'), prefix=dict(type='path', default='/usr'),
                sysconfdir=dict(type='path', default='/etc'), localstatedir=dict(type='path', default='/var'),
                jobs=dict(type='int'), install_ovs=dict(type='bool', default=False),
                ovs_lib=dict(type='path', default='/usr/share/openvswitch/scripts/ovs-lib'),
                inspect=dict(type='bool', default=False), variable_prefix=dict(type='str', default=''),
                step=dict(type='str', choices=['%s:%s' % (comp, step) for comp in ob.COMPONENTS for step in ob.STEPS
                                               if step != 'link' or comp == 'ovn']))
    return spec


class Host(object):
    """The module's reads and writes of the host, so that the steps stay plain."""

    def __init__(self, module):
        self.module = module
        self.runner = HostRunner(module)
        self.name = lambda option: module.params['variable_prefix'] + option

    def run(self, argv, cwd=None):
        """``(rc, stdout, stderr)`` of a command that reads the host (it runs in check mode too)."""
        return self.runner.read(argv, check_rc=False, cwd=cwd)

    def read_json(self, path):
        try:
            with open(path) as handle:
                return json.load(handle)
        except (IOError, OSError, ValueError):
            return None

    def write_json(self, path, data):
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            os.makedirs(parent)
        tmp = path + '.tmp'
        with open(tmp, 'w') as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write('\n')
        os.rename(tmp, path)

    def append_log(self, path, argv, cwd, rc, out, err):
        with open(path, 'a') as handle:
            handle.write('$ %s\n%s%s[exit %d]\n' % (command_line(argv, cwd), out, err, rc))


def inspect_local(src, kind):
    """(identity, problems, project) of an archive or a directory on this host."""
    if kind == 'archive':
        return ob.inspect_archive(src['archive'], src.get('archive_sha256'))
    return ob.inspect_dir(src['dir'])


def inspect_sources(params, name):
    """The identities of the archives and directories on this host (the controller, for the role); a source of the
    other project (the archives given the other way round) is refused too."""
    sources, errors, found = {}, [], {}
    for comp in ob.COMPONENTS:
        src = ob.component_source(params, comp)
        kind = ob.source_kind(src)
        if kind == 'git':
            continue
        ident, problems, project = inspect_local(src, kind)
        label = name(comp + ('_archive_sha256' if problems and 'SHA-256' in problems[0] else '_' + kind))
        errors.extend('%s: %s' % (label, problem) for problem in problems)
        sources[comp] = dict(kind=kind, id=ident)
        if project:
            found[comp] = (kind, src[kind], project)
    return sources, errors + ob.mismatched_sources(found, name)


def ls_remote(host, url, comp):
    rc, out, err = host.run(['git', 'ls-remote', url])
    if rc != 0:
        said = ((err or out).strip().splitlines() or ['exit %d' % rc])[-1]
        raise ob.BuildError(['%s: git ls-remote %s failed (%s); check the URL and that the host reaches it'
                             % (host.name(comp + '_git_url'), url, said)])
    return ob.parse_ls_remote(out)


def host_ovs_version(host):
    """What ``ovs-vswitchd --version`` says, its upstream base completed from a DOCA package when it does not say."""
    rc, out, err = host.run(['ovs-vswitchd', '--version'])
    version = ob.parse_ovs_version(out) if rc == 0 else None
    if version is None:
        raise ob.BuildError(['%s: auto reads the Open vSwitch the host runs, but ovs-vswitchd --version %s; install '
                             'Open vSwitch first (DOCA-OVS) or give a tag'
                             % (host.name('ovs_ref'), 'printed %r' % out.strip() if rc == 0 else 'failed: %s' % (err or out).strip())])
    if version['upstream'] is None:
        for argv in PACKAGE_QUERIES:
            if host.module.get_bin_path(argv[0]):
                rc, out, dummy = host.run(argv)
                base = ob.package_base(out) if rc == 0 else None
                if base:
                    version.update(upstream=base, line='%s; package %s' % (version['line'], out.strip().splitlines()[0]))
                    break
    return version


# DOCA's Open vSwitch packages, whose version names the upstream base (2.9.2-0010-25.02-based-3.3.3).
PACKAGE_QUERIES = (
    ['dpkg-query', '-W', '-f=${Version}\\n', 'doca-openvswitch-switch'],
    ['rpm', '-q', '--qf', '%{VERSION}-%{RELEASE}\\n', 'doca-openvswitch'],
)


def resolve_git(host, comp, src, pin=None):
    """The commit a git source stands for, and what to fetch; ``pin`` is the commit OVN pins, for ``submodule``."""
    ref, url = src['ref'], src['git_url']
    refs = ls_remote(host, url, comp)  # also the proof, before anything, that the host reaches the URL
    if ref == 'submodule':
        return dict(kind='git', url=url, ref=ref, id=pin, fetch=pin, reason='the commit OVN pins in its ovs submodule')
    reason = None
    if ref == 'auto':
        try:
            ref, reason = ob.closest_tag(host_ovs_version(host), refs)
        except ValueError as exc:
            raise ob.BuildError(['%s: auto: %s in %s; give the tag to build' % (host.name('ovs_ref'), exc, url)])
    found = ob.resolve_ref(refs, ref)
    if found is None:
        tags = ob.release_tags(refs)
        raise ob.BuildError(['%s: %s is not a tag, branch or full commit of %s (its newest release tags: %s)'
                             % (host.name(comp + '_ref'), ref, url, ', '.join(tags[t] for t in sorted(tags)[-5:]) or 'none')])
    return dict(kind='git', url=url, ref=ref, id=found[0], fetch=found[1], reason=reason)


def resolve_local(host, comp, src, kind, found):
    """An archive or directory on the host; unless the controller gave its identity, it is inspected here and its
    project noted in ``found`` (see mismatched_sources)."""
    path = src[kind]
    ident = src.get('source_id')
    if not ident and os.path.exists(path):
        ident, problems, project = inspect_local(src, kind)
        if problems:
            raise ob.BuildError(['%s: %s' % (host.name(comp + '_' + kind), p) for p in problems])
        found[comp] = (kind, path, project)
    return dict(kind=kind, path=path, id=ident)


def resolve_sources(host, params, paths, have):
    """{comp: source}; OVN first, since OVS may be the commit OVN pins. Every error at once."""
    sources, errors, found = {}, [], {}
    for comp in ('ovn', 'ovs'):
        src = ob.component_source(params, comp)
        kind = ob.source_kind(src)
        try:
            if kind != 'git':
                sources[comp] = resolve_local(host, comp, src, kind, found)
            else:
                sources[comp] = resolve_git(host, comp, src, pin=known_pin(host, sources.get('ovn'), paths, have))
        except ob.BuildError as exc:
            errors.extend(exc.errors)
    errors.extend(ob.mismatched_sources(found, host.name))
    if errors:
        raise ob.BuildError(errors)
    return sources


def known_pin(host, ovn, paths, have):
    """The commit OVN pins, when it can be known without fetching: from the records or the OVN tree of that commit."""
    if not ovn or not ovn.get('id'):
        return None
    for record in (have.get('ovn_install'), have.get('ovn_source')):
        if record and record.get('ovn_commit', record.get('id')) == ovn['id'] and record.get('ovs_pin'):
            return record['ovs_pin']
    if (have.get('ovn_source') or {}).get('id') == ovn['id']:
        return read_pin(host, paths)
    return None


def read_pin(host, paths):
    if not os.path.isdir(os.path.join(paths['ovn_src'], '.git')):
        return None
    rc, out, dummy = host.run(['git', '-C', paths['ovn_src'], 'ls-tree', 'HEAD', 'ovs'])
    return ob.parse_gitlink(out) if rc == 0 else None


def read_records(host, paths):
    """The records on the host; an install record counts only while what it installed is there."""
    have = dict((comp + '_source', host.read_json(os.path.join(paths[comp + '_src'], ob.SOURCE_RECORD))) for comp in ob.COMPONENTS)
    have.update((comp + '_build', host.read_json(os.path.join(paths[comp + '_build'], ob.BUILD_RECORD))) for comp in ob.COMPONENTS)
    installed = os.path.exists(os.path.join(paths['bindir'], 'ovn-nbctl')) and os.path.exists(paths['ovn_ctl'])
    have['ovn_install'] = host.read_json(paths['ovn_record']) if installed else None
    have['ovs_install'] = host.read_json(paths['ovs_record'])
    return have


def link_step(params, paths):
    """ovn-ctl loads PREFIX/share/openvswitch/scripts/ovs-lib: link the host's when the prefix has none."""
    if params['install_ovs'] or os.path.lexists(paths['ovs_lib_link']):
        return []
    if not os.path.exists(params['ovs_lib']):
        var = params['variable_prefix']
        raise ob.BuildError(['%sovs_lib: %s does not exist; ovn-ctl needs the ovs-lib (and ovsdb-server) of an installed Open '
                             'vSwitch: install Open vSwitch, point %sovs_lib at its ovs-lib, or set %sinstall_ovs'
                             % (var, params['ovs_lib'], var, var)])
    return [('ovn', 'link', [(['mkdir', '-p', os.path.dirname(paths['ovs_lib_link'])], None),
                             (['ln', '-sfn', params['ovs_lib'], paths['ovs_lib_link']], None)])]


def make_plan(params, sources, paths, have, jobs):
    want = ob.wanted_records(params, sources, paths)
    steps = ob.plan_steps(params, sources, ob.decide(want, have), paths, jobs)
    return want, steps + link_step(params, paths)


def describe_steps(steps, sources, paths, jobs):
    lines = []
    for comp, step in (each[:2] for each in steps):
        if step == 'link':
            lines.append('link %s to %s (ovn-ctl loads it)' % (paths['ovs_lib_link'], 'the host\'s ovs-lib'))
            continue
        line = ob.describe(comp, step, sources[comp], paths, jobs)
        lines.append(line.replace('(None)', '(the commit OVN pins, read once OVN is fetched)'))
    return lines


def run_step(host, comp, step, commands, paths):
    """Run a step's commands into the component's log (begun afresh by a fetch); seconds it took."""
    log = paths[comp + '_log']
    started = time.time()
    with open(log, 'w' if step == 'fetch' else 'a') as handle:
        handle.write('=== %s %s, %s\n' % (ob.TITLES[comp], step, time.strftime('%Y-%m-%d %H:%M:%S')))
    for argv, cwd in commands:
        rc, out, err = host.runner.change(argv, check_rc=False, cwd=cwd)
        host.append_log(log, argv, cwd, rc, out, err)
        if rc != 0:
            with open(log) as handle:
                tail = handle.read().splitlines()[-30:]
            raise StepFailed('%s %s failed at `%s` (exit %d); the whole log is %s on the host; its last lines:\n%s'
                             % (ob.TITLES[comp], step, command_line(argv, cwd), rc, log, '\n'.join(tail)), log, tail)
    return time.time() - started


class StepFailed(Exception):
    def __init__(self, msg, log, tail):
        super(StepFailed, self).__init__(msg)
        self.log = log
        self.tail = tail


def record_step(host, comp, step, sources, want, paths):
    """Check what a step left, then write its record."""
    if step == 'fetch':
        src = sources[comp]
        record = dict(id=src['id'])
        if src['kind'] == 'git':
            dummy, out, dummy2 = host.run(['git', '-C', paths[comp + '_src'], 'rev-parse', 'HEAD'])
            if out.strip() != src['id']:
                raise ob.BuildError(['%s: fetching %s %s gave commit %s, not %s'
                                     % (host.name(comp + '_ref'), src['url'], src['fetch'], out.strip(), src['id'])])
            if comp == 'ovn':
                record['ovs_pin'] = read_pin(host, paths)
        host.write_json(os.path.join(paths[comp + '_src'], ob.SOURCE_RECORD), record)
    elif step in ob.BUILD_STEPS:
        host.write_json(os.path.join(paths[comp + '_build'], ob.BUILD_RECORD), ob.build_record(want, comp, step))
    elif step == 'install':
        record = dict(want[comp + '_install'], **installed_versions(host, paths))
        host.write_json(paths[comp + '_record'], record)


def installed_versions(host, paths):
    nbctl = os.path.join(paths['bindir'], 'ovn-nbctl')
    if not os.path.exists(nbctl):
        return dict(ovn_version=None, ovs_library_version=None)
    rc, out, dummy = host.run([nbctl, '--version'])
    version = ob.parse_tool_version(out if rc == 0 else '')
    return dict(ovn_version=version['ovn'], ovs_library_version=version['ovs_library'])


def run_steps(host, steps, sources, want, paths, done):
    """Run each step and write its record; ``done`` gets the steps as they finish, with their seconds."""
    for comp, step, commands in steps:
        seconds = run_step(host, comp, step, commands, paths)
        record_step(host, comp, step, sources, want, paths)
        done.append((comp, step, commands, seconds))


def execute(host, params, sources, paths, jobs, want, steps, only=None):
    """Run the plan (only the step ``only``, a (component, step), when given); with ``submodule`` and OVN not yet
    fetched, fetch OVN first and plan again. Returns the steps done, with their seconds."""
    done = []
    if sources['ovs']['id'] is None:
        run_steps(host, select([s for s in steps if s[:2] == ('ovn', 'fetch')], only), sources, want, paths, done)
        if only not in (None, ('ovn', 'fetch')):
            raise ob.BuildError(['%s: submodule: the commit OVN pins is read from the OVN tree, which is not fetched '
                                 'yet; run the step ovn:fetch first' % host.name('ovs_ref')])
        pin = read_pin(host, paths)
        if pin is None:
            raise ob.BuildError(['%s: submodule, but the OVN tree %s pins no ovs commit' % (host.name('ovs_ref'), paths['ovn_src'])])
        sources['ovs'].update(id=pin, fetch=pin)
        want, steps = make_plan(params, sources, paths, read_records(host, paths), jobs)
    run_steps(host, select(steps, only), sources, want, paths, done)
    return done


def select(steps, only):
    """The steps of a plan, or only the one named (a (component, step))."""
    return [s for s in steps if only is None or s[:2] == only]


def cpu_count():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def facts_of(host, paths, sources, check_mode):
    versions = installed_versions(host, paths) if not check_mode or os.path.exists(paths['ovn_record']) else {}
    return dict(prefix=paths['prefix'], bindir=paths['bindir'], ovn_ctl=paths['ovn_ctl'], nb_schema=paths['nb_schema'],
                sb_schema=paths['sb_schema'], ovn_version=versions.get('ovn_version'),
                ovs_library_version=versions.get('ovs_library_version'), ovn_commit=sources['ovn']['id'],
                ovs_commit=sources['ovs']['id'], ovs_source_dir=paths['ovs_src'], ovs_build_dir=paths['ovs_build'])


def source_summary(src):
    return dict((key, src.get(key)) for key in ('kind', 'url', 'path', 'ref', 'id', 'reason') if src.get(key) is not None)


def plan(host, params, paths, jobs):
    have = read_records(host, paths)
    sources = resolve_sources(host, params, paths, have)
    want, steps = make_plan(params, sources, paths, have, jobs)
    return have, sources, want, steps


def summary(steps, sources, paths, jobs):
    """changed, plan, commands and steps of a list of steps (planned, or done with their seconds)."""
    lines = describe_steps(steps, sources, paths, jobs)
    entries = []
    for step, line in zip(steps, lines):
        entries.append(dict(component=step[0], step=step[1], line=line))
        if len(step) > 3:
            entries[-1].update(seconds=round(step[3], 1), took=ob.duration(step[3]))
    return dict(changed=bool(steps), plan=lines, steps=entries,
                commands=[command_line(argv, cwd) for step in steps for argv, cwd in step[2]])


def build(module, host, params):
    paths = ob.layout(params)
    jobs = params['jobs'] or cpu_count()
    only = tuple(params['step'].split(':')) if params['step'] else None
    have, sources, want, steps = plan(host, params, paths, jobs)
    result = dict(summary(select(steps, only), sources, paths, jobs),
                  fetch=sorted(set(comp for comp, step, dummy in steps if step == 'fetch')),
                  logs=dict((comp, paths[comp + '_log']) for comp in ob.COMPONENTS))
    if module._diff:
        result['diff'] = dict(before=json.dumps(have['ovn_install'], indent=2, sort_keys=True) + '\n' if have['ovn_install'] else '',
                              after=json.dumps(want['ovn_install'], indent=2, sort_keys=True) + '\n')
    if select(steps, only) and not module.check_mode:
        if not os.path.isdir(paths['workdir']):
            os.makedirs(paths['workdir'])
        # One build at a time per work directory (the hosts of a one-box lab are one machine):
        # whoever waited plans again and finds the work done.
        started = time.time()
        with open(os.path.join(paths['workdir'], '.lock'), 'w') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            result['waited'] = round(time.time() - started, 1)
            dummy, sources, want, steps = plan(host, params, paths, jobs)
            result.update(summary(execute(host, params, sources, paths, jobs, want, steps, only), sources, paths, jobs))
    result.update(ovs=source_summary(sources['ovs']), ovn=source_summary(sources['ovn']),
                  facts=facts_of(host, paths, sources, module.check_mode))
    return result


def main():
    module = AnsibleModule(argument_spec=argument_spec(), supports_check_mode=True)
    params = module.params
    host = Host(module)
    errors = ob.check_options(params, host.name)
    if errors:
        module.fail_json(msg='Invalid OVN build settings: ' + '; '.join(errors), errors=errors)
    if params['inspect']:
        sources, errors = inspect_sources(params, host.name)
        if errors:
            module.fail_json(msg='Invalid OVN build sources: ' + '; '.join(errors), errors=errors)
        module.exit_json(changed=False, sources=sources)
    try:
        result = build(module, host, params)
    except ob.BuildError as exc:
        module.fail_json(msg='Invalid OVN build settings: ' + '; '.join(exc.errors), errors=exc.errors)
    except StepFailed as exc:
        module.fail_json(msg=str(exc), log=exc.log, log_tail=exc.tail)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
