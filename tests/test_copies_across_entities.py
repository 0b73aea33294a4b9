"""A sentence stored word for word under two headings, two graph entities or two files of one
store is one claim stored twice (`duplicate`), whatever heading sits above each copy. A short
claim ("625 tests passing") and a predicate of its heading or entity ("Runs on the shared
cluster" under two services) may be true of two subjects, a log that reports the same result on
two days said it twice, and a copy with another status is a status question: all stay quiet."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

SENTENCES = [
    "Clean up test processes and never leave hanging Python processes behind",
    "Always ask for confirmation before pushing anything to the git remote",
    "State lives in React Context plus local component state for every tool",
]


def graph(*entities: tuple[str, list[str]]) -> str:
    return "".join(json.dumps({"type": "entity", "name": n, "entityType": "note", "observations": o}) + "\n"
                   for n, o in entities)


SHAPES = {
    "two headings of a file": lambda s: {"learned-memories.md": f"# Memories\n\n## Workflow\n- {s}\n- Run the linter first\n\n"
                                                                 f"## Testing\n- Keep fixtures small\n- {s}\n"},
    "two files of a memory bank": lambda s: {"memory-bank/techContext.md": f"# Tech\n\n## Constraints\n- {s}\n",
                                             "memory-bank/systemPatterns.md": f"# Patterns\n\n## Rules\n- {s}\n"},
    "two entities of a graph": lambda s: {"memory.jsonl": graph(("Workflow", [s, "Linter runs first"]),
                                                                ("Testing", ["Fixtures stay small", s]))},
}


def copies(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "duplicate")


@pytest.mark.parametrize(("shape", "sentence"), list(product(SHAPES, SENTENCES)))
def test_a_sentence_stored_under_two_entities_is_a_copy(tmp_path: Path, shape: str, sentence: str) -> None:
    for name, text in SHAPES[shape](sentence).items():
        write(tmp_path / name, text)
    found = copies(tmp_path)
    assert len(found) == 1, found
    assert "under another heading or entity" in found[0]["message"]


@pytest.mark.parametrize("files", [
    {"notes.md": "# Notes\n\n## Billing\n- 625 tests passing\n\n## Search\n- 625 tests passing\n"},  # short
    {"progress.md": "# Progress\n\n## Deploy (2026-03-01)\n- Push failed because no remote is configured in the sandbox\n\n"
                    "## Release (2026-03-02)\n- Push failed because no remote is configured in the sandbox\n"},  # reported again
    {"progress.md": "# Progress\n\n## Billing\n- [ ] Move the invoice exporter onto the shared worker queue\n\n"
                    "## Search\n- [x] Move the invoice exporter onto the shared worker queue\n"},  # another status
    {"notes.md": "# Notes\n\n## search-index\n- Runs on the shared kubernetes cluster in the eu region\n\n"
                 "## metrics-store\n- Runs on the shared kubernetes cluster in the eu region\n"},  # each heading's predicate
    {"memory.jsonl": graph(("HistoryPagination", ["Takes the current page and the total pages as props"]),
                           ("HistoryHeader", ["Takes the current page and the total pages as props"]))},
    {"notes.md": "# Notes\n\n## Billing\n- Created 2025-05-02T01:46:51.896Z 2025-05-02T01:46:52Z\n\n"
                 "## Search\n- Created 2025-05-02T01:46:51.896Z 2025-05-02T01:46:52Z\n"},  # no sentence
])
def test_a_short_claim_a_log_or_another_status_is_no_copy(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    assert copies(tmp_path) == []


def test_three_copies_under_three_headings_are_two_findings(tmp_path: Path) -> None:
    s = SENTENCES[0]
    write(tmp_path / "notes.md", f"# Notes\n\n## A\n- {s}\n\n## B\n- {s}\n\n## C\n- {s}\n")
    assert sorted(f["line"] for f in copies(tmp_path)) == [7, 10]
