"""One quantity reported per part of a project ("Phase 1: 100% complete", "Overall Progress:
95% Complete") is compared part with part: two statements that name the same part before their
number differ (`numeric_drift`), even where the store's first or newest statement of the
quantity is about another part. A word that names the measure ("status", "progress") is no
part of its own: "Overall Status: 90% Complete" and "Overall Progress: 95% Complete" report
one share. Two parts ("Frontend" / "Backend") stay two quantities."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

OTHER = "Phase 1: 100% complete"
SAME_PART = [
    ("**Overall Progress**: **95% Complete**", "**Overall Status**: **90% Complete**"),
    ("Auth module is 60% complete", "Auth module status: 80% complete"),
    ("Search indexing progress: 40% done", "Search indexing: 70% done"),
]
TWO_PARTS = [
    ("Frontend: 60% complete", "Backend: 90% complete"),
    ("Auth module is 60% complete", "Billing module is 80% complete"),
]


SHAPES = {
    "two files of a memory bank": lambda first, second: {
        "memory-bank/activeContext.md": f"# Active Context\n\n## Summary\n- {OTHER}\n- {first}\n",
        "memory-bank/progress.md": f"# Progress\n\n## Where we are\n- {second}\n"},
    "two headings of a file": lambda first, second: {
        "notes.md": f"# Notes\n\n## Summary\n- {OTHER}\n- {first}\n\n## Status\n- {second}\n"},
    "two Serena memories": lambda first, second: {
        ".serena/memories/project_overview.md": f"# Overview\n\n- {OTHER}\n- {first}\n",
        ".serena/memories/current_status.md": f"# Current status\n\n- {second}\n"},
    "a Claude Code memory folder": lambda first, second: {
        "memory/MEMORY.md": f"# Memory\n\n- [Status](project_status.md): {OTHER}\n- {first}\n",
        "memory/project_status.md": f"---\nname: status\ntype: project\n---\n\n- {second}\n"},
}


def _drift(root: Path, shape: str, pair: tuple[str, str]) -> list[dict]:
    for name, text in SHAPES[shape](*pair).items():
        write(root / name, text)
    return findings_of(root, "numeric_drift")


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, SAME_PART)))
def test_two_reports_of_one_part_drift(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    found = _drift(tmp_path, shape, pair)
    assert len(found) == 1 and found[0]["related"], found
    assert "100%" not in found[0]["message"], found  # the parts, not the other phase


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, TWO_PARTS)))
def test_two_parts_are_two_quantities(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    assert _drift(tmp_path, shape, pair) == []


HEADED = [("Integrations", 60, 50), ("User Interface", 85, 70), ("外部連携", 60, 50)]
HEADINGS = ["### 4. {part} - **{n}% complete**", "## {part} ({n}% Complete)", "### {part}: {n}% done"]


@pytest.mark.parametrize(("part", "heading"), list(product(HEADED, HEADINGS)))
def test_a_heading_that_gives_a_part_its_share_is_a_statement_of_it(
    tmp_path: Path, part: tuple[str, int, int], heading: str,
) -> None:
    """A summary's item and the part's own section heading ("### 4. Integrations - 50% complete")
    report one part's share done: the heading is a statement like the item."""
    name, summary, section = part
    write(tmp_path / "memory-bank" / "progress.md",
          f"# Progress\n\n## Summary\n- {OTHER}\n- 🔄 **{name} ({summary}% complete)**\n\n"
          f"## Parts\n\n{heading.format(part=name, n=section)}\n- API client wired\n")
    found = findings_of(tmp_path, "numeric_drift")
    assert len(found) == 1 and f"{section}%" in found[0]["message"] + str(found[0]["related"]), found


@pytest.mark.parametrize(("share", "conflict"), [(80, False), (33, False), (100, True)])
@pytest.mark.parametrize("mark", ["- ✅ Knowledge base import ({share}% complete)", "- [x] Knowledge base import - {share}% done"])
def test_a_share_below_the_whole_is_no_evidence_of_done(tmp_path: Path, share: int, conflict: bool, mark: str) -> None:
    """"✅ Knowledge base import (80% complete)" is work in progress, not done: a pending item of
    the same task elsewhere is no status conflict, unless the share is the whole."""
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Done\n{mark.format(share=share)}\n")
    write(tmp_path / "memory-bank" / "activeContext.md", "# Active Context\n\n## Next Steps\n- [ ] Knowledge base import\n")
    assert bool(findings_of(tmp_path, "status_conflict")) is conflict
