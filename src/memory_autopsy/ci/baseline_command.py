"""`memory-autopsy baseline PATH...`: write or update the baseline file (the only writer)."""

from __future__ import annotations

import argparse
import os
from typing import TextIO

from memory_autopsy.ci.baseline import (
    DEFAULT_PATH,
    SCHEME,
    Baseline,
    OlderScheme,
    dumps,
    load,
    read_text,
    update,
)
from memory_autopsy.ci.filters import baseline_file, confined, rule_folder
from memory_autopsy.commands.common import write_output
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Report
from memory_autopsy.settings import Settings


def _lint(args: argparse.Namespace, settings: Settings) -> Report:
    from memory_autopsy.pipeline import lint

    if args.paths:
        from memory_autopsy.commands.common import lint_inputs

        report = lint(lint_inputs(args, list(args.paths), settings), settings)
        if not report.paths:
            raise UsageError("no readable input files among: " + ", ".join(args.paths))
        return report
    from memory_autopsy.ci.filters import scope_paths

    return lint(scope_paths(args, settings), settings)


def update_baseline(args: argparse.Namespace, settings: Settings, out: TextIO) -> int:
    path = confined(baseline_file(args, settings) or DEFAULT_PATH, rule_folder(args))
    exists = os.path.exists(path)  # a FIFO or folder is refused by `load`, never replaced
    if args.prune_only and not exists:
        raise UsageError(f"{path}: no baseline to prune")
    old, older = _previous(path, args.prune_only) if exists else (Baseline(), None)
    report = _lint(args, settings)
    new = update(old, report.findings, report.paths, prune_only=args.prune_only,
                 gone=lambda p: not os.path.exists(p))
    before, after = old.counts(), new.counts()
    added = sum(max(0, n - before.get(fp, 0)) for fp, n in after.items())
    removed = sum(max(0, n - after.get(fp, 0)) for fp, n in before.items())
    text = dumps(new)
    if not exists or text != read_text(path):
        write_output(text, path, out)
    out.write(f"{path}: {sum(after.values())} baselined finding(s) in {len(after)} entries "
              f"({added} added, {removed} removed)\n")
    if older is not None:
        out.write(f"{path}: its fingerprints were {older}, which match nothing now: rewritten as "
                  f"{SCHEME} from this run's findings; review the diff before committing it\n")
    return 0


def _previous(path: str, prune_only: bool) -> tuple[Baseline, str | None]:
    """The baseline to update, and the older fingerprint scheme it had if it is rewritten whole
    (its entries match nothing, so they cannot be carried over or pruned one by one)."""
    try:
        return load(path), None
    except OlderScheme as older:
        if prune_only:
            raise UsageError(f"{path}: its fingerprints are {older.found}, which --prune-only cannot "
                             "match; rewrite it with `memory-autopsy baseline`") from None
        return Baseline(), older.found

