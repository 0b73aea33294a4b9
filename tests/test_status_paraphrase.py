"""A task and its done record rarely share every word: the done side says what was made in the
past tense ("Generated the documentation set") where the task said how ("Create the docs set"),
opens with a status label ("Completed: …"), or names the thing in a title and then details it
at length. The thing made is the task; the verb of making is not. A different thing made stays
a different task."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write
from memory_autopsy.api import lint

# (pending task, done record of the same task)
PAIRS = [
    ("Initialize the memory bank", "Initialized memory bank"),
    ("Create documentation set from the PRD", "Generated documentation set from PRD"),
    ("Build the invoice export pipeline", "Implemented invoice export pipeline"),
    ("Write onboarding guide for contributors", "Onboarding guide for contributors written"),
    ("Set up Redis cache service", "Redis cache service"),
]
PENDING = ["- [ ] {task}", "- {task} (to be implemented)", "- {task} (not yet implemented)"]
DONE = [
    "- Completed: {done} (five files, two scripts, one README).",
    "- ✅ {done} (hot paths covered, retries on failure, metrics per step, alerting, docs)",
    "- Done: {done}",
]


def conflicts(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "status_conflict")


def store(root: Path, pending: str, done: str) -> None:
    write(root / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Current Focus\n{pending}\n")
    write(root / "memory-bank" / "progress.md", f"# Progress\n\n## 2026-03-02\n{done}\n")


@pytest.mark.parametrize(("pair", "pending", "done"), list(product(PAIRS, PENDING, DONE)))
def test_a_task_done_in_other_words_is_a_status_conflict(tmp_path: Path, pair: tuple[str, str], pending: str,
                                                         done: str) -> None:
    task, record = pair
    store(tmp_path, pending.format(task=task), done.format(done=record))
    found = conflicts(tmp_path)
    assert len(found) == 1, found
    assert found[0]["path"].endswith("activeContext.md")


@pytest.mark.parametrize("pending", ["- **Search**: Full text search - NOT YET IMPLEMENTED",
                                     "- Search: full text search (not yet done)", "- Search: Full text search, yet to do"])
@pytest.mark.parametrize("done", ["- [x] Full text search ✅ [2025-12-15]", "- ✅ Full text search (2025-12-15)"])
def test_not_yet_and_a_done_date_are_no_task_words(tmp_path: Path, pending: str, done: str) -> None:
    """"yet" of "NOT YET IMPLEMENTED" is no word of the task, nor the date a done mark carries."""
    store(tmp_path, pending, done)
    assert [f["path"].rpartition("/")[2] for f in conflicts(tmp_path)] == ["activeContext.md"]


LOOK_ALIKES = [
    ("- [ ] Build the invoice import pipeline", "- Completed: Implemented invoice export pipeline (two files)."),
    ("- [ ] Create the user guide", "- ✅ Created the admin API (routes, tests, docs, metrics, alerting)"),
    ("- [ ] Write the release notes", "- Done: Reviewed the release checklist"),
    ("- Redis cache (to be implemented)", "- ✅ Postgres connection pool (hot paths, retries, metrics, docs)"),
]


@pytest.mark.parametrize(("pending", "done"), LOOK_ALIKES)
def test_another_thing_made_is_another_task(tmp_path: Path, pending: str, done: str) -> None:
    store(tmp_path, pending, done)
    assert conflicts(tmp_path) == []


@pytest.mark.parametrize("line", ["- Redis cache (to be implemented)", "- Redis cache (not yet implemented)",
                                  "- 缓存: Redis（待实现）", "- DI: VContainer（要追加）"])
def test_a_to_be_implemented_mark_is_pending(tmp_path: Path, line: str) -> None:
    path = write(tmp_path / "notes" / "state.md", f"# State\n\n{line}\n")
    (fact,) = lint([str(path)]).facts
    assert fact.status == "pending", fact
