"""Include/exclude globs read as gitignore does: `dir/**/x` reaches `dir/x` too."""

from __future__ import annotations

import pytest

from memory_autopsy.selection import selected


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("memory/**/*.md", "memory/notes.md", True),
        ("memory/**/*.md", "memory/a/b/notes.md", True),
        (".claude/**/*.md", ".claude/CLAUDE.md", True),
        ("a/**/b/**/c.md", "a/b/x/c.md", True),
        ("a/**/b/**/c.md", "a/x/c.md", False),
        ("*.md", "deep/folder/x.md", True),
        ("docs/**", "docs/a/b.md", True),
        ("memory/**/*.md", "other/notes.md", False),
    ],
)
def test_gitignore_style_globs(pattern: str, path: str, expected: bool) -> None:
    assert selected(path, [pattern], []) is expected


def test_exclude_uses_the_same_reading() -> None:
    assert not selected("memory/archive/old.md", ["memory/**/*.md"], ["memory/**/archive/*.md"])
    assert not selected("memory/archive/x.md", ["memory/**"], ["memory/archive/**"])
