"""A focused run (the hook's changed files) reports exactly what a full run reports about them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from conftest import EXAMPLES
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
