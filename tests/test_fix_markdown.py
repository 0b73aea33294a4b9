"""`report --apply` on markdown items: whole wrapped items, checkbox copies, struck prose, and
files that changed after they were linted. Every write is undone byte for byte."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import Result, run_cli
from memory_autopsy.api import lint
from memory_autopsy.fixes.apply import apply_plan
from memory_autopsy.fixes.plan import plan
from memory_autopsy.fixes.snapshot import snapshots
from memory_autopsy.model import Fact, Finding, Location, Report, Severity

NAME = "memory.md"
SUPERSEDING = {"contradicted_explicit", "contradicted_implicit", "stale"}
TASK = "migrate the billing store to MySQL 8"


def encoded(text: str, *, crlf: bool = False, bom: bool = False, final_newline: bool = True) -> bytes:
    if not final_newline:
        text = text.rstrip("\n")
    if crlf:
        text = text.replace("\n", "\r\n")
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


LAYOUTS = {
    "lf": {},
    "crlf-bom-no-final-newline": {"crlf": True, "bom": True, "final_newline": False},
}


def findings(folder: Path) -> set[tuple[str, int]]:
    scan = json.loads(run_cli("scan", NAME, "--json", "--isolated", cwd=folder).out)
    return {(f["rule"], f["line"]) for f in scan["findings"]}


def apply(folder: Path) -> Result:
    return run_cli("report", NAME, "--apply", "--yes-i-know", "--isolated", cwd=folder)


def applied_then_undone(folder: Path, original: bytes) -> bytes:
    """Apply the plan through the CLI, return the bytes written, and check `undo` restores all."""
    (folder / NAME).write_bytes(original)
    result = apply(folder)
    assert (result.code, result.err) == (0, "")
    written = (folder / NAME).read_bytes()
    assert run_cli("undo", NAME, cwd=folder).code == 0
    assert (folder / NAME).read_bytes() == original
    return written


WRAPPED_COPY = (
    "# Notes\n\n"
    "- cache-tier: uses redis 7 for the session cache,\n"
    "  with a ten minute expiry on every key\n"
    "- other: something else entirely\n"
    "- cache-tier: uses redis 7 for the session cache,\n"
    "  with a ten minute expiry on every key\n"
    "- last: the final bullet\n"
)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_wrapped_duplicate_is_deleted_whole(tmp_path: Path, layout: str) -> None:
    (tmp_path / NAME).write_bytes(encoded(WRAPPED_COPY, **LAYOUTS[layout]))
    assert ("duplicate", 6) in findings(tmp_path)
    expected = WRAPPED_COPY.replace("- other: something else entirely\n- cache-tier: uses redis 7 for the session "
                                    "cache,\n  with a ten minute expiry on every key\n",
                                    "- other: something else entirely\n")
    written = applied_then_undone(tmp_path, encoded(WRAPPED_COPY, **LAYOUTS[layout]))
    assert written == encoded(expected, **LAYOUTS[layout])


@pytest.mark.parametrize("first, second", [("[ ]", "[x]"), ("[x]", "[ ]")], ids=["pending-first", "done-first"])
def test_a_checkbox_pair_keeps_the_done_copy(tmp_path: Path, first: str, second: str) -> None:
    text = f"# Tasks\n\n- {first} {TASK}\n- {second} {TASK}\n- [ ] write the release notes\n"
    (tmp_path / NAME).write_text(text, encoding="utf-8")
    assert {line for _, line in findings(tmp_path)} >= {4}
    written = applied_then_undone(tmp_path, text.encode())
    assert written.decode() == f"# Tasks\n\n- [x] {TASK}\n- [ ] write the release notes\n"


def hand_built(rule: str, flagged: Fact, evidence: Fact) -> Finding:
    """A finding as the engine reports it: the flagged side, then the evidence in `related`."""
    return Finding(rule, Severity.WARNING, "2b", flagged.path, flagged.line, flagged.entity,
                   flagged.fidelity.value, "hand-built", 1.0, (flagged.id,),
                   (Location(evidence.path, evidence.line, evidence.id),), "0" * 16)


@pytest.mark.parametrize("rule", ["duplicate", "status_conflict"])
@pytest.mark.parametrize("flag", ["done", "pending"])
def test_the_done_copy_is_kept_whichever_side_is_flagged(tmp_path: Path, rule: str, flag: str) -> None:
    # Built by hand so that every (rule, flagged side) pair is covered, whatever the engine
    # of the day reports for a checkbox pair.
    original = f"# Tasks\n\n- [ ] {TASK}\n- [x] {TASK}\n".encode()
    (tmp_path / NAME).write_bytes(original)
    report = lint([str(tmp_path / NAME)])
    pending, done = sorted(report.facts, key=lambda f: f.line)
    flagged, evidence = (done, pending) if flag == "done" else (pending, done)
    report = replace(report, findings=(hand_built(rule, flagged, evidence),))
    assert [(fix.action, fix.fact.line) for fix in plan(report)] == [("delete", 3)]
    assert apply_plan(report, io.StringIO(), io.StringIO()) == 0
    assert (tmp_path / NAME).read_bytes() == f"# Tasks\n\n- [x] {TASK}\n".encode()
    assert run_cli("undo", NAME, cwd=tmp_path).code == 0 and (tmp_path / NAME).read_bytes() == original


def test_a_status_conflict_between_two_pending_copies_is_left_to_a_person(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text(f"- [ ] {TASK}\n- [ ] {TASK}\n", encoding="utf-8")
    report = lint([str(tmp_path / NAME)])
    first, second = sorted(report.facts, key=lambda f: f.line)
    blocked = second._replace(status="blocked")
    report = replace(report, facts=(first, blocked), findings=(hand_built("status_conflict", first, blocked),))
    assert plan(report) == []
    report = replace(report, findings=(hand_built("duplicate", blocked, first),))
    assert plan(report) == []


PROSE = ("## 2026-01-05\n- billing-store: uses PostgreSQL 14 for the billing store\n\n"
         "## 2026-06-02\n- billing-store: uses MySQL 8 for the billing store\n")
STRUCK = "- ~~billing-store: uses PostgreSQL 14 for the billing store~~ (superseded 2026-06-02, see memory.md:5)"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_superseded_prose_bullet_is_struck_through(tmp_path: Path, layout: str) -> None:
    (tmp_path / NAME).write_bytes(encoded(PROSE, **LAYOUTS[layout]))
    assert any(line == 2 and rule in SUPERSEDING for rule, line in findings(tmp_path))
    expected = PROSE.replace("- billing-store: uses PostgreSQL 14 for the billing store", STRUCK)
    written = applied_then_undone(tmp_path, encoded(PROSE, **LAYOUTS[layout]))
    assert written == encoded(expected, **LAYOUTS[layout])


def test_a_wrapped_prose_bullet_is_struck_in_one_edit(tmp_path: Path) -> None:
    original = ("## 2026-01-05\n  * billing-store: uses PostgreSQL 14\n    for the billing store <!-- infra -->\n\n"
                "## 2026-06-02\n- billing-store: uses MySQL 8 for the billing store\n")
    (tmp_path / NAME).write_text(original, encoding="utf-8")
    assert any(line == 2 and rule in SUPERSEDING for rule, line in findings(tmp_path))
    written = applied_then_undone(tmp_path, original.encode())
    # The continuation line is folded into the struck line, so the newer claim is now line 5.
    assert written.decode() == (
        "## 2026-01-05\n  * ~~billing-store: uses PostgreSQL 14 for the billing store~~ (superseded 2026-06-02, "
        "see memory.md:5) <!-- infra -->\n\n## 2026-06-02\n- billing-store: uses MySQL 8 for the billing store\n")


def test_a_full_record_is_still_stamped_with_valid_to(tmp_path: Path) -> None:
    original = '- billing-store: tool = "PostgreSQL 14" -- 2026-01-05\n- billing-store: tool = "MySQL 8" -- 2026-06-02\n'
    written = applied_then_undone(tmp_path, original.encode())
    assert written.decode().splitlines()[0] == \
        '- billing-store: tool = "PostgreSQL 14" ; valid_to=2026-06-02 -- 2026-01-05'


def test_applying_twice_does_not_strike_twice(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text(PROSE, encoding="utf-8")
    assert apply(tmp_path).code == 0
    once = (tmp_path / NAME).read_bytes()
    assert apply(tmp_path).code == 0
    assert (tmp_path / NAME).read_bytes() == once


def test_two_copies_on_one_line_are_never_deleted(tmp_path: Path) -> None:
    original = b"# Notes\n\nThe cache uses redis 7. The cache uses redis 7.\n"
    (tmp_path / NAME).write_bytes(original)
    result = apply(tmp_path)
    assert result.code == 0 and (tmp_path / NAME).read_bytes() == original
    assert snapshots(str(tmp_path / NAME)) == []


# (the file as linted, the same file edited before the fix is applied)
CHANGES = {
    "checkbox-ticked": (f"# Tasks\n\n- [x] {TASK}\n- [ ] {TASK}\n", f"# Tasks\n\n- [ ] {TASK}\n- [x] {TASK}\n"),
    "item-rewrapped": (WRAPPED_COPY, WRAPPED_COPY.replace("expiry on every key\n- last",
                                                          "expiry on every key\n  and on every user\n- last")),
    "line-inserted": (PROSE, "# Memory\n" + PROSE),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_file_changed_after_the_scan_is_not_written(tmp_path: Path, change: str) -> None:
    # Lint, edit, then apply the plan of the lint: the CLI lints and applies in one call, so the
    # window between the two is reached through the same public functions it calls.
    before, after = CHANGES[change]
    target = tmp_path / NAME
    target.write_text(before, encoding="utf-8")
    report: Report = lint([str(target)])
    assert plan(report)
    target.write_text(after, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert apply_plan(report, out, err) == 1
    assert target.read_text(encoding="utf-8") == after and snapshots(str(target)) == []
    assert [line for line in out.getvalue().splitlines() if line.startswith(f"skipped {target}")] != []
    assert not out.getvalue().startswith("applied")


def test_a_memory_graph_line_is_never_edited_for_one_observation(tmp_path: Path) -> None:
    # One JSONL line is a whole node: valid_to on it would end the newer observation too, and
    # deleting it for one copied observation would lose the other.
    original = (
        b'{"type":"entity","name":"Acme","observations":[{"text":"uses PostgreSQL","date":"2026-01-01"},'
        b'{"text":"uses MySQL","date":"2026-03-01"}]}\n'
        b'{"type":"entity","name":"Beta","observations":["runs nightly backups"]}\n'
        b'{"type":"entity","name":"Beta","observations":["runs nightly backups","owned by the data team"]}\n'
    )
    (tmp_path / "graph.jsonl").write_bytes(original)
    result = run_cli("report", "graph.jsonl", "--apply", "--yes-i-know", "--isolated", cwd=tmp_path)
    assert result.code == 0
    assert (tmp_path / "graph.jsonl").read_bytes() == original and snapshots(str(tmp_path / "graph.jsonl")) == []
