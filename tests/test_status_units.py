"""One numbered unit of work (a phase, a sprint, an iteration, a ticket code) still open in one
place and done in another is a status conflict, whatever each side says about it; a sub-unit,
a unit the claim only mentions, or the same number in another store is not. A done word after a
copula ("Phase 3 is complete") is a done status; a negated, planned or agentive one is not."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write
from memory_autopsy.api import lint

UNITS = ["Phase 3", "Sprint 12", "Iteration 2", "Milestone 4", "Story 8", "MECH-2", "フェーズ3"]
PENDING = ["- [ ] {unit}: data import", "- 🔄 {unit}: data import (next)", "- NEXT: {unit} (data import)"]
DONE = ["- ✅ {unit}: importer and its tests", "- {unit} is complete and merged.", "- [x] {unit} — importer shipped"]


def conflicts(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "status_conflict")


@pytest.mark.parametrize(("unit", "pending", "done"), list(product(UNITS, PENDING, DONE)))
def test_one_unit_open_here_and_done_there_is_a_status_conflict(tmp_path: Path, unit: str, pending: str,
                                                                 done: str) -> None:
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Current Focus\n{pending.format(unit=unit)}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n{done.format(unit=unit)}\n")
    found = conflicts(tmp_path)
    assert len(found) == 1, found
    assert found[0]["path"].endswith("activeContext.md")


LOOK_ALIKES = [
    ("- [ ] Phase 3.1: data import", "- ✅ Phase 3: importer and its tests"),  # a sub-unit
    ("- [ ] Phase 3: data import", "- ✅ Integration with Phase 3 verified"),  # only mentioned
    ("- [ ] Phase 3: data import", "- ✅ Phase 4: importer and its tests"),  # another unit
    ("- [ ] MECH-2: freeze mechanics", "- ✅ MECH-21: stun mechanics"),
    ("- [ ] Phase 2-3 migration", "- ✅ Phase 2: importer"),  # a range is no one unit
]


@pytest.mark.parametrize(("pending", "done"), LOOK_ALIKES)
def test_other_units_and_mentions_stay_silent(tmp_path: Path, pending: str, done: str) -> None:
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Current Focus\n{pending}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n{done}\n")
    assert conflicts(tmp_path) == []


def test_the_same_unit_in_another_store_is_another_unit(tmp_path: Path) -> None:
    write(tmp_path / "a" / "memory-bank" / "activeContext.md", "# Active Context\n\n## Current Focus\n- [ ] Phase 3: data import\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n## Status\n- ✅ Phase 3: importer\n")
    assert conflicts(tmp_path) == []


def test_a_pair_in_its_own_store_is_found_whatever_other_stores_hold(tmp_path: Path) -> None:
    """The evidence is picked from the task's own store, however new another store's copy is."""
    write(tmp_path / "a" / "memory-bank" / "activeContext.md", "# Active Context\n\n## Current Focus\n- [ ] Phase 3: data import\n")
    write(tmp_path / "a" / "memory-bank" / "progress.md", "# Progress\n\n## 2026-01-02\n- ✅ Phase 3: importer\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n## 2026-05-01\n- ✅ Phase 3: exporter\n")
    (found,) = conflicts(tmp_path)
    assert "a/memory-bank/progress.md" in json.dumps(found["related"])


@pytest.mark.parametrize(("line", "status"), [
    ("Phase 3 is complete and fully integrated with Phase 2.", "done"),
    ("The exporter has been fully implemented, and tested.", "done"),
    ("The login page is now complete (2026-01-02)", "done"),
    ("Phase 4 implementation complete", "done"),
    ("Validation is done by the API layer", ""),
    ("Phase 3 is not complete", ""),
    ("The exporter will be complete next week", ""),
    ("Is the exporter done?", ""),
])
def test_a_done_word_after_a_copula_is_a_done_status(tmp_path: Path, line: str, status: str) -> None:
    path = write(tmp_path / "notes" / "state.md", f"# State\n\n- {line}\n")
    (fact,) = lint([str(path)]).facts
    assert fact.status == status
