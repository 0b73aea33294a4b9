"""Cues: a store-wide layer visits only the facts whose claim holds its cue, so a cue may be set
in vain but never missing. Held two ways: on every claim of the real corpus, the examples and
the synthetic scenarios, each layer's own reading finds nothing where its cue is unset; and the
engine's findings are the same when every fact is visited."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT
from memory_autopsy import cues
from memory_autopsy.api import load_store
from memory_autopsy.engine import lint_store
from memory_autopsy.model import Store
from memory_autopsy.settings import Settings

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
SCENARIOS = ROOT / "eval" / "scenarios.json"
# Lines written to sit on the edges of the patterns: a pin in a sentence, a count with its
# state word, a share remaining, a replaced tool and its use.
EDGES = [
    "npx mcp-think-tank@2.0.7 --stdio",
    "MCP Think Tank: currently at version 2.0.9",
    "1,800+ unit tests passing",
    "40% remaining",
    "Use `cargo run --` instead of relying on `kk` on the PATH",
    "Run kk lint to validate content",
]


def _scenario_paths(tmp: Path) -> list[str]:
    sys.path.insert(0, str(ROOT / "eval"))
    try:
        from run_eval import scenario_files
    finally:
        sys.path.pop(0)
    doc = json.loads(SCENARIOS.read_text(encoding="utf-8"))
    paths = []
    for index, scenario in enumerate(doc["scenarios"]):
        folder = tmp / f"s{index:03d}"
        for name, data in scenario_files(scenario).items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        paths.append(str(folder))
    return paths


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> list[Store]:
    tmp = tmp_path_factory.mktemp("scenarios")
    paths = [str(REAL), str(EXAMPLES), *_scenario_paths(tmp)]
    return [load_store([path], Settings()) for path in paths]


def test_the_stores_are_read(stores: list[Store]) -> None:
    assert len(stores) > 100
    assert sum(len(store.facts) for store in stores) > 1000


def _claims(stores: list[Store]) -> list[str]:
    return sorted({fact.claim for store in stores for fact in store.facts} | set(EDGES))


def test_a_layer_reads_nothing_where_its_cue_is_unset(stores: list[Store]) -> None:
    missing = []
    seen = 0
    for claim in _claims(stores):
        bits = cues.cues(claim)
        read = {
            cues.NUMBERS: bool(cues.quantities(claim)),
            cues.PINS: any(cues.PIN.finditer(claim)) or cues.CURRENT.search(claim) is not None,
            cues.REPLACES: cues.REPLACED.search(claim) is not None,
            cues.USES_TOOL: cues.USES.match(claim) is not None,
        }
        for bit, found in read.items():
            seen += found
            if found and not bits & bit:
                missing.append((bit, claim))
    assert not missing
    assert seen > 20  # the claims do hold cues: the check above is not vacuous


def _findings(store: Store, facts: tuple) -> tuple:
    return lint_store(Store(facts, store.declarations, store.problems, store.related_entities, store.paths,
                            store.alias_pairs, store.files), Settings()).findings


def test_the_findings_are_those_of_visiting_every_fact(stores: list[Store]) -> None:
    lost = 0
    for store in stores:
        cued = _findings(store, store.facts)
        assert all(f.cues != cues.ALL for f in store.facts)  # the reader read each claim's cues
        assert cued == _findings(store, tuple(f._replace(cues=cues.ALL) for f in store.facts))
        lost += len(cued) - len(_findings(store, tuple(f._replace(cues=0) for f in store.facts)))
    assert lost > 0  # with no cue read, the store-wide layers find nothing: the cues are what they visit
