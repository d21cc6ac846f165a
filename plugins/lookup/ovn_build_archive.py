# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
name: ovn_build_archive
short_description: Find, or download and check, the Open vSwitch and OVN release archives the ovn_build role builds from
version_added: 0.3.0
author:
  - offload.testbed developers (@offload-testbed)
description:
  - Returns the path on the controller of each release archive named (V(openvswitch-3.3.8.tar.gz),
    V(ovn-24.03.8.tar.gz)), for C(ovn_build_ovs_archive) and C(ovn_build_ovn_archive) of the ovn_build role.
  - Looks where the environment variable C(OFFLOAD_TESTBED_SOURCES) says (a directory, or a URL base such as
    C(file:///srv/mirror/) or C(https://mirror.example/sources/), fetched into the cache), else in
    C(../shared/sources) beside O(checkout), else in the cache C(.tmp/sources) of O(checkout), else downloads the
    archive from its upstream URL (GitHub's archive of the tag) into that cache.
  - Every archive is checked, wherever it comes from, against the sums kept in the collection
    (C(plugins/module_utils/datapath/ovn_sources.py)) - its SHA-256, or the digest of its tree, so that another
    C(git archive) of the same tag passes - and a git commit in its pax header must be the tag's.
  - Fails with one message that names each archive that cannot be had, where it was looked for, and
    C(OFFLOAD_TESTBED_SOURCES), the way to give it.
options:
  _terms:
    description: Names of the release archives.
    type: list
    elements: str
    required: true
  checkout:
    description: The checkout of the collection, beside which C(../shared/sources) is and in which the cache C(.tmp/sources) is.
    type: path
    required: true
notes:
  - The controller needs the network only when the archive is in none of the places above.
  - Where the archives come from and how they are checked - docs/ovn.md of the collection.
"""

EXAMPLES = r"""
- name: Build OVN from the release archives, wherever they are found
  ansible.builtin.include_role:
    name: offload.testbed.ovn_build
  vars:
    ovn_build_ovs_archive: "{{ lookup('offload.testbed.ovn_build_archive', 'openvswitch-3.3.8.tar.gz', checkout=playbook_dir ~ '/..') }}"
    ovn_build_ovn_archive: "{{ lookup('offload.testbed.ovn_build_archive', 'ovn-24.03.8.tar.gz', checkout=playbook_dir ~ '/..') }}"
"""

RETURN = r"""
_raw:
  description: The path on the controller of each archive, checked.
  type: list
  elements: path
"""

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible_collections.offload.testbed.plugins.module_utils.datapath import ovn_sources


class LookupModule(LookupBase):

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        try:
            found = ovn_sources.find(terms, self.get_option('checkout'))
        except ovn_sources.SourceError as exc:
            raise AnsibleLookupError(str(exc))
        return [each['path'] for each in found]
