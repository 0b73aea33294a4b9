"""Subcommands: each module registers its parsers and handlers; cli.py only dispatches."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

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

LintOptions = Callable[[argparse.ArgumentParser], None]
if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]


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
