"""One tool given two versions that no release satisfies, within one store: the older or lower
statement is `stale`, judged as a slot's two values in prose are (review), naming the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write
from pair_shapes import two_entities, two_files, two_headings

# (the superseded statement, the current one): two minimums, two releases, a release under a minimum
CONFLICTS = {
    "two minimums": ("Python 3.8+", "Python 3.13+"),
    "two releases": ("react-native 0.76.1", "React Native Version: 0.81.5"),
    "a release under a minimum": ("Node 18.19.0", "Node.js 20+"),
    "a product with .js": ("Next.js 14.2.3", "Next.js 15.5.6"),
}
FRAMES = ("{v} with uv package management", "Runtime: {v}", "The service runs on {v} in production")


# a graph's two entities: one tool is compared across the store's subjects, not within one
SHAPES = {"two files of one store": two_files, "two sections of one file": two_headings, "a graph": two_entities}


def _stale(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "stale")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("frame", FRAMES)
@pytest.mark.parametrize("case", CONFLICTS)
def test_one_tool_at_two_versions_flags_the_lower(tmp_path: Path, case: str, frame: str, shape: str) -> None:
    old, new = CONFLICTS[case]
    SHAPES[shape](tmp_path, frame.format(v=old), frame.format(v=new))
    found = _stale(tmp_path)
    assert len(found) == 1, found
    only = found[0]
    assert only["message"].startswith(f"gives {old} here"), only["message"]
    assert only["severity"] == "review" and only["judge"].startswith("slot/")  # two values read from prose
    assert "the lower version is flagged" in only["message"]
    assert len(only["related"]) == 1


def test_with_dates_the_older_statement_is_flagged_whatever_its_version(tmp_path: Path) -> None:
    write(tmp_path / "progress.md",
          "# Progress\n\n## 2026-01-10\n- Python 3.13+ with uv\n\n## 2026-03-02\n- Python 3.12+ with uv\n")
    found = _stale(tmp_path)
    assert len(found) == 1 and found[0]["message"].startswith("gives Python 3.13+ here"), found
    assert "observed later" in found[0]["message"]


def test_two_statements_of_one_slot_are_reported_once(tmp_path: Path) -> None:
    """"runs on" is a slot the slot layer compares: one finding for the pair, not two."""
    write(tmp_path / "progress.md",
          "# Progress\n\n## 2026-01-10\n- The service runs on Python 3.13+\n\n## 2026-03-02\n- The service runs on Python 3.12+\n")
    assert len(_stale(tmp_path)) == 1


LOOK_ALIKES = {
    "one release within the other": ("React 18", "React 18.2.0"),
    "a release that meets the minimum": ("Node 20+", "Node 22.19.0"),
    "a history": ("Upgraded from Python 3.8 to Python 3.13", "Python 3.13+"),
    "a support matrix": ("Tested on Python 3.10.4 and Python 3.12.1", "Python 3.11.2"),
    "a measure": ("Latency 1.22 ms on GET", "Latency 6.48 ms on POST"),
    "numbered work": ("Phase 2.1.3 shipped", "Phase 2.2.0 shipped"),
    "a plan": ("We plan to support Python 3.13+ next quarter", "Python 3.8+"),
    "two tools": ("Python 3.8+", "Node.js 20+"),
    "two places": ("Node version 18.19.0 in CI", "Node version 20.11.0 locally"),
    "a numbered document": ("Spec v1 describes the sync", "Spec v2 describes the export"),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", LOOK_ALIKES)
def test_look_alikes_of_two_versions_stay_silent(tmp_path: Path, case: str, shape: str) -> None:
    SHAPES[shape](tmp_path, *LOOK_ALIKES[case])
    assert _stale(tmp_path) == []


def test_two_stores_are_compared_apart(tmp_path: Path) -> None:
    write(tmp_path / "service-a" / "memory-bank" / "techContext.md", "# Tech\n\n- Runtime: Python 3.8+\n")
    write(tmp_path / "service-b" / "memory-bank" / "techContext.md", "# Tech\n\n- Runtime: Python 3.13+\n")
    assert _stale(tmp_path) == []


def test_a_table_of_releases_is_no_claim_of_the_current_version(tmp_path: Path) -> None:
    """More versions of one tool than MAX_VERSIONS: a release history, left alone (and the work
    stays linear in the statements however many there are)."""
    rows = "".join(f"## Image {i}\n- Python 3.{i}.0\n\n" for i in range(70))
    write(tmp_path / "images.md", f"# Images\n\n{rows}")
    assert _stale(tmp_path) == []


def test_items_of_one_list_are_two_subjects(tmp_path: Path) -> None:
    write(tmp_path / "images.md", "# Images\n\n- Python 3.11.4 in the api image\n- Python 3.12.1 in the worker image\n")
    assert _stale(tmp_path) == []
