"""`memory-autopsy-mcp`: the agent tools over MCP (stdio), on the official `mcp` SDK.

A thin adapter: each tool maps onto one function of agent_tools; schemas come from the typed
signatures below; every tool is annotated read-only and closed-world. stdout carries only the
protocol. Works with the SDK's 1.x `FastMCP` and its 2.x successor `MCPServer`.

    memory-autopsy-mcp [--root DIR]...       (or: python -m memory_autopsy.mcp_server)
"""

# No `from __future__ import annotations` here: the SDK reads the tool signatures at runtime, and
# the tools are defined inside a function (they close over the roots), so their annotations
# must be real objects, not strings to be resolved against module globals.
import argparse
import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypeVar

from memory_autopsy import __version__, agent_tools, install_hint
from memory_autopsy.agent_tools import Tool, ToolRefused
from memory_autopsy.ingest.confined import Roots

INSTRUCTIONS = (
    "Lint the facts an agent keeps in memory files. Call memory_lint(store) before trusting a "
    "memory file, memory_admit(fact, store) before writing a fact, memory_why(store, id) to see "
    "why a fact is contested, and memory_as_of(date, store) for what was true on a date. "
    "Read-only: no tool writes a store."
)
INSTALL_HINT = install_hint("mcp")
T = TypeVar("T")
ToolTable = dict[Tool, tuple[Callable[..., Any], str]]


def _sdk() -> tuple[Any, type[Exception]]:
    """The server class and the tool-error type of whichever SDK major version is installed."""
    try:  # mcp 2.x
        server = importlib.import_module("mcp.server.mcpserver")
        errors = importlib.import_module("mcp.server.mcpserver.exceptions")
        return server.MCPServer, errors.ToolError
    except ImportError:  # mcp 1.x
        server = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return server.FastMCP, errors.ToolError


def _annotations(title: str) -> Any:
    from mcp.types import ToolAnnotations

    # By wire name: 1.x declares camelCase fields, 2.x snake_case fields with camelCase aliases.
    return ToolAnnotations.model_validate(
        {
            "title": title,
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        }
    )


def build_server(roots: Roots) -> Any:
    """The MCP server with the four tools registered (nothing is read until a tool is called).

    ImportError when the `mcp` extra is missing (main() turns it into the install hint)."""
    server_class, tool_error = _sdk()
    kwargs: dict[str, Any] = {"instructions": INSTRUCTIONS}
    if "version" in inspect.signature(server_class.__init__).parameters:
        kwargs["version"] = __version__
    server = server_class("memory-autopsy", **kwargs)
    for tool, (function, title) in _tools(roots, tool_error).items():
        server.add_tool(
            function,
            name=tool.value,
            title=title,
            description=inspect.cleandoc(function.__doc__ or ""),
            annotations=_annotations(title),
            structured_output=True,
        )
    return server


def _tools(roots: Roots, tool_error: type[Exception]) -> ToolTable:
    """The tools and their typed output schemas: declarations, built when the server is.

    They are built here and not at import, because pydantic comes with the `mcp` extra and this
    module is the console script: without the extra it must still import, to say what to install.
    """
    from pydantic import BaseModel, ConfigDict, Field

    class Output(BaseModel):
        """Typed output schemas; extra keys pass through, so a richer report never breaks a client."""

        model_config = ConfigDict(extra="allow")

    class LintOutput(Output):
        engine: str = Field(description="heuristic or embed")
        facts: int = Field(description="facts read")
        finding_count: int
        counts: dict[str, int] = Field(description="findings per rule")
        findings: list[dict[str, Any]] = Field(
            description="rule, severity, layer, path, line, entity, message, confidence, "
            "fact_ids, related"
        )

    class AdmitOutput(Output):
        status: Literal["accepted", "requires_review", "rejected"]
        reason: str
        conflict_ids: list[str] = Field(description="ids of the stored facts the fact disagrees with")
        supersede: dict[str, Any] | None = Field(description="the edit that would resolve the conflict")
        warnings: list[str] = Field(default_factory=list)

    class AsOfOutput(Output):
        as_of: str
        beliefs: list[dict[str, Any]] = Field(description="facts in effect on the date, with verdicts")
        out_of_window: list[dict[str, Any]] = Field(default_factory=list)
        unanchored: list[dict[str, Any]] = Field(default_factory=list)
        unresolved_aliases: list[dict[str, Any]] = Field(default_factory=list)

    class WhyOutput(Output):
        fact: dict[str, Any]
        provenance: dict[str, Any]
        corroborated_by: list[dict[str, Any]]
        contradicted_by: list[dict[str, Any]]
        superseded_by: list[dict[str, Any]]
        supersedes: list[dict[str, Any]]

    def guarded(call: Callable[[], T]) -> T:
        try:
            return call()
        except ToolRefused as error:
            raise tool_error(str(error)) from None

    Store = Annotated[
        str,
        Field(
            description="A memory file or folder (markdown, JSON or JSONL), "
            "inside the server's allowed roots."
        ),
    ]

    def memory_lint(
        store: Store,
        engine: Annotated[
            Literal["heuristic", "embed"],
            Field(
                description="heuristic (offline, default) or embed (adds the embedding layer; "
                "contacts the configured local embedding endpoint)"
            ),
        ] = "heuristic",
    ) -> LintOutput:
        """Lint a memory store: duplicates, contradictions, staleness, hygiene. Returns every
        finding with its rule, severity, location, confidence and the fact ids involved."""
        return guarded(
            lambda: LintOutput.model_validate(agent_tools.memory_lint(store, engine, roots=roots))
        )

    def memory_admit(
        fact: Annotated[
            dict[str, Any],
            Field(
                description='The fact to persist, e.g. {"entity": "billing-store", "slot": "tool", '
                '"value": "MySQL 8", "observed_at": "2026-06-02", "source": "infra-doc"} '
                'or {"entity": ..., "claim": "uses MySQL 8"}.'
            ),
        ],
        store: Store,
    ) -> AdmitOutput:
        """Check one fact before writing it: accepted, requires_review (with the conflicting
        ids and the supersede edit that would resolve it) or rejected. Writes nothing."""
        return guarded(
            lambda: AdmitOutput.model_validate(agent_tools.memory_admit(fact, store, roots=roots))
        )

    def memory_as_of(
        date: Annotated[str, Field(description="The date to read the store at (YYYY-MM-DD).")],
        store: Store,
        entity: Annotated[str | None, Field(description="Only this entity (aliases fold).")] = None,
    ) -> AsOfOutput:
        """What the store held to be true on a date: validity windows first, observation dates
        second; records with neither are listed as unanchored, never guessed."""
        return guarded(
            lambda: AsOfOutput.model_validate(
                agent_tools.memory_as_of(date, store, entity, roots=roots)
            )
        )

    def memory_why(
        store: Store,
        id: Annotated[
            str,
            Field(
                description="A fact id from memory_lint or memory_admit "
                "(16 hex characters, or a unique prefix)."
            ),
        ],
    ) -> WhyOutput:
        """Why a fact is (not) trusted: its provenance and reliability, and the facts that
        corroborate, contradict or supersede it. Use it after a requires_review verdict."""
        return guarded(
            lambda: WhyOutput.model_validate(agent_tools.memory_why(store, id, roots=roots))
        )

    return {
        Tool.LINT: (memory_lint, "Lint agent memory"),
        Tool.ADMIT: (memory_admit, "Gate a fact before writing it"),
        Tool.AS_OF: (memory_as_of, "Read memory as of a date"),
        Tool.WHY: (memory_why, "Explain one fact"),
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="memory-autopsy-mcp",
        description="MCP server (stdio) exposing memory_lint, memory_admit, memory_as_of and "
        "memory_why. Read-only; reads only inside the working directory and --root folders.",
    )
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="DIR",
        help="also allow stores under DIR (repeatable)",
    )
    parser.add_argument("--version", action="version", version=f"memory-autopsy-mcp {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        server = build_server(Roots.of(args.root))
    except ImportError as error:
        missing = f" (no module {error.name!r})" if error.name else ""
        sys.stderr.write(f"memory-autopsy-mcp: the MCP SDK is not installed{missing}: {INSTALL_HINT}\n")
        return 2
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
