"""Forked children that cannot hang (memory_autopsy.parallel, issue 43, item 3): a child holds
no pipe but its own, so it sees EPIPE once the parent stops reading it; every wait on a child
is bounded; running out of memory while a child's pieces come in ends the run (the part done
again in this process, or exit 3), never leaves it waiting. A hang fails these tests by a
subprocess's timeout instead of stopping the suite."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from conftest import SRC
from memory_autopsy import parallel

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                                reason="forking is POSIX only (jobs_of runs one process elsewhere)")

# Long enough for a loaded machine, short beside a hang (which never ends).
TIMEOUT = 90
# Records in a store whose children each send more than a pipe holds (64 KiB) in every part.
RECORDS = 6000


def _endless() -> Iterator[bytes]:
    """A child's work that never ends: it fills its pipe and waits there for the parent."""
    while True:
        yield b"x" * 65536


def _pipe_of(fd: int, pid: int | str = "self") -> str:
    return os.readlink(f"/proc/{pid}/fd/{fd}")


def _ended_by_itself(pid: int, seconds: float) -> int | None:
    """The exit code of `pid` if it exits within `seconds` (None: it did not, or was killed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        time.sleep(0.01)
    return None


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads the open files in /proc")
def test_a_child_holds_no_pipe_of_an_earlier_child() -> None:
    first, second = parallel.fork(_endless), parallel.fork(_endless)
    try:
        pieces = second.pieces()  # kept: a generator closed early stops its child
        assert next(pieces)  # the second child runs its work: it is past the fork
        first_pipe = _pipe_of(first.read)
        held = {_pipe_of(fd, second.pid) for fd in map(int, os.listdir(f"/proc/{second.pid}/fd"))}
        assert first_pipe.startswith("pipe:") and first_pipe not in held
    finally:
        parallel.stop([first, second])


def test_a_child_whose_pipe_the_parent_closes_ends_by_itself() -> None:
    """The parent stops reading the first child (it closes its end) while a second runs: the
    first gets EPIPE on its next write and exits with 1, nothing else holding its pipe open."""
    first, second = parallel.fork(_endless), parallel.fork(_endless)
    pid = first.pid
    try:
        pieces = second.pieces()
        assert next(pieces)
        os.close(first.read)
        first.pid, first.read = 0, -1  # closed and reaped here, not by stop()
        assert _ended_by_itself(pid, 30) == 1
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:  # already reaped
            pass
        second.stop()


def test_a_child_that_stays_after_its_last_piece_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the last piece is in, the wait for the child's exit is bounded: one that does not
    exit is killed and reaped, and counts as failed (the caller does its part again)."""
    real_exit = os._exit

    def lingering(code: int) -> None:  # the child's exit, after its last piece is sent
        time.sleep(TIMEOUT)
        real_exit(code)

    monkeypatch.setattr(os, "_exit", lingering)
    monkeypatch.setattr(parallel, "EXIT_WAIT", 0.1)
    child = parallel.fork(lambda: [[1, 2]])
    pid, got = child.pid, []
    with pytest.raises(parallel.ChildFailed):
        got += child.pieces()
    assert got == [[1, 2]]
    with pytest.raises(ChildProcessError):  # reaped
        os.waitpid(pid, os.WNOHANG)


def _store(path: Path, records: int, canonical: bool) -> Path:
    """Records over many services. Canonical ones (every field, an id) are read in parts whose
    rows come back from the children derived; drafts are derived by children of their own."""
    lines = []
    for i in range(records):
        service, day = f"svc-{i % 300}", f"2026-{1 + i // 300 % 12:02d}-{1 + i % 28:02d}"
        slot, value = ("database", f"PostgreSQL {12 + i % 4}") if i % 2 else ("", "")
        claim = f'{slot} = "{value}"' if slot else f"the {service} deploy pipeline {i} runs nightly on the blue cluster"
        record: dict[str, object] = {"entity": service, "slot": slot, "value": value, "claim": claim,
                                     "observed_at": day}
        if canonical:
            record.update(id=f"fact{i:06d}", valid_from=None, valid_to=None, source="ops",
                          source_class="unclassified", fidelity="FULL" if slot else "PARTIAL", status_verb=None)
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


# Run in a process of its own: a hang ends at the timeout. With 3 jobs two children run at
# once, each with more to send than a pipe holds. `api`: the report of 3 jobs against that of
# one, this process out of memory taking in a child's piece: the first piece (a reading part's
# head), the first list of rows (read or derived), the first child's findings (before any of
# it is read; `twice`: and again as its part is judged here), or every piece. `cli`: `scan --jobs 3` with a child's values failing to derive
# here, past the unpickling.
SCRIPT = """
import os, pickle, sys
from memory_autopsy import parallel
from memory_autopsy.engine import run
from memory_autopsy.ingest import loader

mode, path, target = sys.argv[1:]
parallel.MIN_ITEMS, loader.PIECE = 0, 100
parent, load, taken = os.getpid(), pickle.load, []

def matches(piece):
    if target == "head":
        return True
    return type(piece) is list and target == "rows"

def out_of_memory(*args, **kwargs):
    if target.startswith("findings") and judging and not taken:  # before the child's findings come in
        taken.append(None)
        raise MemoryError
    piece = load(*args, **kwargs)
    if os.getpid() == parent and (target == "every" or not taken and matches(piece)):
        taken.append(piece)
        raise MemoryError
    return piece

def judged(*args):
    if os.getpid() == parent:
        if target == "findings twice" and taken:  # the part done again here runs out as well
            raise MemoryError
        judging.append(True)
    return per_entity(*args)

per_entity, judging = run.per_entity, []
run.per_entity = judged

if mode == "api":
    from memory_autopsy.api import lint
    from memory_autopsy.formatters.json_format import format_report
    from memory_autopsy.settings import Settings

    one = format_report(lint([path], Settings(jobs=1)))
    judging.clear()
    pickle.load = out_of_memory
    try:
        three = format_report(lint([path], Settings(jobs=3)))
    except MemoryError:
        three = "MemoryError"
    try:
        os.waitpid(-1, os.WNOHANG)
        reaped = False
    except ChildProcessError:
        reaped = True
    print(three == one or three, bool(taken), reaped)
else:
    from memory_autopsy import cli

    def not_derived(*args):
        raise MemoryError
    loader.finish_sent = not_derived
    sys.argv = ["memory-autopsy", "scan", path, "--jobs", "3", "--json", "--no-cache"]
    cli.entry()
"""


def _limited(limit: int) -> None:
    """In the child process before it runs python: its address space bounded (`ulimit -v`)."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _script(folder: Path) -> str:
    path = folder / "script.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return str(path)


def _scripted(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("MEMORY_AUTOPSY_TRACEBACK", None)
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=TIMEOUT,
                          preexec_fn=None if limit is None else partial(_limited, limit))


@pytest.mark.parametrize(("canonical", "target"), [(True, "head"), (True, "rows"), (False, "rows"),
                                                (True, "findings"), (False, "every")])
def test_out_of_memory_unpickling_a_piece_does_the_part_here(canonical: bool, target: str, tmp_path: Path) -> None:
    """This process runs out of memory taking in a child's piece (read, derived or judged, or
    every piece): that child is killed and its part done here, the other child ends alike,
    and the report is the one a single process makes."""
    store = _store(tmp_path / "store.jsonl", RECORDS, canonical)
    done = _scripted(_script(tmp_path), "api", str(store), target)
    assert (done.returncode, done.stdout.split()) == (0, ["True", "True", "True"]), done.stderr[-2000:]


def test_out_of_memory_again_in_the_fallback_leaves_no_child(tmp_path: Path) -> None:
    """The part of a child this process failed to take in runs out of memory again here: the
    error goes on, and the other child, whose pieces nobody will read, is stopped and reaped."""
    store = _store(tmp_path / "store.jsonl", RECORDS, canonical=True)
    done = _scripted(_script(tmp_path), "api", str(store), "findings twice")
    assert (done.returncode, done.stdout.split()) == (0, ["MemoryError", "True", "True"]), done.stderr[-2000:]


def test_out_of_memory_taking_a_childs_values_exits_3(tmp_path: Path) -> None:
    """Out of memory deriving what a child sent (past the unpickling): exit 3 and one line."""
    store = _store(tmp_path / "store.jsonl", RECORDS, canonical=False)
    done = _scripted(_script(tmp_path), "cli", str(store), "none")
    assert done.returncode == 3
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


# `scan` run once to learn the most address space it takes (VmPeak), then again with less.
PEAK = """
import sys
from memory_autopsy import cli
cli.main(sys.argv[2:])
status = open("/proc/self/status").read().split("\\n")
open(sys.argv[1], "w").write(next(line for line in status if line.startswith("VmPeak")).split()[1])
"""
# Shares of that peak, each of which a store of 12k records ran out of part way, with 2 jobs
# and with 3 (past the start: the runs had forked). Before a child held only its own pipe,
# 3 jobs hung at 0.89; before the run's frames were freed to report the error, both ended in a
# traceback and exit 1 at the first of these they ran out at.
SHARES = (0.86, 0.89, 0.92, 0.95)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc")
@pytest.mark.parametrize("jobs", ["2", "3"])
def test_scan_out_of_memory_ends(jobs: str, tmp_path: Path) -> None:
    """`scan --jobs N` on a store large enough to fork, with an address space (`ulimit -v`)
    that runs out part way, at several points: each run ends, with the report and exit 0
    or 1, or with exit 3 and one line; never a traceback, never a hang."""
    store = _store(tmp_path / "store.jsonl", parallel.MIN_ITEMS * 6 // 5, canonical=False)
    args = ("scan", str(store), "--jobs", jobs, "--json", "--no-cache")
    peak = tmp_path / "peak"
    (tmp_path / "peak.py").write_text(PEAK, encoding="utf-8")
    assert _scripted(str(tmp_path / "peak.py"), str(peak), *args).returncode == 0
    codes = []
    for share in SHARES:
        done = _scripted("-m", "memory_autopsy", *args, limit=int(int(peak.read_text()) * 1024 * share))
        codes.append(done.returncode)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1, 3), (share, done.stderr[-2000:])
        if done.returncode == 3:
            assert len(done.stderr.splitlines()) == 1 and not done.stdout
        else:
            assert json.loads(done.stdout)["findings"]
    assert 3 in codes  # the memory ran out


# A run that runs out of memory where a generator it dropped fails in its own clean-up too:
# the interpreter reports that echo as "Exception ignored in: <generator …>" and a traceback.
ECHO = """
import sys
from memory_autopsy import cli

def words():
    try:
        yield "word"
    finally:
        raise MemoryError

def run(argv):
    pending = words()
    next(pending)
    del pending  # closed here: its clean-up raises, where no caller can catch it
    raise MemoryError

cli._run = run
sys.exit(cli.main(["scan", "."]))
"""


def test_out_of_memory_echoed_by_a_clean_up_is_still_one_line(tmp_path: Path) -> None:
    """Out of memory, a generator freed on the way out may fail in its clean-up: the run still
    ends with exit 3 and one line, never the interpreter's traceback of the echo."""
    script = tmp_path / "echo.py"
    script.write_text(ECHO, encoding="utf-8")
    done = _scripted(str(script))
    assert done.returncode == 3, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr


class _NoMemoryEnviron(dict):  # type: ignore[type-arg]
    def get(self, *args: object) -> object:
        raise MemoryError


def test_the_unraisable_hook_itself_out_of_memory_reports_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Out of memory, the hook that leaves out a clean-up's echo may run out itself (reading the
    environment allocates): it still reports nothing, where the interpreter would print
    "Exception ignored in: <function _unraisable …>" beside the run's one line."""
    from types import SimpleNamespace

    from memory_autopsy import cli

    monkeypatch.setattr(cli.os, "environ", _NoMemoryEnviron())
    cli._unraisable(SimpleNamespace(exc_value=MemoryError(), exc_type=MemoryError, exc_traceback=None,
                                    err_msg=None, object=None))
    assert capsys.readouterr() == ("", "")
