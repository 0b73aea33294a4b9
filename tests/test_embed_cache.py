"""The embedding cache: a second run over an unchanged store sends no request."""

from __future__ import annotations

import json
from pathlib import Path

from embed_helpers import embed_settings
from memory_autopsy.api import lint
from memory_autopsy.embed.cache import EmbeddingCache, default_cache_dir

pytest_plugins = ("embed_fixtures",)  # the embed_server and cache_dir fixtures
ROOT = Path(__file__).resolve().parents[1]
GREYZONE = (ROOT / "examples" / "greyzone.md").read_text(encoding="utf-8")


def _store(tmp_path: Path, text: str = GREYZONE) -> str:
    path = tmp_path / "memory.md"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file())


def test_a_second_run_sends_no_request(tmp_path, embed_server, cache_dir):
    store = _store(tmp_path)
    first = lint(store, embed_settings(embed_server.url, cache_dir))
    sent = embed_server.requests
    assert sent == 1
    second = lint(store, embed_settings(embed_server.url, cache_dir))
    assert embed_server.requests == sent
    assert second.findings == first.findings
    assert [f.rule for f in second.findings] == ["likely_conflict"]


def test_only_new_claims_are_sent(tmp_path, embed_server, cache_dir):
    lint(_store(tmp_path), embed_settings(embed_server.url, cache_dir))
    lint(
        _store(tmp_path, GREYZONE + "- billing-store: the ledger backups sit in s3 (2026-03-01)\n"),
        embed_settings(embed_server.url, cache_dir),
    )
    assert embed_server.requests == 2
    assert json.loads(embed_server.seen[-1]["body"])["input"] == ["the ledger backups sit in s3"]


def test_no_cache_sends_every_time_and_writes_nothing(tmp_path, embed_server, cache_dir):
    store = _store(tmp_path)
    for _ in range(2):
        lint(store, embed_settings(embed_server.url, cache_dir, use_cache=False))
    assert embed_server.requests == 2
    assert not cache_dir.exists()


def test_a_corrupt_cache_file_is_ignored_and_replaced(tmp_path, embed_server, cache_dir):
    store = _store(tmp_path)
    lint(store, embed_settings(embed_server.url, cache_dir))
    [cached] = _files(cache_dir)
    cached.write_bytes(b"\x00{not json")
    report = lint(store, embed_settings(embed_server.url, cache_dir))
    assert [f.rule for f in report.findings] == ["likely_conflict"]
    assert embed_server.requests == 2
    assert json.loads(cached.read_text(encoding="utf-8"))["version"] == 1


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path, embed_server, cache_dir):
    lint(_store(tmp_path), embed_settings(embed_server.url, cache_dir))
    names = [p.name for p in _files(cache_dir)]
    assert len(names) == 1 and names[0].endswith(".json") and not names[0].startswith(".tmp")


def test_the_default_cache_lives_under_xdg_cache_home(
    tmp_path, embed_server, cache_dir, monkeypatch
):
    lint(_store(tmp_path), embed_settings(embed_server.url, use_cache=True, cache_dir=None))
    xdg = tmp_path / "xdg"
    assert default_cache_dir() == xdg / "memory-autopsy"
    assert [p.parent.name for p in _files(xdg / "memory-autopsy")] == ["embeddings"]


def test_an_unwritable_cache_is_not_fatal(tmp_path, embed_server):
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache folder should be", encoding="utf-8")
    report = lint(_store(tmp_path), embed_settings(embed_server.url, blocker))
    assert [f.rule for f in report.findings] == ["likely_conflict"]


def test_cached_vectors_of_another_size_degrade_instead_of_mixing(
    tmp_path, embed_server, cache_dir
):
    store = _store(tmp_path)
    lint(store, embed_settings(embed_server.url, cache_dir))
    extra = GREYZONE + "- billing-store: the ledger backups sit in s3 (2026-03-01)\n"
    embed_server.mode = "wrong_size"
    report = lint(_store(tmp_path, extra), embed_settings(embed_server.url, cache_dir))
    assert [f.rule for f in report.findings] == ["degraded"]
    assert "wrong size" in report.findings[0].message


def test_entries_are_keyed_by_model_and_text(tmp_path):
    cache = EmbeddingCache(tmp_path, "http://127.0.0.1:1/api/embed", "model-a")
    cache.put("some claim", [0.5, 0.25])
    assert cache.save()
    again = EmbeddingCache(tmp_path, "http://127.0.0.1:1/api/embed", "model-a")
    assert again.get("some claim") == [0.5, 0.25]
    assert again.get("another claim") is None
    assert (
        EmbeddingCache(tmp_path, "http://127.0.0.1:1/api/embed", "model-b").get("some claim")
        is None
    )


def test_progress_is_reported_for_long_runs_only():
    import io

    from embed_helpers import FixedEmbedder
    from memory_autopsy.embed.batch import PROGRESS_MIN, embed_texts, terminal_progress

    seen: list[tuple[int, int]] = []
    texts = [f"claim {i}" for i in range(PROGRESS_MIN)]
    embed_texts(texts, FixedEmbedder({}), None, 100, lambda done, total: seen.append((done, total)))
    assert seen == [(100, PROGRESS_MIN), (200, PROGRESS_MIN), (PROGRESS_MIN, PROGRESS_MIN)]
    seen.clear()
    embed_texts(
        texts[:10], FixedEmbedder({}), None, 100, lambda done, total: seen.append((done, total))
    )
    assert seen == []
    assert terminal_progress(io.StringIO()) is None  # not a terminal: silent
