"""A sentence said again inside a longer claim elsewhere in its store is one claim stored twice
(`near_duplicate`): "**Database Migrations:** Use `prisma migrate dev` for local schema
changes. Schema changes are always tracked." in the learned memories and "Do not use `db push`
in production. Use `prisma migrate dev` for local schema changes." in a rule file. The claims differ as wholes; the sentence they share is one rule written twice. Quiet:
two claims that share only a short sentence, and a sentence shared by two graph nodes (each is
its own subject)."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

SENTENCES = [
    ("Use `prisma migrate dev` for local schema changes", "Use `prisma migrate dev` for local schema changes"),
    ("The team is currently implementing the citation verification user story",
     "The citation verification user story is currently being implemented by the team"),
    ("Retry failed webhook deliveries three times with exponential backoff",
     "Failed webhook deliveries retry three times with exponential backoff"),
]
# What each side says besides the shared sentence: two different claims as wholes.
BEFORE = ("{s}. Every schema change is tracked in version control.",
          "Never run `db push` against the staging cluster. {s}.")

SHAPES = {
    "two files of a memory bank": lambda a, b: {"memory-bank/techContext.md": f"# Tech\n\n## Data\n- {a}\n",
                                                "memory-bank/systemPatterns.md": f"# Patterns\n\n## Conventions\n- {b}\n"},
    "learned memories and a rule file": lambda a, b: {
        ".cursor/rules/learned-memories.mdc": f"---\ndescription: memories\nalwaysApply: true\n---\n# Memories\n\n- {a}\n",
        ".cursor/rules/database.mdc": f"---\ndescription: database rules\nalwaysApply: false\n---\n# Database\n\n- {b}\n"},
    "two headings of a file": lambda a, b: {"CLAUDE.md": f"# Project\n\n## Data\n- {a}\n- Keep fixtures small\n\n"
                                                        f"## Workflow\n- Run the linter first\n- {b}\n"},
}


def restated(root: Path) -> list[dict[str, object]]:
    return [f for f in findings_of(root, "near_duplicate") if "in other words" in str(f["message"])]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, SENTENCES)))
def test_a_sentence_said_again_inside_another_claim_is_a_near_duplicate(tmp_path: Path, shape: str,
                                                                        pair: tuple[str, str]) -> None:
    a, b = BEFORE[0].format(s=pair[0]), BEFORE[1].format(s=pair[1])
    for name, text in SHAPES[shape](a, b).items():
        write(tmp_path / name, text)
    found = restated(tmp_path)
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_two_claims_sharing_a_short_sentence_are_two_claims(tmp_path: Path, shape: str) -> None:
    a = "Run it locally first. Every schema change is tracked in version control."
    b = "Never run `db push` against the staging cluster. Run it locally first."
    for name, text in SHAPES[shape](a, b).items():
        write(tmp_path / name, text)
    assert restated(tmp_path) == []


def test_a_sentence_two_graph_nodes_share_is_said_of_each(tmp_path: Path) -> None:
    nodes = [("fetchHistory", "Fetches every workout with its sets"), ("updateNotes", "Updates the notes of one workout")]
    write(tmp_path / "memory.jsonl", "".join(
        json.dumps({"type": "entity", "name": name, "entityType": "function",
                    "observations": [f"Retries failed database calls three times with exponential backoff. {rest}"]}) + "\n"
        for name, rest in nodes))
    assert restated(tmp_path) == []


# A clause opened by a dash or a semicolon is a part of its own too: "Imports must be idempotent
# via importHash — a re-import is a no-op" holds the claim another file stores alone.
SEPARATORS = (" — ", " – ", "; ")
MEMORY_FOLDER = {"a Claude Code memory folder": lambda a, b: {
    ".claude/memory/MEMORY.md": f"# Memory\n\n- [Patterns](patterns.md)\n\n## Domain rules\n- {a}\n",
    ".claude/memory/patterns.md": f"# Patterns\n\n## Domain rules (non-negotiable)\n- {b}\n"}}
CLAUSE_SHAPES = {**SHAPES, **MEMORY_FOLDER}
TAILS = ("re-importing the same statement is a supported no-op", "see the import service for details")


@pytest.mark.parametrize(("shape", "pair", "separator", "tail"),
                         list(product(CLAUSE_SHAPES, SENTENCES, SEPARATORS, TAILS)))
def test_a_claim_said_again_before_a_dash_or_semicolon_is_a_near_duplicate(
        tmp_path: Path, shape: str, pair: tuple[str, str], separator: str, tail: str) -> None:
    for name, text in CLAUSE_SHAPES[shape](pair[0], f"{pair[1]}{separator}{tail}").items():
        write(tmp_path / name, text)
    found = restated(tmp_path)
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize(("shape", "separator"), list(product(CLAUSE_SHAPES, SEPARATORS)))
def test_a_short_clause_before_a_dash_is_no_claim_of_its_own(tmp_path: Path, shape: str, separator: str) -> None:
    a = "Imports run nightly"
    b = f"Imports run nightly{separator}the exporter retries failed uploads three times with backoff"
    for name, text in CLAUSE_SHAPES[shape](a, b).items():
        write(tmp_path / name, text)
    assert restated(tmp_path) == []


@pytest.mark.parametrize(("shape", "separator"), list(product(CLAUSE_SHAPES, SEPARATORS)))
def test_two_claims_sharing_only_a_short_tail_after_a_dash_are_two_claims(tmp_path: Path, shape: str,
                                                                          separator: str) -> None:
    tail = "see the service docs for details"
    a = f"Bank statement imports are idempotent via importHash{separator}{tail}"
    b = f"Money is always Decimal and never a float in the ledger{separator}{tail}"
    for name, text in CLAUSE_SHAPES[shape](a, b).items():
        write(tmp_path / name, text)
    assert restated(tmp_path) == []
