"""A memory that says the project's current version is behind a release its own store records
is stale, whatever the release's form: a changelog table row, "Released v1.0.1", "bumped the
version to 1.0.1", "1.0.1 shipped", "Version 1.0.1 tagged and published", an entry labelled a release ("RELEASED
2026-07-17: Version 1.0.1 - …"), or another claim that says the current version is higher. A
version labelled as the project's ("**Version:** 1.0.0", "Build version: v1.0.0") says it is
current. A version is its own time cue: no dates are needed. A dependency's version, an older
release, or a release in another store leaves it alone."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

CURRENT = ["- Current Version: 1.0.0", "- Currently at version 1.0.0", "- **Current version:** v1.0.0",
           "- **Version:** 1.0.0 (see installer.iss)", "- Build version: v1.0.0 (build.zig.zon)"]
RELEASES = [
    "| Version | Date | Changes |\n|---|---|---|\n| 1.0.1 | 2026-03-02 | Exporter fix |\n| 1.0.0 | 2026-02-01 | First |",
    "- Released v1.0.1 with the exporter fix",
    "- Bumped the version to 1.0.1",
    "- 1.0.1 shipped to the store",
    "- Version 1.0.1 tagged and published as a GitHub Release",
    "* RELEASED 2026-07-17 (TICKET-0162): Version 1.0.1 - converted the changelog's Unreleased section",
    "- Canonical current version: **1.0.1** (`src/package.json`)",
    "- **App version**: v1.0.1",
]


def stale(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "stale")


@pytest.mark.parametrize(("current", "release"), list(product(CURRENT, RELEASES)))
def test_a_current_version_behind_a_recorded_release_is_stale(tmp_path: Path, current: str, release: str) -> None:
    write(tmp_path / "memory-bank" / "productContext.md", f"# Product Context\n\n## Overview\n{current}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Releases\n{release}\n")
    (found,) = stale(tmp_path)
    assert found["path"].endswith("productContext.md") and found["line"] == 4
    assert "1.0.1" in str(found["message"]) and found["related"][0]["path"].endswith("progress.md")


@pytest.mark.parametrize(("current", "release"), [
    ("- Current Version: 1.0.1", "- Released v1.0.1"),  # the same release
    ("- Current Version: 1.2.0", "- Released v1.0.1"),  # an older one
    ("- React: currently at version 18.2.0", "- Released v19.0.0 of the app"),  # another subject
    ("- Current Version: 1.0.0", "- Released the exporter fix"),  # no version
    ("- Current Version: 1.0.0", "- Upgrade to 1.0.1 when it is released"),  # a plan
    ("- Python version: 3.11", "- Current version: 3.12.1"),  # a version labelled with another name
    ("- Sailor version: v1.22.0", "- Released v1.25.0"),
    ("- Version: 1.0.0", "- Node.js 18.1.0 is the current runtime"),  # no current version of the project
    ("- Version: 1.0.0", "- Node.js current version is 22.1.0"),  # another's current version
    ("- Version: 1.0.0", "- React's current version: 19.1.0"),
])
def test_the_same_older_or_anothers_version_is_not_stale(tmp_path: Path, current: str, release: str) -> None:
    write(tmp_path / "memory-bank" / "productContext.md", f"# Product Context\n\n## Overview\n{current}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Releases\n{release}\n")
    assert stale(tmp_path) == []


def test_of_two_current_versions_the_lower_is_stale(tmp_path: Path) -> None:
    write(tmp_path / "memory-bank" / "productContext.md", "# Product Context\n\n- Version: 2.0.0\n")
    write(tmp_path / "memory-bank" / "techContext.md", "# Tech Context\n\n- Current version: 1.9.0\n")
    (found,) = stale(tmp_path)
    assert found["path"].endswith("techContext.md") and "2.0.0" in str(found["message"])


def test_a_release_in_another_store_is_anothers(tmp_path: Path) -> None:
    write(tmp_path / "a" / "memory-bank" / "productContext.md", "# Product Context\n\n- Current Version: 1.0.0\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n- Released v1.0.1\n")
    assert stale(tmp_path) == []
