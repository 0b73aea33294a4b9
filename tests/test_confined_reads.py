"""Issue 43, item 1: nothing the repository names is read outside the checkout.

A pull request commits memory files, `@imports`, index links and the rule file as links to files
outside the checkout. Every front end (scan, hook, ci with its annotations, job summary and
SARIF, the MCP tools) reports the link by name and never reads, quotes or looks up its target.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git, run_cli, run_process
from memory_autopsy import agent_tools
from memory_autopsy.ingest import confined, imports
from memory_autopsy.ingest.confined import Roots

SECRET = "SECRET-TOKEN-7f3a"
OUTSIDE_TEXT = f"- 2024-01-01 billing uses PostgreSQL 14 {SECRET}\n- see @also-outside.md\n"
STATE = "- 2024-01-01 billing uses PostgreSQL 14\n- 2025-03-01 billing moved to MySQL 8\n"



@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(OUTSIDE_TEXT, encoding="utf-8")
    (folder / "also-outside.md").write_text(f"- {SECRET} again\n", encoding="utf-8")
    return folder


@pytest.fixture
def repo(tmp_path: Path, outside: Path) -> Path:
    """A checkout whose memory links out: CLAUDE.md to an outside file, a memory-bank note to one
    that does not exist, and an index that links and imports outside."""
    root = tmp_path / "repo"
    (root / "memory-bank").mkdir(parents=True)
    (root / "memory-bank" / "progress.md").write_text(STATE, encoding="utf-8")
    (root / "CLAUDE.md").symlink_to(outside / "secret.md")
    (root / "memory-bank" / "gone.md").symlink_to(outside / "no-such-file.md")
    (root / "memory-bank" / "up.md").symlink_to("../../outside/secret.md")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "memory")
    return root


def leaked(*texts: str) -> bool:
    return any(SECRET in text or "also-outside" in text for text in texts)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_a_scan_reports_links_out_by_name_and_reads_none(repo: Path, fmt: str) -> None:
    result = run_cli("scan", "--format", fmt, cwd=repo)
    assert result.code in (0, 1), result.err
    assert not leaked(result.out, result.err)
    for name in ("CLAUDE.md", "memory-bank/gone.md", "memory-bank/up.md"):
        assert name in result.out


def test_the_finding_is_bad_input_on_the_link(repo: Path) -> None:
    result = run_cli("scan", "--format", "json", cwd=repo)
    bad = sorted(f["path"] for f in json.loads(result.out)["findings"] if f["rule"] == "bad_input")
    assert bad == ["CLAUDE.md", "memory-bank/gone.md", "memory-bank/up.md"]
    assert json.loads(result.out)["facts"] == 2  # progress.md's two, nothing of the links


def test_ci_annotations_summary_and_sarif_quote_nothing_outside(repo: Path, tmp_path: Path) -> None:
    summary, sarif = tmp_path / "summary.md", tmp_path / "out.sarif"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    result = run_process("ci", "--sarif", str(sarif), cwd=repo, env=env)
    assert result.code in (0, 1), result.err
    assert "Traceback" not in result.err
    assert not leaked(result.out, result.err, summary.read_text(encoding="utf-8"),
                      sarif.read_text(encoding="utf-8"))
    assert "CLAUDE.md" in result.out


def test_the_hook_given_a_link_out_reads_nothing(repo: Path) -> None:
    result = run_cli("hook", "CLAUDE.md", "memory-bank/up.md", cwd=repo)
    assert not leaked(result.out, result.err)
    assert "Traceback" not in result.err


def test_whether_an_outside_target_exists_is_never_told(repo: Path) -> None:
    """A link to an existing outside file and one to a missing one read alike."""
    result = run_cli("scan", "--format", "json", cwd=repo)
    messages = {f["path"]: f["message"].split(": ", 1)[1] for f in json.loads(result.out)["findings"]
                if f["rule"] == "bad_input"}
    assert messages["CLAUDE.md"] == messages["memory-bank/gone.md"] == messages["memory-bank/up.md"]


def test_a_folder_named_that_links_out_is_not_walked(repo: Path, outside: Path) -> None:
    (repo / "notes").symlink_to(outside)
    alone = run_cli("scan", "notes", "--format", "json", cwd=repo)
    assert alone.code == 2 and "notes" in alone.err  # nothing readable was named
    beside = run_cli("scan", "notes", "memory-bank/progress.md", "--format", "json", cwd=repo)
    for result in (alone, beside):
        assert not leaked(result.out, result.err)
        assert "secret.md" not in result.out + result.err
    assert [f["path"] for f in json.loads(beside.out)["findings"] if f["rule"] == "bad_input"] == ["notes"]


def test_a_link_that_stays_inside_is_read(repo: Path) -> None:
    (repo / "memory-bank" / "alias.md").symlink_to("progress.md")
    result = run_cli("scan", "memory-bank/alias.md", "--format", "json", cwd=repo)
    assert json.loads(result.out)["facts"], result.err


def test_a_file_named_outside_the_checkout_is_still_read(outside: Path, repo: Path) -> None:
    """Naming a path on the command line trusts that path; only links out of it are refused."""
    result = run_cli("scan", str(outside / "secret.md"), "--format", "json", cwd=repo)
    assert json.loads(result.out)["facts"], result.err


@pytest.mark.parametrize("name", ["memory-autopsy.toml", "pyproject.toml"])
def test_a_rule_file_that_links_out_is_refused_unread(repo: Path, outside: Path, name: str) -> None:
    (outside / "rules.toml").write_text(f'[tool.memory-autopsy]\ninclude = ["{SECRET}"]\n'
                                        f'include = ["{SECRET}"]\n', encoding="utf-8")
    (repo / name).symlink_to(outside / "rules.toml")
    result = run_cli("scan", cwd=repo)
    assert not leaked(result.out, result.err)
    if name == "memory-autopsy.toml":
        assert result.code == 2 and "leads outside" in result.err


# --- @imports and index links -------------------------------------------------------------


def claude(repo: Path, text: str) -> None:
    (repo / "CLAUDE.md").unlink(missing_ok=True)
    (repo / "CLAUDE.md").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("target", ["@{outside}/secret.md", "@../outside/secret.md", "@~/secret.md",
                                    "@{outside}/no-such.md", "@../outside/no-such.md"])
def test_imports_outside_the_root_are_reported_unread(repo: Path, outside: Path, target: str) -> None:
    claude(repo, "# Rules\n- imports " + target.format(outside=outside) + "\n")
    result = run_cli("scan", "CLAUDE.md", "--format", "json", cwd=repo)
    assert not leaked(result.out, result.err)
    (broken,) = [f for f in json.loads(result.out)["findings"] if f["rule"] == "broken_link"]
    assert "outside the repository" in broken["message"] and "does not exist" not in broken["message"]


def test_an_import_of_a_link_inside_that_leads_out_is_not_followed(repo: Path) -> None:
    claude(repo, "# Rules\n- imports @memory-bank/up.md\n")
    result = run_cli("scan", "CLAUDE.md", "--format", "json", cwd=repo)
    assert not leaked(result.out, result.err)
    assert any("outside" in f["message"] for f in json.loads(result.out)["findings"])


def test_an_index_link_out_is_reported_without_a_look(repo: Path, outside: Path) -> None:
    memory = repo / ".claude" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text(
        f"# Memory\n- [a]({outside}/secret.md)\n- [b](../../../outside/no-such.md)\n", encoding="utf-8")
    result = run_cli("scan", str(memory / "MEMORY.md"), "--format", "json", cwd=repo)
    broken = [f["message"] for f in json.loads(result.out)["findings"] if f["rule"] == "broken_link"]
    assert len(broken) == 2 and all("outside the repository" in m for m in broken)


def test_an_import_of_proc_kmsg_returns_at_once(repo: Path) -> None:
    claude(repo, "# Rules\n- imports @/proc/kmsg\n- and @/dev/zero\n")
    code = ("import sys; from memory_autopsy.cli import main; "
            "sys.exit(main(['scan', 'CLAUDE.md', '--format', 'json']))")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert sum(f["rule"] == "broken_link" for f in json.loads(done.stdout)["findings"]) == 2


def test_the_import_graph_is_walked_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many lines importing one long chain read each file of it once (the walk was quadratic)."""
    for n in range(200):
        (repo / f"d{n}.md").write_text(f"- next @d{n + 1}.md\n" if n < 199 else "- end\n", encoding="utf-8")
    claude(repo, "# Rules\n" + "".join(f"- rule {n} @d{n % 200}.md\n" for n in range(2000)))
    reads: list[str] = []
    original = imports.read_inside

    def counted(path: str, roots: Roots, limit: int, **kw: bool) -> bytes:
        reads.append(path)
        return original(path, roots, limit, **kw)

    monkeypatch.setattr(imports, "read_inside", counted)
    result = run_cli("scan", "CLAUDE.md", "--format", "json", cwd=repo)
    assert result.code in (0, 1), result.err
    assert len(reads) == len(set(reads)) == 200
    deep = [f for f in json.loads(result.out)["findings"] if "past the limit" in f["message"]]
    assert len(deep) == 2000 - 10 * 5  # all but the imports of d195..d199 (chains of 5 files or fewer)


def test_an_import_loop_and_a_missing_file_through_a_chain(repo: Path) -> None:
    (repo / "a.md").write_text("- see @b.md\n", encoding="utf-8")
    (repo / "b.md").write_text("- see @c.md\n", encoding="utf-8")
    (repo / "c.md").write_text("- see @a.md\n- and @missing.md\n", encoding="utf-8")
    (repo / "m1.md").write_text("- see @missing.md\n", encoding="utf-8")
    claude(repo, "# Rules\n- loop: @a.md\n- also: @c.md\n- gone: @m1.md\n")
    result = run_cli("scan", "CLAUDE.md", "--format", "json", cwd=repo)
    broken = {f["line"]: f["message"] for f in json.loads(result.out)["findings"] if f["rule"] == "broken_link"}
    assert "import loop" in broken[2] and "import loop" in broken[3]
    assert "missing.md does not exist" in broken[4] and "via m1.md" in broken[4]


def test_mcp_lint_follows_no_import_outside_its_roots(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude(repo, "# Rules\n- imports @../outside/secret.md\n")
    monkeypatch.chdir(repo)
    result = agent_tools.memory_lint("CLAUDE.md", roots=Roots.of())
    assert not leaked(json.dumps(result))
    assert any("outside the repository" in f["message"] for f in result["findings"])


def test_kind_never_looks_up_an_outside_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    looked: list[str] = []
    monkeypatch.setattr(confined.os, "stat", lambda p, *a, **k: looked.append(p))
    assert confined.kind("/etc/passwd", Roots((str(tmp_path),))) == "outside"
    assert looked == []


def test_a_baseline_swapped_for_a_link_after_its_check_is_refused_unread(
        repo: Path, outside: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline's path is checked to be in the repository, then read from one open that
    follows no link: a link swapped in between is refused, not read."""
    from memory_autopsy.ci import baseline

    (outside / "b.json").write_text(json.dumps({"x": SECRET}), encoding="utf-8")
    (repo / "b.json").symlink_to(outside / "b.json")
    monkeypatch.chdir(repo)
    with pytest.raises(Exception, match="leads outside") as raised:
        baseline.read_text("b.json")
    assert SECRET not in str(raised.value)


def test_a_small_file_read_under_a_large_bound_allocates_its_size(tmp_path: Path) -> None:
    import tracemalloc

    (tmp_path / "small.md").write_text("- a fact\n", encoding="utf-8")
    tracemalloc.start()
    try:
        data = confined.read_inside(str(tmp_path / "small.md"), Roots((str(tmp_path),)), 1 << 30)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data == b"- a fact\n" and peak < 1 << 20
    with pytest.raises(OSError, match="too large"):
        confined.read_inside(str(tmp_path / "small.md"), Roots((str(tmp_path),)), 4)
