"""Reachability: what the agent loads, links and never reads; budgets, dead links, orphans."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import EXAMPLES, ROOT, run_cli
from memory_autopsy.api import load_store
from memory_autopsy.engine.reachability import LINKED, LOADED, UNREACHABLE, analyse

REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "claude-code"


def findings(*args: str, cwd: Path = ROOT) -> list[dict]:  # type: ignore[type-arg]
    result = run_cli("scan", *args, "--json", cwd=cwd)
    return json.loads(result.out)["findings"]  # type: ignore[no-any-return]


def test_claude_memory_example() -> None:
    found = {(f["rule"], f["path"].split("claude-memory/")[1], f["line"]) for f in findings(str(EXAMPLES / "claude-memory"))}
    assert found == {
        ("broken_link", "CLAUDE.md", 4),  # @docs/style.md does not exist
        ("broken_link", "memory/MEMORY.md", 5),  # the index links a renamed topic file
        ("stale", "memory/MEMORY.md", 8),  # corrected only past the budget
        ("beyond_budget", "memory/MEMORY.md", 201),
        ("unlinked_memory", "memory/project_ledger.md", 1),
    }


def test_a_correction_the_agent_never_reads_is_an_error_that_says_so() -> None:
    (conflict,) = [f for f in findings(str(EXAMPLES / "claude-memory")) if f["rule"] == "stale"]
    assert conflict["severity"] == "error"
    assert "never the correction" in conflict["message"] and "past the load budget of MEMORY.md" in conflict["message"]


def test_states_on_a_real_memory_folder() -> None:
    store = load_store([str(REAL)])
    reach = analyse(store)
    index = str(REAL / ".claude" / "memory" / "MEMORY.md")
    assert reach.state[str(REAL / "CLAUDE.md")] == LOADED
    topics = [p for p in reach.state if "/memory/" in p and not p.endswith("MEMORY.md")]
    assert topics and all(reach.state[p] == LINKED for p in topics)  # every saved topic file is linked
    assert all(reach.of(f) == LOADED for f in store.facts if f.path == index)  # 154 lines: within budget


def test_dead_index_links_on_a_real_memory_folder() -> None:
    index = REAL / ".claude" / "memory" / "MEMORY.md"
    expected = set()
    for number, line in enumerate(index.read_text(encoding="utf-8").splitlines(), 1):
        for target in re.findall(r"\]\(([^)\s]+\.md)\)", line):
            if not (index.parent / target).exists():
                expected.add(number)
    assert expected  # the saved copy holds only some of the topic files it links
    found = {f["line"] for f in findings(str(REAL)) if f["rule"] == "broken_link"}
    assert found == expected
    assert not [f for f in findings(str(REAL)) if f["rule"] in ("unlinked_memory", "beyond_budget")]


def test_imports_loops_depth_and_code(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text(
        "# Rules\n- loop: @a.md\n- deep: @d1.md\n- code: `@not/an/import.md`\n```\n@docs/x.md\n```\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("- see @b.md\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("- see @a.md\n", encoding="utf-8")
    for n in range(1, 7):
        (tmp_path / f"d{n}.md").write_text(f"- next @d{n + 1}.md\n" if n < 6 else "- the end\n", encoding="utf-8")
    broken = [f for f in findings("CLAUDE.md", cwd=tmp_path) if f["rule"] == "broken_link"]
    assert [(f["line"], "loop" in f["message"], "past the limit of 5" in f["message"]) for f in broken] == [
        (2, True, False), (3, False, True)]


def test_cursor_always_apply_is_loaded(tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "always.mdc").write_text("---\nalwaysApply: true\n---\n- use uv\n", encoding="utf-8")
    (rules / "ondemand.mdc").write_text("---\nglobs: src/**\nalwaysApply: false\n---\n- use ruff\n", encoding="utf-8")
    reach = analyse(load_store([str(tmp_path)]))
    assert reach.state[str(rules / "always.mdc")] == LOADED
    assert reach.state[str(rules / "ondemand.mdc")] == LINKED


def test_budget_command(tmp_path: Path) -> None:
    result = run_cli("budget", str(EXAMPLES / "claude-memory"), "--json")
    assert result.code == 0, result.err
    rows = {Path(r["path"]).name: r for r in json.loads(result.out)["files"]}
    index = rows["MEMORY.md"]
    assert (index["lines"], index["budget_lines"], index["budget_bytes"]) == (239, 200, 25600)
    assert index["outside"][0]["line"] == 201 and len(index["outside"]) == 37
    assert rows["project_ledger.md"]["state"] == UNREACHABLE
    assert "MEMORY.md:201" in run_cli("budget", str(EXAMPLES / "claude-memory")).out
    assert run_cli("budget", str(EXAMPLES / "facts.json")).code == 2  # no markdown memory in it
