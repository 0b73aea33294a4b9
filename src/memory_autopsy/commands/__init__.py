"""Subcommands: each module registers its parsers and handlers; cli.py only dispatches."""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

from memory_autopsy.errors import UsageError

MODULES = ("lint", "ci_commands", "temporal_commands", "fix_commands", "budget_command")
# Which module registers each subcommand: a run builds only its own command's parser (the hook
# starts on every commit; importing every command's module cost it a third of its start-up).
COMMANDS = {
    "scan": "lint", "report": "lint",
    "hook": "ci_commands", "baseline": "ci_commands", "ci": "ci_commands", "init": "ci_commands",
    "rules": "ci_commands", "undo": "fix_commands", "budget": "budget_command",
    "as-of": "temporal_commands", "reconcile": "temporal_commands", "admit": "temporal_commands",
    "why": "temporal_commands",
}


class Parser(argparse.ArgumentParser):
    """argparse's parser, its help formatted to the terminal's width as argparse would find it.
    argparse asks `shutil` for the width as each parser is built: importing it (with the
    compression modules it loads) was about 1.3 ms of every run, the hook's on every commit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kind = kwargs.pop("formatter_class", argparse.HelpFormatter)
        kwargs["formatter_class"] = functools.partial(kind, width=terminal_columns() - 2)
        super().__init__(*args, **kwargs)


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`: $COLUMNS, else standard output's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        stdout = sys.__stdout__
        try:
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout is not None else 0
        except (AttributeError, ValueError, OSError):  # not a terminal, or no descriptor
            columns = 0
    return columns if columns > 0 else 80


LintOptions = Callable[[argparse.ArgumentParser], None]
if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[Parser]


def register_all(sub: Subparsers, lint_options: LintOptions, epilog: str, only: str | None = None) -> None:
    """Every command's parser, or with `only` (a known command) just the module that holds it."""
    for name in (COMMANDS[only],) if only in COMMANDS else MODULES:
        module = importlib.import_module(f"memory_autopsy.commands.{name}")
        module.register(sub, lint_options, epilog)


def dispatch(parser: argparse.ArgumentParser, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(err)
        return 2
    try:
        return int(handler(args, out, err))
    except UsageError as error:
        err.write(f"memory-autopsy: error: {error}\n")
        return 2
    except KeyboardInterrupt:
        err.write("memory-autopsy: interrupted\n")
        return 130
