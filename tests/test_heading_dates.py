"""A heading that names the period its section covers dates the section's facts: a day
("(March 22, 2026)", "2026-03-22") or a month with its year ("(July 2026)", "Sept. 2025 —
Migration"), in every heading shape; a heading whose words only look like a month does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from memory_autopsy.api import lint

DATED = [
    ("## Recently Completed (March 22, 2026)", "2026-03-22"),
    ("## Done (July 2026)", "2026-07"),
    ("## July 2026", "2026-07"),
    ("### Sept. 2025 — Migration", "2025-09"),
    ("## Progress, December 2025", "2025-12"),
    ("## Update: Jan 2026", "2026-01"),
    ("## 2026-08-01", "2026-08-01"),
]
UNDATED = ["## Plan for 2026", "## Mayhem 2026 tour", "## Marketing 2026", "## Release 2026.1"]


def observed(tmp_path: Path, heading: str) -> str | None:
    path = write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n{heading}\n- Shipped the invoice exporter\n")
    (fact,) = [f for f in lint([str(path)]).facts if "exporter" in f.claim]
    return fact.observed_at


@pytest.mark.parametrize(("heading", "day"), DATED)
def test_a_heading_that_names_a_period_dates_its_section(tmp_path: Path, heading: str, day: str) -> None:
    assert observed(tmp_path, heading) == day


@pytest.mark.parametrize("heading", UNDATED)
def test_a_heading_that_only_looks_like_a_month_dates_nothing(tmp_path: Path, heading: str) -> None:
    assert observed(tmp_path, heading) is None


NESTED = """# Progress

## 2026-02-02
- [2026-03-01] Shipped the invoice exporter
  - streams rows in batches of 500
    - retries a failed batch twice
  - detail with its own date (2026-03-05)
- Started the importer
  - reads CSV only
"""


@pytest.mark.parametrize(("words", "day"), [
    ("streams rows", "2026-03-01"),  # a detail of a dated item was written that day
    ("retries a failed", "2026-03-01"),  # however deep
    ("its own date", "2026-03-05"),  # its own date wins
    ("Started the importer", "2026-02-02"),  # a sibling of the dated item keeps its section's date
    ("reads CSV", "2026-02-02"),  # and so do its details
])
def test_a_nested_item_takes_the_date_of_its_dated_parent(tmp_path: Path, words: str, day: str) -> None:
    path = write(tmp_path / "memory-bank" / "progress.md", NESTED)
    (fact,) = [f for f in lint([str(path)]).facts if words in f.claim]
    assert fact.observed_at == day
