"""A focused run (the hook's changed files) reports exactly what a full run reports about them."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli
from memory_autopsy.api import lint_loaded, load_store
from memory_autopsy.engine.findings import touches_changed
from memory_autopsy.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
STORES = [ROOT / "eval" / "real" / "files" / name for name in (
    "caliluke-ha-greeclimatev2", "bioinfo-nova-brief", "jasonpaulso-mcp-think-tank", "izzatfirdaus-ictserve-031125",
)] + [EXAMPLES]


def _records(*rows: tuple[str, str, str, str, str]) -> str:
    return "".join(json.dumps({"id": i, "entity": e, "slot": s, "value": v, "observed_at": d}) + "\n"
                   for i, e, s, v, d in rows)


def _claims(*rows: tuple[str, str, str]) -> str:
    return "".join(json.dumps({"entity": e, "claim": c, "observed_at": d}) + "\n" for e, c, d in rows)


# Stores made for a focused run to get wrong: each layer that skips what no changed file holds
# has pairs within a file, across files, and none. Per store: its files, then the rules and the
# number of findings a full run must report (the store is worth comparing on).
MADE: dict[str, tuple[dict[str, str], set[str], int]] = {
    # Given ids reused across files (with other content, and with the same), and one slot filled
    # with other values in each file.
    "ids": ({
        "a.jsonl": _records(("r1", "billing", "db", "PostgreSQL 14", "2025-01-01"),
                            ("r2", "auth", "region", "eu", "2025-01-01"),
                            ("r9", "ops", "tier", "1", "2025-01-01"), ("r9", "ops", "tier", "2", "2025-01-03")),
        "b.jsonl": _records(("r1", "billing", "db", "MySQL 8", "2025-02-01"), ("r3", "auth", "region", "us", "2025-02-01")),
        "c.jsonl": _records(("r2", "search", "engine", "Solr", "2025-03-01"),
                            ("r4", "billing", "db", "MySQL 8", "2025-03-01"),
                            ("r5", "ops", "tier", "3", "2025-03-01"), ("r5", "ops", "tier", "4", "2025-03-02")),
    }, {"duplicate_id", "stale", "contradicted_implicit"}, 4),
    # Retractions in one file of claims in others: a retracted claim without a slot beside its
    # trigger's file, and one whose slot another file fills (the slot layer skips it).
    "retractions": ({
        "a.jsonl": _claims(("billing", "billing uses PostgreSQL 14 for invoices", "2025-01-01"),
                           ("search", "the Solr cluster is the search backend", "2025-01-01")),
        "b.jsonl": _claims(("billing", "billing migrated from PostgreSQL to MySQL 8", "2025-03-01"),
                           ("search", "search replaced Solr with OpenSearch", "2025-03-01")),
        "c.jsonl": _claims(("billing", "billing uses MySQL 8 for invoices", "2025-04-01"),
                           ("search", "Solr is still the search backend", "2025-02-01")),
    }, {"contradicted_explicit"}, 3),
    # Names rejected in one file and relied on in the others.
    "rejections": ({
        "a.jsonl": _claims(("api", "never use legacy_client anymore", "2025-03-01"),
                           ("api", "the worker reads from queue_v2", "2025-01-01")),
        "b.jsonl": _claims(("api", "the checkout service calls legacy_client", "2025-01-01"),
                           ("jobs", "do not use queue_v2 anymore", "2025-04-01")),
        "c.jsonl": _claims(("web", "the frontend goes through legacy_client", "2025-01-02"),
                           ("jobs", "the cron reads from queue_v2", "2025-01-02")),
    }, {"stale"}, 3),
}


@pytest.mark.parametrize("store_dir", [*STORES, *MADE], ids=[*(p.name for p in STORES), *MADE])
def test_focus_changes_nothing_about_the_changed_files(store_dir: Path | str, tmp_path: Path) -> None:
    if isinstance(store_dir, str):
        files, rules, least = MADE[store_dir]
        for name, text in files.items():
            (tmp_path / name).write_text(text, encoding="utf-8")
        store_dir = tmp_path
    store = load_store([str(store_dir)])
    full = lint_loaded(store, Settings())
    if store_dir == tmp_path:
        assert rules <= {f.rule for f in full.findings} and len(full.findings) >= least, full.findings
    for path in store.paths:
        changed = frozenset({path})
        focused = lint_loaded(store, replace(Settings(), focus=changed))
        expected = [f for f in full.findings if touches_changed(f, changed)]
        assert [f for f in focused.findings if touches_changed(f, changed)] == expected, path


def test_a_focus_on_every_file_is_the_full_run() -> None:
    """A store of one changed file (or with every file changed) has nothing to narrow: the
    focused report is the full report."""
    store = load_store([str(EXAMPLES)])
    full = lint_loaded(store, Settings())
    focused = lint_loaded(store, replace(Settings(), focus=frozenset(store.paths)))
    assert focused.findings == full.findings and len(full.findings) > 20


def test_hook_output_is_the_unfocused_report_on_each_changed_file(tmp_path: Path) -> None:
    """The hook lints with the changed files as focus; its findings are exactly the findings of a
    full scan of the same multi-file store that touch those files (flagged or related side)."""
    memory = tmp_path / "memory"
    for store_dir in STORES:
        shutil.copytree(store_dir, memory / store_dir.name)
    full = json.loads(run_cli("scan", "--isolated", "--json", "memory", cwd=tmp_path).out)
    files = sorted({p for f in full["findings"] for p in (f["path"], *(r["path"] for r in f["related"]))})
    assert len(files) > 5 and len(full["findings"]) > 20  # the store is worth comparing on
    for changed in files:
        hook = run_cli("hook", "--isolated", "--no-cache", "--json", "--context", "memory", changed,
                       cwd=tmp_path)
        expected = [f for f in full["findings"]
                    if f["path"] == changed or any(r["path"] == changed for r in f["related"])]
        assert json.loads(hook.out)["findings"] == expected, changed
