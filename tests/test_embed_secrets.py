"""Where the embedding key goes: `ci` takes the endpoint and key from the runner, never from the
repository's rule file (unless the workflow opts in), and no command sends a key in clear text
to another machine.

In a pull request from a fork the rule file is the pull request's: with the embed engine on, a
rule file naming its own server and `api-key-env = "GITHUB_TOKEN"` would have the runner send
that token there."""

from __future__ import annotations

import json
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Result, git, run_cli
from embed_helpers import EmbedServer
from memory_autopsy.embed.client import clear_text_key
from memory_autopsy.errors import ConfigError
from memory_autopsy.settings import EmbedSettings

ROOT = Path(__file__).resolve().parents[1]
GREYZONE = (ROOT / "examples" / "greyzone.md").read_text(encoding="utf-8")
SECRET = "ghs_the-runners-own-token-0123456789"
RUNNER_KEY = "sk-the-workflows-own-key-9876543210"
TRUST = "MEMORY_AUTOPSY_TRUST_RULE_FILE_EMBED"
CI = ("ci", "--no-changed-only", "--format", "text", "--engine", "embed", "--no-cache")


@pytest.fixture
def servers() -> Iterator[tuple[Any, Any]]:
    """The pull request's server (named by its rule file) and the runner's own."""
    theirs, ours = EmbedServer(0).start(), EmbedServer(0).start()
    try:
        yield theirs, ours
    finally:
        theirs.stop()
        ours.stop()


@pytest.fixture
def environ(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A runner's environment with the secret in it and none of the embed variables."""
    for name in ("OLLAMA_BASE_URL", "EMBED_MODEL", "EMBED_API_KEY", TRUST):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SOME_SECRET", SECRET)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return monkeypatch


def pull_request(folder: Path, url: str, key_env: str = "SOME_SECRET") -> Path:
    """A repository whose rule file names its own embedding server and a variable to send."""
    folder.mkdir()
    (folder / "memory.md").write_text(GREYZONE, encoding="utf-8")
    (folder / "memory-autopsy.toml").write_text(
        f'include = ["memory.md"]\n[embed]\nprovider = "openai"\nurl = "{url}"\n'
        f'api-key-env = "{key_env}"\ntimeout = 2\n', encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-qm", "a pull request")
    return folder


def keys_sent(server: Any) -> list[str]:
    return [request["headers"].get("Authorization", "") for request in server.seen]


def warnings(run: Result) -> list[str]:
    return [line for line in run.err.splitlines() if "warning" in line]


def test_ci_sends_nothing_to_the_rule_files_server(tmp_path: Path, servers: tuple[Any, Any],
                                                    environ: pytest.MonkeyPatch) -> None:
    theirs, ours = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    environ.setenv("OLLAMA_BASE_URL", ours.url)
    run = run_cli(*CI, cwd=repo)
    assert run.code == 0, run
    assert theirs.requests == 0  # no request at all: not the key, not the memory's text
    assert ours.requests > 0 and all(SECRET not in key for key in keys_sent(ours))
    assert SECRET not in run.out + run.err
    (line,) = warnings(run)
    assert "url" in line and "api-key-env" in line and TRUST in line
    assert theirs.url not in run.err  # the pull request's words are not quoted


def test_ci_takes_the_key_from_the_runners_environment(tmp_path: Path, servers: tuple[Any, Any],
                                                        environ: pytest.MonkeyPatch) -> None:
    theirs, ours = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    environ.setenv("OLLAMA_BASE_URL", ours.url + "/v1")
    environ.setenv("EMBED_API_KEY", RUNNER_KEY)
    run = run_cli(*CI, cwd=repo)
    assert run.code == 0, run
    assert theirs.requests == 0
    assert keys_sent(ours) and set(keys_sent(ours)) == {f"Bearer {RUNNER_KEY}"}
    assert "likely_conflict" in run.out  # the workflow's endpoint served the layer


def test_ci_uses_the_rule_files_endpoint_when_the_workflow_opts_in(
        tmp_path: Path, servers: tuple[Any, Any], environ: pytest.MonkeyPatch) -> None:
    theirs, _ = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    environ.setenv(TRUST, "1")
    run = run_cli(*CI, cwd=repo)
    assert run.code == 0, run
    assert set(keys_sent(theirs)) == {f"Bearer {SECRET}"} and warnings(run) == []


def test_a_heuristic_ci_run_says_nothing_of_the_embed_section(tmp_path: Path, servers: tuple[Any, Any],
                                                               environ: pytest.MonkeyPatch) -> None:
    theirs, _ = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    run = run_cli("ci", "--no-changed-only", "--format", "text", cwd=repo)
    assert run.code == 0 and warnings(run) == [] and theirs.requests == 0


def test_scan_still_reads_the_endpoint_of_the_rule_file(tmp_path: Path, servers: tuple[Any, Any],
                                                         environ: pytest.MonkeyPatch) -> None:
    """A developer's own run trusts the rule file of the repository it runs in."""
    theirs, _ = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    run = run_cli("scan", "--engine", "embed", "--no-cache", "--json", cwd=repo)
    assert json.loads(run.out)["counts"] == {"likely_conflict": 1}, run
    assert set(keys_sent(theirs)) == {f"Bearer {SECRET}"}


@pytest.fixture
def contacts(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every name looked up and every connection tried (none is let through)."""
    tried: list[object] = []

    def lookup(host: object, *args: object, **kwargs: object) -> Any:
        tried.append(host)
        raise OSError("tests never reach the network")

    def connect(self: socket.socket, address: object) -> None:
        tried.append(address)
        raise OSError("tests never reach the network")

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return tried


REMOTE = "http://example.invalid:1234"


@pytest.mark.parametrize("command", [("scan", "--engine", "embed", "--no-cache"), CI])
def test_a_key_over_plain_http_to_another_host_is_refused_before_connecting(
        tmp_path: Path, environ: pytest.MonkeyPatch, contacts: list[object], command: tuple[str, ...]) -> None:
    repo = pull_request(tmp_path / "repo", REMOTE)
    environ.setenv(TRUST, "1")  # in `ci`, the rule file's endpoint only so
    run = run_cli(*command, cwd=repo)
    assert run.code == 2, run
    assert contacts == []
    (line,) = run.err.splitlines()
    assert "clear text" in line and "SOME_SECRET" in line and "example.invalid" not in line
    assert SECRET not in run.out + run.err


def test_a_key_from_the_environment_over_plain_http_is_refused(
        tmp_path: Path, environ: pytest.MonkeyPatch, contacts: list[object]) -> None:
    repo = pull_request(tmp_path / "repo", "https://example.invalid")
    environ.setenv("OLLAMA_BASE_URL", REMOTE)
    environ.setenv("EMBED_API_KEY", RUNNER_KEY)
    run = run_cli(*CI, cwd=repo)
    assert run.code == 2 and "clear text" in run.err and "OLLAMA_BASE_URL" in run.err, run
    assert contacts == []


@pytest.mark.parametrize("url", [
    "http://example.invalid:1234", "HTTP://example.invalid", "example.invalid:1234",
    "http://127.example.invalid", "http://0.0.0.0:11434", "http://10.0.0.7", "http://[2001:db8::1]:80",
    "http://127.0.0.1:1@example.invalid/", "ftp://127.0.0.1",
])
def test_these_endpoints_never_get_a_key(url: str) -> None:
    with pytest.raises(ConfigError):
        clear_text_key(EmbedSettings(url=url, api_key_env="K"), {"K": "v"})


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:11434", "http://127.1.2.3", "http://localhost:1234/v1", "http://LOCALHOST",
    "http://[::1]:8080", "localhost:11434", "https://example.invalid", "https://10.0.0.7/v1",
])
def test_loopback_and_https_endpoints_may_get_one(url: str) -> None:
    clear_text_key(EmbedSettings(url=url, api_key_env="K"), {"K": "v"})


def test_without_a_key_any_endpoint_is_allowed() -> None:
    clear_text_key(EmbedSettings(url=REMOTE), {})
    clear_text_key(EmbedSettings(), {"OLLAMA_BASE_URL": REMOTE})


TRUST_RECORDER = """#!{python}
import json, os
with open(os.environ["MA_TEST_ARGV"], "w", encoding="utf-8") as handle:
    json.dump(os.environ.get("{variable}"), handle)
"""


@pytest.mark.skipif(shutil.which("bash") is None, reason="the Action's step is a bash script")
@pytest.mark.parametrize(("given", "expected"), [("false", None), ("", None), ("true", "1")])
def test_the_actions_input_is_its_opt_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         given: str, expected: str | None) -> None:
    from test_action_inputs import inputs, run_step

    monkeypatch.delenv(TRUST, raising=False)
    runner = tmp_path / "runner"
    tool = runner / "temp" / "memory-autopsy-venv" / "bin" / "memory-autopsy"
    tool.parent.mkdir(parents=True)
    tool.write_text(TRUST_RECORDER.format(python=sys.executable, variable=TRUST), encoding="utf-8")
    tool.chmod(0o755)
    (tmp_path / "ws").mkdir()
    seen = runner / "seen.json"
    done = run_step("run", tmp_path / "ws", runner, inputs(trust_rule_file_embed=given),
                    {"MA_TEST_ARGV": str(seen)})
    assert done.returncode == 0, done.stderr
    assert json.loads(seen.read_text(encoding="utf-8")) == expected


def test_ci_writes_no_embed_cache_where_the_rule_file_says(tmp_path: Path, servers: tuple[Any, Any],
                                                           environ: pytest.MonkeyPatch) -> None:
    """A rule file's `cache-dir` is a folder anywhere on the runner the answers would be written
    to: `ci` leaves it out as it leaves out the endpoint."""
    theirs, ours = servers
    repo = pull_request(tmp_path / "repo", theirs.url)
    elsewhere = tmp_path / "elsewhere"
    with open(repo / "memory-autopsy.toml", "a", encoding="utf-8") as handle:
        handle.write(f'cache-dir = "{elsewhere}"\n')
    git(repo, "commit", "-qam", "and a cache folder")
    environ.setenv("OLLAMA_BASE_URL", ours.url)
    run = run_cli(*CI, cwd=repo)
    assert run.code == 0, run
    assert ours.requests > 0 and not elsewhere.exists()
    (line,) = warnings(run)
    assert "cache-dir" in line and str(elsewhere) not in line
