"""An index line's summary ("- [Invoice export](invoice_export.md) — CSV export of monthly
invoices (DONE)") and a memory file's front matter `description` say what their topic holds,
and a status they give is a status like any other: the index calls the export done while its
topic file still lists it under Next Steps, or the description calls it pending while the
progress file checks it off, and that is a `status_conflict`. They are summaries, not claims of
their own: an index line that repeats its file's description is no copy, a summary with no
status says nothing the status layer reads, and a summary whose clauses give several statuses
("export done, import pending") gives the whole no single one."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

THING = "CSV export of monthly invoices"
TASK = "Build the CSV export of monthly invoices"
OTHER = "PDF rendering of delivery notes"

# How an index line links its topic: a markdown link, bold, with a colon, a wiki link
LINKS = {
    "dash": "- [Invoice export](invoice_export.md) — {summary}",
    "colon": "- [Invoice export](invoice_export.md): {summary}",
    "bold": "* **[Invoice export](invoice_export.md)** - {summary}",
    "wiki": "- [[invoice_export]] — {summary}",
}
DONE = {
    "parenthesis": THING + " (DONE)",
    "check_after": THING + " ✅",
    "dash_word": THING + " — completed",
}
PENDING = {
    "parenthesis": THING + " (pending)",
    "hourglass": "⏳ " + THING,
    "dash_word": THING + " — in progress",
}


def _index(root: Path, summary: str, link: str = "dash") -> Path:
    memory = root / ".claude" / "memory"
    write(memory / "MEMORY.md", "# Memory index\n\n" + LINKS[link].format(summary=summary) + "\n")
    return memory


def _topic(memory: Path, body: str, description: str = "") -> None:
    front = f"---\nname: invoice export\ndescription: {description}\ntype: project\n---\n" if description else ""
    write(memory / "invoice_export.md", front + "# Invoice export\n\n" + body)


def _conflicts(memory: Path) -> list[tuple[str, int, str]]:
    return [(Path(f["path"]).name, f["line"], f["message"]) for f in findings_of(memory, "status_conflict")]


@pytest.mark.parametrize(("link", "done"), list(product(LINKS, DONE)))
def test_index_summary_done_against_a_pending_task(tmp_path: Path, link: str, done: str) -> None:
    memory = _index(tmp_path, DONE[done], link)
    _topic(memory, f"## Next Steps\n- {TASK}\n")
    found = _conflicts(memory)
    assert [(name, line) for name, line, _ in found] == [("invoice_export.md", 4)]
    assert "MEMORY.md:3" in found[0][2]


@pytest.mark.parametrize(("link", "pending"), list(product(LINKS, PENDING)))
def test_index_summary_pending_against_done_work(tmp_path: Path, link: str, pending: str) -> None:
    memory = _index(tmp_path, PENDING[pending], link)
    write(memory / "progress.md", f"# Progress\n\n- [x] {THING}\n")
    found = _conflicts(memory)
    assert [(name, line) for name, line, _ in found] == [("MEMORY.md", 3)]
    assert "progress.md:3" in found[0][2]


# (description, body, the line flagged, the line it names): the description pending against
# work the body reports done, or done against a task the body still has under Next Steps
DESCRIBED = [
    *((f"pending-{form}", PENDING[form], f"## Done\n- {THING} shipped to production\n", 3, 9) for form in PENDING),
    *((f"done-{form}", DONE[form], f"## Next Steps\n- {TASK}\n", 9, 3) for form in DONE),
]


@pytest.mark.parametrize(("description", "body", "flagged", "named"), [c[1:] for c in DESCRIBED], ids=[c[0] for c in DESCRIBED])
def test_description_against_the_body(tmp_path: Path, description: str, body: str, flagged: int, named: int) -> None:
    memory = tmp_path / ".claude" / "memory"
    _topic(memory, body, description=description)
    found = _conflicts(memory)
    assert [(name, line) for name, line, _ in found] == [("invoice_export.md", flagged)]
    assert f"invoice_export.md:{named}" in found[0][2]


# --- look-alikes: each must stay silent -------------------------------------------------

@pytest.mark.parametrize("link", list(LINKS))
def test_index_summary_of_another_thing_done(tmp_path: Path, link: str) -> None:
    memory = _index(tmp_path, OTHER + " (DONE)", link)
    _topic(memory, f"## Next Steps\n- {TASK}\n")
    assert _conflicts(memory) == []


@pytest.mark.parametrize("link", list(LINKS))
def test_index_summary_without_a_status(tmp_path: Path, link: str) -> None:
    memory = _index(tmp_path, THING + " for the finance team", link)
    _topic(memory, f"## Next Steps\n- {TASK}\n")
    assert _conflicts(memory) == []


@pytest.mark.parametrize("link", list(LINKS))
def test_summary_of_several_statuses_gives_none(tmp_path: Path, link: str) -> None:
    memory = _index(tmp_path, f"{THING} done, {OTHER} pending", link)
    write(memory / "progress.md", f"# Progress\n\n- [x] {OTHER}\n")
    assert _conflicts(memory) == []


@pytest.mark.parametrize("link", list(LINKS))
def test_index_line_repeating_the_description_is_no_copy(tmp_path: Path, link: str) -> None:
    summary = "How the finance team exports monthly invoices as CSV for the accountants"
    memory = _index(tmp_path, summary, link)
    _topic(memory, "- Exports run on the first day of each month.\n", description=summary)
    for rule in ("duplicate", "near_duplicate", "status_conflict"):
        assert findings_of(memory, rule) == [], rule
