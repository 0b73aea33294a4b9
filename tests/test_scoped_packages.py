"""An npm scoped package named in an instruction file (`@tanstack/react-query`) is a mention, not
an `@import`: no `broken_link` for it, unless its scope is a folder beside the file, where the
loader would look for a file. Imports that are imports stay checked. Every package x every way
of writing it x every instruction file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, write

PACKAGES = ("@tanstack/react-query", "@types/node", "@radix-ui/react-dialog", "@namecard/api", "@nestjs/core",
            "@vitejs/plugin-react", "@supabase/supabase-js", "@prisma/client", "@testing-library/react",
            "@babel/preset-env")
SHAPES = (
    "- ✅ All packages: {p}, {q}\n",
    "- The web app uses {p} for data fetching\n",
    "- Installed {p}@5.2.0 and {q}@1.0.0 (2026-02-01)\n",
    "Dependencies: {p} and {q}.\n",
    "| Package | Role |\n|---|---|\n| {p} | client |\n",
    "1. Upgrade {p} (see {q})\n",
)
FILES = ("CLAUDE.md", "CLAUDE.local.md", "apps/web/CLAUDE.md")
CASES = [(p, PACKAGES[(i + 3) % len(PACKAGES)], shape, name)
         for i, p in enumerate(PACKAGES) for shape in SHAPES for name in FILES]


def broken(cwd: Path, target: str) -> list[dict[str, Any]]:
    result = run_cli("scan", target, "--json", "--no-grounding", "--fail-on", "info", cwd=cwd)
    assert result.code in (0, 1), result.err
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == "broken_link"]


def test_the_cases_cover_every_package_shape_and_file() -> None:
    assert len(CASES) == len(PACKAGES) * len(SHAPES) * len(FILES) == 180


@pytest.mark.parametrize("files", [CASES[i::6] for i in range(6)], ids=[f"part{i}" for i in range(6)])
def test_a_scoped_package_is_no_broken_import(tmp_path: Path, files: list[tuple[str, str, str, str]]) -> None:
    for n, (p, q, shape, name) in enumerate(files):
        root = tmp_path / f"case{n}"
        write(root / name, "# Project\n" + shape.format(p=p, q=q))
        assert broken(root, name) == [], (p, shape, name)


LOOK_ALIKES = (
    ("- setup: @docs/setup.md\n", {}, "docs/setup.md"),             # a file, by its extension
    ("- setup: @docs/setup\n", {"docs/other.md": "- x\n"}, "docs/setup"),  # its scope is a folder here
    ("- setup: @Docs/Setup\n", {}, "Docs/Setup"),                   # no package is named in capitals
    ("- notes: @./notes/today\n", {}, "notes/today"),               # a path, by its ./
    ("- deep: @guides/team/onboarding\n", {}, "guides/team/onboarding"),  # three parts: a path
)


@pytest.mark.parametrize("text,others,target", LOOK_ALIKES)
def test_imports_that_are_imports_stay_checked(tmp_path: Path, text: str, others: dict[str, str], target: str) -> None:
    write(tmp_path / "CLAUDE.md", "# Project\n" + text)
    for rel, body in others.items():
        write(tmp_path / rel, body)
    found = broken(tmp_path, "CLAUDE.md")
    assert [(f["line"], f["severity"]) for f in found] == [(2, "error")], found
    assert target in found[0]["message"]


def test_a_package_shaped_import_of_a_file_that_is_there_is_followed(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "# Project\n- team rules: @team/rules\n")
    write(tmp_path / "team" / "rules", "- review every pull request\n")
    assert broken(tmp_path, "CLAUDE.md") == []
    (tmp_path / "team" / "rules").unlink()
    assert [f["line"] for f in broken(tmp_path, "CLAUDE.md")] == [2]  # its scope is still a folder
