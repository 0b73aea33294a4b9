"""Scope and paths (issue 12, items 1-3), through the CLI: which files a run reads.

Globs are gitignore-style and relative to the rule file's folder; without a rule file the scope
is the known memory locations of the dialect table; folders named honour .gitignore; a file
named is always read unless it is plainly not memory; a path that does not exist is exit 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import git, run_cli, write
from memory_autopsy.ingest.dialects import DEFAULT_SCOPE, DIALECTS
from memory_autopsy.scope import default_scope

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

OLD = "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
NEW = "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n"
CLEAN = "- dns: runs on Route53 (2026-02-01) (source: ops)\n"
DUPLICATED = "- cache-tier: uses redis 7 (2026-01-01) (source: ops)\n" * 2
MANIFEST = '{"name": "demo", "version": "1.0.0", "scripts": {"test": "pytest"}}\n'


def finding_paths(out: str) -> set[str]:
    return {f["path"] for f in json.loads(out)["findings"]}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    return tmp_path


# -- 1. globs, relative to the rule file; a pattern matching nothing warns -------------------

@needs_git
@pytest.mark.parametrize("pattern, path", [
    ("memory/**/*.md", "memory/notes.md"),
    (".claude/**/*.md", ".claude/CLAUDE.md"),
    ("memory/**/*.md", "memory/a/b/notes.md"),
    ("*.md", "deep/folder/notes.md"),
])
def test_documented_include_globs_select_the_file(repo: Path, pattern: str, path: str) -> None:
    write(repo / "memory-autopsy.toml", f'include = ["{pattern}"]\nfail-on = "info"\n')
    write(repo / path, DUPLICATED)
    result = run_cli("scan", "--json", cwd=repo)
    assert result.code == 1, result.err
    assert finding_paths(result.out) == {path}
    assert run_cli("baseline", cwd=repo).code == 0
    entries = json.loads((repo / ".memory-autopsy-baseline.json").read_text(encoding="utf-8"))
    assert path in json.dumps(entries)  # the baseline is not empty


@needs_git
def test_baseline_with_a_pattern_matching_nothing_warns(repo: Path) -> None:
    write(repo / "memory-autopsy.toml", 'include = ["memory/**/*.md", "memroy/**/*.md"]\n')
    write(repo / "memory" / "notes.md", DUPLICATED)
    result = run_cli("baseline", cwd=repo)
    assert result.code == 0, result.err
    assert "warning" in result.err and "'memroy/**/*.md'" in result.err
    assert "'memory/**/*.md'" not in result.err


@needs_git
def test_a_scope_matching_nothing_warns_and_scan_is_a_usage_error(repo: Path) -> None:
    write(repo / "memory-autopsy.toml", 'include = ["memroy/**"]\n')
    write(repo / "memory" / "notes.md", CLEAN)
    result = run_cli("scan", cwd=repo)
    assert result.code == 2 and "'memroy/**'" in result.err
    baseline = run_cli("baseline", cwd=repo)
    assert baseline.code == 0 and "'memroy/**'" in baseline.err and "no memory files" in baseline.err


@needs_git
def test_globs_resolve_from_the_rule_files_folder_in_a_subfolder(repo: Path) -> None:
    write(repo / "memory-autopsy.toml", 'include = ["memory/**/*.md"]\nfail-on = "info"\n')
    write(repo / "memory" / "notes.md", DUPLICATED)
    write(repo / "memory" / "deeper" / "more.md", CLEAN)
    inside = run_cli("scan", ".", "--json", cwd=repo / "memory")
    assert inside.code == 1, inside.err
    assert finding_paths(inside.out) == {"notes.md"}
    assert json.loads(inside.out)["facts"] == 3
    scope = run_cli("scan", "--json", cwd=repo / "memory")  # no path: the scope, from the root
    assert scope.code == 1 and finding_paths(scope.out) == {"notes.md"}


def test_cd_memory_and_scan_dot_without_a_rule_file(tmp_path: Path) -> None:
    write(tmp_path / "memory" / "notes.md", DUPLICATED)
    result = run_cli("scan", ".", "--json", "--fail-on", "info", cwd=tmp_path / "memory")
    assert result.code == 1, result.err
    assert finding_paths(result.out) == {"notes.md"}


# -- .gitignore for folders named -------------------------------------------------------------

@needs_git
def test_scan_of_a_folder_skips_gitignored_files(repo: Path) -> None:
    write(repo / ".gitignore", "memory/private.md\n")
    write(repo / "memory" / "notes.md", OLD)
    write(repo / "memory" / "private.md", NEW)
    result = run_cli("scan", "memory/", "--json", cwd=repo)
    assert result.code == 0, result.out
    assert json.loads(result.out)["facts"] == 1
    named = run_cli("scan", "memory/notes.md", "memory/private.md", "--json", cwd=repo)
    assert named.code == 1 and finding_paths(named.out) == {"memory/notes.md"}  # named: always read


@needs_git
def test_a_folder_named_that_git_ignores_is_still_read(repo: Path) -> None:
    write(repo / ".gitignore", "private/\n")
    write(repo / "private" / "notes.md", DUPLICATED)
    result = run_cli("scan", "private", "--json", "--fail-on", "info", cwd=repo)
    assert result.code == 1 and finding_paths(result.out) == {"private/notes.md"}


# -- 2. the default scope -----------------------------------------------------------------------

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
REAL_FILES = sorted(p.relative_to(REAL) for p in REAL.rglob("*") if p.is_file() and p.name != "SOURCES.md")


@pytest.mark.parametrize("relative", REAL_FILES, ids=[str(p) for p in REAL_FILES])
def test_every_real_dialect_file_is_in_the_default_scope(relative: Path) -> None:
    inside_system = Path(*relative.parts[1:]).as_posix()  # tests/fixtures/real/SYSTEM/<as in a repo>
    assert default_scope(inside_system), inside_system


@pytest.mark.parametrize("path", [
    "README.md", "CHANGELOG.md", "docs/guide.md", "docs/CLAUDE.md", "package.json", "notes.md",
    "src/app/settings.json", "memory/README.md", "memory-bank/package.json", ".github/AGENTS.md",
    "node_modules/x/CLAUDE.md", ".claude/settings.json", ".claude/commands/review.md",
])
def test_the_default_scope_leaves_out_what_is_not_memory(path: str) -> None:
    assert not default_scope(path)


def test_the_default_scope_is_the_dialect_tables() -> None:
    for dialect in DIALECTS:
        for glob in dialect.scope:
            example = glob.replace("**/", "").replace("/**", "/notes.md").replace("*", "x")
            if not example.endswith((".md", ".mdc", ".af", ".json", ".jsonl", "rules")):
                example += "/notes.md"
            assert default_scope(example), (dialect.name, glob, example)


def test_the_readme_lists_the_default_scope() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Which files are memory", 1)[1].split("\n#", 1)[0]
    for glob in DEFAULT_SCOPE:
        assert f"`{glob}`" in section, glob


@needs_git
def test_scan_with_no_path_lints_the_default_scope(repo: Path) -> None:
    write(repo / "memory-bank" / "progress.md", OLD)
    write(repo / "CLAUDE.md", NEW)
    write(repo / "README.md", DUPLICATED)
    write(repo / "docs" / "memory.md", DUPLICATED)
    write(repo / "package.json", MANIFEST)
    result = run_cli("scan", "--json", "--fail-on", "info", cwd=repo)
    assert result.code == 1, result.err
    assert finding_paths(result.out) == {"memory-bank/progress.md"}
    assert json.loads(result.out)["facts"] == 2


@needs_git
@pytest.mark.parametrize("longer", [False, True])
def test_the_scope_git_lists_is_every_listed_path_in_scope(repo: Path, monkeypatch, longer: bool) -> None:
    """git's listing is narrowed to memory names by searching it for their endings: the scope is
    every path it lists that is in scope, whatever the case of its ending, tracked or not; with a
    name that lower-cases by context (Σ) and, `longer`, one that lower-cases to more characters
    (İ, the listing is then narrowed path by path)."""
    from memory_autopsy.scope import in_scope, scope_files
    from memory_autopsy.settings import Settings

    names = ["memory-bank/PROGRESS.MD", "memory-bank/notes.Markdown", ".cursor/rules/a.MDC", "CLAUDE.md",
             "memory/store.JSONL", "memory/\u0391\u03a3.md", "memory/\u03a3.MD", "memory/a.md.bak",
             "memory/readme.txt", ".clinerules", "src/app.py", "docs/x.md", "memory/.md"]
    names += ["memory/\u0130ndex.md"] if longer else []
    for k, name in enumerate(names):
        write(repo / name, CLEAN)
        if k % 2:
            git(repo, "add", name)
    expected = sorted(n for n in names if in_scope(n, Settings()))
    assert len(expected) >= 8
    monkeypatch.chdir(repo)
    assert scope_files(Settings(), repo.resolve()) == expected


@needs_git
@pytest.mark.parametrize("rules", ["", 'include = ["memory-bank/*.md", "gone/*.md"]\n'])
def test_a_tracked_file_deleted_from_the_working_tree_is_out_of_scope(repo: Path, rules: str) -> None:
    """The scope is what git lists and the working tree holds (a deletion not yet committed
    leaves the file listed); a pattern matching only the deleted file matches nothing."""
    if rules:
        write(repo / "memory-autopsy.toml", rules)
    write(repo / "memory-bank" / "progress.md", DUPLICATED)
    write(repo / "memory-bank" / "gone.md", OLD)
    write(repo / "gone" / "notes.md", NEW)
    git(repo, "add", "-A")
    (repo / "memory-bank" / "gone.md").unlink()
    (repo / "gone" / "notes.md").unlink()
    result = run_cli("scan", "--json", "--fail-on", "info", cwd=repo)
    assert result.code == 1, result.err
    assert finding_paths(result.out) == {"memory-bank/progress.md"}
    assert json.loads(result.out)["facts"] == 2
    assert ("'gone/*.md'" in result.err) == bool(rules)


@needs_git
def test_scan_with_no_path_lints_the_configured_scope(repo: Path) -> None:
    write(repo / "memory-autopsy.toml", 'include = ["notes/*.md"]\nfail-on = "info"\n')
    write(repo / "notes" / "a.md", DUPLICATED)
    write(repo / "CLAUDE.md", DUPLICATED)  # default scope, but the rule file says otherwise
    result = run_cli("scan", "--json", cwd=repo)
    assert result.code == 1 and finding_paths(result.out) == {"notes/a.md"}


@needs_git
def test_without_a_rule_file_the_hook_skips_readme_and_package_json(repo: Path) -> None:
    write(repo / "README.md", OLD)  # would contradict CLAUDE.md, if it were memory
    write(repo / "package.json", MANIFEST)  # would be read as facts with no source
    write(repo / "CLAUDE.md", NEW)
    result = run_cli("hook", "CLAUDE.md", "README.md", "package.json", "--json", "--fail-on", "info", cwd=repo)
    assert result.code == 0, result.out
    assert json.loads(result.out)["facts"] == 1 and json.loads(result.out)["findings"] == []
    assert run_cli("hook", "README.md", "package.json", "--fail-on", "info", cwd=repo).out == ""
    write(repo / "memory-bank" / "progress.md", OLD)  # the same fact where memory lives
    caught = run_cli("hook", "CLAUDE.md", "README.md", "--json", cwd=repo)
    assert caught.code == 1 and finding_paths(caught.out) == {"memory-bank/progress.md"}


# -- 3. paths that are not there, files that are not memory --------------------------------------

def test_a_path_typo_fails_ci(tmp_path: Path) -> None:
    write(tmp_path / "clean.md", CLEAN)
    write(tmp_path / "memory" / "notes.md", CLEAN)
    result = run_cli("scan", "clean.md", "memroy/", "--fail-on", "warning", cwd=tmp_path)
    assert result.code == 2 and "memroy/" in result.err
    assert run_cli("scan", "clean.md", "memory/", "--fail-on", "warning", cwd=tmp_path).code == 0


@pytest.mark.parametrize("name, data, reason", [
    ("package.json", MANIFEST.encode(), "manifest"),
    ("pyproject.toml", b"[project]\nname = 'demo'\n", "manifest"),
    ("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
])
def test_a_named_file_that_is_not_memory_is_a_usage_error(tmp_path: Path, name: str, data: bytes,
                                                          reason: str) -> None:
    (tmp_path / name).write_bytes(data)
    result = run_cli("scan", name, "--isolated", cwd=tmp_path)
    assert result.code == 2 and name in result.err and reason in result.err


def test_a_named_markdown_file_is_read_whatever_the_scope(tmp_path: Path) -> None:
    write(tmp_path / "README.md", DUPLICATED)
    write(tmp_path / "notes.txt", DUPLICATED)  # another text file is read by content
    result = run_cli("scan", "README.md", "notes.txt", "--json", "--fail-on", "info", cwd=tmp_path)
    assert result.code == 1 and finding_paths(result.out) == {"README.md", "notes.txt"}


def test_a_folder_named_skips_manifests_and_project_documents(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "notes.md", DUPLICATED)
    write(tmp_path / "proj" / "README.md", DUPLICATED)
    write(tmp_path / "proj" / "package.json", MANIFEST)
    result = run_cli("scan", "proj", "--json", "--fail-on", "info", cwd=tmp_path)
    assert result.code == 1 and finding_paths(result.out) == {"proj/notes.md"}


def test_a_folder_with_no_memory_file_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "src" / "app.py", "print('hi')\n")
    result = run_cli("scan", "src", cwd=tmp_path)
    assert result.code == 2 and "src" in result.err


@needs_git
def test_a_folder_is_asked_about_only_below_the_top_of_its_work_tree(repo: Path, monkeypatch) -> None:
    """A folder named on the command line is read from git's listing unless git ignores it (then
    walked); the top of a work tree is never ignored, so git is not asked about it."""
    from memory_autopsy import scope
    from memory_autopsy.settings import Settings

    write(repo / "memory" / "notes.md", CLEAN)
    write(repo / "skipped" / "notes.md", CLEAN)
    write(repo / ".gitignore", "skipped/\n")
    asked: list[str] = []
    real_git = scope.git

    def spy(*args: str, cwd: Path | str | None = None) -> str:
        asked.append(args[0])
        return real_git(*args, cwd=cwd)

    monkeypatch.setattr(scope, "git", spy)
    monkeypatch.chdir(repo)
    assert scope.folder_files(".", Settings(), repo) == ["memory/notes.md"]
    assert "check-ignore" not in asked
    assert scope.folder_files("memory", Settings(), repo) == ["memory/notes.md"]
    assert asked.count("check-ignore") == 1
    assert scope.folder_files("skipped", Settings(), repo) == ["skipped/notes.md"]  # ignored: walked


def test_outside_any_repository_no_git_process_is_started(tmp_path: Path, monkeypatch) -> None:
    """An agent's memory folder outside git (`~/.claude/projects/...`) is scanned and hooked
    with no git process started only to fail; inside a repository git is asked as before."""
    outside = tmp_path / "home"
    write(outside / "memory" / "notes.md", OLD + NEW + DUPLICATED)
    assert not any((p / ".git").exists() for p in (outside.resolve(), *outside.resolve().parents))
    started = _spy_on_git(monkeypatch)
    scanned = run_cli("scan", "memory", "--json", cwd=outside)
    hooked = run_cli("hook", "memory/notes.md", "--json", cwd=outside)
    assert started == []
    assert finding_paths(scanned.out) == finding_paths(hooked.out) == {"memory/notes.md"}

    inside = tmp_path / "repo"
    git(inside.parent, "init", "-q", str(inside))
    write(inside / "memory" / "notes.md", OLD + NEW + DUPLICATED)
    started.clear()
    assert json.loads(run_cli("scan", "memory", "--json", cwd=inside).out) == json.loads(scanned.out)
    assert started  # in a work tree, git lists the folder


def _spy_on_git(monkeypatch) -> list[tuple[str, ...]]:
    """The git commands started from now on (every process starts through Popen)."""
    import subprocess

    started: list[tuple[str, ...]] = []
    real = subprocess.Popen

    class Spy(real):
        def __init__(self, cmd: list[str], *args: object, **kwargs: object) -> None:
            if cmd and cmd[0] == "git":
                started.append(tuple(cmd))
            super().__init__(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", Spy)
    return started


@needs_git
def test_a_hook_on_files_out_of_the_scope_lists_nothing(repo: Path, monkeypatch) -> None:
    """pre-commit runs the hook on every committed file its pattern matches (`*.md`, `*.json`):
    when none of them can be in the scope, the hook exits 0 without listing the scope (git's walk
    of the working tree); when one can, it lists it and reports as before."""
    write(repo / "memory" / "notes.md", OLD + NEW + DUPLICATED)
    write(repo / "README.md", DUPLICATED)
    write(repo / "package.json", MANIFEST)
    write(repo / "docs" / "memory" / "notes.md", DUPLICATED)  # `docs/` is not a memory location
    git(repo, "add", "-A")
    started = _spy_on_git(monkeypatch)
    result = run_cli("hook", "README.md", "package.json", "docs/memory/notes.md", "../elsewhere.md", cwd=repo)
    assert (result.code, result.out) == (0, "")
    assert not [cmd for cmd in started if "ls-files" in cmd]
    result = run_cli("hook", "README.md", "memory/notes.md", "--json", cwd=repo)
    assert result.code == 1 and finding_paths(result.out) == {"memory/notes.md"}
    assert [cmd for cmd in started if "ls-files" in cmd]

