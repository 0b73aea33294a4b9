"""Every rule positive and negative, as data: small memory files and the (rule, path, line) found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_autopsy.api import lint
from memory_autopsy.rules import RULES
from memory_autopsy.settings import Settings

CASES = json.loads((Path(__file__).parent / "cases" / "rules.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_case(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, text in case["files"].items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = lint(sorted(case["files"]), Settings())
    found = sorted((f.rule, f.path, f.line) for f in report.findings)
    assert found == sorted(tuple(e) for e in case["expect"])


def test_every_heuristic_rule_has_a_positive_case() -> None:
    positive = {e[0] for case in CASES for e in case["expect"]}
    # the grounding layer's rules need a repository: tests/test_grounding.py builds one
    heuristic = {r.id for r in RULES} - {"degraded", "aged", "missing_path", "missing_command"}
    assert heuristic <= positive


def test_aged_is_off_by_default_and_on_with_max_age(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import date

    (tmp_path / "m.md").write_text(
        "- deploy window is Friday (2024-01-01) (source: ops)\n"
        "- deploy freeze is in December (2026-11-01) (source: ops)\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert not lint(["m.md"], Settings(), today=date(2026, 11, 30)).findings
    report = lint(["m.md"], Settings(max_age_days=90), today=date(2026, 11, 30))
    assert [(f.rule, f.line) for f in report.findings] == [("aged", 1)]
