"""Atomic replacement of a file: a temp file in the same folder, fsync, then one rename.

A crash at any point leaves either the old file or the new one, never a partial write: the
rename is the only step that touches the target, and it is atomic on POSIX and on Windows
(os.replace). The target is compared with the bytes the caller read just before the rename,
so a concurrent writer's change is refused instead of overwritten, and read again after it, so
an append that reached the old file meanwhile is put back, not lost (`swap`).

Only a regular, writable file is replaced, by its own name. A symlink is refused, never
followed: in a scanned folder it may point anywhere (`~/.bashrc`, a file of another project).
A read-only file is refused too: the rename needs only the folder's permission, so without
this check `chmod 444` would not protect a file from --apply. The new file keeps the old
one's permission bits (it is the user's file, not ours, so not the temp file's 0600).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from memory_autopsy.fixes.swap import HOLDS_OPEN, fsync_directory, swap
from memory_autopsy.fixes.tempfiles import temp_beside

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # absent on Windows, where links are rare and lstat decides


class FileChanged(Exception):
    """The file on disk is no longer the one that was read: nothing was written."""


class Refused(OSError):
    """The file must not be replaced (a symlink, not a regular file, read-only)."""


def read_bytes(path: str) -> bytes:
    """The file's bytes, never read through a symlink (ELOOP where the OS can tell)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def check_replaceable(path: str) -> int:
    """The permission bits of `path`; raises `Refused` unless it is a regular file we may write."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise Refused(errno.ELOOP, "is a symbolic link: fixes are never written through one (its target "
                                   "may be outside the scanned folders); run on the file it points to")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(errno.EINVAL, "not a regular file")
    # The mode bits too: root passes os.access, yet `chmod 444` still says "do not change it".
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise Refused(errno.EACCES, "permission denied: the file is read-only; make it writable "
                                    "(chmod u+w) to let the fix through")
    return stat.S_IMODE(info.st_mode)


def atomic_write(path: str, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace `path` with `data`; with `expected`, refuse if the file no longer holds it.

    Without `expected` a missing file is created (a forced `undo` after it was deleted).
    Raises `FileChanged` when the file did not hold `expected`, or changed while it was replaced
    (then it holds what it held, with what was appended to it meanwhile).
    """
    creating = expected is None and not os.path.lexists(path)
    mode = _umask_mode() if creating else check_replaceable(path)
    # O_NOFOLLOW: a symlink swapped in since the check fails the compare (ELOOP); one swapped in
    # after it is itself replaced by the rename, which never follows the last component.
    if expected is not None and HOLDS_OPEN:
        if not swap(path, data, mode, expected):
            raise FileChanged(f"{path} changed while it was being replaced")
        return
    with temp_beside(path, data) as tmp:
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        if expected is not None and read_bytes(path) != expected:
            raise FileChanged(f"{path} changed since it was read")
        os.replace(tmp, path)
    fsync_directory(os.path.dirname(os.path.abspath(path)))


def _umask_mode() -> int:
    """What `open()` would give a new file: 0666 less the umask (read without changing it for long)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask
