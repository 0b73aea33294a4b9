"""Nothing from the repository starts a workflow command, on stdout or stderr, in any format;
a report that cannot be written exits 3 with one line on stderr.

`runner_commands` reads output as GitHub's runner does (`actions/runner`, ActionCommand and
ActionCommandManager): line by line at CR and LF, a line whose text after leading whitespace
starts with `::NAME` and has a second `::`, else `##[NAME]` anywhere in it; `stop-commands`
pauses until its token. Ignorable code points are dropped first, as the runner's culture-aware
comparisons skip them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, committed_repo, git, run_cli, run_process, write
from memory_autopsy.ci.baseline import FORMAT_VERSION, SCHEME
from memory_autopsy.escaping import inert, one_line

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
REGISTERED = {"error", "warning", "notice", "debug", "add-mask", "stop-commands", "group", "endgroup",
              "set-output", "save-state", "set-env", "add-path", "add-matcher", "remove-matcher", "echo"}
OWN = {"error", "warning", "notice", "group", "endgroup", "stop-commands"}
_IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\x00-\x08\x0e-\x1f]")
FORGED = "x\n::error file=a.md,line=1::forged"
DUPLICATES = "- billing: uses Postgres (source: infra)\n- billing: uses Postgres (source: infra)\n"
HOSTILE = ("- billing: uses ##[add-mask]secret and ##[error]forged (source: infra)\n"
           "- billing: uses ##[add-mask]secret and ##[error]forged (source: infra)\n"
           "- cache: uses #\u200b#[warning]zw (source: ops)\n- cache: uses #\u200b#[warning]zw (source: ops)\n")
FORMATS = ("text", "json", "markdown", "sarif", "github")


def runner_commands(text: str) -> list[tuple[str, str]]:
    """(name, data) of every workflow command the runner would run on this output."""
    found: list[tuple[str, str]] = []
    stopped: str | None = None
    for raw in re.split(r"\r\n|\r|\n", text):
        command = _parse(_IGNORABLE.sub("", raw), REGISTERED | ({stopped} if stopped else set()))
        if command is None:
            continue
        name, data = command
        if stopped is not None:
            if name == stopped:
                stopped = None
            continue
        if name == "stop-commands":
            stopped = data.lower()
        found.append((name, data))
    return found


def _parse(line: str, registered: set[str]) -> tuple[str, str] | None:
    trimmed = line.lstrip()
    if trimmed.startswith("::") and "::" in trimmed[2:]:
        info, data = trimmed[2:].split("::", 1)
        name = info.split(" ", 1)[0].lower()
        if name in registered:
            return name, data
    at = line.find("##[")
    if at >= 0 and "]" in line[at:]:
        info, data = line[at + 3:].split("]", 1)
        name = info.split(" ", 1)[0].lower()
        if name in registered:
            return name, data
    return None


def own_commands_only(out: str) -> list[tuple[str, str]]:
    """The `--format github` output's commands: only its own kinds, no mask, nothing forged."""
    commands = runner_commands(out)
    assert {name for name, _ in commands} <= OWN | {c[1].lower() for c in commands if c[0] == "stop-commands"}
    assert not any("forged" in data or "secret" in data or "zw" in data for name, data in commands
                   if name in ("error", "warning")), commands
    return commands


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    return committed_repo(tmp_path / "repo", files)


@pytest.fixture(autouse=True)
def _no_github(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_EVENT_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)


# -- the escaping itself ---------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "::error::x", "  ::add-mask::s", "\u3000::error::x", "\u200b::error::x", ":\u200b:error::x",
    "a\n::error::x", "a\r::error::x", "a\r\n\t::error::x", "a ##[error]x", "#\u00ad#[add-mask]s",
    "#\x01#[error]x",
])
def test_inert_leaves_no_command(text: str) -> None:
    assert runner_commands(text)
    assert runner_commands(inert(text)) == []
    assert runner_commands(one_line(text)) == []
    assert "\n" not in one_line(text) and "\r" not in one_line(text)


def test_inert_keeps_json_the_same_document() -> None:
    document = {"m": "a ##[add-mask]s #\u200b#[error]x", "n": "::error::y"}
    text = json.dumps(document, indent=2, ensure_ascii=False)
    assert runner_commands(text)
    assert json.loads(inert(text)) == document
    assert runner_commands(inert(text)) == []


def test_inert_changes_nothing_else() -> None:
    text = "memory/a.md:3: error rule MA1 L1 e :: a 'b: c' (other side: x.md:4)\n## 2026-01-05\n"
    assert inert(text) == text


# -- errors and warnings quoting the repository -----------------------------------------------


def baseline_with(fingerprint: str) -> str:
    return json.dumps({"tool": "memory-autopsy", "format": FORMAT_VERSION, "fingerprints": SCHEME,
                       "entries": [{"fingerprint": fingerprint, "count": 0}]})


@needs_git
@pytest.mark.parametrize("command", ["scan", "ci"])
def test_a_forged_baseline_fingerprint_starts_no_command(tmp_path: Path, command: str) -> None:
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES, "forged.json": baseline_with(FORGED)})
    result = run_process(command, "--baseline", "forged.json", cwd=root)
    assert result.code == 2
    assert runner_commands(result.out + result.err) == []
    assert len(result.err.splitlines()) == 1, result.err


@needs_git
@pytest.mark.parametrize("rule_file", [
    '"\\n::add-mask::secret" = 1\n',
    '[rules."\\n::error file=a.md,line=1::forged"]\nseverity = "error"\n',
    '[rules.duplicate]\nseverity = "x\\n::error::forged ##[add-mask]secret"\n',
    'engine = "##[add-mask]secret"\n',
    'include = ["x\\n::error::forged ##[add-mask]secret"]\n',
])
def test_a_hostile_rule_file_starts_no_command(tmp_path: Path, rule_file: str) -> None:
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES, "memory-autopsy.toml": rule_file})
    for command in ("scan", "ci"):
        result = run_process(command, cwd=root)
        assert result.code in (0, 2) and "memory-autopsy: " in result.err, result  # ci: an empty scope warns
        assert runner_commands(result.err) == [], result.err
        if command == "ci":  # the GitHub format: its own commands, nothing forged
            own_commands_only(result.out)
        else:
            assert runner_commands(result.out) == []


def test_an_unknown_rule_in_an_ignore_comment_starts_no_command(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- a: b (source: x) <!-- memory-autopsy: ignore[##[add-mask]secret] -->\n")
    result = run_cli("scan", "m.md", "--isolated", cwd=tmp_path)
    assert "unknown rule" in result.err
    assert runner_commands(result.out + result.err) == []


# -- reports quoting the repository, in every format -------------------------------------------


@needs_git
@pytest.mark.parametrize("fmt", FORMATS)
def test_hostile_memory_text_starts_no_command(tmp_path: Path, fmt: str) -> None:
    root = repo(tmp_path, {"memory/notes.md": HOSTILE})
    result = run_cli("scan", "memory/notes.md", "--format", fmt, "--fail-on", "never", cwd=root)
    assert result.code == 0 and "secret" in result.out
    assert runner_commands(result.err) == []
    if fmt == "github":
        own_commands_only(result.out)
    else:
        assert runner_commands(result.out) == [], result.out
    if fmt in ("json", "sarif"):
        json.loads(result.out)


@needs_git
@pytest.mark.parametrize("name", ["::error file=a.md,line=1::forged.md", "x\n::error::forged.md",
                                  "##[add-mask]secret.md"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_hostile_file_name_starts_no_command(tmp_path: Path, name: str, fmt: str) -> None:
    root = repo(tmp_path, {name: DUPLICATES, "memory-autopsy.toml": 'include = ["*.md"]\n'})
    result = run_cli("scan", "--format", fmt, "--fail-on", "never", cwd=root)
    assert result.code == 0 and "duplicate" in result.out, result
    assert runner_commands(result.err) == []
    if fmt == "github":
        assert "add-mask" not in {kind for kind, _ in own_commands_only(result.out)}
    else:
        assert runner_commands(result.out) == [], result.out


@needs_git
@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_ci_output_starts_no_command(tmp_path: Path, fmt: str) -> None:
    root = repo(tmp_path, {"memory/notes.md": HOSTILE})
    result = run_cli("ci", "--format", fmt, "--fail-on", "never", cwd=root)
    assert result.code == 0 and "secret" in result.out
    if fmt == "github":
        own_commands_only(result.out)
    else:
        assert runner_commands(result.out + result.err) == [], result.out


@needs_git
@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_a_baseline_entry_a_change_adds_starts_no_command(tmp_path: Path, fmt: str) -> None:
    """`ci` lists the entries a change adds to the baseline, fingerprints and all."""
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES})
    entry = {"fingerprint": FORGED + " ##[add-mask]secret", "count": 1, "rule": "duplicate\n::warning::w",
             "path": "memory/notes.md", "message": "m ##[error]forged"}
    write(root / ".memory-autopsy-baseline.json", baseline_with(FORGED).replace(
        json.dumps({"fingerprint": FORGED, "count": 0}), json.dumps(entry)))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "baseline")
    result = run_cli("ci", "--format", fmt, "--changed-since", "HEAD~1", "--fail-on", "never", cwd=root)
    assert result.code == 0, result
    assert runner_commands(result.err) == []
    if fmt == "github":
        own_commands_only(result.out)
    else:
        assert runner_commands(result.out) == [], result.out


@needs_git
def test_a_line_a_command_writes_itself_starts_no_command(tmp_path: Path) -> None:
    """`baseline` prints the rule file's baseline path with its own `write`: the CLI's
    standard output makes it inert all the same."""
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES,
                           "memory-autopsy.toml": 'baseline = "##[add-mask]secret.json"\n'})
    result = run_process("baseline", cwd=root)
    assert result.code == 0 and "secret.json" in result.out, result
    assert runner_commands(result.out + result.err) == [], result.out


def test_budget_starts_no_command(tmp_path: Path) -> None:
    index = "".join(f"- line {n}: uses ##[add-mask]secret{n} \x1b]0;title\x07\n" for n in range(300))
    write(tmp_path / "memory" / "MEMORY.md", index)  # Claude Code's index: 200 lines loaded
    for extra in ((), ("--json",)):
        result = run_cli("budget", "memory", "--isolated", *extra, cwd=tmp_path)
        assert result.code == 0 and "secret" in result.out, result
        assert runner_commands(result.out + result.err) == [], result.out
        assert "\x1b" not in result.out


# -- a report that cannot be written -----------------------------------------------------------


def to_full_disk(*args: str, cwd: Path, buffered: bool, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run with standard output on /dev/full: (exit code, stderr)."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    full_env["PYTHONPATH"] = str(SRC) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        full_env["PYTHONUNBUFFERED"] = "1"
    full_env.update(env or {})
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "memory_autopsy", *args], cwd=cwd, env=full_env,
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    return done.returncode, done.stderr


def assert_one_line_about_the_disk(code: int, err: str) -> None:
    assert code == 3, err
    assert len(err.splitlines()) == 1, err
    assert "No space left on device" in err and "Traceback" not in err and "internal error" not in err


@needs_git
@needs_full
@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("command", [("scan",), ("ci",), ("ci", "--format", "text"), ("scan", "--json")])
def test_a_full_disk_on_stdout_exits_3_with_one_line(tmp_path: Path, command: tuple[str, ...],
                                                     buffered: bool) -> None:
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES})
    code, err = to_full_disk(*command, "--fail-on", "never", cwd=root, buffered=buffered)
    assert_one_line_about_the_disk(code, err)


@needs_git
@needs_full
def test_a_full_disk_under_output_exits_3_with_one_line(tmp_path: Path) -> None:
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES})
    result = run_process("scan", "--fail-on", "never", "--output", "/dev/full", cwd=root)
    assert_one_line_about_the_disk(result.code, result.err)


@needs_git
@needs_full
@pytest.mark.parametrize("variable", ["GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"])
def test_a_full_disk_under_the_job_summary_exits_3_with_one_line(tmp_path: Path, variable: str) -> None:
    root = repo(tmp_path, {"memory/notes.md": DUPLICATES})
    result = run_process("ci", "--fail-on", "never", cwd=root, env={variable: "/dev/full"})
    assert_one_line_about_the_disk(result.code, result.err)


class _FullStream:
    """A standard output whose every write fails as a full disk does."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


@needs_git
def test_a_failing_stdout_in_process_exits_3_with_one_line(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from memory_autopsy.cli import main

    root = repo(tmp_path, {"memory/notes.md": DUPLICATES})
    monkeypatch.chdir(root)
    monkeypatch.setattr(sys, "stdout", _FullStream())
    code = main(["ci", "--fail-on", "never"])
    assert_one_line_about_the_disk(code, capsys.readouterr().err)
