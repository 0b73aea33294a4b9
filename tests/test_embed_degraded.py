"""Every way the endpoint can fail gives one `degraded` finding and the heuristic results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_process
from embed_helpers import closed_port_url, embed_settings
from memory_autopsy.api import lint
from memory_autopsy.formatters import json_format, text

pytest_plugins = ("embed_fixtures",)  # the embed_server and cache_dir fixtures
ROOT = Path(__file__).resolve().parents[1]
MEMORY = str(ROOT / "examples" / "memory.md")


def _degraded(report):  # type: ignore[no-untyped-def]
    return [f for f in report.findings if f.rule == "degraded"]


def _assert_degraded(report, *words: str):  # type: ignore[no-untyped-def]
    [finding] = _degraded(report)
    assert (finding.path, finding.line, finding.layer) == ("", 0, "3")
    for word in words:
        assert word in finding.message
    heuristic = [f for f in lint(MEMORY).findings]
    assert [f for f in report.findings if f.rule != "degraded"] == heuristic
    return finding


def test_nothing_listening(cache_dir):
    url = closed_port_url()
    report = lint(MEMORY, embed_settings(url))
    finding = _assert_degraded(report, url, "unreachable")
    assert finding.severity.value == "warning"


@pytest.mark.parametrize(
    "mode, words",
    [
        ("error", ("HTTP 500",)),
        ("malformed", ("malformed",)),
        ("wrong_size", ("wrong size",)),
    ],
)
def test_bad_answers(embed_server, mode, words):
    embed_server.mode = mode
    _assert_degraded(lint(MEMORY, embed_settings(embed_server.url)), embed_server.url, *words)


def test_timeout(embed_server):
    embed_server.mode, embed_server.delay = "sleep", 1.5
    report = lint(MEMORY, embed_settings(embed_server.url, timeout=0.3))
    _assert_degraded(report, "timed out after 0.3s")


def test_not_json_at_all(embed_server, monkeypatch):
    embed_server.mode = "malformed"
    report = lint(MEMORY, embed_settings(embed_server.url, provider="openai"))
    _assert_degraded(report, "/v1/embeddings", "not JSON")


def test_missing_api_key_variable_names_the_variable(embed_server, monkeypatch):
    monkeypatch.delenv("MA_ABSENT_KEY", raising=False)
    report = lint(
        MEMORY, embed_settings(embed_server.url, provider="openai", api_key_env="MA_ABSENT_KEY")
    )
    _assert_degraded(report, "MA_ABSENT_KEY")
    assert embed_server.requests == 0


def test_an_error_never_shows_the_api_key(embed_server, monkeypatch):
    secret = "sk-never-print-me-987"
    monkeypatch.setenv("MA_KEY", secret)
    embed_server.mode = "error"
    report = lint(MEMORY, embed_settings(embed_server.url, provider="openai", api_key_env="MA_KEY"))
    _assert_degraded(report, "HTTP 500")
    assert embed_server.seen[0]["headers"]["Authorization"] == f"Bearer {secret}"
    assert secret not in json_format.format_report(report) + text.format_report(report)


def test_the_cli_reports_degraded_without_exit_2(cache_dir, tmp_path):
    url = closed_port_url()
    done = run_process("scan", "examples/greyzone.md", "--engine", "embed", "--json", "--isolated",
                       cwd=ROOT, env={"OLLAMA_BASE_URL": url}, timeout=60)
    assert done.code == 1, done.err
    assert "Traceback" not in done.err
    [finding] = json.loads(done.out)["findings"]
    assert (finding["rule"], finding["path"], finding["line"]) == ("degraded", "", 0)
    assert url in finding["message"]
