"""A predicate restated under an entity that names the same subject again with a word of
revision ("Component Structure" / "Component Structure Update", "turnManager-module" /
"turnManager-module-updates") is one claim stored twice (`near_duplicate`): a predicate's subject
is its entity, and here both entities are one subject. Two subjects that share a word
("Auth Service" / "Billing Service Update") or differ by a word of their own ("Session Store" /
"Session Store Tests") keep two claims, in every shape that has entities."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

PREDICATES = [
    ("Broadcasts turn_changed event via Supabase Realtime", "Broadcasts turn_changed event via Supabase Realtime channel"),
    ("Stores session tokens in Redis with a one hour expiry", "Stores the session tokens in Redis with one hour expiry"),
    ("Provides persistent memory across sessions and interactions",
     "Provides persistent memory across interactions and sessions"),
]
SAME_SUBJECT = [("Component Structure", "Component Structure Update"), ("turnManager-module", "turnManager-module-updates"),
                ("SessionStore", "SessionStore Changes"), ("Realtime Sync", "Latest Realtime Sync Fixes")]
TWO_SUBJECTS = [("Auth Service", "Billing Service Update"), ("Session Store", "Session Store Tests"),
                ("turnManager-module", "scoreManager-module-updates")]


def _graph(a: str, b: str, first: str, second: str) -> dict[str, str]:
    rows = [{"type": "entity", "name": a, "entityType": "module", "observations": [first, "Written in TypeScript"]},
            {"type": "entity", "name": b, "entityType": "module", "observations": ["Reviewed in March", second]}]
    return {"memory.jsonl": "".join(json.dumps(r) + "\n" for r in rows)}


SHAPES = {
    "two graph entities": _graph,
    "two headings of a file": lambda a, b, first, second: {
        "notes.md": f"# Notes\n\n## {a}\n- {first}\n- Written in TypeScript\n\n## {b}\n- Reviewed in March\n- {second}\n"},
    "two files of a memory bank": lambda a, b, first, second: {
        "memory-bank/systemPatterns.md": f"# Patterns\n\n## {a}\n- {first}\n",
        "memory-bank/activeContext.md": f"# Active\n\n## {b}\n- {second}\n"},
}


def _restated(root: Path, shape: str, names: tuple[str, str], pair: tuple[str, str]) -> list[dict]:
    for name, text in SHAPES[shape](*names, *pair).items():
        write(root / name, text)
    return [f for f in findings_of(root, "near_duplicate") if "in other words" in f["message"]]


@pytest.mark.parametrize(("shape", "names", "pair"), list(product(SHAPES, SAME_SUBJECT, PREDICATES)))
def test_a_predicate_of_one_subject_revised_is_stored_twice(
    tmp_path: Path, shape: str, names: tuple[str, str], pair: tuple[str, str],
) -> None:
    found = _restated(tmp_path, shape, names, pair)
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize(("shape", "names", "pair"), list(product(SHAPES, TWO_SUBJECTS, PREDICATES)))
def test_a_predicate_of_two_subjects_keeps_two_claims(
    tmp_path: Path, shape: str, names: tuple[str, str], pair: tuple[str, str],
) -> None:
    assert _restated(tmp_path, shape, names, pair) == []
