"""Layer 3: similarity proposes, the deterministic recheck decides (against a real local server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_process
from embed_helpers import FixedEmbedder, at_cosine, cosine, embed_settings
from memory_autopsy.api import lint, load_store
from memory_autopsy.embed.client import DEFAULT_BASE_URL, request_url, resolve
from memory_autopsy.embed.layer import EmbeddingLayer
from memory_autopsy.embed.neighbours import TOP_K, WINDOW, blocked_partners, candidate_pairs
from memory_autopsy.engine.run import lint_store
from memory_autopsy.fixes.plan import plan
from memory_autopsy.settings import EmbedSettings

pytest_plugins = ("embed_fixtures",)  # the embed_server and cache_dir fixtures
ROOT = Path(__file__).resolve().parents[1]
GREYZONE = ROOT / "examples" / "greyzone.md"
SRC = ROOT / "src"


def _write(tmp_path: Path, text: str, name: str = "memory.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _layer3(report):  # type: ignore[no-untyped-def]
    return [(f.rule, f.line) for f in report.findings if f.layer == "3"]


def _run_fixed(tmp_path: Path, text: str, vectors: dict[str, tuple[float, ...]]):  # type: ignore[no-untyped-def]
    path = _write(tmp_path, text)
    settings = embed_settings("http://127.0.0.1:9")
    store = load_store([path], settings)
    return lint_store(store, settings, extra_layer=EmbeddingLayer(settings, FixedEmbedder(vectors)))


def test_greyzone_is_clean_for_heuristics_and_hedged_by_the_embed_engine(embed_server, cache_dir):
    assert lint(str(GREYZONE)).findings == ()
    report = lint(str(GREYZONE), embed_settings(embed_server.url))
    [finding] = report.findings
    assert (finding.rule, finding.layer, finding.line) == ("likely_conflict", "3", 1)
    assert [r.line for r in finding.related] == [2]
    expected = cosine("the billing ledger sits in postgres", "mysql now backs the billing ledger")
    assert 0.6 <= expected < 0.9
    assert finding.get("cosine") == round(expected, 3)
    assert finding.get("structured") == 0.35
    assert finding.confidence == round((expected + 0.35) / 2, 3)
    assert f"cosine {expected:.2f}" in finding.message and "structured 0.35" in finding.message
    assert finding.get("frame_slot") == "f:billing"


def test_cli_scan_with_the_embed_engine_reports_the_hedge(embed_server, cache_dir, monkeypatch):
    monkeypatch.setenv("OLLAMA_BASE_URL", embed_server.url)
    done = run_process("scan", "examples/greyzone.md", "--engine", "embed", "--json", "--isolated",
                       "--fail-on", "review", cwd=ROOT, env={"OLLAMA_BASE_URL": embed_server.url}, timeout=60)
    assert done.code == 1, done.err
    payload = json.loads(done.out)
    assert payload["engine"] == "embed"
    assert payload["counts"] == {"likely_conflict": 1}
    assert embed_server.seen[0]["path"] == "/api/embed"
    body = json.loads(embed_server.seen[0]["body"])
    assert body["model"] == "bge-m3" and sorted(body["input"]) == sorted(
        ["the billing ledger sits in postgres", "mysql now backs the billing ledger"]
    )


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def md(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


PARAPHRASES = [
    md(
        "- billing-store: uses PostgreSQL 14 for the billing store (2026-03-01)",
        "- billing-store: the billing data lives in a PostgreSQL 14 database (2026-03-01)",
    ),
    md(
        "## user",
        "- works at Northwind (source: profile)",
        "- is on the Northwind payroll as a data analyst (source: hr-export)",
    ),
    md(
        "- billing: uses PostgreSQL for the ledger (2026-01-01)",
        "- billing: the ledger now sits in postgres (2026-03-01)",
    ),
    md(
        "- session-cache: session tokens live in redis (2026-01-01)",
        "- session-cache: session tokens are kept in redis these days (2026-01-01)",
    ),
]


@pytest.mark.parametrize("text", PARAPHRASES)
def test_paraphrases_are_never_findings(tmp_path, embed_server, text):
    report = lint(_write(tmp_path, text), embed_settings(embed_server.url))
    assert _layer3(report) == []


@pytest.mark.parametrize(
    "text, expected",
    [
        # unordered prose that disagrees on a shared frame: a hedge on the first in file order
        (
            md(
                "## session-cache",
                "- our session tokens live in redis (source: wiki)",
                "- session tokens are kept in memcached these days (source: wiki)",
            ),
            [("likely_conflict", 2)],
        ),
        (
            md(
                "- billing-store: the billing data sits in postgres (2026-04-01)",
                "- billing-store: mysql is what billing runs on now (2026-04-01)",
            ),
            [("likely_conflict", 1)],
        ),
        # ordered: an anchor verb frame on one side -> the dated analysis decides, older flagged
        (
            md(
                "- billing: uses PostgreSQL for the ledger (2026-01-01)",
                "- billing: the ledger now sits in mysql (2026-03-01)",
            ),
            [("contradicted_implicit", 1)],
        ),
        (
            md(
                "- billing: the ledger now sits in mysql (2026-03-01)",
                "- billing: uses PostgreSQL for the ledger (2026-01-01)",
            ),
            [("contradicted_implicit", 2)],
        ),
        # ordered, two bare frames: events, not states -> nothing
        (
            md(
                "- api: had a short outage in the resolver (2026-01-01)",
                "- api: had a short outage in the packer (2026-03-01)",
            ),
            [],
        ),
    ],
)
def test_the_recheck_decides_the_class(tmp_path, embed_server, text, expected):
    report = lint(_write(tmp_path, text), embed_settings(embed_server.url))
    assert _layer3(report) == expected


def test_a_dated_layer3_verdict_carries_both_signals_and_is_never_auto_fixed(
    tmp_path, embed_server
):
    text = md(
        "- billing: uses PostgreSQL for the ledger (2026-01-01)",
        "- billing: the ledger now sits in mysql (2026-03-01)",
    )
    report = lint(_write(tmp_path, text), embed_settings(embed_server.url))
    [finding] = [f for f in report.findings if f.layer == "3"]
    assert finding.get("structured") == 0.6
    assert finding.confidence == pytest.approx((finding.get("cosine") + 0.6) / 2, abs=1e-3)
    assert "cosine" in finding.message and "structured 0.60" in finding.message
    assert plan(report) == []


@pytest.mark.parametrize(
    "similarity, expected",
    [
        (0.44, []),  # below the grey band: never proposed
        (0.55, []),  # proposed, but too weak to suspect an unordered pair
        (0.60, [("likely_conflict", 1)]),
        (0.95, [("likely_conflict", 1)]),
    ],
)
def test_similarity_bands_for_unordered_prose(tmp_path, similarity, expected):
    a, b = at_cosine(similarity)
    text = (
        "- cache: the session store sits in redis\n- cache: memcached now backs the session store\n"
    )
    report = _run_fixed(
        tmp_path,
        text,
        {"the session store sits in redis": a, "memcached now backs the session store": b},
    )
    assert _layer3(report) == expected
    if expected:
        assert report.findings[0].confidence == round((similarity + 0.35) / 2, 3)


def test_an_ordered_pair_is_proposed_from_the_grey_band(tmp_path):
    a, b = at_cosine(0.5)
    text = md(
        "- billing: uses PostgreSQL for the ledger (2026-01-01)",
        "- billing: the ledger now sits in mysql (2026-03-01)",
    )
    report = _run_fixed(
        tmp_path, text, {"uses PostgreSQL for the ledger": a, "the ledger now sits in mysql": b}
    )
    assert _layer3(report) == [("contradicted_implicit", 1)]


@pytest.mark.parametrize(
    "text, rule, layer",
    [
        # canonical records: slot-equality already decided (layer 2c); not repeated by layer 3
        (
            md(
                'billing: datastore = "self-hosted postgres 15 cluster" -- 2026-03-01 (source: a)',
                'billing: datastore = "aurora mysql compatible cluster" -- 2026-03-01 (source: b)',
            ),
            "contradicted_implicit",
            "2c",
        ),
        # prose already hedged by the heuristics stays as judged
        (
            md(
                "- billing-store: uses PostgreSQL 14 for the billing store (2026-03-01)",
                "- billing-store: uses MySQL 8 for the billing store (2026-03-01)",
            ),
            "likely_conflict",
            "2c",
        ),
    ],
)
def test_pairs_the_heuristics_judged_stay_as_judged(tmp_path, text, rule, layer):
    a, _ = at_cosine(0.99)
    path = _write(tmp_path, text)
    bodies = [f.claim.split(":", 1)[1].strip() for f in load_store([path]).facts]
    report = _run_fixed(tmp_path, text, dict.fromkeys(bodies, a))
    assert [
        (f.rule, f.layer)
        for f in report.findings
        if f.rule in ("contradicted_implicit", "likely_conflict")
    ] == [(rule, layer)]


def test_blocking_bounds_the_work_on_a_hot_entity():
    words = [{"shared", f"w{i}"} for i in range(500)]
    partners = blocked_partners(words)
    assert max(len(p) for p in partners) <= WINDOW
    assert all(j > i for i, later in enumerate(partners) for j in later)
    vectors = [(1.0, 0.0)] * 500
    pairs = candidate_pairs(words, vectors)
    taken: dict[int, int] = {}
    for i, j, _ in pairs:
        taken[i] = taken.get(i, 0) + 1
        taken[j] = taken.get(j, 0) + 1
    assert max(taken.values()) <= TOP_K


def test_facts_without_a_shared_word_are_never_compared():
    assert blocked_partners([{"a"}, {"b"}, {"a", "c"}]) == [[2], [], []]


def test_endpoint_resolution_settings_then_environment_then_defaults():
    assert resolve(EmbedSettings(), {}).url == DEFAULT_BASE_URL + "/api/embed"
    assert resolve(EmbedSettings(), {}).model == "bge-m3"
    env = {"OLLAMA_BASE_URL": "http://127.0.0.1:5000/", "EMBED_MODEL": "nomic-embed-text"}
    assert (resolve(EmbedSettings(), env).url, resolve(EmbedSettings(), env).model) == (
        "http://127.0.0.1:5000/api/embed",
        "nomic-embed-text",
    )
    mine = EmbedSettings(url="http://127.0.0.1:6000", model="m")
    assert (resolve(mine, env).url, resolve(mine, env).model) == (
        "http://127.0.0.1:6000/api/embed",
        "m",
    )
    assert (
        resolve(EmbedSettings(provider="openai", url="http://h:1"), {}).url
        == "http://h:1/v1/embeddings"
    )


@pytest.mark.parametrize(
    "base, openai, url",
    [
        ("localhost:11434", False, "http://localhost:11434/api/embed"),
        ("http://h/api/embed", False, "http://h/api/embed"),
        ("http://h/v1", True, "http://h/v1/embeddings"),
        ("http://h/v1/embeddings", True, "http://h/v1/embeddings"),
    ],
)
def test_request_urls(base, openai, url):
    assert request_url(base, openai) == url


def test_openai_mode_sends_the_key_and_never_shows_it(tmp_path, embed_server, monkeypatch):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("MA_TEST_EMBED_KEY", secret)
    settings = embed_settings(embed_server.url, provider="openai", api_key_env="MA_TEST_EMBED_KEY")
    report = lint(str(GREYZONE), settings)
    assert [f.rule for f in report.findings] == ["likely_conflict"]
    request = embed_server.seen[0]
    assert request["path"] == "/v1/embeddings"
    assert request["headers"].get("Authorization") == f"Bearer {secret}"
    from memory_autopsy.formatters import json_format, text

    assert secret not in json_format.format_report(report) + text.format_report(report)


def test_openai_mode_through_the_rule_file(tmp_path, embed_server, cache_dir):
    secret = "sk-rulefile-secret-42"
    (tmp_path / "memory-autopsy.toml").write_text(
        f'engine = "embed"\n[embed]\nprovider = "openai"\nurl = "{embed_server.url}/v1"\n'
        'model = "text-embedding-3-small"\napi-key-env = "MA_RULE_KEY"\ntimeout = 2\n',
        encoding="utf-8",
    )
    (tmp_path / "greyzone.md").write_text(GREYZONE.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "memory_autopsy", "scan", "greyzone.md", "--json", "--fail-on", "review"],
        cwd=tmp_path,
        env={**_env(), "MA_RULE_KEY": secret, "XDG_CACHE_HOME": str(tmp_path / "xdg")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["counts"] == {"likely_conflict": 1}
    assert json.loads(embed_server.seen[0]["body"])["model"] == "text-embedding-3-small"
    assert embed_server.seen[0]["headers"]["Authorization"] == f"Bearer {secret}"
    assert secret not in done.stdout + done.stderr


def test_requests_are_batched(tmp_path, embed_server):
    text = "".join(f"- svc: claim number {i} sits in store {i}\n" for i in range(5))
    lint(_write(tmp_path, text), embed_settings(embed_server.url, batch_size=2))
    sizes = [len(json.loads(r["body"])["input"]) for r in embed_server.seen]
    assert sizes == [2, 2, 1]


def test_httpx_is_imported_only_by_the_embed_engine():
    code = (
        "import sys; from memory_autopsy.cli import main; main(['scan', 'examples/greyzone.md']); "
        "sys.stderr.write(str('httpx' in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stderr.strip().endswith("False")
