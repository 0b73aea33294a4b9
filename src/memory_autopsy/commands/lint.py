"""`scan` and `report`: lint memory files and print findings in a format."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.commands.common import exit_code, require_input, settings_from_args, write_output
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Report
from memory_autopsy.settings import Settings

if TYPE_CHECKING:
    from memory_autopsy.commands import LintOptions, Subparsers


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


def lint_paths(args: argparse.Namespace) -> tuple[Report, Settings]:
    from memory_autopsy.api import lint

    settings = settings_from_args(args)
    paths = list(args.paths)
    if not paths and getattr(args, "changed_since", None):
        from memory_autopsy.ci_filters import scope_paths

        paths = scope_paths(args, settings)
    report = lint(paths, settings)
    require_input(report, paths)
    return report, settings


def render(report: Report, fmt: str, settings: Settings) -> str:
    if fmt == "json":
        from memory_autopsy.formatters import json_format

        return json_format.format_report(report)
    if fmt == "markdown":
        from memory_autopsy.formatters import markdown

        return markdown.format_report(report)
    if fmt in ("sarif", "github"):
        import importlib

        module = importlib.import_module(f"memory_autopsy.formatters.{fmt}")
        return str(module.format_report(report))
    from memory_autopsy.formatters import text

    return text.format_report(report)


def run_scan(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    fmt = "json" if args.json else (args.format or "text")
    report, settings = lint_paths(args)
    report = _post_process(args, report, settings)
    if fmt == "json":  # streamed: a million-fact store's report is never one string
        from memory_autopsy.formatters import json_format

        write_output(json_format.iter_report(report), args.output, out)
        return exit_code(report, settings)
    text = render(report, fmt, settings)
    write_output(text, args.output, out)
    if fmt == "sarif":
        from memory_autopsy.formatters.sarif import truncation_note

        note = truncation_note(text)
        if note:
            err.write(note + "\n")
    return exit_code(report, settings)


def _post_process(args: argparse.Namespace, report: Report, settings: Settings) -> Report:
    """Changed-files and baseline filters (the CI layer) when asked for."""
    if getattr(args, "changed_since", None) or getattr(args, "baseline", None) or settings.baseline:
        from memory_autopsy.ci_filters import apply_filters

        return apply_filters(args, report, settings)
    return report


def run_report(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.apply and not args.yes_i_know:
        raise UsageError("--apply writes your memory files: add --yes-i-know to confirm (nothing was written)")
    report, settings = lint_paths(args)
    if args.apply:
        from memory_autopsy.fixes.apply import apply_plan

        return apply_plan(report, out, err)
    report = _post_process(args, report, settings)  # --apply above fixes the whole plan
    fmt = "json" if args.json else (args.format or "markdown")
    write_output(render(report, fmt, settings), args.output, out)
    return exit_code(report, settings)
