"""Emulator of ``rpm -q``, ``dnf install`` and ``/etc/init.d/openibd`` for tests.

Called by the wrappers next to it as ``doca_emu.py TOOL ARGS...``. State
lives in ``$DOCA_EMU_STATE``: ``installed`` (one package name a line) and
``calls.log`` (every call that changed something; queries write nothing).

Repositories are the ``*.repo`` files in ``$DOCA_EMU_REPOSDIR``; a
repository ``baseurl=file:///DIR`` offers the packages ``DIR/NAME.rpm``. A
package file (in a repository or given as a path) is text: ``Name: NAME``,
``Repo: ID DIR`` (installing it adds repository ID with baseurl DIR, as the
doca-host package does) and ``File: DEST SRC`` (installing copies SRC to DEST,
as doca-extra ships doca-kernel-support). Like dnf, a repository id with a
character outside ``[A-Za-z0-9_.:-]`` is rejected with ``Bad id for repo``
and skipped.
"""
import os
import re
import shutil
import sys

BAD_ID = re.compile(r'[^A-Za-z0-9_.:-]')


def state(name):
    path = os.environ.get('DOCA_EMU_STATE')
    if not path:
        sys.stderr.write('DOCA_EMU_STATE is not set\n')
        sys.exit(2)
    return os.path.join(path, name)


def installed():
    try:
        with open(state('installed')) as handle:
            return [line.strip() for line in handle if line.strip()]
    except (IOError, OSError):
        return []


def log(line):
    with open(state('calls.log'), 'a') as handle:
        handle.write(line + '\n')


def rpm(args):
    if not args or args[0] != '-q':
        sys.stderr.write('rpm emulator: only "rpm -q NAME..." is emulated\n')
        return 2
    have = installed()
    rc = 0
    for name in args[1:]:
        if name in have:
            sys.stdout.write(name + '\n')
        else:
            sys.stdout.write('package %s is not installed\n' % name)
            rc = 1
    return rc


def read_repos():
    repos = {}
    reposdir = os.environ.get('DOCA_EMU_REPOSDIR', '/etc/yum.repos.d')
    for name in sorted(os.listdir(reposdir)) if os.path.isdir(reposdir) else []:
        if not name.endswith('.repo'):
            continue
        section = None
        with open(os.path.join(reposdir, name)) as handle:
            for line in handle:
                line = line.strip()
                match = re.match(r'^\[(.*)\]$', line)
                if match:
                    section = match.group(1)
                    repos[section] = {'enabled': '1'}
                elif section and '=' in line:
                    key, value = line.split('=', 1)
                    repos[section][key.strip()] = value.strip()
    good = {}
    for repo_id, repo in repos.items():
        bad = BAD_ID.search(repo_id)
        if bad:
            sys.stderr.write('Bad id for repo: %s, byte = %s %d\n' % (repo_id, bad.group(0), bad.start()))
            continue
        good[repo_id] = repo
    return good


def read_package(path):
    package = {'name': None, 'repos': [], 'files': []}
    with open(path) as handle:
        for line in handle:
            key, _sep, value = line.partition(':')
            value = value.strip()
            if key == 'Name':
                package['name'] = value
            elif key == 'Repo':
                package['repos'].append(value.split(None, 1))
            elif key == 'File':
                package['files'].append(value.split(None, 1))
    return package


def dnf(args):
    options = [a for a in args if a.startswith('-')]
    words = [a for a in args if not a.startswith('-')]
    if not words or words[0] != 'install':
        sys.stderr.write('dnf emulator: only "dnf install" is emulated\n')
        return 2
    repos = read_repos()
    enabled = set(r for r, repo in repos.items() if repo.get('enabled', '1') == '1')
    for option in options:
        if option.startswith('--disablerepo='):
            value = option.split('=', 1)[1]
            enabled = set() if value == '*' else enabled - set([value])
        elif option.startswith('--enablerepo='):
            value = option.split('=', 1)[1]
            if value not in repos:
                sys.stderr.write("Error: Unknown repo: '%s'\n" % value)
                return 1
            enabled.add(value)
    packages = []
    for spec in words[1:]:
        path = None
        if spec.endswith('.rpm') and os.path.exists(spec):
            path = spec
        else:
            for repo_id in sorted(enabled):
                base = repos[repo_id].get('baseurl', '')
                candidate = os.path.join(base[len('file://'):], spec + '.rpm') if base.startswith('file://') else None
                if candidate and os.path.exists(candidate):
                    path = candidate
                    break
        if path is None:
            sys.stdout.write('No match for argument: %s\n' % spec)
            sys.stderr.write('Error: Unable to find a match: %s\n' % spec)
            return 1
        packages.append(read_package(path))
    have = installed()
    reposdir = os.environ.get('DOCA_EMU_REPOSDIR', '/etc/yum.repos.d')
    for package in packages:
        for repo_id, directory in package['repos']:
            with open(os.path.join(reposdir, repo_id + '.repo'), 'w') as handle:
                handle.write('[%s]\nname=%s\nbaseurl=file://%s\nenabled=1\ngpgcheck=0\n' % (repo_id, repo_id, directory))
        for dest, src in package['files']:
            if not os.path.isdir(os.path.dirname(dest)):
                os.makedirs(os.path.dirname(dest))
            shutil.copy(src, dest)
            os.chmod(dest, 0o755)
        if package['name'] not in have:
            have.append(package['name'])
    with open(state('installed'), 'w') as handle:
        handle.write(''.join(name + '\n' for name in have))
    log('dnf install %s' % ' '.join(p['name'] for p in packages))
    return 0


def openibd(args):
    if args and args[0] in ('start', 'restart', 'stop'):
        log('openibd %s' % args[0])
        return 0
    if args and args[0] == 'status':
        return 0
    sys.stderr.write('Usage: openibd {start|stop|restart|force-restart|force-stop|status}\n')
    return 1


TOOLS = {'rpm': rpm, 'dnf': dnf, 'openibd': openibd}


def main(argv):
    return TOOLS[argv[1]](argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
