"""More than one process on a large store (memory_autopsy.parallel): the facts are derived and
the entities judged in forked children, and the report is the one a single process makes, even
when a child fails. Forking needs POSIX: elsewhere `jobs_of` keeps everything in the process."""

from __future__ import annotations

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
from memory_autopsy.ingest import loader
from memory_autopsy.settings import Settings

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


def _markdown(path: Path) -> Path:
    """Bullets under headings, `Label: rest` lines the store settles, prose the reader derives."""
    out = []
    for i in range(FACTS // 4):
        service = f"svc-{i % 40}"
        out.append(f"## {service}\n\n" if i % 10 == 0 else "")
        out.append(f"- {service}: uses PostgreSQL {12 + i % 4} for the billing store (2026-0{1 + i % 9}-0{1 + i % 8})\n")
        out.append(f"- migrated {service} from MySQL 5 to MySQL 8 (2026-0{1 + i % 9}-1{i % 8})\n")
        out.append(f"- Owner: team {'abcde'[i % 5]} owns {service}\n")
        out.append(f"- the {service} nightly job runs on the blue cluster\n")
    path.write_text("".join(out), encoding="utf-8")
    return path


@pytest.fixture(params=["jsonl", "markdown"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return _jsonl(tmp_path / "store.jsonl") if request.param == "jsonl" else _markdown(tmp_path / "notes.md")


@pytest.fixture(autouse=True)
def small_stores_fork(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Fork at any size, children send many pieces, and count the children started."""
    monkeypatch.setattr(parallel, "MIN_ITEMS", 0)
    monkeypatch.setattr(loader, "PIECE", 100)
    started: list[int] = []
    fork = parallel.fork

    def counted(work):  # type: ignore[no-untyped-def]
        child = fork(work)
        started.append(child.pid if child else 0)
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
    # reading and judging each started jobs - 1 children, every one of them
    assert len(small_stores_fork) == 2 * (jobs - 1) and all(small_stores_fork)
    assert len(json.loads(one[0])["findings"]) > 50


def test_a_child_that_fails_costs_no_findings(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = _report(store, 1)
    parent = os.getpid()
    sent = loader._sent

    def cut_short(*args):  # type: ignore[no-untyped-def]
        pieces = sent(*args)
        yield next(pieces)
        os._exit(0)  # a clean exit before its last piece: the pipe ends early

    def failing(*args):  # type: ignore[no-untyped-def]
        if os.getpid() != parent:
            raise RuntimeError("a child's failure")
        return [engine_run.per_entity(*args)]

    monkeypatch.setattr(loader, "_sent", cut_short)
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
    assert auto.out == one.out and len(small_stores_fork) == 2 * (parallel.jobs_of(0, 1) - 1)
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
