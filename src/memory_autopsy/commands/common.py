"""Pieces every lint-like command shares: settings from flags, output, exit codes."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.dates import day_of, parse_date
from memory_autopsy.errors import OutputError, UsageError
from memory_autopsy.formatters.visible import scrub
from memory_autopsy.settings import Settings
from memory_autopsy.severity import Severity

if TYPE_CHECKING:
    from memory_autopsy.model import Report


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The rule file (when there is one) overlaid with command-line flags."""
    settings = _rule_file_settings(args)
    changes: dict[str, object] = {}
    if getattr(args, "engine", None):
        changes["engine"] = args.engine
    if getattr(args, "fail_on", None):
        changes["fail_on"] = None if args.fail_on == "never" else Severity.parse(args.fail_on)
    as_of = settings.as_of
    if getattr(args, "as_of", None):
        as_of = parse_date(args.as_of)
        if as_of is None:
            raise UsageError(f"--as-of: not a date: {args.as_of!r}")
        changes["as_of"] = as_of
    limit = settings.max_age_days
    if getattr(args, "max_age_days", None) is not None:
        limit = _age_limit(args.max_age_days)
    if limit is not None:  # the rule file's limit meets --as-of here too
        changes["max_age_days"] = _within_calendar(limit, as_of)
    jobs = getattr(args, "jobs", None)
    if jobs is not None and jobs < 0:
        raise UsageError(f"--jobs must be 0 (one per CPU) or more, got {jobs}")
    changes["jobs"] = 0 if jobs is None else jobs
    if getattr(args, "no_grounding", False):
        changes["grounding"] = False
    if getattr(args, "no_cache", False):
        changes["embed"] = replace(settings.embed, use_cache=False)
    return replace(settings, **changes)  # type: ignore[arg-type]


def _age_limit(days: int) -> int:
    from memory_autopsy.config_schema import MAX_AGE_DAYS  # the rule file's checks: only when asked

    if not 0 <= days <= MAX_AGE_DAYS:
        raise UsageError(f"--max-age-days must be between 0 and {MAX_AGE_DAYS}, got {days}")
    return days


def _within_calendar(days: int, as_of: str | None) -> int:
    """A limit reaching back past year 1 flags nothing more than one reaching year 1 does, and
    `date - timedelta` overflows on it: clamp, never raise."""
    day = day_of(as_of)
    reference = date.fromisoformat(day) if day else date.today()
    return min(days, (reference - date.min).days)


def _rule_file_settings(args: argparse.Namespace) -> Settings:
    from memory_autopsy.config import settings_for

    return settings_for(getattr(args, "config", None), isolated=getattr(args, "isolated", False))


def exit_code(report: Report, settings: Settings) -> int:
    from memory_autopsy.rules import NEVER_FAILS  # a run with findings to judge has them loaded

    threshold = settings.fail_on
    if threshold is None:
        return 0
    for finding in report.findings:
        if finding.rule in NEVER_FAILS or finding.baseline == "unchanged":
            continue
        if finding.severity.rank >= threshold.rank:
            return 1
    return 0


STDIN = "-"


def lint_inputs(args: argparse.Namespace, paths: Sequence[str], settings: Settings) -> list[str]:
    """The files a command reads (scope.memory_files, for every entry point): the files named
    (always), the memory files of the folders named, else the scope; paths and globs resolve
    from the rule file's folder."""
    from memory_autopsy.config import locate
    from memory_autopsy.scope import memory_files, named_files, scope_root

    named = [p for p in paths if p != STDIN]
    stdin = [STDIN] if STDIN in paths else []
    if paths and not any(os.path.isdir(p) for p in named):
        return named_files(named, settings, Path.cwd()) + stdin  # files only: no root, no git call
    root = scope_root(locate(getattr(args, "config", None), isolated=getattr(args, "isolated", False)))
    files = memory_files(named, settings, root)
    if not files and not named and not stdin:
        raise UsageError("no memory files in scope (" + _scope_hint(settings) + "); name files or folders")
    if not files and not stdin:
        raise UsageError("no memory files in: " + ", ".join(named))
    return files + stdin


def _scope_hint(settings: Settings) -> str:
    if settings.include:
        return "the rule file's include matches none"
    return ("no rule file sets `include`, and no file sits in a known memory location "
            "(the README's \"Which files are memory\")")


def require_input(report: Report, paths: list[str]) -> None:
    if not paths:
        raise UsageError("no input: name at least one memory file or folder")
    missing = [p for p in paths if p != "-" and not os.path.lexists(p)]
    if missing:  # a typo must fail CI, not pass as an info finding
        raise UsageError("no such file or directory: " + ", ".join(missing))
    if not report.paths:
        shown = ", ".join(paths[:5]) + (f" (and {len(paths) - 5} more)" if len(paths) > 5 else "")
        raise UsageError("no readable input files among: " + shown)


def write_output(text: str | Iterable[str], output: str | None, out: TextIO, *, commands: bool = False) -> None:
    """Write to the stream, or to a file (atomically when it is a regular file); `text` may
    come in pieces. Lone surrogates from memory content are replaced: they cannot be encoded.
    No workflow command opens in what is written (`escaping.inert`: a CI log reads stdout),
    unless `commands`: the GitHub format's own lines, whose data its formatter escapes. A write
    that fails (a full disk) is an OutputError: exit 3, never a report cut short."""
    from memory_autopsy.escaping import inert

    pieces = (scrub(piece) if commands else inert(scrub(piece))
              for piece in ([text] if isinstance(text, str) else text))
    if not output:
        if commands:  # the CLI's stdout makes every line inert: these are written beneath it
            out = getattr(out, "commands", out)
        for piece in pieces:
            out.write(piece)
        return
    try:
        _write_file(pieces, output)
    except OSError as error:
        raise OutputError(output, error) from None


def _write_file(pieces: Iterable[str], output: str) -> None:
    kind = _file_kind(output)
    if kind == stat.S_IFDIR:
        raise UsageError(f"{output}: is a directory; name a file to write")
    if kind not in (None, stat.S_IFREG):  # /dev/stdout, /dev/null, a FIFO: write into it
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(pieces)
        return
    directory = os.path.dirname(os.path.abspath(output))
    os.makedirs(directory, exist_ok=True)
    mode = _new_file_mode(output)
    import tempfile  # only a run writing a file pays for it (with shutil and random)

    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".memory-autopsy-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(pieces)
        os.chmod(tmp, mode)  # mkstemp makes 0600; the file the user asked for follows the umask
        os.replace(tmp, output)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _file_kind(path: str) -> int | None:
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except OSError:
        return None


def _new_file_mode(path: str) -> int:
    """A replaced file keeps its mode; a new one gets what `open()` would give it."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def rule_filter(args: argparse.Namespace) -> tuple[frozenset[str] | None, frozenset[str]]:
    """The rules --select keeps (None: all) and the rules --ignore drops."""
    return _rules(args, "select"), _rules(args, "ignore") or frozenset()


def _rules(args: argparse.Namespace, option: str) -> frozenset[str] | None:
    values = getattr(args, option, None)
    if not values:
        return None
    from memory_autopsy.rules import resolve, suggestion

    tokens = [token.strip() for value in values for token in value.split(",") if token.strip()]
    chosen, unknown = resolve(tokens)
    if unknown:
        raise UsageError(f"--{option}: unknown rule {unknown[0]!r}{suggestion(unknown[0])}; "
                         "`memory-autopsy rules` lists the names and codes")
    return chosen


def select_rules(report: Report, args: argparse.Namespace) -> Report:
    selected, ignored = rule_filter(args)
    if selected is None and not ignored:
        return report
    kept = tuple(f for f in report.findings
                 if (selected is None or f.rule in selected) and f.rule not in ignored)
    return replace(report, findings=kept)
