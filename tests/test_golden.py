"""Golden outputs for examples/: the seed's demonstrations, byte for byte (UPDATE_GOLDEN=1 rewrites)."""

from __future__ import annotations

import pytest

from conftest import GOLDEN, ROOT, run_cli

CASES = {
    "memory_facts.txt": ("scan", "examples/memory.md", "examples/facts.json"),
    "memory_facts.json": ("scan", "examples/memory.md", "examples/facts.json", "--json"),
    "memory_facts.report.md": ("report", "examples/memory.md", "examples/facts.json"),
    "aliases.txt": ("scan", "examples/aliases.md"),
    "greyzone.txt": ("scan", "examples/greyzone.md"),
    "timeline.txt": ("scan", "examples/timeline.jsonl"),
    "store.txt": ("scan", "examples/store.jsonl"),
    "examples_dir.json": ("scan", "examples", "--json"),
    "memory_bank.txt": ("scan", "examples/memory-bank"),
    "memory_bank.report.md": ("report", "examples/memory-bank"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name: str, update_golden: bool) -> None:
    result = run_cli(*CASES[name], cwd=ROOT)
    assert result.err == ""
    path = GOLDEN / name
    if update_golden:
        path.parent.mkdir(exist_ok=True)
        path.write_text(result.out, encoding="utf-8")
    assert result.out == path.read_text(encoding="utf-8")


def test_seed_classes_on_seed_lines() -> None:
    """The same classes on the same kinds of lines as the seed's sample output. The severity is
    the judges' (engine/judges.py): a prose pair is for review, two explicit records fail."""
    out = run_cli("scan", "examples/memory.md", "examples/facts.json", cwd=ROOT).out
    assert "examples/memory.md:5: review contradicted_implicit" in out
    assert "examples/facts.json:3: error contradicted_implicit" in out
    assert "uses 'postgresql' here, but 'mysql' at examples/memory.md:10" in out
    assert "examples/memory.md:11: info duplicate" in out
    assert "a newer fact at examples/memory.md:21 retracts 'northwind' ('left')" in out
    aliases = run_cli("scan", "examples/aliases.md", cwd=ROOT).out
    assert "'Acme Corp' (form 'acme') and 'Acma' (form 'acma') differ by 1 edit(s), similarity 0.75" in aliases
    assert "examples/aliases.md:4: error contradicted_implicit MA202: datastore 'self-hosted" in aliases
