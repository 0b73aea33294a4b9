"""Messages say what they show: "here" is the printed location, the other side is named, and a
default text line carries no layer, confidence or entity (issue 47, item 3)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, committed_repo, run_cli

LINE = re.compile(r"^(?P<where>[^:]+:\d+(?:#obs-\d+)?): (?P<severity>\w+) (?P<rule>\w+)(?: (?P<code>MA\d+))?(?P<rest>.*)$")
PENDING = "# Active context\n\n## Current focus\n- [ ] Add retry with backoff to the invoice sync job\n"
DONE = "# Progress\n\n## Done\n- [x] Add retry with backoff to the invoice sync job\n"


def parsed(out: str) -> list[re.Match[str]]:
    lines = [line for line in out.splitlines() if line and not line.startswith(("clean", "=="))]
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    return [m for m in matches if m]


def test_the_hook_says_a_finding_from_the_changed_side(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo", {"memory-bank/activeContext.md": PENDING,
                                               "memory-bank/progress.md": DONE})
    result = run_cli("hook", "memory-bank/progress.md", "--isolated", cwd=repo)
    [line] = [m for m in parsed(result.out) if m["rule"] == "status_conflict"]
    assert line["where"] == "memory-bank/progress.md:4"
    assert line["rest"].startswith(": pending at memory-bank/activeContext.md:4, but done here ")
    assert "flagged side" not in line["rest"] and "progress.md:4" not in line["rest"]
    flagged = run_cli("hook", "memory-bank/activeContext.md", "--isolated", cwd=repo)
    [line] = [m for m in parsed(flagged.out) if m["rule"] == "status_conflict"]
    assert line["where"] == "memory-bank/activeContext.md:4"
    assert line["rest"].startswith(": pending here, but done at memory-bank/progress.md:4 ")


def examples_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo)
    return committed_repo_in_place(repo)


def committed_repo_in_place(repo: Path) -> Path:
    from conftest import git

    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


@pytest.mark.parametrize("changed", ["memory.md", "memory-bank/progress.md", "memory-bank/decisionLog.md",
                                     "claude-memory/memory/MEMORY.md", "memory-bank/activeContext.md"])
def test_no_line_names_its_own_location_as_the_other_side(tmp_path: Path, changed: str) -> None:
    repo = examples_repo(tmp_path)
    result = run_cli("hook", changed, "--isolated", "--fail-on", "never", cwd=repo)
    lines = parsed(result.out)
    assert lines
    for line in lines:
        own = line["where"].partition("#")[0]
        said = re.sub(r"'[^']*'|\"[^\"]*\"", "''", line["rest"])  # memory text may name anything
        assert not re.search(re.escape(own) + r"(?!\d)", said), line.group(0)


def test_default_text_is_a_sentence_and_verbose_keeps_the_internals(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    plain = run_cli("scan", "examples", "--isolated", cwd=tmp_path).out
    assert plain.count("\n") > 10
    assert not re.search(r" L\d\w* | conf=| :: ", plain)
    verbose = run_cli("scan", "examples", "--isolated", "-v", cwd=tmp_path).out
    assert re.search(r" L2b? \S.* :: ", verbose) and "conf=" in verbose
    assert len(plain.splitlines()) == len(verbose.splitlines())
