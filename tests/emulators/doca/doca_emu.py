"""Emulator of ``rpm -q``, ``dnf install``, ``dpkg-query -W`` and ``apt-get
update``/``install`` for tests (``/etc/init.d/openibd`` is ../mlnx/mlnx_emu.py's).

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

For apt, a package file's ``Source: ID DIR`` line adds
``$DOCA_EMU_APT_SOURCES/ID.list`` (``deb [trusted=yes] file:DIR ./``, as the
doca-host .deb adds its local repository); ``apt-get update`` reads those
sources into ``apt-lists.json`` (``DIR/NAME.deb`` offers NAME), and ``apt-get
install`` knows only those names, like apt (``E: Unable to locate package``).

What the tools print is their recorded real output (tests/emulators/recorded.py,
tests/fixtures/emulated_outputs.yml) with the package names put in: ``rpm -q``
(rpm_q_installed_and_missing_rpm_4_18.txt: an installed package shows with the
version of that recording), dnf's refusals (dnf_install_no_match.txt,
dnf_enablerepo_unknown_repo.txt, dnf_bad_id_for_repo.txt; a successful dnf
install prints nothing here, its transaction table has no recording),
``dpkg-query`` (dpkg_query_W_status_debian12.txt) and ``apt-get``
(apt_get_install_*_debian12.txt).
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import recorded  # noqa: E402  pylint: disable=wrong-import-position

BAD_ID = re.compile(r'[^A-Za-z0-9_.:-]')
RPM_Q = 'rpm_q_installed_and_missing_rpm_4_18.txt'
DNF_NO_MATCH = 'dnf_install_no_match.txt'
DNF_UNKNOWN_REPO = 'dnf_enablerepo_unknown_repo.txt'
DNF_BAD_ID = 'dnf_bad_id_for_repo.txt'
DPKG_QUERY = 'dpkg_query_W_status_debian12.txt'
APT_LOCATE = 'apt_get_install_unable_to_locate_debian12.txt'
APT_FILE = 'apt_get_install_unsupported_file_debian12.txt'


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
        installed_line, missing_line = recorded.lines(RPM_Q)[:2]
        if name in have:
            sys.stdout.write(recorded.fill(installed_line, [('doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64', name)]) + '\n')
        else:
            sys.stdout.write(recorded.fill(missing_line, [('doca-host', name)]) + '\n')
            rc += 1
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
            template = recorded.lines(DNF_BAD_ID)[0]
            sys.stderr.write(recorded.fill(template, [('download.docker.com_linux_centos_docker-ce.xn--repo()-fw7ii8bx78cvkm', repo_id),
                                                      ('(', bad.group(0)), ('51', bad.start())]) + '\n')
            continue
        good[repo_id] = repo
    return good


def read_package(path):
    package = {'name': None, 'repos': [], 'sources': [], 'files': []}
    with open(path) as handle:
        for line in handle:
            key, _sep, value = line.partition(':')
            value = value.strip()
            if key == 'Name':
                package['name'] = value
            elif key == 'Repo':
                package['repos'].append(value.split(None, 1))
            elif key == 'Source':
                package['sources'].append(value.split(None, 1))
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
                sys.stderr.write(recorded.fill(recorded.text(DNF_UNKNOWN_REPO), [("'extras'", "'%s'" % value)]))
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
            no_match, error = recorded.lines(DNF_NO_MATCH)[1:3]
            sys.stdout.write(recorded.fill(no_match, [('munge-devel', spec)]) + '\n')
            sys.stderr.write(recorded.fill(error, [('munge-devel', spec)]) + '\n')
            return 1
        packages.append(read_package(path))
    unpack(packages)
    log('dnf install %s' % ' '.join(p['name'] for p in packages))
    return 0


def unpack(packages):
    """What installing does, for dnf and apt-get alike: repositories (a .repo
    file for dnf, a .list file for apt), shipped files, the package database."""
    have = installed()
    reposdir = os.environ.get('DOCA_EMU_REPOSDIR', '/etc/yum.repos.d')
    sources = os.environ.get('DOCA_EMU_APT_SOURCES', '/etc/apt/sources.list.d')
    for package in packages:
        for repo_id, directory in package['repos']:
            with open(os.path.join(reposdir, repo_id + '.repo'), 'w') as handle:
                handle.write('[%s]\nname=%s\nbaseurl=file://%s\nenabled=1\ngpgcheck=0\n' % (repo_id, repo_id, directory))
        for source_id, directory in package['sources']:
            with open(os.path.join(sources, source_id + '.list'), 'w') as handle:
                handle.write('deb [trusted=yes] file:%s ./\n' % directory)
        for dest, src in package['files']:
            if not os.path.isdir(os.path.dirname(dest)):
                os.makedirs(os.path.dirname(dest))
            shutil.copy(src, dest)
            os.chmod(dest, 0o755)
        if package['name'] not in have:
            have.append(package['name'])
    with open(state('installed'), 'w') as handle:
        handle.write(''.join(name + '\n' for name in have))


def dpkg_query(args):
    """dpkg-query -W -f=FORMAT NAME...: only ${Status} is expanded, as the role asks."""
    fmt = [a for a in args if a.startswith('-f=')]
    names = [a for a in args if not a.startswith('-')]
    if '-W' not in args or len(fmt) != 1 or not names:
        sys.stderr.write('dpkg-query emulator: only "dpkg-query -W -f=FORMAT NAME..." is emulated\n')
        return 2
    template = fmt[0][3:].replace('\\n', '\n')
    have = installed()
    rc = 0
    status, missing = recorded.lines(DPKG_QUERY)[:2]
    for name in names:
        if name in have:
            sys.stdout.write(template.replace('${Status}', status))
        else:
            sys.stderr.write(recorded.fill(missing, [('nosuchpkg-xyz', name)]) + '\n')
            rc = 1
    return rc


def apt_get(args):
    """apt-get update (reads the file: sources into the package lists) and
    apt-get install -y ARG... (a name from those lists, or a .deb path)."""
    words = [a for a in args if not a.startswith('-')]
    lists = state('apt-lists.json')
    if words == ['update']:
        available = {}
        sources = os.environ.get('DOCA_EMU_APT_SOURCES', '/etc/apt/sources.list.d')
        for name in sorted(os.listdir(sources)) if os.path.isdir(sources) else []:
            with open(os.path.join(sources, name)) as handle:
                for line in handle:
                    match = re.match(r'^deb (?:\[[^]]*\] )?file:(\S+) ', line)
                    if match and os.path.isdir(match.group(1)):
                        for deb in sorted(os.listdir(match.group(1))):
                            if deb.endswith('.deb'):
                                available[deb[:-4]] = os.path.join(match.group(1), deb)
        with open(lists, 'w') as handle:
            json.dump(available, handle, sort_keys=True)
        log('apt-get update')
        sys.stdout.write(recorded.lines(APT_LOCATE)[0] + '\n')
        return 0
    if not words or words[0] != 'install' or '-y' not in args:
        sys.stderr.write('apt-get emulator: only "apt-get update" and "apt-get install -y" are emulated\n')
        return 2
    try:
        with open(lists) as handle:
            available = json.load(handle)
    except (IOError, OSError):
        available = {}
    reading, building, state_line, locate = recorded.lines(APT_LOCATE)[:4]
    sys.stdout.write(reading + '\n')
    packages = []
    for spec in words[1:]:
        if '/' in spec:
            if not (spec.endswith('.deb') and os.path.exists(spec)):
                sys.stderr.write(recorded.fill(recorded.lines(APT_FILE)[1], [('/tmp/nosuch.txt', spec)]) + '\n')
                return 100
            path = spec
        elif spec in available:
            path = available[spec]
        else:
            sys.stdout.write('%s\n%s\n' % (building, state_line))
            sys.stderr.write(recorded.fill(locate, [('nosuchpkg-xyz', spec)]) + '\n')
            return 100
        packages.append(read_package(path))
    sys.stdout.write('%s\n%s\n' % (building, state_line))
    unpack(packages)
    log('apt-get install %s' % ' '.join(p['name'] for p in packages))
    return 0


TOOLS = {'rpm': rpm, 'dnf': dnf, 'dpkg-query': dpkg_query, 'apt-get': apt_get}


def main(argv):
    return TOOLS[argv[1]](argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
