"""A short paragraph ending in a colon that records what follows as gone ("The following were
removed during the API cleanup:") introduces its list as an item "Removed:" does its children:
the items name what left, so none of them still relies on a name another line rejects. A lead
that records nothing gone ("The following are required:") leaves its items stating what is used."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

GONE = (
    "The following were removed during the API cleanup:",
    "Removed in the March cleanup:",
    "These packages were dropped with the old client:",
    "**Deleted** together with the generated models:",
    "Renamed or removed in the refactor:",
)
KEPT = ("The following are required:", "Dependencies in use:", "Code generation runs with:")
MARKERS = ("- ", "* ", "1. ")


def store(root: Path, lead: str, marker: str) -> None:
    items = "".join(f"{marker}{item}\n" for item in (
        "`build_runner: ^2.11.1` -- Code generation runner",
        "`json_serializable: ^6.7.1` -- fromJson/toJson generation",
    ))
    write(root / "memory-bank/techContext.md",
          f"# Tech Context\n\n## Dependencies\n\n{lead}\n{items}\n"
          "## Code Generation\n\nNo code generation is needed. The `build_runner` pipeline was removed on 2026-03-09.\n")


@pytest.mark.parametrize(("lead", "marker"), list(product(GONE, MARKERS)))
def test_items_under_a_lead_that_records_them_gone_rely_on_nothing(tmp_path: Path, lead: str, marker: str) -> None:
    store(tmp_path, lead, marker)
    assert findings_of(tmp_path, "stale") == []


@pytest.mark.parametrize(("lead", "marker"), list(product(KEPT, MARKERS)))
def test_items_under_another_lead_still_rely_on_the_rejected_name(tmp_path: Path, lead: str, marker: str) -> None:
    store(tmp_path, lead, marker)
    found = findings_of(tmp_path, "stale")
    assert len(found) == 1 and "build_runner" in found[0]["message"], found
