"""A decision log retracts what another file of the same store still states: "Migrated the
background job queue off Redis to pg-boss" in a dated entry of decisionLog.md, while
techContext.md says "The background job queue runs on BullMQ backed by Redis". The two facts
belong to two entities (a log entry, a Stack section), so the entity pass never compared them.

Across entities only a dated log entry that names no subject of its own counts, against a fact
older or undated that holds the whole retracted phrase as what it uses (not as what it turns
down), within one store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

STATE = "- The background job queue runs on BullMQ backed by Redis"
RETRACTIONS = [
    "Migrated the background job queue off Redis to pg-boss on PostgreSQL",
    "Replaced Redis with pg-boss for the background job queue",
    "The background job queue no longer uses Redis",
    "Moved the background job queue off Redis to pg-boss",
    "Stopped using Redis for the background job queue",
    "Switched the background job queue from Redis to pg-boss",
]


def explicit(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "contradicted_explicit")


def bank(root: Path, state: str, log: str) -> None:
    write(root / "memory-bank" / "techContext.md", f"# Tech Context\n\n## Stack\n{state}\n")
    write(root / "memory-bank" / "decisionLog.md", f"# Decision Log\n\n{log}\n")


@pytest.mark.parametrize("retraction", RETRACTIONS)
def test_a_dated_log_entry_retracts_another_files_state(tmp_path: Path, retraction: str) -> None:
    bank(tmp_path, STATE, f"## 2026-03-01\n- {retraction}")
    found = explicit(tmp_path)
    assert len(found) == 1, found
    assert found[0]["path"].endswith("techContext.md")
    assert found[0]["related"][0]["path"].endswith("decisionLog.md")
    assert "'redis'" in found[0]["message"]


LOOK_ALIKES = {
    "a named subject's own retraction": (STATE, "## Umbrella\n- Umbrella moved off Redis (2026-03-01)"),
    "an undated log": (STATE, "## Queue\n- Migrated the background job queue off Redis to pg-boss"),
    "a state newer than the retraction": ("- The background job queue runs on Redis (2026-05-01)",
                                          "## 2026-03-01\n- Migrated the background job queue off Redis"),
    "a name the state turns down": ("- Queue: pg-boss over Redis",
                                    "## 2026-03-01\n- Migrated the background job queue off Redis"),
    "part of the retracted phrase": ("- Logging: uses the Python logging module",
                                     "## 2026-03-01\n- Removed the diagnostic logging added previously"),
    "a planned retraction": (STATE, "## 2026-03-01\n- Plan to migrate the background job queue off Redis"),
    "another version": ("- The billing database runs on PostgreSQL 16",
                        "## 2026-03-01\n- Migrated the billing database off PostgreSQL 14 to MySQL 8"),
}


def test_the_same_version_is_retracted(tmp_path: Path) -> None:
    bank(tmp_path, "- The billing database runs on PostgreSQL 14",
         "## 2026-03-01\n- Migrated the billing database off PostgreSQL 14 to MySQL 8")
    assert len(explicit(tmp_path)) == 1


@pytest.mark.parametrize("case", sorted(LOOK_ALIKES))
def test_look_alikes_stay_silent(tmp_path: Path, case: str) -> None:
    state, log = LOOK_ALIKES[case]
    bank(tmp_path, state, log)
    assert explicit(tmp_path) == []


def test_two_stores_are_not_compared(tmp_path: Path) -> None:
    write(tmp_path / "memory-bank" / "techContext.md", f"# Tech Context\n\n## Stack\n{STATE}\n")
    write(tmp_path / ".serena" / "memories" / "decisions.md",
          "# Decisions\n\n## 2026-03-01\n- Migrated the background job queue off Redis to pg-boss\n")
    assert explicit(tmp_path) == []
