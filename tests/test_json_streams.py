"""Two JSONL shapes real stores use: values printed over several lines (an indent, with commas
between them or not), and one observation per line (`{"entityName": …, "observation": …}` or
the MCP memory server's `{"entityName": …, "contents": […]}`). Each is read into its facts, on
their own lines, by every way the loader reads a store; a stream that does not decode is read
line by line as before, each broken line a `bad_input`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, write
from memory_autopsy.api import load_store

RECORDS = [
    {"subject": "billing", "fact": "billing uses PostgreSQL 14", "category": "infra", "updated_at": "2026-01-05"},
    {"subject": "cache", "fact": "the cache runs on Redis 7", "category": "infra", "updated_at": "2026-02-01"},
    {"subject": "queue", "fact": "jobs go through BullMQ", "category": "infra", "updated_at": "2026-03-01"},
]
NODES = [
    {"type": "entity", "name": "billing", "entityType": "service", "observations": ["uses PostgreSQL 14", "owned by ops"]},
    {"type": "entity", "name": "cache", "entityType": "service", "observations": ["runs on Redis 7"]},
]


def stream(values: list[dict[str, Any]], indent: int, comma: bool, wrapped: bool) -> str:
    text = (",\n" if comma else "\n").join(json.dumps(v, indent=indent, ensure_ascii=False) for v in values)
    return f"[\n{text}\n]\n" if wrapped else text + "\n\n"


SHAPES = [(indent, comma, wrapped) for indent in (2, 4) for comma in (True, False) for wrapped in (False, True)
          if not (wrapped and not comma)]


def facts(root: Path) -> list[tuple[str, str, int]]:
    store = load_store([str(root)])
    return sorted((f.entity, f.claim, f.line) for f in store.facts)


def lines_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("indent,comma,wrapped", SHAPES)
@pytest.mark.parametrize("name", ["memory.jsonl", "facts.jsonl"])
def test_records_printed_over_lines_are_read(tmp_path: Path, indent: int, comma: bool, wrapped: bool, name: str) -> None:
    text = stream(RECORDS, indent, comma, wrapped)
    write(tmp_path / name, text)
    got = facts(tmp_path)
    assert [(e, c) for e, c, _ in got] == sorted((r["subject"], r["fact"]) for r in RECORDS)
    assert all(line == lines_of(text, claim) for _, claim, line in got)
    result = run_cli("scan", name, "--json", "--fail-on", "never", "--no-grounding", cwd=tmp_path)
    assert result.code == 0 and not [f for f in json.loads(result.out)["findings"] if f["rule"] == "bad_input"]


@pytest.mark.parametrize("indent,comma,wrapped", SHAPES)
def test_graph_nodes_printed_over_lines_are_read(tmp_path: Path, indent: int, comma: bool, wrapped: bool) -> None:
    write(tmp_path / "memory.jsonl", stream(NODES, indent, comma, wrapped))
    assert [(e, c) for e, c, _ in facts(tmp_path)] == [
        ("billing", "owned by ops"), ("billing", "uses PostgreSQL 14"), ("cache", "runs on Redis 7")]


def test_a_stream_read_again_from_the_cache_is_the_same(tmp_path: Path) -> None:
    write(tmp_path / "memory.jsonl", stream(RECORDS, 2, True, False))
    runs = [run_cli("scan", "memory.jsonl", "--json", "--fail-on", "never", "--no-grounding", cwd=tmp_path)
            for _ in range(2)]
    assert runs[0].out == runs[1].out and json.loads(runs[0].out)["facts"] == len(RECORDS)


def test_a_stream_that_does_not_decode_is_read_line_by_line(tmp_path: Path) -> None:
    text = stream(RECORDS, 2, True, False).replace('"cache"', '"cache', 1)
    write(tmp_path / "memory.jsonl", text)
    result = run_cli("scan", "memory.jsonl", "--json", "--fail-on", "never", "--no-grounding", cwd=tmp_path)
    assert result.code == 0, result.err
    bad = [f for f in json.loads(result.out)["findings"] if f["rule"] == "bad_input"]
    assert bad and all(f["path"] == "memory.jsonl" for f in bad)


OBSERVED = ("updatedAt", "createdAt", "date", "observed_at")


@pytest.mark.parametrize("key", ["observation", "contents"])
@pytest.mark.parametrize("stamp", OBSERVED)
@pytest.mark.parametrize("typed", [None, "observation", "entity"])
def test_one_observation_per_line_is_a_graph_observation(tmp_path: Path, key: str, stamp: str, typed: str | None) -> None:
    rows = [{"entityName": "Project: planner", "entityType": "project",
             key: text if key == "observation" else [text], stamp: day, "source": "manual-sync"}
            for text, day in (("The planner stores state as version 3", "2026-04-17"),
                              ("Release prep runs `pnpm pack` per package", "2026-04-18"))]
    if typed:
        rows = [{"type": typed, **row} for row in rows]
    write(tmp_path / "memory.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    store = load_store([str(tmp_path)])
    got = sorted((f.entity, f.claim, f.line, str(f.observed_at)) for f in store.facts)
    assert got == [("Project: planner", "Release prep runs `pnpm pack` per package", 2, "2026-04-18"),
                   ("Project: planner", "The planner stores state as version 3", 1, "2026-04-17")]


def test_a_line_with_a_name_stays_what_it_was(tmp_path: Path) -> None:
    """`name` with `observations` is a graph node already; `entityName` beside it changes nothing."""
    row = {"type": "entity", "name": "billing", "entityName": "other", "observations": ["uses PostgreSQL 14"]}
    write(tmp_path / "memory.jsonl", json.dumps(row) + "\n")
    assert [(e, c) for e, c, _ in facts(tmp_path)] == [("billing", "uses PostgreSQL 14")]
