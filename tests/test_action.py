"""The composite GitHub Action: valid metadata, and its bash run under a simulated runner."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, SHARED, pinned_wheelhouse, pull_request_repo, write
from memory_autopsy.ci.filters import CACHE_DIR
from memory_autopsy.ingest.cache import SUFFIX

ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache",
                                     ".mypy_cache", ".ruff_cache", "build", "dist", ".cache")
OLD = "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
NEW = "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n"
LEGACY = "- cache-tier: uses redis 7 (2026-01-01) (source: ops)\n" * 2


def action() -> dict[str, Any]:
    import yaml

    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_check_jsonschema_builtin_github_actions_schema() -> None:
    # The test extra installs it beside the interpreter, which need not be on PATH.
    tool = shutil.which("check-jsonschema", path=os.pathsep.join([str(Path(sys.executable).parent),
                                                                   os.environ.get("PATH", "")]))
    if tool is None:
        pytest.skip("check-jsonschema is not installed")
    done = subprocess.run([tool, "--builtin-schema", "vendor.github-actions", str(ACTION)],
                          check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_shared_schema_and_contract() -> None:
    data = action()
    schema = SHARED / "schemas" / "github-action.json"
    if schema.is_file():
        import jsonschema

        jsonschema.Draft7Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(data)
    assert data["runs"]["using"] == "composite"
    assert {"paths", "config", "baseline", "fail-on", "engine", "sarif-file", "changed-only",
            "python-version"} <= set(data["inputs"])
    assert set(data["outputs"]) == {"findings", "new-findings", "sarif-file"}
    for step in data["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts through env:, never inline"
            assert step["shell"] == "bash"
        else:
            assert step["uses"].startswith(("actions/setup-python@", "actions/cache@"))  # no third-party action
    (parse,) = [s for s in data["runs"]["steps"] if s.get("name") == "Restore the parse cache"]
    assert parse["uses"].startswith("actions/cache@") and parse["with"]["path"] == CACHE_DIR
    # any earlier run's entries are valid (content-addressed): restore the newest, save anew
    assert "github.run_id" in parse["with"]["key"] and parse["with"]["key"].startswith(parse["with"]["restore-keys"])


def resolve(text: str, context: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        return context[match.group(1)]

    return EXPRESSION.sub(value, text)


def run_steps(inputs: dict[str, str], workspace: Path, runner: Path, action_path: Path,
              skip_install: bool = False) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each `run:` step of the action, as the runner would (bash -e, env: evaluated)."""
    data = action()
    context = {f"inputs.{k}": str(v.get("default", "")) for k, v in data["inputs"].items()}
    context.update({f"inputs.{k}": v for k, v in inputs.items()})
    context.update({"github.action_path": str(action_path), "runner.temp": str(runner / "temp")})
    done: dict[str, subprocess.CompletedProcess[str]] = {}
    for step in data["runs"]["steps"]:
        if "run" not in step or (skip_install and step.get("id") != "run"):
            continue
        output = write(runner / f"output-{step.get('id', 'step')}.txt", "")
        env = dict(os.environ, **{k: resolve(str(v), context) for k, v in step.get("env", {}).items()})
        env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(runner / "summary.md"),
                   GITHUB_EVENT_PATH=str(runner / "event.json"), GITHUB_ACTIONS="true",
                   GITHUB_WORKSPACE=str(workspace), RUNNER_TEMP=str(runner / "temp"),
                   PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
        script = write(runner / "step.sh", step["run"])
        done[step.get("id") or step["name"]] = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace, env=env,
            check=False, capture_output=True, text=True, timeout=600)
    return done


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("bash") is None,
                    reason="git and bash are needed")
def test_action_steps_under_a_simulated_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    action_path = tmp_path / "action"
    shutil.copytree(ROOT, action_path, ignore=COPY_IGNORE)
    # Offline: the action's pinned install, from wheels on disk it is pinned to by hash.
    wheels = pinned_wheelhouse(action_path, tmp_path / "wheels")
    for name, value in (("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", str(wheels)),
                        ("PIP_DISABLE_PIP_VERSION_CHECK", "1"), ("PIP_CONFIG_FILE", os.devnull)):
        monkeypatch.setenv(name, value)
    repo = tmp_path / "repo"
    # memory/ is a known memory location: the default scope, with no rule file
    base = pull_request_repo(repo, {"memory/old.md": OLD, "memory/legacy.md": LEGACY, "README.md": NEW},
                             {"memory/new.md": NEW})
    runner = tmp_path / "runner"
    write(runner / "event.json", json.dumps({"pull_request": {"base": {"sha": base}}}))
    (runner / "temp").mkdir()

    steps = run_steps({"semantic": "false"}, repo, runner, action_path)  # the model's wheels are not on disk
    install, run = steps["Install memory-autopsy"], steps["run"]
    assert install.returncode == 0, install.stdout + install.stderr
    assert run.returncode == 1, run.stdout + run.stderr
    assert "::warning file=memory/old.md,line=1,title=memory-autopsy stale::" in run.stdout
    outputs = (runner / "output-run.txt").read_text(encoding="utf-8").splitlines()
    assert outputs == ["findings=1", "new-findings=1", "sarif-file=memory-autopsy.sarif"]
    summary = (runner / "summary.md").read_text(encoding="utf-8")
    assert "| 1 | 0 | 0 |" in summary and "memory/old.md:1" in summary
    log = json.loads((repo / "memory-autopsy.sarif").read_text(encoding="utf-8"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in log["runs"][0]["results"]}
    assert uris == {"memory/old.md", "memory/legacy.md"}  # the whole scope, and only the scope
    schema = SHARED / "schemas" / "sarif-schema-2.1.0.json"
    if schema.is_file():
        import jsonschema

        jsonschema.Draft4Validator(json.loads(schema.read_text(encoding="utf-8"))).validate(log)

    assert list((repo / CACHE_DIR).rglob(f"*{SUFFIX}"))  # the folder the cache step keeps between runs
    shutil.rmtree(repo / CACHE_DIR)

    again = run_steps({"fail-on": "never", "changed-only": "false", "paths": "memory/legacy.md memory/new.md",
                       "sarif-file": "out/m.sarif", "cache": "false"}, repo, runner, action_path,
                      skip_install=True)["run"]
    assert again.returncode == 0, again.stdout + again.stderr
    outputs = (runner / "output-run.txt").read_text(encoding="utf-8").splitlines()
    assert outputs == ["findings=1", "new-findings=1", "sarif-file=out/m.sarif"]
    assert (repo / "out" / "m.sarif").is_file()
    assert not (repo / CACHE_DIR).exists()  # cache: false is --no-cache
