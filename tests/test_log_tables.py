"""A table whose rows are dated ("| 2026-02-09 | Migrate sessions to Redis | Fix data leaks |")
is a log: each row is an entry of its own, as a dated heading is, and what one row's Decision,
Fix or Outcome column says is no value of a slot the next row's contradicts. Before, every
column was one slot of the section, and each row was read as disagreeing with the others
(`likely_conflict` "decision 'migrate' here, perhaps 'add'"). Generated: every way of writing the
row's date in every kind of log table. A table keyed by a name (not a date) still compares one
name's rows, in one file or in two."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of, write

DATES = {
    "iso": ("2026-02-09", "2026-02-10", "2026-02-11"),
    "iso with a time": ("2026-02-09 10:34Z", "2026-02-09 12:19Z", "2026-02-09 14:58Z"),
    "iso with a note": ("2026-02-09 (during deploy)", "2026-02-09 (verification)", "2026-02-10 (rollback)"),
    "one day": ("2026-02-09", "2026-02-09", "2026-02-09"),
    "month": ("Dec 2024", "Dec 2024", "Jan 2025"),
}
TABLES = {
    "decisions": (("Decision", "Rationale"), (
        ("Migrate sessions to Redis", "Fix data leaks between users"),
        ("Add Upstash for the cache", "Free tier covers the load"),
        ("Remove the sentiment service", "Cleaner scope for the MVP"),
    )),
    "session log": (("What was done", "Outcome"), (
        ("Committed the avatar pipeline fixes", "Uploads work from disk"),
        ("Ran the docker build workflow", "Image published to the registry"),
        ("Rolled out the production image", "All deployments back to green"),
    )),
    "fixes": (("Issue", "Fix", "File"), (
        ("Multi-turn chat", "Added a chat endpoint and session memory", "`api/endpoints/chat.py`"),
        ("Agent infinite loops", "Added safety nets at iteration 3", "`api/services/agent.py`"),
        ("Duplicate search results", "Added query dedup in the search tools", "`api/services/search.py`"),
    )),
}
SLOT_RULES = ("likely_conflict", "contradicted_implicit", "stale", "contradicted_explicit")


def _table(columns: tuple[str, ...], rows: tuple[tuple[str, ...], ...], dates: tuple[str, ...]) -> str:
    lines = ["| Date | " + " | ".join(columns) + " |", "|" + "---|" * (len(columns) + 1)]
    lines += ["| " + " | ".join((date, *row)) + " |" for date, row in zip(dates, rows)]
    return "\n".join(lines) + "\n"


def _slot_findings(root: Path) -> list[dict[str, object]]:
    return [f for rule in SLOT_RULES for f in findings_of(root, rule)]


@pytest.mark.parametrize("dates", DATES)
@pytest.mark.parametrize("table", TABLES)
def test_the_rows_of_a_log_table_are_entries_of_their_own(tmp_path: Path, table: str, dates: str) -> None:
    columns, rows = TABLES[table]
    write(tmp_path / "memory-bank" / "decisionLog.md", f"# Decision Log\n\n## Log\n\n{_table(columns, rows, DATES[dates])}")
    assert _slot_findings(tmp_path) == []


@pytest.mark.parametrize("files", ["one file", "two files"])
def test_a_table_keyed_by_name_still_compares_one_names_rows(tmp_path: Path, files: str) -> None:
    first = "| Component | Version |\n|---|---|\n| Redis | 6.2 |\n| Postgres | 15 |\n"
    second = "| Component | Version |\n|---|---|\n| Redis | 7.2 |\n"
    if files == "one file":
        write(tmp_path / "memory-bank" / "techContext.md", f"# Tech\n\n## Stack\n\n{first}\n## Cache\n\n{second}")
    else:
        write(tmp_path / "memory-bank" / "techContext.md", f"# Tech\n\n## Stack\n\n{first}")
        write(tmp_path / "memory-bank" / "systemPatterns.md", f"# Patterns\n\n## Cache\n\n{second}")
    found = _slot_findings(tmp_path)
    assert len(found) == 1, found
    assert "'6.2'" in str(found[0]["message"]) and "'7.2'" in str(found[0]["message"]), found
