# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/filter/parsers.py (thin wrappers over the per-tool parsers of module_utils)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.offload.testbed.plugins.filter.parsers import FilterModule
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import PARSER_OF

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures')
FILTER_DIR = os.path.join(ROOT, 'plugins', 'filter')

FILTERS = FilterModule().filters()

EXPECTED_NAMES = set([
    'parse_ethtool_info', 'parse_flint_query', 'parse_flint_psid_mismatch', 'parse_mlxfwmanager', 'parse_mlxfwmanager_xml',
    'parse_devlink_eswitch', 'parse_devlink_eswitch_json', 'parse_devlink_ports', 'parse_devlink_ports_json',
    'parse_grubby_info', 'parse_pmd_rxq_show', 'parse_dump_flows', 'doca_kernel_names', 'expand_siblings', 'cpulist',
    'parse_cpulist',
])

# fixture -> filter that parses it
FIXTURE_FILTERS = {
    'ethtool_i_mlx5e_rep_switchdev.txt': 'parse_ethtool_info',
    'ethtool_i_mlx5_core_legacy.txt': 'parse_ethtool_info',
    'flint_q_bluefield2.txt': 'parse_flint_query',
    'flint_burn_psid_mismatch.txt': 'parse_flint_psid_mismatch',
    'flint_q_cx6lx.txt': 'parse_flint_query',
    'flint_q_fs4_running_differs.txt': 'parse_flint_query',
    'mstflint_i_image_q_cx4lx.txt': 'parse_flint_query',
    'mstflint_cannot_open_device.txt': 'parse_flint_query',
    'mlxfwmanager_query_cx6lx_update_required.txt': 'parse_mlxfwmanager',
    'mlxfwmanager_query_cx3pro_running_differs.txt': 'parse_mlxfwmanager',
    'mlxfwmanager_query_cx5_no_matching_image.txt': 'parse_mlxfwmanager',
    'mlxfwmanager_update_cx3.txt': 'parse_mlxfwmanager',
    'grubby_info_all_fedora37.txt': 'parse_grubby_info',
    'devlink_dev_eswitch_show_two_pfs.txt': 'parse_devlink_eswitch',
    'devlink_dev_eswitch_show_old_iproute2.txt': 'parse_devlink_eswitch',
    'devlink_port_show_mlx5_vf_rep.txt': 'parse_devlink_ports',
    'devlink_port_show_ice_switchdev.txt': 'parse_devlink_ports',
    'ovs_dpctl_dump_flows_offloaded_cx6_tc.txt': 'parse_dump_flows',
    'ovs_dpctl_dump_flows_m_dummy_offload.txt': 'parse_dump_flows',
    'ovs_appctl_pmd_rxq_show_dual_numa.txt': 'parse_pmd_rxq_show',
    'ovs_appctl_pmd_rxq_show_lab_dpdk_one_pmd.txt': 'parse_pmd_rxq_show',
    'ovs_appctl_pmd_rxq_show_lab_dpdk_pmd_core0.txt': 'parse_pmd_rxq_show',
}


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_filter_names():
    assert set(FILTERS) == EXPECTED_NAMES


def test_every_fixture_of_a_parser_with_a_filter_goes_through_the_filter():
    """Parsers that playbooks use have a filter of the same name; those only modules and the bench use
    (dpdk_devbind, hugepages, testpmd) have none, and their fixtures are read in their own tests."""
    with_filter = set(name for name, parser in PARSER_OF.items() if parser.__name__ in FILTERS)
    assert with_filter == set(FIXTURE_FILTERS)
    assert set(FIXTURE_FILTERS) <= set(n for n in os.listdir(FIXTURES) if n.endswith('.txt'))


@pytest.mark.parametrize('name', sorted(FIXTURE_FILTERS))
def test_filter_equals_parser_on_fixture(name):
    filter_name = FIXTURE_FILTERS[name]
    text = fixture(name)
    result = FILTERS[filter_name](text)
    assert result
    assert result == PARSER_OF[name](text)
    assert PARSER_OF[name].__name__ == filter_name


@pytest.mark.parametrize('name', sorted(FIXTURE_FILTERS))
def test_filter_accepts_stdout_lines(name):
    filter_name = FIXTURE_FILTERS[name]
    text = fixture(name)
    assert FILTERS[filter_name](text.splitlines()) == FILTERS[filter_name](text)


def test_filter_values_on_fixtures():
    assert FILTERS['parse_ethtool_info'](fixture('ethtool_i_mlx5_core_legacy.txt'))['psid'] == 'MT_0000000430'
    assert FILTERS['parse_flint_psid_mismatch'](fixture('flint_burn_psid_mismatch.txt'))['flash_psid'] == 'LNV0000000025'
    assert FILTERS['parse_mlxfwmanager'](fixture('mlxfwmanager_query_cx3pro_running_differs.txt'))[0]['fw_running'] == '2.42.5016'
    eswitch = FILTERS['parse_devlink_eswitch'](fixture('devlink_dev_eswitch_show_two_pfs.txt'))
    assert eswitch['pci/0000:08:00.1']['mode'] == 'legacy'
    flows = FILTERS['parse_dump_flows'](fixture('ovs_dpctl_dump_flows_m_dummy_offload.txt'))
    assert (flows[0]['offloaded'], flows[0]['dp']) == ('yes', 'dummy')


@pytest.mark.parametrize('name', sorted(set(FIXTURE_FILTERS.values())))
def test_text_filters_reject_non_text(name):
    with pytest.raises(AnsibleFilterError):
        FILTERS[name](42)
    with pytest.raises(AnsibleFilterError):
        FILTERS[name]([1, 2])


@pytest.mark.parametrize('name', ['parse_ethtool_info', 'parse_devlink_ports', 'parse_dump_flows', 'parse_mlxfwmanager_xml'])
def test_text_filters_on_none_and_empty(name):
    assert FILTERS[name](None) == FILTERS[name]('')


def test_json_filters_accept_text_and_dict():
    data = {'dev': {'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'}}}
    expected = {'pci/0000:08:00.0': {'mode': 'switchdev', 'inline-mode': 'none', 'encap-mode': 'basic'}}
    assert FILTERS['parse_devlink_eswitch_json'](data) == expected
    assert FILTERS['parse_devlink_eswitch_json'](
        '{"dev": {"pci/0000:08:00.0": {"mode": "switchdev", "inline-mode": "none", "encap-mode": "basic"}}}') == expected
    ports = FILTERS['parse_devlink_ports_json']({'port': {'pci/0000:08:00.0/1': {
        'type': 'eth', 'netdev': 'pf0vf0', 'flavour': 'pcivf', 'pfnum': 0, 'vfnum': 0, 'function': {'hw_addr': '00:11:22:33:44:55'}}}})
    assert ports[0]['handle'] == 'pci/0000:08:00.0/1'
    assert ports[0]['hw_addr'] == '00:11:22:33:44:55'
    assert ports[0]['vfnum'] == 0
    with pytest.raises(AnsibleFilterError):
        FILTERS['parse_devlink_ports_json'](3)


def test_doca_kernel_names_filter():
    assert FILTERS['doca_kernel_names']('5.14.0-611.47.1.sl9_7^2.x86_64') == {
        'pack': '5.14.0.611.47.1.sl9.7.2.x86.64',
        'repo_id': 'doca-kernel-5.14.0-611.47.1.sl9_7.2.x86_64',
        'package': 'doca-kernel-5.14.0.611.47.1.sl9.7.2.x86.64',
    }
    for bad in ('', None, 42):
        with pytest.raises(AnsibleFilterError):
            FILTERS['doca_kernel_names'](bad)


def test_cpu_filters():
    siblings = dict((str(cpu), '%d,%d' % (cpu % 32, cpu % 32 + 32)) for cpu in range(64))
    expanded = FILTERS['expand_siblings'](list(range(2, 16)), siblings)
    assert expanded == list(range(2, 16)) + list(range(34, 48))
    assert FILTERS['cpulist'](expanded) == '2-15,34-47'
    assert FILTERS['parse_cpulist']('2-15,34-47') == expanded
    assert FILTERS['parse_cpulist']('') == []
    assert FILTERS['parse_cpulist'](None) == []
    assert FILTERS['cpulist']([]) == ''


@pytest.mark.parametrize('call', [
    lambda: FILTERS['parse_cpulist']('x-y'),
    lambda: FILTERS['parse_cpulist'](5),
    lambda: FILTERS['cpulist'](['x']),
    lambda: FILTERS['expand_siblings']([1], 'not a dict'),
    lambda: FILTERS['expand_siblings'](['x'], {}),
])
def test_cpu_filters_errors(call):
    with pytest.raises(AnsibleFilterError):
        call()


@pytest.mark.parametrize('name', sorted(EXPECTED_NAMES))
def test_filter_doc_sidecar(name):
    path = os.path.join(FILTER_DIR, name + '.yml')
    with open(path) as handle:
        doc = yaml.safe_load(handle)
    assert set(doc) == set(['DOCUMENTATION', 'EXAMPLES', 'RETURN'])
    documentation = doc['DOCUMENTATION']
    assert documentation['name'] == name
    assert documentation['version_added'] == '0.1.0'
    assert documentation['short_description']
    assert documentation['description']
    assert documentation['options']['_input']['required'] is True
    assert 'offload.testbed.' + name in doc['EXAMPLES']
    assert '_value' in doc['RETURN']
