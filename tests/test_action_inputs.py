"""The Action's inputs and install: the runner's Python unless `python-version` asks for
setup-python, a cached and hash-pinned install, and an `args` input that reaches the command
as words and is never run by a shell. Issue 12, item 8.

The `run:` steps are executed with bash as the runner executes them (`bash -eo pipefail`),
with `${{ }}` expressions in `env:` filled in from a context; nothing reaches the network (the
install test builds its wheelhouse on disk and runs pip with no index)."""

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

from conftest import ROOT, git, offline_wheels, pin_wheels, pinned_wheelhouse, repacked, write

ACTION = ROOT / "action.yml"
REQUIREMENTS = ROOT / "action-requirements.txt"
SEMANTIC = ROOT / "action-semantic-requirements.txt"
EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache",
                                     ".mypy_cache", ".ruff_cache", "build", "dist", ".cache", "tests",
                                     "bench", "eval")
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is needed")
RECORDER = """#!{python}
import json, os, sys
with open(os.environ["MA_TEST_ARGV"], "w", encoding="utf-8") as handle:
    json.dump(sys.argv[1:], handle)
"""


def action() -> dict[str, Any]:
    import yaml

    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def step(key: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = action()["runs"]["steps"]
    return next(s for s in steps if key in (s.get("id"), s.get("name")))


def run_step(key: str, workspace: Path, runner: Path, context: dict[str, str],
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One `run:` step as the runner runs it; an expression the context lacks fails the test."""
    data = step(key)
    assert "${{" not in data["run"], "inputs reach scripts through env:, never inline"
    full = {"runner.temp": str(runner / "temp"), **context}
    values = {name: EXPRESSION.sub(lambda m: full[m.group(1)], str(value))
              for name, value in data.get("env", {}).items()}
    script = write(runner / "step.sh", data["run"])
    (runner / "temp").mkdir(parents=True, exist_ok=True)
    environment = dict(os.environ, **values, **(env or {}))
    environment.update(GITHUB_OUTPUT=str(runner / "output.txt"), RUNNER_TEMP=str(runner / "temp"),
                       GITHUB_STEP_SUMMARY=str(runner / "summary.md"))
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                          cwd=workspace, env=environment, check=False, capture_output=True,
                          text=True, timeout=600)


def inputs(**given: str) -> dict[str, str]:
    context = {f"inputs.{k}": str(v.get("default", "")) for k, v in action()["inputs"].items()}
    context.update({f"inputs.{k.replace('_', '-')}": v for k, v in given.items()})
    return context


def test_metadata_validates_against_the_vendored_schema() -> None:
    import jsonschema

    schema = json.loads((ROOT / "tests" / "schemas" / "github-action.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(action())


def test_the_runners_python_unless_python_version_is_given() -> None:
    data = action()
    assert data["inputs"]["python-version"].get("default", "") == ""
    assert data["inputs"]["args"].get("default", "") == ""
    setup = [s for s in data["runs"]["steps"] if str(s.get("uses", "")).startswith("actions/setup-python@")]
    assert len(setup) == 1 and "inputs.python-version != ''" in setup[0]["if"]


def test_the_install_is_cached_on_the_pip_cache_it_uses() -> None:
    cache = next(s for s in action()["runs"]["steps"] if str(s.get("uses", "")).startswith("actions/cache@"))
    install = step("Install memory-autopsy")
    assert cache["with"]["path"] == install["env"]["PIP_CACHE_DIR"]
    assert cache["with"]["key"] == "${{ steps.cache-key.outputs.key }}"
    names = [s.get("id") or s.get("name") for s in action()["runs"]["steps"]]
    assert names.index("cache-key") < names.index(cache.get("id") or cache["name"]) < names.index(install["name"])
    for used in (s["uses"] for s in action()["runs"]["steps"] if "uses" in s):
        assert re.fullmatch(r"actions/(setup-python|cache)@v\d+", used), used  # first-party only


@needs_bash
def test_the_cache_key_follows_the_pins_and_the_version(tmp_path: Path) -> None:
    folder = tmp_path / "action"
    for name in ("action-requirements.txt", "action-semantic-requirements.txt", "pyproject.toml"):
        write(folder / name, (ROOT / name).read_text(encoding="utf-8"))

    def key() -> str:
        done = run_step("cache-key", tmp_path, tmp_path / "runner", {"github.action_path": str(folder)},
                        {"RUNNER_OS": "Linux", "RUNNER_ARCH": "X64"})
        assert done.returncode == 0, done.stderr
        return (tmp_path / "runner" / "output.txt").read_text(encoding="utf-8").splitlines()[-1]

    first = key()
    assert first.startswith("key=memory-autopsy-pip-Linux-X64-") and key() == first
    write(folder / "action-requirements.txt", "pyyaml==0\n")
    second = key()
    assert second != first
    write(folder / "action-semantic-requirements.txt", "numpy==0\n")
    assert key() not in (first, second)


def requirement_lines(path: Path = REQUIREMENTS) -> dict[str, tuple[str, str, list[str]]]:
    """name -> (version, marker, hashes) from a pinned requirements file (a name pinned per
    Python version keeps its first pin)."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    pins: dict[str, tuple[str, str, list[str]]] = {}
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        match = re.match(r"([A-Za-z0-9_.-]+)==([^\s;]+)\s*(?:;\s*([^-]+?))?\s*((?:--hash=\S+\s*)+)$", line)
        assert match, f"not pinned with hashes: {line}"
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", match.group(4))
        pins.setdefault(match.group(1).lower(), (match.group(2), match.group(3) or "", hashes))
    return pins


def test_every_dependency_is_pinned_with_hashes() -> None:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    from packaging.markers import Marker
    from packaging.requirements import Requirement

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = [Requirement(r) for r in pyproject["project"]["dependencies"]]
    needed += [Requirement(r) for r in pyproject["build-system"]["requires"]]  # built offline
    pins = requirement_lines()
    for requirement in needed:
        name = requirement.name.lower()
        assert name in pins, f"{name} is a dependency but not in {REQUIREMENTS.name}: regenerate it"
        version, marker, hashes = pins[name]
        assert requirement.specifier.contains(version), (name, version, requirement.specifier)
        assert hashes, name
        for python in ("3.10", "3.11", "3.13"):  # the pin applies where the dependency does
            env = {"python_version": python, "python_full_version": python + ".0"}
            wanted = requirement.marker is None or requirement.marker.evaluate(env)
            pinned = not marker or Marker(marker).evaluate(env)
            assert wanted == pinned, (name, python)


def test_the_static_model_is_pinned_with_hashes_beside_the_base_install() -> None:
    """The semantic input's install: the package's `semantic` extra, every dependency pinned
    with hashes, and what it shares with the base install pinned alike (installed after it)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    from packaging.requirements import Requirement

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    semantic, base = requirement_lines(SEMANTIC), requirement_lines()
    for requirement in map(Requirement, pyproject["project"]["optional-dependencies"]["semantic"]):
        assert semantic[requirement.name.lower()][0] in requirement.specifier, requirement
    assert all(hashes for _, _, hashes in semantic.values())
    for name in set(semantic) & set(base):
        assert semantic[name][0] == base[name][0], name


def test_the_install_command_enforces_the_hashes() -> None:
    script = step("Install memory-autopsy")["run"]
    pinned = next(line for line in script.splitlines() if "action-requirements.txt" in line)
    assert all(flag in pinned for flag in ("--require-hashes", "--no-deps", "--only-binary :all:"))
    semantic = next(line for line in script.splitlines() if "action-semantic-requirements.txt" in line)
    assert all(flag in semantic for flag in ("--require-hashes", "--no-deps", "--only-binary :all:"))
    own = next(line for line in script.splitlines() if '"$MA_ACTION_PATH"' in line and "install" in line)
    assert all(flag in own for flag in ("--no-deps", "--no-build-isolation", "--no-index"))


def fake_tool(runner: Path) -> Path:
    venv = runner / "temp" / "memory-autopsy-venv"
    tool = write(venv / "bin" / "memory-autopsy", RECORDER.format(python=sys.executable))
    tool.chmod(0o755)
    return runner / "argv.json"


def run_with(tmp_path: Path, **given: str) -> tuple[subprocess.CompletedProcess[str], list[str] | None]:
    workspace, runner = tmp_path / "ws", tmp_path / "runner"
    workspace.mkdir(exist_ok=True)
    argv = fake_tool(runner)
    done = run_step("run", workspace, runner, inputs(**given), {"MA_TEST_ARGV": str(argv)})
    return done, (json.loads(argv.read_text(encoding="utf-8")) if argv.exists() else None)


@needs_bash
def test_args_reach_the_command_after_the_inputs(tmp_path: Path) -> None:
    done, argv = run_with(tmp_path, args="--as-of 2026-06-01  --max-age-days 90\t--isolated",
                          paths="memory/ notes.md", fail_on="error")
    assert done.returncode == 0, done.stderr
    assert argv == ["ci", "--format", "github", "--fail-on", "error",
                    "--sarif-file", "memory-autopsy.sarif", "--changed-only", "--as-of", "2026-06-01",
                    "--max-age-days", "90", "--isolated", "--", "memory/", "notes.md"]


@needs_bash
@pytest.mark.parametrize("hostile", [
    "$(touch pwned)", "`touch pwned`", "; touch pwned", "&& touch pwned", "| touch pwned",
    "${HOME}", "$((1+1))", "*", "> pwned", "$(touch${IFS}pwned)",
])
def test_args_are_words_never_shell(tmp_path: Path, hostile: str) -> None:
    write(tmp_path / "ws" / "a.md", "")
    done, argv = run_with(tmp_path, args=f"--isolated {hostile}")
    assert done.returncode == 0, done.stderr
    assert argv is not None and argv[argv.index("--isolated") + 1:] == hostile.split()
    assert not (tmp_path / "ws" / "pwned").exists()


@needs_bash
@pytest.mark.parametrize("quoted", ['--as-of "2026-06-01"', "--context 'my memory'"])
def test_quotes_in_args_are_refused_not_half_parsed(tmp_path: Path, quoted: str) -> None:
    done, argv = run_with(tmp_path, args=quoted)
    assert done.returncode == 2 and argv is None
    assert done.stdout.startswith("::error title=memory-autopsy::")


def fake_python(folder: Path, version: str) -> Path:
    script = write(folder / "python3", f"#!/bin/sh\necho {version}\n")
    script.chmod(0o755)
    return folder


@needs_bash
def test_a_runner_python_older_than_3_10_is_refused(tmp_path: Path) -> None:
    bin_dir = fake_python(tmp_path / "bin", "3.9")
    done = run_step("Install memory-autopsy", tmp_path, tmp_path / "runner",
                    {"github.action_path": str(ROOT), **inputs()},
                    {"PATH": str(bin_dir) + os.pathsep + os.environ["PATH"]})
    assert done.returncode == 1
    assert "3.9" in done.stdout and "python-version" in done.stdout
    assert not (tmp_path / "runner" / "temp" / "memory-autopsy-venv").exists()


@needs_bash
def test_the_install_step_offline_pinned_and_hash_checked(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is needed")
    seed = offline_wheels()  # skips where no local wheels exist for an offline build
    wheelhouse = tmp_path / "wheels"
    wheelhouse.mkdir()
    setuptools = shutil.copy(max(seed.glob("setuptools-*.whl")), wheelhouse)
    pyyaml = repacked("PyYAML", wheelhouse)
    packaging = repacked("packaging", wheelhouse)
    folder = tmp_path / "action"
    shutil.copytree(ROOT, folder, ignore=COPY_IGNORE)
    pins = {Path(setuptools): "setuptools", pyyaml: "pyyaml", packaging: "packaging"}

    def pin(hashes: dict[str, str]) -> None:
        pin_wheels(folder / "action-requirements.txt", pins, hashes)

    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "PIP_CONFIG_FILE": os.devnull}
    context = {"github.action_path": str(folder), **inputs(semantic="false")}
    pin({"pyyaml": "0" * 64})  # a wheel that is not the pinned one is refused
    refused = run_step("Install memory-autopsy", tmp_path, tmp_path / "runner", context, offline)
    assert refused.returncode != 0 and "hash" in refused.stderr.lower()

    pin({})
    shutil.rmtree(tmp_path / "runner" / "temp" / "memory-autopsy-venv")
    done = run_step("Install memory-autopsy", tmp_path, tmp_path / "runner", context, offline)
    assert done.returncode == 0, done.stdout + done.stderr

    repo = tmp_path / "repo"
    write(repo / "memory" / "notes.md", "- billing: uses PostgreSQL 14 (2020-01-05) (source: infra)\n")
    git(repo, "init", "-q")
    ran = run_step("run", repo, tmp_path / "runner",
                   inputs(args="--isolated --as-of 2026-06-01 --max-age-days 30", changed_only="false",
                          fail_on="warning", paths="memory/notes.md"))
    assert ran.returncode == 1, ran.stdout + ran.stderr  # `aged` exists only through args
    assert "title=memory-autopsy aged::" in ran.stdout


def workflows(path: Path) -> list[dict[str, Any]]:
    """The GitHub workflows among the YAML examples of a document."""
    import yaml

    blocks = re.findall(r"```yaml\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    return [data for data in map(yaml.safe_load, blocks) if isinstance(data, dict) and "jobs" in data]


@pytest.mark.parametrize("document", ["README.md", "docs/ci.md"])
def test_the_documented_workflow_uploads_sarif_and_is_soft_on_forks(document: str) -> None:
    found = workflows(ROOT / document)
    assert found, f"{document} shows no workflow"
    for workflow in found:
        assert workflow["permissions"]["security-events"] == "write"
        steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
        lint = next(s for s in steps if str(s.get("uses", "")).startswith("memory-autopsy/memory-autopsy@"))
        upload = next(s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@"))
        assert f"steps.{lint['id']}.outputs.sarif-file" in upload["with"]["sarif_file"]
        assert "always()" in upload["if"]
        assert "fork" in str(upload["continue-on-error"])


@needs_bash
@pytest.mark.parametrize("semantic", ["true", "false"])
def test_the_semantic_input_installs_the_pinned_model_or_nothing(tmp_path: Path, semantic: str) -> None:
    """The model's pins are installed, hash-checked, when the input asks for them, and not
    otherwise (a small installed wheel stands in for the model's: nothing reaches the network)."""
    folder = tmp_path / "action"
    shutil.copytree(ROOT, folder, ignore=COPY_IGNORE)
    wheelhouse = pinned_wheelhouse(folder, tmp_path / "wheels")
    stand_in = repacked("iniconfig", wheelhouse)
    offline = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "PIP_CONFIG_FILE": os.devnull}
    context = {"github.action_path": str(folder), **inputs(semantic=semantic)}
    pin_wheels(folder / "action-semantic-requirements.txt", {stand_in: "iniconfig"}, {"iniconfig": "0" * 64})
    refused = run_step("Install memory-autopsy", tmp_path, tmp_path / "runner", context, offline)
    assert (refused.returncode != 0) == (semantic == "true"), refused.stdout + refused.stderr

    pin_wheels(folder / "action-semantic-requirements.txt", {stand_in: "iniconfig"})
    shutil.rmtree(tmp_path / "runner" / "temp" / "memory-autopsy-venv")
    done = run_step("Install memory-autopsy", tmp_path, tmp_path / "runner", context, offline)
    assert done.returncode == 0, done.stdout + done.stderr
    venv = tmp_path / "runner" / "temp" / "memory-autopsy-venv"
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                            check=True, capture_output=True, text=True).stdout
    assert ("iniconfig" in {d["name"].lower() for d in json.loads(listed)}) == (semantic == "true")
