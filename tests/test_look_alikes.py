"""`unresolved_alias` names two entities that may be one name written two ways: a plural, one
mistyped letter, the same words spaced apart. Two different words stay two entities however
close their letters: two short words two edits apart ("Stack" / "Start"), two codes one apart
("0x0B" / "0x0C"), two-letter words ("EU" / "AU"), and a changed character of a script written
without spaces, where each character is a word ("高优先级" / "中优先级").

Generated: pairs x store shapes (headings of a memory bank, graph entities, JSONL records)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import findings_of, write

ONE_NAME = [
    ("Core Service", "Core Services"),
    ("Database Schema", "Database Schemas"),
    ("Authentication Flow", "Authetication Flow"),
    ("Acme Corp", "Acma Corp"),
    ("Memory Bank", "MemoryBank"),
    ("Payment Gateway", "Payment Gateways"),
]
TWO_NAMES = [
    ("Stack", "Start"),
    ("Hooks", "Tools"),
    ("Forms", "Fonts"),
    ("UI Integration", "AI Integration"),
    ("Modem EU LE22", "Modem AU LE22"),
    ("Opcode 0x0B", "Opcode 0x0C"),
    ("高优先级", "中优先级"),
    ("禁止模式清单", "禁止模式"),
    ("サーバー環境", "サーバー機能"),
    ("사용자 정보", "사용자 인증"),
]


def _store(root: Path, shape: str, a: str, b: str) -> None:
    if shape == "headings":
        write(root / "memory-bank" / "systemPatterns.md",
              f"# System Patterns\n\n## {a}\n- Handles the first part of the flow\n\n"
              f"## {b}\n- Handles the second part of the flow\n")
    elif shape == "graph":
        lines = [{"type": "entity", "name": a, "entityType": "component", "observations": ["Handles the first part"]},
                 {"type": "entity", "name": b, "entityType": "component", "observations": ["Handles the second part"]}]
        write(root / "memory.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
    else:
        lines = [{"entity": a, "slot": "owner", "value": "team-a", "observed_at": "2026-01-05"},
                 {"entity": b, "slot": "owner", "value": "team-b", "observed_at": "2026-01-06"}]
        write(root / "facts.jsonl", "".join(json.dumps(line) + "\n" for line in lines))


SHAPES = ("headings", "graph", "records")


_PAIR = re.compile(r"^'(?P<a>.*?)' \(form '.*?'\) and '(?P<b>.*?)' \(form ")


def _named(root: Path) -> list[set[str]]:
    return [set(m.group("a", "b")) for f in findings_of(root, "unresolved_alias") if (m := _PAIR.match(f["message"]))]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("a", "b"), ONE_NAME)
def test_one_name_written_two_ways_is_a_look_alike(tmp_path: Path, shape: str, a: str, b: str) -> None:
    _store(tmp_path, shape, a, b)
    assert _named(tmp_path) == [{a, b}]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("a", "b"), TWO_NAMES)
def test_two_words_close_in_letters_are_two_entities(tmp_path: Path, shape: str, a: str, b: str) -> None:
    _store(tmp_path, shape, a, b)
    assert _named(tmp_path) == []
