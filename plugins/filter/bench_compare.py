# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of playbooks/compare.yml: thin wrappers of plugin_utils.bench.compare."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.plugin_utils.bench import compare as bench_compare


def bench_compare_plan(variants=None, datapaths=None, inventory_other_config=None, inventory_hw_offload=None, pair=None,
                       inventory_pmd_cpu_mask=None):
    """The variants compare.yml benchmarks, what the ovs role gets for each, the restore, and the errors."""
    return bench_compare.plan(variants, datapaths, inventory_other_config, inventory_hw_offload, pair, inventory_pmd_cpu_mask)


class FilterModule(object):
    """offload.testbed compare filters."""

    def filters(self):
        return {"bench_compare_plan": bench_compare_plan}
