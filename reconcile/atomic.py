"""Replacing a folder by another in one step, for outputs that must never be seen
half-written (the audit's report, a simulated log set).

:func:`swap_in` moves a complete folder into a target's place: a plain rename where
the target is absent; else one atomic exchange of the two names (Linux
``renameat2(RENAME_EXCHANGE)``), after which the earlier folder sits where the new
one was, for the caller to remove. Where the file system cannot exchange names, the
earlier folder is moved aside first (to ``aside``) and the new one moved in: a run
killed between those two renames leaves the target absent for that instant, and the
caller's next run puts it back (``aside`` is named so that it can be found). The new
folder takes the earlier one's permissions, as a folder written in place would keep
them.

A mount point cannot be replaced by a rename; :func:`is_mount_point` lets a caller
refuse one before any work is done.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
import sys
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths in one atomic step; False where this system or file
    system cannot (then nothing was changed)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(a))


def is_mount_point(path: Path) -> bool:
    """Whether ``path`` is a folder on which a file system is mounted (a rename
    cannot replace it)."""
    return os.path.isdir(path) and os.path.ismount(path)


def swap_in(new: Path, target: Path, aside: Path) -> None:
    """Put the folder ``new`` at ``target`` (see the module); afterwards ``new`` holds
    the earlier target (or nothing) and is the caller's to remove."""
    if not os.path.lexists(target):
        new.rename(target)
        return
    with contextlib.suppress(OSError):
        os.chmod(new, stat.S_IMODE(os.stat(target).st_mode))
    if not exchange(new, target):
        target.rename(aside)
        new.rename(target)
        shutil.rmtree(aside, ignore_errors=True)
