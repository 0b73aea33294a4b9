"""Reading a store and running the engine over it: what the API, the verdict layer and the
front ends share. Imports are local: the CLI imports this for `paused_gc` on every run, and the
hook, which often has nothing to lint, starts on every commit."""

from __future__ import annotations

import gc
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from pathlib import Path

    from memory_autopsy.engine.run import Layer
    from memory_autopsy.grounds import Repository
    from memory_autopsy.ingest.cache import ParseCache
    from memory_autopsy.ingest.confined import Roots
    from memory_autopsy.ingest.loader import Source
    from memory_autopsy.model import Problem, Report, Store
    from memory_autopsy.settings import Settings


Paths: TypeAlias = "str | os.PathLike[str] | Iterable[str | os.PathLike[str]]"


def load_store(
    paths: Paths,
    settings: Settings | None = None,
    *,
    extra: Sequence[Source] = (),
    on_read: Callable[[str], None] | None = None,
) -> Store:
    """Read memory files and folders into one Store (folders honour include/exclude). `paths`: one
    path or several. `extra` are sources already in memory (standard input); `on_read` hears
    each path read (progress)."""
    store, cache = _load(paths, settings, extra, on_read)
    if cache is not None:
        cache.prune_after_run()
    return store


def _load(
    paths: Paths,
    settings: Settings | None,
    extra: Sequence[Source],
    on_read: Callable[[str], None] | None,
) -> tuple[Store, ParseCache | None]:
    """The store, and the parse cache it was read through (the caller prunes it once the run
    has read everything it will: a lint reads the engine's kept findings after the store)."""
    from memory_autopsy.ingest.cache import cache_for
    from memory_autopsy.ingest.confined import Roots
    from memory_autopsy.ingest.loader import expand, load_sources
    from memory_autopsy.selection import filter_paths
    from memory_autopsy.settings import Settings

    settings = settings or Settings()
    given = path_list(paths)
    roots = Roots.for_paths(given)
    files, problems = expand(given, roots)
    if settings.include or settings.exclude:
        named = {p.replace("\\", "/").removeprefix("./") for p in given}
        files = [f for f in files if f in named or filter_paths([f], settings.include, settings.exclude)]
    read_problems: list[Problem] = []
    cache = cache_for(settings)
    named_extra = {source.path for source in extra}
    files = [f for f in files if f not in named_extra] if named_extra else files
    sources: Iterable[Source] = itertools.chain(_iter_sources(files, read_problems, roots), extra)
    if on_read is not None:
        sources = _heard(sources, on_read)
    store = load_sources(sources, settings.vocabulary, problems, settings.lexicon, cache, settings.jobs)
    return replace(store, problems=store.problems + tuple(read_problems), roots=roots), cache


def _iter_sources(files: list[str], problems: list[Problem], roots: Roots) -> Iterator[Source]:
    """Read one file at a time, so a large store's bytes are dropped once parsed."""
    from memory_autopsy.ingest import loader

    for name in files:
        sources, read_problems = loader.read_sources([name], roots)
        problems.extend(read_problems)
        yield from sources


def _heard(sources: Iterable[Source], on_read: Callable[[str], None]) -> Iterator[Source]:
    for source in sources:
        on_read(source.path)
        yield source


def path_list(paths: Paths) -> list[str]:
    """One path is one path: a string is never read as its characters ("/tmp/x" is not "/",
    "t", …, which would read the whole disk)."""
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(path) for path in paths]


def lint(
    paths: Paths,
    settings: Settings | None = None,
    *,
    today: date | None = None,
    extra: Sequence[Source] = (),
    on_read: Callable[[str], None] | None = None,
    listing: tuple[str, Callable[[], str]] | None = None,
) -> Report:
    """Lint memory files (or directories) and return the report. `listing`: a folder and git's
    listing of it, already asked (the hook's scope): the grounding layer reads it rather than
    asking git again, when that folder is the top of the work tree."""
    from memory_autopsy.settings import Settings

    settings = settings or Settings()
    with paused_gc():
        store, cache = _load(paths, settings, extra, on_read)
        report = lint_loaded(store, settings, today=today, listing=listing)
        if cache is not None:
            cache.prune_after_run()
        return report


@contextmanager
def paused_gc(freeze: bool = False) -> Iterator[None]:
    """The fact model holds no reference cycles; the cycle collector only rescans a growing
    heap of immutable records (a third of the run time on a large store). Once it runs again,
    its first collection scans every record the run allocated (0.15 s at 100k facts), and the
    interpreter's last one at exit scans them all again: `freeze` (a process about to exit, the
    command line) moves them out of its reach first. A long-lived caller must not freeze: what
    it leaves unreachable later would never be collected."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def lint_loaded(store: Store, settings: Settings | None = None, *, today: date | None = None,
                listing: tuple[str, Callable[[], str]] | None = None) -> Report:
    from memory_autopsy.engine import lint_store
    from memory_autopsy.settings import Settings

    settings = settings or Settings()
    return lint_store(store, settings, extra_layer=extra_layer(settings), today=today,
                      repository=repository_of(store, settings, listing))


def repository_of(store: Store, settings: Settings,
                  listing: tuple[str, Callable[[], str]] | None = None) -> Repository | None:
    """The git work tree the store's files lie in, with git's listing of it (tracked files, and
    untracked ones not ignored): what the grounding layer checks memory against. None when
    grounding is off, nothing was read from a file, or the files are in no work tree."""
    if not settings.grounding or settings.as_of:
        return None
    files = [path for path in store.paths if path and not path.startswith("<")]
    if not files:
        return None
    import os

    from memory_autopsy.gitrun import GitError, git, repo_root
    from memory_autopsy.grounds import Repository
    from memory_autopsy.replay import LIST_FILES

    root = repo_root(os.path.dirname(os.path.abspath(files[0])) or ".")
    if root is None:
        return None
    try:
        if listing is not None and os.path.realpath(listing[0]) == os.path.realpath(root):
            listed = listing[1]()  # the same question, asked of the same folder: asked once
        else:
            listed = git(*LIST_FILES, cwd=root)
    except GitError:
        return None
    return Repository(str(root), frozenset(name for name in listed.split("\0") if name),
                      history=lambda: renames(root))


RENAME_HISTORY = 5000  # commits: git's rename detection reads each one's changes; older moves are rarely still named


def renames(root: Path) -> list[tuple[str, str]]:
    """The renames git detects in the last RENAME_HISTORY commits of HEAD, (old, new) oldest
    first: one `git log`, run only when memory names a path the repository lacks."""
    from memory_autopsy.gitrun import GitError, git

    try:
        out = git("log", "--reverse", "-M", "--diff-filter=R", "--name-status", "--format=", "-z",
                  f"--max-count={RENAME_HISTORY}", "HEAD", "--", cwd=str(root))
    except GitError:
        return []  # no commit yet, or a history git cannot read: no rename to follow
    fields = iter(out.split("\0"))
    moves = []
    for status in fields:  # `R<score>`, old, new; one commit's entries after another's
        if status.strip().startswith("R"):
            old, new = next(fields, ""), next(fields, "")
            if old and new:
                moves.append((old, new))
    return moves


def extra_layer(settings: Settings) -> Layer | None:
    """The embedding layer when the embed engine is asked for."""
    if settings.engine != "embed":
        return None
    from memory_autopsy.embed.layer import EmbeddingLayer

    return EmbeddingLayer(settings)
