"""A JSON or JSONL record of a shape no store names (no `claim`, `fact`, `text`, `memory` or
`content` key) is read by its prose: each field that holds a sentence is a claim of the
record's subject (its `name`, or a short `section`, `category`, `topic`… field), dated by the
record's date, and a `status` field is the status of its first claim. Fields that name, date or
locate a record, short values and links are no claims; a record of numbers says nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli

TASK = "Add retry to the nightly sync job"
RULE = "The job queue runs on BullMQ backed by Redis for every worker"


def flat(text_key: str, subject_key: str) -> list[dict[str, Any]]:
    return [{subject_key: "Sync", text_key: TASK, "status": "Completed", "updated": "2026-03-01"},
            {subject_key: "Queue", text_key: RULE}]


def nested(text_key: str, subject_key: str) -> list[dict[str, Any]]:
    return [{"id": "t-1", "labels": ["Task"], "properties": {text_key: TASK, "status": "Done",
                                                              "rationale": "It failed twice last week on timeouts."}},
            {"id": "t-2", "properties": {subject_key: "Queue", text_key: RULE}}]


def typed(text_key: str, subject_key: str) -> list[dict[str, Any]]:
    return [{"type": "decision", subject_key: "Sync", text_key: TASK, "status": "closed"},
            {"type": "lesson", subject_key: "Queue", text_key: RULE, "timestamp": "2026-02-01T10:00:00Z"}]


def listed(text_key: str, subject_key: str) -> list[dict[str, Any]]:
    return [{subject_key: "Sync", "status": "done", text_key: [TASK]},
            {subject_key: "Queue", "notes": [RULE, "short"]}]


SHAPES = {"flat": flat, "nested": nested, "listed": listed, "typed": typed}
TEXT_KEYS = ("entry", "description", "summary", "note", "lesson", "details")
SUBJECT_KEYS = ("section", "category", "topic", "title")


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def as_list(records: list[dict[str, Any]]) -> str:
    return json.dumps(records, indent=2) + "\n"


def wrapped(records: list[dict[str, Any]]) -> str:
    return json.dumps({"entries": records}, indent=2) + "\n"


FORMS = {"memory.jsonl": jsonl, "memory.json": as_list, "records.json": wrapped}


def scan(root: Path, *args: str) -> dict[str, Any]:
    result = run_cli("scan", "mem", "--json", "--fail-on", "info", "--no-cache", "--no-grounding", *args, cwd=root)
    assert result.code in (0, 1) and not result.err.strip(), result.err
    return json.loads(result.out)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("subject_key", SUBJECT_KEYS)
@pytest.mark.parametrize("text_key", TEXT_KEYS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_prose_fields_are_claims_a_status_field_their_status(
        tmp_path: Path, shape: str, text_key: str, subject_key: str, form: str) -> None:
    (tmp_path / "mem").mkdir()
    (tmp_path / "mem" / form).write_text(FORMS[form](SHAPES[shape](text_key, subject_key)), encoding="utf-8")
    (tmp_path / "mem" / "activeContext.md").write_text(f"# Next steps\n\n- [ ] {TASK}\n", encoding="utf-8")
    (tmp_path / "mem" / "techContext.md").write_text(f"- {RULE}\n", encoding="utf-8")
    report = scan(tmp_path)
    claims = 3 if shape == "nested" else 2  # the rationale is a claim of its own
    assert report["facts"] == claims + 2
    rules = {(f["rule"], Path(f["path"]).name, *(Path(r["path"]).name for r in f["related"])) for f in report["findings"]}
    assert ("status_conflict", "activeContext.md", form) in rules  # done in the record, open in the notes
    assert {("duplicate", form, "techContext.md"), ("duplicate", "techContext.md", form)} & rules


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_record_with_no_sentence_is_no_claim(tmp_path: Path, form: str) -> None:
    records = [
        {"schema": "telemetry-v2", "ts": "2026-08-16T07:23:03Z", "tool_calls": 32, "outcome": "committed"},
        {"id": "4f2c", "section": "Completed Work Items Of The Week", "status": "Completed"},
        {"url": "https://example.com/a long title with words", "path": "docs/a b c d.md", "source": "the weekly ops review"},
        {"type": "note", "tags": ["one", "two"], "count": 3},
    ]
    (tmp_path / "mem").mkdir()
    (tmp_path / "mem" / form).write_text(FORMS[form](records), encoding="utf-8")
    report = scan(tmp_path)
    assert report["facts"] == 0
    assert [f["rule"] for f in report["findings"]] == ["bad_input"]  # no facts read, and said so


def test_a_records_subject_and_date(tmp_path: Path) -> None:
    (tmp_path / "mem").mkdir()
    (tmp_path / "mem" / "memory.jsonl").write_text(jsonl([
        {"section": "Billing", "entry": "Billing uses PostgreSQL 14 for invoices", "date": "2026-01-05"},
        {"section": "Billing", "entry": "Billing uses PostgreSQL 16 for invoices", "date": "2026-03-05"},
    ]), encoding="utf-8")
    found = [(f["rule"], f["line"], f["entity"]) for f in scan(tmp_path)["findings"] if f["rule"] != "unsourced"]
    assert found == [("stale", 1, "Billing")]
