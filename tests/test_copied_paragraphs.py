"""A paragraph copied word for word is one claim stored twice (`duplicate`), whatever status
or date each copy carries: a memory bank's progress file marks done ("## Completed") the
paragraph its active context logged plainly under a dated entry, or a later entry pastes an
earlier one whole. Quiet: an event that happened twice ("Ran the whole test suite before the
release" in two dated entries) and one task with two statuses (`- [ ]` beside `- [x]`: a status
conflict, not a copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import findings_of, write

PARAGRAPHS = [
    "**Forum ID check:** Implemented the logic in `PageForum.js` that checks the section IDs of the order "
    "and member threads and updates them in the extension settings whenever the forum shows new ones",
    "Order date fix: the order list now parses the creation date with the forum's own format, so a new "
    "order shows its date at once instead of an invalid date until the next reload of the page",
    "Deployment notes: the staging stack builds from the main branch on every merge, runs the migrations "
    "before the web container starts, and keeps the previous image for a one-command rollback",
]

SHAPES = {
    "a dated entry copied into the progress file": lambda p: {
        "memory-bank/activeContext.md": f"# Active Context\n\n## Recent Changes\n\n[2025-04-21 20:06:14] - {p}\n",
        "memory-bank/progress.md": f"# Progress\n\n## Completed (2025-04-07)\n\n- {p}\n",
    },
    "a dated entry pasted into another log": lambda p: {
        "memory-bank/activeContext.md": f"# Active Context\n\n## Recent Changes\n\n[2025-04-21 20:06:14] - {p}\n",
        "memory-bank/decisionLog.md": f"# Decision Log\n\n## Decisions\n\n[2025-04-26 01:41:22] - {p}\n",
    },
    "two dated entries of one log": lambda p: {
        "memory-bank/decisionLog.md": f"# Decision Log\n\n## 2025-04-20\n\n- {p}\n\n## 2025-04-26\n\n- {p}\n",
    },
    "a plain claim and a checked copy": lambda p: {
        "memory-bank/systemPatterns.md": f"# Patterns\n\n## Notes\n\n- {p}\n",
        "memory-bank/progress.md": f"# Progress\n\n## Done\n\n- [x] {p}\n",
    },
}


@pytest.mark.parametrize("paragraph", PARAGRAPHS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_paragraph_copied_whole_is_a_duplicate(tmp_path: Path, shape: str, paragraph: str) -> None:
    for name, text in SHAPES[shape](paragraph).items():
        write(tmp_path / name, text)
    found = findings_of(tmp_path, "duplicate")
    assert len(found) == 1, found
    assert "identical to" in found[0]["message"] and found[0]["related"], found[0]


@pytest.mark.parametrize("files", [
    {"memory-bank/progress.md": "# Progress\n\n## 2025-04-20\n\n- Ran the whole test suite before the release\n\n"
                                "## 2025-04-26\n\n- Ran the whole test suite before the release\n"},
    {"memory-bank/progress.md": "# Progress\n\n## Next\n\n- [ ] Migrate the order list to the forum's own date "
                                "format so that a new order shows its date at once after it is created\n\n"
                                "## Done\n\n- [x] Migrate the order list to the forum's own date format so that "
                                "a new order shows its date at once after it is created\n"},
], ids=["an event that happened twice", "one task with two statuses"])
def test_what_is_said_again_for_a_reason_is_no_copy(tmp_path: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        write(tmp_path / name, text)
    assert findings_of(tmp_path, "duplicate") == []
