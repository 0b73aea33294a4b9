"""A status is often written in capitals where the line puts it: "Iter 2 DONE (handling feel):
…", "Plan 027 (hud layer), DONE.", "(Phase 3 - TO BE IMPLEMENTED)", "IMPLEMENTATION COMPLETE:
all phases". Such a line states its status as surely as a check box. A negated or planned one
("NOT COMPLETE", "do not mark it DONE") and a name in capitals ("E2E TESTING guide") state none.

A numbered unit of work ("iter 2") is first its own document's: a plan's "NEXT: iter 2" is done
by that plan's "Iter 2 DONE", not by another plan's second iteration. Two titles that name only
a unit ("iter 2", "Iter 2") are no title match: the unit decides."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of, write
from memory_autopsy.api import lint

SHOUTED = [
    ("Iter 2 DONE (handling feel): the adapter reads the tuning file", "done"),
    ("Plan 027 (hud layer), DONE.", "done"),
    ("Plan 028 (timecyc), DONE — data layer only", "done"),
    ("IMPLEMENTATION COMPLETE: all phases successful", "done"),
    ("Purpose: semantic stock screening (Phase 3 - TO BE IMPLEMENTED)", "pending"),
    ("screener.py holds the screener (Phase 3) - NOT YET IMPLEMENTED", "pending"),
    ("Phase 2 IN PROGRESS (NOW)", "in_progress"),
    ("Vault strategy BLOCKED on the key service", "blocked"),
]
NOT_SHOUTED = [
    "Do NOT mark the exporter DONE before review",
    "The importer is NOT COMPLETE",
    "Read the E2E TESTING guide first",
    "Uses the REST API over HTTPS",
    "Remove the TODO comments from the parser",
    "OPEN questions go to the design doc",
]


def statuses(root: Path, line: str) -> list[str]:
    write(root / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Notes\n- {line}\n")
    return [f.status for f in lint([str(root / "memory-bank")]).facts]


@pytest.mark.parametrize(("line", "status"), SHOUTED)
def test_a_status_word_in_capitals_is_the_lines_status(tmp_path: Path, line: str, status: str) -> None:
    assert statuses(tmp_path, line) == [status]


@pytest.mark.parametrize("line", NOT_SHOUTED)
def test_negated_planned_or_named_capitals_state_no_status(tmp_path: Path, line: str) -> None:
    assert statuses(tmp_path, line) == [""]


def plans(root: Path, vehicle_done: str) -> None:
    write(root / "memory" / "MEMORY.md", "# Memory\n\n- [Character](character-plan.md)\n- [Vehicle](vehicle-plan.md)\n")
    write(root / "memory" / "character-plan.md",
          "# Character model plan\n\n**Iter 1 DONE:** load the model.\n\n**Iter 2 DONE:** parse the skin plugin.\n")
    write(root / "memory" / "vehicle-plan.md",
          f"# Vehicle driving plan\n\n{vehicle_done}\n\n- NEXT: iter 2 (handling feel) / iter 3 (collision).\n")


def test_a_units_done_record_in_its_own_document_is_the_evidence(tmp_path: Path) -> None:
    plans(tmp_path, "**Iter 1 DONE:** seat the player.\n\n**Iter 2 DONE (handling feel):** per-car speeds.")
    found = findings_of(tmp_path, "status_conflict")
    assert len(found) == 1, found
    assert found[0]["path"].endswith("vehicle-plan.md")
    assert found[0]["related"][0]["path"].endswith("vehicle-plan.md"), found[0]
    assert "handling feel" in found[0]["message"]

