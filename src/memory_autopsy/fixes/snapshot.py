"""Snapshots before a rewrite (`<name>.bak-<timestamp>`), and the record of what was written.

Snapshots are created exclusively (never overwritten) and never deleted by the tool. The
timestamp is UTC with microseconds, so names sort chronologically even across DST changes.
Beside each snapshot `--apply` records the SHA-256 of the bytes it wrote over it
(`<snapshot>.written`), so `undo` can tell the file it wrote from one edited since.
Snapshots are created 0600 whatever the umask: they copy memory, which may be private, into
names nobody chose, and only the owner needs them back.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memory_autopsy.fixes.atomic import read_bytes
from memory_autopsy.fixes.tempfiles import temp_beside

STAMP = "%Y%m%d-%H%M%S-%f"
_PATTERN = r"\.bak-(\d{8}-\d{6}-\d{6})"
WRITTEN = ".written"  # the sidecar's suffix: the hex SHA-256 of the bytes --apply wrote


def take(path: str, data: bytes, now: datetime | None = None, *, tag: str = "bak") -> str:
    """Write `data` to a fresh `<path>.<tag>-<ts>` (never an existing one) and return its path.

    The bytes go to a temp file first and are hard-linked to the final name, so a crash never
    leaves a half-written snapshot for `undo` to restore, and an existing name is never replaced.
    """
    with temp_beside(path, data) as tmp:
        return _publish(tmp, path, now or datetime.now(timezone.utc), tag)


def record(path: str, snapshot: str, written: bytes) -> None:
    """Keep the digest of the bytes about to replace `path` beside its snapshot (for undo)."""
    with temp_beside(path, (digest(written) + "\n").encode("ascii")) as tmp:
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
    """This file's snapshots written by --apply, oldest first."""
    target = Path(path)
    folder = target.parent
    pattern = re.compile(re.escape(target.name) + _PATTERN + r"$")
    try:
        names = [n for n in os.listdir(folder) if pattern.fullmatch(n)]
    except OSError:
        return []
    return [str(target.with_name(n)) for n in sorted(names, key=lambda n: n[len(target.name):])]


def newest(path: str) -> str | None:
    found = snapshots(path)
    return found[-1] if found else None

