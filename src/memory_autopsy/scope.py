"""Which files a run reads: the scope, and the files and folders named on the command line.

The scope is the rule file's `include`/`exclude`, else the default scope: the known memory
locations of the dialect table (`CLAUDE.md`, `memory-bank/`, `.cursor/rules/*.mdc`, …), never a
README, a changelog, `docs/` or a package manifest. Globs match paths relative to the scope
root (the rule file's folder, else the repository root, else the working directory), so
`cd memory && memory-autopsy scan .` means what the rule file means. Git's ignore rules are
honoured for the scope and for folders named; a file named is read whatever the scope says,
unless it is plainly not memory (a manifest, a binary of another type): a usage error.

Every path returned is relative to the working directory with forward slashes, the way the
engine prints paths.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from memory_autopsy.ci.changed import GitError, from_root, git, git_started, in_work_tree, norm, repo_root
from memory_autopsy.errors import UsageError
from memory_autopsy.ingest.confined import Roots
from memory_autopsy.ingest.dialects import (
    CODE_SUFFIXES,
    DEFAULT_SCOPE,
    GENERIC_MEMORY_FOLDER,
    KNOWN_NAMES,
    MEMORY_SUFFIXES,
    NEVER_MEMORY_FOLDERS,
    hidden_folder,
    is_manifest,
    is_memory_file,
    never_memory,
)
from memory_autopsy.replay import LIST_FILES
from memory_autopsy.selection import Selection, select, selected
from memory_autopsy.settings import Settings

ALWAYS_SKIPPED = ("memory-autopsy.toml", ".memory-autopsy-baseline.json")
_DEFAULT_SCOPE = tuple(glob.lower() for glob in DEFAULT_SCOPE)  # matched without regard to case
_NAMED_SCOPE = tuple(g for g in _DEFAULT_SCOPE if g != GENERIC_MEMORY_FOLDER)  # the other locations
# Instruction files whose `@path` imports the loaders follow (lexicon/budgets.json imports-from).
IMPORTERS = frozenset({"claude.md", "claude.local.md", "gemini.md"})
# How every memory file's name ends (lower-cased): its suffix, or a known name without one.
_MEMORY_ENDS = MEMORY_SUFFIXES + tuple(sorted(n for n in KNOWN_NAMES if not n.endswith(MEMORY_SUFFIXES)))
Warn = Callable[[str], object]
Listing = Callable[[], str]  # git's listing of a folder, running: called, it waits for it and returns it


def stderr_warning(message: str) -> None:
    """A warning on one inert line: the message may quote a pattern or path from the rule file."""
    from memory_autopsy.escaping import one_line

    sys.stderr.write(one_line(f"memory-autopsy: warning: {message}") + "\n")


def scope_root(config_file: Path | None) -> Path:
    if config_file is not None:
        return config_file.resolve().parent
    return repo_root() or Path.cwd().resolve()


def in_scope(path: str, settings: Settings) -> bool:
    """Whether a root-relative path counts as memory under the rule file (or the default)."""
    return bool(_taken([path], settings, None))


def default_scope(path: str) -> bool:
    """A known memory location of a system the tool reads (see the dialect table)."""
    name = path.rsplit("/", 1)[-1]  # most of a repository's files fail here, the cheapest test
    if not is_memory_file(name) or never_memory(name) or any(hidden_folder(p) for p in path.split("/")[:-1]):
        return False
    return selected(path.lower(), _DEFAULT_SCOPE, NEVER_MEMORY_FOLDERS)


def scope_files(settings: Settings, root: Path, warn: Warn = stderr_warning,
                listing: Listing | None = None) -> list[str]:
    """Every memory file of the scope, as working-directory-relative paths. An include pattern
    that matches no file is a warning (a typo, or a folder that moved), never silence.
    `listing`: git's listing of root, started earlier (start_listing)."""
    # Without include patterns, a memory file's name ends so: the one test most of a
    # repository's files fail, made on git's listing before anything else.
    listed = _git_names(root, ends=None if settings.include else _MEMORY_ENDS, listing=listing)
    walked: list[str] | None = None
    if listed is None:
        walked = _walk(root, skip_dots=not settings.include)
        chosen = _selection(walked, settings)
    else:
        chosen = _selection(listed, settings)
        # git lists every file a repository holds, and one deleted but not committed: only what
        # the selection took (and, for the include patterns' warning, what an exclude pattern
        # took out) is looked for on disk, and when one is gone the selection is made again, of
        # the files there, so that a pattern that matched only a file gone matched none.
        looked = chosen.paths + chosen.excluded if settings.include else chosen.paths
        there = _present(root, looked)
        if len(there) < len(looked):
            chosen = _selection(there, settings)
    for pattern in chosen.unmatched:
        warn(f"include pattern {pattern!r} matches no file in {_shown(root)} (patterns are relative "
             "to the rule file's folder; git-ignored files are skipped)")
    paths = chosen.paths if settings.include else _not_code(chosen.paths, root, walked, listing)
    baseline = _baseline_key(settings, root)
    return sorted(from_root(root, p) for p in paths if _kept(p, baseline))


def _not_code(paths: list[str], root: Path, walked: list[str] | None, listing: Listing | None) -> list[str]:
    """The default scope's files less those of a code folder called `memory` (`src/memory/`
    beside the module's `.ts` files): the generic `memory/` location is a folder of notes, and
    one that holds source code is the code's. Files another location takes (a CLAUDE.md in it)
    stay. The code files are sought in the walk already made (`walked`), else in git's listing."""
    generic = {p: folder for p in paths
               if (folder := _memory_folder(p)) is not None and not selected(p.lower(), _NAMED_SCOPE, ())}
    if not generic:
        return paths
    if walked is None:
        code = _git_names(root, ends=CODE_SUFFIXES, listing=listing) or []
    else:
        code = [p for p in walked if p.lower().endswith(CODE_SUFFIXES)]
    folders = {_memory_folder(p) for p in code}
    return [p for p in paths if p not in generic or generic[p] not in folders]


def _memory_folder(path: str) -> str | None:
    """The deepest folder called `memory` a path lies in (lower-cased), or None."""
    parts = path.lower().split("/")[:-1]
    for at in range(len(parts) - 1, -1, -1):
        if parts[at] == "memory":
            return "/".join(parts[: at + 1])
    return None


def _selection(paths: list[str], settings: Settings) -> Selection:
    """The rule file's globs applied to root-relative paths, in one call of the selection: its
    include and exclude patterns, else the default scope less its exclude patterns."""
    if not settings.include:
        paths = [p for p in paths if default_scope(p)]
    return select(paths, settings.include, settings.exclude)


def _kept(path: str, baseline: str | None) -> bool:
    """Not the rule file, nor the baseline: never memory, whatever the globs say (an include
    pattern that matches one still matched a file)."""
    return path != baseline and path.rsplit("/", 1)[-1] not in ALWAYS_SKIPPED


def _taken(paths: list[str], settings: Settings, baseline: str | None) -> list[str]:
    """The scope's test of root-relative paths, which every file of the scope passes (and
    `may_hold` makes of the files a hook is given): memory under the rule file, not the baseline."""
    return [p for p in _selection(paths, settings).paths if _kept(p, baseline)]


def memory_files(paths: Sequence[str], settings: Settings, root: Path,
                 warn: Warn = stderr_warning, listing: Listing | None = None) -> list[str]:
    """The files a run reads, whichever entry point asks (scan, the hook, ci, baseline, budget,
    as-of, reconcile, MCP): the scope when no path is named or when the one folder named is
    the scope root of a repository (`scan .` is `scan`), else the files named and the memory files of the
    folders named; with the memory files their instruction files import (`@docs/style.md` in
    CLAUDE.md: the agent loads it, so it is read)."""
    if not paths or _names_the_scope(paths, settings, root):
        files = scope_files(settings, root, warn, listing)
    else:
        files = named_files(paths, settings, root)
    return imported(files, root)


def context_files(paths: Sequence[str], settings: Settings, root: Path,
                  warn: Warn = stderr_warning, listing: Listing | None = None) -> list[str]:
    """Files named or found under folders named (the context given), else the scope."""
    return sorted(set(memory_files(paths, settings, root, warn, listing)))


def _names_the_scope(paths: Sequence[str], settings: Settings, root: Path) -> bool:
    """Whether the one folder named is the scope root of a repository, or of a rule file that
    says which files are memory: then it is the scope. A folder of notes outside a repository
    (`cd notes && scan .`) is read for its memory files."""
    if len(paths) != 1 or not os.path.isdir(paths[0]):
        return False
    return os.path.realpath(paths[0]) == os.path.realpath(root) and bool(settings.include or in_work_tree(root))


def imported(files: list[str], root: Path) -> list[str]:
    """`files` and, after them, the memory files their instruction files' `@path` imports reach
    inside root (not a README or a manifest an import names: the agent reads them, but they
    hold no memory)."""
    importers = [f for f in files if f.rsplit("/", 1)[-1].lower() in IMPORTERS]
    if not importers:
        return files
    from memory_autopsy.ingest.imports import Imports

    graph = Imports({}, Roots.of([str(root)]))
    known = set(files)
    more = [f for importer in importers for f in graph.reached(importer) if f not in known]
    kept = [f for f in dict.fromkeys(more) if _memory_import(f.rsplit("/", 1)[-1])]
    return files + kept


def _memory_import(name: str) -> bool:
    return is_memory_file(name) and not never_memory(name)  # never_memory: manifests, READMEs


def may_hold(paths: Iterable[str], settings: Settings, root: Path) -> bool:
    """Whether any of `paths` (named from the working directory) can be a file of the scope: a
    path under root that the scope's test of a path takes. Every file of the scope passes that
    test, so False means none is among them, known without listing the scope: the hook on a
    commit of no memory file (a README, a package.json) starts no walk of the working tree."""
    if os.path.normcase("A") != "A":  # a case-blind file system: the listing decides
        return True
    baseline = _baseline_key(settings, root)
    # Path by path, unlike a listing: the first one the scope takes ends the test (a hook given
    # 600 memory files asks about one: the default scope tests a Markdown path in ~20 us).
    return any(_taken([relative], settings, baseline) for relative in _under(paths, root))


def _under(paths: Iterable[str], root: Path) -> Iterator[str]:
    """The paths under root (named from the working directory), relative to it."""
    base = str(root)
    for path in paths:
        try:
            relative = norm(os.path.relpath(os.path.abspath(path), base))
        except ValueError:  # another drive than root's
            continue
        if relative != ".." and not relative.startswith("../"):
            yield relative


def named_files(paths: Sequence[str], settings: Settings, root: Path) -> list[str]:
    """Files named (always read) and the memory files of folders named, in the order given."""
    files: list[str] = []
    missing: list[str] = []
    for given in paths:
        if os.path.islink(given) and not _stays_inside(given, root):
            files.append(norm(given))  # the reader names it as leading outside, and reads nothing
        elif os.path.isdir(given):
            files += folder_files(given, settings, root)
        elif os.path.isfile(given):
            check_named_file(given)
            files.append(norm(given))
        elif os.path.lexists(given):
            files.append(norm(given))  # a FIFO or a broken link: the reader reports it, unread
        else:
            missing.append(given)
    if missing:  # a typo must fail CI, not pass as an info finding
        raise UsageError("no such file or directory: " + ", ".join(missing))
    return list(dict.fromkeys(files))


def _stays_inside(link: str, root: Path) -> bool:
    """Whether a link named leads into the scope root or the working directory (where the
    reader may read), told from its real path alone."""
    return Roots.of([str(root)]).inside(link)


def check_named_file(path: str) -> None:
    """A manifest or tool configuration, or a binary file without a memory file's name, holds no
    memory: naming one is a mistake (exit 2), not a run that quietly finds nothing."""
    name = os.path.basename(path)
    if is_manifest(name):
        raise UsageError(f"{path}: not a memory file (a package manifest or tool configuration)")
    if not is_memory_file(name) and _binary(path):
        raise UsageError(f"{path}: not a memory file (binary)")


def folder_files(folder: str, settings: Settings, root: Path) -> list[str]:
    """The memory files under a folder named on the command line: git-ignored files and
    non-memory dot-folders are skipped; the rule file's globs apply from the scope root."""
    base = Path(folder)
    real = base.resolve()
    baseline = Path(settings.baseline).resolve() if settings.baseline else None
    found: dict[str, str | None] = {}  # each file's path from the scope root (None: outside it)
    for relative in _folder_listing(base):
        parts = relative.split("/")
        if any(hidden_folder(p) for p in parts[:-1]) or not _memory_name(parts[-1], settings):
            continue
        if real / relative != baseline:
            found[relative] = _from_scope_root(real / relative, root)
    # The rule file's globs, on the paths relative to its folder; a file outside that folder is
    # out of their reach (it was named on the command line).
    inside = [key for key in found.values() if key is not None]
    chosen = set(select(inside, settings.include, settings.exclude).paths)
    files = [norm(os.path.join(folder, relative)) for relative, key in found.items()
             if key is None or key in chosen]
    return sorted(files, key=lambda p: p.split("/"))


def _memory_name(name: str, settings: Settings) -> bool:
    if name in ALWAYS_SKIPPED or not is_memory_file(name):
        return False
    return bool(settings.include) or not never_memory(name)


def _from_scope_root(path: Path, root: Path) -> str | None:
    """A path relative to the scope root, where the rule file's globs apply; None outside it."""
    relative = norm(os.path.relpath(path, root))
    return None if relative == ".." or relative.startswith("../") else relative


def _folder_listing(folder: Path) -> list[str]:
    """Files under a folder, relative to it: git's listing, ignored files left out, unless the
    folder is outside a repository or is itself ignored (named explicitly, it is read)."""
    listed = _git_names(folder)
    if listed is None or _ignored(folder):
        return _walk(folder, skip_dots=True)
    return _present(folder, listed)


def _ignored(folder: Path) -> bool:
    if os.path.exists(folder / ".git"):  # the top of a work tree is never ignored: git is not asked
        return False
    try:
        git("check-ignore", "-q", ".", cwd=folder)
    except GitError:
        return False
    return True


def _baseline_key(settings: Settings, root: Path) -> str | None:
    if not settings.baseline:
        return None
    return norm(os.path.relpath(Path(settings.baseline).resolve(), root))


def _binary(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(8192)
    except OSError:
        return False  # the reader reports it
    return b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff"))


def _shown(root: Path) -> str:
    relative = os.path.relpath(root)
    return "the working directory" if relative == "." else norm(relative)


def start_listing(root: Path) -> Listing | None:
    """git's listing of root started now, on its own (None outside a repository): the hook
    starts it before importing the engine, so that in a large repository git walks the working
    tree on another core meanwhile (~27 ms for 30,000 files). Asked again, it answers the same
    without running git again: the grounding layer reads the repository from it too."""
    if not in_work_tree(root):
        return None
    return git_started(*LIST_FILES, cwd=root)


def _git_names(root: Path, ends: tuple[str, ...] | None = None,
               listing: Listing | None = None) -> list[str] | None:
    """The paths git lists under root (tracked, and untracked unless ignored), each once, not
    yet looked for on disk (`_present`); with `ends`, those that end so, lower-cased.
    `listing`: root's, started."""
    listing = listing or start_listing(root)
    if listing is None:
        return None
    try:
        out = listing()
    except GitError:
        return None
    names = out.split("\0") if ends is None else _ending(out, ends)
    return [p for p in dict.fromkeys(names) if p]


def _present(root: Path, names: list[str]) -> list[str]:
    """The paths git listed under root that are files there."""
    base = str(root)
    return [p for p in names if _listed_file(os.path.join(base, p), root)]


def _listed_file(path: str, root: Path) -> bool:
    """A file the listing names that is there. A link that leads outside is kept whatever it
    leads to (the reader refuses it by name): whether its target exists is never told."""
    if os.path.islink(path) and not _stays_inside(path, root):
        return True
    return os.path.isfile(path)


def _ending(listing: str, ends: tuple[str, ...]) -> list[str]:
    """The paths of a NUL-terminated listing that end with one of `ends` once lower-cased, in
    listing order: each ending is searched for in the lower-cased listing (a few searches in C,
    where a test per path cost a commit in a repository of 30,000 files ~10 ms)."""
    if not listing.endswith("\0"):
        listing += "\0"
    lowered = listing.lower()
    if len(lowered) != len(listing):  # a character lowered to two: the offsets differ
        return [p for p in listing.split("\0") if p.lower().endswith(ends)]
    found: list[tuple[int, str]] = []
    for end in set(ends):
        needle = end + "\0"
        at = lowered.find(needle)
        while at != -1:
            start = lowered.rfind("\0", 0, at) + 1
            found.append((start, listing[start : at + len(end)]))
            at = lowered.find(needle, at + 1)
    return [path for _, path in sorted(found)]


def _walk(root: Path, *, skip_dots: bool) -> list[str]:
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        if skip_dots:
            dirs[:] = [d for d in dirs if not hidden_folder(d)]
        relative = Path(folder).relative_to(root)
        found += [(relative / f).as_posix() for f in files
                  if not (skip_dots and f.startswith(".") and not is_memory_file(f))]
    return found
