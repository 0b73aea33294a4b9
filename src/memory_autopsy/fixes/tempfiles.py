"""Temp files beside the file they will replace, and the cleaning of those a killed run left.

A temp file is `.<name>.<8 random characters>.tmp` in the target's folder (the rename that
publishes it must stay on one filesystem). While a run uses it, it holds an exclusive `flock`
on it; a run killed with -9 loses the lock with its process, so the next run can tell a
leftover from a temp file another run is still writing, and removes only leftovers.
Windows has no `flock`: there a temp file counts as left over once it is an hour old.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterator

# tempfile's random part: 8 characters of this alphabet (tempfile._RandomNameSequence).
_RANDOM = r"[a-z0-9_]{8}"
STALE_AFTER = 3600.0  # seconds; only where a lock cannot tell (Windows)
LOCKS = sys.platform != "win32"


def pattern(path: str) -> re.Pattern[str]:
    """The names of this tool's temp files for `path` (and nothing a person would name so)."""
    return re.compile(r"\." + re.escape(os.path.basename(path)) + r"\." + _RANDOM + r"\.tmp")


@contextlib.contextmanager
def temp_beside(path: str, data: bytes) -> Iterator[str]:
    """`data` written and fsynced to a fresh temp file beside `path`, locked until the block ends.

    The caller renames or links it inside the block; whatever is left is removed on the way out.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    handle = os.fdopen(fd, "wb")
    try:
        _lock(handle.fileno())
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        if not LOCKS:
            handle.close()  # Windows cannot rename a file that is open
        yield tmp
    finally:
        handle.close()
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def clean_stale(path: str) -> list[str]:
    """Remove the temp files of `path` that no live run holds; returns the names removed."""
    folder = os.path.dirname(os.path.abspath(path))
    ours = pattern(path)
    try:
        names = [n for n in os.listdir(folder) if ours.fullmatch(n)]
    except OSError:
        return []
    return [n for n in sorted(names) if _remove_if_stale(os.path.join(folder, n))]


def _remove_if_stale(name: str) -> bool:
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False  # a symlink or gone: not a temp file this tool left
    try:
        if not _stale(fd):
            return False
        os.unlink(name)  # still locked by us, so no run can be using it
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def _stale(fd: int) -> bool:
    if LOCKS:
        return _lock(fd, wait=False)
    return time.time() - os.fstat(fd).st_mtime > STALE_AFTER


def _lock(fd: int, *, wait: bool = True) -> bool:
    """An exclusive lock on the open file (POSIX); False when another process holds it."""
    if sys.platform == "win32":
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True
