"""`report --apply --yes-i-know` and `undo`: snapshots, atomic writes, byte-exact round trips."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import EXAMPLES, SRC, committed_repo, git, run_cli, write
from memory_autopsy.api import lint
from memory_autopsy.fixes import apply as apply_module
from memory_autopsy.fixes.apply import apply_plan
from memory_autopsy.fixes.snapshot import snapshots, take

BOM = b"\xef\xbb\xbf"


def variant(data: bytes, *, crlf: bool = False, bom: bool = False, final_newline: bool = True) -> bytes:
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if not final_newline:
        data = data.rstrip(b"\r\n")
    return (BOM if bom else b"") + data


VARIANTS = {
    "lf": {},
    "crlf": {"crlf": True},
    "bom": {"bom": True},
    "no-final-newline": {"final_newline": False},
    "crlf-bom-no-final-newline": {"crlf": True, "bom": True, "final_newline": False},
}
STORES = ("memory.md", "store.jsonl", "facts.json")


def apply(folder: Path, *paths: str) -> tuple[int, str, str]:
    result = run_cli("report", *paths, "--apply", "--yes-i-know", "--isolated", cwd=folder)
    return result.code, result.out, result.err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("name", STORES)
@pytest.mark.parametrize("shape", sorted(VARIANTS))
def test_apply_then_undo_is_byte_exact(tmp_path: Path, name: str, shape: str) -> None:
    original = variant((EXAMPLES / name).read_bytes(), **VARIANTS[shape])
    target = tmp_path / name
    target.write_bytes(original)
    code, out, err = apply(tmp_path, name)
    assert (code, err) == (0, "")
    changed = target.read_bytes()
    assert changed != original
    assert changed.startswith(BOM) == original.startswith(BOM)
    assert changed.endswith(b"\n") == original.endswith(b"\n")
    if VARIANTS[shape].get("crlf"):
        assert b"\n" not in changed.replace(b"\r\n", b"")
    else:
        assert b"\r" not in changed
    [snapshot] = snapshots(str(target))
    assert Path(snapshot).read_bytes() == original
    shown = os.path.relpath(snapshot, tmp_path)
    assert shown == f".memory-autopsy-cache/snapshots/{Path(snapshot).name}"
    assert f"rewrote {name} (snapshot: {shown})" in out
    rescan = json.loads(run_cli("scan", name, "--json", "--isolated", cwd=tmp_path).out)
    assert not {"contradicted_explicit", "contradicted_implicit", "stale", "duplicate"} & set(rescan["counts"])
    undo = run_cli("undo", name, cwd=tmp_path)
    assert undo.code == 0 and undo.out == f"restored {name} from {shown}\n"
    assert target.read_bytes() == original
    assert leftovers(tmp_path) == []


def test_markdown_rewrite_keeps_bullets_and_history(tmp_path: Path) -> None:
    write(tmp_path / "memory.md", (EXAMPLES / "memory.md").read_text(encoding="utf-8"))
    code, out, _ = apply(tmp_path, "memory.md")
    assert code == 0 and out.startswith("applied 4 fix(es) across 1 file(s):\n")
    assert out.rstrip().endswith("undo with: memory-autopsy undo <file> (restores the newest snapshot)")
    lines = (tmp_path / "memory.md").read_text(encoding="utf-8").splitlines()
    assert lines[4] == ("- ~~billing-store: uses PostgreSQL 14 for the billing store (source: infra-doc)~~ "
                        "(superseded 2026-06-02, see memory.md:10)")  # plain markdown, not record syntax
    assert lines.count("- cache-tier: uses redis 7 (source: ops-notes)") == 1
    assert "- ~~works at Northwind (source: profile)~~ (superseded 2026-05-01, see memory.md:20)" in lines
    after = run_cli("scan", "memory.md", "--json", cwd=tmp_path)
    assert {f["rule"] for f in json.loads(after.out)["findings"]} == {"superseded"}  # read back as history


def test_json_rewrite_keeps_records_and_layout(tmp_path: Path) -> None:
    write(tmp_path / "f.json", '{\n\t"facts": [\n\t\t{"entity": "e", "slot": "s", "value": "a", "date": "2026-01-01", '
                               '"note": "caf\\u00e9"},\n\t\t{"entity": "e", "slot": "s", "value": "b", '
                               '"date": "2026-02-01"},\n\t\t"e: duplicated claim",\n\t\t"e: duplicated claim"\n\t]\n}\n')
    assert apply(tmp_path, "f.json")[0] == 0
    text = (tmp_path / "f.json").read_text(encoding="utf-8")
    assert text == ('{\n\t"facts": [\n\t\t{"entity": "e", "slot": "s", "value": "a", "date": "2026-01-01", '
                    '"note": "caf\\u00e9", "valid_to": "2026-02-01"},\n\t\t{"entity": "e", "slot": "s", '
                    '"value": "b", "date": "2026-02-01"},\n\t\t"e: duplicated claim"\n\t]\n}\n')


def test_jsonl_rewrites_only_the_named_line(tmp_path: Path) -> None:
    original = (EXAMPLES / "store.jsonl").read_text(encoding="utf-8").splitlines()
    write(tmp_path / "s.jsonl", "\n".join(original) + "\n")
    assert apply(tmp_path, "s.jsonl")[0] == 0
    now = (tmp_path / "s.jsonl").read_text(encoding="utf-8").splitlines()
    assert [now[0], now[2], now[4]] == [original[0], original[2], original[4]]
    assert json.loads(now[1]) == {**json.loads(original[1]), "valid_to": "2026-05-01"}
    assert json.loads(now[3]) == {**json.loads(original[3]), "valid_to": "2026-05-01"}


def test_utf16_and_file_mode_are_kept(tmp_path: Path) -> None:
    data = (EXAMPLES / "memory.md").read_text(encoding="utf-8").encode("utf-16")
    target = tmp_path / "memory.md"
    target.write_bytes(data)
    target.chmod(0o640)
    assert apply(tmp_path, "memory.md")[0] == 0
    assert target.read_bytes()[:2] == data[:2] and "(superseded 2026-06-02" in target.read_bytes().decode("utf-16")
    assert target.stat().st_mode & 0o777 == 0o640
    assert run_cli("undo", "memory.md", cwd=tmp_path).code == 0 and target.read_bytes() == data


def test_apply_needs_yes_i_know(tmp_path: Path) -> None:
    data = (EXAMPLES / "memory.md").read_bytes()
    (tmp_path / "memory.md").write_bytes(data)
    result = run_cli("report", "memory.md", "--apply", cwd=tmp_path)
    assert result.code == 2 and "--yes-i-know" in result.err
    assert (tmp_path / "memory.md").read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.md"]


def test_hedges_are_never_touched(tmp_path: Path) -> None:
    data = b"- billing: uses PostgreSQL for invoices\n- billing: uses MySQL for invoices\n"
    (tmp_path / "m.md").write_bytes(data)
    code, out, _ = apply(tmp_path, "m.md")
    assert (code, out) == (0, "nothing to fix automatically\n")
    assert (tmp_path / "m.md").read_bytes() == data and snapshots(str(tmp_path / "m.md")) == []


def test_a_file_changed_after_linting_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes((EXAMPLES / "memory.md").read_bytes())
    report = lint([str(target)])
    edited = b"- billing-store: migrated to CockroachDB (2026-08-01)\n" + target.read_bytes()
    target.write_bytes(edited)
    err = io.StringIO()
    assert apply_plan(report, io.StringIO(), err) == 1
    assert "changed since it was linted" in err.getvalue()
    assert target.read_bytes() == edited and snapshots(str(target)) == []


def test_a_file_changed_while_writing_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes((EXAMPLES / "memory.md").read_bytes())
    real_take = apply_module.take

    def take_then_race(path: str, data: bytes) -> str:
        snapshot = real_take(path, data)
        with open(path, "ab") as handle:
            handle.write(b"- written by someone else\n")
        return snapshot

    monkeypatch.setattr(apply_module, "take", take_then_race)
    code, _, err = apply(tmp_path, "memory.md")
    assert code == 1 and "changed while" in err
    assert target.read_bytes().endswith(b"- written by someone else\n")
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_a_failed_write_leaves_the_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str) -> None:
    data = (EXAMPLES / "memory.md").read_bytes()
    (tmp_path / "memory.md").write_bytes(data)

    def boom(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, boom)
    code, _, err = apply(tmp_path, "memory.md")
    monkeypatch.undo()
    assert code == 1 and ("nothing written" in err or "left as it was" in err)
    assert (tmp_path / "memory.md").read_bytes() == data
    assert leftovers(tmp_path) == []


KILLER = """
import os, sys
sys.path.insert(0, {src!r})
def die(*args, **kwargs):
    os._exit(9)
os.{name} = die
from memory_autopsy.cli import main
sys.exit(main(["report", "memory.md", "--apply", "--yes-i-know", "--isolated"]))
"""


@pytest.mark.parametrize("name", ["replace", "fsync"])
def test_a_write_killed_midway_leaves_the_old_file(tmp_path: Path, name: str) -> None:
    data = variant((EXAMPLES / "memory.md").read_bytes(), crlf=True, final_newline=False)
    (tmp_path / "memory.md").write_bytes(data)
    done = subprocess.run([sys.executable, "-c", KILLER.format(src=str(SRC), name=name)], cwd=tmp_path,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 9
    assert (tmp_path / "memory.md").read_bytes() == data
    for leftover in leftovers(tmp_path):
        assert leftover.startswith(".memory.md.")
    scan = json.loads(run_cli("scan", ".", "--json", "--isolated", cwd=tmp_path).out)
    assert {f["path"] for f in scan["findings"]} == {"memory.md"}


def test_snapshots_accumulate_and_undo_restores_the_newest(tmp_path: Path) -> None:
    target = tmp_path / "memory.md"
    target.write_bytes((EXAMPLES / "memory.md").read_bytes())
    assert apply(tmp_path, "memory.md")[0] == 0
    second = target.read_bytes() + b"- cache-tier: uses redis 7 (2026-09-01)\n"
    target.write_bytes(second)
    assert apply(tmp_path, "memory.md")[0] == 0
    first_snapshot, second_snapshot = snapshots(str(target))
    assert Path(second_snapshot).read_bytes() == second
    assert run_cli("undo", "memory.md", cwd=tmp_path).code == 0 and target.read_bytes() == second
    assert run_cli("undo", "memory.md", cwd=tmp_path).code == 0 and target.read_bytes() == second
    assert snapshots(str(target)) == [first_snapshot, second_snapshot]


def test_a_snapshot_name_is_never_reused(tmp_path: Path) -> None:
    moment = datetime(2026, 10, 17, 9, 0, 55, 968964, tzinfo=timezone.utc)
    a = take(str(tmp_path / "m.md"), b"one", moment)
    b = take(str(tmp_path / "m.md"), b"two", moment)
    assert (Path(a).name, Path(b).name) == ("m.md.bak-20261017-090055-968964", "m.md.bak-20261017-090055-968965")
    assert (Path(a).read_bytes(), Path(b).read_bytes()) == (b"one", b"two")


def test_undo_without_snapshot_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- a: uses b\n")
    result = run_cli("undo", "m.md", cwd=tmp_path)
    assert result.code == 2 and "no snapshot" in result.err
    assert (tmp_path / "m.md").read_text(encoding="utf-8") == "- a: uses b\n"


def test_other_json_shapes(tmp_path: Path) -> None:
    write(tmp_path / "map.json", json.dumps({"Globex": [
        {"claim": "works at Northwind", "date": "2026-01-01"}, {"claim": "left Northwind", "date": "2026-05-01"}]}))
    write(tmp_path / "graph.json", json.dumps([{"type": "entity", "name": "Acme", "observations": [
        {"text": "uses PostgreSQL", "date": "2026-01-01"}, {"text": "uses MySQL", "date": "2026-03-01"}]}]))
    write(tmp_path / "s.jsonl", '{"entity": "a", "slot": "s", "value": "x", "date": "2026-01-01", "invalid_at": null}\n'
                                '{"entity": "a", "slot": "s", "value": "y", "date": "2026-02-01"}\n')
    graph = (tmp_path / "graph.json").read_bytes()
    code, out, _ = apply(tmp_path, "map.json", "graph.json", "s.jsonl")
    assert code == 0 and "skipped supersede graph.json:1" in out
    assert (tmp_path / "graph.json").read_bytes() == graph and snapshots(str(tmp_path / "graph.json")) == []
    assert json.loads((tmp_path / "map.json").read_text())["Globex"][0]["valid_to"] == "2026-05-01"
    assert json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])["invalid_at"] == "2026-02-01"


def test_plan_never_supersedes_a_primary_fact_on_an_unclassified_word(tmp_path: Path) -> None:
    from memory_autopsy.api import lint
    from memory_autopsy.fixes.plan import plan

    (tmp_path / "s.jsonl").write_text(
        '{"entity": "billing", "slot": "tool", "value": "MySQL 8", "date": "2026-01-01", '
        '"source": "infra-doc", "source_class": "primary"}\n'
        '{"entity": "billing", "slot": "tool", "value": "MariaDB", "date": "2026-06-01", "source": "forum"}\n',
        encoding="utf-8",
    )
    report = lint([str(tmp_path / "s.jsonl")])
    assert [f.rule for f in report.findings] == ["contradicted_implicit"]
    assert plan(report) == []


def test_apply_and_undo_leave_nothing_untracked_in_git(tmp_path: Path) -> None:
    memory = (EXAMPLES / "memory.md").read_text(encoding="utf-8")
    repo = committed_repo(tmp_path / "repo", {"memory-bank/progress.md": memory, "README.md": "# app\n"})
    assert apply(repo, "memory-bank/progress.md")[0] == 0
    assert git(repo, "status", "--porcelain") == " M memory-bank/progress.md\n"
    [snapshot] = snapshots(str(repo / "memory-bank" / "progress.md"))
    assert Path(snapshot).parent == repo / ".memory-autopsy-cache" / "snapshots" / "memory-bank"
    assert run_cli("undo", "memory-bank/progress.md", cwd=repo).code == 0
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    assert (repo / "memory-bank" / "progress.md").read_text(encoding="utf-8") == memory


def test_undo_still_restores_a_snapshot_written_beside_the_file(tmp_path: Path) -> None:
    target = write(tmp_path / "m.md", "- a: uses c\n")
    (tmp_path / "m.md.bak-20261017-090055-968964").write_bytes(b"- a: uses b\n")  # as 0.5.0 wrote it
    result = run_cli("undo", "m.md", "--force", cwd=tmp_path)
    assert result.code == 0 and result.out.endswith("restored m.md from m.md.bak-20261017-090055-968964\n")
    assert target.read_bytes() == b"- a: uses b\n"


def test_a_cache_folder_that_is_a_link_gets_no_snapshot_and_no_write(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = tmp_path / "store"
    target = write(store / "memory.md", (EXAMPLES / "memory.md").read_text(encoding="utf-8"))
    (store / ".memory-autopsy-cache").symlink_to(elsewhere)
    before = target.read_bytes()
    code, _, err = apply(store, "memory.md")
    assert code != 0 and "could not write the snapshot" in err and "symbolic link" in err
    assert target.read_bytes() == before and list(elsewhere.iterdir()) == []
