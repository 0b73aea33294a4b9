"""The CI filters over one engine report: baseline marking, then the changed-files view.

The baseline is compared against the whole report first (so counts and fixed entries are
judged on everything analysed), then findings are narrowed to those touching a changed file
(flagged or related side), then baselined findings are hidden unless asked for.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import replace
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from memory_autopsy.cachedir import CACHE_DIR
from memory_autopsy.ci.baseline import DEFAULT_PATH, Baseline, Entry, compare, load
from memory_autopsy.ci.changed import as_reported
from memory_autopsy.engine.findings import touches_changed
from memory_autopsy.errors import UsageError
from memory_autopsy.ingest.confined import Roots
from memory_autopsy.model import Finding, Report
from memory_autopsy.settings import Settings

PRUNE = "--prune-only"  # the `baseline` flag that only drops entries no longer found


class Filtered(NamedTuple):
    report: Report
    baselined: int = 0


def baseline_file(args: argparse.Namespace, settings: Settings) -> str | None:
    """The baseline file this run reads, and the one `baseline` writes: --baseline FILE, else the
    rule file's `baseline`, else .memory-autopsy-baseline.json; None with --no-baseline. Every
    command asks here, so `baseline` then `scan`, the hook or `ci` accept the same findings."""
    if getattr(args, "no_baseline", False):
        return None
    return getattr(args, "baseline", None) or settings.baseline or DEFAULT_PATH


def resolve_baseline(args: argparse.Namespace, settings: Settings,
                     root: Path | None = None) -> tuple[str | None, Baseline | None]:
    """The baseline in force (`baseline_file`) and its entries: a file named with --baseline must
    exist; a configured or default one may not yet (no baseline then). It must lie in the
    repository (`root`: the rule file's folder, looked up when not given; see `confined`)."""
    path = baseline_file(args, settings)
    if path is None:
        return None, None
    if root is None and path != DEFAULT_PATH:  # the default sits in the working directory
        root = rule_folder(args)
    if getattr(args, "baseline", None):
        return path, load(confined(path, root))
    if os.path.isfile(confined(path, root)):
        return path, load(path)
    return path, None


def baseline_command(args: argparse.Namespace, settings: Settings, *flags: str) -> str:
    """The `memory-autopsy baseline` command that updates the baseline this run read, over what
    it linted: its context (the hook's --context; its PATHs are the commit's files), else its
    PATHs, else the scope; its rule file; its baseline file when not the default."""
    import shlex

    paths = (args.context or []) if hasattr(args, "context") else (getattr(args, "paths", None) or [])
    words = ["memory-autopsy", "baseline", *flags, *(p for p in paths if p != "-")]
    if getattr(args, "config", None):
        words += ["--config", args.config]
    if getattr(args, "isolated", False):
        words.append("--isolated")
    path = baseline_file(args, settings)
    if path and path != DEFAULT_PATH:
        words += ["--baseline", path]
    return " ".join(shlex.quote(w) for w in words)


def confined(path: str, root: str | os.PathLike[str] | None = None) -> str:
    """`path`, when the file it names (links followed) lies in the repository, else a usage
    error. In a pull request the rule file and the flags of the workflow's `args` may name
    the baseline: a run must not read a file elsewhere on the runner as its baseline, nor the
    `baseline` command write one there. The working directory and `root` (the rule file's
    folder) count as inside; git is asked for the repository's root only past them."""
    if Roots.of([os.fspath(root)] if root is not None else []).inside(path):
        return path
    from memory_autopsy.ci.changed import repo_root

    top = repo_root()
    if top is not None and Roots.of([str(top)]).inside(path):
        return path
    raise UsageError(f"{path}: the baseline must be a file inside the repository "
                     f"({top or os.getcwd()}); not read or written")


_PATH = attrgetter("path")


def filter_report(
    report: Report,
    baseline: Baseline | None,
    changed: frozenset[str] | None = None,
    *,
    include_baselined: bool = False,
) -> Filtered:
    findings: tuple[Finding, ...] = report.findings
    fixed: tuple[Entry, ...] = ()
    if baseline is not None:
        comparison = compare(findings, baseline, report.paths)
        findings, fixed = comparison.findings, comparison.fixed
    if changed is not None:
        changed = as_reported(changed, report.paths)
        flagged = set(map(_PATH, findings))
        flagged.discard("")
        if not changed.issuperset(flagged):  # else each finding touches its own changed file
            findings = tuple(f for f in findings if touches_changed(f, changed))
        fixed = tuple(e for e in fixed if e.paths & changed)
    baselined = sum(f.baseline == "unchanged" for f in findings)
    if not include_baselined:
        findings = tuple(f for f in findings if f.baseline != "unchanged")
    notes = report.notes + ((f"{baselined} baselined",) if baselined and not include_baselined else ())
    shown = replace(report, findings=findings, fixed=tuple(e.as_dict() for e in fixed), notes=notes)
    return Filtered(shown, baselined)


def apply_filters(args: argparse.Namespace, report: Report, settings: Settings) -> Report:
    """The baseline in force (`resolve_baseline`) and `--changed-since REF`, for scan and report."""
    _, baseline = resolve_baseline(args, settings)
    changed = None
    if getattr(args, "changed_since", None):
        from memory_autopsy.ci.changed import changed_since

        changed = changed_since(args.changed_since)
    if baseline is None and changed is None:
        return report
    filtered = filter_report(report, baseline, changed,
                             include_baselined=getattr(args, "include_baselined", False))
    return filtered.report


def rule_folder(args: argparse.Namespace) -> Path | None:
    """The folder of the rule file in force: a baseline it names may sit beside it."""
    from memory_autopsy.config import locate

    found = locate(getattr(args, "config", None), isolated=getattr(args, "isolated", False))
    return None if found is None else found.resolve().parent


def scope_paths(args: argparse.Namespace, settings: Settings) -> list[str]:
    """The scope (the rule file's, else the default), what `baseline` records given no PATH."""
    from memory_autopsy.config import locate
    from memory_autopsy.scope import scope_files, scope_root, stderr_warning

    config_file = locate(getattr(args, "config", None), isolated=getattr(args, "isolated", False))
    files = scope_files(settings, scope_root(config_file))
    if not files:
        stderr_warning("no memory files in scope (see `include` in the rule file, or name PATHs)")
    return files


def with_cache(settings: Settings, args: argparse.Namespace, root: Path,
               tracked: Callable[[], bool] | None = None) -> Settings:
    """The hook and `ci` lint their whole scope on every run: unchanged files are read from the
    parse cache (keyed by their bytes) unless --no-cache, or unless git tracks the cache.
    `tracked`: `tracking` of the cache folder, asked earlier."""
    if getattr(args, "no_cache", False):
        return settings
    folder = root / CACHE_DIR
    if (tracked or tracking(folder))():
        from memory_autopsy.scope import stderr_warning

        stderr_warning(f"{CACHE_DIR} is committed to git: not read (a committed cache can hide "
                       f"findings); untrack it with `git rm -r --cached {CACHE_DIR}`")
        return settings
    if os.path.islink(folder):  # its entries would be another folder's: read from, written to
        from memory_autopsy.scope import stderr_warning

        stderr_warning(f"{CACHE_DIR} is a link: not used (the run has no cache); make it a folder")
        return settings
    return replace(settings, parse_cache=str(folder))


def tracking(folder: Path) -> Callable[[], bool]:
    """Whether git tracks a file in the cache folder, asked now and answered when called (the
    hook asks while git lists its scope). Its entries are keyed by bytes anyone can hash: a pull
    request that commits entries for its own memory files (the parse of a clean file under a
    bad file's key, findings kept for entities it changed) would have the run read them and
    report what the entries say. The cache keeps itself out of git (a `.gitignore` of `*`), so
    a tracked file there was added on purpose or by mistake; either way it is not read."""
    from memory_autopsy.ci.changed import GitError, git_started, in_work_tree

    if not (folder.is_dir() or folder.is_symlink()) or not in_work_tree(folder.parent):
        return lambda: False  # no cache yet, or no repository: git is not started to say so
    # asked from the folder above: git started inside would take a git folder's files committed
    # there (HEAD, config) for a repository, and run what that configuration says
    listed = git_started("ls-files", "-z", "--cached", "--", folder.name, cwd=folder.parent)

    def answer() -> bool:
        try:
            return bool(listed())
        except GitError:  # no git, or not a repository: nothing there is committed
            return False

    return answer
