"""A numbered unit of work whose predicate is a status ("**Phase 4** — Active (task card
redesign)", "Phase 5 (Convoy): Not started — Convoy model") has that status, in every shape a
line takes; a claim that gives several units each its own status ("Phase 1+2 done, Phase 3
(Testing) open") tells each one. Against the same unit done elsewhere in the store, the open
side is a status conflict. A predicate that goes on in words is no status, and another unit
or another store is another unit."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

UNITS = ["Phase 4", "Sprint 4", "Milestone 4", "Stage 4", "Iteration 4"]
OPEN = [
    "{unit} — Active (task card redesign)",
    "**{unit}** — Active",
    "{unit} (Convoy & Cross-Rig): Not started — Convoy model, Actor model",
    "{unit}: in progress",
    "{unit} - Planned",
    "**{unit}**: Current (payments)",
]
# where the open claim stands: an item, a numbered item, a paragraph
SHAPES = ["- {claim}", "1. {claim}", "{claim}"]
DONE = [
    "## {unit}: Testing & QA — DONE\n- every screen covered",
    "- {unit} — Priorities Panel: Visual Overhaul ← COMPLETE",
]


def conflicts(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "status_conflict")


def flagged(root: Path) -> list[str]:
    """The files whose claims are flagged, relative to the run's root."""
    return [Path(f["path"]).relative_to(root).as_posix() for f in conflicts(root)]


@pytest.mark.parametrize(("unit", "open_", "shape"), list(product(UNITS, OPEN, SHAPES)))
def test_a_unit_whose_predicate_is_open_against_it_done(tmp_path: Path, unit: str, open_: str, shape: str) -> None:
    claim = shape.format(claim=open_.format(unit=unit))
    write(tmp_path / "memory" / "plan.md", f"# Build plan\n\n{claim}\n")
    write(tmp_path / "memory" / "progress.md", f"# Progress\n\n{DONE[0].format(unit=unit)}\n")
    assert flagged(tmp_path) == ["memory/plan.md"]


@pytest.mark.parametrize(("unit", "done"), list(product(UNITS, DONE)))
def test_each_unit_of_a_claim_takes_its_own_status(tmp_path: Path, unit: str, done: str) -> None:
    kind = unit.split()[0]
    write(tmp_path / "memory" / "MEMORY.md", f"# Index\n\n{kind} 1+2 done, {unit} (Testing) open\n")
    write(tmp_path / "memory" / "status.md", f"# Status\n\n{done.format(unit=unit)}\n")
    assert flagged(tmp_path) == ["memory/MEMORY.md"]


LOOK_ALIKES = [
    ("- {unit}: Active users dashboard", "## {unit}: Testing & QA — DONE"),  # the predicate goes on
    ("- {unit}: Testing the parser", "- {unit} — Priorities Panel ← COMPLETE"),  # a title, no status
    ("- {unit} — Active (task card redesign)", "## {other}: Testing & QA — DONE"),  # another unit
    ("- {unit} — Active", "- {unit} — Active"),  # the same status twice
    ("- {other} done, {unit} open", "## {unit}: Planning — open"),  # open in both
]


@pytest.mark.parametrize(("unit", "pair"), list(product(UNITS, LOOK_ALIKES)))
def test_look_alikes_stay_silent(tmp_path: Path, unit: str, pair: tuple[str, str]) -> None:
    other = unit.replace("4", "3")
    first, second = (side.format(unit=unit, other=other) for side in pair)
    write(tmp_path / "memory" / "plan.md", f"# Build plan\n\n{first}\n")
    write(tmp_path / "memory" / "progress.md", f"# Progress\n\n{second}\n")
    assert conflicts(tmp_path) == []


def test_the_same_unit_in_another_store_is_another_unit(tmp_path: Path) -> None:
    write(tmp_path / "a" / "memory-bank" / "activeContext.md", "# Active Context\n\n- Phase 4 — Active (redesign)\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n## Phase 4: Testing & QA — DONE\n")
    assert conflicts(tmp_path) == []
