# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The VM lab's guests only: keep the compiled code of modules imported from zip archives.

Every Ansible task ships its module and ``ansible.module_utils`` as a zip
(AnsiballZ) that Python imports with ``zipimport``, which compiles every
source file again on every task: under TCG that is seconds per task. This
hook (loaded by ``vm_lab_codecache.pth``) keeps each compiled module in a
directory of the user's own, keyed by the hash of its source, so the same
source is compiled once per guest and user. What runs is unchanged: the
code is the same source's, and a file it cannot read or write is compiled as
before.
"""

import _imp
import hashlib
import marshal
import os
import stat
import sys
import zipimport

CACHE_DIR = "/var/tmp/vm-lab-codecache-%d" % os.getuid()
MAGIC = b"vm-lab-codecache %d.%d\n" % sys.version_info[:2]


def _private_dir(path):
    """``path`` as a directory only this user can write, created if missing; None if it is anyone else's."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return path


def _load(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    return marshal.loads(data[len(MAGIC):])


def _store(path, code):
    partial = path + ".%d" % os.getpid()
    try:
        with open(partial, "wb") as handle:
            handle.write(MAGIC + marshal.dumps(code))
        os.replace(partial, path)
    except OSError:
        pass


def cached_compile(compile_source, cache_dir):
    """A stand-in for zipimport's ``_compile_source(pathname, source)`` that keeps what ``compile_source`` made.

    The directory is checked (and made) once, at the first compile of the process, not at every module."""
    checked = []

    def compile_cached(pathname, source):
        if not checked:
            checked.append(_private_dir(cache_dir))
        directory = checked[0]
        if directory is None:
            return compile_source(pathname, source)
        path = os.path.join(directory, hashlib.sha256(MAGIC + b"%d " % sys.flags.optimize + source).hexdigest())
        code = _load(path)
        if code is None:
            code = compile_source(pathname, source)
            _store(path, code)
        else:
            # the file names in tracebacks are this archive's, as compile would have written them
            _imp._fix_co_filename(code, pathname)
        return code
    return compile_cached


def install():
    """Put the cache in front of zipimport's compiler (once)."""
    compile_source = getattr(zipimport, "_compile_source", None)
    if compile_source is not None and not getattr(compile_source, "vm_lab_codecache", False):
        zipimport._compile_source = cached_compile(compile_source, CACHE_DIR)
        zipimport._compile_source.vm_lab_codecache = True
