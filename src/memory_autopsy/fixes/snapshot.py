"""Snapshots before a rewrite (`<name>.bak-<timestamp>`), and the record of what was written.

Snapshots live in the cache folder of the file's work tree, never beside the file:
`<top>/.memory-autopsy-cache/snapshots/<path from top>.bak-<ts>`, where `<top>` is the
nearest folder above the file that holds `.git` (else the file's own folder). The cache keeps
itself out of git, so an apply and an undo leave nothing untracked in `git status`.
Snapshots are created exclusively (never overwritten) and never deleted by the tool. The
timestamp is UTC with microseconds, so names sort chronologically even across DST changes.
Beside each snapshot `--apply` records the SHA-256 of the bytes it wrote over it
(`<snapshot>.written`), so `undo` can tell the file it wrote from one edited since.
Snapshots are created 0600 and their folders 0700 whatever the umask: they copy memory, which
may be private, into names nobody chose, and only the owner needs them back. A cache folder
that is a symlink is refused (it may point anywhere). Snapshots an older version wrote beside
the file are still found by `undo`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memory_autopsy.cachedir import CACHE_DIR, ignore_itself
from memory_autopsy.fixes.atomic import read_bytes
from memory_autopsy.fixes.tempfiles import temp_beside
from memory_autopsy.ingest.confined import work_tree_top

SNAPSHOTS = "snapshots"

STAMP = "%Y%m%d-%H%M%S-%f"
_PATTERN = r"\.bak-(\d{8}-\d{6}-\d{6})"
WRITTEN = ".written"  # the sidecar's suffix: the hex SHA-256 of the bytes --apply wrote


def take(path: str, data: bytes, now: datetime | None = None, *, tag: str = "bak") -> str:
    """Write `data` to a fresh `<snapshot folder>/<name>.<tag>-<ts>` (never an existing one) and
    return its path.

    The bytes go to a temp file first and are hard-linked to the final name, so a crash never
    leaves a half-written snapshot for `undo` to restore, and an existing name is never replaced.
    """
    base = os.path.join(_folder(path, create=True), os.path.basename(path))
    with temp_beside(base, data) as tmp:
        return _publish(tmp, base, now or datetime.now(timezone.utc), tag)


def record(path: str, snapshot: str, written: bytes) -> None:
    """Keep the digest of the bytes about to replace `path` beside its snapshot (for undo)."""
    with temp_beside(snapshot, (digest(written) + "\n").encode("ascii")) as tmp:
        _link_exclusive(tmp, snapshot + WRITTEN)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def recorded(snapshot: str) -> str | None:
    """The digest of the bytes --apply wrote over `snapshot`; None when it left no record."""
    try:
        return read_bytes(snapshot + WRITTEN).decode("ascii", "replace").strip()
    except OSError:
        return None


def _publish(tmp: str, path: str, moment: datetime, tag: str) -> str:
    for _ in range(1000):
        candidate = f"{path}.{tag}-{moment.strftime(STAMP)}"
        try:
            _link_exclusive(tmp, candidate)
            return candidate
        except FileExistsError:
            moment += timedelta(microseconds=1)
    raise FileExistsError(f"could not find a free snapshot name for {path}")


def _link_exclusive(tmp: str, candidate: str) -> None:
    try:
        os.link(tmp, candidate)
    except FileExistsError:
        raise
    except OSError:
        # Filesystems without hard links: check, then rename (the tool never races itself).
        if os.path.lexists(candidate):
            raise FileExistsError(candidate) from None
        os.replace(tmp, candidate)


def snapshots(path: str) -> list[str]:
    """This file's snapshots written by --apply, oldest first: those in the cache folder, and
    those an older version wrote beside the file."""
    name = os.path.basename(path)
    pattern = re.compile(re.escape(name) + _PATTERN + r"$")
    found = []
    for folder in dict.fromkeys((_folder(path, create=False), os.path.dirname(os.path.abspath(path)))):
        try:
            found += [os.path.join(folder, n) for n in os.listdir(folder) if pattern.fullmatch(n)]
        except OSError:
            continue
    if os.path.dirname(path) != os.path.dirname(os.path.abspath(path)):
        found = [_as_given(f, path) for f in found]
    return sorted(found, key=lambda f: os.path.basename(f)[len(name):])


def shown(snapshot: str) -> str:
    """A snapshot's path as printed: relative to the working folder when it is under it."""
    relative = os.path.relpath(snapshot)
    return snapshot if relative.startswith(os.pardir) else relative


def _as_given(found: str, path: str) -> str:
    """A snapshot beside a relative `path` is named relative too, as the user wrote it."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.join(os.path.dirname(path), os.path.basename(found)) if os.path.dirname(found) == folder else found


def _folder(path: str, *, create: bool) -> str:
    """The snapshot folder of `path` in its work tree's cache; with `create`, made 0700 (and the
    cache folder's `.gitignore` of `*` written) if it is not there yet."""
    here = os.path.dirname(os.path.abspath(path))
    top = work_tree_top(here) or here
    cache = os.path.join(top, CACHE_DIR)
    folder = os.path.join(cache, SNAPSHOTS, os.path.relpath(here, top))
    if create:
        if os.path.islink(cache) or os.path.islink(os.path.join(cache, SNAPSHOTS)):
            raise OSError(errno.ELOOP, f"{cache} is a symbolic link: snapshots are never written through one")
        if not os.path.lexists(cache):
            os.makedirs(cache, mode=0o700)
            ignore_itself(Path(cache))  # before anything else is in it: only then is it written
        os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.normpath(folder)


def newest(path: str) -> str | None:
    found = snapshots(path)
    return found[-1] if found else None

