"""`report --apply --yes-i-know` racing a process that appends to the same file (issue 43, item 8).

An appender does not lock: it opens the file by name and writes at its end. If it opens the old
file just before the rename, or writes into it between the last compare and the rename, its line
lands in a file that no longer has a name. Every round here appends a unique line at a moment the
round chooses and checks that the line is still in the file afterwards: either the fixed content
plus the appends (exit 0), or the original plus the appends with the run saying the file changed.

A line appended at a random moment rarely falls in the window between the compare and the
rename, so most rounds widen it on purpose: `os.replace` of the memory file is wrapped to append
a line just before the rename, or to open the file before the rename and write after it.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Windows refuses to rename over an open file")

ROUNDS = 200
CHANGED = "changed while the fixes were being applied"
Replace = Callable[..., None]


def apply(folder: Path) -> tuple[int, str]:
    result = run_cli("report", "memory.md", "--apply", "--yes-i-know", "--isolated", cwd=folder)
    return result.code, result.err


def append(path: Path, line: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(line)


def fixed_content(tmp_path: Path, original: bytes) -> bytes:
    """What an undisturbed run writes."""
    folder = tmp_path / "clean"
    folder.mkdir()
    (folder / "memory.md").write_bytes(original)
    assert apply(folder)[0] == 0
    fixed = (folder / "memory.md").read_bytes()
    assert fixed != original
    return fixed


def before_rename(target: Path, line: bytes, written: list[bytes], real: Replace) -> Replace:
    """`os.replace` that appends to the memory file after the compare, just before its first rename."""
    def replace(src: str, dst: str, *args: object, **kwargs: object) -> None:
        if os.path.abspath(dst) == str(target) and line not in written:
            append(target, line)
            written.append(line)
        real(src, dst, *args, **kwargs)
    return replace


def across_rename(target: Path, line: bytes, written: list[bytes], real: Replace) -> Replace:
    """`os.replace` with an appender that opens the memory file before its first rename and writes after it."""
    def replace(src: str, dst: str, *args: object, **kwargs: object) -> None:
        if os.path.abspath(dst) != str(target) or line in written:
            real(src, dst, *args, **kwargs)
            return
        with open(target, "ab") as handle:
            real(src, dst, *args, **kwargs)
            handle.write(line)
        written.append(line)
    return replace


@contextmanager
def appender(target: Path, line: bytes, written: list[bytes], delay: float) -> Iterator[None]:
    """A thread that appends `line` after `delay` seconds, joined before the round is checked."""
    def run() -> None:
        time.sleep(delay)
        append(target, line)
        written.append(line)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join(timeout=30)
        assert not thread.is_alive()


def check(content: bytes, code: int, err: str, lines: list[bytes], original: bytes, fixed: bytes) -> None:
    assert all(line in content for line in lines), f"an appended line was lost (exit {code}): {err}"
    if content.startswith(fixed) and code == 0:
        base = fixed
    else:
        assert code == 1 and CHANGED in err, (code, err)
        assert content.startswith(original)
        base = original
    assert sorted(content[len(base):].splitlines(keepends=True)) == sorted(lines)


def test_no_appended_line_is_ever_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = (EXAMPLES / "memory.md").read_bytes()
    fixed = fixed_content(tmp_path, original)
    chance = random.Random(43)
    real = os.replace
    outcomes = {"fixed": 0, "rolled back": 0}
    for round_ in range(ROUNDS):
        folder = tmp_path / f"round{round_}"
        folder.mkdir()
        target = folder / "memory.md"
        target.write_bytes(original)
        written: list[bytes] = []
        wrap = (before_rename, across_rename, None)[round_ % 3]
        if wrap is not None:
            monkeypatch.setattr(os, "replace", wrap(target, f"- wrapped note {round_}\n".encode(), written, real))
        with appender(target, f"- appended note {round_}\n".encode(), written, chance.uniform(0, 0.006)):
            code, err = apply(folder)
        monkeypatch.setattr(os, "replace", real)
        check(target.read_bytes(), code, err, written, original, fixed)
        outcomes["fixed" if code == 0 else "rolled back"] += 1
    assert outcomes["rolled back"] >= ROUNDS // 2  # the widened rounds hit the window (or the thread did first)


def test_lines_appended_while_rolling_back_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Appends to the old file, to the new one after its rename, and to it across the rename that
    puts the old one back: the rollback is checked like the write, and takes a second round."""
    original = (EXAMPLES / "memory.md").read_bytes()
    target = tmp_path / "memory.md"
    target.write_bytes(original)
    real = os.replace
    renames: list[str] = []

    def replace(src: str, dst: str, *args: object, **kwargs: object) -> None:
        if os.path.abspath(dst) != str(target):
            real(src, dst, *args, **kwargs)
            return
        renames.append(src)
        if len(renames) == 1:  # the fix: a line into the old file, then one into the new
            append(target, b"- into the old file\n")
            real(src, dst, *args, **kwargs)
            append(target, b"- into the new file\n")
        elif len(renames) == 2:  # the rollback: a line into the fixed file across its rename
            with open(target, "ab") as handle:
                real(src, dst, *args, **kwargs)
                handle.write(b"- across the rollback\n")
        else:
            real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    code, err = apply(tmp_path)
    monkeypatch.setattr(os, "replace", real)
    assert code == 1 and CHANGED in err and len(renames) == 3
    assert target.read_bytes() == original + b"- into the old file\n- into the new file\n- across the rollback\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
