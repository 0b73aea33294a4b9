"""Running git: one command at a time, its output decoded as file names are, its answer handed
to the hook's run record (replay). Shared by the scope listing, the CI layer and the grounding
layer's view of the repository (pipeline)."""

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
    raises as `git` does, each time it is called. A caller with other work to do first (the hook imports the engine
    while git lists a large working tree) lets git run on another core meanwhile."""
    import subprocess  # here, not at import: a run outside a repository starts no git (in_work_tree)

    try:
        process = subprocess.Popen([*replay.GIT, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as error:
        failure = GitError(f"git is not available: {error}")

        def failed() -> str:
            raise failure

        return failed

    answer: list[str | GitError] = []

    def finished() -> str:
        if not answer:  # asked again, the same answer: git ran once
            raw, err_raw = process.communicate()
            out, err = decoded(raw), err_raw.decode("utf-8", "replace")
            recorder = replay.recorder()
            if recorder is not None:  # the hook's record of its run: git's answer is an input
                recorder.git(args, None if cwd is None else str(cwd), process.returncode == 0, out)
            answer.append(GitError(f"git {' '.join(args)}: {err.strip() or 'failed'}") if process.returncode else out)
        if isinstance(answer[0], GitError):
            raise answer[0]
        return answer[0]

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
    """The top of the work tree `cwd` lies in; None outside one, or when git cannot say."""
    if not in_work_tree(cwd):
        return None
    try:
        return Path(git("rev-parse", "--show-toplevel", cwd=cwd).strip())
    except GitError:
        return None
