"""Every entry point reads the same files (issue 47, item 2): `scan`, `scan .`, `hook`, `ci`,
`baseline`, `budget`, `as-of`, `reconcile` and MCP `memory_lint` on one repository holding every
dialect beside a README, docs/, manifests and a code folder called `memory`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import committed_repo, run_cli, write
from memory_autopsy import agent_tools
from memory_autopsy.ingest.confined import Roots

BULLET = "- billing: uses PostgreSQL 14 (2026-01-05)\n"
REPOSITORY = {
    "memory-bank/activeContext.md": "# Active context\n\n## Current focus\n- Add retry to the invoice sync job\n",
    "memory-bank/progress.md": "# Progress\n\n## Done\n- [x] Add retry to the invoice sync job\n",
    "CLAUDE.md": "# Project\n\n@docs/style.md\n\n- billing: uses PostgreSQL 16 (2026-06-02)\n",
    "docs/style.md": "# Style\n\n- Write tests with pytest\n",  # imported by CLAUDE.md: loaded, so read
    "docs/guide.md": "# Guide\n\n- billing: uses MySQL 8 (2026-07-01)\n",  # documentation, not memory
    ".claude/memory/MEMORY.md": "# Memory\n\n" + BULLET,
    ".serena/memories/overview.md": "# Overview\n\n- The API is served by FastAPI\n",
    ".cursor/rules/db.mdc": "---\ndescription: database\nalwaysApply: true\n---\n- Use PostgreSQL for billing\n",
    ".clinerules": "- Run the tests before each commit\n",
    ".windsurfrules": "- Keep functions short\n",
    ".cursorrules": "- Prefer composition over inheritance\n",
    "AGENTS.md": "# Agents\n\n- Run `npm test` before pushing\n",
    "memory.jsonl": json.dumps({"type": "entity", "name": "billing", "entityType": "service",
                                "observations": ["uses PostgreSQL 14"]}) + "\n",
    "README.md": "# App\n\n" + BULLET,
    "package.json": '{"name": "app", "version": "1.0.0", "scripts": {"test": "vitest"}}\n',
    "tsconfig.json": '{"compilerOptions": {"strict": true}}\n',
    "src/memory/schema.json": '{"type": "object", "properties": {"claim": {"type": "string"}}}\n',
    "src/memory/store.ts": "export const store = new Map();\n",
    "src/memory/NOTES.md": "# Notes for the store module\n\n- billing: uses Redis 7\n",
}
MEMORY = {"memory-bank/activeContext.md", "memory-bank/progress.md", "CLAUDE.md", "docs/style.md",
          ".claude/memory/MEMORY.md", ".serena/memories/overview.md", ".cursor/rules/db.mdc", ".clinerules",
          ".windsurfrules", ".cursorrules", "AGENTS.md", "memory.jsonl"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return committed_repo(tmp_path_factory.mktemp("one-scope") / "repo", REPOSITORY)


def files(result_out: str, key: str = "files") -> set[str]:
    return set(json.loads(result_out)[key])


def test_scan_reads_the_scope_and_so_does_scan_dot(repo: Path) -> None:
    assert files(run_cli("scan", "--json", "--no-baseline", cwd=repo).out) == MEMORY
    assert files(run_cli("scan", ".", "--json", "--no-baseline", cwd=repo).out) == MEMORY


def test_the_hook_and_ci_read_the_scope(repo: Path) -> None:
    hook = run_cli("hook", "memory-bank/progress.md", "--format", "json", "--no-baseline", cwd=repo)
    assert files(hook.out) == MEMORY
    ci = run_cli("ci", "--format", "json", "--no-changed-only", "--no-baseline", cwd=repo)
    assert files(ci.out) == MEMORY


def test_budget_as_of_and_reconcile_default_to_the_scope(repo: Path) -> None:
    budget = run_cli("budget", cwd=repo)
    listed = {line.split()[0] for line in budget.out.splitlines()[1:] if line.strip()}
    assert listed and listed <= MEMORY and listed == {
        line.split()[0] for line in run_cli("budget", ".", cwd=repo).out.splitlines()[1:] if line.strip()}
    assert files(run_cli("as-of", "2026-12-01", "--json", cwd=repo).out, "stores") == MEMORY
    assert files(run_cli("reconcile", "--json", cwd=repo).out, "sources") == MEMORY


def test_baseline_and_baseline_dot_accept_the_same_findings(repo: Path) -> None:
    counted = []
    for paths in ((), (".",)):
        out = run_cli("baseline", *paths, "--baseline", f"accepted-{len(paths)}.json", cwd=repo).out
        counted.append(re.search(r"(\d+) baselined finding", out)[1])  # type: ignore[index]
    assert counted[0] == counted[1] != "0"


def test_mcp_memory_lint_reads_what_scan_reads(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    assert set(agent_tools.memory_lint(".", roots=Roots.of())["files"]) == MEMORY
    scanned = json.loads(run_cli("scan", "--json", "--no-baseline", cwd=repo).out)
    assert agent_tools.memory_lint(".", roots=Roots.of())["counts"] == scanned["counts"]


def test_a_code_folder_called_memory_is_left_out_outside_git_too(tmp_path: Path) -> None:
    for name, text in {"memory/2026-01-05.md": BULLET, "src/memory/NOTES.md": BULLET,
                       "src/memory/store.ts": "export const store = new Map();\n"}.items():
        write(tmp_path / name, text)
    assert files(run_cli("scan", "--json", "--no-baseline", cwd=tmp_path).out) == {"memory/2026-01-05.md"}
