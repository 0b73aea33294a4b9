"""Compare-and-swap of a file against writers that take no lock: rename, then look at the old file again.

An appender (another agent, `echo >>`) opens the file by name and writes at its end. If it
writes into the old file after the last compare, or opens it before the rename and writes after,
its bytes land in a file that no longer has a name, and a plain compare-then-rename loses them.
So the old file stays open from the compare on and is read again once the rename is done. If
it changed, the swap is rolled back: the old file's bytes, with what reached it, go back in
place, followed by whatever was appended to the new file meanwhile. The rollback is itself
such a swap, checked the same way, for a few rounds at most (each needs another append inside a
window of microseconds).

What no look after the fact can see is a writer that opened the old file before the rename and
writes only after the second look; a lock it honoured could, and an appender takes none. The
second look comes after the folder's fsync and a short grace (GRACE), which let a write already
under way land first.
Windows refuses to rename over an open file, so there `atomic` compares and renames without
holding the old file (an appender that has the file open makes the rename fail instead).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from memory_autopsy.fixes.tempfiles import temp_beside

HOLDS_OPEN = os.name != "nt"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_ROUNDS = 8  # rollback rounds; each further one needs yet another append in the same few microseconds
_CHUNK = 1 << 16
# Seconds between the rename and the look at the old file. An appender that opened the file just
# before the rename writes a moment later (a buffered write lands at its close; a thread may wait
# for the interpreter); its bytes must reach the old file before the look, not after it.
GRACE = 0.005


def swap(path: str, data: bytes, mode: int, expected: bytes) -> bool:
    """Replace `path` with `data` if it holds `expected`; False when it did not, or changed and was put back.

    Raises OSError as the reads and the rename do (ELOOP: a symlink was swapped in).
    """
    with _staged(path, data, mode) as (tmp, new), _opened(path) as old:
        if _read_all(old) != expected:
            return False
        late = _rename_and_look(tmp, path, old, expected)
        if late is None:
            return True
        _restore(path, late, new, data, mode)
        return False


def fsync_directory(directory: str) -> None:
    """Make a rename itself durable (POSIX); a no-op where folders cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _rename_and_look(tmp: str, path: str, old: int, held: bytes) -> bytes | None:
    """Rename `tmp` over `path`; the old file's bytes if they are no longer `held`, else None."""
    os.replace(tmp, path)
    fsync_directory(os.path.dirname(os.path.abspath(path)))
    time.sleep(GRACE)  # a writer between its open and its write (or waiting to run) lands first
    now = _read_all(old)
    return None if now == held else now


def _restore(path: str, kept: bytes, current: int, written: bytes, mode: int) -> None:
    """Put `kept` back at `path`, followed by what was appended to the file there since it held `written`.

    `current` is that file, held open. A file at `path` that is not it, or that was rewritten
    rather than appended to, is a later writer's, and stays.
    """
    want, base = kept, written
    with contextlib.ExitStack() as held:
        for _ in range(_ROUNDS):
            now = _read_all(current)
            if not _still_ours(path, current) or not now.startswith(base):
                return
            target = want + now[len(base):]
            tmp, following = held.enter_context(_staged(path, target, mode))
            late = _rename_and_look(tmp, path, current, now)
            if late is None or not late.startswith(now):
                return
            want, base, current = target + late[len(now):], target, following


def _still_ours(path: str, fd: int) -> bool:
    try:
        there = os.lstat(path)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


@contextlib.contextmanager
def _opened(path: str) -> Iterator[int]:
    """`path` open for reading, never through a symlink (ELOOP where the OS can tell)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _BINARY)
    try:
        yield fd
    finally:
        os.close(fd)


@contextlib.contextmanager
def _staged(path: str, data: bytes, mode: int) -> Iterator[tuple[str, int]]:
    """A temp file beside `path` holding `data` with `mode`, and a descriptor on it that outlives its rename."""
    with temp_beside(path, data) as tmp:
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        fd = os.open(tmp, os.O_RDONLY | _BINARY)
        try:
            yield tmp, fd
        finally:
            os.close(fd)


def _read_all(fd: int) -> bytes:
    """The whole file behind `fd`, from its start, whatever was read from it before."""
    parts: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, _CHUNK, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)
