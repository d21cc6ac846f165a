# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a module runs a command on its host.

A module makes one ``HostRunner`` and runs every command through it:

- ``read(argv)`` runs a command that only looks at the host: it runs in
  check mode too and is not listed in ``commands``;
- ``change(argv)`` runs a command that changes the host: it is listed in
  ``commands`` and, while the runner is ``dry`` (check mode, or a module's
  planning pass), only listed;
- ``write(path, value)`` writes a line to a file (sysfs, procfs), listed as
  ``echo <value> > <path>`` and skipped while ``dry``; ``note(text)`` lists
  any other change made without a command and says whether to make it now;
- a command that fails stops the module with one message: the command line,
  its exit status and the last lines of what it printed (``failure``).

``commands`` is what the module returns as its ``commands``: the changes in
the order they were (or would be) made, each as a shell would read it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shlex

# How many of a failed command's last output lines its failure message quotes.
TAIL_LINES = 20


def command_line(argv, cwd=None):
    """``argv`` as a shell would read it (quoted where it must be); run in ``cwd``: ``(cd CWD && ...)``."""
    line = ' '.join(shlex.quote(str(part)) for part in argv)
    return '(cd %s && %s)' % (shlex.quote(cwd), line) if cwd else line


def tail(text, lines=TAIL_LINES):
    """The last ``lines`` lines of ``text``, stripped."""
    return '\n'.join((text or '').strip().splitlines()[-lines:])


def failure(argv, rc, out, err, cwd=None):
    """The one failure message: ``<command> failed (rc N): <last lines of stderr, else stdout>``."""
    return '%s failed (rc %s): %s' % (command_line(argv, cwd), rc, tail(err) or tail(out))


class HostRunner(object):
    """Runs a module's commands: reads always, changes only when not ``dry``; lists the changes in ``commands``."""

    def __init__(self, module, dry=None, errors=False):
        self.module = module
        self.dry = module.check_mode if dry is None else dry
        # Whether a failure returns ``errors`` ([msg]), for modules that return their errors as a list.
        self.errors = errors
        self.commands = []

    def fail(self, msg, **fields):
        """Stop the module with ``msg``; the changes made (or planned) so far go with it as ``commands``."""
        fields.setdefault('commands', self.commands)
        if self.errors:
            fields.setdefault('errors', [msg])
        self.module.fail_json(msg=msg, **fields)

    def _run(self, argv, check_rc, fields, kwargs):
        rc, out, err = self.module.run_command([str(part) for part in argv], **kwargs)
        if check_rc and rc != 0:
            self.fail(failure(argv, rc, out, err, kwargs.get('cwd')), rc=rc, stdout=out, stderr=err, cmd=command_line(argv, kwargs.get('cwd')), **fields)
        return rc, out, err

    def read(self, argv, check_rc=True, fields=None, **kwargs):
        """``(rc, stdout, stderr)`` of a command that changes nothing; it runs in check mode too."""
        return self._run(argv, check_rc, fields or {}, kwargs)

    def change(self, argv, check_rc=True, fields=None, **kwargs):
        """``(rc, stdout, stderr)`` of a command that changes the host: listed, and run unless ``dry`` (then ``(0, '', '')``).

        ``kwargs`` go to ``run_command`` (``cwd``, ``data``, ``environ_update``).
        """
        self.commands.append(command_line(argv, kwargs.get('cwd')))
        if self.dry:
            return 0, '', ''
        return self._run(argv, check_rc, fields or {}, kwargs)

    def note(self, text):
        """List a change made without a command (``echo 2 > sriov_numvfs``); True when it is to be made now."""
        self.commands.append(text)
        return not self.dry

    def write(self, path, value, **fields):
        """Write ``value`` and a newline to ``path`` (listed as ``echo value > path``; skipped while ``dry``)."""
        if not self.note('echo %s > %s' % (value, path)):
            return
        try:
            with open(path, 'w') as handle:
                handle.write('%s\n' % value)
        except (IOError, OSError) as exc:
            self.fail('writing %s to %s failed: %s' % (value, path, exc), **fields)
