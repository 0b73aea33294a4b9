"""A focused run reports exactly what a full run reports about each changed file, over
generated multi-file stores (property-based).

The layers a focused run narrows (slot groups, given ids, exact copies, retractions, rejected
names, near duplicates) each skip what no changed file holds; the records below are drawn
from a few entities, slots, values and claim shapes, so most stores hold pairs of every kind
within a file, across files and not at all, and the invariant is checked for every file. The
examples are derandomized: the same on every run, and each skip, broken, fails among them.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_autopsy.api import lint_loaded, load_store
from memory_autopsy.engine.findings import touches_changed
from memory_autopsy.settings import Settings

DATES = (None, "2025-01-01", "2025-02-01", "2025-03-01")
TOOLS = ("PostgreSQL 14", "MySQL 8", "Solr")
NAMES = ("legacy_client", "queue_v2")
# Claim shapes, each filled with a tool or a code-like name: states that a retraction or a
# rejection can reach, the retractions and rejections themselves, and two near duplicates
# (drawn twice as often: they meet only within one entity of one file).
CLAIMS = (
    "uses {tool} for invoices", "{tool} is the search backend", "migrated from {tool} to {other}",
    "replaced {tool} with {other}", "the worker reads from {name}", "never use {name} anymore",
    "the cron job goes through {name}",
) + ("the invoices are stored in the primary database cluster",
     "the invoices are stored in the primary database cluster in eu") * 2
record = st.fixed_dictionaries({
    "file": st.sampled_from("abc"),
    "entity": st.sampled_from(("billing", "billing", "search")),
    "shape": st.sampled_from(("slot", "claim", "claim")),
    "slot": st.sampled_from(("db", "engine")),
    "tool": st.sampled_from(range(len(TOOLS))),
    "other": st.sampled_from(range(len(TOOLS))),
    "name": st.sampled_from(range(len(NAMES))),
    "claim": st.sampled_from(range(len(CLAIMS))),
    "id": st.sampled_from((None, None, "r1", "r2", "r3")),
    "observed_at": st.sampled_from(DATES),
})


def _line(item: dict[str, Any]) -> dict[str, Any]:
    line: dict[str, Any] = {"entity": item["entity"], "observed_at": item["observed_at"]}
    if item["id"]:
        line["id"] = item["id"]
    if item["shape"] == "slot":
        line.update(slot=item["slot"], value=TOOLS[item["tool"]])
    else:
        line["claim"] = CLAIMS[item["claim"]].format(
            tool=TOOLS[item["tool"]], other=TOOLS[item["other"]], name=NAMES[item["name"]])
    return line


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record, min_size=2, max_size=14))
def test_focus_changes_nothing_about_any_changed_file(items: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for name in "abc":
            lines = [json.dumps(_line(i)) for i in items if i["file"] == name]
            if lines:
                (Path(folder) / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        store = load_store([folder])
        full = lint_loaded(store, Settings())
        for path in store.paths:
            changed = frozenset({path})
            focused = lint_loaded(store, replace(Settings(), focus=changed))
            expected = [f for f in full.findings if touches_changed(f, changed)]
            assert [f for f in focused.findings if touches_changed(f, changed)] == expected, path
