"""The cache folder a run keeps, and how a file in it is written.

`.memory-autopsy-cache/` holds the parse cache's entries (PARSES, ingest.cache) and the hook's
records of its runs (RUNS, replay): both write through `write_atomic` and hide the folder from
git with `ignore_itself`. Both import this module and it imports neither, so neither needs the
other. replay imports it before anything else on the hook's path: it imports os, sys and time
only, as replay does.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # not typing's (4 ms with `re`): replay imports this module on the hook's second run
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import IO, Any

CACHE_DIR = ".memory-autopsy-cache"
PARSES = "v1"  # the parse cache's entries, in a folder named by their format (ingest.cache.FORMAT)
RUNS = "runs"  # the hook's records of its runs (replay)
IGNORED = "# Written by memory-autopsy: this cache is never committed (a committed one is not read).\n*\n"


def ignore_itself(folder: Path) -> None:
    """A `.gitignore` of `*` in the cache folder (as ruff's and pytest's caches hold): git never
    lists the cache, so it is not committed by mistake. A cache git tracks anyway is neither
    read nor written by the hook and `ci` (ci.filters.with_cache). Only in a folder that holds
    the cache alone: an API caller's folder of other files is not hidden from git."""
    try:
        if os.path.exists(folder / ".gitignore") or not set(os.listdir(folder)) <= {PARSES, RUNS}:
            return
    except FileNotFoundError:  # the first entry creates the folder
        pass
    except OSError:
        return
    write_atomic(folder / ".gitignore", lambda handle: handle.write(IGNORED))


def write_atomic(target: Path, write: Callable[[IO[Any]], object], *, binary: bool = False) -> bool:
    """Write `target` through a temporary file beside it, then `os.replace`: a reader sees the
    old entry or the new one, never part of one. False when it cannot be written (a cache that
    cannot be written is a slower run, never a failed one). `write` gets UTF-8 text, or bytes
    with `binary`."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = _new_file(str(target.parent))
        try:
            with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")) as handle:
                write(handle)
            os.replace(temp, target)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
    except (OSError, ValueError):
        return False
    return True


_NAMES = iter(range(sys.maxsize))  # a count, as itertools.count: itertools is not loaded on the hook's path
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def _new_file(folder: str) -> tuple[int, str]:
    """A file no one else has, made in `folder` and opened for writing, as `tempfile.mkstemp`
    makes one (never an existing file or link, mode 0600) under a name of this process's own:
    `tempfile` imports `shutil` and `random`, 2 ms of a hook run whose commit changed a file."""
    for _ in range(100):
        name = os.path.join(folder, f".entry.{os.getpid()}.{time.monotonic_ns()}.{next(_NAMES)}.tmp")
        try:
            return os.open(name, _NEW_FILE, 0o600), name
        except FileExistsError:  # left by a killed run of the same process id: another name
            continue
    raise FileExistsError(f"no new file could be made in {folder}")
