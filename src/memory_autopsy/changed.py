"""The configured scope (what counts as memory) and the files a change touched (git).

Every path returned is relative to the working directory with forward slashes, the way the
engine prints paths, so a finding's path can be tested against a changed-file set directly.
Globs in the rule file are matched against paths relative to the scope root (the rule file's
folder, else the repository root, else the working directory).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from memory_autopsy.errors import UsageError
from memory_autopsy.ingest.dialects import hidden_folder, is_memory_file
from memory_autopsy.selection import selected
from memory_autopsy.settings import Settings

ALWAYS_SKIPPED = ("memory-autopsy.toml", ".memory-autopsy-baseline.json")


class GitError(UsageError):
    """A git command failed; the message carries git's own words."""


def git(*args: str, cwd: Path | str | None = None) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except OSError as error:
        raise GitError(f"git is not available: {error}") from None
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def repo_root(cwd: Path | str | None = None) -> Path | None:
    try:
        return Path(git("rev-parse", "--show-toplevel", cwd=cwd).strip())
    except GitError:
        return None


def scope_root(config_file: Path | None) -> Path:
    if config_file is not None:
        return config_file.resolve().parent
    return repo_root() or Path.cwd()


def norm(path: str) -> str:
    return path.replace(os.sep, "/").removeprefix("./")


def from_root(root: Path, relative: str) -> str:
    return norm(os.path.relpath(root / relative))


def in_scope(path: str, settings: Settings) -> bool:
    """Whether a root-relative path counts as memory under the rule file's include/exclude."""
    parts = path.split("/")
    if parts[-1] in ALWAYS_SKIPPED:
        return False
    if settings.baseline and norm(os.path.normpath(settings.baseline)) == path:
        return False
    default_scope = not settings.include
    if default_scope and (any(hidden_folder(p) for p in parts[:-1]) or not is_memory_file(parts[-1])):
        return False
    return selected(path, settings.include, settings.exclude)


def scope_files(settings: Settings, root: Path) -> list[str]:
    """Every memory file of the configured scope, as working-directory-relative paths."""
    listed = _git_listing(root)
    if listed is None:
        listed = _walk(root, skip_dots=not settings.include)
    return sorted(from_root(root, p) for p in listed if in_scope(p, settings))


def context_files(paths: Sequence[str], settings: Settings, root: Path) -> list[str]:
    """Files named or found under folders (the context given on the command line)."""
    if not paths:
        return scope_files(settings, root)
    files: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            base = Path(given)
            found = (norm(str(base / p)) for p in _walk(base, skip_dots=True)
                     if is_memory_file(p.rsplit("/", 1)[-1]))
            files += [f for f in found if selected(f, settings.include, settings.exclude)]
        elif os.path.isfile(given):
            files.append(norm(given))
        else:
            raise UsageError(f"{given}: no such file or directory")
    return sorted(set(files))


def _git_listing(root: Path) -> list[str] | None:
    try:
        out = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=root)
    except GitError:
        return None
    return [p for p in dict.fromkeys(out.split("\0")) if p and (root / p).is_file()]


def _walk(root: Path, *, skip_dots: bool) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        if skip_dots:
            dirs[:] = [d for d in dirs if not hidden_folder(d)]
        relative = Path(folder).relative_to(root)
        found += [(relative / f).as_posix() for f in files
                  if not (skip_dots and f.startswith(".") and not is_memory_file(f))]
    return found


def changed_since(ref: str) -> frozenset[str]:
    """Files changed between REF's merge base with HEAD and the working tree, plus untracked."""
    root = repo_root()
    if root is None:
        raise UsageError("--changed-since needs a git repository")
    try:
        git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", cwd=root)
    except GitError:
        raise UsageError(f"--changed-since: unknown revision {ref!r}") from None
    base = merge_base(ref, root)
    names = git("diff", "--name-only", "-z", "--diff-filter=ACMRT", base, cwd=root).split("\0")
    names += git("ls-files", "-z", "--others", "--exclude-standard", cwd=root).split("\0")
    return frozenset(from_root(root, n) for n in names if n)


def merge_base(ref: str, root: Path) -> str:
    """The merge base of REF and HEAD; REF itself when history is too shallow to find one."""
    try:
        return git("merge-base", ref, "HEAD", cwd=root).strip()
    except GitError:
        return ref


def ensure_commit(sha: str, root: Path) -> bool:
    """Make SHA available locally (a shallow CI checkout lacks the PR base); False if it cannot."""
    if _has_commit(sha, root):
        return True
    shallow = git("rev-parse", "--is-shallow-repository", cwd=root).strip() == "true"
    depth = ["--depth=1"] if shallow else []
    try:
        git("fetch", "--no-tags", "--quiet", *depth, "origin", sha, cwd=root)
    except GitError:
        return False
    return _has_commit(sha, root)


def _has_commit(sha: str, root: Path) -> bool:
    try:
        git("cat-file", "-e", f"{sha}^{{commit}}", cwd=root)
    except GitError:
        return False
    return True


def as_reported(changed: frozenset[str], paths: tuple[str, ...]) -> frozenset[str]:
    """The changed files among the analysed ones, spelled as the report spells them
    (`../sub/a.md` and `a.md` can name one file)."""
    keys = {os.path.normcase(os.path.abspath(p)) for p in changed}
    return frozenset(p for p in paths if os.path.normcase(os.path.abspath(p)) in keys)
