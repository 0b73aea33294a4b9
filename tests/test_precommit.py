"""The pre-commit hook, validated and run for real with `pre-commit try-repo` and `pre-commit run` (offline)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SHARED, git, offline_wheels, run_process, write
from memory_autopsy.ingest.cache import SUFFIX

OLD = "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
NEW = "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n"
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache",
                                     ".mypy_cache", ".ruff_cache", "build", "dist", ".cache")


def pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed")
    return [sys.executable, "-m", "pre_commit"]


def offline_pip_env(home: Path) -> dict[str, str]:
    """pip may build the package only from wheels already on disk (virtualenv's seed wheels).

    Dependencies are not installed (PIP_NO_DEPS): the heuristic engine needs none of them on
    Python >= 3.11, and the test must never reach a package index."""
    wheels = offline_wheels()
    env = dict(os.environ)
    env.update(PRE_COMMIT_HOME=str(home), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_DEPS="1",
               VIRTUALENV_NO_DOWNLOAD="1")
    return env


def test_manifest_matches_the_schema_and_pre_commit() -> None:
    import yaml

    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = manifest[0]
    assert hook["id"] == "memory-autopsy" and hook["language"] == "python"
    assert hook["entry"] == "memory-autopsy hook" and hook["require_serial"] is True
    schema = SHARED / "schemas" / "pre-commit-hooks.json"
    if schema.is_file():
        import jsonschema

        jsonschema.Draft7Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(manifest)
    command = pre_commit()
    for what, name in (("validate-manifest", ".pre-commit-hooks.yaml"),
                       ("validate-config", ".pre-commit-config.yaml")):
        done = subprocess.run([*command, what, name], cwd=ROOT, check=False,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name, matched", [
    ("a.md", True), ("notes/b.MARKDOWN", True), ("s.json", True), ("s.jsonl", True),
    (".clinerules", True), (".clinerules/01-style", True), ("sub/.windsurfrules", True), (".cursorrules", True),
    (".cursor/rules/api.mdc", True), ("agent.af", True),
    ("a.txt", False), ("a.mdx", False), ("jsonl", False), ("x.clinerules.bak", False), ("src/app.py", False),
])
def test_files_pattern(name: str, matched: bool) -> None:
    import re

    import yaml

    pattern = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]["files"]
    assert bool(re.search(pattern, name)) is matched


# A file of every dialect where its system keeps it.
EVERY_DIALECT = ["CLAUDE.md", ".claude/projects/app/memory/MEMORY.md", ".claude/projects/app/memory/auth.md",
                 "memory-bank/activeContext.md", ".clinerules", ".clinerules/01-style", ".windsurfrules",
                 ".serena/memories/overview.md", ".cursor/rules/api.mdc", ".cursorrules", "GEMINI.md",
                 "AGENTS.md", "memory/2026-01-05.md", "memory.jsonl", "memory.json", "agents/helper.af"]


def test_the_hook_sees_every_file_the_default_scope_takes() -> None:
    """The hook's `files` is generated from the dialect table that makes the default scope: a
    commit of any memory file of any dialect runs the hook (`.clinerules` and `.mdc` did not)."""
    import re

    import yaml

    from memory_autopsy.ingest.dialects import DEFAULT_SCOPE, hook_files_pattern
    from memory_autopsy.selection import selected

    pattern = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]["files"]
    assert pattern == hook_files_pattern()
    for name in EVERY_DIALECT:
        assert selected(name, DEFAULT_SCOPE, ()), name
        assert re.search(pattern, name), name


def test_dogfood_hook_passes_on_examples() -> None:
    """The hook as this checkout's pre-commit config runs it (its baseline is named: at the
    default path, `scan examples/` here would read it too)."""
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entry = config["repos"][0]["hooks"][0]["entry"].split()
    args = entry[entry.index("memory_autopsy") + 1:]
    assert args[:1] == ["hook"] and "--baseline" in args
    result = run_process(*args, *sorted(f"examples/{p.name}" for p in (ROOT / "examples").iterdir()), cwd=ROOT)
    assert result.code == 0, (result.out + result.err + "\nthe examples changed on purpose? refresh "
                              "the dogfood baseline: PYTHONPATH=src python3 -m memory_autopsy "
                              "baseline --isolated examples --baseline .ci/examples-baseline.json")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_try_repo_fails_on_a_contradiction_and_passes_once_baselined(tmp_path: Path) -> None:
    command = pre_commit()
    env = offline_pip_env(tmp_path / "pre-commit-home")
    source = tmp_path / "hook-repo"
    shutil.copytree(ROOT, source, ignore=COPY_IGNORE)
    git(source, "init", "-q")
    git(source, "add", "-A")
    git(source, "commit", "-qm", "snapshot of the working tree")
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    write(project / "memory" / "old.md", OLD)  # memory/: a known memory location (default scope)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    write(project / "memory" / "new.md", NEW)
    git(project, "add", "memory/new.md")

    def try_repo() -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, "try-repo", str(source), "memory-autopsy"], cwd=project,
                              env=env, check=False, capture_output=True, text=True, timeout=600)

    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "stale" in failed.stdout and "old.md" in failed.stdout
    assert run_process("baseline", cwd=project).code == 0
    git(project, "add", ".memory-autopsy-baseline.json")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr

    # Installed at a fixed rev (try-repo makes a new environment each time), the same commit
    # tried twice (another hook failed, say): the second run replays the first one's record
    # and leaves the parse cache untouched (a full run touches every entry it reads).
    rev = git(source, "rev-parse", "HEAD").strip()
    write(project / ".pre-commit-config.yaml",
          f"repos:\n- repo: {source}\n  rev: {rev}\n  hooks:\n  - id: memory-autopsy\n")
    git(project, "add", ".pre-commit-config.yaml")

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, "run", "--files", "memory/new.md"], cwd=project, env=env,
                              check=False, capture_output=True, text=True, timeout=600)

    first = run()
    assert first.returncode == 0, first.stdout + first.stderr
    cache = project / ".memory-autopsy-cache"
    entries = sorted((p, p.stat().st_mtime_ns) for p in (cache / "v1").rglob(f"*{SUFFIX}"))
    assert entries
    second = run()
    # the first run's output, less the environment's installation notes
    assert second.returncode == 0 and first.stdout.endswith(second.stdout), second.stdout + second.stderr
    assert sorted((p, p.stat().st_mtime_ns) for p in (cache / "v1").rglob(f"*{SUFFIX}")) == entries
