# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Names ``doca-kernel-support`` gives the packages and the repository it
builds for a kernel release.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


def doca_kernel_names(kver):
    """Names ``doca-kernel-support`` gives a kernel release (``uname -r``).

    ``pack`` replaces every character outside ``[A-Za-z0-9.]`` with ``.``
    (what the fixed ``KVERS_PACK`` line produces, so ``^``, ``+``, ``~`` are
    handled as well as ``_`` and ``-``); ``repo_id`` is ``doca-kernel-`` plus
    the release with only characters outside ``[A-Za-z0-9._-]`` replaced;
    ``package`` is ``doca-kernel-`` plus ``pack``.
    """
    if kver is None or not str(kver).strip():
        raise ValueError('empty kernel release')
    kver = str(kver).strip()
    pack = re.sub(r'[^A-Za-z0-9.]', '.', kver)
    return {
        'pack': pack,
        'repo_id': 'doca-kernel-' + re.sub(r'[^A-Za-z0-9._-]', '.', kver),
        'package': 'doca-kernel-' + pack,
    }
