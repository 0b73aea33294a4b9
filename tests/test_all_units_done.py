"""Every unit of a kind said done ("All phases complete", "ALL 8 SPRINTS DONE", "all the
milestones are finished") is a run of them all: a unit of that kind still pending elsewhere in
the store ("Phase 3 in progress", "Phases 13-20 planned") is a `status_conflict`. Quiet: the
words under a condition or a negation ("Once all phases are complete, tag the release", "Not
all phases done yet"), and another kind of unit ("All sprints complete" / "Phase 3 planned")."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

ALL_DONE = ["All phases complete", "ALL 8 PHASES DONE", "All the phases are finished",
            "## ALL PHASES COMPLETE (0-10, 12-20)", "🎉 All phases completed — project finished"]
PENDING = ["Phase 3 in progress", "Phases 13-20 planned", "- [ ] Phase 5: reporting"]
SHAPES = {
    "two files of a memory bank": lambda done, pending: {"memory-bank/progress.md": f"# Progress\n\n{_item(done)}\n",
                                                         "memory-bank/activeContext.md": f"# Active\n\n{_item(pending)}\n"},
    "two sections of a file": lambda done, pending: {"STATUS.md": f"# Status\n\n## Plan\n\n{_item(pending)}\n\n"
                                                                  f"## Summary\n\n{_item(done)}\n"},
}


def _item(text: str) -> str:
    return text if text.startswith(("#", "-")) else f"- {text}"


@pytest.mark.parametrize(("shape", "done", "pending"), [
    case for case in product(SHAPES, ALL_DONE, PENDING) if not ("8" in case[1] and "13-20" in case[2])])
def test_a_unit_pending_beside_all_units_done_is_a_status_conflict(tmp_path: Path, shape: str, done: str,
                                                                   pending: str) -> None:
    for name, text in SHAPES[shape](done, pending).items():
        write(tmp_path / name, text)
    found = findings_of(tmp_path, "status_conflict")
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize(("shape", "done"), list(product(SHAPES, [
    "Once all phases are complete, tag the release", "Not all phases done yet", "When all phases are done, archive the plan",
    "All sprints complete"])))
def test_a_condition_a_negation_or_another_kind_of_unit_is_no_conflict(tmp_path: Path, shape: str, done: str) -> None:
    for name, text in SHAPES[shape](done, "Phase 3 in progress").items():
        write(tmp_path / name, text)
    assert findings_of(tmp_path, "status_conflict") == []


OUTSIDE = [
    ("ALL 8 PHASES DONE", "Phases 13-20 planned"),  # the first 8, counted
    ("All 3 phases complete: Phase 6, Phase 7, Phase 8", "Phase 3 in progress"),  # named: those three
    ("## ALL PHASES COMPLETE (0-10, 12-20; 11 deferred)", "Phase 11 blocked on the vendor"),  # listed
]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, OUTSIDE)))
def test_all_units_counted_named_or_listed_are_those_units(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    for name, text in SHAPES[shape](*pair).items():
        write(tmp_path / name, text)
    assert findings_of(tmp_path, "status_conflict") == []
