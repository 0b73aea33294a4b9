"""The status matrix: one task open in one place (a check box, a Next Steps item, a TODO, ⏳, an
In Progress section, a table row or a heading) and done in another (a checked box, a Completed
section, ✅, the task in the past tense, a table row at 100%, a heading marked complete), in two
files of a memory bank or two sections of one file, is a `status_conflict` whatever the pair of
forms; the task may be named by its verb ("migrate the billing tables") or its noun ("billing
tables migration"). Look-alikes stay silent: another task sharing most words, work begun or
done in part against the task of finishing it."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import NamedTuple

from conftest import run_cli, write

# (as a task, in the past tense, as a noun phrase)
TASKS = [
    ("add retry to the sync job", "Added retry to the sync job", "Retry for the sync job"),
    ("migrate the billing tables to Postgres", "Migrated the billing tables to Postgres",
     "Billing tables migration to Postgres"),
]
# form -> (a section heading it needs, the item): {t} the task, {p} past tense, {n} noun phrase
OPEN = {
    "box": ("", "- [ ] {t}"),
    "next_steps": ("## Next Steps\n", "- {t}"),
    "todo": ("", "- TODO: {t}"),
    "hourglass": ("", "- ⏳ {t}"),
    "paren": ("", "- {t} (pending)"),
    "in_progress": ("## In Progress\n", "- {t}"),
    "dash": ("", "- {t} — in progress"),
    "table": ("| Task | Status |\n|---|---|\n", "| {n} | Not started |"),
    "table_percent": ("| Task | Progress |\n|---|---|\n", "| {n} | 20% |"),
    "heading": ("", "### {n} (In Progress)\n- notes"),
}
DONE = {
    "box": ("", "- [x] {t}"),
    "completed": ("## Completed\n", "- {t}"),
    "check": ("", "- ✅ {t}"),
    "paren": ("", "- {t} (done)"),
    "past": ("", "- {p}"),
    "past_check": ("", "- ✅ {p}"),
    "table": ("| Task | Status |\n|---|---|\n", "| {n} | ✅ Done |"),
    "table_percent": ("| Task | Progress |\n|---|---|\n", "| {n} | 100% |"),
    "heading": ("", "### {n} ✅ COMPLETE\n- notes"),
}
# (open item, done item): not one task, or not done
LOOK_ALIKES = [
    ("- [ ] add retry to the sync job", "- [x] add retry to the billing job"),
    ("- [ ] add retry to the sync job", "- ✅ Added logging to the sync job"),
    ("- [ ] migrate the billing tables to Postgres", "- ✅ Migrated the invoice tables to Postgres"),
    ("- [ ] finish the billing tables migration", "- Began the billing tables migration"),
    ("- [ ] complete the billing tables migration", "- ✅ Billing tables migration (partial)"),
    ("- [ ] complete the retry for the sync job", "- Started the retry for the sync job"),
]
LAYOUTS = ("two_files", "one_file")


class Case(NamedTuple):
    name: str
    open_item: str
    done_item: str
    expect: bool


def _item(form: tuple[str, str], task: tuple[str, str, str]) -> str:
    head, item = form
    return head + item.format(t=task[0], p=task[1], n=task[2]) + "\n"


def cases() -> list[Case]:
    found = [Case(f"{o}/{d}/{task[0].split()[0]}", _item(OPEN[o], task), _item(DONE[d], task), True)
             for o, d, task in itertools.product(OPEN, DONE, TASKS)]
    found += [Case(f"look-alike {i}", f"{a}\n", f"{b}\n", False) for i, (a, b) in enumerate(LOOK_ALIKES)]
    return found


def _bank(folder: Path, case: Case, layout: str) -> None:
    if layout == "two_files":
        write(folder / "activeContext.md", "# Active Context\n\n## Current Work\n\n" + case.open_item)
        write(folder / "progress.md", "# Progress\n\n## Status\n\n" + case.done_item)
    else:
        write(folder / "progress.md", "# Progress\n\n## Plan\n\n" + case.open_item + "\n## Log\n\n" + case.done_item)


def test_the_matrix_is_large_and_balanced() -> None:
    found = cases()
    assert sum(c.expect for c in found) * len(LAYOUTS) >= 300
    assert sum(not c.expect for c in found) * len(LAYOUTS) >= 12


def test_a_task_open_in_one_place_and_done_in_another_is_a_status_conflict(tmp_path: Path) -> None:
    wrong = []
    for i, (case, layout) in enumerate(itertools.product(cases(), LAYOUTS)):
        folder = tmp_path / f"case{i}" / "memory-bank"
        _bank(folder, case, layout)
        code, out, err = run_cli("scan", str(folder), "--json", "--fail-on", "never")
        assert code == 0, err
        flagged = any(f["rule"] == "status_conflict" for f in json.loads(out)["findings"])
        if flagged != case.expect:
            wrong.append(f"{layout} {case.name}: {case.open_item.strip()!r} / {case.done_item.strip()!r}")
    assert wrong == []


def test_a_thing_named_partial_is_no_partial_work(tmp_path: Path) -> None:
    case = Case("named partial", "- [ ] add partial refunds to the billing job\n",
                "- ✅ Added partial refunds to the billing job\n", True)
    _bank(tmp_path / "memory-bank", case, "two_files")
    code, out, err = run_cli("scan", str(tmp_path / "memory-bank"), "--json", "--fail-on", "never")
    assert code == 0, err
    assert [f["rule"] for f in json.loads(out)["findings"] if f["rule"] == "status_conflict"] == ["status_conflict"]
