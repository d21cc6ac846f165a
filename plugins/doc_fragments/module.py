# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """What the collection's modules share in their documentation.

    ``offload.testbed.module``: the authors, and the attributes every module
    has (each says in its own words what it does in check and diff mode).
    ``offload.testbed.module.validate``: the options of a module that a role
    first runs to check the request on the host, then to change it.
    """

    DOCUMENTATION = r"""
options: {}
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Can run in check_mode and return the changes it would make (RV(ignore:commands)) without making them.
  diff_mode:
    support: none
    description: Returns no diff.
"""

    VALIDATE = r"""
options:
  validate_only:
    description: Only read the host and check the request; return the problems in RV(errors) and change nothing.
    type: bool
    default: false
  names:
    description:
      - "How the messages call the options, for a caller whose users wrote them under other names (a role passes
        its variables, for example C({pages: dpdk_host_hugepages})); an option without one keeps its own name."
    type: dict
    default: {}
"""
