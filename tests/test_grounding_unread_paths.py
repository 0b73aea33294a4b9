"""Paths the grounding layer used to read past, in every store shape that writes them: a path
whose first folder the repository has at its root, though a longer path elsewhere ends so
(`supabase/migrations/` beside `upload/supabase/migrations/`); a folder in a code span without
its closing slash; a path an item gives alone, whatever ends it; a file a knowledge graph's
observation reports work on ("Updated MODAL_PLAN.md to …"); a bare file name a claim sends its
reader to ("consult `notes.mdc`"). Each is `missing_path`; each look-alike stays silent (a path
held as written or as an import names it, a folder nothing anchors, a build's output, a
placeholder, a removal, a plan, an example)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import committed_repo, run_cli

REPOSITORY = {
    "README.md": "# Demo\n", "package.json": "{}\n",
    "supabase/config.toml": "", "upload/supabase/migrations/001_init.sql": "", "upload/supabase/functions/sync/index.ts": "",
    "src/app/components/button.tsx": "", "src/lib/utils.ts": "", "src/app.py": "",
    "test/cases/01_basic/test.sh": "", "internal/adapters/in/http.go": "", "ui/index.html": "",
    "docs/guide.md": "",
}

# (phrasing, text, flagged): markdown items, written with and without a label before them
ANCHORED = [
    ("under", "Added the migration placeholders under `supabase/migrations/`", True),
    ("holds", "`supabase/functions/` holds the edge functions", True),
    ("file", "The first migration is `supabase/migrations/001_init.sql`", True),
    ("held", "The migrations are in `upload/supabase/migrations/`", False),
    ("held_file", "The project config is `supabase/config.toml`", False),
    ("tail", "The first migration is `migrations/001_init.sql`", False),  # no root `migrations/`: a tail
]
FOLDER_UNSLASHED = [
    ("into", "Shadcn components are installed into `src/app/components/ui`", True),
    ("deep", "Jobs live in `internal/adapters/out`", True),
    ("held", "Components are in `src/app/components`", False),
    ("module", "Import helpers from `src/lib/utils`", False),  # `src/lib/utils.ts`, as an import names it
    ("package", "Use `next/navigation` for routing", False),  # no `next/` folder: a package
    ("placeholder", "Page parts go in `src/app/PAGE_NAME`", False),
    ("built", "The server serves `ui/dist` as static files", False),  # a build's output
]
ALONE = [
    ("folder", "test/cases/21_pvc_sync_security", True),
    ("odd_end", "src/env.jss", True),
    ("deep_out", "internal/adapters/out/", True),
    ("held", "test/cases/01_basic", False),
    ("prose", "client/server", False),  # no `client/` folder: words
    ("words", "and/or", False),
    ("built", "ui/dist", False),
]
CONSULTED = [
    ("review", "Review `learned-notes.mdc` to see whether the rule is new", True),
    ("consult", "Before answering, the assistant should consult `learned-notes.mdc`", True),
    ("edit", "Suggest an edit to `learned-notes.mdc` to add the entry", True),
    ("referenced", "Knowledge is stored and referenced in the `learned-notes.mdc` file", True),
    ("read", "Read `learned-notes.mdc` first", True),
    ("stored", "The scraper stores its pages in `pages-cache.json`", False),  # data a run writes
    ("create", "Create `learned-notes.mdc` and consult it", False),  # work to do
    ("will", "We will add `learned-notes.mdc` later", False),
    ("sentence", "Each service keeps a `retry_job.py` of its own", False),
    ("held", "Review `guide.md` before a release", False),
]
SHAPES: dict[str, tuple[str, Callable[[str], str]]] = {
    "memory-bank/systemPatterns.md": ("# System Patterns\n\n## Jobs\n\n", lambda t: f"- {t}\n"),
    "CLAUDE.md": ("# Project\n\n## Architecture\n\n", lambda t: f"- {t}\n"),
    ".cursor/rules/jobs.mdc": ("---\ndescription: jobs\nalwaysApply: true\n---\n\n", lambda t: f"* {t}\n"),
    ".clinerules/structure.md": ("# Structure\n\n## Parts\n\n", lambda t: f"1. {t}\n"),
    "memory-bank/activeContext.md": ("# Active Context\n\n## Components\n\n", lambda t: f"- **Jobs:**\n  - {t}\n"),
}
# A nested item under a bold label (`activeContext.md`): the reader puts the label first, and no
# part of the path.
TABLES = {"ANCHORED": ANCHORED, "FOLDER_UNSLASHED": FOLDER_UNSLASHED, "ALONE": ALONE, "CONSULTED": CONSULTED}


def _scan(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, int]]:
    repo = committed_repo(tmp_path / "repo", {**REPOSITORY, **files})
    code, out, err = run_cli("scan", *files, "--json", "--fail-on", "never", cwd=repo)
    assert code == 0, err
    return {(f["path"], f["line"]) for f in json.loads(out)["findings"] if f["rule"] == "missing_path"}


def test_the_cases_are_many_and_balanced() -> None:
    cases = [case for table in TABLES.values() for case in table]
    assert len(cases) * len(SHAPES) >= 150
    assert sum(flag for _, _, flag in cases) >= 12 and sum(not flag for _, _, flag in cases) >= 15


def test_every_phrasing_in_every_shape(tmp_path: Path) -> None:
    files, expected = {}, {}
    for shape, (header, item) in SHAPES.items():
        text = header
        for table, cases in TABLES.items():
            for phrasing, claim, flag in cases:
                line = text.count("\n") + 1 + item(claim).count("\n") - 1
                expected[(shape, line)] = (flag, f"{table}/{phrasing}: {claim}")
                text += item(claim) + "\n"
        files[shape] = text
    flagged = _scan(tmp_path, files)
    wrong = sorted((at, what) for at, (flag, what) in expected.items() if (at in flagged) != flag)
    assert wrong == []


def test_an_example_section_sends_no_one_to_a_file(tmp_path: Path) -> None:
    text = "# Memory\n\n## Example Scenario\n\n- Review `learned-notes.mdc` for the version\n\n## Usage\n\n- Review `learned-notes.mdc` for the version\n"
    flagged = _scan(tmp_path, {".cursor/rules/memory.mdc": text})
    assert flagged == {(".cursor/rules/memory.mdc", 9)}


# A knowledge graph's observations have no code marks: a file's name is written bare there, and
# one an observation reports work on ("Updated …", "Fixed …: …") is said to be there.
GRAPH = [
    ("updated", "Updated MODAL_MIGRATION_PLAN.md to reflect the completed phases", True),
    ("fixed", "Fixed ExternalItemModal.tsx: the modal now closes after apply", True),
    ("created", "Created scripts/verify_grouping.py to confirm the prompts", True),
    ("slashed", "The retry logic lives in src/sync/retry_job.py", True),
    ("held", "Updated README.md with the setup steps", False),
    ("removed", "Removed LegacyModal.tsx and its tests", False),
    ("sentence", "Each service keeps a retry_job.py of its own", False),
    ("will", "Will add NewModal.tsx in the next session", False),
    ("product", "Migrated the charts to Chart.js", False),
    ("kind", "Updated component.tsx in each feature folder", False),
]


def test_a_graph_observation_names_files_bare(tmp_path: Path) -> None:
    rows = [json.dumps({"type": "entity", "name": f"Session{i}", "entityType": "session", "observations": [text]})
            for i, (_, text, _) in enumerate(GRAPH)]
    flagged = _scan(tmp_path, {"memory.jsonl": "".join(row + "\n" for row in rows)})
    wrong = [(i + 1, phrasing, text) for i, (phrasing, text, flag) in enumerate(GRAPH)
             if (("memory.jsonl", i + 1) in flagged) != flag]
    assert wrong == []
