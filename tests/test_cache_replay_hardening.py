"""The parse cache and the hook's run records against a pull request that plants them: an
entry of the wrong types is a miss, a cache folder that is a link is not used, git never runs
inside the cache folder, and a replay runs only the git commands the hook itself builds."""

from __future__ import annotations

import marshal
import os
import shutil
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import git, run_cli, run_process, write
from memory_autopsy import replay
from memory_autopsy.api import load_store
from memory_autopsy.ingest.cache import SUFFIX, ParseCache, entry_parts, load_entry
from memory_autopsy.ingest.records import DRAFT_FIELDS, FACT_FIELDS
from memory_autopsy.settings import Settings

ENTRIES = f"*{SUFFIX}"
# a fact row (a line no store reads otherwise) and a draft row (a `Label: rest` line)
TWO_ROWS = "- uses PostgreSQL 14 for billing (2026-01-05)\n- Deploy: ship on Fridays\n"
CLEAN = '- billing: database = "PostgreSQL 14" (2026-01-05)\n'
CONFLICT = CLEAN + '- billing: database = "MySQL 8" (2026-01-05)\n'
CI = ("ci", "--no-changed-only", "--format", "text")
COMMANDS = [("hook", "memory.md"), (*CI, "memory.md")]


def plant(entry: Path, value: Any) -> None:
    """An entry with a valid checksum: only its values are wrong."""
    entry.write_bytes(b"".join(entry_parts(value)))


def copy(value: Any) -> Any:
    return marshal.loads(marshal.dumps(value))


def repository(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "memory.md").write_text(text, encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", "memory.md")
    git(folder, "commit", "-qm", "memory")
    return folder


def row_at(entry: dict[str, Any], size: int) -> int:
    return next(i for i, row in enumerate(entry["drafts"]) if len(row) == size)


FACT_ROW, DRAFT_ROW = len(FACT_FIELDS) + 1, len(DRAFT_FIELDS)
FORGED = [  # (row size or None for the entry itself, field, value)
    (FACT_ROW, FACT_FIELDS.index("entity"), ["billing"]),  # a list where a string goes
    (FACT_ROW, FACT_FIELDS.index("source_class"), {"a": 1}),
    (FACT_ROW, FACT_FIELDS.index("obs"), "7"),
    (FACT_ROW, FACT_FIELDS.index("body"), 5),  # an int other than the "same as" 0
    (DRAFT_ROW, DRAFT_FIELDS.index("label"), ("Deploy",)),
    (DRAFT_ROW, DRAFT_FIELDS.index("end_line"), None),
    (DRAFT_ROW, DRAFT_FIELDS.index("derived"), [0, 0, "", "", 0, 0, 0, "cues"]),
    (None, "related", b"x"),  # bytes where a list of names goes
    (None, "references", [["1", "x"]]),
    (None, "declarations", [[["x"], "m.md", 1, "heading", ""]]),
    (None, "problems", {"m.md": 1}),  # a dict where a list goes
]


@pytest.mark.parametrize(("size", "field", "value"), FORGED)
def test_an_entry_of_the_wrong_types_is_a_miss_and_rewritten(tmp_path: Path, size: int | None, field: Any,
                                                              value: Any) -> None:
    repo = repository(tmp_path / "repo", TWO_ROWS)
    expected = run_cli(*CI, "--no-cache", cwd=repo)
    assert run_cli(*CI, cwd=repo) == expected
    (entry,) = (repo / replay.CACHE_DIR).rglob(ENTRIES)
    good = load_entry(entry)
    bad = copy(good)
    if size is None:
        bad[field] = value
    else:
        bad["drafts"][row_at(bad, size)][field] = value
    plant(entry, bad)
    assert run_cli(*CI, cwd=repo) == expected
    assert load_entry(entry) == good


NEVER = ({"a": 1}, b"x", 1.5, [["x"]], frozenset({"x"}))  # of no field's type, anywhere in a row


def test_every_field_of_every_row_is_checked(tmp_path: Path) -> None:
    """Each field of both kinds of row, and each part of the entry, set to a value of a type it
    never holds: a miss, rewritten whole; set to another plain value, never an error."""
    memory = tmp_path / "m.md"
    memory.write_text(TWO_ROWS, encoding="utf-8")
    settings = Settings(parse_cache=str(tmp_path / "cache"))
    facts = load_store([str(memory)], settings).facts
    (entry,) = (tmp_path / "cache").rglob(ENTRIES)
    good = load_entry(entry)
    places: list[tuple[Any, ...]] = [(key,) for key in good]
    for size in (FACT_ROW, DRAFT_ROW):
        row = row_at(good, size)
        places += [("drafts", row, field) for field in range(size)]
    for place in places:
        for value in (*NEVER, 7, -1, "s", None, ("x",), True, [], {}):
            bad = copy(good)
            target = bad
            for step in place[:-1]:
                target = target[step]
            target[place[-1]] = value
            plant(entry, bad)
            read = load_store([str(memory)], settings).facts  # never an error
            if any(value is never for never in NEVER):
                assert read == facts, (place, value)
                assert load_entry(entry) == good, (place, value)
            plant(entry, good)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_cache_folder_that_is_a_link_is_not_used(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A pull request commits `.memory-autopsy-cache` as a link to a folder outside (or to one
    of its own files): git lists no file in it, so it passed as an untracked cache."""
    repo = repository(tmp_path / "repo", CLEAN)
    assert run_cli(*command, cwd=repo).code == 0
    outside = tmp_path / "outside"
    shutil.move(str(repo / replay.CACHE_DIR), str(outside))
    cache = ParseCache(outside)
    (entry,) = (outside / "v1").glob(f"??/{ENTRIES}")
    spoofed = cache._file(cache.key("memory.md", CONFLICT.encode("utf-8")))
    spoofed.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(entry, spoofed)  # the parse of the clean file under the bad file's key
    os.symlink(outside, repo / replay.CACHE_DIR)
    git(repo, "add", replay.CACHE_DIR)
    git(repo, "commit", "-qm", "a pull request with a linked cache")
    (repo / "memory.md").write_text(CONFLICT, encoding="utf-8")
    before = sorted((str(p), p.stat().st_mtime_ns) for p in outside.rglob("*"))
    run = run_cli(*command, cwd=repo)
    assert run.code == 1 and "contradicted_implicit" in run.out, run
    assert len([line for line in run.err.splitlines() if replay.CACHE_DIR in line]) == 1, run.err
    assert sorted((str(p), p.stat().st_mtime_ns) for p in outside.rglob("*")) == before  # never written


def test_an_untracked_link_is_not_used_either(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo", CONFLICT)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", repo / replay.CACHE_DIR)
    run = run_cli(*CI, "memory.md", cwd=repo)
    assert run.code == 1 and "link" in run.err
    assert list((tmp_path / "elsewhere").iterdir()) == []


def bare_repository(folder: Path, marker: Path) -> None:
    """The files of a git folder whose configuration runs a command when git reads its index."""
    write(folder / "HEAD", "ref: refs/heads/main\n")
    write(folder / "config", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n"
          f'\tfsmonitor = "touch {marker}; false"\n')
    write(folder / "objects" / "keep", "")
    write(folder / "refs" / "keep", "")


@pytest.mark.parametrize("command", COMMANDS)
def test_git_never_runs_inside_the_cache_folder(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A pull request that commits a git folder's files as `.memory-autopsy-cache/`: git
    started inside it takes it for a repository and runs what its configuration says."""
    repo = repository(tmp_path / "repo", CLEAN)
    marker = tmp_path / "PWNED"
    bare_repository(repo / replay.CACHE_DIR, marker)
    git(repo, "add", "-f", replay.CACHE_DIR)
    git(repo, "commit", "-qm", "a pull request with a git folder for a cache")
    run = run_process(*command, cwd=repo)
    assert run.code == 0, run
    assert not marker.exists()
    assert "committed to git: not read" in run.err


MARKER = "REPLAYED\n"


def records(cwd: Path) -> list[Path]:
    folder = cwd / replay.CACHE_DIR / replay.RUNS
    return sorted(folder.iterdir()) if folder.is_dir() else []


def rewrite(cwd: Path, commands: Any = None) -> None:
    """Every record's output becomes MARKER (only a replay prints it); `commands` replaces the
    git commands it holds."""
    for path in records(cwd):
        record = list(marshal.loads(zlib.decompress(path.read_bytes())))
        record[6] = MARKER
        if commands is not None:
            record[5] = commands(record[5])
        path.write_bytes(zlib.compress(marshal.dumps(tuple(record))))


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A repository whose hook run left one record, its output replaced by MARKER."""
    repo = repository(tmp_path / "repo", CONFLICT)
    assert run_process("hook", "memory.md", cwd=repo).code == 1
    assert len(records(repo)) == 1
    rewrite(repo)
    assert run_process("hook", "memory.md", cwd=repo).out == MARKER  # a record as written serves
    return repo


def test_a_record_with_a_git_command_the_hook_never_builds_runs_nothing(tmp_path: Path, recorded: Path) -> None:
    marker = tmp_path / "PWNED"
    forged = (("-c", f"alias.x=!touch {marker}", "x"), None, (True, ""))
    rewrite(recorded, lambda commands: (*commands, forged))
    run = run_process("hook", "memory.md", cwd=recorded)
    assert not marker.exists()
    assert run.code == 1 and run.out != MARKER  # a full run, which writes its own record


def test_a_record_that_runs_git_elsewhere_runs_nothing(tmp_path: Path, recorded: Path) -> None:
    """The hook's own command, but in a folder of the record's choosing (a git folder whose
    configuration runs a command)."""
    marker, elsewhere = tmp_path / "PWNED", tmp_path / "elsewhere" / ".git"
    bare_repository(elsewhere, marker)
    (elsewhere.parent / "x").mkdir()

    def moved(commands: Any) -> Any:
        return tuple((args, str(elsewhere.parent / "x"), seen) for args, _, seen in commands)

    rewrite(recorded, moved)
    run = run_process("hook", "memory.md", cwd=recorded)
    assert not marker.exists()
    assert run.code == 1 and run.out != MARKER


def test_the_commands_of_a_real_run_are_the_hooks_own(tmp_path: Path) -> None:
    """Every command a hook records is one replay knows: a hook that built another would never
    replay (and this says which)."""
    repo = repository(tmp_path / "repo", CONFLICT)
    write(repo / "notes" / "memory.md", CONFLICT)
    for args in (("memory.md",), ("notes/memory.md", "--context", "notes"), ("memory.md", "--context", "memory.md")):
        assert run_process("hook", *args, cwd=repo).code == 1
    seen = {tuple(args) for path in records(repo)
            for args, _, _ in marshal.loads(zlib.decompress(path.read_bytes()))[5]}
    assert seen and seen <= replay.GIT_COMMANDS, seen - replay.GIT_COMMANDS
