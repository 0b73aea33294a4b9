"""A focused run (the hook's changed files) reports exactly what a full run reports about them."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli
from memory_autopsy.api import lint_loaded, load_store
from memory_autopsy.ci.filters import touches_changed
from memory_autopsy.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
STORES = [ROOT / "eval" / "real" / "files" / name for name in (
    "caliluke-ha-greeclimatev2", "bioinfo-nova-brief", "jasonpaulso-mcp-think-tank", "izzatfirdaus-ictserve-031125",
)] + [EXAMPLES]


@pytest.mark.parametrize("store_dir", STORES, ids=[p.name for p in STORES])
def test_focus_changes_nothing_about_the_changed_files(store_dir: Path) -> None:
    store = load_store([str(store_dir)])
    full = lint_loaded(store, Settings())
    for path in store.paths:
        changed = frozenset({path})
        focused = lint_loaded(store, replace(Settings(), focus=changed))
        expected = [f for f in full.findings if touches_changed(f, changed)]
        assert [f for f in focused.findings if touches_changed(f, changed)] == expected, path


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
