"""Atomic replacement of a file: a temp file in the same folder, fsync, then one rename.

A crash at any point leaves either the old file or the new one, never a partial write: the
rename is the only step that touches the target, and it is atomic on POSIX and on Windows
(os.replace). The target is compared with the bytes the caller read just before the rename,
so a concurrent writer's change is refused instead of overwritten.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile


class FileChanged(Exception):
    """The file on disk is no longer the one that was read: nothing was written."""


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def atomic_write(path: str, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace `path` with `data`; with `expected`, refuse if the file no longer holds it."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    tmp = durable_temp(target, data)
    try:
        _copy_mode(target, tmp)
        if expected is not None and read_bytes(target) != expected:
            raise FileChanged(f"{path} changed since it was read")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def durable_temp(path: str, data: bytes) -> str:
    """`data` written and fsynced to a fresh temp file beside `path`; returns its name."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return tmp


def _copy_mode(source: str, destination: str) -> None:
    with contextlib.suppress(OSError):
        os.chmod(destination, stat.S_IMODE(os.stat(source).st_mode))


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
