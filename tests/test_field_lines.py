"""A paragraph whose lines open with a bold label ("**Date:** 2026-03-22", "**Decision:**
…", "**Rationale**: …") is a list of fields, one claim per line, as bullets would be: the date
line dates its entry, and each field is read on its own line. A label inside a line, or a
paragraph wrapped over lines with no label, is read as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from memory_autopsy.api import lint

LABELS = ["**{name}:**", "**{name}**:", "**{name}**："]


def facts(tmp_path: Path, body: str) -> list[tuple[int, str, str | None]]:
    path = write(tmp_path / "memory-bank" / "decisionLog.md", body)
    return [(f.line, f.claim, f.observed_at) for f in lint([str(path)]).facts]


@pytest.mark.parametrize("label", LABELS)
def test_each_labelled_line_of_a_paragraph_is_a_claim_dated_by_the_date_field(tmp_path: Path, label: str) -> None:
    field = label.format
    body = (f"# Decisions\n\n### Decision 1: Reduce the manifest\n{field(name='Date')} 2026-03-22\n"
            f"{field(name='Issue')} The add-on could not install the large libraries\n"
            f"{field(name='Decision')} Keep only four dependencies in the manifest\n")
    found = facts(tmp_path, body)
    assert [(line, date) for line, _, date in found] == [(5, "2026-03-22"), (6, "2026-03-22")], found
    assert "four dependencies" in found[1][1] and "install" not in found[1][1]


@pytest.mark.parametrize("body", [
    "# Notes\n\nThe exporter streams rows in batches and the\n**importer** reads CSV files only today.\n",
    "# Notes\n\nThe exporter streams rows in batches; **Note:** it retries twice.\n",
])
def test_a_paragraph_without_field_lines_is_read_as_one(tmp_path: Path, body: str) -> None:
    assert len(facts(tmp_path, body)) == 1
