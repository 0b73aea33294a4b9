"""What real memory needed found: a retired memory still named by the index, an install pinned
to an old release, restatements with a word or two more, a task done under the same title."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from memory_autopsy.api import lint


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def findings(root: Path, rule: str) -> list[tuple[str, int, str]]:
    report = lint([str(root)])
    return [(Path(f.path).name, f.line, f.message) for f in report.findings if f.rule == rule]


SERENA = {
    "memory_index.md": (
        "# Memory Index\n\n"
        "- **project_overview**: what the project is (source: team)\n"
        "- **suggested_commands**: build and test commands (source: team)\n\n"
        "## Starting work\n"
        "1. Read **project_overview** for context (source: team)\n"
    ),
    "project_overview.md": (
        "---\nstatus: deprecated\n---\n# Project Overview\n\n"
        "**DEPRECATED**: This memory has been moved to [project/overview.md](project/overview.md).\n"
    ),
    "suggested_commands.md": "# Commands\n- run `make test` before a commit (source: team)\n",
}


def test_an_index_line_naming_a_retired_memory_is_stale(tmp_path: Path) -> None:
    found = findings(write(tmp_path, SERENA), "stale")
    assert [(name, line) for name, line, _ in found] == [("memory_index.md", 3), ("memory_index.md", 7)]
    assert "project_overview.md, which retired itself at" in found[0][2]


def test_the_cli_names_the_retirement_notice_as_the_other_side(tmp_path: Path) -> None:
    root = write(tmp_path, SERENA)
    result = run_cli("scan", "--isolated", "--format", "json", str(root))
    stale = [f for f in json.loads(result.out)["findings"] if f["rule"] == "stale"]
    assert stale and all(r["path"].endswith("project_overview.md") and r["line"] == 6
                         for f in stale for r in f["related"])


def test_an_index_that_says_deprecated_and_live_memories_stay_quiet(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "memory_index.md": "# Index\n- **old_overview** (deprecated, see overview_notes) (source: team)\n",
        "old_overview.md": "# Old\n\nDEPRECATED: this memory was split into overview_notes (source: team)\n",
        "overview_notes.md": "# Overview\n- the v1 api is deprecated since March (source: team)\n",
        "late_notice.md": "# Notes\n" + "- a note (source: team)\n" * 30 + "- Deprecated: the old cli flags (source: team)\n",
        "other.md": "# Other\n- see late_notice for the cli (source: team)\n",
    })
    assert findings(root, "stale") == []


GRAPH = (
    '{"type":"entity","name":"Cursor Integration","entityType":"doc","observations":'
    '["Configure args [\'-y\', \'think-tank@2.0.7\'] (source: readme)"],"createdAt":"2026-05-13T09:21:26Z"}\n'
    '{"type":"entity","name":"Think Tank","entityType":"project","observations":'
    '["Currently at version 2.0.9 (source: changelog)"],"createdAt":"2026-05-13T14:02:41Z"}\n'
)


def test_an_install_pinned_below_the_current_version_is_stale(tmp_path: Path) -> None:
    found = findings(write(tmp_path, {"memory.jsonl": GRAPH}), "stale")
    assert [(name, line) for name, line, _ in found] == [("memory.jsonl", 1)]
    assert "pins think-tank 2.0.7" in found[0][2]


def test_a_pin_at_or_after_the_current_version_is_not_stale(tmp_path: Path) -> None:
    root = write(tmp_path, {"memory.md": (
        "## Think Tank\n"
        "- [2026-05-01] Currently at version 2.0.9 (source: changelog)\n"
        "- [2026-05-02] Install with npx think-tank@2.0.9 (source: readme)\n"
        "- [2026-05-03] Pin npx think-tank@2.0.7 for the old plugin (source: readme)\n"
        "- [2026-04-03] Pin npx other-tool@1.0.0 (source: readme)\n"
    )})
    assert findings(root, "stale") == []


def test_a_restatement_with_a_word_or_two_more_is_a_near_duplicate(tmp_path: Path) -> None:
    root = write(tmp_path, {"memory.md": (
        "## Think Tool\n"
        "- [2026-05-11] Provides a structured environment for enhanced reasoning, persistent memory, "
        "and responsible tool usage (source: readme)\n"
        "- [2026-05-13] Provides structured reasoning, persistent memory, and responsible tool usage "
        "(source: readme)\n"
        "- [2026-05-13] UnifiedItemView and supporting components were added for hierarchical item "
        "display. Macro calculation utilities were refactored for recursion. (source: pr)\n"
        "- [2026-05-14] Adds UnifiedItemView and supporting components for hierarchical item display "
        "(source: pr)\n"
    )})
    assert [(name, line) for name, line, _ in findings(root, "near_duplicate")] == [("memory.md", 3), ("memory.md", 5)]


def test_items_under_one_label_with_other_values_are_not_restatements(tmp_path: Path) -> None:
    root = write(tmp_path, {"memory.md": (
        "## Repositories\n"
        "- Git repo: acme-labs/billing-themes-service (source: team)\n"
        "- Git repo: acme-labs/billing-tracker-service (source: team)\n"
        "- Release 2.14.22: script created and pushed the tag with notes (source: log)\n"
        "- Release 2.14.23: script created and pushed the tag with notes (source: log)\n"
    )})
    assert findings(root, "near_duplicate") == []


def test_a_task_done_later_under_the_same_title_is_a_status_conflict(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "progress.md": "## Current Tasks\n- [2026-04-01] [ ] Implement Config Flow (Phase 1: setup) based on plan.md\n",
        "decisionLog.md": "## [2026-04-02] Release\n- Completed Config Flow implementation (Phases 1-3); ready for release.\n",
    })
    assert [(name, line) for name, line, _ in findings(root, "status_conflict")] == [("progress.md", 2)]


def test_a_done_item_that_only_shares_the_subject_is_no_evidence(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "progress.md": "## Current Tasks\n- [2026-04-01] [ ] Implement Config Flow (Phase 1: setup)\n",
        "decisionLog.md": "## [2026-04-02] Tests\n- Fixed config flow test imports for the options step.\n",
    })
    assert findings(root, "status_conflict") == []


def test_a_guideline_using_a_replaced_tool_is_a_likely_conflict(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "workflow.mdc": "# Content\n- Use `kk lint` to validate content\n- Use `cargo test` before a push\n",
        "memories.mdc": "# Learned\n- Use `cargo run --` to run krik instead of relying on `kk` on the PATH\n",
    })
    found = findings(root, "likely_conflict")
    assert [(name, line) for name, line, _ in found] == [("workflow.mdc", 2)]
    assert "memories.mdc:2 replaces it" in found[0][2]


def test_a_preference_without_a_tool_replaced_stays_quiet(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "models.md": "# Models\n- Set casts in a `casts()` method rather than the `$casts` property\n"
                     "- Use $casts only in legacy models\n",
    })
    assert findings(root, "likely_conflict") == []


def test_lines_opened_by_a_status_mark_are_items_of_their_own(tmp_path: Path) -> None:
    (tmp_path / "progress.md").write_text(
        "FINAL DELIVERABLES:\n✅ Complete agent pipeline\n✅ Streamlit web interface\n", encoding="utf-8")
    facts = lint([str(tmp_path)]).facts
    assert [(f.line, f.status) for f in facts if "✅" in f.claim] == [(2, "done"), (3, "done")]
