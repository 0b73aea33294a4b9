"""Every dialect of the README's table, recognised and read on a real public file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from memory_autopsy.api import load_store
from memory_autopsy.ingest.dialects import detect

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
SHAPES = Path(__file__).resolve().parent / "fixtures" / "shapes"


def facts(path: Path):  # type: ignore[no-untyped-def]
    return load_store([str(path)]).facts


@pytest.mark.parametrize(
    "relative, dialect",
    [
        ("claude-code/.claude/memory/MEMORY.md", "claude-code"),
        ("claude-code/.claude/memory/feedback_no_defensive_fallbacks.md", "claude-code"),
        ("claude-code/CLAUDE.md", "claude-code"),
        ("memory-bank/memory-bank/decisionLog.md", "memory-bank"),
        ("serena/.serena/memories/project__overview.md", "serena"),
        ("cursor/.cursor/rules/memories.mdc", "cursor-rules"),
        ("gemini/GEMINI.md", "gemini"),
        ("agents-md/AGENTS.md", "agents-md"),
        ("daily-log/memory/2026-03-15.md", "daily-log"),
        ("mcp-graph/memory.jsonl", "mcp-graph"),
        ("letta/memgpt_agent_with_convo.af", "letta"),
    ],
)
def test_dialect_is_recognised_and_read(relative: str, dialect: str) -> None:
    path = REAL / relative
    assert detect(str(path), path.read_bytes()[:4096]).name == dialect
    assert len(facts(path)) > 0


def test_documented_shapes_are_recognised() -> None:
    for name, dialect in (("mem0-export.json", "mem0"), ("memory-graph.json", "mcp-graph")):
        path = SHAPES / name
        assert detect(str(path), path.read_bytes()).name == dialect


def test_claude_index_links_are_references_not_facts() -> None:
    index = REAL / "claude-code/.claude/memory/MEMORY.md"
    links = [n for n, line in enumerate(index.read_text().splitlines(), 1) if line.lstrip("-* ").startswith("[")]
    assert links
    assert not {f.line for f in facts(index)} & set(links)


def test_claude_topic_front_matter_names_the_entity_and_feedback_is_guidance() -> None:
    topic = REAL / "claude-code/.claude/memory/feedback_no_defensive_fallbacks.md"
    read = facts(topic)
    assert {f.entity for f in read} == {"No defensive fallbacks"}
    assert not any(f.claim.startswith('"unknown")') for f in read)  # "e.g." ends no sentence
    assert all(f.kind == "guideline" for f in read)


def test_memory_bank_checkboxes_timestamps_and_entries() -> None:
    bank = REAL / "memory-bank/memory-bank"
    progress = facts(bank / "progress.md")
    assert {f.status for f in progress if f.kind == "task"} >= {"done", "pending", "in_progress"}
    log = facts(bank / "decisionLog.md")
    assert sum(1 for f in log if f.observed_at) / len(log) >= 0.95
    stamped = [f for f in log if f.claim.startswith("Initialize Memory Bank for the project")]
    assert stamped and stamped[0].observed_at == "2025-04-01T17:54:50"
    rationale = [f for f in log if f.claim.startswith("Maintain project context")]
    assert rationale[0].observed_at == "2025-04-01T17:54:50" and rationale[0].entry == stamped[0].entry


def test_serena_front_matter_is_read_with_yaml() -> None:
    read = facts(REAL / "serena/.serena/memories/project__overview.md")
    assert read and all(f.observed_at for f in read)


def test_folder_of_cursor_rules_scans() -> None:
    result = run_cli("scan", str(REAL / "cursor"), "--format", "json")
    assert result.code in (0, 1), result.err
    assert json.loads(result.out)["facts"] > 0


def test_gemini_added_memories_is_a_section_kind_not_an_entity() -> None:
    read = facts(REAL / "gemini/GEMINI.md")
    assert read and all(f.entity != "Gemini Added Memories" for f in read)


def test_daily_log_is_dated_by_its_file_name() -> None:
    read = facts(REAL / "daily-log/memory/2026-03-15.md")
    assert read and {f.observed_at for f in read} == {"2026-03-15"}


def test_mcp_graph_jsonl_observations_are_facts_with_their_index() -> None:
    path = REAL / "mcp-graph/memory.jsonl"
    read = facts(path)
    first_line = json.loads(path.read_text().splitlines()[0])
    observed = [f for f in read if f.line == 1 and f.shape == "graph"]
    assert [f.obs for f in observed] == list(range(len(first_line["observations"])))
    assert any(f.shape == "relation" for f in read)


def test_graph_document_yields_observations_and_findings_name_them(tmp_path: Path) -> None:
    read = facts(SHAPES / "memory-graph.json")
    assert [f.obs for f in read if f.shape == "graph"] == [0, 1, 2]
    assert any(f.claim == "billing-service writes to ledger-db" for f in read)
    result = run_cli("scan", str(SHAPES / "memory-graph.json"), "--format", "json")
    (duplicate,) = [f for f in json.loads(result.out)["findings"] if f["rule"] == "duplicate"]
    assert duplicate["obs"] == 2 and "Owned by the payments team" in duplicate["message"]
    text = run_cli("scan", str(SHAPES / "memory-graph.json")).out
    assert "memory-graph.json:" in text and "#obs-2" in text


def test_mcp_graph_finding_names_the_observation(tmp_path: Path) -> None:
    line = json.dumps({"type": "entity", "name": "cache", "entityType": "service",
                       "observations": ["Runs on redis 6", "Owned by ops", "Runs on redis 6"]})
    (tmp_path / "memory.jsonl").write_text(line + "\n")
    result = run_cli("scan", str(tmp_path / "memory.jsonl"), "--format", "json")
    (finding,) = [f for f in json.loads(result.out)["findings"] if f["rule"] == "duplicate"]
    assert finding["line"] == 1 and finding["obs"] == 2 and finding["related"][0]["obs"] == 0


def test_mem0_export_prefers_updated_at_and_reads_offsets_in_utc() -> None:
    read = facts(SHAPES / "mem0-export.json")
    assert [f.observed_at for f in read] == ["2026-03-02T18:30:00Z", "2026-01-12T12:00:00Z"]


def test_letta_memory_blocks_are_read() -> None:
    read = facts(REAL / "letta/memgpt_agent_with_convo.af")
    assert {f.entity for f in read} >= {"persona", "human"}
    double = facts(REAL / "letta/customer_service.af")
    assert double


def test_folder_walk_includes_memory_dot_folders_and_known_names(tmp_path: Path) -> None:
    for relative in (".claude/memory/MEMORY.md", ".serena/memories/a.md", ".cursor/rules/r.mdc",
                     "GEMINI.md", ".git/notes.md", "node.txt"):
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("- the cache tier uses redis 7\n")
    store = load_store([str(tmp_path)])
    read = sorted({Path(p).relative_to(tmp_path).as_posix() for p in store.paths})
    assert read == [".claude/memory/MEMORY.md", ".cursor/rules/r.mdc", ".serena/memories/a.md", "GEMINI.md"]
