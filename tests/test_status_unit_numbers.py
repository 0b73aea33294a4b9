"""Two numbered units of one kind are two tasks, whatever words they share: "Phase 2 user
interface polish" still planned is no status conflict with "Phase 3 user interface polish" done,
while the same unit done in one place and pending in another is one."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

UNITS = ["Phase", "Sprint", "Milestone", "Step"]
TASKS = ["user interface polish", "billing tables migration and cleanup"]
SHAPES = {
    "memory bank": lambda pending, done: {
        "memory-bank/activeContext.md": f"# Active Context\n\n## Next Steps\n- [ ] {pending}\n",
        "memory-bank/progress.md": f"# Progress\n\n## Completed\n- [x] {done}\n"},
    "one file": lambda pending, done: {
        "notes.md": f"# Notes\n\n## Done\n- ✅ {done}\n\n## Planned\n- {pending} (planned)\n"},
}


@pytest.mark.parametrize(("unit", "task", "shape"), list(product(UNITS, TASKS, SHAPES)))
def test_another_numbered_unit_is_another_task(tmp_path: Path, unit: str, task: str, shape: str) -> None:
    for name, text in SHAPES[shape](f"{unit} 2 {task}", f"{unit} 3 {task}").items():
        write(tmp_path / name, text)
    assert findings_of(tmp_path, "status_conflict") == []


@pytest.mark.parametrize(("unit", "task", "shape"), list(product(UNITS, TASKS, SHAPES)))
def test_the_same_unit_done_and_pending_conflicts(tmp_path: Path, unit: str, task: str, shape: str) -> None:
    for name, text in SHAPES[shape](f"{unit} 3 {task}", f"{unit} 3 {task}").items():
        write(tmp_path / name, text)
    assert len(findings_of(tmp_path, "status_conflict")) == 1
