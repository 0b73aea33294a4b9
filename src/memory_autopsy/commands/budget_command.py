"""`budget`: per memory file, what the agent loads against the system's load budget, and the
facts that fall outside it."""

from __future__ import annotations

import argparse
import json
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memory_autopsy.commands import LintOptions, Subparsers
    from memory_autopsy.engine.reachability import Reach
    from memory_autopsy.ingest.reach import MemoryFile
    from memory_autopsy.model import Fact


def register(sub: Subparsers, lint_options: LintOptions, epilog: str) -> None:
    budget = sub.add_parser("budget", help="what each memory file costs against its load budget",
                            description="Per memory file: loaded / linked / unreachable, lines and bytes "
                            "against the load budget of an always-loaded index, and the facts past it.")
    budget.add_argument("paths", nargs="*", metavar="PATH", help="memory files or folders (default: the scope)")
    budget.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    budget.add_argument("--config", metavar="FILE", help="rule file (default: found by walking up); "
                        "its [reachability] tables override the budgets")
    budget.add_argument("--isolated", action="store_true", help="ignore any rule file")
    budget.set_defaults(handler=run_budget)


def run_budget(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from memory_autopsy.api import load_store
    from memory_autopsy.commands.common import lint_inputs, write_output
    from memory_autopsy.config import settings_for
    from memory_autopsy.engine.reachability import analyse
    from memory_autopsy.errors import UsageError
    from memory_autopsy.formatters.visible import json_safe

    settings = settings_for(args.config, isolated=args.isolated)
    store = load_store(lint_inputs(args, list(args.paths), settings), settings)
    if not store.files:
        raise UsageError("no markdown memory file among: " + " ".join(args.paths))
    reach = analyse(store, settings.budgets)
    rows = [_row(memory, reach, store.facts) for memory in store.files]
    if args.json:
        write_output(json_safe(json.dumps({"files": rows}, indent=2, ensure_ascii=False)) + "\n", None, out)
    else:
        write_output(_table(rows), None, out)
    return 0


def _row(memory: MemoryFile, reach: Reach, facts: Sequence[Fact]) -> dict[str, Any]:
    """The overridden budget when the rule file sets one (None: that limit is off)."""
    index = reach.system(memory) if memory.path in reach.budget_line else None
    first_out = reach.budget_line.get(memory.path)
    outside = [f for f in facts if f.path == memory.path and first_out is not None and f.line >= first_out]
    state = reach.state.get(memory.path, "linked")
    return {
        "path": memory.path, "dialect": memory.dialect,
        "state": "loaded (index)" if index is not None else state,
        "lines": memory.lines, "bytes": memory.size,
        "budget_lines": index.get("max-lines") if index is not None else None,
        "budget_bytes": index.get("max-bytes") if index is not None else None,
        "outside": [{"line": f.line, "claim": f.claim} for f in outside],
    }


def _table(rows: list[dict[str, Any]]) -> str:
    from memory_autopsy.formatters.visible import visible

    lines = [f"{'file':<44} {'state':<15} {'lines':>11} {'bytes':>15}  outside"]
    for row in rows:
        name = row["path"] if len(row["path"]) <= 44 else "…" + row["path"][-43:]
        used_lines = f"{row['lines']}" + (f"/{row['budget_lines']}" if row["budget_lines"] else "")
        used_bytes = f"{row['bytes']}" + (f"/{row['budget_bytes']}" if row["budget_bytes"] else "")
        lines.append(f"{name:<44} {row['state']:<15} {used_lines:>11} {used_bytes:>15}  {len(row['outside'])}")
        for fact in row["outside"][:10]:
            lines.append(f"    {PurePosixPath(row['path']).name}:{fact['line']}  {fact['claim'][:90]}")
        if len(row["outside"]) > 10:
            lines.append(f"    … {len(row['outside']) - 10} more")
    return "\n".join(visible(line) for line in lines) + "\n"  # paths and claims are memory text
