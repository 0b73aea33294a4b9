"""A heading's opening words give its items a status: "Next Up", "Next Actions", "Remaining
Issues 🔧", "次のアクション" list pending work as "Next Steps" does, so an item there that is done
elsewhere in the store is a status conflict. Words of scripts written without spaces name a task
by their own characters, not by the Latin words around them."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write
from memory_autopsy.ingest.reading import section_kind
from memory_autopsy.lexicon import default_lexicon

PENDING_HEADINGS = ["Next Up", "Next Actions", "Next Priorities", "Remaining Issues 🔧", "Upcoming Work",
                    "Planned Features", "Up Next", "TODO (this week)"]
TASKS = [("Trade CRUD pages", "- ✅ Trade CRUD pages"), ("Export to CSV", "- [x] Export to CSV"),
         ("Unity Sceneセットアップ", "- [x] Unity Scene セットアップ完了")]


def conflicts(root: Path) -> list[dict[str, object]]:
    return findings_of(root, "status_conflict")


@pytest.mark.parametrize(("heading", "task"), list(product(PENDING_HEADINGS, TASKS)))
def test_an_item_under_a_pending_lead_done_elsewhere_conflicts(tmp_path: Path, heading: str,
                                                                task: tuple[str, str]) -> None:
    pending, done = task
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## {heading}\n- {pending}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n{done}\n")
    found = conflicts(tmp_path)
    assert [Path(str(f["path"])).name for f in found] == ["activeContext.md"], found


@pytest.mark.parametrize("heading", ["Next.js Setup", "Project Status", "Definition of Done", "Notes on next steps taken"])
def test_headings_that_only_hold_a_status_word_stay_neutral(tmp_path: Path, heading: str) -> None:
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## {heading}\n- Export to CSV\n")
    write(tmp_path / "memory-bank" / "progress.md", "# Progress\n\n## Status\n- [x] Export to CSV\n")
    assert conflicts(tmp_path) == []


def test_leads_read_as_their_status() -> None:
    lexicon = default_lexicon()
    kinds = {h: section_kind(h, lexicon) for h in (
        "Next Up", "✅ Completed Phases", "Recently Completed (March 22, 2026)", "次のアクション", "下一步工作",
        "In Progress Tasks", "Next.js Setup", "Definition of Done")}
    assert kinds == {
        "Next Up": "pending", "✅ Completed Phases": "done", "Recently Completed (March 22, 2026)": "done",
        "次のアクション": "pending", "下一步工作": "pending", "In Progress Tasks": "in_progress",
        "Next.js Setup": None, "Definition of Done": None,
    }


@pytest.mark.parametrize(("pending", "done"), [
    # Latin words alike, the tasks written in Japanese differ: construction is not verification
    ("CI/CD パイプライン検証: deploy.yml の確認", "- [x] CI/CD パイプライン構築: deploy.yml を作成"),
    # a katakana loanword is one word: streaming is not event streaming
    ("gRPCストリーミング", "- ✅ Kafka (イベントストリーミング)"),
    # the step between two units is neither unit
    ("Phase 3 → Phase 4 workflow", "- ✅ Phase 3 is complete"),
])
def test_tasks_that_only_share_some_letters_stay_apart(tmp_path: Path, pending: str, done: str) -> None:
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Next Steps\n- {pending}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n{done}\n")
    assert conflicts(tmp_path) == []


@pytest.mark.parametrize(("claim", "status"), [
    ("阶段 2 (自动记忆): 正在开发 NLU + 定价引擎", "in_progress"),
    ("機能A: 未実装のまま", "pending"),
    ("状態: 完了", "done"),
    ("Phase 2: 完成度 80%", ""),  # the degree of completion: the ideographs go on
    ("ASR：默认使用阿里云 paraformer", ""),
])
def test_a_label_whose_value_opens_with_a_status_word_in_ideographs(claim: str, status: str) -> None:
    from memory_autopsy.ingest.reading import status_of

    assert status_of(claim, default_lexicon()) == status


@pytest.mark.parametrize(("pending", "done"), [
    ("2. README_ja.md の作成", "### 3. README_ja.md 更新 ✅"),  # the list number is no task word
    ("1) Export to CSV", "- [x] Export to CSV"),
    ("阶段 2 (自动记忆): 正在开发 NLU + 定价引擎", "## 阶段 2 (自动记忆) - ✅ 已完成"),
])
def test_a_numbered_or_labelled_task_is_matched_by_its_words(tmp_path: Path, pending: str, done: str) -> None:
    write(tmp_path / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Next Steps\n- {pending}\n")
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n{done}\n\nRecorded.\n")
    assert [Path(str(f["path"])).name for f in conflicts(tmp_path)] == ["activeContext.md"]
