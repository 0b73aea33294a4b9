"""A heading that marks its own title with a status says that of its title: "## Phase 5:
Polish ✅ COMPLETE", "# Alert System - COMPLETED ✅", "## 阶段 2 - ✅ 已完成" record the work
done, "### Segments - IN PROGRESS" and "### Phase 3: AI Screening (NEXT)" record it pending.
The status layer reads such headings as sides of a status conflict; no other layer sees them
(they are no facts: the fact count, copies and the fix plan are as before)."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, run_cli, write

DONE_HEADINGS = [
    "## {task} ✅ COMPLETE",
    "## {task} - COMPLETED ✅",
    "### 2. {task} ✅",
    "## {task} (Completed)",
    "# {task} - DONE",
    "## ✅ {task}",
]
PENDING_ITEMS = [
    "## Next Steps\n- {task}\n",
    "## Tasks\n- [ ] {task}\n",
    "## Current Focus\n- {task} (in progress)\n",
]
TASKS = ["Alert system implementation", "Segments filter panel", "Interactive learning system"]


def scan(root: Path, *args: str) -> dict[str, object]:
    code, out, err = run_cli("scan", str(root), "--json", "--fail-on", "never", *args)
    assert code == 0, err
    return json.loads(out)


def bank(root: Path, **files: str) -> Path:
    """A memory bank under `root`: each keyword a file of the folder (`progress` is progress.md)."""
    for name, text in files.items():
        write(root / "memory-bank" / f"{name}.md", text)
    return root


def conflicts(root: Path) -> list[dict[str, object]]:
    return findings_of(root, "status_conflict")


@pytest.mark.parametrize(("heading", "pending", "task"), list(product(DONE_HEADINGS, PENDING_ITEMS, TASKS)))
def test_a_task_pending_in_one_file_and_done_in_a_heading_of_another_conflicts(
        tmp_path: Path, heading: str, pending: str, task: str) -> None:
    bank(tmp_path,
         activeContext="# Active Context\n\n" + pending.format(task=task),
         progress="# Progress\n\n" + heading.format(task=task) + "\n\nShipped with tests and docs.\n")
    found = conflicts(tmp_path)
    assert len(found) == 1, found
    sides = {Path(str(found[0]["path"])).name, *(Path(str(r["path"])).name for r in found[0]["related"])}  # type: ignore[union-attr]
    assert sides == {"activeContext.md", "progress.md"}


@pytest.mark.parametrize("heading", [
    "### {task} - IN PROGRESS 🏗️", "### {task} (NEXT)", "## {task} - TODO",
])
def test_a_heading_still_pending_conflicts_with_the_task_done_elsewhere(tmp_path: Path, heading: str) -> None:
    task = "Segments filter panel"
    bank(tmp_path,
         productContext="# Product\n\n" + heading.format(task=task) + "\n\nThe panel filters by segment.\n",
         progress=f"# Progress\n\n## Status\n- [x] {task}\n")
    found = conflicts(tmp_path)
    assert [Path(str(f["path"])).name for f in found] == ["productContext.md"], found


def test_headings_in_ideographs_are_read_alike(tmp_path: Path) -> None:
    bank(tmp_path, activeContext="# 当前\n\n## 下一步工作\n- 阶段 2 自动记忆\n", progress="# 进度\n\n## 阶段 2 (自动记忆) - ✅ 已完成\n\n说明。\n")
    assert len(conflicts(tmp_path)) == 1


@pytest.mark.parametrize("heading", [
    "## ✅ Completed", "## Completed Tasks", "## Next Steps", "## Alert system implementation",
    "## Definition of Done", "## Alert system implementation plan",
])
def test_a_heading_with_no_status_of_its_own_is_no_side(tmp_path: Path, heading: str) -> None:
    """A generic heading gives its items a status and says nothing itself; a named heading
    with no mark says no status."""
    bank(tmp_path,
         activeContext="# Active\n\n## Next Steps\n- Alert system implementation\n",
         progress=f"# Progress\n\n{heading}\n\nNotes follow here today.\n")
    assert conflicts(tmp_path) == []


def test_heading_claims_are_no_facts(tmp_path: Path) -> None:
    """The fact count, copies and near copies, and the parse cache: as if the heading read no claim."""
    body = "# Progress\n\n## Export to CSV ✅ COMPLETE\n\n- Export to CSV ✅ COMPLETE\n- Import from CSV\n"
    bank(tmp_path, progress=body)
    cold = scan(tmp_path)
    assert cold["facts"] == 2, cold
    assert [f["rule"] for f in cold["findings"] if f["rule"] in ("duplicate", "near_duplicate")] == []  # type: ignore[index]
    warm = scan(tmp_path)
    assert warm["findings"] == cold["findings"]


def test_fix_never_touches_a_heading(tmp_path: Path) -> None:
    """A status conflict whose done side is a heading plans no fix: the pending item is kept
    for a person (it is no copy of the heading), and the heading is never struck."""
    progress = "# Progress\n\n# Alert system implementation - COMPLETED ✅\n\nDone.\n"
    bank(tmp_path, activeContext="# Active\n\n## Next Steps\n- Alert system implementation\n", progress=progress)
    assert len(conflicts(tmp_path)) == 1
    active = (tmp_path / "memory-bank" / "activeContext.md").read_text(encoding="utf-8")
    code, out, err = run_cli("report", "memory-bank", "--apply", "--yes-i-know", "--isolated", cwd=tmp_path)
    assert code in (0, 1), err
    assert (tmp_path / "memory-bank" / "progress.md").read_text(encoding="utf-8") == progress
    assert (tmp_path / "memory-bank" / "activeContext.md").read_text(encoding="utf-8") == active


def test_a_heading_claim_names_no_entity(tmp_path: Path) -> None:
    """Names are resolved over the facts alone: a heading's claim beside a look-alike entity
    ("Billing", "## Biling ✅") is no name to pair (it stopped the run with a KeyError)."""
    write(tmp_path / "memory.md", "# Memory\n\n## Billing\n- Billing uses Stripe for invoices\n\n"
                                  "## Biling ✅\n\nShipped.\n")
    code, out, err = run_cli("scan", str(tmp_path / "memory.md"), "--json", "--fail-on", "never")
    assert code == 0, err
    assert "unresolved_alias" not in {f["rule"] for f in json.loads(out)["findings"]}


@pytest.mark.parametrize(("section", "heading", "other", "flagged"), [
    ("## Remaining Issues", "### solution08_performance.go", "- ✅ solution08_performance.go - fixed node type order", "a.md"),
    ("## Completed Fixes", "### solution06_resource_leak.go", "- [ ] solution06_resource_leak.go", "b.md"),
])
def test_a_named_heading_takes_the_status_its_section_gives(tmp_path: Path, section: str, heading: str,
                                                            other: str, flagged: str) -> None:
    """A named heading under a generic one is an item of that section: "### x.go" under
    "## Remaining Issues" is pending, as "- x.go" there would be."""
    bank(tmp_path,
         a=f"# Fixes\n\n{section}\n\n{heading}\n\nDetails of the work.\n",
         b=f"# Status\n\n## Files\n{other}\n")
    assert [Path(str(f["path"])).name for f in conflicts(tmp_path)] == [flagged]


def _pending_heading(root: Path, above: str = "") -> None:
    bank(root,
         productContext=f"# Product\n\n{above}### Segments filter panel - IN PROGRESS\n\nThe panel filters by segment.\n",
         progress="# Progress\n\n## Status\n- [x] Segments filter panel\n")


def test_why_explains_a_finding_flagged_on_a_heading(tmp_path: Path) -> None:
    _pending_heading(tmp_path)
    code, out, err = run_cli("why", "memory-bank", "memory-bank/productContext.md:3", "--json", cwd=tmp_path)
    assert code == 0, err
    (item,) = json.loads(out)["facts"]
    assert [f["rule"] for f in item["findings"]] == ["status_conflict"]


def test_an_ignore_above_a_heading_silences_its_finding(tmp_path: Path) -> None:
    _pending_heading(tmp_path, "<!-- memory-autopsy: ignore status_conflict -->\n")
    assert conflicts(tmp_path) == []


STATUS_LINES = [
    "**Status:** ✅ COMPLETE",
    "**Status**: Completed (2026-01-01)",
    "Status: Done - shipped with tests",
    "- **State:** ✅ done",
    "**状態**: ✅ Completed (2026-01-01)",
]


@pytest.mark.parametrize(("line", "task"), list(product(STATUS_LINES, TASKS)))
def test_a_status_line_under_a_heading_says_that_of_the_heading(tmp_path: Path, line: str, task: str) -> None:
    """"### Phase 3: AI Implementation" with "**Status:** ✅ COMPLETE" below it records the
    work done as "### Phase 3: AI Implementation ✅" would; the finding names the status line."""
    bank(tmp_path,
         activeContext=f"# Active Context\n\n## Next Steps\n- {task}\n",
         progress=f"# Progress\n\n### {task}\n\nSome context first.\n\n{line}\n\nShipped with tests.\n")
    found = conflicts(tmp_path)
    assert len(found) == 1, found
    evidence = found[0]["related"][0]  # type: ignore[index]
    assert (Path(str(evidence["path"])).name, evidence["line"]) == ("progress.md", 7)


@pytest.mark.parametrize("progress", [
    "### {task}\n\n- Step one\n  - **Status:** ✅ COMPLETE\n",  # the item's status, not the section's
    "### {task}\n\n**Status:** living document, edit freely\n",  # a label that states no status
    "### {task}\n\n**Owner:** ✅ the platform team\n",  # not a status label
    "## Completed\n\n**Status:** ✅ COMPLETE\n",  # a generic heading is no claim
])
def test_a_status_line_that_is_not_the_sections_says_nothing_of_it(tmp_path: Path, progress: str) -> None:
    task = TASKS[0]
    bank(tmp_path,
         activeContext=f"# Active Context\n\n## Next Steps\n- {task}\n",
         progress="# Progress\n\n" + progress.format(task=task))
    assert conflicts(tmp_path) == []


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("done", [
    "| Phase | State |\n|---|---|\n| {task} | ✅ Completed |\n",
    "## Status\n- [x] {task}\n",
    "## {task} ✅ COMPLETE\n\nShipped.\n",
])
def test_a_section_whose_boxes_are_all_open_is_pending(tmp_path: Path, task: str, done: str) -> None:
    """"### Phase 1: Core/Domain" over nothing but open boxes is Phase 1 not started: against
    Phase 1 done elsewhere, one conflict, on the first open box."""
    bank(tmp_path,
         progress="# Progress\n\n" + done.format(task=task),
         plan=f"# Plan\n\n### {task}\n**Goal**: the model\n- [ ] CellState.cs\n- [ ] PlayerType.cs\n- [ ] BoardPosition.cs\n")
    found = conflicts(tmp_path)
    assert [(Path(str(f["path"])).name, f["line"]) for f in found] == [("plan.md", 5)], found


@pytest.mark.parametrize("plan", [
    "### {task}\n- [ ] CellState.cs\n",  # one open box is one item, not the section
    "### {task}\n- [x] CellState.cs\n- [ ] PlayerType.cs\n- [ ] BoardPosition.cs\n",  # begun
    "### {task}\n- [ ] CellState.cs\n- [ ] PlayerType.cs\n\n**Status:** ✅ Completed\n",  # its own status wins
    "### {task}\n- Notes\n  - [ ] CellState.cs\n  - [ ] PlayerType.cs\n",  # an item's boxes
    "## Next Steps\n- [ ] CellState.cs\n- [ ] PlayerType.cs\n",  # a generic heading is no claim
])
def test_a_section_with_checked_or_few_open_boxes_says_nothing_of_its_title(tmp_path: Path, plan: str) -> None:
    task = TASKS[1]
    bank(tmp_path, progress=f"# Progress\n\n## Status\n- [x] {task}\n", plan="# Plan\n\n" + plan.format(task=task))
    assert conflicts(tmp_path) == []
