"""`undo FILE`: restore the newest snapshot `--apply` wrote of FILE (`FILE.bak-<timestamp>` in
`.memory-autopsy-cache/snapshots/` of its work tree)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.errors import UsageError

if TYPE_CHECKING:
    from memory_autopsy.commands import LintOptions, Subparsers


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    undo = sub.add_parser("undo", help="restore the newest snapshot written by report --apply")
    undo.add_argument("file", metavar="FILE", help="the memory file to restore")
    undo.add_argument("--force", action="store_true",
                      help="restore even over edits made since --apply (they are kept in a snapshot "
                           "FILE.bak-undo-<ts> first)")
    undo.set_defaults(handler=run_undo)


def run_undo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.fixes.undo import ChangedSinceApply, undo

    try:
        done = undo(args.file, force=args.force)
    except ChangedSinceApply as refused:
        raise UsageError(
            f"undo {args.file}: refused, {refused.why}; restoring {refused.snapshot} would lose what "
            "the file holds now (nothing written). Add --force to restore anyway: the current bytes "
            "are kept first in a snapshot <file>.bak-undo-<timestamp> in .memory-autopsy-cache/snapshots/"
        ) from None
    except OSError as error:
        why = error.strerror if error.filename is None and error.strerror else error
        raise UsageError(f"undo {args.file}: restore failed, file left as it was: {why}") from error
    if done is None:
        raise UsageError(
            f"undo: no snapshot for {args.file} (snapshots <file>.bak-<timestamp> are written to "
            "the work tree's .memory-autopsy-cache/snapshots/ by `report --apply --yes-i-know`)"
        )
    from memory_autopsy.escaping import one_line
    from memory_autopsy.fixes.snapshot import shown

    if done.kept is not None:
        out.write(one_line(f"kept the edited {args.file} in {shown(done.kept)}") + "\n")
    out.write(one_line(f"restored {args.file} from {shown(done.snapshot)}") + "\n")
    return 0
