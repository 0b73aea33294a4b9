"""`undo FILE`: restore the newest `<FILE>.bak-<timestamp>` snapshot written by `--apply`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.errors import UsageError

if TYPE_CHECKING:
    from memory_autopsy.commands import LintOptions, Subparsers


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    undo = sub.add_parser("undo", help="restore the newest snapshot written by report --apply")
    undo.add_argument("file", metavar="FILE", help="the memory file to restore")
    undo.set_defaults(handler=run_undo)


def run_undo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.fixes.snapshot import restore

    try:
        restored = restore(args.file)
    except OSError as error:
        raise UsageError(f"undo {args.file}: restore failed, file left as it was: {error}") from error
    if restored is None:
        raise UsageError(
            f"undo: no snapshot for {args.file} (snapshots {args.file}.bak-<timestamp> are written "
            "by `report --apply --yes-i-know`)"
        )
    out.write(f"restored {args.file} from {restored}\n")
    return 0
