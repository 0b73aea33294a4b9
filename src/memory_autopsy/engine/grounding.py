"""Layer G: memory against the repository it lives in.

A claim that names a repository path git does not list (`missing_path`), pins a dependency or
tool version the manifests do not admit, or names the project's own version other than its
manifest's (`stale`), or runs a script, target or recipe no package.json, Makefile or justfile
defines (`missing_command`). A task still open that names a file the repository now has
elsewhere under that name is a `status_conflict`: the work is done. Where no one listed file has
a missing path's name, git's rename detection may have followed it: the finding says where to.
A directory tree drawn as text (`├── web/`) names each item from the tree's root.

What is not a claim stays silent: code blocks (they hold no facts), URLs, globs, placeholders
(`<name>`, `path/to/…`, a file named for its kind: `component.tsx`), absolute and home paths,
a path under a removal or rename ("deleted `x.py`", "moved from …"), a file a plan or open task
names, and whatever the rule file leaves out of the scope. The repository is read once
(grounds.Repository); this layer only asks it.
"""

from __future__ import annotations

import os
import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import lru_cache

from memory_autopsy import lazyre
from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding
from memory_autopsy.engine.judges import REPOSITORY
from memory_autopsy.engine.status import PENDING
from memory_autopsy.grounds import Declared, Repository, admits
from memory_autopsy.ingest.blocks import iter_blocks
from memory_autopsy.ingest.reading import kind_of
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import HISTORY, Fact, Finding, Location
from memory_autopsy.selection import matches

EXTENSIONS = frozenset("""py pyi ts tsx js jsx mjs cjs mts cts json jsonc md mdx mdc txt yml yaml toml
    ini cfg conf env lock rs go java kt kts swift rb php cs fs c h cc cpp hpp m mm sh bash zsh ps1
    bat sql css scss sass less html htm vue svelte astro dart ex exs erl lua r jl scala clj hs ml
    proto graphql gql prisma tf hcl xml gradle csv ipynb svg png jpg jpeg gif ico webp pdf
    dockerfile mk cmake nix zig sol rst adoc tex""".split())
# Words after which a path is not claimed to exist: it was removed, renamed or moved from.
_GONE = lazyre.compile(
    r"\b(?:delet(?:e|ed|ing)|remov(?:e|ed|ing)|renam(?:e|ed|ing)|mov(?:e|ed|ing)|dropp?(?:ed|ing)?|"
    r"deprecat(?:e|ed|ing)|obsolete|legacy|replac(?:e|ed|ing)|no longer|former(?:ly)?|previously|"
    r"old|archived?|instead of|rather than|gone|retired|merged into|split into|migrat(?:e|ed|ing))\b",
    re.I)
# The claim itself says git does not track the file: a local file, not a rotted one.
_UNTRACKED = lazyre.compile(r"\b(?:git-?ignored|ignored by git|untracked|not (?:checked in|committed|tracked))\b", re.I)
_MARKUP = lazyre.compile(r"[`*_]")
_WORD = lazyre.compile(r"\S+")
# What an example names is not claimed to exist: "(e.g., `task-orchestrator.ts`)".
_EXAMPLE = lazyre.compile(r"\b(?:e\.g\.|eg\.|ex:|i\.e\.|for example|for instance|such as)[^)\n]{0,300}", re.I)
_FOLDER = lazyre.compile(r"(?<![\w/.-])([\w.-]{1,100}/)(?![\w/])")
_OPENING_FOLDER = lazyre.compile(r"^\W{0,6}([\w.-]{1,100}(?:/[\w.-]{1,100}){0,10}/)[ \t]*(?:[—–:(-]|$)")
_LABEL = lazyre.compile(r"^\W{0,6}(?:[^\W\d][^:\n]{0,40}:[ \t]*)?")
MAX_LABELS = 3  # an item's label after a table row's two: "Retry job: Notes: **Entry**: …"
_MAKE = r"create|add|write|implement|build|scaffold|make|set up"  # the verbs of work that makes a file
_CREATE = lazyre.compile(rf"^\W*(?:{_MAKE}|new)\b", re.I)
# An instruction to make or move a file ("Create `src/x.py` for …", "Move the job into
# `jobs/`"): the file is work to do, not a file said to be there, unless the claim reports it done.
_TO_DO = lazyre.compile(rf"^\W*(?:{_MAKE}|generate|introduce|move|migrate|rename|relocate|extract|split)\b", re.I)
# A clause that puts the path in the future or under an obligation ("will add", "should go in",
# "needs to", "plan to"): nothing it names is said to be there yet.
_MODAL = lazyre.compile(r"\b(?:will|shall|should|would|could|might|need(?:s|ed)?\s+to|plan(?:s|ned)?\s+to|"
                        r"going\s+to|want(?:s|ed)?\s+to|to\s+be\s+(?:created|added|written|implemented|built|moved)|"
                        r"todo|tbd|planned)\b", re.I)
_LABELS = lazyre.compile(r"^(?:[^\W\d][^:\n]{0,40}:[ \t]+){0,2}")  # "Retry job: Notes: …", a table row's labels
MODAL_REACH = 5  # words
# A verb that reads or edits a file, or says what it documents, right before it ("consult `x`",
# "an edit to `x`", "referenced in the `x` file"); not where data is kept ("stored in `cache.json`":
# a file a run writes, as often local).
_CONSULT = lazyre.compile(r"\b(?:review|consult|read|refer\s+to|look\s+(?:at|in)|an\s+edit\s+to|"
                          r"(?:referenced|documented|described)\s+in(?:\s+the)?)\W*$", re.I)
CONSULT_REACH = 4  # words
_CLAUSE_END = lazyre.compile(r"[.;!?](?:\s|$)|\n")
# Where a move, rename or replacement led ("Moved the job to `jobs/retry.py`", "renamed x.py to
# y.py", "replaced `a/` with `b/`", "a.py → b.py"): that side is said to be there now.
_ARRIVED = lazyre.compile(
    r"\b(?:mov|renam|migrat|relocat|extract|split|merg)(?:e|ed|ing|s)?\b[^;\n]{0,200}?\s(?:to|into)\s"
    r"|\breplac(?:e|ed|ing|es)\b[^;\n]{0,200}?\s(?:with|by)\s|→|->", re.I)
_CODE_SPAN = lazyre.compile(r"`([^`\n]{1,300})`")
_SLASHED = lazyre.compile(r"[\w-][\w.-]{0,99}(?:/[\w.-]{1,100}){1,20}/?")  # "src/app/ui", "test/cases/21_pvc"
_BARE = lazyre.compile(r"(?<![\w/.@:~`-])(@?(?:[\w.-]{1,100}/){1,20}[\w.-]{1,100}\.[A-Za-z0-9]{1,10})(?![\w/`])")
# A path or a file's name out of code, where a store has no code marks: "Updated MODAL_PLAN.md", "docs/x.md".
_NAMED = lazyre.compile(r"(?<![\w/.@:~`-])(@?(?:[\w.-]{1,100}/){0,20}[\w-][\w.-]{0,100}\.[A-Za-z0-9]{1,10})(?![\w/`])")
# What may follow a file's name to point inside it: a line ("x.py:42", "x.py#L42"), a test's
# node ("x.py::test_retry"), a function ("x.py:run()")
_LINE_SUFFIX = lazyre.compile(r"(?::\d[\d:-]*|#L\d[\w-]*|::?[A-Za-z_]\w{0,100}(?:(?:\.|::)\w{1,100}){0,5}(?:\(\))?)$")
_PLACEHOLDER = lazyre.compile(r"[<>{}$*?\[\]|]|\.\.\.|…|\bpath/to\b|\byour[-_]|\bexample\b|\bxxx\b|\bnnn\b|\bfoo\b|"
                              r"\b(?:snake_case|kebab-case|camel_?case|pascal_?case)\b|"  # `snake_case.py`: the convention
                              r"(?-i:[A-Z][a-z]+Name\b|\b[A-Z]+_(?:NAME|ID|SLUG)\b)", re.I)  # `ComponentName/…`, `PAGE_NAME/`
# A bare file named for its kind ("each component has `component.tsx`, `component.stories.tsx`")
# writes a pattern every instance follows, not one file.
KIND_STEMS = frozenset("""component components module page screen view model service controller schema store
    hook route handler feature item entity widget layout template sample example file name thing""".split())
# Folders builds and tools write, never tracked: a path under one is generated, not rotted.
_GENERATED = frozenset({"build", "dist", "out", "target", "node_modules", "coverage", ".next", "__pycache__",
                        ".venv", "venv", ".cache", ".turbo", ".nuxt", ".svelte-kit"})
# Of those, the ones no source folder is named, at any depth ("ui/dist", "packages/web/.next/"); a
# nested `out/` or `build/` is as often the project's own (`internal/adapters/out/`).
_GENERATED_ANYWHERE = _GENERATED - {"build", "out", "target", "coverage", "venv"}
_SAMPLE = lazyre.compile(r"\b(?:examples?|samples?|templates?|or similar|e\.g\.)(?!\w)", re.I)
_PRODUCT = lazyre.compile(r"^[A-Z][\w]*\.(?:js|ts)$")  # Next.js, Node.js, Three.js: a product, not a file


def find(ctx: Context, repo: Repository, exclude: tuple[str, ...] = (),
         importers: frozenset[str] = frozenset()) -> Iterator[Finding]:
    """`importers`: the names (lower case) of the files whose `@path` imports an agent's loader
    follows (`CLAUDE.md`): those imports are the reachability layer's (`broken_link`)."""
    for fact in ctx.active:
        claim = fact.claim
        if fact.path.startswith("<") or fact.kind == HISTORY:
            continue  # what was ("## Before", "Historical context:") names what the repository had
        relative = _relative(fact.path, repo)
        paths = ("/" in claim or "." in claim) and not _UNTRACKED.search(claim)
        if _GONE.search(claim):
            # removed, renamed, replaced: what such a clause names is not said to exist, but
            # where a move or a rename led is, and what the claim's other clauses name
            if paths:
                written = _as_written(fact, repo, relative)
                kept = [_arrived(written), *(c for c in _CLAUSE_END.split(written) if not _GONE.search(c))]
                said = " ; ".join(part for part in kept if part.strip())
                if said:
                    yield from _paths(fact, repo, relative, said, exclude, importers, ctx.lexicon)
            continue
        runs = any(runner in claim for runner in _RUNNERS)
        written = _as_written(fact, repo, relative) if paths or runs else claim  # read once for both
        if paths:
            yield from _paths(fact, repo, relative, written, exclude, importers, ctx.lexicon)
        yield from _versions(fact, repo)
        if runs:
            yield from _commands(fact, repo, written)
    by_file = _by_file(ctx)
    yield from _trees(by_file, repo, exclude)
    yield from _headings(by_file, repo, exclude)


def _shown(repo: Repository, path: str) -> str:
    """A repository path as the run names files: relative to the working directory."""
    return os.path.relpath(os.path.join(repo.root, path)).replace(os.sep, "/")


def _grounded(rule: str, fact: Fact, message: str, where: list[tuple[str, int]], repo: Repository,
              **extra: object) -> Finding:
    """A finding on the fact whose other side is what the repository holds (a listed file, a
    manifest line): a related location with no fact. Its `how` says how the repository answered
    (engine/judges.py grades each answer by how often it was right)."""
    finding = fact_finding(rule, fact, message, extra={**extra, "evidence": REPOSITORY})
    return finding._replace(related=tuple(Location(_shown(repo, path), line, "", -1) for path, line in where))


# -- paths --------------------------------------------------------------------------------


def mentions(claim: str, unmarked: bool = False) -> list[tuple[str, bool]]:
    """The repository paths a claim names, each with whether it was written as code.
    `unmarked`: the claim is from a store that has no code marks (a knowledge graph's
    observations, a JSON record): a file's name there is written bare ("Fixed
    ExternalEANInsertModal.tsx: …") as markdown writes it in a code span, and is read as one."""
    found: list[tuple[str, bool]] = []
    for match in _CODE_SPAN.finditer(claim):
        found.append((match.group(1).strip(), True))
    rest = _CODE_SPAN.sub(" ", claim) if "`" in claim else claim
    for match in (_NAMED if unmarked else _BARE).finditer(rest):
        found.append((match.group(1), False))
    # out of code, "Chart.js" is a product (`_as_path`); a name an unmarked store writes is as code
    return [(path, coded or unmarked) for text, coded in found if (path := _as_path(text, coded))]


def _as_path(text: str, coded: bool) -> str:
    text = _LINE_SUFFIX.sub("", text.strip().strip("'\"()<>").rstrip(".,;:")).removeprefix("./")
    if text.startswith("@") and "/" in text and text[1:2] != "@":  # "@src/x.py": a file attached by name (an import in CLAUDE.md)
        named = _as_path(text[1:], coded)
        return "@" + named if named and not named.endswith("/") else ""
    if not text or " " in text or "://" in text or text.startswith(("/", "~", "@", "-", "\\")):
        return ""
    if _PLACEHOLDER.search(text) or "\\" in text or text.count(".") > 6:
        return ""
    name = text.rstrip("/").rpartition("/")[2]
    if not name or name.startswith("."):
        return text if coded and "/" in text.rstrip("/") else ""  # `.github/workflows/`, not `.env`
    stem, dot, extension = name.rpartition(".")
    if dot and stem and extension.lower() in EXTENSIONS and not extension.isdigit():
        if _PRODUCT.match(name) and not coded and all(part[:1].isupper() for part in text.split("/")):
            return ""  # "Next.js", "React/Next.js": products, not files
        return text
    if coded and text.endswith("/") and text.count("/") >= 1 and re.fullmatch(r"[\w./-]+", text):
        return text
    return ""


def _from_file(written: str, near: str) -> str:
    """A path as the repository lists it: "@src/x.py" names `src/x.py`, and one written "../…"
    is read from the memory file's folder `near`, as a markdown link is; "" when that leads
    outside the repository."""
    path = written.removeprefix("@")
    if not path.startswith("../"):
        return path
    resolved = posixpath.normpath(posixpath.join(near, path)) + ("/" if path.endswith("/") else "")
    return "" if resolved.startswith("..") else resolved


def _paths(fact: Fact, repo: Repository, relative: str, written: str, exclude: tuple[str, ...],
           importers: frozenset[str] = frozenset(), lexicon: Lexicon | None = None) -> Iterator[Finding]:
    """`relative`: the memory file's path in the repository; its folder is where a path it names
    may be written from. `written`: the claim as its lines write it (`_as_written`)."""
    claim = fact.claim
    near = relative.rpartition("/")[0]
    named = mentions(written, unmarked=fact.shape not in _AS_LINES)
    named += _unmarked(written, repo, near, {path for path, _ in named})
    if not named:
        return
    heading, opening = _scopes(fact)
    bases = [*heading, *opening]
    if any(not repo.holds(base, near) for base in heading) or (
            _about_absent_file(fact.entity, repo) and not claim.startswith(fact.entity)):
        return  # the section is about a folder or file the repository lacks: another tree (the
        # item's own label, "`retry_job.py`: runs …", is the file the item claims, not a section)
    other_tree = any(not repo.holds(base, near) for base in opening)
    pending = fact.status in PENDING
    done = _reports_work(fact, lexicon or default_lexicon())
    if not pending and not done and _TO_DO.match(_LABELS.sub("", claim)):
        return  # an instruction to make or move the file: work to do
    for written_path, coded in named:
        if written_path.startswith("@") and relative.rpartition("/")[2].lower() in importers:
            continue  # an import the loader follows: the reachability layer's (`broken_link`)
        path = _from_file(written_path, near)
        if not path:
            continue  # "../../shared/SPEC.md": outside the repository
        if "/" not in path.rstrip("/") and not coded:
            continue  # a bare `name.ext` in prose is read only from code spans
        if "/" not in path and path.partition(".")[0].lower() in KIND_STEMS:
            continue  # `component.tsx`, `Component.test.ts`: the name of a kind of file, a pattern
        if path.endswith("/") and "/" not in path.rstrip("/"):
            continue  # `data/`, `themes/`: a top folder alone is as often a local or sibling one
        if other_tree and path not in opening:
            continue  # the item is about a folder the repository lacks: its paths are in there
        around = _clause_around(written, written_path)
        consulted = around is not None and _consulted(around[0]) and not _SAMPLE.search(fact.entity)
        if not done and not consulted and around is not None and _modal(*around):
            continue  # "will add", "should go in": not there yet, or not said to be
        if repo.holds(path, near) or _left_alone(repo, path, exclude):
            continue
        if any(repo.holds(f"{base.rstrip('/')}/{path}", near) for base in bases):
            continue  # named from the folder its section or item is about
        if repo.holds(path.replace("init.", "__init__."), near):
            continue  # `__init__.py` whose underscores the reader took for emphasis
        elsewhere, moved = _where_else(repo, path)
        if pending:
            if len(elsewhere) == 1 and (_CREATE.match(claim) or _only_names(claim, written_path)):
                yield _at_mention(_done_elsewhere(fact, repo, path, elsewhere[0]), fact, repo, relative, written_path)
            continue
        about = _leads(claim, path) or _leads(written, path)  # the item's label as its line writes it, too
        if "/" not in path and not elsewhere and not about and not done and not consulted:
            continue  # a bare name in a sentence (`coverage.py`, "a `util.go` in each package")
        yield _at_mention(_missing(fact, repo, path, elsewhere, moved=moved), fact, repo, relative, written_path)


def _unmarked(written: str, repo: Repository, near: str, named: set[str]) -> list[tuple[str, bool]]:
    """The paths a claim names that `mentions` does not read, as there is no extension to tell
    them: a folder in a code span without its closing slash ("installed into
    `src/app/components/ui`"), and a path an item gives alone, whatever ends it ("- src/env.jss",
    "* test/cases/21_pvc_sync_security"). Each only where the repository has its first folder
    (it is written from there: not "client/server", "and/or") and no file it names without an
    extension, as an import does (`lib/utils` for `lib/utils.ts`)."""
    found: list[tuple[str, bool]] = []
    alone = written.strip().strip("*_")
    if _SLASHED.fullmatch(alone):
        found.append((alone, False))
    for match in _CODE_SPAN.finditer(written):
        text = match.group(1).strip()
        if _SLASHED.fullmatch(text) and not text.endswith("/") and "." not in text.rpartition("/")[2]:
            found.append((text, True))
    return [(text, coded) for text, coded in found
            if text not in named and text.rstrip("/") + "/" not in named and not _PLACEHOLDER.search(text)
            and repo.has(text.partition("/")[0], near) and not repo.has_module(text, near)]


# A line of a directory tree: "│   ├── api/   # entry point", "└── README.md", "|-- src/".
_TREE_ITEM = lazyre.compile(r"^(?P<lead>[ \t│|]{0,200}?)[├└`+|][─-]{2,3}[ \t]+(?P<name>[^\s#]{1,200})")
_TREE_ROOT = lazyre.compile(r"^[ \t]*(?P<name>[^\s#]{1,100}/)[ \t]*(?:#.*)?$")


def tree_paths(lines: Sequence[str]) -> tuple[str, list[tuple[int, str]]]:
    """The root a directory tree drawn in text opens with ("root/", "src/"; "" when none) and
    each item's path below it, with the index of its line: an item's folders are the items
    above it drawn less deep."""
    root = ""
    found: list[tuple[int, str]] = []
    folders: list[tuple[int, str]] = []  # (depth, name/) of the folders the next item may be in
    last: tuple[int, str] | None = None
    for at, text in enumerate(lines):
        item = _TREE_ITEM.match(text)
        if item is None:
            opening = _TREE_ROOT.match(text) if not found else None
            if opening:
                root = opening.group("name")
            continue
        depth, name = len(item.group("lead").expandtabs(4)), item.group("name")
        if last is not None and depth > last[0] and not last[1].endswith("/"):
            folders.append((last[0], last[1] + "/"))  # "├── src" with items drawn under it
        while folders and folders[-1][0] >= depth:
            folders.pop()
        found.append((at, "".join(folder for _, folder in folders) + name))
        if name.endswith("/"):
            folders.append((depth, name))
        last = (depth, name)
    return root, found


def _trees(by_file: dict[str, list[Fact]], repo: Repository, exclude: tuple[str, ...]) -> Iterator[Finding]:
    """The directory trees memory files draw as text, outside code blocks (what a block draws is
    an illustration, as its code is: the reader reads no claim there, so no item there has one):
    each item is a path from the tree's root, said to exist,
    unless the tree is a plan ("## Planned structure", "Next steps")."""
    for path, facts in by_file.items():
        relative = _relative(path, repo)
        drawn = list(_drawn(_lines(repo, relative)))
        if not drawn:
            continue
        held: dict[int, Fact] = {}
        for fact in facts:
            for line in range(fact.line, max(fact.end_line, fact.line) + 1):
                held.setdefault(line, fact)
        for first, block in drawn:
            for at, named in _tree(block, repo, relative.rpartition("/")[0], exclude):
                # the claim the line is part of: none in a code block, which the reader leaves out
                owner = held.get(first + at)
                if owner is not None and owner.status not in PENDING and not _GONE.search(block[at]):
                    elsewhere, moved = _where_else(repo, named)
                    yield _missing(owner, repo, named, elsewhere, moved=moved)._replace(line=first + at)


def _by_file(ctx: Context) -> dict[str, list[Fact]]:
    """The active facts of each file read as lines (markdown), in order."""
    by_file: dict[str, list[Fact]] = {}
    for fact in ctx.active:
        if fact.shape in _AS_LINES and fact.line > 0 and not fact.path.startswith("<"):
            by_file.setdefault(fact.path, []).append(fact)
    return by_file


def _headings(by_file: dict[str, list[Fact]], repo: Repository, exclude: tuple[str, ...]) -> Iterator[Finding]:
    """A heading that names a repository path ("### C. `lib/chat.ts`", "## Memory file
    (`.cursor/rules/memory.mdc`)") says its section describes that file: a claim that it exists,
    made by the section's first claim (none under a plan, a removal or work to create it). A
    bare name with no folder is left alone: a heading naming a file no folder has describes
    another tree as often (`_about_absent_file`)."""
    for path, facts in by_file.items():
        relative = _relative(path, repo)
        lines = _lines(repo, relative)
        if not any("/" in text and text[:4].lstrip().startswith("#") for text in lines):
            continue  # no heading names a path: the file is not parsed again
        near = relative.rpartition("/")[0]
        headings = [block for block in iter_blocks(lines) if block.kind == "heading"]
        above: list[tuple[int, str]] = []  # (level, title) of the headings the next one is under
        for at, block in enumerate(headings):
            while above and above[-1][0] >= block.level:
                above.pop()
            above.append((block.level, block.text))
            if "/" not in block.text or _GONE.search(block.text) or _CREATE.match(block.text):
                continue
            if any(_SAMPLE.search(title) for _, title in above):
                continue  # "## Example flow" / "### Frontend (`app/page.tsx` or similar)": an illustration
            end = next((h.line for h in headings[at + 1:] if h.level <= block.level), len(lines) + 1)
            owner = next((f for f in facts if block.line < f.line < end), None)
            if owner is None or owner.status in PENDING:
                continue  # a section with no claim of its own claims nothing
            for written, _ in mentions(lines[block.line - 1]):
                named = _from_file(written, near)
                if "/" not in named.rstrip("/") or repo.holds(named, near) or _left_alone(repo, named, exclude):
                    continue
                elsewhere, moved = _where_else(repo, named)
                yield _missing(owner, repo, named, elsewhere, moved=moved)._replace(line=block.line)


def _drawn(lines: Sequence[str]) -> Iterator[tuple[int, list[str]]]:
    """Each tree a file draws, as (1-based line of its first line, its lines): its items and the
    root line just above them."""
    start = 0
    block: list[str] = []
    for number, text in enumerate([*lines, ""], start=1):
        if _TREE_ITEM.match(text) or block and text.lstrip().startswith(("│", "|")):
            if not block:
                root = number > 1 and _TREE_ROOT.match(lines[number - 2])
                block, start = ([lines[number - 2]], number - 1) if root else ([], number)
            block.append(text)
        elif block:
            yield start, block
            block = []


def _tree(block: list[str], repo: Repository, near: str, exclude: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """The items of one tree the repository lacks. A tree whose items it mostly lacks, or whose
    top items are nowhere at its root, draws another tree (a template, a module's shape, a
    sibling project): it is left alone."""
    root, items = tree_paths(block)
    if not items or _PLACEHOLDER.search(root):
        return
    base = root if root and repo.holds(root, near) else ""
    named = [(at, path) for at, item in items if (path := _as_path(base + item, True))]
    missing = [(at, path) for at, path in named if not repo.holds(path, near)]
    if not missing or 2 * len(missing) >= len(named):
        return
    if not any(repo.has(path, near) for _, path in named if path.rstrip("/").count("/") == base.count("/")):
        return  # no item it draws at its top is where it says: the tree of another folder
    for at, path in missing:
        if not _left_alone(repo, path, exclude):
            yield at, path


def _left_alone(repo: Repository, path: str, exclude: tuple[str, ...]) -> bool:
    """A path the layer does not look for: one the rule file excludes, git ignores, or a build
    writes (under a generated folder: `dist/app.js`, `ui/dist`)."""
    parts = path.rstrip("/").split("/")
    return (any(matches(path, glob) for glob in exclude) or repo.ignored(path)
            or parts[0] in _GENERATED or any(part in _GENERATED_ANYWHERE for part in parts))


def _where_else(repo: Repository, path: str) -> tuple[list[str], bool]:
    """The listed files of a missing path's name, or where git's rename detection followed it
    when no one file has that name; and whether it was followed."""
    name = path.rstrip("/").rpartition("/")[2]
    elsewhere = [p for p in repo.named(name) if not p.endswith("/" + path)]
    moved = repo.moved(path) if len(elsewhere) != 1 else None
    return ([moved], True) if moved else (elsewhere, False)  # renamed, perhaps again: git followed it there


_AS_LINES = ("markdown", "table")  # the shapes whose facts are lines of their file


def _relative(path: str, repo: Repository) -> str:
    """A memory file's path in the repository ("../…" when it lies outside)."""
    return os.path.relpath(os.path.abspath(path), repo.root).replace(os.sep, "/")


def _lines(repo: Repository, relative: str) -> list[str]:
    """A memory file's lines as written; none for a file outside the repository."""
    return [] if relative.startswith("../") else repo.lines(relative)


def _as_written(fact: Fact, repo: Repository, relative: str) -> str:
    """The claim as its file (`relative` in the repository) has it, code spans and all (the
    reader drops the backticks), when its lines can be read and still say it; else the claim."""
    written = fact.claim
    if fact.shape in _AS_LINES and fact.line >= 1:
        lines = "\n".join(_lines(repo, relative)[fact.line - 1:max(fact.end_line, fact.line)])
        said = _LABELS.sub("", fact.claim) if fact.shape == "table" else fact.claim  # a row's cell, less its labels
        plain, _ = _plain(lines)
        for own in _unlabelled(said):
            if " ".join(_MARKUP.sub("", own[:_ENDS]).split()) in plain:
                # a row is one claim, its cells its parts; a line may hold several sentences
                written = (fact.shape != "table" and _own_part(own, lines)) or lines
                break
    return _EXAMPLE.sub(" ", written)


_ENDS = 24  # characters of a claim's start or end that find where it is in its lines
_PARENT_LABELS = 2  # "Parent item: Child label: text": an item's claim opens with its parents' labels


def _unlabelled(said: str) -> Iterator[str]:
    """The claim, then without the labels of the items above it that the reader put before it
    ("Supabase Scaffolding (NEW): Generated placeholders under …" for a nested bullet that
    writes only "Generated placeholders under `supabase/functions/`")."""
    yield said
    for _ in range(_PARENT_LABELS):
        _, colon, said = said.partition(": ")
        if not colon or not said:
            return
        yield said


def _own_part(said: str, lines: str) -> str | None:
    """The part of its lines the claim is, code marks and all, where the lines say more (one
    sentence of a paragraph on one line, "**Done.** Installed `a.ts` … `b.ts` …"): a path
    another sentence of the line names is that sentence's. None where the claim's ends are not
    found as written (the reader changed it: a link's text for the link)."""
    plain, starts = _plain(lines)
    own = " ".join(_MARKUP.sub("", said).split())
    ending = own[-_ENDS:]
    head = plain.find(own[:_ENDS])
    tail = plain.find(ending, head) if head >= 0 else -1
    if tail < 0:
        return None
    first, last = _raw_at(lines, starts, head), _raw_at(lines, starts, tail + len(ending) - 1) + 1
    while first and lines[first - 1] in "`*_":
        first -= 1  # the code marks around the claim's ends are the claim's
    while last < len(lines) and lines[last] in "`*_":
        last += 1
    return lines[first:last]


@lru_cache(maxsize=4)  # a line's sentences are read one after another: a few lines, never a file's worth
def _plain(lines: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The lines without code marks, blanks collapsed, and per word kept its offset there and in
    the lines: read once per line for all the sentences on it."""
    words, starts, at = [], [], 0
    for match in _WORD.finditer(lines):
        word = _MARKUP.sub("", match.group())
        if word:
            starts.append((at, match.start()))
            words.append(word)
            at += len(word) + 1
    return " ".join(words), tuple(starts)


def _raw_at(lines: str, starts: Sequence[tuple[int, int]], at: int) -> int:
    """The offset in the lines of the character at `at` in their plain form."""
    k = bisect_right(starts, (at, len(lines))) - 1
    plain_at, raw = starts[k]
    left = at - plain_at  # characters past the word's start, code marks not counted
    while left or lines[raw] in "`*_":
        if lines[raw] not in "`*_":
            left -= 1
        raw += 1
    return raw


def _arrived(written: str) -> str:
    """What a claim of a move, rename or replacement names as where it led: the text after each
    "to", "into", "with" or arrow, up to the end of its clause or the next removal."""
    parts = []
    for match in _ARRIVED.finditer(written):
        rest = written[match.end():]
        end = _CLAUSE_END.search(rest)
        rest = rest[:end.start()] if end else rest
        gone = _GONE.search(rest)
        parts.append(rest[:gone.start()] if gone else rest)
    return " ; ".join(parts)


def _clause_around(written: str, path: str) -> tuple[list[str], list[str]] | None:
    """The words of the path's clause before it and after it; None when the claim does not
    write the path."""
    at = written.find(path)
    if at < 0:
        return None
    return (_CLAUSE_END.split(written[:at])[-1].split(),
            _CLAUSE_END.split(written[at + len(path):], maxsplit=1)[0].split())


def _consulted(before: list[str]) -> bool:
    """Whether the words of the path's clause before it send its reader to the file to read or
    edit it, or say what it documents ("Review `notes.mdc` to see …", "should consult
    `notes.mdc`", "Suggest an edit to `notes.mdc`", "stored and referenced in the `notes.mdc`
    file"): the claim takes the file to be there, whatever modal word comes with it. (Not in a
    section that is an example, "## Example Scenario": the caller's.)"""
    return _CONSULT.search(" ".join(before[-CONSULT_REACH:])) is not None


def _modal(before: list[str], after: list[str]) -> bool:
    """Whether a modal or future word bears on the path, given its clause's words before and
    after it: among the few before it ("will add", "should go in", "need to create") or right
    after it ("… will hold"). One further off bears on something else ("The MVP will focus on
    …, as detailed in `x.md`")."""
    return (_MODAL.search(" ".join(before[-MODAL_REACH:])) is not None
            or _MODAL.search(" ".join(after[:MODAL_REACH - 2])) is not None)


def _at_mention(finding: Finding, fact: Fact, repo: Repository, relative: str, path: str) -> Finding:
    """The finding on the line that writes the path, where the claim runs over several (a
    wrapped bullet): the annotation marks the path, not the item's first line."""
    if fact.end_line <= fact.line:
        return finding
    for line, text in enumerate(_lines(repo, relative)[fact.line - 1:fact.end_line], start=fact.line):
        if path in text.replace("`", ""):
            return finding._replace(line=line) if line != finding.line else finding
    return finding


def _scopes(fact: Fact) -> tuple[list[str], list[str]]:
    """The folders a claim is about as a whole: those its section's heading names ("## Tracker
    (`tracker/`)"), and the one the item opens with ("`themes/` — …"). A path it names may be
    written from there."""
    opening = _OPENING_FOLDER.match(fact.claim)
    return (_FOLDER.findall(fact.entity) if "/" in fact.entity else [],
            [opening.group(1)] if opening else [])


def _about_absent_file(heading: str, repo: Repository) -> bool:
    """Whether a section's heading names a file no folder of the repository has ("##
    format_state.py Details" in a workspace's memory): its section describes another tree."""
    if "." not in heading:
        return False
    for word in heading.split():
        name = _as_path(word.strip("()[]`*_,:;"), True)
        if name and "/" not in name and not repo.holds(name) and not repo.named(name):
            return True
    return False


def _reports_work(fact: Fact, lexicon: Lexicon) -> bool:
    """The claim reports work done ("Created `verify_grouping.py` to confirm …", "✅ English
    prompts in `prompts_v2.py`"): the files it names were made, and should be there. A store
    whose reader gives its records no kind (a knowledge graph's observations) is read as a
    markdown line is: one opening with a verb of work in the past tense ("Updated
    MODAL_PLAN.md to …", "Fixed ItemModal.tsx: …") reports it."""
    if fact.kind == "event" or fact.status == "done":
        return True
    return fact.shape not in _AS_LINES and fact.kind == "state" and not fact.status and kind_of(
        fact.claim, lexicon, status="", section_status="", guideline_section=False) == "event"


def _only_names(claim: str, path: str) -> bool:
    """Whether the claim is the path itself, with at most a short note ("`x.py` (parser)")."""
    rest = claim.replace(f"`{path}`", " ").replace(path, " ")
    return len(re.findall(r"\w+", rest)) <= 6


def _leads(claim: str, path: str) -> bool:
    """Whether the claim is about the path: it opens the item, after a label at most
    ("**Component:** `ChatComponent.tsx` (and context)"), or is the label itself
    ("`app.config.ts`: Vite application configuration"); a table row's cells are labels too
    ("Retry job: Notes: `retry_job.py` (nightly)")."""
    for _ in range(MAX_LABELS + 1):
        if claim.lstrip("`*_ ").startswith(path):
            return True
        claim, was = _LABEL.sub("", claim, count=1), claim
        if claim == was:
            return False
    return False


def _missing(fact: Fact, repo: Repository, path: str, elsewhere: list[str], moved: bool = False) -> Finding:
    if moved:
        how, instead = "moved", f"; git records it renamed to `{elsewhere[0]}`"
    elif len(elsewhere) == 1:
        how, instead = "one", f"; the repository has `{elsewhere[0]}`"
    elif elsewhere:
        how = "several"
        instead = f"; files of that name: {', '.join(f'`{p}`' for p in elsewhere[:3])}" + (" …" if len(elsewhere) > 3 else "")
    else:
        how, instead = "nowhere", ""
    return _grounded("missing_path", fact, f"`{path}` is not in the repository (git lists no such file or folder){instead}",
                     [(p, 1) for p in elsewhere[:3]], repo, how=how,
                     path_named=path, instead=elsewhere[0] if len(elsewhere) == 1 else None)


def _done_elsewhere(fact: Fact, repo: Repository, path: str, found: str) -> Finding:
    return _grounded(
        "status_conflict", fact,
        f"{fact.status.replace('_', ' ')} here, but the repository already has `{found}` (memory names `{path}`)",
        [(found, 1)], repo, how="done_elsewhere", path_named=path, instead=found)


# -- versions -----------------------------------------------------------------------------

# What memory calls a dependency, where its manifest name differs.
ALIASES = {
    "next.js": "next", "nextjs": "next", "node.js": "node", "nodejs": "node", "vue.js": "vue",
    "tailwind": "tailwindcss", "tailwind css": "tailwindcss", "nuxt.js": "nuxt", "express.js": "express",
    "golang": "go", "python3": "python", "three.js": "three", "svelte kit": "@sveltejs/kit",
    "sveltekit": "@sveltejs/kit", "mcp sdk": "@modelcontextprotocol/sdk", "nestjs": "@nestjs/core",
    "angular": "@angular/core", "d3.js": "d3", "chart.js": "chart.js",
}
_VERSION_TAIL = r"(?:\.js)?[ \t]*(?:\(?[ \t]*(?P<op>>=|\^|~|=)?[ \t]*)(?:v|version[ \t]+|@)?(?P<version>\d{1,4}(?:\.\d{1,6}){0,2})(?P<plus>\+)?(?![\w.]*\d)(?![\w-])"
_OWN = lazyre.compile(r"^\W*(?:current|project|app|package|latest)?[ \t]*version\W{0,6}v?(\d+\.\d+\.\d+)\b", re.I)


def _versions(fact: Fact, repo: Repository) -> Iterator[Finding]:
    claim = fact.claim
    if not any(ch.isdigit() for ch in claim) or fact.status in PENDING:
        return
    own = _OWN.match(claim)
    if own and repo.own_versions:
        declared = repo.own_versions[0]
        if declared.version != own.group(1):
            yield _stale(fact, repo, "the project", own.group(1), [declared], how="own_version")
        return
    pattern = _names_pattern(repo)
    if pattern is None:
        return
    for match in pattern.finditer(claim):
        written = match.group("name")
        if written[:1].islower() and "." not in match.group("version") and not match.group("op"):
            continue  # "next 2 steps": a product named in prose is capitalized, or given a dotted version
        if match.group("plus"):
            continue  # "React 17+": at least 17, which a newer declaration meets
        comparable = [d for d in repo.dependencies.get(_dependency(written, repo), []) if admits(d.version, "0") is not None]
        if comparable and all(admits(d.version, match.group("version")) is False for d in comparable):
            yield _stale(fact, repo, written, match.group("version"), comparable, how="manifest")


def _stale(fact: Fact, repo: Repository, name: str, version: str, declared: list[Declared], how: str) -> Finding:
    first = declared[0]
    message = (f"{name} {version} here, but the repository declares {first.name or 'version'} "
               f"{first.version!r} ({first.path}:{first.line})")
    return _grounded("stale", fact, message, [(d.path, d.line) for d in declared[:3]], repo,
                     how=how, declared=first.version)


def _dependency(written: str, repo: Repository) -> str:
    """The manifest name a name as memory writes it stands for: an alias ("Next.js"), the name
    with blanks for hyphens ("React Hook Form"), or a scoped package's last part when one
    declared package ends so (`@tanstack/react-query` for "React Query")."""
    name = " ".join(written.lower().split())
    name = ALIASES.get(name, name.replace(" ", "-"))
    if name in repo.dependencies:
        return name
    scoped = [d for d in repo.dependencies if d.endswith("/" + name) and not d.startswith("@types/")]
    return scoped[0] if len(scoped) == 1 else name


@lru_cache(maxsize=4)
def _names_pattern(repo: Repository) -> re.Pattern[str] | None:
    names = set(repo.dependencies)
    names |= {alias for alias, name in ALIASES.items() if name in names}
    names |= {name.rpartition("/")[2] for name in names  # `@types/node` is no runtime: "Node 16" is not it
              if "/" in name and len(name.rpartition("/")[2]) > 3 and not name.startswith("@types/")}
    names = {n for n in names if len(n) >= 2 and not n.isdigit()}
    if not names:
        return None
    # a hyphen of the manifest's name may be a blank in prose: "react-hook-form", "React Hook Form"
    alternation = "|".join(r"[- \t]".join(map(re.escape, n.split("-"))) for n in sorted(names, key=len, reverse=True))
    # another name for it in parentheses may come between: "React Query (TanStack Query) 5.79.0"
    return re.compile(rf"(?<![\w@/.-])(?P<name>{alternation})(?:[ \t]*\([^()\n\d]{{1,40}}\))?{_VERSION_TAIL}", re.I)


# -- commands -----------------------------------------------------------------------------

_RUNNERS = {"npm": "npm", "pnpm": "npm", "yarn": "npm", "bun": "npm", "make": "make", "just": "just"}
_BUILTINS = frozenset("""install i add remove rm uninstall up update upgrade dlx exec create init link
    unlink publish outdated why list ls audit config store import patch rebuild prune pack setup env x
    global workspace workspaces info cache login logout version help run ci deploy licenses dedupe
    set get view search bin root prefix test-all approve-builds self-update fetch doctor owner
    whoami""".split())
_COMMAND = lazyre.compile(r"(?<![\w/.-])(npm|pnpm|yarn|bun|make|just)[ \t]+(?:(run|run-script)[ \t]+)?([A-Za-z][\w:.\-]*)(?![\w/])")


# A dependency's binary whose name is not the package's: `pnpm tsc` runs typescript's compiler.
BINARIES = {
    "tsc": "typescript", "tsserver": "typescript", "biome": "@biomejs/biome", "playwright": "@playwright/test",
    "ng": "@angular/cli", "nest": "@nestjs/cli", "changeset": "@changesets/cli", "commitlint": "@commitlint/cli",
    "vue-cli-service": "@vue/cli-service", "sb": "storybook", "svelte-kit": "@sveltejs/kit", "tsc-alias": "tsc-alias",
    "cdk": "aws-cdk", "sls": "serverless", "gql-gen": "@graphql-codegen/cli", "graphql-codegen": "@graphql-codegen/cli",
}
_COMMAND_LEAD = lazyre.compile(r"(?:^\W*|\b(?:run|use|with|via|then|and)\s+|[:;(,]\s*)$", re.I)


def _commands(fact: Fact, repo: Repository, claim: str) -> Iterator[Finding]:
    """`claim` as its lines write it: "use `make` targets", "with `bun run` and" give no
    command an argument."""
    for match in _COMMAND.finditer(claim):
        tool, run, name = match.groups()
        if tool in ("make", "just") and not _COMMAND_LEAD.search(claim[: match.start()]):
            continue  # "to make more room": prose; a target is run ("run `make deploy`") or listed
        name = name.rstrip(".:,;")
        runner = _RUNNERS[tool]
        defined = repo.scripts.get(runner)
        if not defined:
            continue  # no package.json, Makefile or justfile: nothing to check against
        if runner == "npm":
            if not run and (name in _BUILTINS or tool == "npm" and name not in ("test", "start")
                            or name in repo.dependencies  # `pnpm vitest`: a dependency's binary
                            or BINARIES.get(name, "") in repo.dependencies):  # `pnpm tsc`: typescript's
                continue
        elif name in ("install", "all", "help", "-C") and name not in defined:
            continue
        if name in defined:
            continue
        written = match.group(0)
        known = ", ".join(sorted(defined)[:8]) + (" …" if len(defined) > 8 else "")
        kind = {"npm": "script", "make": "target", "just": "recipe"}[runner]
        where = sorted({path for path, _ in defined.values()})
        yield _grounded(
            "missing_command", fact,
            f"`{written}`: no {', '.join(where[:2])} in the repository defines the {kind} `{name}` (it defines: {known})",
            sorted(set(defined.values()))[:1], repo, how=runner, command=written)
