# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure text fixes for DOCA-Host on kernels whose release has ``^`` (the ConnectX-6 Lx reference bench).

``doca-kernel-support`` builds the DOCA kernel packages for the running
kernel. Its ``KVERS_PACK`` line turns only space, ``_`` and ``-`` of the
kernel release into ``.``; a release such as ``5.14.0-611.47.1.sl9_7^2.x86_64``
keeps its ``^`` and rpmbuild stops with ``Illegal char '^'``. The local
repository it leaves behind has the raw release in its id, which dnf rejects
(``Bad id for repo``). These functions rewrite both texts; the module reads
and writes the files.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# Every character outside [A-Za-z0-9.] becomes '.', as doca_kernel_names()['pack'].
KVERS_PACK_FIXED = 'KVERS_PACK="${KVERS//[^A-Za-z0-9.]/.}"'
_KVERS_PACK_RE = re.compile(r'^(?P<indent>[ \t]*)KVERS_PACK[ \t]*=.*$', re.M)
# dnf accepts these characters in a repository id.
_REPO_ID_BAD_RE = re.compile(r'[^A-Za-z0-9_.:-]')
_SECTION_RE = re.compile(r'^\[(?P<id>[^\]]*)\][ \t]*$')


def fix_kvers_pack(text):
    """Return ``(fixed_text, found)``: every ``KVERS_PACK=`` assignment made the fixed one.

    ``found`` is the number of assignments seen; 0 means the script is not
    the one this fix knows and nothing was changed.
    """
    found = len(_KVERS_PACK_RE.findall(text))
    fixed = _KVERS_PACK_RE.sub(lambda m: m.group('indent') + KVERS_PACK_FIXED, text)
    return fixed, found


def bad_repo_id(repo_id):
    """True when dnf would reject the repository id."""
    return bool(_REPO_ID_BAD_RE.search(repo_id))


def repo_ids(text):
    """The section ids of a ``.repo`` file, in order."""
    ids = []
    for line in text.splitlines():
        match = _SECTION_RE.match(line.strip())
        if match:
            ids.append(match.group('id').strip())
    return ids


def fix_repo_text(text, kver, repo_id):
    """Rename the DOCA kernel repository of release ``kver`` to ``repo_id``.

    A section whose id starts with ``doca-kernel`` and that dnf rejects gets
    the id ``repo_id``; in that section the release in ``name=`` loses its bad
    characters too (``baseurl`` keeps the real directory). Other sections are
    untouched. Returns the new text.
    """
    release = repo_id[len('doca-kernel-'):] if repo_id.startswith('doca-kernel-') else repo_id
    out = []
    in_fixed = False
    for line in text.splitlines(True):
        match = _SECTION_RE.match(line.strip())
        if match:
            section = match.group('id').strip()
            in_fixed = section.startswith('doca-kernel') and bad_repo_id(section)
            if in_fixed:
                line = '[%s]%s' % (repo_id, '\n' if line.endswith('\n') else '')
        elif in_fixed and re.match(r'^\s*name\s*=', line):
            line = line.replace(kver, release)
        out.append(line)
    return ''.join(out)


def repo_file_text(repo_id, baseurl):
    """A ``.repo`` file for the local repository ``doca-kernel-support`` filled."""
    release = repo_id[len('doca-kernel-'):] if repo_id.startswith('doca-kernel-') else repo_id
    return '[%s]\nname=DOCA kernel (kernel %s)\nbaseurl=%s\nenabled=1\ngpgcheck=0\n' % (repo_id, release, baseurl)


def dpkg_installed(rc, out):
    """Whether ``dpkg-query -W -f='${Status}\\n' NAME`` says NAME is installed.

    dpkg-query exits 1 (``no packages found matching NAME`` on stderr) for a
    package it never saw, and 0 with ``deinstall ok config-files`` for one
    removed with its configuration kept: only ``... installed`` counts.
    """
    words = out.split()
    return rc == 0 and len(words) == 3 and words[2] == 'installed'


def apt_install_argument(package):
    """The ``apt-get install`` argument of a package: its local file, else its name.

    apt-get takes a file only when the argument looks like a path (it has a
    ``/``), so a relative file name gets ``./`` in front.
    """
    src = package.get('src')
    if not src:
        return package['name']
    return src if '/' in src else './' + src
