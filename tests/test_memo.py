"""The engine's memo: on a large store with a cache, the findings of the layers that judge each
entity alone are kept between runs; every run reports what a run without it reports."""

from __future__ import annotations

import itertools
import json
import marshal
import os
from pathlib import Path

import pytest

from conftest import copy_modules, run_cli
from memory_autopsy.api import lint
from memory_autopsy.engine import memo
from memory_autopsy.ingest.cache import SUFFIX, entry_parts, load_entry
from memory_autopsy.settings import Settings

FACTS = memo.MIN_FACTS + 400


def _records(n: int, name: str = "svc") -> list[dict[str, object]]:
    """n records over 200 services: slots filled with other values at other dates, prose said
    twice in other words, and retractions, so every layer has findings."""
    records: list[dict[str, object]] = []
    for i in range(n):
        service = f"{name}-{i % 200}"
        day = f"2026-{1 + i // 400 % 12:02d}-{1 + i % 28:02d}"
        kind = i // 200 % 6
        if kind == 0:
            records.append({"entity": service, "slot": "database", "value": f"PostgreSQL {12 + i // 200 % 4}",
                            "observed_at": day})
        elif kind == 5:
            records.append({"entity": service, "slot": "owner", "value": f"team {'abcdefg'[i // 200 % 7]}",
                            "observed_at": day})
        elif kind == 1:
            records.append({"entity": service, "claim": f"the {service} deploy pipeline runs nightly on "
                            f"the blue cluster and pages the platform team", "observed_at": day})
        elif kind == 2:
            records.append({"entity": service, "claim": f"nightly the {service} deploy pipeline runs on the "
                            f"blue cluster and it pages the platform team", "observed_at": day})
        elif kind == 3:
            records.append({"entity": service, "claim": "the session cache runs on Redis", "observed_at": day})
        else:
            records.append({"entity": service, "claim": "switched from Redis to Valkey for the session cache",
                            "observed_at": day})
    return records


def _write(path: Path, records: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store.jsonl"
    _write(path, _records(FACTS))
    return path


SHARDS = f"*{SUFFIX}"  # a scope's shards, in its folder


def _kept(folder: Path) -> list[Path]:
    """Everything the folder keeps: parse entries and the engine's shards, in one format."""
    return list(folder.rglob(f"*{SUFFIX}"))


def _entries(cache: Path) -> list[Path]:
    """The scopes the engine keeps entities for: a folder of shards each."""
    return sorted(p for p in (cache / "v1" / "engine").glob("*") if p.is_dir())


def _groups(entry: Path) -> dict[str, list[object]]:
    groups: dict[str, list[object]] = {}
    for shard in entry.glob(SHARDS):
        groups.update(load_entry(shard)["groups"])
    return groups


def test_cold_warm_and_edited_runs_report_what_a_run_without_it_does(tmp_path: Path, store: Path) -> None:
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    plain = lint([str(store)], Settings())
    assert {f.rule for f in plain.findings} >= {"near_duplicate", "contradicted_implicit", "stale",
                                                  "contradicted_explicit"}
    cold = lint([str(store)], cached)
    (entry,) = _entries(tmp_path / "cache")
    assert len(_groups(entry)) > 100 and len(list(entry.glob(SHARDS))) > 1
    warm = lint([str(store)], cached)
    assert cold.findings == warm.findings == plain.findings
    records = _records(FACTS)
    records[7]["observed_at"] = "2027-01-01"  # one line changed in place: its date, not its claim
    records.append({"entity": "svc-3", "slot": "database", "value": "CockroachDB 24", "observed_at": "2027-01-01"})
    _write(store, records)
    edited = lint([str(store)], cached)
    assert edited.findings == lint([str(store)], Settings()).findings != plain.findings
    _write(store, [{"entity": "svc-0", "claim": "keeps a runbook"}, *records])  # every line moves down
    moved = lint([str(store)], cached)
    assert moved.findings == lint([str(store)], Settings()).findings
    assert [f.line for f in moved.findings] != [f.line for f in edited.findings]
    assert len(_entries(tmp_path / "cache")) == 1  # one entry per scope, rewritten


def test_a_kept_group_is_what_the_run_reports(tmp_path: Path, store: Path) -> None:
    """The entry is read: a kept finding's message, rewritten in the entry, is what the next run
    reports (the entry is keyed by the group's facts, not checked against them)."""
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    lint([str(store)], cached)
    (entry,) = _entries(tmp_path / "cache")
    shard = next(p for p in sorted(entry.glob(SHARDS)) if any(load_entry(p)["groups"].values()))
    data = load_entry(shard)
    rows = next(rows for rows in data["groups"].values() if rows)
    rows[0][7] = "kept by an earlier run"
    shard.write_bytes(b"".join(entry_parts(data)))
    assert "kept by an earlier run" in {f.message for f in lint([str(store)], cached).findings}


# A kept finding's fields, each with a value of a type it never has (baseline takes any: None).
_WRONG = {0: 5, 1: "no such severity", 2: None, 3: 1, 4: "3", 5: [], 6: 0, 7: None, 8: "0.9", 9: None,
          10: None, 11: 2, 13: None, 14: 1.5}


@pytest.mark.parametrize("bad", [b"{not marshal", "CUT", "UNCHECKED", [], {"salt": 1, "groups": []}, "GROUPS", "FIELDS"])
def test_a_corrupt_entry_is_a_miss_and_rewritten(tmp_path: Path, store: Path, bad: object) -> None:
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    expected = lint([str(store)], cached).findings
    (entry,) = _entries(tmp_path / "cache")
    shards = sorted(entry.glob(SHARDS))
    fields = itertools.cycle(sorted(_WRONG))  # one field a group, on through the shards
    for shard in shards[::2]:  # every other shard
        data = load_entry(shard)
        if bad == "GROUPS":  # the right salt, rows of another shape in every group
            data["groups"] = {key: [[1, 2, 3]] if n % 2 else "x" for n, key in enumerate(data["groups"])}
        if bad == "FIELDS":  # rows of the right length, one field of one row of each group mistyped
            for rows in data["groups"].values():
                if rows:  # a row naming another side, where there is one: an empty list is falsy too
                    field = next(fields)
                    next((row for row in rows if row[10]), rows[-1])[field] = _WRONG[field]
        written = b"".join(entry_parts(data if bad in ("GROUPS", "FIELDS") else bad))
        if bad == "CUT":  # cut short
            written = shard.read_bytes()[:-7]
        if bad == "UNCHECKED":  # the right value, without its checksum
            written = marshal.dumps(data)
        shard.write_bytes(bad if type(bad) is bytes else written)
    assert lint([str(store)], cached).findings == expected
    for shard in shards:
        rewritten = load_entry(shard)
        assert rewritten["groups"] and all(type(rows) is list for rows in rewritten["groups"].values())
    assert lint([str(store)], cached).findings == expected


@pytest.mark.parametrize("files", [1, 2])
def test_the_hook_reports_what_it_reports_without_a_cache(tmp_path: Path, files: int) -> None:
    """A store of one file, changed, is judged whole: its entities are kept. A hook on one file
    of two reads the other's claims for its copies (a focused run): it keeps nothing."""
    memory = tmp_path / "memory"
    memory.mkdir()
    _write(memory / "b.jsonl", _records(FACTS, "api"))
    if files == 2:
        _write(memory / "a.jsonl", _records(FACTS))
    runs = [run_cli("hook", "--format", "json", "memory/b.jsonl", cwd=tmp_path) for _ in range(2)]
    assert bool(_entries(tmp_path / ".memory-autopsy-cache")) is (files == 1)
    with (memory / "b.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"entity": "api-9", "claim": "the api-9 deploy pipeline runs nightly on the blue "
                                 "cluster and pages the platform team too"}) + "\n")
    runs.append(run_cli("hook", "--format", "json", "memory/b.jsonl", cwd=tmp_path))
    plain = run_cli("hook", "--format", "json", "--no-cache", "memory/b.jsonl", cwd=tmp_path)
    assert runs[0] == runs[1] and runs[0].code == 1
    assert runs[2] == plain and runs[2] != runs[0]


def test_a_small_store_keeps_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "store.jsonl"
    _write(path, _records(memo.MIN_FACTS - 1))
    lint([str(path)], Settings(parse_cache=str(tmp_path / "cache")))
    assert not _entries(tmp_path / "cache")
    assert list((tmp_path / "cache").rglob(f"*{SUFFIX}"))  # the parse entries


def test_the_words_and_the_engines_code_are_part_of_the_key(tmp_path: Path, store: Path) -> None:
    from memory_autopsy.ingest.cache import PACKAGE, reader_digest
    from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

    lint([str(store)], Settings(parse_cache=str(tmp_path / "cache")))
    other = DEFAULT_VOCABULARY.extended(anchors={"deploys to": "deploy_target"})
    lint([str(store)], Settings(parse_cache=str(tmp_path / "cache"), vocabulary=other))
    assert len(_entries(tmp_path / "cache")) == 2
    copy = copy_modules(PACKAGE, memo.ENGINE_MODULES, tmp_path / "pkg")
    assert reader_digest(copy, memo.ENGINE_MODULES) == memo.engine_key()
    (copy / "engine" / "slots.py").write_text("# another layer\n", encoding="utf-8")
    assert reader_digest(copy, memo.ENGINE_MODULES) != memo.engine_key()


def test_the_entry_counts_in_the_folders_bound(tmp_path: Path, store: Path) -> None:
    from memory_autopsy.ingest.cache import ParseCache

    lint([str(store)], Settings(parse_cache=str(tmp_path / "cache")))
    everything = _kept(tmp_path / "cache")
    (entry,) = _entries(tmp_path / "cache")
    shards = list(entry.glob(SHARDS))
    ParseCache(tmp_path / "cache", max_bytes=sum(p.stat().st_size for p in everything) - 1).prune()
    assert len(_kept(tmp_path / "cache")) == len(everything) - 1
    for shard in shards:  # the oldest of all: still the last to go
        os.utime(shard, (1, 1))
    ParseCache(tmp_path / "cache", max_bytes=sum(p.stat().st_size for p in shards)).prune()
    assert set(entry.glob(SHARDS)) == set(shards)
    assert not [p for p in (tmp_path / "cache" / "v1").glob(f"??/*{SUFFIX}")]
    ParseCache(tmp_path / "cache", max_bytes=0).prune()
    assert not _kept(tmp_path / "cache") and shards


def test_an_earlier_formats_files_count_in_the_bound_and_go(tmp_path: Path, store: Path) -> None:
    """A shard or entry an earlier version wrote (JSON) is never read again: it counts in the
    bound, and goes first of its kind (parse entries, then the engine's shards) once the folder
    passes it."""
    from memory_autopsy.ingest.cache import ParseCache

    lint([str(store)], Settings(parse_cache=str(tmp_path / "cache")))
    (entry,) = _entries(tmp_path / "cache")
    old = [entry / "00.json", next((tmp_path / "cache" / "v1").glob("??")) / "0123.json"]
    for path in old:
        path.write_text('{"salt": "", "groups": {}}' * 100, encoding="utf-8")
        os.utime(path, (1, 1))
    kept = sum(p.stat().st_size for p in _kept(tmp_path / "cache"))
    total = kept + sum(path.stat().st_size for path in old)
    assert ParseCache(tmp_path / "cache", max_bytes=total).prune() == total  # counted
    files = set(_kept(tmp_path / "cache"))
    ParseCache(tmp_path / "cache", max_bytes=total - 1).prune()  # the oldest parse entry goes
    assert not old[1].exists() and old[0].exists() and set(_kept(tmp_path / "cache")) == files
    ParseCache(tmp_path / "cache", max_bytes=0).prune()
    assert not old[0].exists() and not _kept(tmp_path / "cache")


def _alike_warm_and_plain(paths: list[str], cache: Path) -> None:
    cached = Settings(parse_cache=str(cache))
    first, second = lint(paths, cached), lint(paths, cached)
    plain = lint(paths, Settings())
    assert first.findings == second.findings == plain.findings
    assert first.facts == plain.facts


def test_a_fact_the_rest_of_the_store_renames_is_keyed_by_what_it_says(tmp_path: Path, monkeypatch) -> None:
    """A cached row keys its fact by the row (the entry's key, its row, its order) only while
    the fact is the one the row gives: an alias declared in another file renames it, and the
    entity is judged again under its new name."""
    monkeypatch.setattr(memo, "MIN_FACTS", 0)
    data, alias = tmp_path / "b_data.jsonl", tmp_path / "a_alias.jsonl"
    _write(data, [{"entity": "Acme Corp", "slot": "database", "value": "PostgreSQL 14", "observed_at": "2026-01-01"},
                  {"entity": "Acme Corp", "slot": "database", "value": "MySQL 8", "observed_at": "2026-02-01"}])
    paths = [str(alias), str(data)]
    for record in ({"entity": "Globex", "claim": "uses Kafka"},
                   {"entity": "ACME", "aliases": ["Acme Corp"], "claim": "uses Kafka"},
                   {"entity": "Globex", "claim": "uses Kafka"}):
        _write(alias, [record])
        _alike_warm_and_plain(paths, tmp_path / "cache")
    def conflicts() -> set[str]:
        found = lint(paths, Settings(parse_cache=str(tmp_path / "cache"))).findings
        return {f.entity for f in found if f.rule in ("stale", "contradicted_implicit")}

    assert conflicts() == {"Acme Corp"}
    _write(alias, [{"entity": "ACME", "aliases": ["Acme Corp"], "claim": "uses Kafka"}])
    assert conflicts() == {"ACME"}


def test_a_label_another_file_settles_is_keyed_by_what_it_says(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(memo, "MIN_FACTS", 0)
    (tmp_path / "a.md").write_text("- Payments: handled by the ledger team\n- Payments: handled by the ledger team\n"
                                   "- Payments: handled by the ledger team and the billing team\n", encoding="utf-8")
    declares = tmp_path / "b.md"
    for text in ("# Notes\n- runs nightly\n", "# Notes\n## Payments\n- runs nightly\n", "# Notes\n- runs nightly\n"):
        declares.write_text(text, encoding="utf-8")
        _alike_warm_and_plain([str(tmp_path / "a.md"), str(declares)], tmp_path / "cache")


def test_a_store_whose_facts_were_changed_after_reading_is_judged_as_it_reads(tmp_path: Path, store: Path) -> None:
    """A caller may change a read store's facts (`dataclasses.replace`) and lint it: a fact no
    longer the one its cache row gives is keyed by what it says, not by the row."""
    from dataclasses import replace

    from memory_autopsy.api import lint_loaded, load_store

    cached = Settings(parse_cache=str(tmp_path / "cache"))
    for _ in range(2):
        lint([str(store)], cached)  # the entities kept, and the store's rows cached
    read = load_store([str(store)], cached)
    assert read.origins and all(read.origins)
    facts = [f._replace(value="MariaDB 11") if f.slot == "database" and f.entity == "svc-3" else f for f in read.facts]
    changed = replace(read, facts=tuple(facts))
    assert lint_loaded(changed, cached).findings == lint_loaded(changed, Settings()).findings
    assert lint_loaded(changed, cached).findings != lint_loaded(read, cached).findings
    extra = read.facts[7]._replace(order=len(read.facts), line=len(read.facts) + 1, id="added", value="MySQL 8")
    grown = replace(read, facts=(*read.facts, extra))  # a fact the store was not read with
    assert lint_loaded(grown, cached).findings == lint_loaded(grown, Settings()).findings


def test_a_line_appended_judges_again_only_the_entity_it_names(tmp_path: Path, store: Path) -> None:
    """The appended line changes the bytes of the store's last span (its parse-cache entry is
    read again), not the facts of the other lines in it: only the entity the line names gets a
    new key in the entry."""
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    lint([str(store)], cached)
    (entry,) = _entries(tmp_path / "cache")
    before = _groups(entry)
    texts = {p.name: p.read_bytes() for p in entry.glob(SHARDS)}
    with store.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"entity": "svc-7", "slot": "owner", "value": "team z", "observed_at": "2027-01-01"}) + "\n")
    assert lint([str(store)], cached).findings == lint([str(store)], Settings()).findings
    after = _groups(entry)
    assert len(after.keys() - before.keys()) == 1 and len(before.keys() - after.keys()) == 1
    rewritten = [p.name for p in entry.glob(SHARDS) if p.read_bytes() != texts.get(p.name)]
    assert 1 <= len(rewritten) <= 2  # the shards of svc-7's old and new key


def test_a_store_past_the_bound_keeps_what_it_reads(tmp_path: Path, store: Path, monkeypatch) -> None:
    """A store whose entries pass the cache's bound (a 1M JSONL store's ~300 MB of spans against
    256 MiB) keeps every entry and shard its run read or wrote: after a one-line change the next
    run parses the changed span alone and rewrites only the shards of the entity it names, and a
    run after it reads everything back."""
    from memory_autopsy.ingest import cache as parse_cache
    from memory_autopsy.ingest import loader

    monkeypatch.setattr(parse_cache, "MAX_BYTES", 1)
    monkeypatch.setattr(loader, "SPAN", 500)  # five spans
    cached = Settings(parse_cache=str(tmp_path / "cache"))

    def spans() -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in (tmp_path / "cache" / "v1").glob(f"??/*{SUFFIX}")}

    lint([str(store)], cached)
    (entry,) = _entries(tmp_path / "cache")
    parsed, shards = spans(), {p.name: p.stat().st_ino for p in entry.glob(SHARDS)}
    assert len(parsed) == 5 and shards
    for path in _kept(tmp_path / "cache"):  # written a while before the next run
        os.utime(path, (1, 1))
    with store.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"entity": "svc-7", "slot": "owner", "value": "team z", "observed_at": "2027-01-01"}) + "\n")
    assert lint([str(store)], cached).findings == lint([str(store)], Settings()).findings
    now = spans()
    assert len(now) == 5 and len(now.keys() & parsed.keys()) == 4  # the last span's old entry went
    rewritten = [p.name for p in entry.glob(SHARDS) if p.stat().st_ino != shards.get(p.name)]
    assert 1 <= len(rewritten) <= 2  # replaced, not read and touched
    again = parse_cache.ParseCache(tmp_path / "cache")
    assert loader.load_sources([loader.Source(str(store), store.read_bytes())], cache=again).facts
    assert (again.hits, again.misses) == (5, 0)


def test_concurrent_runs_share_the_entry_safely(tmp_path: Path, store: Path) -> None:
    """Three processes judge the same store with one cache at once: each reports what a run
    without the cache reports, the shards they leave are whole, and no temporary file stays."""
    import os
    import subprocess
    import sys

    from conftest import SRC

    code = (
        "import hashlib, sys; from memory_autopsy.api import lint; from memory_autopsy.settings import Settings; "
        "r = lint([sys.argv[1]], Settings(parse_cache=sys.argv[2])); "
        "print(len(r.findings), hashlib.sha256(repr(r.findings).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": "0"}
    cache = tmp_path / "cache"
    for _ in range(2):  # cold, then warm
        runs = [subprocess.Popen([sys.executable, "-c", code, str(store), str(cache)], env=env,
                                 stdout=subprocess.PIPE, text=True) for _ in range(3)]
        outs = {run.communicate(timeout=120)[0].strip() for run in runs}
        plain = subprocess.run([sys.executable, "-c", code, str(store), ""], env=env, capture_output=True,
                               text=True, check=True).stdout.strip()
        assert outs == {plain}
    assert not list(cache.rglob("*.tmp"))
    (entry,) = _entries(cache)
    assert len(_groups(entry)) > 100
