"""A task written as a record ("- [ ] **Auth system**" with "**Priority**: High", "**Branch**: …"
nested under it) gives its fields its status, but a field is no task: two tasks' records share
their fields ("Priority: High" open under one, done under the other), and a heading that names
a kind of task ("### Tasks" under Active and under Completed) is a category. Before, each was
matched as one task pending and done. Generated: every field in every record layout. The task
itself still conflicts: the same title open in one place and done in another."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of, write

FIELDS = ["Category: Backend", "Priority: High", "Status: Pending", "Assigned: Auto", "Created: 2025-02-02",
          "Branch: `feature/shared`", "Type: Feature", "Estimate: 3 days", "Owner: platform team", "Sprint: 4"]
LAYOUTS = {
    "bold field": "  - **{label}**: {value}",
    "bold label and colon": "  - **{label}:** {value}",
    "plain field": "  - {label}: {value}",
}


def _record(title: str, box: str, field: str, layout: str) -> str:
    label, value = field.split(": ", 1)
    return f"- [{box}] **{title}**\n" + LAYOUTS[layout].format(label=label, value=value) + "\n"


def _store(root: Path, field: str, layout: str, done_title: str) -> Path:
    write(root / "tasks.md", (
        "# Tasks\n\n## Active Tasks\n\n### Tasks\n\n"
        + _record("Authentication and authorization system", " ", field, layout)
        + "\n## Completed Tasks\n\n### Tasks\n\n"
        + _record(done_title, "x", field, layout)
    ))
    return root


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("field", FIELDS)
def test_a_field_of_a_task_record_is_no_task(tmp_path: Path, field: str, layout: str) -> None:
    found = findings_of(_store(tmp_path, field, layout, "Shared package foundation"), "status_conflict")
    assert found == [], found


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_task_itself_still_conflicts(tmp_path: Path, layout: str) -> None:
    found = findings_of(_store(tmp_path, FIELDS[1], layout, "Authentication and authorization system"), "status_conflict")
    assert [f["line"] for f in found] == [7], found
