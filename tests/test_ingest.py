"""Every input shape of SPEC section 3 becomes the canonical record with the right fidelity."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_autopsy.api import load_store
from memory_autopsy.dates import parse_date
from memory_autopsy.model import RECORD_FIELDS, Fidelity
from memory_autopsy.normalize import edit_distance


def facts_of(tmp_path: Path, name: str, text: str, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return load_store([name]).facts


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-01-05", "2026-01-05"),
        ("2026-01-05T10:00:00Z", "2026-01-05T10:00:00Z"),
        ("2026/01/05", "2026-01-05"),
        ("2026-01", "2026-01"),
        ("Jan 5, 2026", "2026-01-05"),
        ("5 January 2026", "2026-01-05"),
        ("2026-02-30", None),
        ("yesterday", None),
    ],
)
def test_lenient_dates(text: str, expected: str | None) -> None:
    assert parse_date(text) == expected


def test_explicit_full_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line = 'Acme Corp (aka "acme", "ACME Inc"): employer = "Globex" -- 2026-01-05 (source: hr, class: primary)\n'
    (fact,) = facts_of(tmp_path, "m.md", line, monkeypatch)
    assert (fact.entity, fact.slot, fact.value) == ("Acme Corp", "employer", "Globex")
    assert (fact.observed_at, fact.source, fact.source_class) == ("2026-01-05", "hr", "primary")
    assert fact.fidelity is Fidelity.FULL and fact.aliases == ("acme", "ACME Inc")


def test_explicit_validity_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line = 'billing-store: tool = "PostgreSQL 14" ; valid_from=2026-01-01 ; valid_to=2026-06-02 -- 2026-01-05 (source: infra-doc)\n'
    (fact,) = facts_of(tmp_path, "m.md", "- " + line, monkeypatch)
    assert (fact.valid_from, fact.valid_to, fact.observed_at) == ("2026-01-01", "2026-06-02", "2026-01-05")


@pytest.mark.parametrize(
    "slot", ["env:API_KEY", "route:/billing/invoices", "skill:.net", "config:ingest.batch_size", "dep:@types/node"]
)
def test_namespaced_slot_reads_as_the_json_record_does(
    slot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`entity: ns:key = "value"` is the record a JSON store writes with slot `ns:key`, as a
    bullet or a line after prose (where it stands alone); markup holding `ns:key="value"` is no
    record."""
    record = json.dumps({"entity": "billing-store", "slot": slot, "value": "on"})
    (tmp_path / "s.jsonl").write_text(record + "\n", encoding="utf-8")
    (tmp_path / "m.md").write_text(
        f'- billing-store: {slot} = "on" (source: ops)\n- <button wire:click="save">\n\n'
        f'The store was moved last week.\nbilling-store: {slot} = "on"\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    facts = load_store(["s.jsonl", "m.md"]).facts
    assert [(f.path, f.entity, f.slot, f.value, f.fidelity) for f in facts] == [
        ("s.jsonl", "billing-store", slot, "on", Fidelity.FULL),
        ("m.md", "billing-store", slot, "on", Fidelity.FULL),
        ("m.md", "m", "", "", Fidelity.RESIDUAL),
        ("m.md", "m", "", "", Fidelity.RESIDUAL),
        ("m.md", "billing-store", slot, "on", Fidelity.FULL),
    ]


def test_an_explicit_value_that_is_a_date_does_not_date_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A date written in prose dates an undated claim; an explicit record's value is data."""
    text = (
        '- Acme: renewal = "2027-01-15"\n'
        '- Acme: renewal = "2027-01-15" -- 2026-02-01\n'
        "- Acme: signed the renewal on 2026-01-20\n"
    )
    facts = facts_of(tmp_path, "m.md", text, monkeypatch)
    assert [(f.fidelity, f.observed_at) for f in facts] == [
        (Fidelity.FULL, None), (Fidelity.FULL, "2026-02-01"), (Fidelity.PARTIAL, "2026-01-20")]


def test_entity_claim_and_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "# Memory\n"
        "- billing-store: uses PostgreSQL 14 for the billing store (2026-01-05)\n"
        "- Redis 7 is the session cache\n"
        "## Globex (2026-01-01)\n"
        "- works at Northwind\n"
        "## 2026-03-01\n"
        "* cache-tier: uses redis 7\n"
        "1. cache-tier: runs on Kubernetes (observed 2026-03-02)\n"
    )
    facts = facts_of(tmp_path, "m.md", text, monkeypatch)
    got = [(f.line, f.entity, f.fidelity, f.observed_at) for f in facts]
    assert got == [
        (2, "billing-store", Fidelity.PARTIAL, "2026-01-05"),
        (3, "m", Fidelity.RESIDUAL, None),
        (5, "Globex", Fidelity.PARTIAL, "2026-01-01"),
        (7, "cache-tier", Fidelity.PARTIAL, "2026-03-01"),
        (8, "cache-tier", Fidelity.PARTIAL, "2026-03-02"),
    ]
    assert facts[0].slot == "anchor:uses" and facts[0].value == "PostgreSQL 14"
    assert facts[2].slot == "anchor:works_at" and facts[2].value == "Northwind"


def test_front_matter_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "---\nname: Globex\ndate: 2026-02-01\nsource: profile\n---\n- works at Northwind\n"
    (fact,) = facts_of(tmp_path, "m.md", text, monkeypatch)
    assert (fact.entity, fact.observed_at, fact.source, fact.fidelity) == (
        "Globex", "2026-02-01", "profile", Fidelity.PARTIAL)
    assert fact.line == 6


def test_code_fences_are_not_claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "```\n- billing: uses MySQL (2026-01-01)\n```\n- billing: uses MySQL (2026-01-01)\n"
    assert [f.line for f in facts_of(tmp_path, "m.md", text, monkeypatch)] == [4]


@pytest.mark.parametrize(("opening", "closing"), [
    ('<code-snippet name="Volt Example" lang="php">', "</code-snippet>"),
    ("<pre>", "</pre>"), ("<PRE class='x'>", "  </PRE>"), ("<code-snippet>", "@endvolt</code-snippet>"),
])
def test_code_in_a_tag_of_its_own_is_no_claim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opening: str, closing: str) -> None:
    """The `<code-snippet>` blocks of generated agent guidelines, and `<pre>`, hold code, blank
    lines and list-like lines included, as a fence does."""
    text = (f"- Use Volt for pages.\n\n{opening}\n<?php\n\n- billing: uses MySQL (2026-01-01)\n"
            f"    <button wire:click=\"increment\">+</button>\n{closing}\n\n- Check components first.\n"
            "<pre>one line</pre>\n- Last claim.\n")
    assert [f.claim for f in facts_of(tmp_path, "m.md", text, monkeypatch)] == [
        "Use Volt for pages.", "Check components first.", "Last claim."]


@pytest.mark.parametrize("wrapper", ["facts", "memories", "records", "items", "data", None])
def test_json_wrappers_and_flexible_keys(wrapper: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = [
        {"subject": "billing", "predicate": "tool", "object": "MySQL", "timestamp": "2026-01-05"},
        {"name": "billing", "text": "runs nightly backups", "created_at": "2026-01-06", "source": "ops"},
        "a bare claim",
    ]
    document = {wrapper: items} if wrapper else items
    facts = facts_of(tmp_path, "f.json", json.dumps(document, indent=2), monkeypatch)
    assert [(f.entity, f.slot, f.value, f.fidelity) for f in facts] == [
        ("billing", "tool", "MySQL", Fidelity.FULL),
        ("billing", "", "", Fidelity.PARTIAL),
        ("f", "", "", Fidelity.RESIDUAL),
    ]
    assert facts[0].observed_at == "2026-01-05" and facts[1].source == "ops"


def test_json_entity_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    document = {"Globex": ["works at Northwind"], "billing": {"tool": "MySQL"}, "Empty": []}
    store_text = json.dumps(document, indent=2)
    (tmp_path / "m.json").write_text(store_text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    store = load_store(["m.json"])
    assert [(f.entity, f.claim) for f in store.facts] == [
        ("Globex", "works at Northwind"), ("billing", 'billing: tool = "MySQL"')]
    assert [(d.entity, d.line) for d in store.declarations] == [("Empty", 8)]


def test_jsonl_canonical_record_keeps_its_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = {name: None for name in RECORD_FIELDS}
    record.update(id="8a0ccbab525e5078", entity="billing-store", slot="tool", value="MySQL 8",
                  claim='billing-store: tool = "MySQL 8"', observed_at="2026-06-02",
                  source="infra-doc", source_class="primary", fidelity="FULL")
    (fact,) = facts_of(tmp_path, "s.jsonl", json.dumps(record) + "\n", monkeypatch)
    assert fact.record() == record | {"status_verb": None}


def test_jsonl_canonical_record_every_field_in_its_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A canonical line is read whole, without a draft (records.Record): each of its fields,
    every one distinct here, lands in its own place of the fact, dates read as dates."""
    record = dict(id="0000000000000abc", entity="billing-store", slot="tool", value="MySQL 8",
                  claim='billing-store: tool = "MySQL 8"', observed_at="2026-06-02", valid_from="2026-06-01",
                  valid_to="2026-12-31", source="infra-doc", source_class="secondary", fidelity="FULL",
                  status_verb="confirmed")
    prose = record | dict(id="0000000000000abd", slot="", value="", claim="  uses PostgreSQL 14 for billing ",
                          observed_at="June 3, 2026", valid_from=None, valid_to=None, source=None,
                          source_class=None, status_verb=None, fidelity="PARTIAL")
    lines = "\n" + json.dumps(record) + "\n" + json.dumps(prose) + "\n"
    full, partial = facts_of(tmp_path, "s.jsonl", lines, monkeypatch)
    assert full.record() == record
    assert (full.line, full.shape, full.id_given, full.fidelity) == (2, "json", True, Fidelity.FULL)
    assert partial.record() == prose | dict(claim="uses PostgreSQL 14 for billing", observed_at="2026-06-03",
                                            slot="anchor:uses", value="PostgreSQL 14", source_class="unclassified")
    assert (partial.line, partial.body, partial.kind) == (3, "uses PostgreSQL 14 for billing", "state")


def test_a_record_read_whole_makes_the_fact_its_draft_makes() -> None:
    """records.Record holds a draft's first fields in Draft's order, so `finish` makes the same
    fact of a record as of a draft of its fields, for records of every shape."""
    from memory_autopsy.ingest.json_store import parse_json_lines
    from memory_autopsy.ingest.records import DRAFT_FIELDS, Draft, Record, finish
    from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

    assert Record._fields == DRAFT_FIELDS[: len(Record._fields)] and Record._fields[-1] == "end_line"
    base = {name: None for name in RECORD_FIELDS} | {"id": "x1", "entity": "billing", "slot": "", "value": ""}
    shapes = [
        {"claim": "uses PostgreSQL 14"}, {"claim": "migrated off MySQL 8", "observed_at": "2026-01-05"},
        {"claim": "billing: tool = PostgreSQL", "slot": "tool", "value": "PostgreSQL", "status_verb": "reported"},
        {"claim": " No longer uses Redis ", "source": "runbook", "source_class": "primary", "valid_to": "2026-02-01"},
        {"claim": "runs 12 tests passing (needs confirmation)", "entity": " Zürich Ops "},
        {"claim": "Use uv@0.4.1 instead of using pip", "status_verb": " confirmed "},
        {"claim": "billing: replaced by ledger-v2", "slot": "tool", "value": ""},
    ]
    lines = [json.dumps(base | shape | {"id": f"x{k}"}) for k, shape in enumerate(shapes)]
    items = parse_json_lines(lines, "s.jsonl", "s").items()
    assert all(isinstance(item, Record) for item in items) and len(items) == len(shapes)
    for order, record in enumerate(items):
        assert isinstance(record, Record)
        assert finish(record, DEFAULT_VOCABULARY, order) == finish(Draft(*record), DEFAULT_VOCABULARY, order)


def test_jsonl_records_share_one_copy_of_a_repeated_entity_and_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store repeats its entities and sources record after record: the facts hold one string
    of each (a large store's memory), with the values unchanged."""
    lines = []
    for k, claim in enumerate(("uses MySQL 8", "runs on Debian", "owns the invoices")):
        record = {name: None for name in RECORD_FIELDS}
        record.update(id=f"{k:016x}", entity=" billing-store ", slot="", value="", claim=claim,
                      source="infra-doc", source_class="primary", fidelity="PARTIAL")
        lines.append(json.dumps(record) + "\n")
    facts = facts_of(tmp_path, "s.jsonl", "".join(lines), monkeypatch)
    assert [(f.entity, f.source) for f in facts] == [("billing-store", "infra-doc")] * 3
    assert len({id(f.entity) for f in facts}) == len({id(f.source) for f in facts}) == 1


def test_ids_are_content_not_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = facts_of(tmp_path, "a.md", "- billing: uses MySQL (2026-01-01)\n", monkeypatch)
    moved = facts_of(tmp_path, "a.md", "\n\n# t\n- billing: uses MySQL (2026-01-01)\n", monkeypatch)
    changed = facts_of(tmp_path, "a.md", "- billing: uses MariaDB (2026-01-01)\n", monkeypatch)
    assert first[0].id == moved[0].id != changed[0].id
    assert len(first[0].id) == 16 and int(first[0].id, 16) >= 0


def test_aliases_fold_by_declaration_and_normal_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        'Acme Corp (aka "Roadrunner Supply"): tool = "Jira" -- 2026-01-01\n'
        "- ACME, Inc.: uses Jira for tickets (2026-01-02)\n"
        "- roadrunner supply: uses Jira (2026-01-03)\n"
        "- Acma: uses Jira (2026-01-03)\n"
    )
    facts = facts_of(tmp_path, "m.md", text, monkeypatch)
    assert [f.entity for f in facts] == ["Acme Corp", "Acme Corp", "Acme Corp", "Acma"]


def test_unknown_extension_is_read_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rules.mdc").write_text("- billing: uses MySQL (2026-01-01)\n", encoding="utf-8")
    (tmp_path / "agent.af").write_text(json.dumps({"facts": [{"entity": "x", "claim": "uses y"}]}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    facts = load_store(["rules.mdc", "agent.af"]).facts
    assert [(f.path, f.entity) for f in facts] == [("rules.mdc", "billing"), ("agent.af", "x")]


def test_directory_walk_skips_dot_folders_and_other_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a.md", "b.markdown", "c.json", "d.jsonl", "e.txt", ".hidden/f.md", "sub/g.md"):
        path = tmp_path / "mem" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('["x"]' if name.endswith("json") else '{"claim": "x"}' if name.endswith("jsonl") else "- x\n")
    monkeypatch.chdir(tmp_path)
    assert load_store(["mem"]).paths == (
        "mem/a.md", "mem/b.markdown", "mem/c.json", "mem/d.jsonl", "mem/sub/g.md")


@pytest.mark.parametrize(("a", "b", "limit", "expected"), [
    ("kitten", "sitting", 3, 3), ("kitten", "sitting", 2, 3), ("flaw", "lawn", 2, 2), ("abcd", "abxd", 2, 1),
    ("abc", "abc", 2, 0), ("", "ab", 2, 2), ("a", "abcd", 2, 3), ("billing-store", "biling-stor", 1, 2),
])
def test_edit_distance_is_exact_up_to_its_limit_and_limit_plus_one_past_it(
        a: str, b: str, limit: int, expected: int) -> None:
    assert edit_distance(a, b, limit) == expected == edit_distance(b, a, limit)


def test_look_alike_names_are_paired_once_and_only_within_two_edits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Names a typo apart are reported as one pair, never merged; names that differ only in
    digits, or by three edits, are not."""
    names = ["billing-store", "biling-store", "svc-10", "svc-11", "payments", "paymints-gw", "ledger"]
    text = "".join(f"- {name}: runs on Debian {k}\n" for k, name in enumerate(names))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.md").write_text(text, encoding="utf-8")
    store = load_store(["m.md"])
    assert [(a, c, d) for a, _, c, _, d in store.alias_pairs] == [("billing-store", "biling-store", 1)]
    assert {f.entity for f in store.facts} == set(names)
