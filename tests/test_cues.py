"""Cues: a store-wide layer visits only the facts whose claim holds its cue, so a cue may be set
in vain but never missing. Held two ways: on every claim of the real corpus, the examples and
the synthetic scenarios, each layer's own reading finds nothing where its cue is unset; and the
engine's findings are the same when every fact is visited."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT
from memory_autopsy import cues
from memory_autopsy.api import load_store
from memory_autopsy.claims import find_transition
from memory_autopsy.engine import lint_store
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.model import Fidelity, Store
from memory_autopsy.normalize import holds_any, normalize_claim
from memory_autopsy.settings import Settings
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

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
    "Do NOT use `table_matchmaking`",
    "`venv/` (legacy - may only exist under themes/venv/)",
    "Likely uses `conftest.py` for fixtures (needs confirmation)",
    "auth flow TBD",
    "billing moved off PostgreSQL to MySQL 8",
    "no longer uses the ledger cache",
    # Case-blind patterns match letters lower-casing keeps apart (ſ, ı, K as s, i, k): the
    # cheap word test before each pattern must not skip these.
    "Pinned: the lateſt version is 1.4.2",
    "Run valkey ınstead of using redis",
    "WORKER CURRENTLY AT VERSION 3.1",
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


def _claims(stores: list[Store]) -> list[tuple[str, str, str, bool]]:
    """Each claim with its normalized body (the rejected-name layer reads that), its body and
    whether it is prose (the transition layer reads a prose body)."""
    edges = {(claim, normalize_claim(claim), claim, True) for claim in EDGES}
    read = {(f.claim, f.norm, f.body, f.fidelity is not Fidelity.FULL) for store in stores for f in store.facts}
    return sorted(read | edges)


def test_a_layer_reads_nothing_where_its_cue_is_unset(stores: list[Store]) -> None:
    lexicon = default_lexicon()
    hint = cues.rejection_words(cues.retiring_words(lexicon))
    missing = []
    seen = 0
    for claim, norm, body, prose in _claims(stores):
        bits = cues.cues(claim, norm, lexicon) | (cues.retraction_cue(body, DEFAULT_VOCABULARY) if prose else 0)
        read = {
            cues.NUMBERS: bool(cues.quantities(claim)),
            cues.PINS: any(cues.PIN.finditer(claim)) or cues.CURRENT.search(claim) is not None,
            cues.REPLACES: cues.REPLACED.search(claim) is not None,
            cues.USES_TOOL: cues.USES.match(claim) is not None,
            cues.REJECTS: holds_any(norm or normalize_claim(claim), hint),
            cues.OPEN: bool(cues.open_mark(claim, lexicon.open_question_words)),
            cues.RETRACTS: prose and find_transition(body or claim, DEFAULT_VOCABULARY) is not None,
        }
        for bit, found in read.items():
            seen += found
            if found and not bits & bit:
                missing.append((bit, claim))
    assert not missing
    assert seen > 20  # the claims do hold cues: the check above is not vacuous


def _findings(store: Store, facts: tuple, settings: Settings | None = None) -> tuple:
    return lint_store(replace(store, facts=facts), settings or Settings()).findings


def test_the_findings_are_those_of_visiting_every_fact(stores: list[Store]) -> None:
    lost = 0
    for store in stores:
        cued = _findings(store, store.facts)
        assert all(f.cues != cues.ALL for f in store.facts)  # the reader read each claim's cues
        assert cued == _findings(store, tuple(f._replace(cues=cues.ALL) for f in store.facts))
        lost += len(cued) - len(_findings(store, tuple(f._replace(cues=0) for f in store.facts)))
    assert lost > 0  # with no cue read, the store-wide layers find nothing: the cues are what they visit


OTHER_WORDS = [
    pytest.param("# Tooling\n- Likely uses `conftest.py` for fixtures (ask-ops)\n"
                 "- edited the fixtures in `conftest.py` (2026-03-01)\n",
                 {"lexicon": replace(default_lexicon(), open_question_words=("ask-ops",))}, 0, cues.OPEN, "stale",
                 id="lexicon"),
    pytest.param("# billing\n- uses PostgreSQL 14 (2026-01-05)\n- yeeted PostgreSQL (2026-03-01)\n",
                 {"vocabulary": DEFAULT_VOCABULARY.extended(transitions=("yeeted",))}, 1, cues.RETRACTS,
                 "contradicted_explicit", id="vocabulary"),
]


@pytest.mark.parametrize(("text", "words", "at", "cue", "rule"), OTHER_WORDS)
def test_cues_read_with_other_words_are_not_trusted(
    tmp_path: Path, text: str, words: dict, at: int, cue: int, rule: str
) -> None:
    """A store read with one lexicon or vocabulary and linted with another (an open-question
    mark, a transition trigger the rule file adds): the cues read with those words do not
    count, so the run finds what its own words find."""
    (tmp_path / "m.md").write_text(text, encoding="utf-8")
    theirs = Settings(**words)
    store = load_store([str(tmp_path)], Settings())
    own = load_store([str(tmp_path)], theirs)
    assert not store.facts[at].cues & cue and own.facts[at].cues & cue
    expected = lint_store(own, theirs).findings
    assert rule in [f.rule for f in expected]
    assert rule not in [f.rule for f in lint_store(store, Settings()).findings]
    assert lint_store(store, theirs).findings == expected
