"""Units of work told as a run ("Phases 3-6 planned", "Phases 0-2 complete, Phases 3-6
planned", "Phase 3 to Phase 6 not started", "Completed Phases 0-4") against one unit inside the
run with the other status (a heading marked complete, a table row at 100%, a check mark, a
Next Steps item), or against another run: one unit is pending in one place and done in
another, a `status_conflict` in every pair of forms, in two files of a memory bank or two
sections of one file. Look-alikes stay silent: a unit outside the run, a sub-unit, a unit
named later in a claim ("Integration tests for Phase 3"), an order ("Complete Phase 4 by
May"), a unit the run's own claim excepts ("Phases 0-12 complete (Phase 11 deferred)")."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from conftest import run_cli, write

# Each holds phase 4 open (pending, in progress, blocked) or done, alone or inside a run.
OPEN = {
    "next step": "## Next Steps\n\n- Phase 4: search indexing\n",
    "in progress": "## Current Focus\n\n- Phase 4 In Progress (NOW)\n",
    "heading": "## Phase 4 - IN PROGRESS\n\n- search indexing\n",
    "table": "| Phase | Status |\n|---|---|\n| Phase 4 | In progress |\n",
    "run planned": "## Status\n\n- Phases 0-2 complete, Phases 3-6 planned\n",
    "run labelled": "## Status\n\n- Phases 3–6: pending\n",
    "run to": "## Status\n\n- Phase 3 to Phase 6 not started\n",
    "run through": "## Status\n\n- Phases 3 through 6 not started\n",
    "run after label": "## Notes\n\n- Planned: Phases 3-6\n",
}
DONE = {
    "heading": "## Phase 4 ✅ (COMPLETE)\n\n- search indexing shipped\n",
    "table": "| Phase | Progress |\n|---|---|\n| Phase 4 | 100% |\n",
    "check": "- ✅ Phase 4: search indexing\n",
    "run": "## Status\n\n- Phases 0-4 complete\n",
    "run en dash": "## Status\n\n- Phases 1–5 done\n",
    "run led": "## Status\n\n- Completed Phases 0-4\n",
    "two runs": "## Status\n\n- Phases 0-1 and Phases 2-4 complete\n",
}
SINGLE = {"next step", "in progress", "heading", "table"}
LOOK_ALIKES = {
    "outside the run": ("## Status\n\n- Phases 5-6 planned\n", "## Phase 3 ✅ (COMPLETE)\n\n- x\n"),
    "outside the done run": ("## Next Steps\n\n- Phase 7: search indexing\n", "## Status\n\n- Phases 0-4 complete\n"),
    "sub-unit": ("## Next Steps\n\n- Phase 3.2: search\n", "## Status\n\n- Phases 1-3.1 complete\n"),
    "named later": ("## Next Steps\n\n- [ ] Integration tests for Phase 3\n", "## Status\n\n- Phases 1-4 complete\n"),
    "named later, done": ("## Status\n\n- Phases 3-6 planned\n", "- ✅ Wrote the docs for Phase 4\n"),
    "an order": ("## Status\n\n- Phases 3-6 planned\n", "- Target: Complete Phase 4 by 2026-05-01\n"),
    "excepted": ("## Phase 11 — DEFERRED\n\n- crypto features deferred\n",
                 "## Current State\n\nPhases 0-12 complete (Phase 11 deferred). All apps running.\n"),
    "a long run of numbers": ("## Status\n\n- Steps 1-2000 pending\n", "- ✅ Step 7: done\n"),
    "a year": ("## Status\n\n- Chapter 1 - 2024 review pending\n", "- ✅ Chapter 5 complete\n"),
}
CASES = [(o, d) for o, d in itertools.product(OPEN, DONE) if not (o in SINGLE and d in ("heading", "table", "check"))]


def conflicts(root: Path, open_text: str, done_text: str, layout: str) -> list[dict[str, object]]:
    if layout == "two_files":
        write(root / "memory-bank" / "activeContext.md", f"# Active Context\n\n{open_text}")
        write(root / "memory-bank" / "progress.md", f"# Progress\n\n{done_text}")
    else:
        write(root / "memory-bank" / "progress.md", f"# Progress\n\n{open_text}\n{done_text}")
    result = run_cli("scan", str(root), "--json", "--fail-on", "never", "--no-grounding")
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == "status_conflict"]


@pytest.mark.parametrize("layout", ["two_files", "one_file"])
@pytest.mark.parametrize(("open_form", "done_form"), CASES)
def test_a_unit_inside_a_run_is_one_task(tmp_path: Path, open_form: str, done_form: str, layout: str) -> None:
    found = conflicts(tmp_path, OPEN[open_form], DONE[done_form], layout)
    assert found, f"{open_form} / {done_form}: no status_conflict"


@pytest.mark.parametrize("layout", ["two_files", "one_file"])
@pytest.mark.parametrize("case", LOOK_ALIKES)
def test_units_apart_stay_silent(tmp_path: Path, case: str, layout: str) -> None:
    assert conflicts(tmp_path, *LOOK_ALIKES[case], layout) == []
