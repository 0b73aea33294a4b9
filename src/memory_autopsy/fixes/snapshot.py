"""Snapshots before a rewrite (`<name>.bak-<timestamp>`) and `undo`, which restores the newest.

Snapshots are created exclusively (never overwritten) and never deleted by the tool. The
timestamp is UTC with microseconds, so names sort chronologically even across DST changes.
"""

from __future__ import annotations

import contextlib
import os
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memory_autopsy.fixes.atomic import atomic_write, durable_temp, read_bytes

STAMP = "%Y%m%d-%H%M%S-%f"
_PATTERN = r"\.bak-(\d{8}-\d{6}-\d{6})"


def take(path: str, data: bytes, now: datetime | None = None) -> str:
    """Write `data` to a fresh `<path>.bak-<ts>` (never an existing one) and return its path.

    The bytes go to a temp file first and are hard-linked to the final name, so a crash never
    leaves a half-written snapshot for `undo` to restore, and an existing name is never replaced.
    """
    tmp = durable_temp(path, data)
    try:
        return _publish(tmp, path, now or datetime.now(timezone.utc))
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _publish(tmp: str, path: str, moment: datetime) -> str:
    for _ in range(1000):
        candidate = f"{path}.bak-{moment.strftime(STAMP)}"
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
    """This file's snapshots, oldest first."""
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


def restore(path: str) -> str | None:
    """Restore the newest snapshot byte for byte (atomically); None when there is none."""
    latest = newest(path)
    if latest is None:
        return None
    atomic_write(path, read_bytes(latest))
    return latest
