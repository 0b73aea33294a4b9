"""Pieces every lint-like command shares: settings from flags, output, exit codes."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from typing import TextIO

from memory_autopsy.dates import parse_date
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Report, Severity
from memory_autopsy.rules import NEVER_FAILS
from memory_autopsy.settings import Settings


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The rule file (when there is one) overlaid with command-line flags."""
    settings = _rule_file_settings(args)
    changes: dict[str, object] = {}
    if getattr(args, "engine", None):
        changes["engine"] = args.engine
    if getattr(args, "fail_on", None):
        changes["fail_on"] = None if args.fail_on == "never" else Severity.parse(args.fail_on)
    if getattr(args, "max_age_days", None) is not None:
        if args.max_age_days < 0:
            raise UsageError("--max-age-days must be 0 or more")
        changes["max_age_days"] = args.max_age_days
    if getattr(args, "as_of", None):
        as_of = parse_date(args.as_of)
        if as_of is None:
            raise UsageError(f"--as-of: not a date: {args.as_of!r}")
        changes["as_of"] = as_of
    if getattr(args, "no_cache", False):
        changes["embed"] = replace(settings.embed, use_cache=False)
    return replace(settings, **changes) if changes else settings  # type: ignore[arg-type]


def _rule_file_settings(args: argparse.Namespace) -> Settings:
    from memory_autopsy.config import settings_for

    return settings_for(getattr(args, "config", None), isolated=getattr(args, "isolated", False))


def exit_code(report: Report, settings: Settings) -> int:
    threshold = settings.fail_on
    if threshold is None:
        return 0
    for finding in report.findings:
        if finding.rule in NEVER_FAILS or finding.baseline == "unchanged":
            continue
        if finding.severity.rank >= threshold.rank:
            return 1
    return 0


def require_input(report: Report, paths: list[str]) -> None:
    if not paths:
        raise UsageError("no input: name at least one memory file or folder")
    if not report.paths:
        raise UsageError("no readable input files among: " + ", ".join(paths))


def write_output(text: str | Iterable[str], output: str | None, out: TextIO) -> None:
    """Write to the stream, or atomically to a file; `text` may come in pieces."""
    pieces = [text] if isinstance(text, str) else text
    if not output:
        for piece in pieces:
            out.write(piece)
        return
    directory = os.path.dirname(os.path.abspath(output))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".memory-autopsy-")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        for piece in pieces:
            handle.write(piece)
    os.replace(tmp, output)
