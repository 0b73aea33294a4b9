"""The version lives in one place (`memory_autopsy.__version__`), and every snippet a user copies
names it: the pre-commit `rev:`, the Action's `uses: …@v`, the examples of output."""

from __future__ import annotations

import re
import sys

from conftest import ROOT
from memory_autopsy import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Where a version of this tool is written for a user to copy.
SNIPPETS = [
    re.compile(r"memory-autopsy/memory-autopsy[ \t]*\n[ \t#]*rev:[ \t]*(\S+)"),  # a pre-commit repo entry (or its comment)
    re.compile(r"uses:\s*memory-autopsy/memory-autopsy@(\S+)"),  # the Action
    re.compile(r'"(?:tool|name)": "memory-autopsy", "version": "([^"]+)"'),  # output shown
]


def documents() -> list[str]:
    paths = [ROOT / "README.md", ROOT / "action.yml", ROOT / ".pre-commit-hooks.yaml", *sorted((ROOT / "docs").glob("*.md"))]
    return [str(p.relative_to(ROOT)) for p in paths if p.is_file()]


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "memory_autopsy.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_every_snippet_names_the_current_version() -> None:
    found = []
    for name in documents():
        text = (ROOT / name).read_text(encoding="utf-8")
        for pattern in SNIPPETS:
            for match in pattern.finditer(text):
                if not match.group(1).startswith("<"):  # "@<40-hex commit>": how to pin a commit
                    found.append((name, match.group(1).strip("'\"")))
    assert {"README.md", "docs/ci.md", "docs/embed.md", ".pre-commit-hooks.yaml"} <= {name for name, _ in found}
    stale = [(name, version) for name, version in found if version.lstrip("v") != __version__]
    assert not stale, f"snippets not at v{__version__}: {stale}"
