"""The files a change touched (git), and the git calls the scope listing shares (scope.py).

Every path returned is relative to the working directory with forward slashes, the way the
engine prints paths, so a finding's path can be tested against a changed-file set directly.
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_autopsy.errors import UsageError
from memory_autopsy.gitrun import GitError, decoded, git, git_started, in_work_tree, repo_root

__all__ = ["GitError", "decoded", "git", "git_started", "in_work_tree", "repo_root"]


def norm(path: str) -> str:
    return path.replace(os.sep, "/").removeprefix("./")


def from_root(root: Path, relative: str) -> str:
    return norm(os.path.relpath(root / relative))


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
