"""One quantity, two subjects: statements of a count or a share that each name a subject of their
own before the number, neither holding the other ("The project is 90% complete" / "The auth
module is 100% complete"), are two quantities, never a drift. The same subject, or none, stated
with two numbers is still `numeric_drift`, whatever date or session opens the statement. Generated:
subject pairs × quantities × (undated, dated), one memory bank per case, in one scan."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

APART = [("The project", "The auth module"), ("The billing service", "The search service"), ("The API", "The admin service"),
         ("The web app", "The mobile app")]
ONE = [("The project", "The project"), ("Currently", "Currently"), ("The auth module", "The auth module"),
       ("On 2026-01-10 the project", "On 2026-03-02 the project"), ("As of session 4 it", "As of session 9 it")]
QUANTITIES = [("is {n}% complete", 90, 60), ("has {n} tests passing", 120, 145), ("has {n} open issues", 12, 5)]
DATED = {False: ("", ""), True: ("## 2026-01-10\n\n", "Updated: 2026-03-02\n\n")}


def cases() -> list[tuple[str, str, bool, bool]]:
    """(older statement, newer statement, dated, whether they are one quantity)."""
    return [(f"{a} {q.format(n=old)}", f"{b} {q.format(n=new)}", dated, one)
            for one, subjects in ((False, APART), (True, ONE))
            for a, b in subjects for q, old, new in QUANTITIES for dated in DATED]


def _drifted(tmp_path: Path, banks: list[dict[str, str]]) -> set[int]:
    """The cases (one memory bank each, its files and texts) where one scan finds a drift."""
    for n, files in enumerate(banks):
        bank = tmp_path / f"case_{n}" / "memory-bank"
        bank.mkdir(parents=True)
        for name, text in files.items():
            (bank / name).write_text(text, encoding="utf-8")
    code, out, err = run_cli("scan", ".", "--json", "--fail-on", "never", "--no-grounding", cwd=tmp_path)
    assert code == 0, err
    return {int(f["path"].split("/")[0].removeprefix("case_")) for f in json.loads(out)["findings"]
            if f["rule"] == "numeric_drift"}


def test_two_subjects_are_two_quantities_and_one_subject_still_drifts(tmp_path: Path) -> None:
    drifted = _drifted(tmp_path, [{"progress.md": f"# Progress\n\n{DATED[dated][0]}- {older}\n",
                                   "activeContext.md": f"# Active Context\n\n{DATED[dated][1]}- {newer}\n"}
                                  for older, newer, dated, _ in cases()])
    wrong = [f"{older!r} / {newer!r} ({'dated' if dated else 'undated'}): {'missed' if one else 'flagged'}"
             for n, (older, newer, dated, one) in enumerate(cases()) if (n in drifted) != one]
    assert wrong == [], "\n".join(wrong)


def test_the_cases_cover_both_sides() -> None:
    found = cases()
    assert sum(not c[3] for c in found) >= 24 and sum(c[3] for c in found) >= 18


# Labels: one label holding the other's words names one subject ("Overall: 100% complete" /
# "**Overall Progress**: 95% complete"); two labels of their own are two subjects.
LABEL_ONE = [("Overall", "**Overall Progress**"), ("Backend", "Backend status"), ("Auth module", "The auth module")]
LABEL_APART = [("Frontend", "Backend"), ("Web app", "Mobile app"), ("Overall", "Auth module")]
LABEL_VALUES = [("{n}% complete", 100, 95), ("{n} tests passing", 145, 120)]
LABEL_SHAPES = {
    "two headings of a file": lambda a, b: {"progress.md": f"# Progress\n\n## Overview\n{a}\n\n## Summary\n{b}\n"},
    "two files of a memory bank": lambda a, b: {"progress.md": f"# Progress\n\n- {a}\n",
                                                "activeContext.md": f"# Active Context\n\n- {b}\n"},
}


def label_cases() -> list[tuple[str, str, str, bool]]:
    """(shape, first statement, second statement, whether they are one quantity)."""
    return [(shape, f"{a}: {v.format(n=first)}", f"{b}: {v.format(n=second)}", one)
            for one, labels in ((True, LABEL_ONE), (False, LABEL_APART))
            for a, b in labels for v, first, second in LABEL_VALUES for shape in LABEL_SHAPES]


def test_one_label_holding_the_other_is_one_subject_and_two_labels_are_two(tmp_path: Path) -> None:
    drifted = _drifted(tmp_path, [LABEL_SHAPES[shape](first, second) for shape, first, second, _ in label_cases()])
    wrong = [f"{first!r} / {second!r} ({shape}): {'missed' if one else 'flagged'}"
             for n, (shape, first, second, one) in enumerate(label_cases()) if (n in drifted) != one]
    assert wrong == [], "\n".join(wrong)
