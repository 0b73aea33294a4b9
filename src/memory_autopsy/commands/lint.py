"""`scan` and `report`: lint memory files and print findings in a format.

The conventions of the linters people know live here too, shared with the hook: `--select` /
`--ignore` (names, codes, code prefixes), `--exit-zero`, `--quiet`, `--statistics`, colour on a
terminal, standard input (`-`, `--stdin-filename`) and a progress line for long runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, NamedTuple, TextIO

from memory_autopsy.commands.common import (
    STDIN,
    exit_code,
    lint_inputs,
    require_input,
    rule_filter,
    select_rules,
    settings_from_args,
    write_output,
)
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Report
from memory_autopsy.settings import Settings

if TYPE_CHECKING:
    from memory_autopsy.commands import LintOptions, Subparsers
    from memory_autopsy.ingest.loader import Source

MAX_SUPPRESSION_WARNINGS = 10


class TextOptions(NamedTuple):
    """How the text format is drawn: the hook's changed files lead, colour, quiet, statistics,
    and with `verbose` each finding's layer, confidence and entity."""

    changed: frozenset[str] | None = None
    color: bool = False
    quiet: bool = False
    statistics: bool = False
    verbose: bool = False
    prune: str = ""  # the command that drops baselined findings gone (text.gone_lines)


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    scan = sub.add_parser("scan", help="lint memory files", epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    lint_options(scan)
    scan.set_defaults(handler=run_scan)
    report = sub.add_parser("report", help="markdown report with the fix plan (dry run)")
    lint_options(report)
    report.add_argument("--apply", action="store_true", help="apply the fix plan")
    report.add_argument("--yes-i-know", action="store_true", help="confirm that --apply writes the store")
    report.set_defaults(handler=run_report)


def lint_paths(args: argparse.Namespace, err: TextIO | None = None) -> tuple[Report, Settings]:
    from memory_autopsy.api import lint
    from memory_autopsy.commands.progress import Progress

    rule_filter(args)  # a misspelt rule is a usage error before anything is read
    settings = settings_from_args(args)
    paths = list(args.paths)
    if not paths and getattr(args, "stdin_filename", None):
        paths = [STDIN]  # `--stdin-filename NAME` alone reads standard input, as in ruff
    paths = lint_inputs(args, paths, settings)  # none named: the scope
    stdin = _stdin_sources(args, paths)
    quiet = getattr(args, "quiet", False) or err is None
    with Progress(err or sys.stderr, enabled=False if quiet else None) as progress:
        report = lint([p for p in paths if p != STDIN], settings, extra=stdin, on_read=progress.read)
    require_input(report, paths)
    return report, settings


def _stdin_sources(args: argparse.Namespace, paths: list[str]) -> tuple[Source, ...]:
    """Standard input as one memory file, named by --stdin-filename (its dialect and the
    findings' path follow the name) or `-`."""
    name = getattr(args, "stdin_filename", None)
    if STDIN not in paths:
        if name:
            raise UsageError("--stdin-filename names standard input: add `-` to the paths")
        return ()
    from memory_autopsy.ingest.loader import Source, display_path

    stream = sys.stdin
    if stream is None:
        raise UsageError("`-` reads standard input, and there is none")
    buffer = getattr(stream, "buffer", None)
    data = buffer.read() if buffer is not None else stream.read().encode("utf-8")
    return (Source(display_path(name) if name else STDIN, data),)


def text_options(args: argparse.Namespace, out: TextIO, changed: frozenset[str] | None = None,
                 prune: str = "") -> TextOptions:
    return TextOptions(changed, use_color(args, out), getattr(args, "quiet", False),
                       getattr(args, "statistics", False), getattr(args, "verbose", False), prune)


def use_color(args: argparse.Namespace, out: TextIO) -> bool:
    """`--color always|never`; `auto` colours a terminal only, and never with NO_COLOR set."""
    choice = getattr(args, "color", None) or "auto"
    if choice != "auto":
        return choice == "always"
    if getattr(args, "output", None) or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    from memory_autopsy.commands.progress import is_tty

    return is_tty(out)


def warn_unknown_suppressions(report: Report, err: TextIO, changed: frozenset[str] | None = None) -> None:
    """An ignore comment naming no rule suppresses nothing: say so rather than fail silently."""
    from memory_autopsy.escaping import one_line
    from memory_autopsy.rules import rule_of, suggestion

    seen: dict[tuple[str, int, str], None] = {}
    for fact in report.facts:
        if fact.suppress and (changed is None or fact.path in changed):
            for name in fact.suppress:
                if name not in ("*", "all") and rule_of(name) is None:
                    seen[(fact.path, fact.line, name)] = None
    for path, line, name in list(seen)[:MAX_SUPPRESSION_WARNINGS]:
        err.write(one_line(f"memory-autopsy: warning: {path}:{line}: unknown rule {name!r} in an ignore "
                           f"comment{suggestion(name)}; it suppresses nothing") + "\n")
    if len(seen) > MAX_SUPPRESSION_WARNINGS:
        err.write(f"memory-autopsy: warning: {len(seen) - MAX_SUPPRESSION_WARNINGS} more unknown rule "
                  "name(s) in ignore comments\n")


def render(report: Report, fmt: str, settings: Settings, options: TextOptions | None = None) -> str:
    if fmt == "json":
        from memory_autopsy.formatters import json_format

        return json_format.format_report(report)
    options = options or TextOptions()
    if fmt == "markdown":
        from memory_autopsy.formatters import markdown

        return markdown.format_report(report, prune=options.prune)
    if fmt in ("sarif", "github"):  # repository-relative paths, rule-file levels: as `ci` does
        from memory_autopsy.ci.runner import code_scanning_view

        return code_scanning_view(report, fmt, settings, prune=options.prune)
    from memory_autopsy.formatters import text

    return text.format_report(report, changed=options.changed, color=options.color, quiet=options.quiet,
                              statistics=options.statistics, verbose=options.verbose, prune=options.prune)


def output_format(args: argparse.Namespace, default: str) -> str:
    fmt = "json" if args.json else (args.format or default)
    if getattr(args, "statistics", False) and fmt != "text":
        raise UsageError(f"--statistics prints a text table, not {fmt}: leave out --format/--json")
    return fmt


def run_scan(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    fmt = output_format(args, "text")
    report, settings = lint_paths(args, err)
    report = _post_process(args, report, settings)
    return emit(args, report, settings, fmt, out, err)


def emit(args: argparse.Namespace, report: Report, settings: Settings, fmt: str, out: TextIO, err: TextIO,
         changed: frozenset[str] | None = None) -> int:
    """Select the rules asked for, write the report in its format, return the exit code."""
    report = select_rules(report, args)
    warn_unknown_suppressions(report, err, changed)
    if fmt == "json":  # streamed: a million-fact store's report is never one string
        from memory_autopsy.formatters import json_format

        write_output(json_format.iter_report(report), args.output, out)
    else:
        prune = ""
        if report.fixed:  # the baseline was read (ci.filters): name the command that drops them
            from memory_autopsy.ci.filters import PRUNE, baseline_command

            prune = baseline_command(args, settings, PRUNE)
        text = render(report, fmt, settings, text_options(args, out, changed, prune))
        write_output(text, args.output, out, commands=fmt == "github")
        if fmt == "sarif":
            from memory_autopsy.formatters.sarif import truncation_note

            note = truncation_note(text)
            if note:
                err.write(note + "\n")
    return 0 if getattr(args, "exit_zero", False) else exit_code(report, settings)


def _post_process(args: argparse.Namespace, report: Report, settings: Settings) -> Report:
    """The baseline in force, as the hook and `ci` read it, and --changed-since (the CI layer)."""
    from memory_autopsy.ci.filters import apply_filters

    return apply_filters(args, report, settings)


def run_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.apply and not args.yes_i_know:
        raise UsageError("--apply writes your memory files: add --yes-i-know to confirm (nothing was written)")
    fmt = output_format(args, "markdown")
    report, settings = lint_paths(args, err)
    if args.apply:
        from memory_autopsy.fixes.apply import apply_plan

        return apply_plan(select_rules(report, args), out, err)  # --ignore RULE: its fixes too
    report = _post_process(args, report, settings)  # --apply above fixes the whole plan
    return emit(args, report, settings, fmt, out, err)
