"""Layer 3's hedge (`likely_conflict`) reads two claims of one slot with two values. Two items of
one list or table that open with two subjects are written side by side to differ ("Product
pages cache HTML in Redis" / "Search results pages keep HTML in Memcached"): no conflict. Items
that open with one subject, the same claims in two files, and a graph entity's observations are
still read as one slot's two values."""

from __future__ import annotations

from pathlib import Path

from memory_autopsy.api import lint
from memory_autopsy.settings import EmbedSettings, Settings

ONE_SUBJECT = ("Product pages cache rendered HTML in Redis for five minutes",
               "Product pages keep their rendered HTML in Memcached for five minutes")
TWO_SUBJECTS = ("Product pages cache rendered HTML in Redis for five minutes",
                "Search results pages keep their rendered HTML in Memcached for an hour")


def _hedges(root: Path) -> list[str]:
    settings = Settings(engine="embed", embed=EmbedSettings(provider="static", cache_dir=str(root / "cache")))
    report = lint([str(root / "memory")], settings)
    assert not [f for f in report.findings if f.rule == "degraded"], report.findings
    return [Path(f.path).name for f in report.findings if f.rule == "likely_conflict" and f.layer == "3"]


def _one_list(root: Path, pair: tuple[str, str]) -> Path:
    (root / "memory").mkdir()
    (root / "memory" / "patterns.md").write_text(f"# Patterns\n\n## Storage\n- {pair[0]}\n- {pair[1]}\n", "utf-8")
    return root


def test_two_items_of_one_list_with_two_subjects_are_no_conflict(tmp_path: Path) -> None:
    assert _hedges(_one_list(tmp_path, TWO_SUBJECTS)) == []


def test_two_items_of_one_list_with_one_subject_are_one_slots_two_values(tmp_path: Path) -> None:
    assert _hedges(_one_list(tmp_path, ONE_SUBJECT)) == ["patterns.md"]


def test_the_same_claims_in_two_files_are_one_slots_two_values(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "patterns.md").write_text(f"# Patterns\n\n## Storage\n- {ONE_SUBJECT[0]}\n", "utf-8")
    (tmp_path / "memory" / "tech.md").write_text(f"# Tech\n\n## Storage\n- {ONE_SUBJECT[1]}\n", "utf-8")
    assert _hedges(tmp_path) == ["patterns.md"]
