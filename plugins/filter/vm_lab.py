# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""vm_lab_image_key: the cache key of the VM lab's guest image."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: vm_lab_image_key
short_description: The cache key of the VM lab's guest image
version_added: 0.3.0
description:
  - A short digest of the suite, mirror, package set and image recipe; the image is rebuilt only when it changes.
options:
  _input:
    description: The packages of the image.
    type: list
    elements: str
    required: true
  suite:
    description: The Debian suite.
    type: str
    required: true
  mirror:
    description: The Debian mirror.
    type: str
    required: true
"""

EXAMPLES = r"""
image: "bookworm-{{ vm_lab_packages | offload.testbed.vm_lab_image_key(suite='bookworm', mirror=vm_lab_mirror) }}.qcow2"
"""

RETURN = r"""
_value:
  description: Sixteen hexadecimal digits.
  type: str
"""

from ansible_collections.offload.testbed.plugins.module_utils.lab.vm import image_key


class FilterModule(object):
    def filters(self):
        return {"vm_lab_image_key": lambda packages, suite, mirror: image_key(suite, mirror, packages)}
