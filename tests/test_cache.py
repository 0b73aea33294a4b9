"""The parse cache: a warm run reads what a cold run read; bad entries are misses; bounded."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, SRC
from memory_autopsy.api import lint, load_store
from memory_autopsy.ingest.cache import SUFFIX, ParseCache, entry_parts, load_entry
from memory_autopsy.ingest.records import DRAFT_FIELDS
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.settings import Settings

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
ENTRIES = f"*{SUFFIX}"  # a parse entry's file (the engine's shards are JSON)


def read_entry(path: Path) -> Any:
    return load_entry(path)


def write_entry(path: Path, value: Any) -> None:
    path.write_bytes(b"".join(entry_parts(value)))


def memo_entry(folder: Path) -> Path:
    """The one memo entry (look-alike names, front matter) under the folder."""
    (entry,) = [e for e in folder.rglob(ENTRIES) if "result" in read_entry(e)]
    return entry


def test_warm_run_reads_the_same_facts_and_findings(tmp_path: Path) -> None:
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    paths = [str(REAL), str(EXAMPLES)]
    cold = lint(paths, cached)
    entries = list((tmp_path / "cache").rglob(ENTRIES))
    assert entries
    # A draft per fact, and per heading that marks its title with a status (Store.headings)
    headings = load_store(paths).headings
    assert headings
    assert sum(len(read_entry(e)["drafts"]) for e in entries) == len(cold.facts) + len(headings)
    warm = lint(paths, cached)
    plain = lint(paths, Settings())
    assert cold.facts == warm.facts == plain.facts
    assert cold.findings == warm.findings == plain.findings


def test_hits_misses_and_a_changed_file(tmp_path: Path) -> None:
    memory = tmp_path / "m.md"
    memory.write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    cache = ParseCache(tmp_path / "cache")
    data = memory.read_bytes()
    assert cache.get("m.md", data) is None
    load_store([str(memory)], Settings(parse_cache=str(tmp_path / "cache")))
    warm = ParseCache(tmp_path / "cache")
    assert warm.get(str(memory), data) is not None
    assert warm.get(str(memory), data + b"- billing: uses MySQL 8\n") is None  # other bytes, other key
    assert warm.get("other.md", data) is None  # the path names the default entity: part of the key


def test_another_interpreter_reads_none_of_the_entries(tmp_path: Path, monkeypatch) -> None:
    """marshal's format is the interpreter's own: the key holds its cache tag."""
    memory = tmp_path / "m.md"
    memory.write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    load_store([str(memory)], Settings(parse_cache=str(tmp_path / "cache")))
    data = memory.read_bytes()
    assert ParseCache(tmp_path / "cache").get(str(memory), data) is not None
    monkeypatch.setattr(sys.implementation, "cache_tag", "another-314")
    assert ParseCache(tmp_path / "cache").get(str(memory), data) is None


def test_corrupt_and_foreign_entries_are_misses_and_rewritten(tmp_path: Path) -> None:
    memory = tmp_path / "m.md"
    memory.write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    expected = load_store([str(memory)], settings).facts
    (entry,) = list((tmp_path / "cache").rglob(ENTRIES))
    good = entry.read_bytes()
    foreign = [b"".join(entry_parts(v)) for v in ({"drafts": [[1, 2]]}, {"drafts": "x"}, [], 7, {"drafts": [b"x"]})]
    unchecked = marshal.dumps(read_entry(entry))  # the value without its checksum
    for bad in (b"{not marshal", b"", good[: len(good) // 2], good[:-1], unchecked, *foreign):
        entry.write_bytes(bad)
        assert load_store([str(memory)], settings).facts == expected
        assert entry.read_bytes() == good  # rewritten whole


def test_any_damaged_byte_of_an_entry_is_a_miss(tmp_path: Path) -> None:
    """marshal would read many a flipped byte as another value (a line, a date, None for a
    name): the entry's checksum makes each one a miss."""
    memory = tmp_path / "m.md"
    memory.write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n- Deploy: ship on Fridays\n", encoding="utf-8")
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    expected = load_store([str(memory)], settings).facts
    (entry,) = list((tmp_path / "cache").rglob(ENTRIES))
    good, data = entry.read_bytes(), memory.read_bytes()
    cache = ParseCache(tmp_path / "cache")
    assert cache.get(str(memory), data) is not None
    for at in range(len(good)):
        for flip in (0x01, 0x80):
            entry.write_bytes(good[:at] + bytes([good[at] ^ flip]) + good[at + 1 :])
            assert cache.get(str(memory), data) is None, at
    assert load_store([str(memory)], settings).facts == expected
    assert entry.read_bytes() == good  # rewritten


def test_a_fact_row_and_a_draft_row_differ_in_length() -> None:
    """decode tells the two by their length alone: a field added to Draft or Fact must keep them
    apart."""
    from memory_autopsy.ingest import cache
    from memory_autopsy.ingest.records import DRAFT_FIELDS, FACT_FIELDS
    from memory_autopsy.model import Fact

    assert FACT_FIELDS == Fact._fields
    assert cache._FACT_ROW == len(FACT_FIELDS) + 1 != len(DRAFT_FIELDS)


def test_a_fact_row_of_another_shape_is_a_miss_and_rewritten(tmp_path: Path) -> None:
    """A line no store reads otherwise is kept as its fact's values (a fact row), a `Label:
    rest` line as its draft; a fact row broken in any checked field is a miss, never a fact."""
    memory = tmp_path / "m.md"
    memory.write_text("- uses PostgreSQL 14 for billing (2026-01-05)\n- Deploy: ship on Fridays\n", encoding="utf-8")
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    expected = load_store([str(memory)], settings).facts
    (entry,) = list((tmp_path / "cache").rglob(ENTRIES))
    good = read_entry(entry)
    lengths = sorted(len(row) for row in good["drafts"])
    assert lengths == [29, 30]  # a draft row (the label) and a fact row, one field longer
    fact_row = next(i for i, row in enumerate(good["drafts"]) if len(row) == 30)
    line, claim = good["drafts"][fact_row][13], good["drafts"][fact_row][4]
    assert (type(line), type(claim), good["drafts"][fact_row][12]) == (int, str, 0)
    for place, value in ((13, str(line)), (4, 7), (12, "m.md"), (10, "EXACT"), (14, []), (18, ["x"]), (None, None)):
        bad = marshal.loads(marshal.dumps(good))
        if place is None:
            bad["drafts"][fact_row].pop()  # one field short: neither shape
        else:
            bad["drafts"][fact_row][place] = value
        write_entry(entry, bad)
        assert load_store([str(memory)], settings).facts == expected
        assert read_entry(entry) == good  # rewritten whole
    draft_row = next(i for i, row in enumerate(good["drafts"]) if len(row) == 29)
    for field in ("aliases", "suppress"):  # a draft row's too: lists where a draft holds tuples
        bad = marshal.loads(marshal.dumps(good))
        bad["drafts"][draft_row][DRAFT_FIELDS.index(field)] = ["x"]
        write_entry(entry, bad)
        assert load_store([str(memory)], settings).facts == expected
        assert read_entry(entry) == good
    assert load_store([str(memory)], settings).facts == expected == load_store([str(memory)]).facts


def test_a_markdown_stores_entries_share_their_names(tmp_path: Path) -> None:
    """Draft rows (`Label: rest` lines) read back from several entries hold one copy of each
    name, as fact rows do (test_a_jsonl_store_read_in_spans_shares_its_names_as_one_parse_does)."""
    from memory_autopsy.ingest import loader
    from memory_autopsy.ingest.records import Draft

    paths = []
    for n in range(3):
        path = tmp_path / f"m{n}.md"
        path.write_text("".join(f"- Deploy {k}: ship on Fridays (source: runbook, {2026}-01-0{k + 1})\n"
                                for k in range(3)), encoding="utf-8")
        paths.append(path)
    sources = [loader.Source(str(p), p.read_bytes()) for p in paths]
    loader.load_sources(sources, cache=ParseCache(tmp_path / "cache"))
    warm = ParseCache(tmp_path / "cache")
    results = [warm.get(str(p), p.read_bytes(), kept=True) for p in paths]
    drafts = [d for r in results if r is not None for d in r.drafts]
    assert len(drafts) == 9 and all(type(d) is Draft and d.label for d in drafts)
    for field in ("shape", "kind", "observed_at", "source"):
        values = [getattr(d, field) for d in drafts]
        assert len({id(v) for v in values}) == len(set(values)), field


def test_a_jsonl_store_is_kept_as_fact_rows(tmp_path: Path) -> None:
    """A JSONL store's canonical records are read whole (no draft) and kept as their facts' rows,
    a line of another shape in its place: a warm run places the rows as they are."""
    from memory_autopsy.ingest import cache
    from memory_autopsy.model import RECORD_FIELDS

    base = {name: None for name in RECORD_FIELDS} | {"entity": "billing", "slot": "", "value": ""}
    lines = [json.dumps(base | {"id": f"r{k}", "claim": claim}) for k, claim in enumerate(
        ("uses PostgreSQL 14", "migrated off MySQL 8", "owns the invoices"))]
    lines.insert(1, json.dumps({"entity": "billing", "fact": "runs nightly"}))
    memory = tmp_path / "s.jsonl"
    memory.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    cold = load_store([str(memory)], settings).facts
    (entry,) = list((tmp_path / "cache").rglob(ENTRIES))
    rows = read_entry(entry)["drafts"]
    assert [len(row) for row in rows] == [cache._FACT_ROW] * 4
    assert [row[cache._F_LINE] for row in rows] == [1, 2, 3, 4]
    assert load_store([str(memory)], settings).facts == cold == load_store([str(memory)]).facts


def test_an_entry_cannot_stand_in_for_another_file(tmp_path: Path) -> None:
    cache = ParseCache(tmp_path / "cache")
    (tmp_path / "a.md").write_text("- a: uses X\n", encoding="utf-8")
    result = load_store([str(tmp_path / "a.md")]).facts
    assert result
    key_b = cache.key("b.md", b"- b: uses Y\n")
    source = next((tmp_path / "cache").rglob(ENTRIES), None)
    assert source is None  # nothing cached without a cache setting
    load_store([str(tmp_path / "a.md")], Settings(parse_cache=str(tmp_path / "cache")))
    (entry,) = list((tmp_path / "cache").rglob(ENTRIES))
    forged = cache._file(key_b)
    forged.parent.mkdir(parents=True, exist_ok=True)
    forged.write_bytes(entry.read_bytes())  # a.md's entry planted under b.md's key
    assert cache.get("b.md", b"- b: uses Y\n") is None


def test_the_lexicon_is_part_of_the_key(tmp_path: Path) -> None:
    base = ParseCache(tmp_path, default_lexicon())
    other = ParseCache(tmp_path, default_lexicon().extended(status_words={"done": ["abgehakt"]}))
    assert base.key("m.md", b"x") != other.key("m.md", b"x")


def test_the_vocabulary_is_part_of_the_key_and_a_warm_run_derives_alike(tmp_path: Path) -> None:
    """Entries hold each draft's prose slot, derived with the run's vocabulary: a rule file's
    own verb frames make another key, and a warm run reads the slots a cold run derived."""
    from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

    extended = DEFAULT_VOCABULARY.extended(anchors={"deploys to": "deploy_target"})
    base, other = ParseCache(tmp_path, vocabulary=DEFAULT_VOCABULARY), ParseCache(tmp_path, vocabulary=extended)
    assert base.key("m.md", b"x") != other.key("m.md", b"x")
    memory = tmp_path / "m.md"
    memory.write_text("# billing\n- deploys to Fly.io (2026-01-05)\n- deploys to Render (2026-03-05)\n",
                      encoding="utf-8")
    for vocabulary in (DEFAULT_VOCABULARY, extended):
        cached = Settings(parse_cache=str(tmp_path / "cache"), vocabulary=vocabulary)
        cold, warm = load_store([str(memory)], cached).facts, load_store([str(memory)], cached).facts
        assert cold == warm == load_store([str(memory)], Settings(vocabulary=vocabulary)).facts
    slots = {f.slot for f in load_store([str(memory)], Settings(parse_cache=str(tmp_path / "cache"),
                                                                 vocabulary=extended)).facts}
    assert slots == {"anchor:deploy_target"}


def test_the_readers_code_is_part_of_the_key(tmp_path: Path) -> None:
    """A changed reader under an unchanged version (a development checkout) is a miss."""
    from conftest import copy_modules
    from memory_autopsy.ingest.cache import PACKAGE, READER_MODULES, reader_digest, reader_key

    copy = copy_modules(PACKAGE, READER_MODULES, tmp_path / "pkg")
    assert reader_digest(copy) == reader_digest(PACKAGE) == reader_key()
    (copy / "ingest" / "blocks.py").write_text("# another reader\n", encoding="utf-8")
    assert reader_digest(copy) != reader_key()
    assert reader_key() in ParseCache(tmp_path / "c").salt


def test_the_folder_is_bounded(tmp_path: Path) -> None:
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    for n in range(12):
        (tmp_path / f"m{n}.md").write_text(f"- svc{n}: uses redis {n} (2026-01-05)\n" * 40, encoding="utf-8")
        load_store([str(tmp_path / f"m{n}.md")], settings)
    cache = ParseCache(tmp_path / "cache", max_bytes=20_000)
    cache.prune()
    sizes = [p.stat().st_size for p in (tmp_path / "cache").rglob(ENTRIES)]
    assert 0 < sum(sizes) <= 20_000 and len(sizes) < 12


def test_a_writing_run_lists_the_folder_only_when_its_count_passes_the_bound(tmp_path: Path, monkeypatch) -> None:
    """The folder keeps a count of its bytes: a run that wrote adds to it and prunes (listing and
    stating every entry) only when the count passes the bound, at every PRUNE_EVERY-th writing
    run, or when the count is missing or unreadable; the prune writes the count it measured."""
    from memory_autopsy.ingest import cache

    pruned: list[int] = []
    real_prune = ParseCache.prune

    def counted(self: ParseCache, since: float | None = None) -> int:
        pruned.append(1)
        return real_prune(self, since)

    monkeypatch.setattr(ParseCache, "prune", counted)
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    ledger = tmp_path / "cache" / "v1" / cache.LEDGER
    runs = iter(range(100))

    def run_on_a_new_file() -> None:
        n = next(runs)
        (tmp_path / f"m{n}.md").write_text(f"- svc{n}: uses redis {n} (2026-01-05)\n", encoding="utf-8")
        lint([str(tmp_path / f"m{n}.md")], settings)

    def entries_bytes() -> int:
        return sum(p.stat().st_size for p in (tmp_path / "cache" / "v1").glob(f"??/{ENTRIES}"))

    run_on_a_new_file()  # no count yet: pruned, and counted
    assert len(pruned) == 1 and ledger.read_text(encoding="ascii").split() == [str(entries_bytes()), "0"]
    run_on_a_new_file()
    run_on_a_new_file()
    assert len(pruned) == 1  # under the bound: the count grows, nothing is listed
    assert ledger.read_text(encoding="ascii").split() == [str(entries_bytes()), "2"]
    lint([str(tmp_path / "m0.md")], settings)  # a run that writes nothing leaves it alone
    assert len(pruned) == 1

    for path in (tmp_path / "cache").rglob(ENTRIES):  # written a while before the next run
        os.utime(path, (1, 1))
    monkeypatch.setattr(cache, "MAX_BYTES", entries_bytes() + 10)
    run_on_a_new_file()  # past the bound by its count: pruned to it
    assert len(pruned) == 2 and entries_bytes() <= cache.MAX_BYTES
    assert ledger.read_text(encoding="ascii").split() == [str(entries_bytes()), "0"]
    monkeypatch.setattr(cache, "MAX_BYTES", 256 * 1024 * 1024)

    ledger.write_text(f"{entries_bytes()} {cache.PRUNE_EVERY - 2}\n", encoding="ascii")
    run_on_a_new_file()
    assert len(pruned) == 2
    run_on_a_new_file()  # the PRUNE_EVERY-th writing run since the last prune
    assert len(pruned) == 3 and ledger.read_text(encoding="ascii").split()[1] == "0"

    for bad in ("", "x 1", "-5 0", "1 2 3", "\xff"):
        ledger.write_bytes(bad.encode("latin-1"))
        run_on_a_new_file()  # an unreadable count: pruned, and counted again
        assert ledger.read_text(encoding="ascii").split() == [str(entries_bytes()), "0"]
    assert len(pruned) == 8


def test_concurrent_runs_share_the_cache_safely(tmp_path: Path) -> None:
    memory = tmp_path / ".memory-autopsy-cache"  # the default name: a dot-folder no walk reads
    (tmp_path / "memory").mkdir()
    for n in range(30):
        (tmp_path / "memory" / f"m{n}.md").write_text(f"- svc{n}: uses redis {n} (2026-01-05)\n", encoding="utf-8")
    code = (
        "import sys; from memory_autopsy.api import lint; from memory_autopsy.settings import Settings; "
        "r = lint([sys.argv[1]], Settings(parse_cache=sys.argv[2])); print(len(r.facts))"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    runs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), str(memory)], env=env,
                             stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [run.communicate(timeout=60)[0].strip() for run in runs]
    assert outs == ["30", "30", "30"]
    assert not list(memory.rglob("*.tmp"))
    assert len(list(memory.rglob(ENTRIES))) == 30


@pytest.mark.parametrize("command", [["hook", "memory.md"], ["ci", "--no-changed-only", "--format", "text", "memory.md"]])
def test_the_hook_and_ci_cache_by_default_and_not_with_no_cache(tmp_path: Path, command: list[str]) -> None:
    from conftest import run_cli

    for name in ("a", "b"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "memory.md").write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    assert run_cli(*command, cwd=tmp_path / "a").code == 0
    assert list((tmp_path / "a" / ".memory-autopsy-cache").rglob(ENTRIES))
    assert run_cli(*command, cwd=tmp_path / "a").code == 0  # warm
    assert run_cli(*command, "--no-cache", cwd=tmp_path / "b").code == 0
    assert not (tmp_path / "b" / ".memory-autopsy-cache").exists()


def test_the_cache_keeps_itself_out_of_git(tmp_path: Path) -> None:
    from conftest import git, run_cli

    git(tmp_path, "init", "-q")
    (tmp_path / "memory.md").write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    assert run_cli("hook", "memory.md", cwd=tmp_path).code == 0
    assert list((tmp_path / ".memory-autopsy-cache").rglob(ENTRIES))
    assert (tmp_path / ".memory-autopsy-cache" / ".gitignore").read_text(encoding="utf-8").endswith("\n*\n")
    listed = git(tmp_path, "status", "--porcelain", "--untracked-files=all")
    assert listed.splitlines() == ["?? memory.md"]


def test_a_folder_of_other_files_is_not_hidden_from_git(tmp_path: Path) -> None:
    """An API caller may name a folder that holds more than the cache: no `.gitignore` there."""
    (tmp_path / "memory.md").write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    lint([str(tmp_path / "memory.md")], Settings(parse_cache=str(tmp_path)))
    assert list((tmp_path / "v1").rglob(ENTRIES)) and not (tmp_path / ".gitignore").exists()
    lint([str(tmp_path / "memory.md")], Settings(parse_cache=str(tmp_path / "own")))
    assert (tmp_path / "own" / ".gitignore").exists()


CLEAN = '- billing: database = "PostgreSQL 14" (2026-01-05)\n'
CONFLICT = CLEAN + '- billing: database = "MySQL 8" (2026-01-05)\n'  # a conflict: it fails the run


@pytest.mark.parametrize("command", [["hook", "memory.md"], ["ci", "--no-changed-only", "--format", "text", "memory.md"]])
def test_a_committed_cache_is_not_read(tmp_path: Path, command: list[str]) -> None:
    """A pull request can commit entries for its own files: the parse of a clean file under the
    key of a bad one. Left in the working tree they are read (the cache trusts its folder); once
    git tracks them, the hook and `ci` read no cache and say why."""
    from conftest import git, run_cli

    git(tmp_path, "init", "-q")
    memory, folder = tmp_path / "memory.md", tmp_path / ".memory-autopsy-cache"
    memory.write_text(CLEAN, encoding="utf-8")
    assert run_cli(*command, cwd=tmp_path).code == 0
    (entry,) = (folder / "v1").glob(f"??/{ENTRIES}")
    memory.write_text(CONFLICT, encoding="utf-8")
    assert run_cli(*command, "--no-cache", cwd=tmp_path).code == 1
    spoofed = ParseCache(folder)._file(ParseCache(folder).key("memory.md", CONFLICT.encode("utf-8")))
    spoofed.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(entry, spoofed)
    assert run_cli(*command, cwd=tmp_path).code == 0  # the spoof works on a cache git does not track

    git(tmp_path, "add", "-f", "memory.md", ".memory-autopsy-cache")
    git(tmp_path, "commit", "-qm", "a pull request with its own cache")
    before = sorted(p.name for p in folder.rglob(ENTRIES))
    run = run_cli(*command, cwd=tmp_path)
    assert run.code == 1, run.out
    assert "contradicted_implicit" in run.out
    assert ".memory-autopsy-cache is committed to git: not read" in run.err
    assert sorted(p.name for p in folder.rglob(ENTRIES)) == before  # nor written


def test_a_line_appended_to_a_jsonl_store_misses_one_span(tmp_path: Path, monkeypatch) -> None:
    """A JSONL store is cached in spans of lines: an append re-reads the last span only, and
    every read, cold, warm or partly warm, equals a parse without the cache."""
    from memory_autopsy.ingest import json_store, loader

    monkeypatch.setattr(loader, "SPAN", 3)  # spans of three records
    monkeypatch.setattr(json_store, "CHUNK", 2)  # decoded two lines at a time
    store = tmp_path / "store.jsonl"
    records = [{"entity": f"svc-{i % 4}", "claim": f"uses redis {i}", "observed_at": f"2026-01-{i + 1:02d}"}
               for i in range(10)]
    lines = [json.dumps(r) for r in records]
    lines.insert(4, "")  # a blank line inside a span
    store.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def read(cache: ParseCache | None) -> tuple[object, ...]:
        source = loader.Source(str(store), store.read_bytes())
        return loader.load_sources([source], cache=cache).facts

    cold = ParseCache(tmp_path / "cache")
    assert read(cold) == read(None) and (cold.misses, cold.written) == (4, 4)
    warm = ParseCache(tmp_path / "cache")
    assert read(warm) == read(None) and (warm.hits, warm.misses) == (4, 0)
    with store.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"entity": "svc-1", "claim": "uses valkey 8"}) + "\n")
    appended = ParseCache(tmp_path / "cache")
    assert read(appended) == read(None) and (appended.hits, appended.misses) == (3, 1)


def test_a_jsonl_store_read_in_spans_shares_its_names_as_one_parse_does(tmp_path: Path, monkeypatch) -> None:
    """Cold (spans parsed) or warm (entries decoded), a store's facts hold one copy of each
    entity, observation, source, shape and kind, as a parse without the cache does: the engine
    compares and hashes them on every pass over the store."""
    from memory_autopsy.ingest import loader

    monkeypatch.setattr(loader, "SPAN", 3)
    store = tmp_path / "store.jsonl"
    records = [{"id": f"f{i}", "entity": f"svc-{i % 2}", "slot": "", "value": "", "claim": f"uses redis {i}",
                "observed_at": f"2026-01-0{i % 3 + 1}", "valid_from": None, "valid_to": None,
                "source": f"ticket-{i % 2}", "source_class": "primary", "fidelity": "PARTIAL", "status_verb": None}
               for i in range(12)]
    store.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    def copies(cache: ParseCache | None) -> list[int]:
        facts = loader.load_sources([loader.Source(str(store), store.read_bytes())], cache=cache).facts
        return [len({id(getattr(f, name)) for f in facts})
                for name in ("entity", "written_entity", "observed_at", "source", "shape", "kind")]

    plain = copies(None)
    assert plain == [2, 2, 3, 2, 1, 1]
    assert copies(ParseCache(tmp_path / "cache")) == plain  # cold: four spans parsed
    warm = ParseCache(tmp_path / "cache")
    assert copies(warm) == plain and warm.hits == 4


def test_a_label_settled_by_another_file_reads_alike_warm(tmp_path: Path, monkeypatch) -> None:
    """What a draft derives (slot, id, normalized body) is cached with the entity and body it was
    derived from: a label that another file declares an entity changes both after the cache,
    and the warm run derives it again; an unchanged store derives nothing warm, settled or not."""
    from memory_autopsy.ingest import records

    (tmp_path / "a.md").write_text("- Payments: handled by the ledger team\n", encoding="utf-8")
    declares = tmp_path / "b.md"
    paths = [str(tmp_path / "a.md"), str(declares)]
    derive = records.derive
    derived: list[str] = []
    monkeypatch.setattr(records, "derive", lambda draft, *words: derived.append(draft.path) or derive(draft, *words))
    for text in ("# Notes\n- runs nightly\n", "# Notes\n## Payments\n- runs nightly\n", "# Notes\n- runs nightly\n"):
        declares.write_text(text, encoding="utf-8")
        settled = "## Payments" in text
        for cache in (tmp_path / "fresh", tmp_path / "kept"):  # each store cold, and after another
            if cache.name == "fresh":
                shutil.rmtree(cache, ignore_errors=True)
            cached = Settings(parse_cache=str(cache))
            warm = load_store(paths, cached).facts
            assert warm == load_store(paths, Settings()).facts
            (payments,) = [f for f in warm if f.path.endswith("a.md")]
            assert (payments.entity == "Payments") is settled
            assert payments.norm == ("handled by the ledger team" if settled else "payments handled by the ledger team")
            derived.clear()
            assert load_store(paths, cached).facts == warm
            assert not derived  # unchanged: every draft read with the derivation cached for it


def test_a_warm_run_of_an_unchanged_store_rewrites_no_entry(tmp_path: Path) -> None:
    """Labels settled or not, an unchanged store's entries already hold what each draft needs."""
    from memory_autopsy.ingest import loader

    (tmp_path / "a.md").write_text("- Payments: handled by the ledger team\n- Notes: see the wiki\n",
                                   encoding="utf-8")
    (tmp_path / "b.md").write_text("# Notes\n## Payments\n- runs nightly\n", encoding="utf-8")

    def read(cache: ParseCache) -> tuple[object, ...]:
        sources = [loader.Source(str(p), p.read_bytes()) for p in sorted(tmp_path.glob("*.md"))]
        return loader.load_sources(sources, cache=cache).facts

    cold = ParseCache(tmp_path / "cache")
    facts = read(cold)
    assert cold.written == 2 and any(f.entity == "Payments" for f in facts)
    warm = ParseCache(tmp_path / "cache")
    assert read(warm) == facts and (warm.hits, warm.written) == (2, 0)


def test_look_alike_names_are_kept_and_a_bad_entry_is_computed_again(tmp_path: Path, monkeypatch) -> None:
    """The look-alike pairs depend on the store's entity names alone: a warm run with the same
    names reads them from the cache; another name set, or a damaged entry, computes them."""
    from memory_autopsy.ingest import aliases

    monkeypatch.setattr(aliases, "MEMO_NAMES", 2)  # a real store holds thousands before it pays
    memory = tmp_path / "m.jsonl"
    memory.write_text('{"entity": "Billing Service", "claim": "uses PostgreSQL 14"}\n'
                      '{"entity": "Biling Service", "claim": "runs nightly"}\n', encoding="utf-8")
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    pairs = load_store([str(memory)], cached).alias_pairs
    assert pairs == load_store([str(memory)], Settings()).alias_pairs and len(pairs) == 1
    computed = []
    real = aliases._look_alikes
    monkeypatch.setattr(aliases, "_look_alikes", lambda names: computed.append(names) or real(names))
    assert load_store([str(memory)], cached).alias_pairs == pairs and not computed
    entry = memo_entry(tmp_path / "cache")
    for damaged in (*(b"".join(entry_parts(v)) for v in ({"result": [["a", "b"]], "drafts": []}, {"result": 7})), b"{"):
        entry.write_bytes(damaged)
        assert load_store([str(memory)], cached).alias_pairs == pairs and len(computed) == 1
        computed.clear()
    assert load_store([str(memory)], cached).alias_pairs == pairs and not computed  # rewritten
    with memory.open("a", encoding="utf-8") as handle:
        handle.write('{"entity": "Billing Servic", "claim": "another look-alike"}\n')
    # one look-alike more: "Billing Servic" of "Billing Service"; "Biling Service" differs from it in two words
    assert len(load_store([str(memory)], cached).alias_pairs) == 2 and len(computed) == 1


@pytest.mark.parametrize("seed", range(60))
def test_jsonl_spans_are_the_lines_cut_every_chunk_non_blank_lines(monkeypatch, seed: int) -> None:
    """Spans are found without splitting the store's lines where none is blank or starts with a
    space (newlines counted), and by its lines otherwise: both ways cut as the lines split and
    joined do, of lines short and long, blank and whitespace lines or none, a missing or doubled
    final newline, no record at all."""
    import random

    from memory_autopsy.ingest import loader

    rng = random.Random(seed)
    chunk = rng.choice([1, 2, 3, 7, 50])
    monkeypatch.setattr(loader, "SPAN", chunk)
    blanks = [b"", b"  ", b"\t", b" {}", b"\r"] if seed % 3 == 0 else []

    def line() -> bytes:
        if blanks and rng.random() < 0.2:
            return rng.choice(blanks)
        return rng.choice([b'{"entity": "a", "claim": "x"}', b"{}", b"not json", b"x" * rng.randrange(1, 400)])

    body = b"\n".join(line() for _ in range(rng.randrange(0, 200))) + rng.choice([b"", b"\n", b"\n\n", b"\n "])
    lines = body.split(b"\n")
    starts = [i for i, line in enumerate(lines) if line and not line.isspace()][::chunk] + [len(lines)]
    expected = [(start, b"\n".join(lines[start:end])) for start, end in zip(starts, starts[1:])]
    assert [(start, bytes(data)) for start, data in loader._spans(body)] == expected


def test_an_entry_is_written_through_a_new_file_never_an_existing_one(tmp_path: Path, monkeypatch) -> None:
    """The temporary file an entry is written to is made new (as tempfile.mkstemp makes one):
    a file or link left under the same name by a killed run is passed over, never written."""
    import os
    import stat
    import types

    from memory_autopsy import cachedir

    monkeypatch.setattr(cachedir, "time", types.SimpleNamespace(monotonic_ns=lambda: 7, time=cachedir.time.time))
    monkeypatch.setattr(cachedir, "_NAMES", iter([0, 0, 1, 2]))
    left = tmp_path / f".entry.{os.getpid()}.7.0.tmp"
    left.write_text("left by a killed run", encoding="utf-8")
    (tmp_path / f".entry.{os.getpid()}.7.1.tmp").symlink_to(tmp_path / "elsewhere")
    fd, name = cachedir._new_file(str(tmp_path))
    os.close(fd)
    assert name == str(tmp_path / f".entry.{os.getpid()}.7.2.tmp")
    assert stat.S_IMODE(os.stat(name).st_mode) == 0o600
    assert left.read_text(encoding="utf-8") == "left by a killed run" and not (tmp_path / "elsewhere").exists()
    monkeypatch.setattr(cachedir, "_NAMES", iter([0] * 100))
    assert not cachedir.write_atomic(tmp_path / "entry.json", lambda handle: handle.write("{}"))  # no new name


def test_a_write_that_fails_leaves_no_temporary_file_and_no_entry(tmp_path: Path) -> None:
    from memory_autopsy.cachedir import write_atomic

    def broken(handle: object) -> None:
        raise ValueError("cannot encode")

    target = tmp_path / "v1" / "ab" / "entry.json"
    assert write_atomic(target, broken) is False
    assert not target.exists() and not list(target.parent.iterdir())
    assert write_atomic(target, lambda handle: handle.write("{}")) is True
    assert target.read_text(encoding="utf-8") == "{}" and len(list(target.parent.iterdir())) == 1


def test_a_fact_digest_is_its_values_not_its_objects() -> None:
    """The memo keys a cached fact by this digest, kept in the entry and compared in later
    runs: the same values digest alike in any process (new objects, interned strings, another
    hash seed); any field but the order changes it."""
    from memory_autopsy.ingest.records import row_digest
    from memory_autopsy.model import Fact, Fidelity

    fact = max(load_store([str(EXAMPLES)]).facts, key=lambda f: len(f.aliases))
    assert fact.aliases  # a tuple field with something in it
    rebuilt = Fact(*[sys.intern("".join(v)) if type(v) is str else v for v in fact])
    assert rebuilt == fact and rebuilt.claim is not fact.claim
    assert row_digest(rebuilt) == row_digest(fact) == row_digest(fact._replace(order=fact.order + 7))
    changed = {
        str: lambda v: v + "x", int: lambda v: v + 1, bool: lambda v: not v, tuple: lambda v: (*v, "x"),
        type(None): lambda v: "x", Fidelity: lambda v: next(f for f in Fidelity if f is not v),
    }
    seen = {row_digest(fact)}
    for name in Fact._fields:
        if name != "order":
            value = getattr(fact, name)
            seen.add(row_digest(fact._replace(**{name: changed[type(value)](value)})))
    assert len(seen) == len(Fact._fields)  # every field but the order made a digest of its own

    class Text(str):
        pass

    odd = row_digest(fact._replace(claim=Text(fact.claim)))  # marshal cannot write it: repr does
    assert len(odd) == 24 and odd not in seen
    script = ("import sys, json; sys.path.insert(0, sys.argv[1]); from memory_autopsy.model import Fact, Fidelity;"
              "from memory_autopsy.ingest.records import row_digest;"
              "v = json.loads(sys.stdin.read()); v[10] = Fidelity(v[10]); v[14] = tuple(v[14]); v[18] = tuple(v[18]);"
              "print(row_digest(Fact(*v)))")
    values = [f.value if isinstance(f, Fidelity) else f for f in fact]
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", script, str(SRC)], input=json.dumps(values), text=True,
                              capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.stdout.strip() == row_digest(fact)


FRONT = "---\nname: Billing Database\ndescription: which database billing uses\ntype: project\n---\n\n"


def _front_matter_file(folder: Path, front: str = FRONT) -> Path:
    (folder / "memory").mkdir(exist_ok=True)
    note = folder / "memory" / "note.md"
    note.write_text(front + "- uses PostgreSQL 14 for invoices\n- moved to MySQL 8 in 2026-02\n", encoding="utf-8")
    return note


def _lint_in_a_process(folder: Path, note: Path) -> tuple[str, bool]:
    """A run through the cache in a process of its own: its report as JSON, and whether it
    imported PyYAML."""
    code = (
        "import sys; from memory_autopsy.api import lint; from memory_autopsy.settings import Settings; "
        "from memory_autopsy.formatters import json_format; "
        "r = lint([sys.argv[1]], Settings(parse_cache=sys.argv[2])); "
        "print(json_format.format_report(r)); print('yaml' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code, str(note), str(folder / "cache")], env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    report, _, imported = done.stdout.rstrip("\n").rpartition("\n")
    return report, imported == "True"


def _plain_report(note: Path) -> str:
    from memory_autopsy.formatters import json_format

    return json_format.format_report(lint([str(note)], Settings()))


def test_an_edit_below_unchanged_front_matter_reads_it_back_without_yaml(tmp_path: Path) -> None:
    """The front matter's mapping is kept by its text: the next run after an edit to the body
    (a commit to a memory file) reads it back and never imports PyYAML; a changed front matter
    is read again; every report is a run's without the cache."""
    note = _front_matter_file(tmp_path)
    report, imported = _lint_in_a_process(tmp_path, note)
    assert imported and report == _plain_report(note)
    with note.open("a", encoding="utf-8") as handle:
        handle.write("- the nightly export runs at 02:00\n")
    report, imported = _lint_in_a_process(tmp_path, note)
    assert not imported and report == _plain_report(note)
    assert '"Billing Database"' in report  # the front matter named the entity
    note.write_text(note.read_text(encoding="utf-8").replace("Billing Database", "Ledger"), encoding="utf-8")
    report, imported = _lint_in_a_process(tmp_path, note)
    assert imported and report == _plain_report(note) and '"Ledger"' in report


def test_front_matter_json_cannot_give_back_is_read_each_time(tmp_path: Path) -> None:
    """A date (PyYAML makes it a `datetime.date`) or a nested key that is not a string would
    come back from JSON as another value: such a mapping is not kept, and every run reads it
    with PyYAML."""
    for front in ("---\nname: Ledger\nupdated: 2026-01-05\n---\n\n", "---\nname: Ledger\nmetadata:\n  1: one\n---\n\n"):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        note = _front_matter_file(folder, front)
        for _ in range(2):
            report, imported = _lint_in_a_process(folder, note)
            assert imported and report == _plain_report(note)
            with note.open("a", encoding="utf-8") as handle:
                handle.write("- another line\n")


def test_a_damaged_front_matter_entry_is_read_again_and_rewritten(tmp_path: Path) -> None:
    note = _front_matter_file(tmp_path)
    cached = Settings(parse_cache=str(tmp_path / "cache"))
    expected = _plain_report(note)
    lint([str(note)], cached)
    entry = memo_entry(tmp_path / "cache")
    from memory_autopsy.formatters import json_format

    for damaged in (*(b"".join(entry_parts(v)) for v in ({"result": [["name", {"1": 2, "x": [1.5, None]}], 7], "drafts": []},
                                                 {"result": [["name"]], "drafts": []},
                                                 {"result": [[1, "x"]], "drafts": []},
                                                 {"result": [("name", "x")], "drafts": []})), b"{"):
        entry.write_bytes(damaged)
        with note.open("a", encoding="utf-8") as handle:  # the file's own entry misses
            handle.write("- one more line\n")
        expected = _plain_report(note)
        assert json_format.format_report(lint([str(note)], cached)) == expected
        assert entry.read_bytes() != damaged  # rewritten
