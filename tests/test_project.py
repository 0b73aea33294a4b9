"""Project-level promises: the README quickstart, the rule reference, a light CLI import."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, SRC
from memory_autopsy.rules import HELP_URI, RULES


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_a_two_command_quickstart() -> None:
    text = _readme()
    first_section = text.split("\n## ", 2)[1]
    assert first_section.startswith("Quickstart")
    block = re.search(r"```sh\n(.*?)```", first_section, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "memory-autopsy scan examples/" in commands[0]
    assert "pytest" in commands[1] and ".[test]" in commands[1]
    assert commands[1].split("&& ")[-1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_rule_has_a_reference_anchor() -> None:
    text = _readme()
    for rule in RULES:
        anchor = HELP_URI.format(id=rule.id).split("#", 1)[1]
        assert f'<a id="{anchor}"></a>' in text, rule.id
        assert rule.summary in text


def test_cli_import_stays_light() -> None:
    code = (
        "import sys, memory_autopsy.cli; "
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('httpx', 'yaml', 'mcp', 'tomllib', 'tomli')"
        " or m.startswith('memory_autopsy.engine')]; print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC)}, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_every_dataclass_has_a_docstring() -> None:
    """`dataclass` makes a class without one its docstring from `inspect.signature` (~0.1 ms
    a class, on import: the six a hook loaded were 3M of its 320M instructions)."""
    bare = []
    for path in sorted((SRC / "memory_autopsy").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None and any(
                    "dataclass" in ast.unparse(d) for d in node.decorator_list):
                bare.append(f"{path.relative_to(SRC)}:{node.lineno} {node.name}")
    assert not bare, bare


def test_a_hook_outside_a_repository_loads_no_process_or_thread_module(tmp_path: Path) -> None:
    """What a commit pays for: outside git no git runs (so `subprocess` is never needed), a
    hook writing to a pipe draws no progress line (so no thread), and its parser finds the
    terminal's width without `shutil`."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "notes.md").write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    assert not any((p / ".git").exists() for p in (tmp_path.resolve(), *tmp_path.resolve().parents))
    code = (
        "import sys; from memory_autopsy.cli import main; code = main(['hook', 'memory/notes.md']); "
        "sys.stderr.write(repr((code, [m for m in ('subprocess', 'threading', 'shutil') if m in sys.modules])))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(SRC)}, timeout=60)
    assert done.stderr.strip().endswith("(0, [])"), done.stdout + done.stderr


def test_a_hook_on_a_commit_of_no_memory_file_loads_no_engine(tmp_path: Path) -> None:
    """The commit pre-commit runs the hook on most in a repository of code: a README, no memory
    file. Nothing can be reported, so neither the scope's listing nor the engine, the readers
    or the record types are loaded."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "notes.md").write_text("- billing: uses PostgreSQL 14 (2026-01-05)\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("# A project\n", encoding="utf-8")
    heavy = ("memory_autopsy.model", "memory_autopsy.engine", "memory_autopsy.ingest.loader", "memory_autopsy.rules")
    code = (
        "import sys; from memory_autopsy.cli import main; code = main(['hook', 'README.md']); "
        f"sys.stderr.write(repr((code, [m for m in {heavy!r} if m in sys.modules])))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={"PYTHONPATH": str(SRC), "PATH": os.environ.get("PATH", "")}, timeout=60)
    assert done.stderr.strip().endswith("(0, [])"), done.stdout + done.stderr


@pytest.mark.parametrize("columns", [None, "57", "0", "-3", "wide"])
def test_the_help_is_wrapped_as_argparse_wraps_it(monkeypatch, columns: str | None) -> None:
    """The parsers find the terminal's width themselves (argparse imports shutil for it): the
    same width as shutil's, so the same help, for every command and the top level."""
    import argparse
    import shutil

    from memory_autopsy.cli import build_parser
    from memory_autopsy.commands import COMMANDS, terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns

    def plain(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        """The parser's help as argparse's own formatter writes it."""
        parser.formatter_class = parser.formatter_class.func  # type: ignore[attr-defined]
        return parser

    for command in [None, *COMMANDS]:
        parser = build_parser(command)
        helps = [parser.format_help()]
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if command is not None:
            helps.append(sub.choices[command].format_help())
            assert helps[1] == plain(sub.choices[command]).format_help()
        assert helps[0] == plain(parser).format_help()
