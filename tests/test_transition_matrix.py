"""Issue 44, item 5: the transition matrix. Every retraction pair of tests/transition_matrix.py
(verb families x voice x object shapes x dated bullets, dated headings, JSONL, and a memory
bank's tech context against its decision log) flags the
older state; every look-alike (another thing retracted, a plan, a question, a negation, another
subject) stays silent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from memory_autopsy.pipeline import lint
from transition_matrix import Case, cases, ideograph_cases

FLAGGING = frozenset({"contradicted_explicit", "contradicted_implicit", "stale"})
QUIET = frozenset({"unsourced"})  # about provenance, not the pair


def scanned(case: Case, folder: Path) -> tuple[bool, list[str]]:
    """Whether the older state is flagged, and every finding but the quiet ones."""
    paths = [folder / case.file, *(folder / name for name, _ in case.others)]
    for path, text in zip(paths, [case.text, *(text for _, text in case.others)]):
        path.write_text(text, encoding="utf-8")
    try:
        report = lint([str(folder)])
    finally:
        for path in paths:
            path.unlink()
    hit = any(f.rule in FLAGGING and f.line == case.old_line and f.path.endswith(case.file) for f in report.findings)
    return hit, [f"{f.rule}:{f.line}" for f in report.findings if f.rule not in QUIET]


def test_the_matrix_is_large_and_balanced() -> None:
    found = list(cases())
    assert sum(c.expect for c in found) >= 500
    assert {c.shape for c in found} == {"bullets", "headings", "jsonl", "bank"}
    assert sum(not c.expect for c in found) >= 90


def test_retractions_are_flagged_and_look_alikes_stay_silent(tmp_path: Path) -> None:
    missed: list[str] = []
    alarms: list[str] = []
    flagged = total = 0
    for case in cases():
        hit, found = scanned(case, tmp_path)
        if case.expect:
            total += 1
            flagged += hit
            if not hit:
                missed.append(case.name)
        elif found:
            alarms.append(f"{case.name}: {found}")
    assert not alarms, alarms[:20]
    assert flagged / total >= 0.95, (flagged, total, missed[:30])


ROW = ("| Date | Decision | Rationale |\n|---|---|---|\n| 2026-08-01 | Drag handlers no longer mark windows "
       "\"active\" unless the user drags | Self-moving apps send moves constantly. The handlers refreshed the "
       "active window on every message, so the app window became permanently active and frozen. |")


@pytest.mark.parametrize("item", [
    ROW,  # a table row's cells
    "- The queue no longer uses Redis. Redis kept losing jobs under load, so pg-boss runs it now.",
])
def test_an_item_retracts_nothing_it_holds_itself(tmp_path: Path, item: str) -> None:
    (tmp_path / "decisionLog.md").write_text(f"# Decision log\n\n{item}\n", encoding="utf-8")
    code, out, _ = run_cli("scan", str(tmp_path), "--json", "--fail-on", "error")
    assert code in (0, 1), out
    assert [f for f in json.loads(out)["findings"] if f["rule"] == "contradicted_explicit"] == []


def test_chinese_and_japanese_retractions_are_flagged_on_their_own(tmp_path: Path) -> None:
    """The lexicon's phrasings written without spaces ("从 X 迁移到 Y", "X から Y に移行した") hold
    the matrix's bar by themselves, not only inside the English majority; their look-alikes (a
    plan, a question, another name retracted, a change of where something comes from) stay silent."""
    flagged = total = 0
    alarms = []
    for case in ideograph_cases():
        hit, found = scanned(case, tmp_path)
        if case.expect:
            total += 1
            flagged += hit
        elif found:
            alarms.append(f"{case.name}: {found}")
    assert not alarms, alarms[:20]
    assert total >= 120 and flagged / total >= 0.95, (flagged, total)
