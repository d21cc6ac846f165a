# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the nic_firmware role."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shlex
import sys


def nic_firmware_rerun_command(extra_vars, argv=None):
    """The ansible-playbook command line of this run with ``-e NAME=VALUE`` added for each of ``extra_vars``.

    ``argv`` is the command line (default: the controller's own, ``sys.argv``,
    which the play runs in); a run not started by ansible-playbook gives
    ``ansible-playbook PLAYBOOK`` for the playbook to fill in.
    """
    argv = list(sys.argv if argv is None else argv)
    if not argv or os.path.basename(argv[0]) != 'ansible-playbook':
        argv = ['ansible-playbook', 'PLAYBOOK']
    words = ['ansible-playbook'] + argv[1:]
    for name, value in sorted((extra_vars or {}).items()):
        words += ['-e', '%s=%s' % (name, str(value).lower() if isinstance(value, bool) else value)]
    return shlex.join(words)


class FilterModule(object):
    """offload.testbed nic_firmware filters."""

    def filters(self):
        return {'nic_firmware_rerun_command': nic_firmware_rerun_command}
