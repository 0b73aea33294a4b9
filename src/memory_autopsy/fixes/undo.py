"""`undo`: restore the newest snapshot, but never over edits made since `--apply` wrote the file.

The file may be restored when it holds exactly what --apply wrote (its digest is recorded
beside the snapshot) or already the snapshot's bytes. Anything else is somebody's later edit:
undo refuses, and with `force` first keeps those bytes in a snapshot of their own
(`<name>.bak-undo-<ts>`, which `undo` itself never restores, so running it again stays a no-op).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from memory_autopsy.fixes.atomic import atomic_write, check_replaceable, read_bytes
from memory_autopsy.fixes.snapshot import digest, newest, recorded, take

KEPT_TAG = "bak-undo"


class ChangedSinceApply(Exception):
    """The file is not what --apply left: restoring would discard what is there now."""

    def __init__(self, snapshot: str, why: str) -> None:
        super().__init__(why)
        self.snapshot = snapshot
        self.why = why


@dataclass(frozen=True, slots=True)
class Undone:
    """The snapshot an undo restored, and where a forced undo kept the bytes it replaced."""

    snapshot: str  # the snapshot restored
    kept: str | None = None  # where a forced undo kept the bytes it replaced


def undo(path: str, *, force: bool = False) -> Undone | None:
    """Restore the newest snapshot of `path` atomically; None when there is none."""
    latest = newest(path)
    if latest is None:
        return None
    restored = read_bytes(latest)
    current = _current(path)
    why = _why_refused(latest, current, restored)
    if why is not None and not force:
        raise ChangedSinceApply(latest, why)
    kept = take(path, current, tag=KEPT_TAG) if why is not None and current is not None else None
    atomic_write(path, restored, expected=current)
    return Undone(latest, kept)


def _current(path: str) -> bytes | None:
    if not os.path.lexists(path):
        return None
    check_replaceable(path)
    return read_bytes(path)


def _why_refused(snapshot: str, current: bytes | None, restored: bytes) -> str | None:
    if current is None:
        return "it no longer exists"
    if current == restored:
        return None  # restoring changes nothing: a second undo is a no-op
    record = recorded(snapshot)
    if record is None:
        return "there is no record of what --apply wrote, so its later edits cannot be told apart"
    return None if record == digest(current) else "it was edited after --apply wrote it"
