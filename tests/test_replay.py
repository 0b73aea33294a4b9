"""The hook's second run (replay.py): the same inputs print the recorded output; any change
to what the run read, asked, listed or heard from git makes it a full run again.

A replayed run is told apart from a full one by tampering with the record: its output is
replaced by a marker, which only a replay can print."""

from __future__ import annotations

import marshal
import os
import random
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import SRC, Result, git, run_process, write
from memory_autopsy import replay
from memory_autopsy.ingest.cache import SUFFIX

CONFLICT = ("- billing: uses PostgreSQL 14 for the billing store (2026-01-05)\n"
            "- billing: uses PostgreSQL 16 for the billing store (2026-03-01)\n")
MARKER = "REPLAYED\n"


def hook(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return run_process("hook", *args, cwd=cwd, env=env)


def records(cwd: Path) -> list[Path]:
    folder = cwd / replay.CACHE_DIR / replay.RUNS
    return sorted(folder.iterdir()) if folder.is_dir() else []


def load(path: Path) -> tuple[Any, ...]:
    record: tuple[Any, ...] = marshal.loads(zlib.decompress(path.read_bytes()))
    return record


def tamper(cwd: Path) -> None:
    """Every record's output becomes MARKER."""
    for path in records(cwd):
        record = list(load(path))
        record[6] = MARKER
        path.write_bytes(zlib.compress(marshal.dumps(tuple(record))))


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A project folder (the hook's working folder) in a folder of its own."""
    write(tmp_path / "project" / "memory" / "notes.md", CONFLICT)
    return tmp_path / "project"


def recorded(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """A full run that leaves one record, tampered with."""
    first = hook(cwd, "memory/notes.md", *args, env=env)
    assert first.code == 1 and "PostgreSQL 14" in first.out, first
    assert len(records(cwd)) == 1
    tamper(cwd)
    return first


def test_second_run_prints_the_first_runs_output(store: Path) -> None:
    first = hook(store, "memory/notes.md")
    second = hook(store, "memory/notes.md")
    assert second == first and first.code == 1 and "accept what is intended" in first.err
    tamper(store)
    third = hook(store, "memory/notes.md")
    assert third == Result(1, MARKER, first.err)
    (store / "memory" / "notes.md").write_text(CONFLICT, encoding="utf-8")  # the same bytes again
    assert hook(store, "memory/notes.md").out == MARKER


def test_no_cache_neither_replays_nor_records(store: Path) -> None:
    first = recorded(store)
    assert hook(store, "memory/notes.md", "--no-cache") == first
    assert len(records(store)) == 1


def _edit(cwd: Path) -> None:
    (cwd / "memory" / "notes.md").write_text(CONFLICT.replace("PostgreSQL 16", "PostgreSQL 17"), encoding="utf-8")


def _new_file(cwd: Path) -> None:
    write(cwd / "memory" / "more.md", "- billing: uses Oracle 19 for the billing store (2026-04-01)\n")


def _rule_file(cwd: Path) -> None:
    write(cwd / "memory-autopsy.toml", '[rules]\ncontradiction = "off"\n')


def _rule_file_above(cwd: Path) -> None:  # found by walking up: no listing of the run shows it
    write(cwd.parent / "memory-autopsy.toml", '[rules]\ncontradiction = "off"\n')


def _baseline(cwd: Path) -> None:
    assert run_process("baseline", cwd=cwd).code == 0


def _removed(cwd: Path) -> None:
    (cwd / "memory" / "notes.md").unlink()
    write(cwd / "memory" / "notes.md", CONFLICT.replace("billing", "billinh"))


@pytest.mark.parametrize("change", [_edit, _new_file, _rule_file, _rule_file_above, _baseline, _removed])
def test_a_changed_input_is_a_full_run(store: Path, change) -> None:  # type: ignore[no-untyped-def]
    recorded(store)
    change(store)
    fresh = hook(store, "memory/notes.md", "--no-cache")
    again = hook(store, "memory/notes.md")
    assert again.out != MARKER and again == fresh
    assert hook(store, "memory/notes.md") == fresh  # and it is recorded in turn


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"MEMORY_AUTOPSY_TRACEBACK": "1"}])
def test_the_environment_it_reads_is_part_of_the_key(store: Path, env: dict[str, str]) -> None:
    recorded(store)
    assert hook(store, "memory/notes.md", env=env).out != MARKER


def test_other_arguments_are_another_record(store: Path) -> None:
    first = recorded(store)
    assert hook(store, "memory/notes.md", "--format", "json").out != MARKER
    assert hook(store, "memory/notes.md", "--quiet").out != MARKER
    assert len(records(store)) == 3
    assert hook(store, "memory/notes.md").out == MARKER != first.out


def test_a_new_day_is_another_key(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded(store)
    monkeypatch.chdir(store)
    monkeypatch.setattr(replay, "_tty", lambda fd: False)  # as the recording process saw them
    argv = ["hook", "memory/notes.md"]
    assert replay.replay(argv) is not None and replay.replay(argv)[1] == MARKER  # type: ignore[index]
    assert replay.replay(argv, today="2099-01-01") is None


def test_a_changed_package_is_another_key(store: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    copy = tmp_path_factory.mktemp("install")
    shutil.copytree(SRC / "memory_autopsy", copy / "memory_autopsy", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(copy)}
    recorded(store, env=env)
    assert hook(store, "memory/notes.md", env=env).out == MARKER
    with open(copy / "memory_autopsy" / "engine" / "run.py", "a", encoding="utf-8") as handle:
        handle.write("# changed\n")
    assert hook(store, "memory/notes.md", env=env).out != MARKER


def test_runs_that_are_not_recorded(store: Path) -> None:
    assert hook(store, "memory/notes.md", "--output", "report.txt").code == 1
    assert hook(store, "-", "--stdin-filename", "memory/notes.md").code in (0, 1)
    assert records(store) == []


def test_a_large_file_changed_just_now_is_not_recorded_then_is(store: Path) -> None:
    big = "".join(f"- service-{i}: uses runtime {i} for its jobs (2026-01-05)\n" for i in range(1500))
    written = time.time()
    write(store / "memory" / "big.md", big)
    assert len(big) > replay.SMALL
    hook(store, "memory/notes.md")
    if time.time() - written < replay.RACY - 0.1:  # the run began within RACY of the write
        assert records(store) == []  # changed in the last RACY seconds and too large to keep
    time.sleep(replay.RACY + 0.1)
    recorded(store)
    assert hook(store, "memory/notes.md").out == MARKER
    (store / "memory" / "big.md").write_text(big.replace("runtime 7 ", "runtime 8 "), encoding="utf-8")
    assert hook(store, "memory/notes.md").out != MARKER  # same size: its times and inode tell


def test_a_damaged_record_is_a_miss_and_is_rewritten(store: Path) -> None:
    first = recorded(store)
    (path,) = records(store)
    path.write_bytes(b"\x00not a record")
    assert hook(store, "memory/notes.md") == first
    (path,) = records(store)
    assert load(path)[6] == first.out


def test_the_folder_keeps_the_newest(tmp_path: Path) -> None:
    folder = tmp_path / replay.CACHE_DIR / replay.RUNS
    for n in range(replay.KEEP + 4):
        assert replay._write(str(folder / f"{n:02d}"), b"x")
        os.utime(folder / f"{n:02d}", ns=(n * 10**9, n * 10**9))
    assert sorted(p.name for p in folder.iterdir()) == [f"{n:02d}" for n in range(4, replay.KEEP + 4)]
    assert (tmp_path / replay.CACHE_DIR / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


def test_in_a_repository_git_is_asked_again(store: Path) -> None:
    git(store, "init", "-q")
    git(store, "add", "memory")
    git(store, "commit", "-qm", "memory")
    recorded(store)
    assert hook(store, "memory/notes.md").out == MARKER
    _new_file(store)  # untracked: only git's listing of the scope shows it
    assert hook(store, "memory/notes.md").out != MARKER
    tamper(store)
    assert hook(store, "memory/notes.md").out == MARKER
    (store / ".gitignore").write_text("memory/more.md\n", encoding="utf-8")
    assert hook(store, "memory/notes.md").out != MARKER


def test_a_record_git_tracks_is_never_read(store: Path) -> None:
    git(store, "init", "-q")
    recorded(store, "--context", "memory/notes.md")  # no listing of the scope: only the check
    assert hook(store, "memory/notes.md", "--context", "memory/notes.md").out == MARKER
    git(store, "add", "-f", replay.CACHE_DIR)
    assert hook(store, "memory/notes.md", "--context", "memory/notes.md").out != MARKER


def test_a_library_changed_in_place_is_another_run(store: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    libraries = tmp_path_factory.mktemp("libraries")  # a module loaded that is not the package's
    write(libraries / "sitecustomize.py", "LOADED = 1\n")
    env = {"PYTHONPATH": f"{SRC}{os.pathsep}{libraries}"}
    recorded(store, env=env)
    assert hook(store, "memory/notes.md", env=env).out == MARKER
    write(libraries / "sitecustomize.py", "LOADED = 2\n")
    assert hook(store, "memory/notes.md", env=env).out != MARKER


def test_each_state_of_the_inputs_keeps_its_record(store: Path) -> None:
    recorded(store)
    _edit(store)
    edited = hook(store, "memory/notes.md")
    assert edited.out != MARKER and len(records(store)) == 2
    (store / "memory" / "notes.md").write_text(CONFLICT, encoding="utf-8")  # back to the first state
    assert hook(store, "memory/notes.md").out == MARKER
    _edit(store)
    assert hook(store, "memory/notes.md") == edited


def test_a_record_that_serves_is_kept_among_the_newest(store: Path) -> None:
    recorded(store)
    (path,) = records(store)
    os.utime(path, (time.time() - 100, time.time() - 100))
    for n in range(replay.KEEP - 1):
        other = path.parent / f"other-{n}"
        other.write_bytes(b"x")
        os.utime(other, (time.time() - 50, time.time() - 50))
    assert hook(store, "memory/notes.md").out == MARKER
    assert replay._write(str(path.parent / "newest"), b"x")  # the folder is pruned to KEEP
    assert path.exists() and len(records(store)) == replay.KEEP


def _recording(folder: Path, work) -> replay.Recorder:  # type: ignore[no-untyped-def]
    """`work()` run under a recorder, as the hook's run would be (the working folder is `folder`)."""
    recorder = replay.Recorder(["hook", "memory/notes.md"])
    recorder.start()
    try:
        work()
    finally:
        recorder.stop()
    recorder.root = str(folder)
    return recorder


def test_what_a_recorder_sees(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(store)

    def work() -> None:
        Path("memory/notes.md").read_bytes()
        os.path.isfile("memory-autopsy.toml")
        os.listdir("memory")

    recorder = _recording(store, work)
    assert set(recorder.files) == {"memory/notes.md"} and recorder.files["memory/notes.md"][1] == CONFLICT.encode()
    assert recorder.kinds[("memory-autopsy.toml", True)] == ("-", 0)
    assert recorder.listings["memory"] == ("notes.md",)
    assert recorder.save(1) and len(records(store)) == 1


@pytest.mark.parametrize("work", [
    lambda: Path("memory/notes.md").write_text(CONFLICT, encoding="utf-8"),  # a write (the same bytes)
    lambda: __import__("subprocess").run(["git", "--version"], capture_output=True),  # not reported
    lambda: os.waitpid(os.fork() or os._exit(0), 0),  # a child that may read anything
], ids=["write", "process", "fork"])
def test_a_run_that_cannot_be_replayed_leaves_no_record(store: Path, work, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(store)
    assert not _recording(store, work).save(0)
    assert records(store) == []


def test_a_run_whose_children_only_compute_is_recorded(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_autopsy import parallel  # a large store's run: its children judge, then send

    monkeypatch.chdir(store)

    def work() -> None:
        Path("memory/notes.md").read_bytes()
        child = parallel.fork(lambda: [[1, 2]])
        assert child is not None and list(child.pieces()) == [[1, 2]]

    assert _recording(store, work).save(1) and len(records(store)) == 1


def test_an_input_that_changed_while_the_run_read_it_leaves_no_record(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(store)
    recorder = _recording(store, lambda: Path("memory/notes.md").read_bytes())
    Path("memory/notes.md").write_text(CONFLICT.replace("14", "15"), encoding="utf-8")
    assert not recorder.save(1) and records(store) == []


def test_a_large_repository_listing_is_kept_as_its_digest(store: Path) -> None:
    for n in range(300):  # git's listing of the scope, longer than a record keeps whole
        write(store / "src" / f"module_{n:03d}_with_a_name_long_enough.py", "")
    git(store, "init", "-q")
    recorded(store)
    (path,) = records(store)
    answers = [seen for _, _, seen in load(path)[5]]
    assert any(len(seen) == 3 and seen[1] > replay.SMALL_ANSWER for seen in answers), answers
    assert hook(store, "memory/notes.md").out == MARKER
    write(store / "src" / "module_999.py", "")  # listed by git: not memory, but the listing differs
    assert hook(store, "memory/notes.md").out != MARKER


def _parse_cache_stamp(cwd: Path) -> list[int]:
    """The parse cache's entries' times: a full run touches what it reads, a replay nothing."""
    folder = cwd / replay.CACHE_DIR / "v1"
    return sorted(p.stat().st_mtime_ns for p in folder.rglob(f"*{SUFFIX}")) if folder.is_dir() else []


LINES = ["- billing: uses PostgreSQL 14 for the billing store (2026-01-05)\n",
         "- billing: uses PostgreSQL 16 for the billing store (2026-03-01)\n",
         "- cache-tier: uses redis 7 (2026-02-01)\n",
         "- cache-tier: uses redis 6 (2026-01-10)\n",
         "- search: uses Elasticsearch 8 (2026-01-02)\n"]


def _mutations(cwd: Path, repository: bool) -> dict[str, Any]:
    def edit(rng: random.Random) -> None:
        write(cwd / "memory" / "notes.md", "".join(rng.sample(LINES, rng.randint(1, len(LINES)))))

    def same_bytes(rng: random.Random) -> None:
        path = cwd / "memory" / "notes.md"
        path.write_bytes(path.read_bytes())

    def other_file(rng: random.Random) -> None:
        path = cwd / "memory" / "other.md"
        if path.exists() and rng.random() < 0.5:
            path.unlink()
        else:
            write(path, rng.choice(LINES))

    def rule_file(rng: random.Random) -> None:
        path = cwd / "memory-autopsy.toml"
        if path.exists():
            path.unlink()
        else:
            write(path, f'[rules]\n{rng.choice(["contradiction", "duplicate", "stale"])} = "off"\n')

    def baseline(rng: random.Random) -> None:
        path = cwd / ".memory-autopsy-baseline.json"
        if path.exists():
            path.unlink()
        else:
            run_process("baseline", cwd=cwd)

    def unrelated(rng: random.Random) -> None:
        write(cwd / "README.md", f"# project {rng.random()}\n")

    def rule_file_above(rng: random.Random) -> None:  # found by walking up, outside a repository
        path = cwd.parent / "memory-autopsy.toml"
        if path.exists():
            path.unlink()
        else:
            write(path, 'include = ["nowhere/*.md"]\n')  # the scope root moves up, and holds nothing

    found: dict[str, Any] = {"edit": edit, "same bytes": same_bytes, "other file": other_file,
                             "rule file": rule_file, "rule file above": rule_file_above, "baseline": baseline,
                             "unrelated": unrelated, "nothing": lambda rng: None}
    if repository:
        def commit(rng: random.Random) -> None:
            git(cwd, "add", "-A")
            git(cwd, "commit", "-qm", "x", "--allow-empty")

        def ignore(rng: random.Random) -> None:
            write(cwd / ".gitignore", rng.choice(["", "memory/other.md\n", "*.toml\n"]))

        found.update(commit=commit, ignore=ignore)
    return found


@pytest.mark.parametrize("repository", [False, True], ids=["folder", "repository"])
def test_a_replay_always_prints_what_a_full_run_prints(store: Path, repository: bool) -> None:
    if repository:
        git(store, "init", "-q")
    mutations = _mutations(store, repository)
    rng = random.Random(11)
    replays = 0
    for step in range(30):
        name = rng.choice(sorted(mutations))
        mutations[name](rng)
        before = _parse_cache_stamp(store)
        run = hook(store, "memory/notes.md")
        replayed = before != [] and _parse_cache_stamp(store) == before
        replays += replayed
        assert run == hook(store, "memory/notes.md", "--no-cache"), (step, name, replayed)
    assert replays >= 3


def test_the_folder_keeps_the_newest_within_its_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay, "KEPT_BYTES", 10)
    folder = tmp_path / replay.CACHE_DIR / replay.RUNS
    for n in range(4):
        assert replay._write(str(folder / f"{n}"), b"x" * (12 if n == 3 else 4))
        os.utime(folder / f"{n}", ns=(n * 10**9, n * 10**9))
    assert sorted(p.name for p in folder.iterdir()) == ["3"]  # the newest, larger than the bound alone
    assert replay._write(str(folder / "4"), b"xxxx")
    os.utime(folder / "4", ns=(9 * 10**9, 9 * 10**9))
    assert replay._write(str(folder / "5"), b"xxxx")
    assert sorted(p.name for p in folder.iterdir()) == ["4", "5"]


def test_a_run_that_printed_more_than_a_record_keeps_is_not_held_nor_recorded(
        store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(store)
    monkeypatch.setattr(replay, "OUTPUT", 100)
    recorder = _recording(store, lambda: print("x" * 60, "y" * 60, sep="\n"))
    assert capsys.readouterr().out == "x" * 60 + "\n" + "y" * 60 + "\n"  # printed all the same
    assert recorder.out == [] and not recorder.save(0) and records(store) == []
    small = _recording(store, lambda: print("z" * 60))
    assert small.out == ["z" * 60, "\n"] and small.save(0) and len(records(store)) == 1


def test_runs_at_once_write_whole_records(store: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    runs = [subprocess.Popen([sys.executable, "-m", "memory_autopsy", "hook", "memory/notes.md"], cwd=store, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = {(*run.communicate(timeout=120), run.returncode) for run in runs}
    (out, _, code), = outputs
    assert code == 1 and records(store) and all(load(path)[6] == out for path in records(store))  # none torn
    tamper(store)
    assert hook(store, "memory/notes.md").out == MARKER


def test_a_project_under_the_interpreters_prefix_is_recorded(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the interpreter's library folders are left out, not its prefix (a project may live
    under /usr/local); a working folder inside a library folder is not recorded at all."""
    monkeypatch.chdir(store)
    monkeypatch.setattr(sys, "prefix", str(store.parent))
    monkeypatch.setattr(sys, "base_prefix", str(store.parent))
    recorder = _recording(store, lambda: Path("memory/notes.md").read_bytes())
    assert "memory/notes.md" in recorder.files and recorder.save(1)
    monkeypatch.setattr(replay, "_homes", lambda: {str(store.parent)})
    inside = _recording(store, lambda: Path("memory/notes.md").read_bytes())
    assert inside.broken and not inside.save(1)
