"""The files a change touched (git), and the git calls the scope listing shares (scope.py).

Every path returned is relative to the working directory with forward slashes, the way the
engine prints paths, so a finding's path can be tested against a changed-file set directly.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memory_autopsy import replay
from memory_autopsy.errors import UsageError


class GitError(UsageError):
    """A git command failed; the message carries git's own words."""


def git(*args: str, cwd: Path | str | None = None) -> str:
    return git_started(*args, cwd=cwd)()


def git_started(*args: str, cwd: Path | str | None = None) -> Callable[[], str]:
    """`git(*args)` started now: the call it returns waits for git and returns its output, or
    raises as `git` does. A caller with other work to do first (the hook imports the engine
    while git lists a large working tree) lets git run on another core meanwhile."""
    import subprocess  # here, not at import: a run outside a repository starts no git (in_work_tree)

    try:
        process = subprocess.Popen([*replay.GIT, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
        failure = GitError(f"git is not available: {error}")

        def failed() -> str:
            raise failure

        return failed

    def finished() -> str:
        raw, err_raw = process.communicate()
        out, err = decoded(raw), err_raw.decode("utf-8", "replace")
        recorder = replay.recorder()
        if recorder is not None:  # the hook's record of its run: git's answer is an input
            recorder.git(args, None if cwd is None else str(cwd), process.returncode == 0, out)
        if process.returncode != 0:
            raise GitError(f"git {' '.join(args)}: {err.strip() or 'failed'}")
        return out

    return finished


def decoded(output: bytes) -> str:
    """git's output as text: a file name that is not UTF-8 keeps its bytes (surrogateescape, as
    the file system's own names decode), so it is listed, opened and skipped like any other,
    where a strict decoding stopped the run on one odd name anywhere in the repository."""
    return output.decode("utf-8", "surrogateescape")


def in_work_tree(cwd: Path | str | None = None) -> bool:
    """False only where git finds no repository: no `.git` in the folder or above it and no
    GIT_DIR or GIT_WORK_TREE to point elsewhere. A scan of a folder outside git (an agent's
    memory folder in a home directory) then starts no git process only to hear so."""
    return replay.in_work_tree(os.fspath(cwd or "."))  # the hook's second run asks it too


def repo_root(cwd: Path | str | None = None) -> Path | None:
    if not in_work_tree(cwd):
        return None
    try:
        return Path(git("rev-parse", "--show-toplevel", cwd=cwd).strip())
    except GitError:
        return None


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
