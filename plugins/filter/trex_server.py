# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the trex_server role: thin wrappers of module_utils.generator.trex_cfg."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.offload.testbed.plugins.module_utils.generator import trex_cfg


def trex_server_errors(instances, mode="trex", isolated_cpus=None, prefix="trex_server_", archive=None, settings=None):
    """Errors of the declared instances and of the role's settings (``bind``, ``start_timeout``), each naming the role variable at fault."""
    if settings is not None and not isinstance(settings, dict):
        raise AnsibleFilterError("trex_server_errors: settings must be a dict with bind and start_timeout, got %s" % type(settings).__name__)
    return trex_cfg.validate(instances, mode=mode, isolated_cpus=isolated_cpus, prefix=prefix, archive=archive, settings=settings)


def trex_server_cfg(instance):
    """The trex_cfg.yaml document of one instance."""
    if not isinstance(instance, dict):
        raise AnsibleFilterError("trex_server_cfg expects an instance dict, got %s" % type(instance).__name__)
    errors = trex_cfg.validate([instance], mode="trex", isolated_cpus=None)
    errors = [error for error in errors if "isolated_cpus" not in error]
    if errors:
        raise AnsibleFilterError("trex_server_cfg: " + "; ".join(errors))
    return trex_cfg.render(instance)


def trex_server_command(instance, mode, instances, config_dir="/etc", python="python3", bind="127.0.0.1"):
    """Command line of one instance: ``./t-rex-64 -i --cfg FILE`` or ``PYTHON -m softgen ...``."""
    if not isinstance(instance, dict) or not isinstance(instances, list):
        raise AnsibleFilterError("trex_server_command expects an instance dict and the list of instances")
    if mode == "trex":
        return trex_cfg.trex_argv(instance, trex_cfg.config_path(instance, instances, config_dir))
    if mode == "softgen":
        return trex_cfg.softgen_argv(instance, python, bind)
    raise AnsibleFilterError("trex_server_command: mode must be trex or softgen, not %r" % (mode,))


def trex_server_config_path(instance, instances, config_dir="/etc"):
    """``/etc/trex_cfg.yaml`` for a single instance, ``/etc/trex_cfg_NAME.yaml`` for several."""
    return trex_cfg.config_path(instance, instances, config_dir)


class FilterModule(object):
    """offload.testbed trex_server filters."""

    def filters(self):
        return {"trex_server_errors": trex_server_errors, "trex_server_cfg": trex_server_cfg,
                "trex_server_command": trex_server_command, "trex_server_config_path": trex_server_config_path}
