# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Open vSwitch and OVN release archives the ovn_build role builds from:
where they are found, and the proof that each is the release it is named for.

One resolver, used by ``make sources`` (tools/ovn_sources.py), the OVN build
tests and the virtual inventory (lookup ``offload.testbed.ovn_build_archive``,
so ``make lab OVN=source`` and molecule ``ovn_source`` too). An archive is
looked for

1. where the user says: ``OFFLOAD_TESTBED_SOURCES``, a directory holding it,
   or a URL base under which it lies (``file:///srv/mirror/``,
   ``https://mirror.example/sources/``), fetched into the cache;
2. else in ``../shared/sources`` beside the checkout;
3. else in the cache, ``.tmp/sources`` of the checkout, where it was
   downloaded before from its upstream URL (GitHub's archive of the tag).

Whatever the place, the file must be the release (see docs/ovn.md): its
SHA-256 is the one of the archive this project was built and tested with, or
its tree is: the content digest (``content_digest`` of module_utils
ovn_build: the sorted paths without the top directory, their executable bit
and the SHA-256 of each file) is the one of that archive. A ``git archive``
of the same tag made elsewhere (GitHub's: another top directory, another
compression, other bytes) has the same tree; ``git archive`` also writes the
commit into the pax header, and a header naming another commit is refused.
Controller side only: nothing here runs on a managed host.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import tarfile

from ansible.module_utils.six.moves.http_client import HTTPException
from ansible.module_utils.urls import ConnectionError as UrlsConnectionError, open_url
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_build as ob
from ansible_collections.offload.testbed.plugins.module_utils.host.files import read_text

ENV = 'OFFLOAD_TESTBED_SOURCES'
SHARED = os.path.join('..', 'shared', 'sources')
CACHE = os.path.join('.tmp', 'sources')
EXAMPLES = 'file:///srv/mirror/ or https://mirror.example/sources/'

# The releases of the ConnectX-6 Lx reference bench (OVN v24.03.8 pins Open vSwitch v3.3.8 in its ovs submodule).
# sha256 and tree were measured on the archives made with `git archive --prefix=NAME-VERSION/ TAG` that this
# project builds with (../shared/sources); commit is the tag's, which git archive wrote into their pax headers.
RELEASES = {
    'openvswitch-3.3.8.tar.gz': dict(
        title='Open vSwitch v3.3.8', tag='v3.3.8', repository='https://github.com/openvswitch/ovs',
        url='https://github.com/openvswitch/ovs/archive/refs/tags/v3.3.8.tar.gz',
        commit='bc99439446a1c0b94498ad7ea44f3d1d933ead90',
        sha256='f155f93a6f06f4591a39f7c4a7766cc1313104c1fc22de97a9daebb3d85f58df',
        tree='ff564cbb51af2b057dcadb669a96b9246b8c3ce8ae681b0cd3ec55b8d371929c'),
    'ovn-24.03.8.tar.gz': dict(
        title='OVN v24.03.8', tag='v24.03.8', repository='https://github.com/ovn-org/ovn',
        url='https://github.com/ovn-org/ovn/archive/refs/tags/v24.03.8.tar.gz',
        commit='697058648fdecfb67d7f3a11513e27af9c5d49a6',
        sha256='121b1a42864dc941b992041ee41b1071373e39e45d666f5aadcd01374980a6bc',
        tree='2ffc8ed63c030493fc6decb89c937edc16b9f911b4a7db8e6009aa4fe43e5adb'),
}
ARCHIVES = tuple(sorted(RELEASES))  # openvswitch first, then ovn

_DOWNLOAD_ERRORS = (IOError, OSError, ValueError, HTTPException, UrlsConnectionError)


class SourceError(Exception):
    """Archives that cannot be had, or are not their release: one message, which says what, from where, and the way
    to give them (``OFFLOAD_TESTBED_SOURCES``)."""

    def __init__(self, problems):
        self.problems = list(problems)
        names = [name for name, dummy in self.problems]
        one = len(names) == 1
        super(SourceError, self).__init__(
            '%s. Give %s through %s: a directory that holds %s, or a URL base under which %s (%s)'
            % ('; '.join('%s: %s' % problem for problem in self.problems), 'it' if one else 'them', ENV,
               ' and '.join(names), 'it lies' if one else 'they lie', EXAMPLES))


def check(path, release):
    """(how, problem): ``sha256`` or ``tree`` when the file is the release, else None and what is wrong with it."""
    sha = ob.file_sha256(path)
    if sha == release['sha256']:
        return 'sha256', None
    try:
        with tarfile.open(path) as tar:
            commit = (tar.pax_headers or {}).get('comment', '')
        tree = ob.content_digest(ob.archive_entries(path))
    except (tarfile.TarError, EOFError, IOError, OSError) as exc:
        return None, 'it is not a tar archive (%s; SHA-256 %s, not %s)' % (exc, sha, release['sha256'])
    if ob.is_commit(commit) and commit != release['commit']:
        return None, ('it is a git archive of commit %s, not of %s %s (%s)'
                      % (commit, release['repository'], release['tag'], release['commit']))
    if tree != release['tree']:
        return None, ('neither its bytes nor its tree are those of %s: SHA-256 %s, not %s; tree digest %s, not %s'
                      % (release['title'], sha, release['sha256'], tree, release['tree']))
    return 'tree', None


def _local(name, path, release, origin):
    if not os.path.isfile(path):
        return None, '%s (%s) is not there' % (path, origin)
    how, problem = check(path, release)
    if problem:
        return None, '%s (%s) is not %s: %s' % (path, origin, release['title'], problem)
    return dict(name=name, path=path, origin=origin, verified=how), None


def _cached(name, cache):
    """The archive in the cache, when a former download left it verified (its SHA-256 noted beside it)."""
    path = os.path.join(cache, name)
    noted = read_text(path + '.sha256')
    if not os.path.isfile(path) or not noted:
        return None
    how, sha = (noted.split() + ['', ''])[:2]
    if how not in ('sha256', 'tree') or ob.file_sha256(path) != sha:
        return None
    return dict(name=name, path=path, origin='the cache %s' % cache, verified=how)


def _download(name, url, cache, release, origin):
    """Fetch ``url`` into the cache and check it; a file that fails the check is not kept."""
    if not os.path.isdir(cache):
        os.makedirs(cache)
    part = os.path.join(cache, '.%s.%d.part' % (name, os.getpid()))
    try:
        response = open_url(url, timeout=120, http_agent='offload.testbed ovn_sources')
        with open(part, 'wb') as handle:
            shutil.copyfileobj(response, handle, 1 << 20)
    except _DOWNLOAD_ERRORS as exc:
        _remove(part)
        return None, 'the download from %s (%s) failed: %s' % (url, origin, exc)
    how, problem = check(part, release)
    if problem:
        _remove(part)
        return None, 'the file downloaded from %s (%s) is not %s: %s' % (url, origin, release['title'], problem)
    with open(part + '.sha256', 'w') as handle:
        handle.write('%s %s\n' % (how, ob.file_sha256(part)))
    os.rename(part + '.sha256', os.path.join(cache, name + '.sha256'))
    os.rename(part, os.path.join(cache, name))
    return dict(name=name, path=os.path.join(cache, name), origin='%s, from %s' % (origin, url), verified=how), None


def _remove(path):
    if os.path.exists(path):
        os.remove(path)


def resolve(name, checkout, environ=None, releases=None):
    """(found, problem) of one archive: found is dict(name, path, origin, verified) or None."""
    release = (releases or RELEASES).get(name)
    if release is None:
        return None, 'none of the release archives known here (%s)' % ', '.join(sorted(releases or RELEASES))
    given = ((os.environ if environ is None else environ).get(ENV) or '').strip()
    if given and '://' not in given:
        return _local(name, os.path.join(given, name), release, '%s=%s' % (ENV, given))
    cache = os.path.join(checkout, CACHE)
    if given:
        url, origin = given.rstrip('/') + '/' + name, '%s=%s' % (ENV, given)
    else:
        shared = os.path.normpath(os.path.join(checkout, SHARED))
        if os.path.exists(os.path.join(shared, name)):
            return _local(name, os.path.join(shared, name), release, '../shared/sources')
        url, origin = release['url'], 'its upstream; no %s, nothing in %s' % (ENV, shared)
    found = _cached(name, cache)
    return (found, None) if found else _download(name, url, cache, release, origin)


def find(names, checkout, environ=None, releases=None):
    """[found] of each archive, in order; SourceError with every problem at once."""
    found, problems = [], []
    for name in names:
        each, problem = resolve(name, checkout, environ, releases)
        if problem:
            problems.append((name, problem))
        found.append(each)
    if problems:
        raise SourceError(problems)
    return found
