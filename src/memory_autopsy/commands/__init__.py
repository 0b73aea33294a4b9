"""Subcommands: each module registers its parsers and handlers; cli.py only dispatches."""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

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

    def error(self, message: str) -> NoReturn:
        """argparse's usage error, with the flag meant when one was mistyped or borrowed from
        another tool (`--fix`, `--outpt-format`)."""
        if message.startswith("unrecognized arguments: "):
            hint = flag_hint(message.split(": ", 1)[1].split(), self)
            message += f" ({hint})" if hint else ""
        super().error(message)


# Flags of other linters whose work a command of this one does.
FOREIGN_FLAGS = {
    "--fix": "fixes are planned by `memory-autopsy report` and written by `report --apply --yes-i-know`",
    "--write": "fixes are planned by `memory-autopsy report` and written by `report --apply --yes-i-know`",
    "--show-source": "`memory-autopsy why FILE:LINE` explains a finding",
    "--explain": "`memory-autopsy why FILE:LINE` explains a finding; `memory-autopsy rules NAME` a rule",
}


def flag_hint(words: list[str], parser: argparse.ArgumentParser) -> str:
    """What a flag argparse does not know stands for: another tool's (`--fix`), or the nearest
    flag of any command (`--ignor` → `--ignore`)."""
    import difflib

    known: set[str] = set(parser._option_string_actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                known.update(command._option_string_actions)
    for word in words:
        flag = word.split("=", 1)[0]
        if not flag.startswith("--"):
            continue
        if flag in FOREIGN_FLAGS:
            return FOREIGN_FLAGS[flag]
        if flag in known:  # a flag of another command: the nearest flag would be itself
            return f"{flag} is not an option of this command; `--help` after the command lists its options"
        close = difflib.get_close_matches(flag, sorted(k for k in known if k.startswith("--")), n=1, cutoff=0.75)
        if close:
            return f"did you mean {close[0]}?"
    return ""


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


def rule_flags(parser: argparse.ArgumentParser) -> None:
    """--select, --ignore and --exit-zero: every command that reports findings takes them."""
    parser.add_argument("--select", action="append", metavar="RULE[,RULE]",
                        help="report only these rules: names, codes or code prefixes (MA2, ALL)")
    parser.add_argument("--ignore", action="append", metavar="RULE[,RULE]",
                        help="never report these rules (names, codes or code prefixes)")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even with findings (usage and internal errors still exit 2 and 3)")


def baseline_flags(parser: argparse.ArgumentParser) -> None:
    """--baseline FILE and --no-baseline: every command that lints reads the baseline the same
    way (`ci.filters.baseline_file`), so each takes the same two flags."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--baseline", metavar="FILE",
                       help="report and fail only on findings not in FILE (default: the rule file's "
                       "`baseline`, else .memory-autopsy-baseline.json when it exists)")
    group.add_argument("--no-baseline", action="store_true",
                       help="read no baseline: report and fail on every finding")


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
