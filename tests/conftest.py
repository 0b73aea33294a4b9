"""Shared test helpers: run the CLI in-process or as a subprocess; no network beyond loopback."""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import json
import os
import socket
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"
GOLDEN = Path(__file__).resolve().parent / "golden"


class Result(NamedTuple):
    code: int
    out: str
    err: str


def run_cli(*args: str, cwd: Path | str | None = None) -> Result:
    """Run `memory-autopsy ARGS` in-process (fast) with cwd switched."""
    from memory_autopsy.cli import main

    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 2
    finally:
        os.chdir(previous)
    return Result(code, out.getvalue(), err.getvalue())


def run_process(*args: str, cwd: Path | str | None = None, env: dict[str, str] | None = None,
                input: str | None = None, timeout: float = 120) -> Result:
    """Run `python -m memory_autopsy ARGS` as a real process."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(SRC) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    done = subprocess.run(
        [sys.executable, "-m", "memory_autopsy", *args], cwd=cwd, env=full_env, input=input,
        capture_output=True, text=True, timeout=timeout,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def copy_modules(package: Path, modules: Iterable[str], into: Path) -> Path:
    """The named modules and module folders of `package` copied under `into` (no bytecode): a
    checkout whose code a cache key must follow."""
    import shutil

    for name in modules:
        source = package / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            into.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, into / name)
    return into


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def findings_of(root: Path, rule: str) -> list[dict[str, Any]]:
    """The findings of one rule that `scan ROOT --json` reports, at every severity."""
    code, out, _ = run_cli("scan", str(root), "--json", "--fail-on", "error")
    assert code in (0, 1), out
    return [f for f in json.loads(out)["findings"] if f["rule"] == rule]


_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: object) -> None:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "localhost", "::1") and not host.startswith("127.") \
            and self.family in (socket.AF_INET, socket.AF_INET6):
        raise RuntimeError(f"tests never reach the network (tried {address!r})")
    _real_connect(self, address)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    yield


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(os.environ.get("UPDATE_GOLDEN"))


def git(cwd: Path, *args: str) -> str:
    """Run git with a throwaway identity; returns stdout."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false",
         "-c", "init.defaultBranch=main", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )
    return done.stdout


def committed_repo(repo: Path, files: dict[str, str]) -> Path:
    """A new git repository at `repo` whose one commit holds `files`."""
    repo.mkdir()
    git(repo, "init", "-q")
    for name, text in files.items():
        write(repo / name, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def pull_request_repo(repo: Path, base: dict[str, str], change: dict[str, str]) -> str:
    """A git repository with a base commit and a pull-request commit; returns the base SHA."""
    committed_repo(repo, base)
    sha = git(repo, "rev-parse", "HEAD").strip()
    for name, text in change.items():
        write(repo / name, text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pull request")
    return sha


def offline_wheels() -> Path:
    """virtualenv's seed wheels: enough to build the package with no package index (or skip)."""
    try:
        import virtualenv
    except ImportError:
        pytest.skip("virtualenv (a pre-commit dependency) provides the offline seed wheels")
    wheels = Path(virtualenv.__file__).parent / "seed" / "wheels" / "embed"
    if not list(wheels.glob("setuptools-*.whl")) or sys.version_info < (3, 11):
        pytest.skip("no local wheels for an offline build of the package")
    return wheels


def repacked(distribution: str, wheelhouse: Path) -> Path:
    """An installed distribution packed back into a wheel (the test's offline stand-in)."""
    dist = importlib.metadata.distribution(distribution)
    tag = next(line.split(": ", 1)[1] for line in (dist.read_text("WHEEL") or "").splitlines()
               if line.startswith("Tag: "))
    name = dist.metadata["Name"].lower().replace("-", "_")
    target = wheelhouse / f"{name}-{dist.version}-{tag}.whl"
    rows, info = [], f"{name}-{dist.version}.dist-info"
    with zipfile.ZipFile(target, "w") as archive:
        for file in dist.files or ():
            parts = file.parts
            if "__pycache__" in parts or (parts[0].endswith(".dist-info")
                                          and parts[-1] in ("RECORD", "INSTALLER")):
                continue
            data = Path(str(file.locate())).read_bytes()
            arcname = "/".join((info, *parts[1:])) if parts[0].endswith(".dist-info") else str(file)
            archive.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append([arcname, f"sha256={digest}", str(len(data))])
        record = io.StringIO()
        csv.writer(record).writerows([*rows, [f"{info}/RECORD", "", ""]])
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return target


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pin_wheels(requirements: Path, pins: dict[Path, str], hashes: dict[str, str] | None = None) -> None:
    """Pin the action's install to these wheels by hash (a hash given per name replaces the real one)."""
    requirements.write_text("".join(
        f"{name}=={wheel.name.split('-')[1]} --hash=sha256:{(hashes or {}).get(name, sha256(wheel))}\n"
        for wheel, name in pins.items()), encoding="utf-8")


def pinned_wheelhouse(folder: Path, wheelhouse: Path) -> Path:
    """Seed setuptools and the installed PyYAML and packaging as wheels, and the action in `folder`
    pinned to them."""
    import shutil

    wheelhouse.mkdir(parents=True, exist_ok=True)
    setuptools = Path(shutil.copy(max(offline_wheels().glob("setuptools-*.whl")), wheelhouse))
    pin_wheels(folder / "action-requirements.txt", {setuptools: "setuptools", repacked("PyYAML", wheelhouse): "pyyaml",
                                                    repacked("packaging", wheelhouse): "packaging"})
    return wheelhouse
