"""Issue 43, item 7: one file name that is not UTF-8, anywhere in a repository, never breaks the
gate. git's listing is read as bytes; an odd name is listed (and read, when it is memory in
scope), skipped when it is outside the scope, and never fatal."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import git, run_cli, run_process

STATE = b"- 2024-01-01 billing uses PostgreSQL 14\n- 2025-03-01 billing uses PostgreSQL 16\n"
ODD_MEMORY = b"memory-bank/\xff\xfenotes.md"
ODD_OTHER = b"assets/\xe9t\xe9-\xff.txt"



@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "memory-bank").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "memory-bank" / "progress.md").write_bytes(STATE)
    with open(os.path.join(os.fsencode(root), ODD_MEMORY), "wb") as handle:
        handle.write(b"- 2024-02-01 the api uses Flask\n- 2025-02-01 the api moved to FastAPI\n")
    with open(os.path.join(os.fsencode(root), ODD_OTHER), "wb") as handle:
        handle.write(b"not memory\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "odd names")
    return root


@pytest.mark.parametrize("command", [("scan",), ("scan", "."), ("ci",), ("hook", "memory-bank/progress.md")])
def test_an_odd_name_never_stops_the_gate(repo: Path, command: tuple[str, ...]) -> None:
    result = run_process(*command, cwd=repo)
    assert result.code == 1, result.err  # the findings, not an internal error (3)
    assert "internal error" not in result.err and "Traceback" not in result.err


def test_the_odd_memory_file_in_scope_is_read_and_the_other_skipped(repo: Path) -> None:
    result = run_cli("scan", "--format", "json", cwd=repo)
    paths = {f["path"] for f in json.loads(result.out)["findings"]}
    assert "memory-bank/progress.md" in paths
    assert any(p.startswith("memory-bank/") and p.endswith("notes.md") and p != "memory-bank/progress.md"
               for p in paths)
    assert not any(p.startswith("assets/") for p in paths)


def test_a_baseline_over_an_odd_name_is_written_and_honoured(repo: Path) -> None:
    written = run_process("baseline", cwd=repo)
    assert written.code == 0, written.err
    assert json.loads((repo / ".memory-autopsy-baseline.json").read_text(encoding="utf-8"))["entries"]
    again = run_process("ci", cwd=repo)
    assert again.code == 0, again.err + again.out


def test_a_second_hook_run_replays_over_an_odd_name(repo: Path) -> None:
    first = run_process("hook", "memory-bank/progress.md", cwd=repo)
    second = run_process("hook", "memory-bank/progress.md", cwd=repo)
    assert (first.code, second.code) == (1, 1), first.err + second.err
    assert first.out == second.out


@pytest.mark.parametrize("command", [("scan", "memory"), ("scan",), ("ci",), ("hook", "memory/notes.md"),
                                     ("baseline",)])
def test_a_planted_git_folder_runs_nothing(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A pull request fills a memory folder with a git folder's files and a `core.fsmonitor`
    command: git started there took it for a bare repository and ran the command."""
    root, marker = tmp_path / "repo", tmp_path / "ran"
    (root / "memory" / "objects").mkdir(parents=True)
    (root / "memory" / "refs").mkdir()
    (root / "memory" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (root / "memory" / "config").write_text(
        f'[core]\n\tfsmonitor = "touch {marker}; false"\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n',
        encoding="utf-8")
    (root / "memory" / "notes.md").write_bytes(STATE)
    for keep in ("objects", "refs"):
        (root / "memory" / keep / ".keep").write_text("", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a planted git folder")
    result = run_process(*command, cwd=root)
    assert result.code in (0, 1), result.err
    assert not marker.exists()
