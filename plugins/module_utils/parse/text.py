# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Small helpers the parsers of tool outputs share.

The parsers (``ethtool.py``, ``flint.py``, ``mlxfwmanager.py``,
``devlink.py``, ``grubby.py``, ``ovs_appctl.py``, ``ovs_dpctl.py``,
``ovs_ofctl.py``, ``ip.py``) take the text a tool printed and return plain
Python; none of them runs a command. These helpers split that text and
clean its values.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


NOT_AVAILABLE = ('N/A', 'NA', 'NOT AVAIL', '')


def lines(text):
    """Split text (or a list of lines, as ``stdout_lines``) into lines; ``None`` gives no lines."""
    if text is None:
        return []
    if isinstance(text, (list, tuple)):
        text = '\n'.join(text)
    return text.splitlines()


def na(value):
    """Strip a value; ``N/A`` and empty become ``None``."""
    if value is None:
        return None
    value = value.strip()
    if value.upper() in NOT_AVAILABLE:
        return None
    return value


def to_int(value):
    """An int from an int or a decimal string, else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if value is None:
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def norm_key(key):
    """``FW Version(Running)`` -> ``fw_version_running``."""
    return re.sub(r'[^a-z0-9]+', '_', key.strip().lower()).strip('_')


def pairs(tokens):
    """``['mode', 'switchdev', 'inline-mode', 'none']`` -> dict.

    A trailing key without a value maps to ``None``.
    """
    result = {}
    for i in range(0, len(tokens), 2):
        result[tokens[i]] = tokens[i + 1] if i + 1 < len(tokens) else None
    return result
