"""`unsourced` says each undated section once: in a dated log, a run of undated facts that no
dated fact interrupts is one finding when it holds more than three facts, each fact its own
finding when it holds three or fewer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli, write


def dated(n: int) -> str:
    return "".join(f"## 2026-0{1 + i % 9}-1{i % 9}\n- Deployed release {i} to production\n\n" for i in range(n))


def unsourced(tmp_path: Path, text: str) -> list[dict[str, object]]:
    write(tmp_path / "memory-bank" / "progress.md", text)
    result = run_cli("scan", "memory-bank", "--json", cwd=tmp_path)
    assert result.code == 0, result.err
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == "unsourced"]


@pytest.mark.parametrize("shape", ["bullets", "numbered", "checkboxes"])
def test_an_undated_section_of_a_dated_log_is_one_finding(tmp_path: Path, shape: str) -> None:
    mark = {"bullets": "- ", "numbered": "1. ", "checkboxes": "- [ ] "}[shape]
    section = "## Ideas\n" + "".join(f"{mark}Idea number {i} for the exporter\n" for i in range(12))
    found = unsourced(tmp_path, "# Progress\n\n" + dated(12) + section + "\n" + dated(3))
    (only,) = found
    first = 2 + 3 * 12 + 2
    assert only["line"] == first and f"12 facts from line {first} to {first + 11}" in str(only["message"])


def test_a_short_undated_run_names_each_fact(tmp_path: Path) -> None:
    section = "## Ideas\n- Idea one for the exporter\n- Idea two for the exporter\n"
    found = unsourced(tmp_path, "# Progress\n\n" + dated(12) + section)
    assert [f["line"] for f in found] == [2 + 3 * 12 + 2, 2 + 3 * 12 + 3]


def test_two_undated_sections_apart_are_two_findings(tmp_path: Path) -> None:
    ideas = "## Ideas\n" + "".join(f"- Idea number {i} for the exporter\n" for i in range(5)) + "\n"
    found = unsourced(tmp_path, "# Progress\n\n" + dated(6) + ideas + dated(6) + ideas.replace("Idea number", "Risk number"))
    assert len(found) == 2 and all("5 facts from line" in str(f["message"]) for f in found)


def test_undated_places_scattered_through_a_dated_log_are_one_finding(tmp_path: Path) -> None:
    # undated notes between dated items (a detail nested under a dated item takes its date)
    items = "".join(f"- [x] Release {i} of the exporter ✅ [2026-01-1{i}]\n- rollout note {i} for the exporter\n"
                    for i in range(8))
    found = unsourced(tmp_path, "# Progress\n\n## Phase 1\n" + items)
    (only,) = found
    assert "8 of 16 facts, in 8 places (lines 5, 7, 9, 11, 13, …)" in str(only["message"]), only
    assert only["line"] == 5
