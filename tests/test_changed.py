"""Changed files: the whole scope is context, only findings touching a changed file are reported.

The memory lives in `memory/`, a known memory location: the default scope (no rule file)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import git, run_cli, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

OLD = "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
NEW = "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n"
LEGACY = "- cache-tier: uses redis 7 (2026-01-01) (source: ops)\n" * 2
CLEAN = "- dns: runs on Route53 (2026-02-01) (source: ops)\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    write(tmp_path / "memory" / "old.md", OLD)
    write(tmp_path / "memory" / "legacy.md", LEGACY)
    write(tmp_path / "README.txt", "not memory\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def paths_of(out: str) -> list[tuple[str, str]]:
    return [(f["path"], f["rule"]) for f in json.loads(out)["findings"]]


def test_hook_catches_a_new_fact_contradicting_an_untouched_file(repo: Path) -> None:
    write(repo / "memory" / "new.md", NEW)
    result = run_cli("hook", "memory/new.md", "--json", cwd=repo)
    assert result.code == 1
    assert paths_of(result.out) == [("memory/old.md", "stale")]


def test_hook_does_not_dump_old_problems_on_the_author(repo: Path) -> None:
    write(repo / "memory" / "new.md", CLEAN)
    result = run_cli("hook", "memory/new.md", cwd=repo)
    assert result.code == 0, result.out
    assert "legacy.md" not in result.out
    assert run_cli("hook", "memory/legacy.md", "--fail-on", "info", cwd=repo).code == 1  # touching it is


def test_hook_ignores_files_that_are_not_memory(repo: Path) -> None:
    result = run_cli("hook", "README.txt", "missing.md", cwd=repo)
    assert result.code == 0 and result.out == ""


def test_hook_honours_include_globs(repo: Path) -> None:
    write(repo / "memory-autopsy.toml", 'include = ["notes/**"]\n')
    write(repo / "notes" / "a.md", NEW)
    write(repo / "other" / "b.md", LEGACY)
    assert run_cli("hook", "notes/a.md", cwd=repo).code == 0  # memory/old.md is not memory now
    assert run_cli("hook", "other/b.md", cwd=repo).code == 0  # not memory at all
    write(repo / "notes" / "old.md", OLD)
    assert run_cli("hook", "notes/a.md", cwd=repo).code == 1


def test_default_scope_skips_dot_folders_unless_included(repo: Path) -> None:
    (repo / "memory" / "old.md").unlink()
    write(repo / ".notes" / "memory.md", OLD)
    write(repo / ".notes" / "new.md", NEW)  # one store: claims are compared within their store
    assert run_cli("hook", ".notes/new.md", cwd=repo).code == 0
    write(repo / "memory-autopsy.toml", 'include = ["memory/*.md", ".notes/**/*.md"]\n')
    result = run_cli("hook", ".notes/new.md", "--json", cwd=repo)
    assert result.code == 1 and paths_of(result.out) == [(".notes/memory.md", "stale")]


def test_default_scope_reads_memory_dot_folders(repo: Path) -> None:
    (repo / "memory" / "old.md").unlink()
    write(repo / ".claude" / "memory" / "MEMORY.md", OLD)
    write(repo / ".claude" / "memory" / "new.md", NEW)
    result = run_cli("hook", ".claude/memory/new.md", "--json", cwd=repo)
    assert result.code == 1
    assert (".claude/memory/MEMORY.md", "stale") in paths_of(result.out)


def test_hook_context_option(repo: Path) -> None:
    write(repo / "memory" / "ctx" / "new.md", NEW)
    assert run_cli("hook", "memory/ctx/new.md", "--context", "memory/ctx", cwd=repo).code == 0
    assert run_cli("hook", "memory/ctx/new.md", cwd=repo).code == 1


def test_hook_honours_the_baseline(repo: Path) -> None:
    write(repo / "memory" / "new.md", NEW)
    assert run_cli("baseline", cwd=repo).code == 0
    assert run_cli("hook", "memory/new.md", cwd=repo).code == 0
    assert run_cli("hook", "memory/legacy.md", cwd=repo).code == 0


def test_scan_changed_since_uses_the_configured_scope(repo: Path) -> None:
    write(repo / "memory" / "new.md", NEW)  # untracked counts as changed
    result = run_cli("scan", "--changed-since", "HEAD", "--json", cwd=repo)
    assert result.code == 1 and paths_of(result.out) == [("memory/old.md", "stale")]
    git(repo, "add", "memory/new.md")
    git(repo, "commit", "-qm", "pr")
    result = run_cli("scan", "--changed-since", "HEAD~1", "--json", cwd=repo)
    assert paths_of(result.out) == [("memory/old.md", "stale")]
    assert run_cli("scan", "--changed-since", "HEAD", cwd=repo).code == 0


def test_changed_since_a_branch_uses_the_merge_base(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    write(repo / "memory" / "new.md", NEW)
    git(repo, "add", "memory/new.md")
    git(repo, "commit", "-qm", "feature")
    git(repo, "checkout", "-q", "main")
    write(repo / "memory" / "main-only.md", LEGACY.replace("cache-tier", "queue"))
    git(repo, "add", "memory/main-only.md")
    git(repo, "commit", "-qm", "main moves on")
    git(repo, "checkout", "-q", "feature")
    result = run_cli("scan", ".", "--changed-since", "main", "--json", cwd=repo)
    assert paths_of(result.out) == [("memory/old.md", "stale")]


def test_changed_since_errors(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    bad = run_cli("scan", ".", "--changed-since", "no-such-ref", cwd=repo)
    assert bad.code == 2 and "no-such-ref" in bad.err
    outside = tmp_path_factory.mktemp("plain")
    write(outside / "m.md", OLD)
    result = run_cli("scan", "m.md", "--changed-since", "HEAD", cwd=outside)
    assert result.code == 2 and "git" in result.err


def test_changed_paths_from_a_subfolder(repo: Path) -> None:
    write(repo / "memory" / "sub" / "new.md", NEW)
    result = run_cli("scan", ".", "--changed-since", "HEAD", "--json", "--isolated", cwd=repo / "memory" / "sub")
    assert result.code == 0  # old.md is outside the context named from sub/
    result = run_cli("scan", "..", "--changed-since", "HEAD", "--json", cwd=repo / "memory" / "sub")
    assert paths_of(result.out) == [("../old.md", "stale")]


def test_hook_hints_how_to_accept_and_counts_the_baselined(repo: Path) -> None:
    write(repo / "memory" / "new.md", NEW)
    result = run_cli("hook", "memory/new.md", cwd=repo)
    assert result.code == 1 and "memory-autopsy baseline" in result.err and "ignore RULE" in result.err
    assert "== 1 finding (" in result.out  # one finding, not "1 findings"
    assert run_cli("baseline", cwd=repo).code == 0
    accepted = run_cli("hook", "memory/new.md", cwd=repo)
    assert accepted.code == 0 and "no new findings" in accepted.out and "1 baselined" in accepted.out
