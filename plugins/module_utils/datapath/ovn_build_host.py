# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""OVN built from source against an Open vSwitch tree: the part that reads and writes the host.

``offload.testbed.ovn_build`` (the module) checks its options and calls
:func:`build` (or :func:`inspect_sources` for ``inspect``). This file reads
the sources and the records on the host (``git ls-remote``, the running Open
vSwitch, the archives and directories), plans with the pure part
(``datapath/ovn_build.py``), runs the steps into their logs one build at a
time per work directory, and writes the records that make a second run skip
the work.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fcntl
import json
import os
import time

from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, command_line
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob


class Host(object):
    """The module's reads and writes of the host, so that the steps stay plain."""

    def __init__(self, module):
        self.module = module
        self.runner = HostRunner(module)
        self.name = validate.Names(prefix=module.params['variable_prefix'])

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


def link_step(params, paths, name):
    """ovn-ctl loads PREFIX/share/openvswitch/scripts/ovs-lib: link the host's when the prefix has none."""
    if params['install_ovs'] or os.path.lexists(paths['ovs_lib_link']):
        return []
    if not os.path.exists(params['ovs_lib']):
        raise ob.BuildError(['%s: %s does not exist; ovn-ctl needs the ovs-lib (and ovsdb-server) of an installed Open '
                             'vSwitch: install Open vSwitch, point %s at its ovs-lib, or set %s'
                             % (name('ovs_lib'), params['ovs_lib'], name('ovs_lib'), name('install_ovs'))])
    return [('ovn', 'link', [(['mkdir', '-p', os.path.dirname(paths['ovs_lib_link'])], None),
                             (['ln', '-sfn', params['ovs_lib'], paths['ovs_lib_link']], None)])]


def make_plan(params, sources, paths, have, jobs, name):
    want = ob.wanted_records(params, sources, paths)
    steps = ob.plan_steps(params, sources, ob.decide(want, have), paths, jobs)
    return want, steps + link_step(params, paths, name)


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
        want, steps = make_plan(params, sources, paths, read_records(host, paths), jobs, host.name)
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
    want, steps = make_plan(params, sources, paths, have, jobs, host.name)
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
