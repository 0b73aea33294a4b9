"""Hostile paths and a missing extra against the MCP tools (issue 10, items 5 and 7).

The race: a file inside the root is swapped, again and again, for a symlink to a file outside
it while the tools run in-process. Whatever the interleaving, the outside bytes must never be
read. The missing extra: `memory-autopsy-mcp` without pydantic / mcp says what to install in one
line and exits 2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_autopsy import agent_tools, install_hint
from memory_autopsy.agent_tools import ToolRefused
from memory_autopsy.ingest.confined import Roots

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
MARKER = "SECRETMARKER"
INSIDE = "- billing-store: uses postgres 14 (2026-01-01)\n- billing-store: uses redis 7 (2026-01-02)\n"
RACE_SECONDS = 1.5

pytestmark = pytest.mark.skipif(
    not hasattr(os, "symlink") or os.name == "nt", reason="needs POSIX symlinks"
)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """work/ (the root and cwd) with store.md and tree/, outside/secret.md beside it."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "tree").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text(f"- vault: uses {MARKER} (2026-01-01)\n", encoding="utf-8")
    (work / "store.md").write_text(INSIDE, encoding="utf-8")
    (work / "tree" / "notes.md").write_text(INSIDE, encoding="utf-8")
    monkeypatch.chdir(work)
    return work


class Swapper:
    """Swap `target` between its own bytes and a symlink leading outside, atomically, in a loop."""

    def __init__(self, target: Path, outside: Path) -> None:
        self.target, self.outside = target, outside
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Swapper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.target.unlink(missing_ok=True)
        self.target.write_text(INSIDE, encoding="utf-8")

    def _run(self) -> None:
        pristine = self.target.with_name(".pristine")
        pristine.write_text(INSIDE, encoding="utf-8")
        staged_link, staged_file = (self.target.with_name(n) for n in (".swap-link", ".swap-file"))
        end = time.monotonic() + RACE_SECONDS + 1  # stops by itself even if the test hangs
        while not self._stop.is_set() and time.monotonic() < end:
            staged_link.unlink(missing_ok=True)
            staged_link.symlink_to(os.path.relpath(self.outside, self.target.parent))
            os.replace(staged_link, self.target)
            staged_file.unlink(missing_ok=True)
            os.link(pristine, staged_file)  # as quick as the symlink: both states last as long
            os.replace(staged_file, self.target)
            self.swaps += 1


def _calls(store: str) -> Iterator[Callable[[], dict[str, Any]]]:
    roots = Roots.of()
    fact = {"entity": "billing-store", "claim": "uses mysql 8", "observed_at": "2026-02-01"}
    while True:
        yield lambda: agent_tools.memory_lint(store, roots=roots)
        yield lambda: agent_tools.memory_admit(fact, store, roots=roots)
        yield lambda: agent_tools.memory_as_of("2026-03-01", store, roots=roots)
        yield lambda: agent_tools.memory_why(store, "ffff", roots=roots)


def _race(store: str, target: Path, outside: Path) -> tuple[int, int, int]:
    """(calls answered, calls refused, swaps made) in RACE_SECONDS; fails on any leaked byte."""
    answered = refused = 0
    with Swapper(target, outside) as swapper:
        end = time.monotonic() + RACE_SECONDS
        for call in _calls(store):
            if time.monotonic() >= end:
                break
            try:
                shown = json.dumps(call(), default=str)
                answered += 1
            except ToolRefused as error:
                shown = str(error)
                refused += 1
            assert MARKER not in shown
    return answered, refused, swapper.swaps


@pytest.mark.parametrize("store, target", [("store.md", "store.md"), ("tree", "tree/notes.md")])
def test_a_file_swapped_for_an_outside_link_is_never_read(workspace, store, target):
    outside = workspace.parent / "outside" / "secret.md"
    answered, refused, swaps = _race(store, workspace / target, outside)
    assert swaps > 50 and answered > 5, "the race was not exercised"


def test_a_folder_on_the_path_swapped_for_an_outside_link_is_never_read(workspace, monkeypatch):
    # the race, one step at a time: the check sees a folder, the open meets a link to outside
    (workspace / "sub").mkdir()
    (workspace / "sub" / "secret.md").write_text(INSIDE, encoding="utf-8")
    checked = os.path.realpath("sub/secret.md")
    (workspace / "sub" / "secret.md").unlink()
    (workspace / "sub").rmdir()
    (workspace / "sub").symlink_to(workspace.parent / "outside")
    monkeypatch.setattr(os.path, "realpath", lambda path: checked)  # the check ran before the swap
    with pytest.raises(ToolRefused, match="turned into a link"):
        agent_tools.read_confined("sub/secret.md", Roots([str(workspace)]))


def test_a_file_swapped_for_a_link_after_the_check_is_refused(workspace, monkeypatch):
    checked = os.path.realpath("store.md")
    (workspace / "store.md").unlink()
    (workspace / "store.md").symlink_to(workspace.parent / "outside" / "secret.md")
    monkeypatch.setattr(os.path, "realpath", lambda path: checked)
    with pytest.raises(ToolRefused, match="turned into a link"):
        agent_tools.read_confined("store.md", Roots([str(workspace)]))


def test_a_fifo_swapped_in_is_refused_without_blocking(workspace):
    os.mkfifo(workspace / "pipe.md")
    started = time.monotonic()
    with pytest.raises(OSError, match="not a regular file"):
        agent_tools.read_confined(str(workspace / "pipe.md"), Roots.of())
    assert time.monotonic() - started < 1


def test_a_link_that_stays_inside_the_root_is_still_read(workspace):
    (workspace / "alias.md").symlink_to("store.md")
    result = agent_tools.memory_lint("alias.md", roots=Roots.of())
    assert result["facts"] == 2


@pytest.mark.parametrize(
    "fact, store",
    [
        ({"entity": "billing-store", "slot": "tool", "value": "Oracle 19", "observed_at": "2026-01-05"},
         "store.jsonl"),
        ({"entity": "new-svc", "claim": "uses redis 7", "observed_at": "2026-01-05"}, "store.jsonl"),
        ({"entity": "billing-store", "claim": "uses x", "observed_at": "someday"}, "store.jsonl"),
        ({"claim": "uses x"}, "store.jsonl"),
        ({"entity": "svc", "claim": "uses redis 7"}, "empty.jsonl"),
        ({"entity": "svc", "claim": "uses redis 7"}, "missing.jsonl"),
        ({"entity": "svc", "claim": "uses redis 7"}, "tree"),
        ({"entity": "svc", "claim": "uses redis 7"}, "void"),
    ],
)
def test_admit_over_confined_reads_answers_as_the_gate(workspace, fact, store):
    """agent_tools mirrors gate.admit after its read: the two must never drift apart."""
    from memory_autopsy.api import admit

    shutil.copy(EXAMPLES / "store.jsonl", workspace / "store.jsonl")
    (workspace / "empty.jsonl").write_text("", encoding="utf-8")
    (workspace / "void").mkdir()
    expected = admit(fact, store, agent_tools.default_settings()).as_dict()
    assert agent_tools.memory_admit(fact, store, roots=Roots.of()) == expected


# ------------------------------------------------------------------ the missing extra
BLOCK_EXTRA = "import sys; sys.modules['pydantic'] = None; sys.modules['mcp'] = None; "


@pytest.mark.parametrize(
    "start",
    [
        "from memory_autopsy.mcp_server import main; sys.exit(main())",  # the console script
        "import runpy; runpy.run_module('memory_autopsy.mcp_server', run_name='__main__')",
    ],
)
def test_without_the_mcp_extra_one_line_says_what_to_install(tmp_path, start):
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_EXTRA + start],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert install_hint("mcp") in done.stderr and "memory-autopsy[mcp] @ git+https://" in done.stderr
