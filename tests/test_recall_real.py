"""What real memory needed found: a retired memory still named by the index, an install pinned
to an old release, restatements with a word or two more, a task done under the same title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


@pytest.mark.parametrize(("retired", "named", "flagged"), [
    ("progress.md", "- Track progress in the weekly notes (source: team)", False),  # the word, not the file
    ("architecture.md", "- The architecture favours small services (source: team)", False),
    ("progress.md", "- Read progress.md before a session (source: team)", True),  # the file by its name
    ("techContext.md", "- See techContext for the stack (source: team)", True),  # an identifier, not a word
    ("code_style.md", "- Follow code_style in reviews (source: team)", True),
])
def test_a_retired_file_is_named_by_its_name_not_by_a_word_of_prose(
        tmp_path: Path, retired: str, named: str, flagged: bool) -> None:
    root = write(tmp_path, {
        retired: "# Old\n\nDEPRECATED: This memory has been moved to notes/current.md (source: team)\n",
        "index.md": f"# Index\n{named}\n",
    })
    assert [(name, line) for name, line, _ in findings(root, "stale")] == ([("index.md", 2)] if flagged else [])


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


# ----------------------------------------------------------------------------- rejected names
REJECTING = {
    "MEMORY.md": (
        "# Project memory\n\n"
        "## Workspace\n"
        "- Shared: `venv/` (legacy — may only exist under `themes/venv/`), `.chrome_profile/`\n\n"
        "## Browser automation\n"
        "- **Venv**: `venv/` with `playwright` installed\n"
        "- Do NOT use `taskkill /f` — it kills the user's own browser\n"
    ),
    "table_type.md": (
        "# Table types\n\n"
        "The reliable signal is option 201. **Do NOT use `table_matchmaking`** — it over-matched.\n\n"
        "Historical: the probe used to read `table_matchmaking` off players, which was wrong.\n\n"
        "In the extension: tournament from `tournament_id`; arena/regular from `table_matchmaking`; "
        "null when the API is unavailable (so we don't mislabel).\n"
    ),
}


def test_a_line_relying_on_a_name_the_store_rejects_is_stale(tmp_path: Path) -> None:
    found = findings(write(tmp_path, REJECTING), "stale")
    assert [(name, line) for name, line, _ in found] == [("MEMORY.md", 7), ("table_type.md", 7)]
    assert "relies on 'venv/', which" in found[0][2] and "MEMORY.md:4 rejects" in found[0][2]
    assert "relies on 'table_matchmaking'" in found[1][2] and "table_type.md:3" in found[1][2]


# ----------------------------------------------------------------------------- settled questions
def test_an_open_question_the_store_has_answered_is_stale(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "systemPatterns.md": (
            "# System patterns\n\n"
            "- **Fixtures:** Likely uses `conftest.py` for test fixtures (needs confirmation).\n"
            "- **Config:** via `settings.toml` or environment (TBD).\n"
        ),
        "decisionLog.md": (
            "# Decision log\n\n"
            "## [2025-04-02 10:00] Fixture cleanup\n"
            "*   Moved the shared fixtures into `conftest.py` and `test_update.py`.\n"
        ),
    })
    found = findings(root, "stale")
    assert [(name, line) for name, line, _ in found] == [("systemPatterns.md", 3)]
    assert "still open ('needs confirmation'), but " in found[0][2]
    assert "decisionLog.md:4 states 'conftest.py' as fact" in found[0][2]


def test_open_question_words_ship_in_japanese_and_chinese(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "notes.md": (
            "# メモ\n\n"
            "- テストは `conftest.py` を使う（要確認）\n"
            "- 配置は `deploy.sh` で行う（待确认）\n\n"
            "## [2025-05-01] log\n"
            "- Rewrote `conftest.py` fixtures and `deploy.sh` steps\n"
        ),
    })
    assert [(name, line) for name, line, _ in findings(root, "stale")] == [("notes.md", 3), ("notes.md", 4)]


# ----------------------------------------------------------------------------- restatements
def test_a_restatement_that_only_adds_a_count_is_a_near_duplicate(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "progress.md": (
            "# Progress\n\n"
            "- ✅ Complete agent pipeline: planner, searcher, reader, analyst, verifier, writer\n"
            "- ✅ Complete agent pipeline with all 6 components (planner, searcher, reader, analyst, verifier, writer)\n"
            "- ✅ Script created release 2.14.22 with generated notes for the planner\n"
            "- ✅ Script created release 2.14.23 with generated notes for the planner\n"
        ),
    })
    found = findings(root, "near_duplicate")
    assert [(name, line) for name, line, _ in found] == [("progress.md", 4)]


@pytest.mark.parametrize("first, second, restated", [
    ("invoices moved to Postgres", "moved the invoices over to Postgres", False),  # three content words
    ("the nightly export job writes invoices to the archive bucket",
     "the nightly export job now writes the invoices into the archive bucket", True),
])
def test_a_restatement_reads_the_claim_not_the_entity_written_before_it(
    tmp_path: Path, first: str, second: str, restated: bool
) -> None:
    """`- billing: claim` and `- claim` under `## billing` are the same claim: the entity's own
    words neither make a short claim long enough to restate nor change what two claims share."""
    found = []
    for name, text in {"prefixed.md": f"# Memory\n- billing-store: {first}\n- billing-store: {second}\n",
                       "headed.md": f"# Memory\n## ledger-store\n- {first}\n- {second}\n"}.items():
        root = write(tmp_path / name.removesuffix(".md"), {name: text})  # a store each
        found += [(name, line) for name, line, _ in findings(root, "near_duplicate")]
    found.sort()
    assert found == ([("headed.md", 4), ("prefixed.md", 3)] if restated else [])


def test_one_list_under_two_labels_is_a_restatement_but_a_mapping_is_not(tmp_path: Path) -> None:
    root = write(tmp_path, {
        "epic.md": (
            "# Unification epic\n\n"
            "- Risk mitigation: feature flags, comprehensive testing, rollback plan, performance monitoring.\n"
            "- Migration strategy included: feature flags, comprehensive testing, rollback plans, "
            "and performance monitoring.\n"
            "- Server args.type IDs: 0=base, 1=artifacts, 2=cities, 3=echoes, 4=figures\n"
            "- card_info.json set IDs differ from the server: 0=base, 1=figures, 2=cities, 3=echoes, 4=artifacts\n"
            "- Comments in code: English only, no emoji, short lines\n"
            "- Blog content: English only, no emoji, short lines\n"
        ),
    })
    found = findings(root, "near_duplicate")
    assert [(name, line) for name, line, _ in found] == [("epic.md", 4)]


def test_past_work_under_current_focus_is_progress_not_an_open_task(tmp_path: Path) -> None:
    """A memory bank's "Current Focus" logs what was just done ("Modified the ProxyManager …");
    that line is done work, not a task still in progress against the progress file."""
    root = write(tmp_path, {
        "activeContext.md": (
            "# Active Context\n\n## Current Focus\n"
            "- [2025-05-18 16:00:00] - Modified `ProxyManager` to use a sticky proxy and updated `Fetcher`\n"
            "- Add retry with backoff to the invoice sync job\n"
        ),
        "progress.md": (
            "# Progress\n\n## Completed\n"
            "- [2025-05-18 16:00:00] - Refactored `ProxyManager` to a sticky proxy; updated `Fetcher`\n"
            "- [x] Add retry with backoff to the invoice sync job\n"
        ),
    })
    found = findings(root, "status_conflict")
    assert [(name, line) for name, line, _ in found] == [("activeContext.md", 5)]


def test_table_rows_sharing_a_status_are_not_a_copied_block(tmp_path: Path) -> None:
    table = "| Milestone | Status | Date |\n|---|---|---|\n"
    rows = "".join(f"| M{k} | ⚪ Not Started | - |\n" for k in range(1, 7))
    copied = "- ledger export runs nightly\n- exports land in s3 bucket ledger\n- alerts go to the billing channel\n"
    root = write(tmp_path, {
        "progress.md": f"# Progress\n\n{table}{rows}\n## Setup\n{copied}",
        "activeContext.md": f"# Active Context\n\n## Setup\n{copied}",
    })
    report = lint([str(root)])
    blocks = [(Path(f.path).name, f.line) for f in report.findings if f.rule == "duplicate"]
    assert blocks == [("progress.md", 13)]


QUIET = [
    pytest.param(
        "# Notes\n\n"
        "- Do NOT use `legacy_sync()` for new jobs (observed 2025-03-01)\n"
        "- `legacy_sync()` is not called anywhere now (observed 2025-03-02)\n"
        "- the old importer used to read from `legacy_sync` (observed 2025-03-02)\n"
        "- live rows carry `legacy_sync` and `arena_points` (observed 2025-03-02)\n"
        "- Use `fresh_sync()` with the queue (observed 2025-03-02)\n"
        "- Jobs now run from `legacy_sync` again after the rollback (observed 2025-04-10)\n"
        "- avoid margins; layouts read from margins (observed 2025-03-02)\n",
        id='rejected name negated, retired, merely carried or back later',
    ),
    pytest.param(
        "# Notes\n\n"
        "- Deploys through `deploy.sh` (to be confirmed)\n"
        "- `deploy.sh` may also tag the release (needs confirmation)\n"
        "- Use `deploy.sh` for staging\n"
        "- The launch date (TBD) depends on the audit\n",
        id='open question answered only by other open lines',
    ),
    pytest.param(
        "# Notes\n\n"
        "- Don't use `node.js` 16 for the build\n"
        "- Never call `sync_all()` in production\n"
        "- Do not use `legacy_cli` when the queue is down\n"
        "- Runtime: `node.js` 20 on the runners\n"
        "- Local runs: from `sync_all()` after a reset\n"
        "- Ops: `legacy_cli` with the new flags\n",
        id='prohibition of one version or under a condition',
    ),
    pytest.param(
        "# Notes\n\n"
        "- Fixtures: `conftest.py` (tbcheck passes)\n"
        "- Moved the fixtures into `conftest.py`\n",
        id='open mark inside a longer word',
    ),
]


@pytest.mark.parametrize("notes", QUIET)
def test_lines_that_only_look_rejected_or_answered_stay_quiet(tmp_path: Path, notes: str) -> None:
    """Negated, retired or merely carried names, a name back after its rejection, a prohibition
    of one version or under a condition, open lines answered only by open lines, a mark inside
    a longer word: no `stale`."""
    assert findings(write(tmp_path, {"notes.md": notes}), "stale") == []
