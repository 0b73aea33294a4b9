"""How markdown and JSON memory are read: structure, dates, status, kind, entities."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from memory_autopsy.api import load_store
from memory_autopsy.dates import find_dates, parse_date


def read(tmp_path: Path, text: str, name: str = "notes.md"):  # type: ignore[no-untyped-def]
    (tmp_path / name).write_text(text, encoding="utf-8")
    return load_store([str(tmp_path / name)]).facts


def by_line(facts) -> dict[int, object]:  # type: ignore[no-untyped-def]
    return {f.line: f for f in facts}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-06-01T23:00-05:00", "2026-06-02T04:00:00Z"),
        ("2026-06-02T01:00Z", "2026-06-02T01:00:00Z"),
        ("２０２５－１１－２１", "2025-11-21"),
        ("2025年11月21日", "2025-11-21"),
        ("YYYY-MM-DD", None),
        ("2025-08-17 22:06:49", "2025-08-17T22:06:49"),
    ],
)
def test_dates_as_real_memory_writes_them(text: str, expected: str | None) -> None:
    assert parse_date(text) == expected


def test_offsets_compare_in_utc() -> None:
    later, earlier = parse_date("2026-06-01T23:00-05:00"), parse_date("2026-06-02T01:00Z")
    assert later is not None and earlier is not None and later > earlier


def test_dates_inside_prose() -> None:
    assert find_dates("merged on July 3, 2025, reviewed （2025-11-21）") == ["2025-07-03", "2025-11-21"]
    assert find_dates("release v1.2025-01 of YYYY-MM-DD") == []


def test_heading_and_entry_dates_govern_their_sections(tmp_path: Path) -> None:
    facts = by_line(read(tmp_path, (
        "# Log\n"
        "### 2025-01-29: cache work\n"
        "- moved the cache to redis 7\n"
        "## [2025-05-01 10:00:00] Decision\n"
        "- keep redis 7 for sessions\n"
        "## Rationale\n"
        "- sessions need expiry\n"
        "---\n"
        "[2025-08-17 22:06:49] - **Queue pattern**\n"
        "## Coding Patterns\n"
        "- workers ack after the write\n"
        "## Billing (as of 2026-03-10)\n"
        "- the ledger runs nightly\n"
        "- the export was merged on July 3, 2025\n"
    )))
    assert facts[3].observed_at == "2025-01-29"  # type: ignore[attr-defined]
    assert facts[5].observed_at == "2025-05-01T10:00:00"  # type: ignore[attr-defined]
    assert facts[7].observed_at == "2025-05-01T10:00:00"  # type: ignore[attr-defined]  # Rationale
    assert facts[11].observed_at == "2025-08-17T22:06:49"  # type: ignore[attr-defined]
    assert facts[13].observed_at == "2026-03-10"  # type: ignore[attr-defined]
    assert facts[14].observed_at == "2026-03-10"  # type: ignore[attr-defined]  # the section wins


def test_last_updated_dates_its_section_or_the_file(tmp_path: Path) -> None:
    facts = by_line(read(tmp_path, (
        "# Context\n**Last Updated**: 2026-02-01\n\n## Stack\n- the api uses FastAPI\n"
        "**Date**: 2026-04-04\n## Other\n- the cli uses click\n"
    )))
    assert facts[5].observed_at == "2026-04-04"  # type: ignore[attr-defined]
    assert facts[8].observed_at == "2026-02-01"  # type: ignore[attr-defined]


def test_front_matter_is_yaml(tmp_path: Path) -> None:
    (fact,) = read(tmp_path, "---\nname: Billing\nupdated: 2026-01-05  # review\nsource: >\n  infra doc\n---\n"
                             "- uses PostgreSQL 14\n")
    assert (fact.entity, fact.observed_at, fact.source) == ("Billing", "2026-01-05", "infra doc")


FRONT_MATTER = [
    "title: Foo\ndescription: |\n  line1\n  line2\nglobs: '*.ts'\nalwaysApply: true",
    "date: 2025-01-01T10:00:00Z\nsource: infra-doc", "a: 2026-01-05", "a: 1\na: 2", "a: [b, c]\nB: ~",
    'a: "\\ud800"',  # an escaped lone surrogate: libyaml refuses it, PyYAML's parser reads it
    "a: [" * 500, "? [a, b]\n: c", "- x", "a: b: c", "\t- x", "a: !!python/object:os.system ls", "&a [*a, *a]",
]


@pytest.mark.parametrize("text", FRONT_MATTER)
def test_front_matter_reads_as_pyyamls_own_safe_loader(text: str) -> None:
    """Front matter goes through libyaml where PyYAML has it, and reads exactly as PyYAML's
    own safe loader reads it: where libyaml refuses the text, PyYAML's parser reads it again."""
    import yaml

    from memory_autopsy.ingest.frontmatter import load_mapping

    try:
        data = yaml.load(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError):
        data = None
    expected = {str(k).lower(): v for k, v in data.items()} if isinstance(data, dict) else {}
    assert repr(load_mapping(text)) == repr(expected)


def test_wrapped_and_nested_bullets(tmp_path: Path) -> None:
    facts = read(tmp_path, (
        "- created the export job that writes\n  invoices to the ledger\n"
        "- Removed:\n  - the legacy cron\n  - the csv exporter\n"
    ))
    assert [(f.line, f.end_line, f.claim) for f in facts] == [
        (1, 2, "created the export job that writes invoices to the ledger"),
        (4, 0, "Removed: the legacy cron"),
        (5, 0, "Removed: the csv exporter"),
    ]
    assert all(f.kind == "event" for f in facts)


def test_tables_are_rows(tmp_path: Path) -> None:
    facts = read(tmp_path, (
        "## Features\n| Feature | Status | Owner |\n|---|---|---|\n| Export | ✅ Done | ana |\n"
        "| Import | 🔄 In progress | - |\n"
    ))
    export = [f for f in facts if f.entity == "Export"]
    assert {(f.slot, f.value) for f in export} == {("status", "✅ Done"), ("owner", "ana")}
    assert {f.status for f in export} == {"done"}
    assert [f.status for f in facts if f.entity == "Import"] == ["in_progress"]


def test_checkboxes_markers_and_section_kinds(tmp_path: Path) -> None:
    facts = by_line(read(tmp_path, (
        "## Next Steps\n- add retry to the sync job\n- [x] ship the exporter\n"
        "## Notes\n- ⏳ migrate the ledger\n- the importer is flaky (Completed)\n- 已完成 数据迁移\n"
        "- [P] address pylint issues\n"
    )))
    assert [(facts[n].kind, facts[n].status) for n in (2, 3, 5, 6, 8)] == [  # type: ignore[attr-defined]
        ("task", "pending"), ("task", "done"), ("task", "in_progress"), ("task", "done"), ("task", "in_progress"),
    ]
    assert all(f.entity == "notes" for f in facts.values())  # type: ignore[attr-defined]


def test_japanese_and_chinese_status_words(tmp_path: Path) -> None:
    facts = read(tmp_path, "## 完了\n- データ移行\n## 次のステップ\n- 認証の追加\n- ログ出力（進行中）\n")
    assert [f.status for f in facts] == ["done", "pending", "in_progress"]


def test_kinds(tmp_path: Path) -> None:
    facts = read(tmp_path, (
        "- Use uv for installs\n- Never commit secrets\n- Removed 304 console.log statements\n"
        "- the api runs on fly.io\n"
    ))
    assert [f.kind for f in facts] == ["guideline", "guideline", "event", "state"]


def test_prose_is_read_sentence_by_sentence(tmp_path: Path) -> None:
    facts = read(tmp_path, "The api runs on fly.io. Billing uses PostgreSQL 14, e.g. for invoices.\nIt was\nmoved in May.\n")
    assert [(f.line, f.claim) for f in facts] == [
        (1, "The api runs on fly.io."),
        (1, "Billing uses PostgreSQL 14, e.g. for invoices."),
        (2, "It was moved in May."),
    ]


def test_code_and_comments_are_not_claims(tmp_path: Path) -> None:
    facts = read(tmp_path, "- the api uses go\n```\n- not a claim\n```\n<!--\n- hidden\n-->\n- the cli uses rust\n")
    assert [f.line for f in facts] == [1, 8]


def test_labels_name_entities_only_when_they_are_one(tmp_path: Path) -> None:
    facts = read(tmp_path, (
        "## billing\n- runs nightly\n"
        "- Total: 5 jobs run each night\n- Result: the queue drained\n"
        "- ledger: keeps 7 years of invoices\n- ledger: is append only\n"
        "- Fix AttributeError: handle lists from the api\n"
    ))
    assert [f.entity for f in facts] == ["billing", "billing", "billing", "ledger", "ledger", "billing"]


def test_empty_reading_is_a_bad_input_never_clean(tmp_path: Path) -> None:
    (tmp_path / "memory.md").write_text("# Memory\n\n```\ncode only\n```\n")
    result = run_cli("scan", str(tmp_path / "memory.md"), "--format", "json", "--fail-on", "info")
    findings = json.loads(result.out)["findings"]
    assert result.code == 1 and [f["rule"] for f in findings] == ["bad_input"]
    assert "no facts read" in findings[0]["message"]
    (tmp_path / "g.json").write_text('{"entities": [], "relations": []}')
    result = run_cli("scan", str(tmp_path / "g.json"), "--format", "json", "--fail-on", "info")
    assert [f["rule"] for f in json.loads(result.out)["findings"]] == ["bad_input"]


def test_rule_file_adds_status_words_and_section_kinds(tmp_path: Path) -> None:
    (tmp_path / "memory-autopsy.toml").write_text(
        '[vocabulary]\nstatus-words = { done = ["klart"] }\n'
        'section-kinds = { "Nästa steg" = "pending" }\n', encoding="utf-8")
    (tmp_path / "notes.md").write_text(
        "## Nästa steg\n- Export av fakturor (source: team)\n\n"
        "## Logg\n- Export av fakturor (klart) (source: team)\n", encoding="utf-8")
    result = run_cli("scan", "notes.md", "--json", cwd=tmp_path)
    assert [(f["rule"], f["line"]) for f in json.loads(result.out)["findings"]] == [("status_conflict", 2)]
    isolated = run_cli("scan", "notes.md", "--json", "--isolated", cwd=tmp_path)  # words no lexicon holds
    assert json.loads(isolated.out)["findings"] == []


def test_chinese_status_words_on_a_real_memory_bank() -> None:
    bank = Path(__file__).resolve().parents[1] / "eval" / "real" / "files" / "alice-easy-easy-comic"
    facts = {(Path(f.path).name, f.line): f for f in load_store([str(bank)]).facts}
    assert facts[("progress.md", 26)].status == "done"  # "完成：在 ReaderBloc 中实现用户设置更新逻辑。"
    assert facts[("activeContext.md", 48)].status == "done"  # "完成FavoriteComicsScreen完整实现…"
    assert facts[("activeContext.md", 52)].status == "done"  # "WebDAV同步状态管理系统完成: …"
