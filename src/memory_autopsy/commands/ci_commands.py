"""The CI commands: `hook` (pre-commit), `baseline`, `ci` (the Action's runner), `init`, `rules`.

Handlers import their modules lazily: the hook runs on every commit and must start fast.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.commands import baseline_flags, rule_flags
from memory_autopsy.commands.common import settings_from_args

if TYPE_CHECKING:
    from pathlib import Path

    from memory_autopsy.commands import LintOptions, Subparsers
    from memory_autopsy.settings import Settings

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    hook = sub.add_parser(
        "hook", formatter_class=RAW, help="pre-commit entry: lint the scope, report the changed files",
        description="Lint the configured scope as context and report only findings that touch "
        "the files named (the files of the commit). Never writes the baseline. A run whose "
        "inputs are all unchanged replays the output of the run that recorded them "
        "(.memory-autopsy-cache/runs/; --no-cache: never).")
    lint_options(hook)
    hook.add_argument("--context", action="append", metavar="PATH",
                      help="lint these files/folders as context instead of the configured scope")
    hook.set_defaults(handler=run_hook)

    base = sub.add_parser("baseline", help="write or update the baseline of accepted findings",
                          description="Record today's findings so only new ones fail. With no "
                          "PATH, the configured scope.")
    base.add_argument("paths", nargs="*", metavar="PATH")
    base.add_argument("--baseline", metavar="FILE", help="baseline file (default: rule file's, "
                      "else .memory-autopsy-baseline.json)")
    base.add_argument("--prune-only", action="store_true", help="only remove fixed entries, never add")
    _settings_options(base)
    base.set_defaults(handler=run_baseline)

    ci = sub.add_parser("ci", help="CI runner: SARIF file, annotations, job summary, outputs",
                        description="Lint the configured scope (or PATHs); report findings that "
                        "touch the pull request's files (or --changed-since REF).")
    ci.add_argument("paths", nargs="*", metavar="PATH", help="context (default: configured scope)")
    baseline_flags(ci)
    ci.add_argument("--include-baselined", action="store_true",
                    help="also report and upload baselined findings")
    ci.add_argument("--fail-on", choices=("info", "review", "warning", "error", "never"),
                    help="lowest severity that fails (default: rule file's, else warning)")
    ci.add_argument("--changed-since", metavar="REF", help="report findings touching files "
                    "changed since REF's merge base (instead of the pull request's files)")
    ci.add_argument("--changed-only", action=argparse.BooleanOptionalAction, default=True,
                    help="in a pull request, report only findings touching its files (default)")
    ci.add_argument("--sarif-file", metavar="FILE", help="write SARIF for upload to FILE")
    ci.add_argument("--format", "--output-format", choices=("github", "text", "json"), default="github")
    ci.add_argument("--verbose", "-v", action="store_true",
                    help="text format: also print each finding's layer, confidence and entity")
    ci.add_argument("--statistics", action="store_true",
                    help="text format: print per-rule counts instead of the findings")
    rule_flags(ci)
    ci.add_argument("--as-of", metavar="DATE", help="lint as of a date (later facts ignored)")
    ci.add_argument("--no-cache", action="store_true",
                    help="skip the caches: parse results (.memory-autopsy-cache/) and embeddings")
    _settings_options(ci)
    ci.set_defaults(handler=run_ci)

    init = sub.add_parser("init", help="write a starter memory-autopsy.toml")
    init.add_argument("path", nargs="?", default="memory-autopsy.toml", metavar="FILE",
                      help="where to write it (a folder gets memory-autopsy.toml inside; "
                      "missing folders are created)")
    init.add_argument("--force", action="store_true", help="overwrite an existing file")
    init.add_argument("--full", action="store_true",
                      help="print the example rule file that documents every key (writes nothing)")
    init.set_defaults(handler=run_init)

    rules = sub.add_parser("rules", help="list every rule with its default severity and help; or the rules named")
    rules.add_argument("names", nargs="*", metavar="RULE", help="rule names, codes or code prefixes (default: all)")
    rules.add_argument("--json", action="store_true")
    rules.set_defaults(handler=run_rules)


def _settings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="FILE", help="rule file (default: found by walking up)")
    parser.add_argument("--isolated", action="store_true", help="ignore any rule file")
    parser.add_argument("--engine", choices=("heuristic", "embed"))
    parser.add_argument("--max-age-days", type=int, metavar="N")
    parser.add_argument("--no-grounding", action="store_true",
                        help="do not check memory against the repository it lives in")


def run_hook(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.ci import changed as git_changes
    from memory_autopsy.config import locate
    from memory_autopsy.scope import context_files, may_hold, scope_root, start_listing

    settings = settings_from_args(args)
    root = scope_root(locate(args.config, isolated=args.isolated))
    _may_replay(args, settings, root)
    listing = None
    if not args.context:
        if not may_hold(args.paths, settings, root):
            return 0  # no file of the commit can be in the scope: nothing to report, nothing read
        listing = start_listing(root)  # git walks the working tree while the engine is imported
    from memory_autopsy.api import lint
    from memory_autopsy.cachedir import CACHE_DIR
    from memory_autopsy.ci.filters import filter_report, resolve_baseline, tracking, with_cache
    from memory_autopsy.commands.common import rule_filter
    from memory_autopsy.commands.lint import emit, output_format

    tracked = None if args.no_cache else tracking(root / CACHE_DIR)  # git asks while it lists
    context = context_files(args.context or [], settings, root, listing=listing)
    changed = git_changes.as_reported(frozenset(args.paths), tuple(context))
    if not changed:
        return 0
    rule_filter(args)  # --select/--ignore are checked before the scope is read
    fmt = output_format(args, "text")
    cached = with_cache(settings, args, root, tracked)
    if cached.parse_cache is None:
        _may_replay(args, None, root)  # no cache, or one git tracks: no record either
    report = lint(context, replace(cached, focus=changed), listing=None if listing is None else (str(root), listing))
    _, baseline = resolve_baseline(args, settings, root=root)
    shown = filter_report(report, baseline, changed, include_baselined=args.include_baselined)
    code = emit(args, shown.report, settings, fmt, out, err, changed=changed)
    if code == 1 and fmt == "text" and not args.quiet:
        err.write(ACCEPT_HINT)
    return code


def _may_replay(args: argparse.Namespace, settings: Settings | None, root: Path) -> None:
    """Tell the run's recorder (replay.py), if this process keeps one, whether the next run
    with the same inputs may replay this one: not with --no-cache, standard input, an output
    file (a side effect a replay would not make) or the embedding engine (a server's answers
    are no file it can check)."""
    from memory_autopsy import replay

    recorder = replay.recorder()
    if recorder is None:
        return
    stdin = "-" in (args.paths or []) or "-" in (args.context or []) or args.stdin_filename
    if settings is None or args.no_cache or stdin or args.output or settings.engine != "heuristic":
        recorder.root = None
        recorder.broken = True
    else:
        recorder.root = str(root)


ACCEPT_HINT = (
    "accept what is intended: `memory-autopsy baseline` records today's findings (commit the file), "
    "or put `<!-- memory-autopsy: ignore RULE -->` on the line above the flagged fact\n"
)


def run_baseline(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.ci.baseline_command import update_baseline

    return update_baseline(args, settings_from_args(args), out)


def run_ci(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.ci.runner import run_ci as runner

    return runner(args, out, err)


def run_init(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.starter import full_example, write_starter

    if args.full:
        out.write(full_example())
        return 0
    written = write_starter(args.path, force=args.force)
    out.write(f"wrote {written}; `memory-autopsy init --full` prints every key, documented\n")
    return 0


def run_rules(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.errors import UsageError
    from memory_autopsy.rules import HELP_URI, RULES, resolve, suggestion

    chosen, unknown = resolve(args.names)  # `rules status_conflict`, `rules MA601`, `rules MA6`
    if unknown:
        raise UsageError(f"rules: unknown rule {unknown[0]!r}{suggestion(unknown[0])}; "
                         "`memory-autopsy rules` lists the names and codes")
    shown = [r for r in RULES if not args.names or r.id in chosen]
    if args.json:
        import json

        rows = [{"id": r.id, "code": r.code, "name": r.name, "layer": r.layer, "severity": r.severity.value,
                 "summary": r.summary, "help": r.help, "bad": r.bad, "good": r.good,
                 "help_uri": HELP_URI.format(id=r.id)} for r in shown]
        out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return 0
    import textwrap

    for rule in shown:
        out.write(f"{rule.code}  {rule.id}  [default {rule.severity.value}, layer {rule.layer}]  {rule.summary}\n")
        out.write(textwrap.fill(rule.help, width=88, initial_indent="    ",
                                subsequent_indent="    ", break_on_hyphens=False) + "\n\n")
    return 0
