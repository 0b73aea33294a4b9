"""What a memory tells as what was is no claim about now. A section titled as history ("##
Before", "### October 15, 2025 (Before)", "### DELETED (11 files)", "## Historical Context") or
a short lead that says so ("**Before:**", "Historical context:", "**Deleted:** 8 files, 372
lines") holds past states: none of them still relies on a name another line rejects, and none
is a path the repository must hold. A heading that only opens with such a word ("## Before
Committing", "## Removed Dependencies Cleanup Plan") is no history section.

The same section of a run's engine also reads two more removals as what they are: a mark that
retires a way of running a file ("`uv run src/app/cli.py` (legacy direct)") retires the command,
not the file; a removal of a name's parts in the plural ("Deleted numerous unused shadcn/ui
components") removes those parts, not the library."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import committed_repo, findings_of, run_cli, write

REJECTION = "## Cleanup\n\n- Removed `legacy_api/` and its router (2026-03-09).\n"
HEADINGS = ("Before", "October 15, 2025 (Before)", "DELETED (11 files)", "Historical Context", "History",
            "Previously", "Legacy", "Deprecated", "Removed", "Obsolete", "Superseded", "Archived")
LEADS = ("**Before:**", "Historical context:", "**Previously:**", "**Deleted:** 8 files, 372 lines",
         "Legacy:")
NOT_HISTORY = ("Before Committing", "Removed Dependencies Cleanup Plan", "Stack", "Current Architecture")
STATES = (
    "Routes are served from `legacy_api/`",
    "The REST routes live in `legacy_api/`",
    "**Backend:** `legacy_api/` (FastAPI) + uvicorn",
)
SHAPES = ("- ", "* ", "1. ")


def stale_on(root: Path) -> list[dict[str, object]]:
    return findings_of(root, "stale")


@pytest.mark.parametrize(("heading", "state", "marker"), list(product(HEADINGS, STATES, SHAPES)))
def test_a_state_in_a_history_section_relies_on_nothing(tmp_path: Path, heading: str, state: str, marker: str) -> None:
    write(tmp_path / "memory-bank/systemPatterns.md", f"# Patterns\n\n### {heading}\n\n{marker}{state}\n\n{REJECTION}")
    assert stale_on(tmp_path) == []


@pytest.mark.parametrize(("lead", "state", "marker"), list(product(LEADS, STATES, SHAPES)))
def test_a_state_under_a_history_lead_relies_on_nothing(tmp_path: Path, lead: str, state: str, marker: str) -> None:
    write(tmp_path / "memory-bank/systemPatterns.md",
          f"# Patterns\n\n## Architecture\n\n{lead}\n{marker}{state}\n\n{REJECTION}")
    assert stale_on(tmp_path) == []


@pytest.mark.parametrize(("heading", "state", "marker"), list(product(NOT_HISTORY, STATES, SHAPES)))
def test_a_state_under_another_heading_still_relies_on_the_removed_name(
        tmp_path: Path, heading: str, state: str, marker: str) -> None:
    write(tmp_path / "memory-bank/systemPatterns.md", f"# Patterns\n\n## {heading}\n\n{marker}{state}\n\n{REJECTION}")
    found = stale_on(tmp_path)
    assert len(found) == 1 and "legacy_api/" in str(found[0]["message"]), found


@pytest.mark.parametrize("lead", ("**Updated:**", "Current layout:"))
def test_a_lead_after_the_history_lead_ends_it(tmp_path: Path, lead: str) -> None:
    write(tmp_path / "memory-bank/systemPatterns.md",
          f"# Patterns\n\n## Architecture\n\n**Before:**\n- Port 8000: FastAPI\n\n{lead}\n- {STATES[0]}\n\n{REJECTION}")
    assert len(stale_on(tmp_path)) == 1


@pytest.mark.parametrize("heading", ("Before", "DELETED (3 files)", "Historical Context"))
def test_a_path_in_a_history_section_is_not_looked_for(tmp_path: Path, heading: str) -> None:
    repo = committed_repo(tmp_path / "repo", {"src/app.py": "print(1)\n"})
    write(repo / "memory-bank/techContext.md",
          f"# Tech\n\n## {heading}\n\n- The server started from `src/server/main.py`\n\n## Now\n\n- Entry point: `src/app.py`\n")
    assert findings_of(repo, "missing_path") == []


def test_a_path_in_a_current_section_is_still_looked_for(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo", {"src/app.py": "print(1)\n"})
    write(repo / "memory-bank/techContext.md", "# Tech\n\n## Stack\n\n- The server starts from `src/server/main.py`\n")
    assert len(findings_of(repo, "missing_path")) == 1


RUNNERS = ("uv run {n}", "python {n}", "python -m {m}", "uv run python -m {m}", "node {n}", "npx {n}")
MARKS = ("legacy direct", "legacy module", "deprecated", "legacy")
USES = ("**Location:** `{n}`", "Shared functions live in `{n}`", "Imports come from `{m}`")


@pytest.mark.parametrize(("runner", "mark", "use"), list(product(RUNNERS, MARKS, USES)))
def test_a_mark_on_a_way_of_running_a_file_retires_the_command_not_the_file(
        tmp_path: Path, runner: str, mark: str, use: str) -> None:
    names = {"n": "src/backend/cli.py", "m": "backend.cli"}
    write(tmp_path / "memory-bank/techContext.md",
          f"# Tech\n\n## Entry points\n\n- `{runner.format(**names)}` ({mark})\n\n## Layout\n\n- {use.format(**names)}\n")
    assert stale_on(tmp_path) == []


@pytest.mark.parametrize(("mark", "use"), list(product(MARKS[2:], USES[:2])))
def test_a_mark_on_the_file_itself_still_retires_it(tmp_path: Path, mark: str, use: str) -> None:
    write(tmp_path / "memory-bank/techContext.md",
          f"# Tech\n\n## Entry points\n\n- `src/backend/cli.py` ({mark})\n\n## Layout\n\n- {use.format(n='src/backend/cli.py')}\n")
    assert len(stale_on(tmp_path)) == 1


PARTS = ("components", "files", "hooks", "styles")


@pytest.mark.parametrize(("verb", "part"), list(product(("Deleted numerous unused", "Removed old", "Dropped"), PARTS)))
def test_removing_parts_of_a_name_in_the_plural_leaves_the_name(tmp_path: Path, verb: str, part: str) -> None:
    write(tmp_path / "memory-bank/activeContext.md", f"# Active\n\n## Cleanup\n\n- {verb} `shadcn/ui` {part}\n")
    write(tmp_path / "memory-bank/techContext.md", "# Tech\n\n## Stack\n\n- **UI:** `shadcn/ui` with Tailwind\n")
    assert stale_on(tmp_path) == []


@pytest.mark.parametrize("verb", ("Deleted", "Removed", "Dropped"))
def test_removing_the_name_itself_still_outdates_it(tmp_path: Path, verb: str) -> None:
    write(tmp_path / "memory-bank/activeContext.md", f"# Active\n\n## Cleanup\n\n- {verb} `shadcn/ui`\n")
    write(tmp_path / "memory-bank/techContext.md", "# Tech\n\n## Stack\n\n- **UI:** `shadcn/ui` with Tailwind\n")
    assert len(stale_on(tmp_path)) == 1


def test_the_rule_file_names_a_history_section_of_its_own(tmp_path: Path) -> None:
    memory = f"# Patterns\n\n## Vorher\n\n- {STATES[0]}\n\n{REJECTION}"
    write(tmp_path / "memory-bank/systemPatterns.md", memory)
    assert len(stale_on(tmp_path)) == 1
    write(tmp_path / "memory-autopsy.toml", '[vocabulary]\nsection-kinds = { "Vorher" = "history" }\n')
    code, out, _ = run_cli("scan", ".", "--json", "--fail-on", "error", cwd=tmp_path)  # the rule file is found from here
    assert code == 0 and [f for f in json.loads(out)["findings"] if f["rule"] == "stale"] == []
