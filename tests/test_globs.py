"""Include/exclude globs read as gitignore does: `dir/**/x` reaches `dir/x` too."""

from __future__ import annotations

import random

import pytest

from memory_autopsy.selection import matches, selected


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


@pytest.mark.parametrize(
    "pattern, path, expected",
    [
        ("memory/*.md", "memory/notes.md", True),
        ("memory/*.md", "memory/a/notes.md", False),  # `*` stays within one folder
        ("memory/*.md", "x/memory/notes.md", False),  # a slash anchors at the rule file's folder
        ("/notes.md", "x/notes.md", False),
        ("notes.md", "x/notes.md", True),  # no slash: any depth
        ("memory", "memory/a/notes.md", True),  # a folder matched: everything under it
        ("memory/", "memory/notes.md", True),
        ("memory/", "memory", False),  # a trailing slash names a folder, not a file
        ("docs/**", "docs", False),
        ("./memory/*.md", "memory/notes.md", True),
        ("\\*.md", "*.md", True),  # a backslash escapes
        ("\\*.md", "notes.md", False),
        ("m?mory/[a-m]*.md", "memory/notes.md", False),
        ("m?mory/[a-n]*.md", "memory/notes.md", True),
    ],
)
def test_gitignore_anchoring_and_folders(pattern: str, path: str, expected: bool) -> None:
    assert selected(path, [pattern], []) is expected


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pathspec 1.x renamed gitwildmatch
def test_same_answers_as_pathspec_gitwildmatch() -> None:
    """Differential: random well-formed patterns give pathspec's answer (pathspec is the
    reference the issue names; we do not use it, its regex backtracks on `a*a*a*…b`)."""
    pathspec = pytest.importorskip("pathspec")
    rng = random.Random(12)
    tokens = ["a", "b", "*", "?", "**", "/", ".md", "[ab]", "x", "/**/", "**/"]
    names = ["a", "b", "ab", "x.md", "a.md", "b.md", ".a"]
    checked = 0
    for _ in range(3000):
        pattern = "".join(rng.choice(tokens) for _ in range(rng.randint(1, 6)))
        segments = pattern.split("/")
        if "//" in pattern or not pattern.strip("/") or any("**" in s and s != "**" for s in segments):
            continue  # empty segments, and `**` inside a name, where pathspec departs from git
        spec = pathspec.PathSpec.from_lines("gitwildmatch", [pattern])
        for _ in range(5):
            path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 4)))
            assert matches(path, pattern) is spec.match_file(path), (pattern, path)
            checked += 1
    assert checked > 5000


@pytest.mark.parametrize("segment", ["memory", ".claude", "a.b+c(d)", "Memory", "x]y", "a-b_c", "é", "$1^"])
def test_a_segment_without_a_wildcard_matches_its_text_alone(segment: str) -> None:
    """A literal segment is compared, not compiled: the same answers fnmatch gives."""
    from fnmatch import fnmatch

    for name in (segment, segment.lower(), segment.upper(), segment + "x", "x" + segment, "memorx", ""):
        expected = fnmatch(name, segment)
        assert matches(f"{name}/notes.md", f"{segment}/") is (expected and bool(name)), name
        assert matches(f"top/{name}", f"top/{segment}") is (expected and bool(name)), name


def _walked(path: str, pattern: str) -> bool:
    """`matches` without its test of the pattern's literal segments against the path's text."""
    from memory_autopsy.selection import _reach, compile_glob

    glob = compile_glob(pattern)
    parts = [part for part in path.split("/") if part and part != "."]
    reach = _reach(glob.segments, parts) if glob.segments else set()
    return bool(glob.segments) and (not glob.folder_only and len(parts) in reach or any(0 < j < len(parts) for j in reach))


def test_a_path_missing_a_literal_segment_is_told_as_the_walk_tells_it() -> None:
    """The literal segments tested first give the walk's answer for the default scope, the
    folders it leaves out and patterns of every shape, on paths built of their segments."""
    from memory_autopsy.ingest.dialects import DEFAULT_SCOPE, NEVER_MEMORY_FOLDERS

    patterns = [*DEFAULT_SCOPE, *NEVER_MEMORY_FOLDERS, "memory/", "a/./b", "\\*.md", "m?mory/notes.md",
                "/memory/*.md", "x/**/memory", "Memory/**", "docs"]
    names = ["memory", ".claude", "memory-bank", "MEMORY.md", "claude.md", "CLAUDE.md", "notes.md", "docs",
             "x", "a.af", ".serena", "memories", ".cursor", "rules", "r.mdc", "memory.jsonl", "*.md", "a", "b",
             "memorymemory", "node_modules", ".", ""]
    rng = random.Random(7)
    told = {True: 0, False: 0}
    for _ in range(4000):
        path = "/".join(rng.choice(names) for _ in range(rng.randint(1, 5)))
        for pattern in patterns:
            expected = _walked(path, pattern)
            assert matches(path, pattern) is expected, (path, pattern)
            told[expected] += 1
    assert told[True] > 1000 and told[False] > 1000
