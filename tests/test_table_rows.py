"""Two rows of one table are two records. A table names each subject once in its first column;
a first cell repeated down the table (a year, a layer, a team) groups rows and is no key, so
the other cells of two such rows are two subjects' values, never one slot read twice. The same
subject in two tables (two files, or two sections of one) is still one slot.

Generated: grouping columns x value columns x store shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of, write

SLOT_RULES = ("likely_conflict", "contradicted_implicit", "stale")

# (header, rows, a row of the first one's subject with other values): every row repeats its
# first cell, every other cell differs
GROUPED = {
    "year": ("| Date | Decision | Rationale |",
             ["| 2024 | Use FastAPI for backend | Modern async framework |",
              "| 2024 | Use Recharts for charts | Composable React components |",
              "| 2024 | Regex-based parsing | The export format is predictable |"],
             "| 2024 | Use Django for backend | Batteries included |"),
    "layer": ("| Layer | File | Lines |",
              ["| Core | logger.c | 67/68 = 98.5% |",
               "| Core | fs_util.c | 23/25 = 92% |",
               "| Core | raii.h | 18/18 = 100% |"],
              "| Core | journal.c | 12/40 = 30% |"),
    "team": ("| Team | Service | Port |",
             ["| Backend | billing-api | 8080 |",
              "| Backend | auth-api | 8081 |",
              "| Backend | search-api | 8082 |"],
             "| Backend | ledger-worker | 9090 |"),
    "region": ("| Region | Node | Provider |",
               ["| EU | finland-1 | Hetzner |",
                "| EU | netherlands-2 | DigitalOcean |",
                "| EU | germany-3 | OVH |"],
               "| EU | sweden-4 | Scaleway |"),
}

SHAPES = {
    "memory bank": "memory-bank/techContext.md",
    "claude memory folder": ".claude/memory/project_status.md",
    "serena memory": ".serena/memories/project_overview.md",
}


def _table(header: str, rows: list[str]) -> str:
    columns = header.count("|") - 1
    return "\n".join([header, "|" + "---|" * columns, *rows]) + "\n"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("group", GROUPED)
def test_rows_grouped_by_their_first_cell_are_records_of_their_own(tmp_path: Path, group: str, shape: str) -> None:
    header, rows, _ = GROUPED[group]
    write(tmp_path / SHAPES[shape], f"# Project\n\n## Overview\n\n{_table(header, rows)}")
    for rule in SLOT_RULES:
        assert findings_of(tmp_path, rule) == [], rule


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("group", GROUPED)
def test_grouped_rows_against_a_table_elsewhere_still_conflict(tmp_path: Path, group: str, shape: str) -> None:
    """One group's row restated with another value in a second table (another file) is a slot
    read twice: the group is one subject there, as it is in each table."""
    header, rows, other = GROUPED[group]
    path = tmp_path / SHAPES[shape]
    write(path, f"# Project\n\n## Overview\n\n{_table(header, rows[:1])}")
    write(path.with_name("decisions.md"), f"# Decisions\n\n## Current\n\n{_table(header, [other])}")
    found = [f for rule in SLOT_RULES for f in findings_of(tmp_path, rule)]
    assert found, "the same subject with other values in two tables is one slot read twice"


@pytest.mark.parametrize("shape", SHAPES)
def test_one_subject_in_two_tables_of_one_file_still_conflicts(tmp_path: Path, shape: str) -> None:
    text = ("# Tech\n\n## Stack\n\n" + _table("| Component | Choice |", ["| Database | PostgreSQL 14 |", "| Queue | Redis |"])
            + "\n## Services\n\n" + _table("| Component | Choice |", ["| Database | MySQL 8 |", "| Cache | Memcached |"]))
    write(tmp_path / SHAPES[shape], text)
    found = [f for rule in SLOT_RULES for f in findings_of(tmp_path, rule)]
    assert [(f["rule"], f["line"]) for f in found if "mysql" in f["message"].casefold()], found
