"""The static embedding model (the `semantic` extra): layer 3 in-process and offline, restatements
in other words reported as `near_duplicate`, look-alikes left alone, values that are values."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, run_process
from memory_autopsy.api import lint
from memory_autopsy.embed.frames import value_kind
from memory_autopsy.settings import EmbedSettings, Settings
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY
from pair_shapes import SHAPES, two_files

RESTATED = [
    ("The frontend is built with Next.js and TypeScript", "Frontend framework: Next.js with TypeScript"),
    ("Retry failed API calls with exponential backoff", "Failed API calls are retried with exponential backoff"),
    # both sides say what is not so: the same polarity, the same rule
    ("Never commit secrets or API keys to the repository", "Do not commit API keys or other secrets into the repo"),
    # a contraction negates as the words do
    ("Don't call the payments API from the browser", "Never call the payments API directly from browser code"),
    # a cosine below 0.86 (0.78), most words shared
    ("Lobby checks for an active match on startup and skips straight to the match",
     "Reconnect flow: the lobby checks for an active match on startup and skips the lobby"),
]


def static(cache: Path) -> Settings:
    return Settings(engine="embed", embed=EmbedSettings(provider="static", cache_dir=str(cache)))


def layer3(paths: list[str], cache: Path) -> list[tuple[str, str]]:
    """The findings of the pairing layers: layer 3, and layer 1's restatements in other words."""
    report = lint(paths, static(cache))
    assert not [f for f in report.findings if f.rule == "degraded"], report.findings
    return [(f.rule, f.severity.value) for f in report.findings if f.layer == "3" or f.rule == "near_duplicate"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("pair", RESTATED, ids=["stack", "retries", "prohibition", "contracted prohibition", "near, most words shared"])
def test_a_claim_restated_in_other_words_is_a_near_duplicate(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    """Found once, by the words (layer 1) when they are the same words, else by meaning."""
    found = layer3(SHAPES[shape](tmp_path, *pair), tmp_path / "cache")
    assert found == [("near_duplicate", "review")]  # layer 3's is measured on the real eval, not judged: it informs


LOOK_ALIKES = {
    "another number": ("Retry failed API calls 3 times with exponential backoff",
                       "Failed API calls are retried 5 times with exponential backoff"),
    "one side negated": ("Retry failed API calls with exponential backoff",
                         "Failed API calls are not retried with exponential backoff"),
    "one side negated, contracted": ("Retry failed API calls with exponential backoff",
                                     "Failed API calls aren't retried with exponential backoff"),
    "one side cannot": ("Workers read the shared cache directly", "Workers cannot read the shared cache directly"),
    "another status": ("[x] Retry failed API calls with exponential backoff",
                       "[ ] Failed API calls are retried with exponential backoff"),
    # a cosine of 0.81, but half the words differ: one limits what the other allows
    "near, half the words": ("Limited special case handling for unique NFT implementations",
                             "This allows for handling unique NFT implementations that require special processing"),
}


@pytest.mark.parametrize("case", LOOK_ALIKES)
def test_look_alikes_of_a_restatement_stay_silent(tmp_path: Path, case: str) -> None:
    assert layer3(two_files(tmp_path, *LOOK_ALIKES[case]), tmp_path / "cache") == []


def test_neighbours_dated_entries_and_two_subjects_are_no_restatements(tmp_path: Path) -> None:
    a, b = RESTATED[0]  # words apart enough that only meaning finds it
    (tmp_path / "list.md").write_text(f"# Notes\n\n- {a}\n- {b}\n", encoding="utf-8")
    (tmp_path / "log.md").write_text(f"# Log\n\n## 2026-01-10\n- {a}\n\n## 2026-03-02\n- {b}\n", encoding="utf-8")
    (tmp_path / "services.md").write_text(
        "# Services\n\n## search-index\n- runs on the shared kubernetes cluster in the eu region\n\n"
        "## metrics-store\n- runs on the shared kubernetes cluster in the eu region today\n", encoding="utf-8")
    graph = [{"type": "entity", "name": name, "entityType": "component", "observations": [text]}
             for name, text in (("HistoryItem", "Self-contained component with its own translation files"),
                                ("HistoryComment", "A self-contained component that has its own translations"))]
    (tmp_path / "memory.jsonl").write_text("".join(json.dumps(e) + "\n" for e in graph), encoding="utf-8")
    for name in ("list.md", "log.md", "services.md", "memory.jsonl"):
        assert layer3([str(tmp_path / name)], tmp_path / "cache") == [], name


@pytest.mark.parametrize("names", [("Component Structure", "Component Structure Update"),
                                   ("IntroductionHistoryDialog", "IntroductionHistoryDialog Component"),
                                   ("turnManager-module", "turnManager-module-updates")])
def test_a_graph_entity_named_again_with_more_words_is_the_same_subject(tmp_path: Path, names: tuple[str, str]) -> None:
    """One name is the other's with more words: a second node for one subject, whose
    restatement is a copy; two names that share a word only ("HistoryItem", "HistoryComment")
    stay two subjects (above)."""
    texts = ("Each component now has its own file", "Each component is now in its own file")
    graph = [{"type": "entity", "name": name, "entityType": "component", "observations": [text, f"Reviewed by {owner}"]}
             for name, text, owner in zip(names, texts, ("the web team", "the platform team"))]
    (tmp_path / "memory.jsonl").write_text("".join(json.dumps(e) + "\n" for e in graph), encoding="utf-8")
    assert layer3([str(tmp_path / "memory.jsonl")], tmp_path / "cache") == [("near_duplicate", "review")]


NAMED_AGAIN = {
    "snake_case": ("Broadcasts the turn_changed event via the Realtime channel",
                   "Broadcasts turn_changed event through Realtime channel"),
    "camelCase": ("State is kept with useReducer inside the provider", "State kept with useReducer in the provider"),
    "code span": ("Rows are written by `record` only, never by the reader",
                  "Rows are written only by `record`, never by the reader"),
    "file name": ("Reads its settings from config.yaml at startup", "Settings are read from config.yaml at startup"),
}


def _two_entities(folder: Path, a: str, b: str) -> str:
    graph = [{"type": "entity", "name": name, "entityType": "component", "observations": [text, f"Owned by {owner}"]}
             for name, text, owner in (("GameBoard", a, "the web team"), ("TurnService", b, "the platform team"))]
    (folder / "memory.jsonl").write_text("".join(json.dumps(e) + "\n" for e in graph), encoding="utf-8")
    return str(folder / "memory.jsonl")


@pytest.mark.parametrize("case", NAMED_AGAIN)
def test_two_graph_entities_restating_one_named_thing_are_a_near_duplicate(tmp_path: Path, case: str) -> None:
    """Two nodes saying one thing of the same file, function or event, in other words."""
    assert layer3([_two_entities(tmp_path, *NAMED_AGAIN[case])], tmp_path / "cache") == [("near_duplicate", "review")]


@pytest.mark.parametrize("pair", [
    # the same words with no name of code in them: two subjects may well both do it
    ("Broadcasts the turn changed event via the Realtime channel", "Broadcasts turn changed event through Realtime channel"),
    # one name, two different things said of it
    ("Broadcasts the turn_changed event via the Realtime channel", "Listens for the turn_changed event to refresh the board"),
], ids=["no name of code", "one name, other claims"])
def test_two_graph_entities_without_one_named_thing_restated_stay_two_subjects(tmp_path: Path, pair: tuple[str, str]) -> None:
    assert layer3([_two_entities(tmp_path, *pair)], tmp_path / "cache") == []


def test_with_no_server_configured_the_embed_engine_runs_the_packaged_model(tmp_path: Path) -> None:
    paths = two_files(tmp_path, *RESTATED[0])
    done = run_process("scan", *paths, "--engine", "embed", "--json", "--fail-on", "never", cwd=tmp_path,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "OLLAMA_BASE_URL": ""})
    found = json.loads(done.out)["findings"]
    [finding] = [f for f in found if f["layer"] == "3"]
    assert finding["rule"] == "near_duplicate" and "in other words (claim similarity" in finding["message"], done.err
    assert "degraded" not in done.out


def test_provider_static_wins_over_a_server_in_the_environment(tmp_path: Path) -> None:
    paths = two_files(tmp_path, *RESTATED[0])
    (tmp_path / "memory-autopsy.toml").write_text('engine = "embed"\n[embed]\nprovider = "static"\n', encoding="utf-8")
    done = run_process("scan", *paths, "--json", "--fail-on", "never", cwd=tmp_path,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "OLLAMA_BASE_URL": "http://127.0.0.1:9"})
    assert "degraded" not in done.out and '"near_duplicate"' in done.out, done.out


def test_without_the_extra_the_run_is_degraded_and_says_how_to_install_it(tmp_path: Path) -> None:
    stub = tmp_path / "stub" / "wordllama"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('not installed')\n", encoding="utf-8")
    paths = two_files(tmp_path, *RESTATED[0])
    done = run_process("scan", *paths, "--engine", "embed", "--json", "--fail-on", "never", cwd=tmp_path,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "OLLAMA_BASE_URL": "",
                            "PYTHONPATH": os.pathsep.join((str(stub.parent), str(ROOT / "src")))})
    [degraded] = [f for f in json.loads(done.out)["findings"] if f["rule"] == "degraded"]
    assert "memory-autopsy[semantic]" in degraded["message"] and "[embed] url" in degraded["message"]


@pytest.mark.parametrize("text, kind", [
    ("postgres", "name"), ("memcached", "name"), ("PostgreSQL", "name"), ("Redis Cluster", "name"),
    ("16.2", "version"), ("v2.1.0", "version"), ("8 GB", "quantity"), ("src/app.py", "path"),
    ("climate.py", "path"), ("getTime", "identifier"), ("UnitOfTemperature.FAHRENHEIT", "identifier"),
    ("BLoC pattern", "name"), ("running", ""), ("reading patterns", ""), ("Domain layer", ""),
    ("Project compilation issues", ""), ("system memory pressure", ""),
    ("a long description of what the module does", ""),
])
def test_a_value_is_a_name_a_version_a_quantity_a_path_or_an_identifier(text: str, kind: str) -> None:
    assert value_kind(text, DEFAULT_VOCABULARY) == kind


def _ci_engine(root: Path, *args: str) -> tuple[str, set[str]]:
    code, out, err = run_cli("ci", "memory-bank", "--format", "json", "--fail-on", "never", "--no-cache", *args, cwd=root)
    assert code == 0, err
    report = json.loads(out)
    return report["engine"], {f["rule"] for f in report["findings"]}


@pytest.fixture
def restated(tmp_path: Path) -> Path:
    a, b = RESTATED[1]
    two_files(tmp_path, a, b)
    return tmp_path


def test_ci_embeds_with_the_static_model_when_it_is_installed(restated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing chosen and no server named: `ci` runs layer 3 with the packaged model (it found
    more on the real eval's test part, failing no more), and reports the restatement."""
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    engine, rules = _ci_engine(restated, "--isolated")
    assert engine == "embed" and "near_duplicate" in rules


@pytest.mark.parametrize("chosen", ["--engine heuristic", "rule file"])
def test_ci_keeps_the_engine_chosen(restated: Path, chosen: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    if chosen == "rule file":
        (restated / "memory-autopsy.toml").write_text('engine = "heuristic"\n', encoding="utf-8")
        assert _ci_engine(restated)[0] == "heuristic"
    else:
        assert _ci_engine(restated, "--isolated", *chosen.split())[0] == "heuristic"


def test_ci_without_the_extra_runs_the_heuristics_quietly(restated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No `degraded` for an engine nobody asked for; a server named in the environment is not
    embedded with by default either (where requests go is the workflow's choice)."""
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    monkeypatch.setattr("memory_autopsy.embed.static.installed", lambda: False)
    engine, rules = _ci_engine(restated, "--isolated")
    assert engine == "heuristic" and "degraded" not in rules
    monkeypatch.undo()
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9")
    assert _ci_engine(restated, "--isolated")[0] == "heuristic"


@pytest.mark.parametrize(("same", "layer"), [
    ("Always reuse existing interface components", "3"),  # too short for the copy rule
    ("Check for existing components to reuse before writing a new one", "1"),  # a copied sentence
])
def test_a_restatement_in_the_same_words_says_so(tmp_path: Path, same: str, layer: str) -> None:
    """Two files of one store holding one sentence under two headings. A sentence of six words
    or more is a copy (`duplicate`, layer 1); a shorter one the copy rule leaves to this layer,
    which says it repeats the words, not that it rewords them. Never both."""
    paths = two_files(tmp_path, same, same)
    done = run_process("scan", *paths, "--engine", "embed", "--json", "--fail-on", "never", cwd=tmp_path,
                       env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "OLLAMA_BASE_URL": ""})
    [finding] = [f for f in json.loads(done.out)["findings"] if f["layer"] in ("1", "3")]
    assert finding["layer"] == layer, finding
    expected = "in the same words (claim similarity 1.00)" if layer == "3" else "under another heading or entity"
    assert expected in finding["message"], finding
