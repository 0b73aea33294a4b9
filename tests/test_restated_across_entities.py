"""A claim restated in other words elsewhere in its store (under another heading, or in another file) is one claim stored twice (`near_duplicate`, found by its words): "Default
limit is 25 tool calls per session" under "Tool Usage Limits" and "Default tool call limit is 25
per session" under "Configuration". A heading above a restatement is no new subject. Quiet: a
task listed in two files (a plan and its progress), two claims each naming its own subject, one
frame of two things ("the builder backend" / "the aggregator backend"), a predicate of each
entity, two records (their entity is their subject), two graph nodes whose observations open
with a participle (each said of its node), and a log reporting a result again. A focused run (the hook's) reports what a full run does."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write
from memory_autopsy.api import lint_loaded, load_store
from memory_autopsy.settings import Settings

PAIRS = [
    ("Default limit is 25 tool calls per session", "Default tool call limit is 25 per session"),
    ("Memory Bank files were created for the project documentation",
     "Memory Bank documentation created in the project files"),
    ("Self-contained components keep their own translation files",
     "Each self-contained component keeps its own translation files"),
]


def graph(*entities: tuple[str, list[str]]) -> str:
    return "".join(json.dumps({"type": "entity", "name": n, "entityType": "note", "observations": o}) + "\n"
                   for n, o in entities)


SHAPES = {
    "two headings of a file": lambda a, b: {"learned-memories.md": f"# Memories\n\n## Tool Usage\n- {a}\n- Run the linter first\n\n"
                                                                   f"## Configuration\n- Keep fixtures small\n- {b}\n"},
    "two sections of a rule file": lambda a, b: {".cursor/rules/project.mdc": "---\ndescription: project notes\nalwaysApply: true\n---\n"
                                                                             f"# Project\n\n## Limits\n{a}.\n\n## Settings\n{b}.\n"},
    "two files of a memory bank": lambda a, b: {"memory-bank/techContext.md": f"# Tech\n\n## Limits\n- {a}\n",
                                                "memory-bank/systemPatterns.md": f"# Patterns\n\n## Configuration\n- {b}\n"},
}


def restated(root: Path) -> list[dict[str, Any]]:
    return [f for f in findings_of(root, "near_duplicate") if "in other words" in f["message"]]


def restated_in(root: Path, shape: str, pair: tuple[str, str]) -> list[dict[str, Any]]:
    """The restatements found in the pair written in that shape."""
    for name, text in SHAPES[shape](*pair).items():
        write(root / name, text)
    return restated(root)


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, PAIRS)))
def test_a_claim_restated_under_another_entity_is_a_near_duplicate(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    found = restated_in(tmp_path, shape, pair)
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


GRAPH_PAIRS = [
    PAIRS[0],
    ("The nightly export job stores parquet files in the archive bucket",
     "Parquet files are stored in the archive bucket by the nightly export job"),
    ("Each service keeps its own database schema", "Each service now keeps its own database schema"),
]


@pytest.mark.parametrize("pair", GRAPH_PAIRS)
def test_one_claim_on_two_graph_nodes_is_a_near_duplicate(tmp_path: Path, pair: tuple[str, str]) -> None:
    """Two nodes of one graph are two headings of one store: the same claim in the same words,
    reordered, is stored twice."""
    write(tmp_path / "memory.jsonl", graph(("Tool Usage Limits", [pair[0], "Counted per agent run"]),
                                           ("Configuration", ["Read at start-up", pair[1]])))
    found = restated(tmp_path)
    assert len(found) == 1, found


@pytest.mark.parametrize("files", [
    {"memory-bank/activeContext.md": "# Active\n\n## Next Steps\n- [ ] Add retry mechanisms for the rate-limited API calls\n",  # a plan
     "memory-bank/progress.md": "# Progress\n\n## Left\n- [ ] Retry mechanism for rate-limited API calls added\n"},
    {"notes.md": "# Notes\n\n## cart-registry\n- the builder backend times out after 30s under heavy load\n\n"  # one frame
                 "## coupon-etl\n- the aggregator backend times out after 30s under heavy load\n"},
    {"memory.jsonl": "".join(json.dumps({"entity": who, "claim": "prefers VS Code over Cursor for remote editing work"}) + "\n"
                             for who in ("Cyrus Guerra", "Ulf Ortiz"))},  # a record's entity is its subject
    {"memory.jsonl": graph(("fetchHistory", ["Updated to return every workout with its exercises and sets"]),  # participles
                           ("updateNotes", ["Updated to return each workout with its exercises and its sets"]))},
    {"memory.jsonl": graph(("HistoryItem", ["Self-contained component with its own translation files"]),  # a description
                           ("HistoryComment", ["A self-contained component that has its own translations"]))},  # each fits
    {"memory.jsonl": graph(("Yeosu plant", ["Yeosu samples every item: BOD, TOC, SS, phenols, hexane"]),  # each its own subject
                           ("Yulchon plant", ["Yulchon samples every item: BOD, TOC, SS, phenols, hexane"]))},
    {"memory.jsonl": graph(("Knowledge Graph", ["Provides persistent memory across sessions and interactions"]),  # predicates
                           ("Memory Store", ["Provides persistent memory across interactions and sessions"]))},
    {"memory.jsonl": graph(("fetchWorkoutHistory", ["Located in src/lib/integrations/supabase/history.ts. "
                                                    "Fetches every workout with its exercises and sets"]),
                           ("updateWorkoutNotes", ["Located in src/lib/integrations/supabase/history.ts. "
                                                   "Updates the name and the notes of one workout"]))},
    {"progress.md": "# Progress\n\n## 2026-03-01\n- Full test suite passes with 625 tests on the CI runner\n\n"  # reported again
                    "## 2026-03-02\n- On the CI runner the full test suite passes with 625 tests\n"},
])
def test_other_subjects_other_files_and_logs_are_no_restatement(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    assert restated(tmp_path) == []



@pytest.mark.parametrize("pair", PAIRS)
def test_a_focused_run_reports_a_restatement_in_another_file_as_a_full_run_does(tmp_path: Path, pair: tuple[str, str]) -> None:
    for name, text in SHAPES["two files of a memory bank"](*pair).items():
        write(tmp_path / name, text)
    store = load_store([str(tmp_path)])
    full = [f for f in lint_loaded(store, Settings()).findings if f.rule == "near_duplicate"]
    assert len(full) == 1, full
    for changed in store.paths:
        focused = lint_loaded(store, replace(Settings(), focus=frozenset({changed})))
        assert [f for f in focused.findings if f.rule == "near_duplicate"] == full, changed


def test_a_copy_word_for_word_is_one_duplicate_not_also_a_restatement(tmp_path: Path) -> None:
    sentence = "**Manifest V2:** If the extension still uses Manifest V2, a migration to V3 will be needed"
    write(tmp_path / "memory-bank/techContext.md", f"# Tech\n\n## Risks\n- {sentence}\n")
    write(tmp_path / "memory-bank/systemPatterns.md", f"# Patterns\n\n## Risks\n- {sentence}\n")
    assert len(findings_of(tmp_path, "duplicate")) == 1
    assert restated(tmp_path) == []


# A claim that opens with its verb, its subject the section's ("Uses TanStack Query …" under
# Project Context), restated as a field ("**Data Fetching:** TanStack Query …"); "uses" is no
# content word of either ("Frontend uses Next.js 15 …" / "**Frontend Framework:** Next.js 15 …").
PREDICATE_PAIRS = [
    ("Uses TanStack Query for data fetching (not SWR)", "**Data Fetching:** TanStack Query (not SWR)"),
    ("Frontend uses Next.js 15 with React 18 and TypeScript", "**Frontend Framework:** Next.js 15 with React 18 and TypeScript"),
    ("Logs every request to Loki with its trace id", "**Request Logs:** every request to Loki with its trace id"),
    ("Runs database migrations with Alembic before every deploy", "**Migrations:** Alembic runs the database migrations before every deploy"),
]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, PREDICATE_PAIRS)))
def test_a_predicate_restated_as_a_field_is_a_near_duplicate(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    found = restated_in(tmp_path, shape, pair)
    assert len(found) == 1, found


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, [
    ("Uses PostgreSQL 14 for all of the ledger tables", "Uses PostgreSQL 14 for all of the ledger tables too"),  # two subjects' predicates
    ("Provides persistent memory across sessions and interactions", "Provides persistent memory across interactions and sessions"),
])))
def test_predicates_of_two_sections_and_a_field_of_another_subject_are_no_restatement(
    tmp_path: Path, shape: str, pair: tuple[str, str],
) -> None:
    assert restated_in(tmp_path, shape, pair) == []
