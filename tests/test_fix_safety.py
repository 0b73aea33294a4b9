"""`--apply` and `undo` against hostile or unlucky files (issue 10, items 3, 8, 9 and 10):
line separators inside JSONL values, symlinks, read-only files, temp files a killed run left,
file modes, and `undo` over edits made after the apply. Real files, real CLI runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import EXAMPLES, SRC, run_cli
from memory_autopsy.fixes import apply as apply_module
from memory_autopsy.fixes.snapshot import snapshots, take

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks, flock and mode bits are POSIX")

KEEP = '{"claim": "IMPORTANT: keep this record"}'
COPY = '{"entity": "billing", "slot": "cache", "value": "redis 7"}'
# Every character str.splitlines breaks at that bytes.split(b"\n") does not.
SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\r"]


def apply(folder: Path, *paths: str) -> tuple[int, str, str]:
    result = run_cli("report", *paths, "--apply", "--yes-i-know", "--isolated", cwd=folder)
    return result.code, result.out, result.err


def undo(folder: Path, name: str, *flags: str) -> tuple[int, str, str]:
    result = run_cli("undo", name, *flags, cwd=folder)
    return result.code, result.out, result.err


def temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


# --- item 3: the rewriter numbers JSONL lines exactly as the loader does --------------------


def jsonl_with(separator: str) -> str:
    """A record holding `separator` in a value, a copy, the record to keep, then the copy again."""
    odd = '{"entity": "notes", "slot": "memo", "value": "a' + separator + 'b"}'
    return "\n".join([odd, COPY, KEEP, COPY]) + "\n"


@pytest.mark.parametrize("separator", SEPARATORS, ids=lambda s: f"U+{ord(s):04X}")
def test_a_line_separator_in_a_jsonl_value_does_not_move_the_edit(tmp_path: Path, separator: str) -> None:
    original = jsonl_with(separator)
    (tmp_path / "ls.jsonl").write_bytes(original.encode("utf-8"))
    code, out, err = apply(tmp_path, "ls.jsonl")
    assert (code, err) == (0, "")
    assert "delete ls.jsonl:4" in out
    assert (tmp_path / "ls.jsonl").read_bytes().decode("utf-8").split("\n") == original.split("\n")[:3] + [""]


def test_crlf_jsonl_with_a_separator_keeps_its_line_endings(tmp_path: Path) -> None:
    original = jsonl_with("\u2028").replace("\n", "\r\n").encode("utf-8")
    (tmp_path / "ls.jsonl").write_bytes(original)
    assert apply(tmp_path, "ls.jsonl")[0] == 0
    assert (tmp_path / "ls.jsonl").read_bytes() == original.rsplit(b"\r\n", 2)[0] + b"\r\n"


def test_utf16_jsonl_is_numbered_as_the_loader_reads_it(tmp_path: Path) -> None:
    # The loader reads a UTF-16 store as text with str.splitlines: the rewriter must too.
    original = jsonl_with("\u2028").encode("utf-16")
    (tmp_path / "ls.jsonl").write_bytes(original)
    code, out, _ = apply(tmp_path, "ls.jsonl")
    assert code == 0 and "delete ls.jsonl:5" in out
    text = (tmp_path / "ls.jsonl").read_bytes().decode("utf-16")
    assert text.count(KEEP) == 1 and text.count(COPY) == 1 and text.endswith(KEEP + "\n")


# --- item 8: never write through a symlink --------------------------------------------------


def tree_with_link(tmp_path: Path) -> tuple[Path, Path, bytes]:
    outside = tmp_path / "outside" / "notes.md"
    outside.parent.mkdir()
    data = (EXAMPLES / "memory.md").read_bytes()
    outside.write_bytes(data)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.md").symlink_to(Path("..") / "outside" / "notes.md")
    return tree, outside, data


def test_a_symlink_in_the_scanned_tree_is_refused(tmp_path: Path) -> None:
    tree, outside, data = tree_with_link(tmp_path)
    (tree / "memory.md").write_bytes(data)
    code, out, err = apply(tmp_path, "tree")
    assert code == 1 and "refused tree/link.md: is a symbolic link" in err
    assert outside.read_bytes() == data and (tree / "link.md").is_symlink()
    assert "rewrote tree/memory.md" in out and (tree / "memory.md").read_bytes() != data
    assert snapshots(str(tree / "link.md")) == [] and snapshots(str(outside)) == []
    assert sorted(p.name for p in outside.parent.iterdir()) == ["notes.md"]


def test_a_symlink_named_on_the_command_line_is_refused(tmp_path: Path) -> None:
    tree, outside, data = tree_with_link(tmp_path)
    code, _, err = apply(tree, "link.md")
    # it leads outside the folder the run reads: not even read (issue 43), so nothing to apply
    assert code == 2 and "link.md" in err
    assert outside.read_bytes() == data and (tree / "link.md").is_symlink()


def test_a_file_swapped_for_a_symlink_while_writing_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree, outside, data = tree_with_link(tmp_path)
    target = tree / "memory.md"
    target.write_bytes(data)
    real_take = apply_module.take

    def take_then_swap(path: str, read: bytes) -> str:
        snapshot = real_take(path, read)
        os.unlink(path)
        os.symlink(outside, path)
        return snapshot

    monkeypatch.setattr(apply_module, "take", take_then_swap)
    code, _, err = apply(tree, "memory.md")
    assert code == 1 and "symbolic link" in err
    assert outside.read_bytes() == data and target.is_symlink()
    assert temp_files(tree) == []


# --- item 10: read-only files, leftover temp files, modes -------------------------------------


def test_a_read_only_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    data = (EXAMPLES / "memory.md").read_bytes()
    target.write_bytes(data)
    target.chmod(0o444)
    code, out, err = apply(tmp_path, "memory.md")
    assert code == 1 and "refused memory.md: permission denied: the file is read-only" in err
    assert "rewrote" not in out
    assert target.read_bytes() == data and mode(target) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.md"]


def test_a_temp_file_left_by_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    data = (EXAMPLES / "memory.md").read_bytes()
    (tmp_path / "memory.md").write_bytes(data)
    (tmp_path / ".memory.md.k1ll3d_9.tmp").write_bytes(data[:100])  # the tool's naming
    (tmp_path / ".memory.md.mine.tmp").write_bytes(b"a person's file")  # not the tool's naming
    code, out, _ = apply(tmp_path, "memory.md")
    assert code == 0 and "removed .memory.md.k1ll3d_9.tmp, a temp file left by an interrupted --apply" in out
    assert temp_files(tmp_path) == [".memory.md.mine.tmp"]


def test_a_temp_file_another_run_is_writing_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_bytes((EXAMPLES / "memory.md").read_bytes())
    import fcntl

    busy = tmp_path / ".memory.md.abcd_123.tmp"
    busy.write_bytes(b"half a file")
    with open(busy, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # as a live run holds its temp file
        code, out, _ = apply(tmp_path, "memory.md")
    assert code == 0 and "removed" not in out
    assert temp_files(tmp_path) == [busy.name]


KILLER = """
import os, signal, sys
sys.path.insert(0, {src!r})
replace = os.replace
os.replace = lambda a, b, *args: os.kill(os.getpid(), signal.SIGKILL) if str(b).endswith("memory.md") else replace(a, b, *args)
from memory_autopsy.cli import main
sys.exit(main(["report", "memory.md", "--apply", "--yes-i-know", "--isolated"]))
"""


def test_a_real_kill_9_mid_write_is_cleaned_on_the_next_run(tmp_path: Path) -> None:
    data = (EXAMPLES / "memory.md").read_bytes()
    (tmp_path / "memory.md").write_bytes(data)
    done = subprocess.run([sys.executable, "-c", KILLER.format(src=str(SRC))], cwd=tmp_path,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == -9
    [leftover] = temp_files(tmp_path)
    assert leftover.startswith(".memory.md.") and (tmp_path / "memory.md").read_bytes() == data
    code, out, _ = apply(tmp_path, "memory.md")
    assert code == 0 and f"removed {leftover}" in out and temp_files(tmp_path) == []


@pytest.mark.usefixtures("umask_022")
def test_modes_rewritten_file_keeps_its_own_snapshots_are_private(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes((EXAMPLES / "memory.md").read_bytes())
    target.chmod(0o664)
    assert apply(tmp_path, "memory.md")[0] == 0
    [snapshot] = snapshots(str(target))
    assert mode(target) == 0o664
    assert mode(Path(snapshot)) == 0o600 and mode(Path(snapshot + ".written")) == 0o600


# --- item 9: undo never discards edits made after the apply ------------------------------------


def applied(tmp_path: Path) -> tuple[Path, bytes]:
    target = tmp_path / "memory.md"
    original = (EXAMPLES / "memory.md").read_bytes()
    target.write_bytes(original)
    assert apply(tmp_path, "memory.md")[0] == 0
    return target, original


def test_undo_refuses_when_the_file_changed_since_the_apply(tmp_path: Path) -> None:
    target, _ = applied(tmp_path)
    edited = target.read_bytes() + b"- deploy: uses blue-green since 2026-09-01\n"
    target.write_bytes(edited)
    code, out, err = undo(tmp_path, "memory.md")
    assert code == 2 and out == "" and "edited after --apply wrote it" in err and "--force" in err
    assert target.read_bytes() == edited
    assert not list(tmp_path.glob("**/memory.md.bak-undo-*"))


def test_forced_undo_keeps_the_later_edits_first(tmp_path: Path) -> None:
    target, original = applied(tmp_path)
    edited = target.read_bytes() + b"- deploy: uses blue-green since 2026-09-01\n"
    target.write_bytes(edited)
    code, out, _ = undo(tmp_path, "memory.md", "--force")
    [kept] = (tmp_path / ".memory-autopsy-cache" / "snapshots").glob("memory.md.bak-undo-*")
    assert code == 0 and f"kept the edited memory.md in {kept.relative_to(tmp_path)}" in out
    assert target.read_bytes() == original and kept.read_bytes() == edited and mode(kept) == 0o600
    assert undo(tmp_path, "memory.md")[0] == 0 and target.read_bytes() == original  # still a no-op


def test_undo_without_a_record_of_the_write_refuses_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes(b"- a: uses b\n- c: uses d\n")
    take(str(target), b"- a: uses b\n")  # a snapshot as older versions wrote them: no record
    code, _, err = undo(tmp_path, "memory.md")
    assert code == 2 and "no record of what --apply wrote" in err
    assert target.read_bytes() == b"- a: uses b\n- c: uses d\n"
    assert undo(tmp_path, "memory.md", "--force")[0] == 0 and target.read_bytes() == b"- a: uses b\n"


@pytest.mark.usefixtures("umask_022")
def test_undo_of_a_deleted_file_needs_force(tmp_path: Path) -> None:
    target, original = applied(tmp_path)
    target.unlink()
    code, _, err = undo(tmp_path, "memory.md")
    assert code == 2 and "no longer exists" in err and not target.exists()
    assert undo(tmp_path, "memory.md", "--force")[0] == 0
    assert target.read_bytes() == original and mode(target) == 0o644


@pytest.mark.parametrize("folder", [".", ".memory-autopsy-cache/snapshots"])
def test_undo_never_follows_a_symlink(tmp_path: Path, folder: str) -> None:
    target, _ = applied(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("token=hunter2\n", encoding="utf-8")
    written = target.read_bytes()
    (tmp_path / folder / "memory.md.bak-29991231-235959-999999").symlink_to(secret)  # a planted "newest snapshot"
    code, _, err = undo(tmp_path, "memory.md", "--force")
    assert code == 2 and "restore failed" in err
    assert target.read_bytes() == written and secret.read_text(encoding="utf-8") == "token=hunter2\n"


def test_jsonl_round_trip_with_separators_still_undoes(tmp_path: Path) -> None:
    original = jsonl_with("\u2028").encode("utf-8")
    (tmp_path / "ls.jsonl").write_bytes(original)
    assert apply(tmp_path, "ls.jsonl")[0] == 0
    assert undo(tmp_path, "ls.jsonl")[0] == 0 and (tmp_path / "ls.jsonl").read_bytes() == original
    assert json.loads(original.decode("utf-8").split("\n")[0])["value"] == "a\u2028b"
