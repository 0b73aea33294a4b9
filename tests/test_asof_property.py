"""as-of and `scan --as-of` never disagree about conflicts (property-based, over generated stores).

The two commands read a date differently by design, so the invariant is stated over the slots
where they look at the same records:

- `as-of D` holds a record in effect when valid_from <= D < valid_to (a window with no start
  starts at the observation), or, with no window, from observed_at; records with neither
  are `unanchored` and left out.
- `scan --as-of D` reads a record with a window from its valid_from (the window is trusted
  even when observed later) and one without from its observation; it treats a record as
  active while valid_to is absent or after D, and keeps unanchored records.

A slot (entity, slot) is *comparable* at D when every record in it gets the same answer from
both rules, and no record that `scan` still reads but holds expired repeats the claim of an
active one (the engine's duplicate layer reads expired records too, and would hide the
active copy from the slot layer). On every comparable slot:

1. both views find exactly the same conflicting pairs (rule and the two record ids);
2. no two claims `as-of` shows as CURRENT are a resolved conflict (contradicted_*/stale) in `scan`;
3. when `scan` flags the CURRENT claim as the older side of an ordered conflict, the newer
   side is a claim the provenance cap removed (CAPPED): the linter reports every disagreement,
   the verdict ranks them, and this is the only place the two may point different ways.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import run_cli

DATES = ("2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01")
PROBES = DATES + ("2026-02-15", "2026-05-01")
CONFLICT = ("contradicted_explicit", "contradicted_implicit", "stale")
PAIRED = CONFLICT + ("likely_conflict",)

# Weighted choices (repeats) keep most records in a few slots, dated and open-ended, so that
# most generated stores hold conflicts on comparable slots.
NONE_OR_DATE = (None,) + DATES
record = st.fixed_dictionaries({
    "entity": st.sampled_from(("alpha", "alpha", "alpha", "beta")),
    "slot": st.sampled_from(("tool", "tool", "gateway")),
    "value": st.sampled_from(("redis 6", "redis 7", "redis", "kong", "MySQL 8")),
    "prose": st.sampled_from((False, False, True)),
    "observed_at": st.sampled_from(DATES * 3 + (None,)),
    "valid_from": st.sampled_from((None,) * 16 + DATES),
    "valid_to": st.sampled_from((None,) * 12 + DATES),
    "source_class": st.sampled_from(("primary", "secondary", "unclassified")),
})


def _line(index: int, item: dict[str, Any]) -> dict[str, Any]:
    line: dict[str, Any] = {"id": f"f{index:02d}", "entity": item["entity"]}
    if item["prose"] and item["slot"] == "tool":
        line["claim"] = f"uses {item['value']}"
    else:
        line.update(slot=item["slot"], value=item["value"])
    for key in ("observed_at", "valid_from", "valid_to"):
        if item[key]:
            line[key] = item[key]
    line.update(source="src", source_class=item["source_class"])
    return line


def _slot(line: dict[str, Any]) -> tuple[str, str]:
    return line["entity"], "gateway" if line.get("slot") == "gateway" else "uses"


def _claim(line: dict[str, Any]) -> str:
    return line.get("claim") or f'{line["slot"]} {line["value"]}'.lower()


def _in_scan(line: dict[str, Any], day: str) -> tuple[bool, bool]:
    """(read by `scan --as-of`, active there): a window is trusted, else the observation."""
    observed, start, end = line.get("observed_at"), line.get("valid_from"), line.get("valid_to")
    if start or end:
        read = start is None or start <= day
    else:
        read = observed is None or observed <= day
    return read, read and (end is None or end > day)


def _comparable(lines: list[dict[str, Any]], in_effect: set[str], day: str) -> set[tuple[str, str]]:
    slots: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for line in lines:
        slots.setdefault(_slot(line), []).append(line)
    good = set()
    for key, members in slots.items():
        same_scope = all(_in_scan(m, day)[1] == (m["id"] in in_effect) for m in members)
        expired = {_claim(m) for m in members if _in_scan(m, day) == (True, False)}
        masked = any(_claim(m) in expired for m in members if m["id"] in in_effect)
        if same_scope and not masked:
            good.add(key)
    return good


def _views(lines: list[dict[str, Any]], day: str) -> tuple[dict[str, Any], dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "store.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        as_of = run_cli("as-of", day, "store.jsonl", "--json", "--isolated", cwd=folder)
        scan = run_cli("scan", "store.jsonl", "--as-of", day, "--json", "--isolated", cwd=folder)
    assert as_of.code == 0, as_of.err
    assert scan.code in (0, 1), scan.err
    return json.loads(as_of.out), json.loads(scan.out)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record, min_size=3, max_size=10), st.sampled_from(PROBES))
@example(  # a block pasted for another entity (test_a_block_pasted_for_another_entity_shares_no_verdict)
    [{"entity": entity, "slot": "gateway", "value": value, "prose": False, "observed_at": day, "valid_from": None,
      "valid_to": None, "source_class": "primary"}
     for entity, value, day in [("alpha", "redis 6", "2026-02-01"), ("beta", "kong", "2026-02-01"),
                                ("alpha", "redis 6", "2026-01-01"), ("beta", "redis 6", "2026-01-01"),
                                ("alpha", "kong", "2026-01-01"), ("alpha", "redis 6", "2026-01-01")]],
    "2026-02-01",
)
def test_as_of_and_scan_agree_on_conflicts(items: list[dict[str, Any]], day: str) -> None:
    lines = [_line(i, item) for i, item in enumerate(items)]
    as_of, scan = _views(lines, day)
    beliefs = {b["id"]: b for b in as_of["beliefs"]}
    slot_of = {line["id"]: _slot(line) for line in lines}
    comparable = _comparable(lines, set(beliefs), day)

    scan_pairs = {
        (f["rule"], frozenset((f["fact_ids"][0], r["fact_id"])))
        for f in scan["findings"] if f["rule"] in PAIRED and slot_of[f["fact_ids"][0]] in comparable
        for r in f["related"]
    }
    as_of_pairs = {
        (c["rule"], frozenset((b["id"], c["fact_id"])))
        for b in beliefs.values() if slot_of[b["id"]] in comparable for c in b["conflicts"]
    }
    assert scan_pairs == as_of_pairs

    current = {i for i, b in beliefs.items() if b["verdict"] == "CURRENT"}
    for rule, pair in scan_pairs:
        if rule in CONFLICT:
            assert not pair <= current, f"two CURRENT claims conflict: {sorted(pair)}"

    for finding in scan["findings"]:
        flagged = finding["fact_ids"][0]
        if finding["rule"] in CONFLICT and finding["layer"] == "2b" and flagged in current \
                and slot_of[flagged] in comparable:
            survivors = [beliefs[r["fact_id"]]["verdict"] for r in finding["related"]]
            assert survivors == ["CAPPED"] * len(survivors), (flagged, survivors)


def test_the_documented_exception_is_the_provenance_cap(tmp_path: Path) -> None:
    """Invariant 3's exception, concretely: a newer unclassified claim, an older primary one."""
    lines = [
        {"id": "p", "entity": "alpha", "slot": "gateway", "value": "kong", "observed_at": "2026-01-01",
         "source": "doc", "source_class": "primary"},
        {"id": "u", "entity": "alpha", "slot": "gateway", "value": "haproxy", "observed_at": "2026-02-01",
         "source": "wiki", "source_class": "unclassified"},
    ]
    as_of, scan = _views(lines, "2026-03-01")
    verdicts = {b["id"]: b["verdict"] for b in as_of["beliefs"]}
    assert verdicts == {"p": "CURRENT", "u": "CAPPED"}
    flagged = [(f["rule"], f["fact_ids"][0]) for f in scan["findings"] if f["rule"] in CONFLICT]
    assert flagged == [("contradicted_implicit", "p")]


def test_a_planned_window_is_read_alike(tmp_path: Path) -> None:
    """A record whose window has not started yet is out of scope for both commands."""
    lines = [
        {"id": "now", "entity": "alpha", "slot": "gateway", "value": "kong", "observed_at": "2026-01-01"},
        {"id": "planned", "entity": "alpha", "slot": "gateway", "value": "haproxy",
         "observed_at": "2026-01-15", "valid_from": "2026-04-01"},
    ]
    as_of, scan = _views(lines, "2026-02-01")
    assert [b["id"] for b in as_of["beliefs"]] == ["now"]
    assert [o["reason"] for o in as_of["out_of_window"]] == ["not_yet_valid"]
    assert not any(f["rule"] == "contradicted_implicit" for f in scan["findings"])
    _, later = _views(lines, "2026-05-01")
    assert any(f["rule"] == "contradicted_implicit" for f in later["findings"])


def test_a_block_pasted_for_another_entity_shares_no_verdict(tmp_path: Path) -> None:
    """Three claims repeated in order for another entity are a pasted block (one `duplicate`
    finding, its first claim related to the original's first), but a claim about beta is no
    copy of alpha's: alpha's newest gateway wins alpha's slot, not beta's newest."""
    rows = [("alpha", "redis 6", "2026-02-01"), ("beta", "kong", "2026-02-01"), ("alpha", "redis 6", "2026-01-01"),
            ("beta", "redis 6", "2026-01-01"), ("alpha", "kong", "2026-01-01"), ("alpha", "redis 6", "2026-01-01")]
    lines = [{"id": f"f{n}", "entity": entity, "slot": "gateway", "value": value, "observed_at": day,
              "source": "src", "source_class": "primary"} for n, (entity, value, day) in enumerate(rows)]
    as_of, scan = _views(lines, "2026-02-01")
    assert any("block of 3 facts" in f["message"] for f in scan["findings"])
    verdicts = {b["id"]: b["verdict"] for b in as_of["beliefs"]}
    assert verdicts["f0"] == verdicts["f1"] == "CURRENT"
    assert {i for i, verdict in verdicts.items() if verdict == "LOSER"} == {"f3", "f4"}
