"""`as-of`, `reconcile`, `admit` and `why`: views over one store that reuse the linter's engine."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from memory_autopsy.commands.common import lint_inputs, settings_from_args, write_output
from memory_autopsy.dates import day_of, parse_date
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Fact, Report, Store
from memory_autopsy.settings import Settings

if TYPE_CHECKING:
    from memory_autopsy.commands import LintOptions, Subparsers

if TYPE_CHECKING:
    from memory_autopsy.verdicts.verdict import Weights

# `rejected` has its own code: 2 is a usage error and 3 an internal error for every command.
ADMIT_EXIT = {"accepted": 0, "requires_review": 1, "rejected": 4}


def _common(parser: argparse.ArgumentParser, *, registry: bool = True) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object instead of markdown")
    parser.add_argument("--config", metavar="FILE", help="rule file (default: found by walking up)")
    parser.add_argument("--isolated", action="store_true", help="ignore any rule file")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the output to FILE")
    if registry:
        parser.add_argument("--registry", metavar="FILE",
                            help="reliability weights (cues.<word>, class.<class>, fidelity.<band>)")


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    as_of = sub.add_parser("as-of", help="what the store held to be true on a date")
    as_of.add_argument("date", metavar="DATE", help="the date to read the store at")
    as_of.add_argument("paths", nargs="*", metavar="STORE", help="memory files or folders (default: the scope)")
    as_of.add_argument("--entity", metavar="NAME", help="only this entity (aliases fold)")
    _common(as_of)
    as_of.set_defaults(handler=run_as_of)
    reconcile = sub.add_parser("reconcile", help="per-entity verdict matrix with the provenance cap")
    reconcile.add_argument("paths", nargs="*", metavar="PATH", help="memory files or folders (default: the scope)")
    _common(reconcile)
    reconcile.set_defaults(handler=run_reconcile)
    admit = sub.add_parser("admit", help="check one incoming fact before persisting it")
    admit.add_argument("--fact", required=True, metavar="JSON", help="the fact as JSON (or @FILE)")
    admit.add_argument("paths", nargs="+", metavar="STORE", help="the store the fact would join")
    _common(admit, registry=False)
    admit.set_defaults(handler=run_admit)
    why = sub.add_parser("why", help="provenance, support and contradictions of one fact (by id or FILE:LINE)",
                         usage="%(prog)s [-h] [--json] [--registry FILE] [--config FILE] [--isolated] "
                               "[-o FILE] {STORE... ID | [STORE...] FILE:LINE}")
    why.add_argument("args", nargs="+", metavar="STORE... ID|FILE:LINE",
                     help="memory files or folders, then a fact id; or the FILE:LINE a finding names "
                     "(the stores default to that file)")
    _common(why)
    why.set_defaults(handler=run_why)


def _load(paths: list[str], settings: Settings, args: argparse.Namespace | None = None) -> Store:
    """The store a command reads; given its arguments, the files every entry point reads
    (`lint_inputs`: the scope when no PATH is named)."""
    from memory_autopsy.api import load_store

    store = load_store(paths if args is None else lint_inputs(args, paths, settings), settings)
    if not store.paths:
        raise UsageError("no readable input files among: " + ", ".join(paths))
    return store


def _weights(args: argparse.Namespace, settings: Settings) -> Weights:
    from memory_autopsy.verdicts.registry import load_weights

    return load_weights(settings, getattr(args, "registry", None))


def run_as_of(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.formatters import asof
    from memory_autopsy.verdicts.asof import as_of, knows_entity

    day = day_of(parse_date(args.date))
    if day is None:
        raise UsageError(f"as-of: not a date: {args.date!r}")
    settings = settings_from_args(args)
    weights = _weights(args, settings)
    store = _load(list(args.paths), settings, args)
    if args.entity and not knows_entity(store, args.entity):
        raise UsageError(f"no facts about entity {args.entity!r} in " + ", ".join(store.paths))
    view = as_of(store, day, settings, weights, args.entity)
    text = asof.format_json(view, args.entity) if args.json else asof.format_text(view)
    write_output(text, args.output, out)
    return 0


def run_reconcile(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.api import lint_loaded
    from memory_autopsy.formatters import reconcile

    settings = settings_from_args(args)
    weights = _weights(args, settings)
    store = _load(list(args.paths), settings, args)
    report = lint_loaded(store, settings)
    render = reconcile.format_json if args.json else reconcile.format_text
    write_output(render(store, report, weights), args.output, out)
    return 0


def _fact_argument(text: str) -> Any:
    if text.startswith("@"):
        try:
            text = Path(text[1:]).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"--fact {text}: cannot read: {error}") from error
    try:
        return json.loads(text)
    except ValueError as error:
        raise UsageError(f"--fact is not JSON: {error}") from error


def run_admit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.verdicts.gate import TOO_DEEP, admit, format_verdict, rejected

    settings = settings_from_args(args)
    try:
        fact = _fact_argument(args.fact)
    except RecursionError:  # deeper than the parser goes: refused as a fact past the gate's limit
        verdict = rejected(f"the fact cannot be normalized: {TOO_DEEP}")
    else:
        verdict = admit(fact, list(args.paths), settings)
    if args.json:
        text = json.dumps(verdict.as_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = format_verdict(verdict)
    write_output(text, args.output, out)
    return ADMIT_EXIT[verdict.status]


def run_why(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.api import lint_loaded
    from memory_autopsy.verdicts.why import explain, format_json, format_text, parse_location

    *paths, wanted = args.args
    location = parse_location(wanted)
    if location is None and not paths:
        raise UsageError("why: name the stores and then a fact id (`why STORE... ID`), or a line "
                         "(`why FILE:LINE`)")
    settings = settings_from_args(args)
    if location is not None:
        paths = _with_file(paths or _scope_or_none(args, settings), location[0])
    store = _load(paths, settings)
    report = lint_loaded(store, settings)
    weights = _weights(args, settings)
    if location is not None:
        text = _explain_line(wanted, location, report, weights, settings, as_json=args.json,
                             headings=store.headings)
    else:
        explanation = explain(wanted, report, weights, settings.vocabulary)
        text = format_json(explanation) if args.json else format_text(explanation)
    write_output(text, args.output, out)
    return 0


def _with_file(paths: list[str], file: str) -> list[str]:
    """The stores to read for `why FILE:LINE`: those named, and the file itself."""
    if not Path(file).is_file():
        raise UsageError(f"why: no such file: {file}")
    same = os.path.normpath(file)
    return paths if any(os.path.normpath(p) == same for p in paths) else [*paths, file]


def _scope_or_none(args: argparse.Namespace, settings: Settings) -> list[str]:
    """`why FILE:LINE` with no store named reads the scope, as `scan` does, so a finding whose
    other side is in another file is explained; none when the scope holds no memory file."""
    try:
        return lint_inputs(args, [], settings)
    except UsageError:
        return []


def _explain_line(wanted: str, location: tuple[str, int, int], report: Report, weights: Weights,
                  settings: Settings, *, as_json: bool, headings: tuple[Fact, ...] = ()) -> str:
    """The facts on the line explained; a heading's claim there too (a status conflict may flag
    "### Segments - IN PROGRESS"), when no fact is."""
    from memory_autopsy.ingest.loader import display_path
    from memory_autopsy.verdicts.why import explain_fact, facts_at, format_location_json, format_text

    path, line, obs = location
    facts = facts_at(display_path(path), line, obs, report.facts, headings)
    items = [explain_fact(fact, report, weights, settings.vocabulary, headings=headings) for fact in facts]
    if as_json:
        return format_location_json(wanted, items)
    return "\n".join(format_text(item) for item in items)
