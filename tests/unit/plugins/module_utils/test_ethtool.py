# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Unit tests for plugins/module_utils/parse/ethtool.py: ``ethtool -i`` and ``ethtool -k``.

Which texts are captured and which are variants: see tool_fixtures.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.parse.ethtool import OFFLOAD_FEATURES, parse_ethtool_features, parse_ethtool_info
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.tool_fixtures import fixture, lab_fixture


def test_ethtool_info_switchdev_rep():
    assert parse_ethtool_info(fixture('ethtool_i_mlx5e_rep_switchdev.txt')) == {
        'driver': 'mlx5e_rep',
        'version': '5.9.0',
        'firmware_version': '22.28.1002',
        'psid': 'MT_0000000430',
        'bus_info': '0000:b3:00.0',
    }


def test_ethtool_info_legacy():
    assert parse_ethtool_info(fixture('ethtool_i_mlx5_core_legacy.txt')) == {
        'driver': 'mlx5_core',
        'version': '5.0-0',
        'firmware_version': '22.29.1016',
        'psid': 'MT_0000000430',
        'bus_info': '0000:b3:00.0',
    }


def test_ethtool_info_without_psid_suffix():
    # Variant of ethtool_i_mlx5_core_legacy.txt with the (PSID) suffix removed.
    text = fixture('ethtool_i_mlx5_core_legacy.txt').replace(' (MT_0000000430)', '')
    info = parse_ethtool_info(text)
    assert info['firmware_version'] == '22.29.1016'
    assert info['psid'] is None
    assert info['driver'] == 'mlx5_core'


@pytest.mark.parametrize('psid', ['LNV0000000025', 'DEL0000000016', 'HPE0000000009', 'MT_0000000723'])
def test_ethtool_info_oem_psid(psid):
    # Variant of the legacy fixture with an OEM PSID in place of MT_0000000430.
    text = fixture('ethtool_i_mlx5_core_legacy.txt').replace('MT_0000000430', psid)
    info = parse_ethtool_info(text)
    assert info['psid'] == psid
    assert info['firmware_version'] == '22.29.1016'


def test_ethtool_info_list_of_lines():
    lines = fixture('ethtool_i_mlx5e_rep_switchdev.txt').splitlines()
    assert parse_ethtool_info(lines)['driver'] == 'mlx5e_rep'


@pytest.mark.parametrize('text', ['', None, 'garbage\nno colon here\n'])
def test_ethtool_info_empty_or_garbage(text):
    assert parse_ethtool_info(text) == {
        'driver': None, 'version': None, 'firmware_version': None, 'psid': None, 'bus_info': None,
    }


# -------------------------------------------------------------------- ethtool -k


def test_ethtool_features_after_offloads_off():
    feats = parse_ethtool_features(lab_fixture("built_ethtool_ns.txt"))
    assert feats["tx-checksumming"] is False and feats["tcp-segmentation-offload"] is False
    assert feats["generic-segmentation-offload"] is False
    assert "rx-checksumming" in feats
    assert not [line for line in feats if line.startswith("Features for")]


@pytest.mark.parametrize("name", ["built_ethtool_mgt.txt", "built_ethtool_peer.txt", "built_ethtool_ns.txt"])
def test_ethtool_features_name_every_offload_the_lab_turns_off(name):
    feats = parse_ethtool_features(lab_fixture(name))
    assert set(OFFLOAD_FEATURES.values()) <= set(feats)


def test_ethtool_features_fixed_and_garbage():
    text = "Features for eth0:\nrx-checksumming: on [fixed]\ntx-lockless: off [fixed]\nhighdma: not-a-state\nno colon\n"
    assert parse_ethtool_features(text) == {"rx-checksumming": True, "tx-lockless": False}
    assert parse_ethtool_features(None) == {}
