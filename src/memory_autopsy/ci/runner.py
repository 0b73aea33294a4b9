"""`memory-autopsy ci`: the runner the GitHub Action calls (usable in any CI).

One engine run over the configured scope, then two views of it: the SARIF file for upload
covers the whole scope (GitHub ignores baselineState, so baselined findings stay out unless
asked for), while annotations, the job summary, the outputs and the exit code concern only the
findings that touch the change (the pull request's files, or --changed-since REF). A change
that alters the baseline says so, with the entries it adds, in the text output and the summary:
the baseline is the pull request's own, and "0 new" alone would hide what it accepts.
`code_scanning_view` renders the two GitHub formats for `ci` and `scan` alike, with paths
re-rooted at `report_root` (the repository, else the rule file's folder).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from memory_autopsy.ci import changed as git_changes
from memory_autopsy.ci.baseline import Baseline, Change, change, loads
from memory_autopsy.ci.filters import (
    PRUNE,
    Filtered,
    baseline_command,
    filter_report,
    resolve_baseline,
    with_cache,
)
from memory_autopsy.commands.common import (
    exit_code,
    rule_filter,
    select_rules,
    settings_from_args,
    write_output,
)
from memory_autopsy.config import locate
from memory_autopsy.errors import UsageError
from memory_autopsy.formatters.visible import scrub
from memory_autopsy.model import Report
from memory_autopsy.scope import context_files, scope_root
from memory_autopsy.settings import Settings


def semantic_by_default(settings: Settings, args: argparse.Namespace) -> Settings:
    """`ci` embeds with the packaged static model when it is installed (the `semantic` extra) and
    no engine was chosen (`--engine`, the rule file's `engine`) nor a server named: on the
    real-memory eval's test part it found 0.11 more of the labelled problems, failing no more
    findings. Without the extra, the heuristic engine runs as before: no `degraded`, which is
    for an engine asked for."""
    from memory_autopsy.embed.client import is_static
    from memory_autopsy.embed.static import installed

    if args.engine or settings.engine_chosen or not is_static(settings.embed) or not installed():
        return settings
    return replace(settings, engine="embed")


def run_ci(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.embed.trust import runner_embed
    from memory_autopsy.pipeline import lint

    if args.statistics and args.format != "text":
        raise UsageError(f"--statistics prints a text table, not {args.format}: add --format text")

    rule_filter(args)  # --select/--ignore are checked before the scope is read
    settings = semantic_by_default(runner_embed(settings_from_args(args), err), args)  # the endpoint and key: the runner's
    config_file = locate(args.config, isolated=args.isolated)
    scope = scope_root(config_file)
    context = context_files(args.paths, settings, scope)
    if not context:
        err.write("memory-autopsy: warning: no memory files in scope (check include/exclude)\n")
    changed, base = resolve_changed(args, err)
    report = select_rules(lint(context, with_cache(settings, args, scope)), args)  # no focus: the SARIF covers the scope
    baseline_file, baseline = resolve_baseline(args, settings, root=scope)
    if changed is not None:
        changed = git_changes.as_reported(changed, report.paths)
    shown = filter_report(report, baseline, changed, include_baselined=args.include_baselined)
    moved = baseline_change(baseline_file, baseline, base)
    if moved is not None:
        note = f"the baseline changed ({len(moved.added)} added, {moved.removed} dropped)"
        shown = shown._replace(report=replace(shown.report, notes=shown.report.notes + (note,)))
    root = report_root(config_file)
    if args.sarif_file:
        _write_sarif(report, baseline, args, settings, root, err)
    prune = baseline_command(args, settings, PRUNE) if shown.report.fixed else ""
    rendered = _render(shown.report, args.format, settings, changed, root, moved, prune, args)
    write_output(rendered, None, out, commands=args.format == "github")
    command = baseline_command(args, settings)
    _github_files(shown, changed, command, args.sarif_file, moved)
    return 0 if args.exit_zero else exit_code(shown.report, settings)


def resolve_changed(args: argparse.Namespace, err: TextIO) -> tuple[frozenset[str] | None, str | None]:
    """The change under review: --changed-since, else the pull request's files, else None (all);
    and the revision it is measured from (None when there is none)."""
    if args.changed_since:
        return git_changes.changed_since(args.changed_since), args.changed_since
    if not args.changed_only:
        return None, None
    base = pull_request_base(os.environ.get("GITHUB_EVENT_PATH"))
    if base is None:
        return None, None
    root = git_changes.repo_root()
    if root is None or not git_changes.ensure_commit(base, root):
        err.write(f"memory-autopsy: warning: cannot find the pull request base {base}; "
                  "reporting the whole scope\n")
        return None, None
    return git_changes.changed_since(base), base


def baseline_change(path: str | None, baseline: Baseline | None, ref: str | None) -> Change | None:
    """How the change under review altered the baseline in force: its file at the merge base of
    REF and HEAD against the working tree's (None: unchanged, or no base to compare with)."""
    root = git_changes.repo_root() if path and ref else None
    if root is None or path is None or ref is None:
        return None
    base = git_changes.merge_base(ref, root)
    relative = Path(os.path.relpath(os.path.realpath(path), os.path.realpath(root))).as_posix()
    current = baseline or Baseline()
    try:
        text = git_changes.git("show", f"{base}:{relative}", cwd=root)
    except (git_changes.GitError, ValueError):  # none there (or not text): all of it is the change's
        return change(path, base, None, current)
    try:
        old = loads(text, f"{base}:{relative}")
    except UsageError:  # unreadable, or an older fingerprint scheme: nothing to match against
        return change(path, base, Baseline(), current, comparable=False)
    return change(path, base, old, current)


def pull_request_base(event_path: str | None) -> str | None:
    if not event_path or not os.path.isfile(event_path):
        return None
    try:
        with open(event_path, encoding="utf-8") as handle:
            event = json.load(handle)
    except (OSError, ValueError):
        return None
    sha = (event.get("pull_request") or {}).get("base", {}).get("sha")
    return sha if isinstance(sha, str) and sha else None


def describe(moved: Change) -> str:
    """One sentence on how the change under review altered the baseline, for people."""
    from memory_autopsy.formatters.text import plural

    entries = plural(len(moved.added), "entry", "entries")
    accepted = plural(sum(e.count for e in moved.added), "finding")
    since = moved.base[:12]
    if moved.state == "added":
        return f"{moved.path}: the baseline is new in this change (none at {since}): {entries} accept {accepted}"
    if moved.state == "rewritten":
        return (f"{moved.path}: the baseline at {since} cannot be compared (unreadable, or older "
                f"fingerprints): all {entries} count as added ({accepted})")
    return (f"{moved.path}: this change adds {entries} ({accepted} accepted) and drops "
            f"{moved.removed} since {since}")


def report_root(config_file: Path | None) -> str:
    """The folder GitHub resolves paths against: the repository's root, else (outside git) the
    rule file's folder, else the working directory."""
    root = git_changes.repo_root()
    if root is None:
        root = config_file.resolve().parent if config_file is not None else Path.cwd()
    return str(root)


def code_scanning_view(report: Report, fmt: str, settings: Settings, *,
                       changed: frozenset[str] | None = None, root: str | None = None,
                       prune: str = "") -> str:
    """`sarif` or `github` output with repository-relative paths (`scan` and `ci` alike);
    `prune`: the command the github listing names for baselined findings gone."""
    if root is None:
        root = report_root(locate(None))
    if fmt == "sarif":
        from memory_autopsy.formatters import sarif

        return sarif.format_report(report, root=root, settings=settings)
    from memory_autopsy.formatters import github

    return github.format_report(report, changed=changed, root=root, prune=prune)


def _write_sarif(report: Report, baseline: Baseline | None, args: argparse.Namespace,
                 settings: Settings, root: str, err: TextIO) -> None:
    from memory_autopsy.formatters.sarif import truncation_note

    upload = filter_report(report, baseline, None, include_baselined=args.include_baselined)
    text = code_scanning_view(upload.report, "sarif", settings, root=root)
    write_output(text, args.sarif_file, err)
    note = truncation_note(text)
    if note:
        err.write(note + "\n")


def _render(report: Report, fmt: str, settings: Settings, changed: frozenset[str] | None,
            root: str, moved: Change | None, prune: str, args: argparse.Namespace | None = None) -> str:
    if fmt == "github":
        return code_scanning_view(report, fmt, settings, changed=changed, root=root, prune=prune)
    if fmt == "json":
        from memory_autopsy.formatters import json_format

        return json_format.format_report(report)
    from memory_autopsy.formatters import text

    listing = text.format_report(report, verbose=getattr(args, "verbose", False), prune=prune,
                                 statistics=getattr(args, "statistics", False))
    if moved is None:
        return listing
    return listing + text.baseline_changed(describe(moved), tuple(e.as_dict() for e in moved.added))


def _github_files(shown: Filtered, changed: frozenset[str] | None, command: str,
                  sarif_file: str | None, moved: Change | None) -> None:
    from memory_autopsy.formatters import summary

    new = sum(f.baseline != "unchanged" for f in shown.report.findings)
    changed_count = None if changed is None else len(changed)
    facts = summary.RunFacts(baselined=shown.baselined, update_command=command,
                             changed_files=changed_count, sarif_file=sarif_file,
                             baseline_changed=describe(moved) if moved else "",
                             baseline_added=tuple(e.as_dict() for e in moved.added) if moved else ())
    _append("GITHUB_STEP_SUMMARY", summary.format_report(shown.report, facts))
    outputs = {"findings": str(new + shown.baselined), "new-findings": str(new),
               "sarif-file": sarif_file or ""}
    _append("GITHUB_OUTPUT", "".join(output_line(k, v) for k, v in outputs.items()))


def output_line(name: str, value: str) -> str:
    if "\n" not in value and "\r" not in value:
        return f"{name}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def _append(variable: str, text: str) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(scrub(text))  # a path argument may hold a lone surrogate (undecodable bytes)
