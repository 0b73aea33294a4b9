"""More than one process on a large store (memory_autopsy.parallel): the store is read, its
facts derived and its entities judged in forked children, and the report is the one a single process makes, even
when a child fails. Forking needs POSIX: elsewhere `jobs_of` keeps everything in the process."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from pathlib import Path

import pytest

from conftest import run_cli
from memory_autopsy import parallel
from memory_autopsy.api import lint
from memory_autopsy.engine import run as engine_run
from memory_autopsy.formatters.json_format import format_report
from memory_autopsy.ingest import loader, markdown
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.settings import Settings
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="forking is POSIX only (jobs_of runs one process elsewhere)")

FACTS = 1200


def _jsonl(path: Path) -> Path:
    """Records over 60 services: slots with other values at other dates, prose said twice in
    other words, retractions and exact copies, so every per-entity layer has findings."""
    lines = []
    for i in range(FACTS):
        service, day = f"svc-{i % 60}", f"2026-{1 + i // 60 % 12:02d}-{1 + i % 28:02d}"
        kind = i // 60 % 5
        if kind == 0:
            lines.append({"entity": service, "slot": "database", "value": f"PostgreSQL {12 + i // 60 % 4}",
                          "observed_at": day})
        elif kind == 1:
            lines.append({"entity": service, "claim": f"the {service} deploy pipeline runs nightly on the "
                          "blue cluster and pages the platform team", "observed_at": day})
        elif kind == 2:
            lines.append({"entity": service, "claim": f"nightly the {service} deploy pipeline runs on the "
                          "blue cluster and it pages the platform team", "observed_at": day})
        elif kind == 3:
            lines.append({"entity": service, "claim": "the session cache runs on Redis", "observed_at": day})
        else:
            lines.append({"entity": service, "claim": "switched from Redis to Valkey for the session cache",
                          "observed_at": day})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _canonical(path: Path, drafts_from: int = FACTS) -> Path:
    """The same records in the canonical shape a large store has (every field, an id), which
    a child reads and derives whole; the lines from `drafts_from` on as they were (drafts)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        record = json.loads(line)
        if i < drafts_from:
            slot, value = record.get("slot", ""), record.get("value", "")
            record = {"id": f"fact{i:05d}", "entity": record["entity"], "slot": slot, "value": value,
                      "claim": record.get("claim") or f'{slot} = "{value}"', "observed_at": record["observed_at"],
                      "valid_from": None, "valid_to": None, "source": "ops" if i % 3 else None,
                      "source_class": "unclassified", "fidelity": "FULL" if slot else "PARTIAL", "status_verb": None}
        out.append(json.dumps(record) + "\n")
    out.insert(FACTS * 3 // 4, "42\n")  # a problem in a child's part, numbered as one process numbers it
    path.write_text("".join(out), encoding="utf-8")
    return path


def _markdown(path: Path) -> Path:
    """Bullets under headings, `Label: rest` lines the store settles, prose the reader derives,
    and a dated claim written twice (a copy the entity layers find)."""
    out = []
    for i in range(FACTS // 4):
        service = f"svc-{i % 40}"
        out.append(f"## {service}\n\n" if i % 10 == 0 else "")
        out.append(f"- {service}: uses PostgreSQL {12 + i % 4} for the billing store (2026-0{1 + i % 9}-0{1 + i % 8})\n")
        out.append(f"- migrated {service} from MySQL 5 to MySQL 8 (2026-0{1 + i % 9}-1{i % 8})\n")
        out.append(f"- Owner: team {'abcde'[i % 5]} owns {service}\n")
        out.append(f"- the {service} nightly job runs on the blue cluster\n")
        out.append(f"- {service}: uses PostgreSQL {12 + i % 4} for the billing store (2026-0{1 + i % 9}-0{1 + i % 8})\n")
    path.write_text("".join(out), encoding="utf-8")
    return path


# The children a run with 2 jobs starts: reading, deriving, judging. A JSONL store of
# canonical records is read in parts whose records come back derived, so it starts no child
# to derive them; a part with drafts is read again here and derived by a child.
CHILDREN = {"canonical": 2, "canonical then drafts": 3, "drafts": 3, "markdown": 3}


def _store(kind: str, folder: Path) -> Path:
    if kind == "markdown":
        return _markdown(folder / "notes.md")
    path = _jsonl(folder / f"{kind.replace(' ', '-')}.jsonl")
    if kind == "canonical":
        return _canonical(path)
    return _canonical(path, FACTS * 3 // 4) if kind == "canonical then drafts" else path


@pytest.fixture(params=list(CHILDREN))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return _store(request.param, tmp_path)


def _children(store: Path, jobs: int) -> int:
    name = store.stem.replace("-", " ")
    return CHILDREN["markdown" if store.suffix == ".md" else name] * (jobs - 1)


@pytest.fixture(autouse=True)
def small_stores_fork(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork at any size, children send many pieces, and count the children started."""
    monkeypatch.setattr(parallel, "MIN_ITEMS", 0)
    monkeypatch.setattr(loader, "PIECE", 100)
    started: list[int] = []
    fork = parallel.fork

    def counted(work):  # type: ignore[no-untyped-def]
        child = fork(work)
        started.append(child.pid)  # 0: not started
        return child

    monkeypatch.setattr(parallel, "fork", counted)
    return started


def _report(store: Path, jobs: int) -> tuple[str, tuple[object, ...]]:
    """The report as `scan --json` prints it, and every fact with every field."""
    report = lint([str(store)], Settings(jobs=jobs))
    return format_report(report), report.facts


@pytest.mark.parametrize("jobs", [2, 3])
def test_more_jobs_report_what_one_does(store: Path, jobs: int, small_stores_fork: list[int]) -> None:
    one = _report(store, 1)
    assert small_stores_fork == []
    assert _report(store, jobs) == one
    # reading, deriving and judging each started jobs - 1 children (or none: CHILDREN), every one
    assert len(small_stores_fork) == _children(store, jobs) and all(small_stores_fork)
    assert len(json.loads(one[0])["findings"]) > 40
    assert ("must be an object" in one[0]) is ("canonical" in store.stem)


def test_a_child_that_fails_costs_no_findings(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = _report(store, 1)
    parent = os.getpid()
    sent, part_sent = loader._sent, loader._part_sent

    def cut_short(*args):  # type: ignore[no-untyped-def]
        pieces = sent(*args)
        yield next(pieces)
        os._exit(0)  # a clean exit before its last piece: the pipe ends early

    def part_cut_short(*args):  # type: ignore[no-untyped-def]
        pieces = part_sent(*args)
        yield next(pieces)
        yield next(pieces, None)
        os._exit(0)

    def failing(*args):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            raise RuntimeError("a child's failure")
        return [engine_run.per_entity(*args)]

    def markdown_cut_short(*args):  # type: ignore[no-untyped-def]
        pieces = markdown_sent(*args)
        yield next(pieces)
        yield next(pieces)
        os._exit(0)

    markdown_sent = loader._markdown_sent
    monkeypatch.setattr(loader, "_sent", cut_short)
    monkeypatch.setattr(loader, "_part_sent", part_cut_short)
    monkeypatch.setattr(loader, "_markdown_sent", markdown_cut_short)
    monkeypatch.setattr(engine_run, "_judged_piece", failing)
    assert _report(store, 2) == one


def test_a_child_that_cannot_start_costs_no_findings(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = _report(store, 1)

    def no_fork() -> int:
        raise OSError("no more processes")

    monkeypatch.setattr(os, "fork", no_fork)
    assert _report(store, 2) == one


def test_the_command_line_uses_the_cpus_and_takes_jobs(store: Path, small_stores_fork: list[int]) -> None:
    one = run_cli("scan", str(store), "--json", "--jobs", "1")
    assert one.code in (0, 1) and small_stores_fork == []
    auto = run_cli("scan", str(store), "--json")
    assert auto.out == one.out and len(small_stores_fork) == _children(store, parallel.jobs_of(0, 2))
    assert run_cli("scan", str(store), "--json", "-j", "3").out == one.out
    bad = run_cli("scan", str(store), "--jobs", "-1")
    assert bad.code == 2 and "--jobs" in bad.err


def test_jobs_of() -> None:
    assert parallel.jobs_of(1, 10**6) == 1
    assert parallel.jobs_of(3, 10**6) == 3
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert parallel.jobs_of(0, 10**6) == min(cpus or 1, parallel.MAX_AUTO)


def test_below_the_size_or_beside_a_thread_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_ITEMS", 100)
    assert parallel.jobs_of(4, 99) == 1 and parallel.jobs_of(4, 100) == 4
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.jobs_of(4, 100) == 1
    finally:
        stop.set()
        other.join()


def test_dealt_balances_by_size_in_the_keys_order() -> None:
    sizes = {"a": 1, "b": 50, "c": 20, "d": 20, "e": 5, "f": 4}
    assert parallel.dealt(sizes, 2) == [["b"], ["a", "c", "d", "e", "f"]]
    assert parallel.dealt(sizes, 3) == [["b"], ["c", "e"], ["a", "d", "f"]]  # 50, 25, 25
    assert parallel.dealt({"a": 3}, 4) == [["a"]]


@pytest.mark.parametrize(("kind", "where"), [
    ("canonical", "judging"), ("markdown", "judging"), ("canonical", "reading"),
    ("canonical then drafts", "reading"), ("drafts", "deriving"), ("markdown", "deriving"),
    ("markdown", "reading"),
])
def test_a_failure_beside_the_children_leaves_none(kind: str, where: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   small_stores_fork: list[int]) -> None:
    """This process fails in its own part (a bug in a layer or a reader): the error is raised,
    and the children working beside it are stopped and reaped."""
    store = _store(kind, tmp_path)
    module, name = {"judging": (engine_run.duplicates, "exact"), "reading": (loader, "record_values"),
                    "deriving": (loader, "finish")}[where]
    if (kind, where) == ("markdown", "reading"):
        module, name = markdown, "iter_blocks"
    parent, work = os.getpid(), getattr(module, name)

    def broken(*args):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            raise RuntimeError("a bug")
        return work(*args)

    monkeypatch.setattr(module, name, broken)
    with pytest.raises(RuntimeError, match="a bug"):
        lint([str(store)], Settings(jobs=2))
    assert small_stores_fork
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_the_progress_lines_thread_leaves_the_children_on(store: Path, small_stores_fork: list[int]) -> None:
    """On a terminal the command line draws a progress line from a thread of its own: the run
    still forks (any other thread keeps it in one process), and reports the same."""
    from memory_autopsy.commands.progress import Progress

    one = _report(store, 1)
    with Progress(io.StringIO(), enabled=True, delay=0, interval=0.001) as progress:
        assert _report(store, 2) == one
    assert progress.shown and len(small_stores_fork) == _children(store, 2)


def test_a_child_prints_nowhere(capfd: pytest.CaptureFixture[str]) -> None:
    def loud() -> list[list[int]]:
        print("from the child")
        print("from the child", file=sys.stderr)
        return [[1, 2]]

    child = parallel.fork(loud)
    assert child is not None and list(child.pieces()) == [[1, 2]]
    assert capfd.readouterr() == ("", "")


SECTIONS = 120


def _sectioned(feature: str) -> str:
    """A markdown file of SECTIONS sections, each opening an entry (so a part may start at
    it), with what reaches across a heading written before each: `plain` nothing, the others
    one thing a part starting there must know of what came before it. Labels are used once in
    each half, with a source in the second (settled by the whole file), and written as records
    in the second half only."""
    title = "Notes (2026-01-02)\n==================\n" if feature == "setext" else "# Notes\n"
    out = [title, "- the intake queue is drained nightly\n"]
    if feature in ("file date", "two file dates"):
        out.append("\nLast updated: 2026-03-04\n")
    for i in range(SECTIONS):
        half, pair = divmod(i, SECTIONS // 2)
        undated = feature in ("stamp", "late stamp", "file date", "late file date", "two file dates", "setext")
        if feature in ("fence", "comment") and i in (SECTIONS // 4, SECTIONS * 5 // 6):  # over every cut
            out.append({"fence": ["```\n", "```\n"], "comment": ["<!--\n", "-->\n"]}[feature][i > SECTIONS // 2])
        heading = f"## svc-{i}" if undated else f"## 2026-{1 + i % 9:02d}-{1 + i % 27:02d}"
        if feature == "commented date":  # dated as written, neutral once the comment is read
            heading = f"## Details <!-- 2026-{1 + i % 9:02d}-{1 + i % 27:02d} -->"
        out.append(f"{heading}\n" if feature == "table" else f"\n{heading}\n\n")  # a table's header reaches on
        if feature == "table" and i:
            out.append(f"| svc-{i} | MySQL {i % 3} |\n")
        out.append(f'- svc-{i % 40}: database = "PostgreSQL {12 + i % 4}"\n' if half
                   else f"- Yak-{pair}: the billing batch overnight\n")
        out.append(f"- Zed-{pair}: the blue cluster overnight{' (source: ops)' if half else ''}\n")
        out.append(f"- migrated svc-{i % 40} from MySQL 5 to MySQL 8\n")
        out.append(f"- the svc-{i % 40} nightly job runs on the blue cluster\n")
        if half:
            out.append(f'- Yak-{pair}: owner = "team {pair % 5}"\n')
        if feature == "stamp" or feature == "late stamp" and i >= SECTIONS * 7 // 12:  # "late": after a half
            out.append(f"\n[2026-02-{1 + i % 27:02d}] - deployed the svc-{i % 40} build\n")
        elif feature == "table":
            out.append("\n| service | database |\n|---|---|\n" + f"| svc-{i} | PostgreSQL {i % 4} |\n")
        if i == SECTIONS * 7 // 8 and feature in ("late file date", "two file dates"):  # in the last part
            out.append("\n# Appendix\n\nLast updated: 2026-03-05\n")
    if feature == "ends in a table":  # what the end leaves open reaches no part
        out.append("\n| service | database |\n|---|---|\n| svc-1 | MySQL 8 |\n")
    return "".join(out)


# The jobs with which the parts read in children are taken; with the others the file is read in
# one process. A file date dates every line left undated, in any part ("file date" at the top,
# "late file date" in the last part); a second one is read in one process. A "late stamp" is in
# the last of two parts (it reaches no cut), in the second of three. A heading dated only in a
# comment is no cut: read, it is a neutral heading that opens no entry.
FEATURES = {"plain": {2, 3}, "ends in a table": {2, 3}, "file date": {2, 3}, "late file date": {2, 3},
            "two file dates": set(), "stamp": set(), "late stamp": {2}, "table": set(), "fence": set(),
            "comment": set(), "setext": set(), "commented date": set()}


@pytest.mark.parametrize("feature", list(FEATURES))
@pytest.mark.parametrize("jobs", [2, 3])
def test_a_markdown_file_read_in_parts_reads_as_a_whole(feature: str, jobs: int, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A large markdown file is cut at headings that open an entry. A part read in a child
    starts under the level-1 heading above its cut, with no stamp, code fence, comment or table
    open; where the reading before a cut stands otherwise, the file is read in one process.
    The file date stated in one part dates the undated lines of every part. (Parts of equal
    lines: cuts near a half, or a third and two thirds.)"""
    monkeypatch.setattr(loader, "PARSE_SHARE", 1.0)
    path = tmp_path / "notes.md"
    path.write_text(_sectioned(feature), encoding="utf-8")
    one = _report(path, 1)
    assert _report(path, jobs) == one
    with pytest.raises(ChildProcessError):  # every child reaped, the ones not waited for too
        os.waitpid(-1, os.WNOHANG)
    source = loader.read_sources([str(path)])[0][0]
    read = loader._read_in_parts(source, DEFAULT_VOCABULARY, default_lexicon(), jobs)
    taken = read is not None  # None: the file is read in one process
    assert taken is (jobs in FEATURES[feature])
    if feature == "plain":  # dated lines come back derived (a ready row each), labels settled
        assert sum(type(item) is list for item in read.items()) > SECTIONS
        for body, label in (("the blue", "Zed"), ("the billing", "Yak")):
            assert {f.entity for f in one[1] if f.body.startswith(body)} == {f"{label}-{k}" for k in range(SECTIONS // 2)}
