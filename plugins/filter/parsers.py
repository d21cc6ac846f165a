# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters that wrap the tool output parsers of ``module_utils`` for playbooks.

One module there per tool (``ethtool.py``, ``flint.py``, ``mlxfwmanager.py``,
``devlink.py``, ``grubby.py``, ``ovs_appctl.py``, ``ovs_dpctl.py``), the DOCA
kernel package names (``doca_kernel.py``) and the cpulists (``cpulist.py``).
Each filter is documented in the ``<name>.yml`` file next to this one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.module_utils.host import cpulist as cpulists
from ansible_collections.offload.testbed.plugins.module_utils.prepare import doca_kernel
from ansible_collections.offload.testbed.plugins.module_utils.parse.devlink import (
    parse_devlink_eswitch, parse_devlink_eswitch_json, parse_devlink_ports, parse_devlink_ports_json)
from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import parse_ethtool_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.flint import parse_flint_psid_mismatch, parse_flint_query
from ansible_collections.offload.testbed.plugins.module_utils.parse.grubby import parse_grubby_info
from ansible_collections.offload.testbed.plugins.module_utils.parse.mlxfwmanager import parse_mlxfwmanager, parse_mlxfwmanager_xml
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_appctl import parse_pmd_rxq_show
from ansible_collections.offload.testbed.plugins.module_utils.parse.ovs_dpctl import parse_dump_flows


def _text(name, value):
    """Accept a string, ``stdout_lines`` (a list of strings) or ``None``."""
    if value is None:
        return ''
    if isinstance(value, (list, tuple)):
        if not all(isinstance(item, str) for item in value):
            raise AnsibleFilterError('%s expects a string or a list of strings' % name)
        return '\n'.join(value)
    if not isinstance(value, str):
        raise AnsibleFilterError('%s expects a string, got %s' % (name, type(value).__name__))
    return value


def _text_filter(name, func):
    def wrapper(data):
        try:
            return func(_text(name, data))
        except ValueError as exc:
            raise AnsibleFilterError('%s: %s' % (name, exc)) from exc

    wrapper.__name__ = name
    wrapper.__doc__ = func.__doc__
    return wrapper


def _json_filter(name, func):
    def wrapper(data):
        if not isinstance(data, dict):
            data = _text(name, data)
        return func(data)

    wrapper.__name__ = name
    wrapper.__doc__ = func.__doc__
    return wrapper


def doca_kernel_names(kver):
    """See :func:`doca_kernel.doca_kernel_names`."""
    if not isinstance(kver, str):
        raise AnsibleFilterError('doca_kernel_names expects a kernel release string')
    try:
        return doca_kernel.doca_kernel_names(kver)
    except ValueError as exc:
        raise AnsibleFilterError('doca_kernel_names: %s' % exc) from exc


def expand_siblings(cpus, siblings):
    """See :func:`cpulist.expand_siblings`; returns a sorted list."""
    if not isinstance(siblings, dict):
        raise AnsibleFilterError('expand_siblings expects a dict of CPU -> thread siblings')
    try:
        return sorted(cpulists.expand_siblings(cpus, siblings))
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError('expand_siblings: %s' % exc) from exc


def cpulist(cpus):
    """See :func:`cpulist.cpulist`."""
    try:
        return cpulists.cpulist(cpus)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError('cpulist: %s' % exc) from exc


def parse_cpulist(text):
    """See :func:`cpulist.parse_cpulist`; returns a sorted list."""
    if text is None:
        text = ''
    if not isinstance(text, str):
        raise AnsibleFilterError('parse_cpulist expects a string')
    try:
        return sorted(cpulists.parse_cpulist(text))
    except ValueError as exc:
        raise AnsibleFilterError('parse_cpulist: %s' % exc) from exc


# filter name -> the parser it wraps (text or stdout_lines in)
TEXT_FILTERS = dict((func.__name__, func) for func in (
    parse_ethtool_info,
    parse_flint_query,
    parse_flint_psid_mismatch,
    parse_mlxfwmanager,
    parse_mlxfwmanager_xml,
    parse_devlink_eswitch,
    parse_devlink_ports,
    parse_grubby_info,
    parse_pmd_rxq_show,
    parse_dump_flows,
))
# filter name -> the parser it wraps (JSON text or the decoded dict in)
JSON_FILTERS = dict((func.__name__, func) for func in (
    parse_devlink_eswitch_json,
    parse_devlink_ports_json,
))


class FilterModule(object):
    """Host-fact parsers and name helpers."""

    def filters(self):
        result = dict((name, _text_filter(name, func)) for name, func in TEXT_FILTERS.items())
        result.update((name, _json_filter(name, func)) for name, func in JSON_FILTERS.items())
        result.update({
            'doca_kernel_names': doca_kernel_names,
            'expand_siblings': expand_siblings,
            'cpulist': cpulist,
            'parse_cpulist': parse_cpulist,
        })
        return result
