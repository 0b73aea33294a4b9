"""`admit` with a deeply nested fact (issue 43, item 8): rejected with a reason, never a crash.

A fact 100,000 levels deep, as `--fact` text, `@FILE`, standard input, through the API or the
agent tool, ended in RecursionError (exit 3). Past the gate's depth limit a fact cannot be
normalized: it is rejected (exit 4), as any fact that cannot be, before the store is read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli, run_process
from memory_autopsy import agent_tools
from memory_autopsy.api import admit
from memory_autopsy.verdicts.gate import MAX_DEPTH

STORE = str(ROOT / "examples" / "store.jsonl")
FACT = {"entity": "billing-store", "slot": "owner", "value": "payments", "date": "2026-07-01"}
DEEP = 100_000


def nested_lists(depth: int) -> str:
    return "[" * depth + "]" * depth


def nested_objects(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def with_meta(meta: str) -> str:
    """FACT with a `meta` field holding `meta` (JSON text)."""
    return json.dumps(FACT)[:-1] + ', "meta": ' + meta + "}"


def deep_value(depth: int) -> Any:
    """A value `depth` containers deep, built without recursion."""
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def rejected_for_depth(code: int, out: str, err: str) -> None:
    assert code == 4, (code, out, err)
    assert out.startswith("status: rejected") and "nested too deeply" in out
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("text", [nested_lists(DEEP), nested_objects(DEEP), with_meta(nested_objects(DEEP)),
                                  with_meta(nested_lists(MAX_DEPTH))], ids=["lists", "objects", "field", "past-limit"])
def test_a_deep_fact_on_the_command_line_is_rejected(tmp_path: Path, text: str) -> None:
    (tmp_path / "fact.json").write_text(text, encoding="utf-8")
    rejected_for_depth(*run_cli("admit", "--fact", "@fact.json", STORE, cwd=tmp_path))
    if len(text) < 100_000:  # an argument list has a size limit
        rejected_for_depth(*run_cli("admit", "--fact", text, STORE, cwd=tmp_path))


def test_a_deep_fact_as_json_output_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "fact.json").write_text(nested_objects(DEEP), encoding="utf-8")
    result = run_cli("admit", "--fact", "@fact.json", STORE, "--json", cwd=tmp_path)
    assert result.code == 4 and json.loads(result.out)["status"] == "rejected"


@pytest.mark.skipif(sys.platform == "win32", reason="/dev/stdin")
def test_a_deep_fact_on_standard_input_in_a_real_process_is_rejected(tmp_path: Path) -> None:
    rejected_for_depth(*run_process("admit", "--fact", "@/dev/stdin", STORE, cwd=tmp_path,
                                    input=with_meta(nested_lists(DEEP))))


def test_a_fact_at_the_limit_is_judged() -> None:
    verdict = admit({**FACT, "meta": deep_value(MAX_DEPTH - 1)}, STORE)
    assert verdict.status == "accepted"
    code, out, _ = run_cli("admit", "--fact", with_meta(nested_lists(MAX_DEPTH - 1)), STORE)
    assert code == 0 and out.startswith("status: accepted")


@pytest.mark.parametrize("depth", [MAX_DEPTH, DEEP])
def test_a_deep_fact_through_the_api_is_rejected(depth: int) -> None:
    verdict = admit({**FACT, "meta": deep_value(depth)}, STORE)
    assert verdict.status == "rejected" and "nested too deeply" in verdict.reason


def test_a_fact_that_holds_itself_is_rejected() -> None:
    fact: dict[str, Any] = dict(FACT)
    fact["meta"] = [fact]
    verdict = admit(fact, STORE)
    assert verdict.status == "rejected" and "nested too deeply" in verdict.reason


@pytest.mark.parametrize("depth", [MAX_DEPTH, DEEP])
def test_a_deep_fact_through_the_agent_tool_is_rejected(depth: int, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "store.jsonl").write_bytes(Path(STORE).read_bytes())
    monkeypatch.chdir(tmp_path)
    verdict = agent_tools.memory_admit({**FACT, "meta": deep_value(depth)}, "store.jsonl",
                                       roots=agent_tools.Roots.of())
    assert verdict["status"] == "rejected" and "nested too deeply" in verdict["reason"]
