# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parsers of ``flint`` (and ``mstflint``) outputs: ``flint -d DEV q`` and the
PSID mismatch error of ``flint -d DEV -i IMAGE burn``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.offload.testbed.plugins.module_utils.parse.text import lines, na, norm_key

_FLINT_LINE_RE = re.compile(r'^(?P<key>[A-Za-z][^:]*?):\s*(?P<value>.*)$')
_FLINT_MISMATCH_RE = re.compile(r'PSID on flash \((?P<flash>[^)]*)\) differs from the PSID in the given image \((?P<image>[^)]*)\)')


def parse_flint_query(text):
    """Parse ``flint -d DEV q`` (``mstflint`` prints the same layout).

    Returns a dict with every ``Key: value`` line under a normalized key
    (``FW Version`` -> ``fw_version``, ``FW Version(Running)`` ->
    ``fw_version_running``). ``fw_version``, ``psid`` and ``product_version``
    are always present (``None`` when absent). Continuation lines (as under
    ``Rom Info``) make that key a list. ``Base GUID``/``Base MAC`` rows of the
    ``UID GuidsNumber`` table give ``base_guid`` and ``base_guid_count`` (and
    ``base_mac``/``base_mac_count``; ``None`` for the ``N/A`` of an image).
    ``-E-`` error lines go to ``errors``.
    """
    result = {'fw_version': None, 'psid': None, 'product_version': None, 'errors': []}
    last = None
    for line in lines(text):
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith('-E-'):
            result['errors'].append(stripped[3:].strip())
            continue
        if line[0].isspace():
            if last is not None and stripped:
                current = result.get(last)
                if not isinstance(current, list):
                    current = [] if current is None else [current]
                current.append(stripped)
                result[last] = current
            continue
        match = _FLINT_LINE_RE.match(line)
        if not match:
            last = None
            continue
        last = norm_key(match.group('key'))
        value = na(match.group('value'))
        words = value.split() if value else []
        if last in ('base_guid', 'base_mac') and len(words) == 2 and words[1].isdigit():
            value = na(words[0])
            result[last + '_count'] = int(words[1])
        result[last] = value
    return result


def parse_flint_psid_mismatch(text):
    """Find flint's ``PSID mismatch`` error (burning an image for another PSID).

    Returns ``{"flash_psid", "image_psid"}`` or ``None`` when the text has no
    such error. A Lenovo card shows ``LNV...`` on flash and an NVIDIA image
    ``MT_...``.
    """
    for line in lines(text):
        match = _FLINT_MISMATCH_RE.search(line)
        if match:
            return {'flash_psid': na(match.group('flash')), 'image_psid': na(match.group('image'))}
    return None
