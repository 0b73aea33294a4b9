"""What a hook environment installs: PyYAML and nothing else; the embed engine's extra is optional."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT, SRC
from memory_autopsy import install_hint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_runtime_dependencies_are_few() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = sorted(d.split(">")[0].split(";")[0].split("=")[0].strip() for d in project["dependencies"])
    assert names == ["packaging", "pyyaml", "tomli"]
    assert project["optional-dependencies"]["embed"] == ["httpx>=0.27"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_embed_engine_without_its_extra_degrades_with_the_install_command() -> None:
    code = (
        "import sys; sys.modules['httpx'] = None\n"  # as if the extra were not installed
        "from memory_autopsy.cli import main\n"
        "sys.exit(main(['scan', 'examples/greyzone.md', '--engine', 'embed', '--json', '--isolated']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC), "OLLAMA_BASE_URL": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode in (0, 1), done.stderr
    (degraded,) = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "degraded"]
    assert install_hint("embed") in degraded["message"]


def test_the_package_data_ships_the_example_rule_file_and_the_vocabulary() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    shipped = data["package-data"]["memory_autopsy"]
    assert "memory-autopsy.toml.example" in shipped and "lexicon/*.json" in shipped
    package = SRC / "memory_autopsy"
    assert (package / "memory-autopsy.toml.example").is_file() and (package / "lexicon" / "budgets.json").is_file()
