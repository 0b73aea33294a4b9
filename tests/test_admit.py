"""The write gate: accepted, requires_review, rejected, already_present, hedges as warnings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli, write
from memory_autopsy.api import admit
from memory_autopsy.model import RECORD_FIELDS
from memory_autopsy.verdicts.gate import AdmitVerdict

SEED_FACT = {"entity": "billing-store", "slot": "tool", "value": "MariaDB", "date": "2026-07-01", "source": "ops"}


def test_seed_example_requires_review() -> None:
    verdict = admit(SEED_FACT, str(ROOT / "examples/store.jsonl"))
    assert verdict.status == "requires_review"
    assert list(verdict.conflict_ids) == ["8a0ccbab525e5078"]
    edit = verdict.supersede
    assert edit is not None
    assert (edit.action, edit.target_id, edit.target_is_candidate, edit.target_shape, edit.valid_to) == (
        "supersede", "8a0ccbab525e5078", False, "jsonl", "2026-07-01")
    assert edit.new_line is not None and edit.new_line.startswith(
        'billing-store: tool = "MySQL 8" ; valid_to=2026-07-01 -- 2026-06-02 (source: infra-doc')
    assert edit.reason.startswith("[contradicted_implicit]")
    assert set(edit.as_dict()) == {"action", "target_id", "target_is_candidate", "target_shape", "valid_to",
                                   "new_line", "reason"}


def test_verdict_is_frozen() -> None:
    verdict = admit(SEED_FACT, str(ROOT / "examples/store.jsonl"))
    assert isinstance(verdict, AdmitVerdict)
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.status = "accepted"  # type: ignore[misc]


def test_accepted_with_canonical_record(tmp_path: Path) -> None:
    store = write(tmp_path / "s.jsonl", json.dumps(
        {"entity": "billing", "slot": "tool", "value": "MySQL 8", "observed_at": "2026-06-02"}) + "\n")
    verdict = admit({"subject": "billing", "predicate": "owner", "object": "payments", "date": "2026-07-01"},
                    str(store))
    assert (verdict.status, verdict.conflict_ids, verdict.supersede, verdict.already_present) == (
        "accepted", (), None, False)
    assert verdict.record is not None and tuple(verdict.record) == RECORD_FIELDS
    assert (verdict.record["entity"], verdict.record["slot"], verdict.record["fidelity"]) == ("billing", "owner", "FULL")


def test_readmitting_an_identical_fact_is_already_present(tmp_path: Path) -> None:
    store = write(tmp_path / "s.jsonl", "")
    fact = {"entity": "billing", "slot": "tool", "value": "MySQL 8", "date": "2026-06-02", "source": "ops"}
    first = admit(fact, [str(store)])
    assert first.status == "accepted" and not first.already_present and first.record is not None
    store.write_text(json.dumps(dict(first.record)) + "\n", encoding="utf-8")
    again = admit(fact, [str(store)])
    assert (again.status, again.already_present) == ("accepted", True)
    assert again.record == first.record


def test_hedge_only_is_accepted_with_a_warning(tmp_path: Path) -> None:
    store = write(tmp_path / "m.md", "- billing: uses PostgreSQL for invoices\n")
    verdict = admit({"entity": "billing", "claim": "uses MySQL for invoices"}, str(store))
    assert verdict.status == "accepted" and verdict.conflict_ids == ()
    assert any(w.startswith("[likely_conflict]") for w in verdict.warnings)


def test_history_cannot_block_a_write(tmp_path: Path) -> None:
    store = write(tmp_path / "m.md", 'billing: tool = "PostgreSQL 14" ; valid_to=2026-06-02 -- 2026-01-05\n')
    verdict = admit({"entity": "billing", "slot": "tool", "value": "MySQL 8", "date": "2026-06-02"}, str(store))
    assert verdict.status == "accepted"


def test_history_cannot_mask_a_conflict(tmp_path: Path) -> None:
    store = write(tmp_path / "m.md",
                  'billing: tool = "PostgreSQL 14" ; valid_to=2026-06-02 -- 2026-01-05\n'
                  'billing: tool = "MySQL 8" -- 2026-06-02\n')
    verdict = admit({"entity": "billing", "slot": "tool", "value": "PostgreSQL 14", "date": "2026-09-01"}, str(store))
    assert verdict.status == "requires_review" and not verdict.already_present
    assert verdict.supersede is not None and verdict.supersede.valid_to == "2026-09-01"


def test_an_older_fact_would_itself_be_history(tmp_path: Path) -> None:
    store = write(tmp_path / "m.md", 'billing: tool = "MySQL 8" -- 2026-06-02 (source: doc)\n')
    verdict = admit({"entity": "billing", "slot": "tool", "value": "PostgreSQL 14", "date": "2026-01-05"}, str(store))
    assert verdict.status == "requires_review"
    edit = verdict.supersede
    assert edit is not None and (edit.target_is_candidate, edit.target_shape, edit.valid_to) == (
        True, "candidate", "2026-06-02")


def test_aliases_fold_into_the_stored_entity(tmp_path: Path) -> None:
    store = write(tmp_path / "m.md", 'Acme Corp (aka "acme"): tool = "Jira" -- 2026-01-01\n')
    verdict = admit({"entity": "ACME Inc", "slot": "tool", "value": "Linear", "date": "2026-03-01"}, str(store))
    assert verdict.status == "requires_review"


@pytest.mark.parametrize(("fact", "store_text"), [
    ("billing uses MySQL", None),
    ({"slot": "tool", "value": "MySQL"}, None),
    ({"entity": "billing"}, None),
    ({"entity": "billing", "slot": "tool", "value": "MySQL", "date": "yesterday-ish"}, None),
    ({"entity": "billing", "slot": "tool", "value": "MySQL", "valid_from": "2026-05-01", "valid_to": "2026-01-01"},
     None),
    ({"entity": "billing", "slot": "tool", "value": "MySQL"}, '{"entity": "x", "slot": "a", "value": "b"}\n{broken\n'),
    ({"entity": "billing", "slot": "tool", "value": "MySQL"}, "MISSING"),
])
def test_rejected(tmp_path: Path, fact: Any, store_text: str | None) -> None:
    path = tmp_path / "s.jsonl"
    if store_text != "MISSING":
        write(path, store_text or '{"entity": "x", "slot": "a", "value": "b"}\n')
    verdict = admit(fact, str(path))
    assert verdict.status == "rejected" and verdict.conflict_ids == () and verdict.supersede is None


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    review = run_cli("admit", "--fact", json.dumps(SEED_FACT), "examples/store.jsonl", cwd=ROOT)
    assert review.code == 1
    assert review.out.splitlines()[:2] == [
        "status: requires_review | reason: conflicts with 1 stored fact(s)", "conflict_ids: ['8a0ccbab525e5078']"]
    payload = json.loads(run_cli("admit", "--fact", json.dumps(SEED_FACT), "examples/store.jsonl", "--json",
                                 cwd=ROOT).out)
    assert payload["status"] == "requires_review" and payload["supersede"]["target_id"] == "8a0ccbab525e5078"
    write(tmp_path / "fact.json", json.dumps({**SEED_FACT, "slot": "owner", "value": "payments"}))
    accepted = run_cli("admit", "--fact", "@fact.json", str(ROOT / "examples/store.jsonl"), cwd=tmp_path)
    assert accepted.code == 0 and accepted.out.startswith("status: accepted")
    assert run_cli("admit", "--fact", "{}", str(ROOT / "examples/store.jsonl"), cwd=tmp_path).code == 4  # rejected
    assert run_cli("admit", "--fact", "{not json", "examples/store.jsonl", cwd=ROOT).code == 2
    assert run_cli("admit", "examples/store.jsonl", cwd=ROOT).code == 2


def test_gate_agrees_with_scan_after_the_write(tmp_path: Path) -> None:
    """What the gate reports is what `scan` reports once the fact is persisted."""
    store = write(tmp_path / "s.jsonl", (ROOT / "examples/store.jsonl").read_text(encoding="utf-8"))
    verdict = admit(SEED_FACT, str(store))
    assert verdict.record is not None
    with store.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(dict(verdict.record)) + "\n")
    scan = json.loads(run_cli("scan", "s.jsonl", "--json", "--isolated", cwd=tmp_path).out)
    new_line = len(store.read_text(encoding="utf-8").splitlines())
    pairs = {(f["rule"], f["fact_ids"][0]) for f in scan["findings"]
             if any(r["line"] == new_line for r in f["related"])}
    assert pairs == {("contradicted_implicit", verdict.conflict_ids[0])}
