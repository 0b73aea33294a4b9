"""The grounding matrix: every phrasing of a claim that a missing path is there (present tense,
done, moved to it) in every store shape the reader knows is `missing_path`; every look-alike
that says no such thing (a plan, an open task, a removal, an example, a modal, a move away from
it) stays silent. One repository holds every case, one memory file per shape, scanned once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from conftest import committed_repo, run_cli

# A folder is written as code: out of code, "client/server/" is as often prose, and a folder is
# read there only in a drawn tree. `{up}` leads from the memory file's folder to the root, as a
# markdown link is written; from a file at the root it leads outside, where nothing is checked.
# "@path" attaches a file by name; in CLAUDE.md it is an import, the reachability layer's.
PATHS = {"file": "src/sync/retry_job.py", "coded": "`src/sync/retry_job.py`", "folder": "`services/billing/`",
         "deep": "packages/web/src/hooks/useCart.ts", "dotted": "`./src/sync/retry_job.py`",
         "line": "`src/sync/retry_job.py:42`", "node": "`src/sync/retry_job.py::test_retry`",
         "function": "src/sync/retry_job.py:run_retry()", "relative": "`{up}src/sync/retry_job.py`",
         "attached": "@src/sync/retry_job.py"}
CLAIMS = {
    "lives": "The retry logic lives in {p}",
    "where": "The retry logic is in {p}",
    "subject": "{p} handles the retries",
    "label": "Retry job: {p}",
    "see": "See {p} for the retry design",
    "read_from": "Settings are read from {p}",
    "located": "The retry job is located at {p}",
    "passive": "Retries are implemented in {p}",
    "bold": "**Retry job** ({p}) retries failed syncs",
    "entry": "Entry point: {p}",
    "link": "See [the retry job]({p}) for the design",
    "done_box": "[x] Added retries to {p}",
    "done_mark": "✅ Implemented {p}",
    "event": "Created {p} to hold the retry job",
    "moved_to": "Moved the retry job to {p}",
    "renamed_to": "Renamed `src/sync/job.py` to {p}",
    "replaced_with": "Replaced the cron script with {p}",
}
QUIET = {
    "plan": "Create {p} for the retry job",
    "plan_move": "Move the retry job into {p}",
    "todo": "[ ] Add retries to {p}",
    "deleted": "Deleted {p}",
    "removed": "Removed {p} in the cleanup",
    "example": "Put each job in its own file (e.g. {p})",
    "moved_from": "Moved the retry job out of {p}",
    "renamed_from": "Renamed {p} to `src/sync/job.py`",
    "will": "We will add {p} next sprint",
    "should": "The retry job should go in {p}",
    "need": "We need to create {p} first",
    "no_longer": "{p} no longer exists",
}
REPOSITORY = {"README.md": "# Demo\n", "src/app.py": "", "src/sync/job.py": "", "services/auth/main.go": "",
              "packages/web/src/index.ts": "", "package.json": "{}\n"}


class Case(NamedTuple):
    phrasing: str
    path: str
    expect: bool
    text: str


def cases(shape: str = "CLAUDE.md") -> list[Case]:
    """The cases as written in the memory file `shape`."""
    up = "../" * max(shape.count("/"), 1)  # at the root, one step leads outside
    return [Case(name, kind, expect and _checked(kind, shape), template.format(p=path.format(up=up)))
            for expect, table in ((True, CLAIMS), (False, QUIET))
            for name, template in table.items()
            for kind, path in PATHS.items()]


def _checked(kind: str, shape: str) -> bool:
    """Whether a claim of a missing path written as `kind` in `shape` is this layer's to flag."""
    if kind == "relative":
        return "/" in shape  # from the root, `../` leads outside the repository
    return not (kind == "attached" and shape == "CLAUDE.md")  # an import: `broken_link`


def _lines(shape: str, header: str, item: Callable[[str], str], gap: str = "\n") -> tuple[str, list[int]]:
    """A file of the cases, one per item, and the line each is on."""
    text, lines = header, []
    for case in cases(shape):
        lines.append(text.count("\n") + 1)
        text += item(case.text) + "\n" + gap[1:]
    return text, lines


def _graph(shape: str) -> tuple[str, list[int]]:
    """One entity per case (a node's observations are one subject's), one line each."""
    rows = [json.dumps({"type": "entity", "name": f"Job{i}", "entityType": "component", "observations": [case.text]})
            for i, case in enumerate(cases(shape))]
    return "".join(row + "\n" for row in rows), list(range(1, len(rows) + 1))


SHAPES: dict[str, Callable[[str], tuple[str, list[int]]]] = {
    "memory-bank/systemPatterns.md": lambda s: _lines(s, "# System Patterns\n\n## Jobs\n\n", lambda t: f"- {t}"),
    "CLAUDE.md": lambda s: _lines(s, "# Project\n\n## Architecture\n\n", lambda t: f"- {t}"),
    ".cursor/rules/jobs.mdc": lambda s: _lines(
        s, "---\ndescription: jobs\nalwaysApply: true\n---\n\n", lambda t: f"- {t}"),
    ".serena/memories/structure.md": lambda s: _lines(s, "# Structure\n\n", lambda t: t, gap="\n\n"),
    ".claude/memory/project_jobs.md": lambda s: _lines(
        s, "---\nname: jobs\ndescription: where the jobs live\ntype: project\n---\n\n", lambda t: t, gap="\n\n"),
    "memory-bank/progress.md": lambda s: _lines(s, "# Progress\n\n## 2026-03-02\n\n", lambda t: f"- {t}"),
    "memory-bank/techContext.md": lambda s: _lines(
        s, "# Tech Context\n\n| Item | Notes |\n|---|---|\n", lambda t: f"| Retry job | {t} |"),
    "memory.jsonl": _graph,
}


def test_the_matrix_is_large_and_balanced() -> None:
    found = [case for shape in SHAPES for case in cases(shape)]
    assert sum(c.expect for c in found) >= 1000
    assert sum(not c.expect for c in found) >= 600


def test_every_claim_of_a_missing_path_is_flagged_and_no_look_alike_is(tmp_path: Path) -> None:
    files, places = {}, {}
    for name, build in SHAPES.items():
        files[name], places[name] = build(name)
    repo = committed_repo(tmp_path / "repo", {**REPOSITORY, **files})
    code, out, err = run_cli("scan", *SHAPES, "--json", "--fail-on", "never", cwd=repo)
    assert code == 0, err
    flagged = {(f["path"], f["line"]) for f in json.loads(out)["findings"] if f["rule"] == "missing_path"}
    missed, false = [], []
    for name in SHAPES:
        for case, line in zip(cases(name), places[name]):
            if ((name, line) in flagged) != case.expect:
                (missed if case.expect else false).append(f"{name}:{line} {case.phrasing}/{case.path}: {case.text}")
    assert (missed, false) == ([], [])


# A bare file name (no folder) is a claim only where the item is about it: it opens the item, as
# its label or after one. In a sentence it is as often a name of a kind ("a `util.go` in each
# package") and stays silent, as does a file named for its kind.
BARE_ABOUT = ("`retry_job.py`: runs the failed syncs again", "**Retry job**: `retry_job.py` (nightly)",
              "`retry_job.py` runs the failed syncs again")
BARE_SENTENCE = ("Each service keeps its retries in a `retry_job.py` of its own",
                 "Run the tests before touching `retry_job.py` or the scheduler",
                 "`component.tsx`: each UI component's implementation",  # a kind's name: a pattern
                 "`Component.test.ts` - the tests beside each component")
BARE_SHAPES: dict[str, Callable[[str], str]] = {
    "memory-bank/systemPatterns.md": lambda t: f"- {t}",
    ".cursor/rules/jobs.mdc": lambda t: f"- {t}",
    ".serena/memories/structure.md": lambda t: f"{t}\n",
    "memory-bank/techContext.md": lambda t: f"| Retry job | {t} |",
    "memory.jsonl": lambda t: json.dumps({"type": "entity", "name": "RetryJob", "entityType": "component",
                                          "observations": [t]}),
}


def test_a_bare_file_name_is_flagged_where_the_item_is_about_it(tmp_path: Path) -> None:
    files, expected = {}, {}
    for shape, item in BARE_SHAPES.items():
        header = "" if shape.endswith(".jsonl") else "# Jobs\n\n| Item | Notes |\n|---|---|\n" if "tech" in shape else "# Jobs\n\n"
        text = header
        for claim in (*BARE_ABOUT, *BARE_SENTENCE):
            expected[(shape, text.count("\n") + 1)] = claim in BARE_ABOUT
            text += item(claim) + "\n"
        files[shape] = text
    repo = committed_repo(tmp_path / "repo", {**REPOSITORY, **files})
    code, out, err = run_cli("scan", *BARE_SHAPES, "--json", "--fail-on", "never", cwd=repo)
    assert code == 0, err
    flagged = {(f["path"], f["line"]) for f in json.loads(out)["findings"] if f["rule"] == "missing_path"}
    wrong = sorted(at for at, expect in expected.items() if (at in flagged) != expect)
    assert wrong == [], [(at, expected[at]) for at in wrong]
