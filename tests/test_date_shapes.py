"""Every way memory writes a day dates the facts it governs, wherever the day is written: a
heading, a heading with a label or a title, a bullet's lead, a bold lead, a bracket, a "Last
updated" line. Generated: each date shape in each place. A number that only looks like a day
("03/04/2026", which one country reads as March and another as April; a version) dates nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from memory_autopsy.api import lint

SHAPES = {
    "iso": "2026-03-22", "iso slashes": "2026/03/22", "iso with time": "2026-03-22 14:30",
    "iso utc": "2026-03-22T10:00:00Z", "month day": "March 22, 2026", "short month": "Mar 22, 2026",
    "short month dot": "Mar. 22, 2026", "ordinal": "March 22nd, 2026", "day month": "22 March 2026",
    "day short month": "22 Mar, 2026", "weekday": "Sunday, March 22, 2026",
    "short weekday": "Sun, Mar 22, 2026", "day dots": "22.03.2026", "month slashes": "03/22/2026",
    "day slashes": "22/03/2026", "day dashes": "22-03-2026", "cjk": "2026年3月22日",
}
PLACES = {
    "heading": "## {d}\n\n- Switched the cache to Redis\n- Added the login page\n",
    "heading with label": "## Recently Completed ({d})\n\n- Switched the cache to Redis\n- Added the login page\n",
    "heading with title": "## {d} - Sprint 4\n\n- Switched the cache to Redis\n- Added the login page\n",
    "bullet lead": "- {d}: Switched the cache to Redis\n- {d}: Added the login page\n",
    "bold lead": "- **{d}**: Switched the cache to Redis\n- **{d}**: Added the login page\n",
    "bracket": "- [{d}] Switched the cache to Redis\n- [{d}] Added the login page\n",
    "last updated": "Last updated: {d}\n\n- Switched the cache to Redis\n- Added the login page\n",
    "bold last updated": "**Last Updated**: {d}\n\n- Switched the cache to Redis\n- Added the login page\n",
}
LOOK_ALIKES = ["03/04/2026", "Release v1.10.2026", "build 12.7.2026.1"]


def dates_of(tmp_path: Path, body: str) -> dict[str, str | None]:
    path = write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n{body}")
    facts = lint([str(path)]).facts
    return {f.claim: f.observed_at for f in facts if "cache" in f.claim or "login" in f.claim}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_date_shape_dates_the_facts_it_governs(tmp_path: Path, shape: str, place: str) -> None:
    found = dates_of(tmp_path, PLACES[place].format(d=SHAPES[shape]))
    assert len(found) == 2, found
    assert all(day is not None and day.startswith("2026-03-22") for day in found.values()), found


@pytest.mark.parametrize("place", ["heading", "bullet lead", "last updated"])
@pytest.mark.parametrize("look_alike", LOOK_ALIKES)
def test_a_number_that_only_looks_like_a_day_dates_nothing(tmp_path: Path, look_alike: str, place: str) -> None:
    found = dates_of(tmp_path, PLACES[place].format(d=look_alike))
    assert found and all(day is None for day in found.values()), found
