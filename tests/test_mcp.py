"""The MCP server, driven by the SDK's own client over stdio; and the path confinement behind it."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import memory_autopsy.api  # noqa: F401 (imported before a test patches what it binds)
from memory_autopsy import agent_tools
from memory_autopsy.agent_tools import Tool, ToolRefused
from memory_autopsy.ingest.confined import Roots

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
MARKER = "SECRETMARKER"
TOOL_NAMES = {tool.value for tool in Tool}

needs_mcp = pytest.mark.skipif(
    importlib.util.find_spec("mcp") is None, reason="mcp is not installed"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A working directory with stores, and a private folder beside it that must stay unread."""
    work = tmp_path / "work"
    work.mkdir()
    for name in ("store.jsonl", "timeline.jsonl", "memory.md"):
        shutil.copy(EXAMPLES / name, work / name)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(f"- vault: uses {MARKER} (2026-01-01)\n", encoding="utf-8")
    (work / "link.md").symlink_to(outside / "secret.md")
    (work / "tree").mkdir()
    (work / "tree" / "fine.md").write_text("- svc: uses redis 7 (2026-01-01)\n", encoding="utf-8")
    (work / "tree" / "sneaky.md").symlink_to(outside / "secret.md")
    return work


# ------------------------------------------------------------------ the domain functions (no MCP)
@pytest.mark.parametrize(
    "store", ["../outside/secret.md", "link.md", "tree", "{outside}/secret.md"]
)
def test_paths_that_lead_out_of_the_roots_are_refused(workspace, monkeypatch, store):
    monkeypatch.chdir(workspace)
    store = store.format(outside=workspace.parent / "outside")
    opened: list[str] = []
    for where in ("memory_autopsy.api.read_sources", "memory_autopsy.ingest.loader.read_sources"):
        monkeypatch.setattr(where, lambda files: opened.extend(files) or ([], []))
    with pytest.raises(ToolRefused, match="outside the allowed roots"):
        agent_tools.memory_lint(store, roots=Roots.of())
    assert opened == []


def test_a_root_flag_allows_a_folder(workspace, monkeypatch):
    monkeypatch.chdir(workspace)
    outside = workspace.parent / "outside"
    result = agent_tools.memory_lint(str(outside / "secret.md"), roots=Roots.of([str(outside)]))
    assert result["facts"] == 1


def test_lint_inside_the_roots_matches_the_cli_engine(workspace, monkeypatch):
    from memory_autopsy.api import lint

    monkeypatch.chdir(workspace)
    result = agent_tools.memory_lint("store.jsonl", roots=Roots.of())
    expected = lint("store.jsonl").findings
    assert result["counts"] == dict(Counter(f.rule for f in expected))
    assert result["finding_count"] == len(expected)
    assert {f["path"] for f in result["findings"]} == {"store.jsonl"}


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda r: agent_tools.memory_lint("store.jsonl", "magic", roots=r), "engine"),
        (lambda r: agent_tools.memory_lint("", roots=r), "non-empty"),
        (lambda r: agent_tools.memory_lint("missing.md", roots=r), "no readable"),
        (lambda r: agent_tools.memory_as_of("someday", "store.jsonl", roots=r), "not a date"),
        (lambda r: agent_tools.memory_why("store.jsonl", "ffffffffffffffff", roots=r), "no fact"),
        (
            lambda r: agent_tools.memory_admit("not an object", "store.jsonl", roots=r),
            "JSON object",
        ),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_are_refused_with_a_reason(workspace, monkeypatch, call, match):
    monkeypatch.chdir(workspace)
    with pytest.raises(ToolRefused, match=match):
        call(Roots.of())


# ------------------------------------------------------------------ the server, over stdio
def _dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(by_alias=True, exclude_none=True, mode="json"))


def _session(cwd: Path, scenario: Callable[[Any], Awaitable[None]], *args: str) -> None:
    """Spawn the server, initialize, and run `scenario(session)` with the SDK's client."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {
        "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "HOME": str(cwd),
        "XDG_CACHE_HOME": str(cwd / ".cache"),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_autopsy.mcp_server", *args],
        env=env,
        cwd=str(cwd),
    )

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                info = _dump(await session.initialize())
                assert info["serverInfo"]["name"] == "memory-autopsy"
                await scenario(session)

    anyio.run(main)


async def _call(session: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return _dump(await session.call_tool(name, arguments))


def _text(result: dict[str, Any]) -> str:
    return " ".join(block.get("text", "") for block in result.get("content", []))


@needs_mcp
def test_tools_list_names_annotations_and_schemas(workspace):
    async def scenario(session: Any) -> None:
        tools = {t["name"]: t for t in (_dump(t) for t in (await session.list_tools()).tools)}
        assert set(tools) == TOOL_NAMES
        for tool in tools.values():
            assert tool["annotations"]["readOnlyHint"] is True
            assert tool["annotations"]["openWorldHint"] is False
            assert tool["description"]
            schema = tool["inputSchema"]
            assert schema["type"] == "object"
            assert all(prop.get("description") for prop in schema["properties"].values())
            assert tool["outputSchema"]["type"] == "object"
        assert tools["memory_lint"]["inputSchema"]["required"] == ["store"]
        assert tools["memory_lint"]["inputSchema"]["properties"]["engine"]["enum"] == [
            "heuristic",
            "embed",
        ]
        assert sorted(tools["memory_admit"]["inputSchema"]["required"]) == ["fact", "store"]
        assert sorted(tools["memory_as_of"]["inputSchema"]["required"]) == ["date", "store"]
        assert sorted(tools["memory_why"]["inputSchema"]["required"]) == ["id", "store"]

    _session(workspace, scenario)


@needs_mcp
def test_every_tool_answers_with_structured_output(workspace):
    from memory_autopsy.api import lint

    expected = lint(str(workspace / "store.jsonl")).findings

    async def scenario(session: Any) -> None:
        linted = await _call(session, "memory_lint", {"store": "store.jsonl"})
        assert not linted.get("isError"), _text(linted)
        report = linted["structuredContent"]
        assert report["finding_count"] == len(expected)
        assert sorted(f["rule"] for f in report["findings"]) == sorted(f.rule for f in expected)

        fact = {
            "entity": "billing-store",
            "slot": "tool",
            "value": "Oracle 19",
            "observed_at": "2026-01-05",
        }
        admitted = (await _call(session, "memory_admit", {"fact": fact, "store": "store.jsonl"}))[
            "structuredContent"
        ]
        assert admitted["status"] == "requires_review" and admitted["conflict_ids"]

        why = await _call(
            session, "memory_why", {"store": "store.jsonl", "id": admitted["conflict_ids"][0]}
        )
        assert not why.get("isError"), _text(why)
        assert why["structuredContent"]["fact"]["id"] == admitted["conflict_ids"][0]

        as_of = await _call(
            session, "memory_as_of", {"date": "2026-03-01", "store": "timeline.jsonl"}
        )
        assert not as_of.get("isError"), _text(as_of)
        view = as_of["structuredContent"]
        assert view["as_of"] == "2026-03-01"
        assert [b["value"] for b in view["beliefs"] if b["entity"] == "billing-store"] == [
            "PostgreSQL 14"
        ]

    _session(workspace, scenario)


@needs_mcp
def test_malformed_arguments_are_errors_and_the_server_stays_alive(workspace):
    async def scenario(session: Any) -> None:
        for name, arguments in [
            ("memory_lint", {}),
            ("memory_lint", {"store": 12}),
            ("memory_lint", {"store": "store.jsonl", "engine": "magic"}),
            ("memory_admit", {"fact": "not an object", "store": "store.jsonl"}),
            ("memory_why", {"store": "store.jsonl", "id": "ffffffffffffffff"}),
            ("memory_as_of", {"date": "someday", "store": "store.jsonl"}),
        ]:
            result = await _call(session, name, arguments)
            assert result.get("isError") is True, (name, arguments)
        alive = await _call(session, "memory_lint", {"store": "memory.md"})
        assert not alive.get("isError") and alive["structuredContent"]["facts"] > 0

    _session(workspace, scenario)


@needs_mcp
def test_stores_outside_the_roots_are_refused_and_not_read(workspace):
    outside = workspace.parent / "outside"

    async def scenario(session: Any) -> None:
        for store in (str(outside / "secret.md"), "../outside/secret.md", "link.md", "tree"):
            for name, arguments in [
                ("memory_lint", {"store": store}),
                ("memory_as_of", {"date": "2026-03-01", "store": store}),
                ("memory_why", {"store": store, "id": "ffff"}),
                ("memory_admit", {"fact": {"entity": "vault", "claim": "uses x"}, "store": store}),
            ]:
                result = await _call(session, name, arguments)
                assert result.get("isError") is True, (name, store)
                assert "outside the allowed roots" in _text(result)
                assert MARKER not in json.dumps(result)

    _session(workspace, scenario)


@needs_mcp
def test_the_root_flag_widens_what_may_be_read(workspace):
    outside = workspace.parent / "outside"

    async def scenario(session: Any) -> None:
        result = await _call(session, "memory_lint", {"store": str(outside / "secret.md")})
        assert not result.get("isError"), _text(result)
        assert result["structuredContent"]["facts"] == 1

    _session(workspace, scenario, "--root", str(outside))


@needs_mcp
def test_stdout_carries_only_the_protocol(workspace):
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    process = subprocess.Popen(
        [sys.executable, "-m", "memory_autopsy.mcp_server"],
        cwd=workspace,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "memory_lint", "arguments": {"store": "memory.md"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "memory_lint", "arguments": {"store": "../outside/secret.md"}},
        },
    ]
    lines: list[str] = []
    try:
        for request in requests:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            if "id" in request:
                lines.append(process.stdout.readline())
    finally:
        process.stdin.close()
        deadline = time.monotonic() + 10
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:
            process.kill()
        rest = process.stdout.read()
        process.wait(timeout=5)
    messages = [json.loads(line) for line in lines + rest.splitlines() if line.strip()]
    assert [m.get("id") for m in messages] == [1, 2, 3]
    assert all(m["jsonrpc"] == "2.0" for m in messages)
    assert messages[2]["result"]["isError"] is True
