"""What the repository a store lives in holds, as the grounding layer (engine/grounding.py)
asks it: which paths git lists, which versions the manifests declare, which scripts and targets
they define. Everything is read once per run and only when asked; nothing here runs git (the
pipeline hands over git's listing) or touches the network.

Manifests are read as memory files are (inside the tree, no link followed, bounded), with the
ecosystems' own formats: JSON for package.json, TOML (tomllib or
tomli) for pyproject.toml and Cargo.toml, PEP 508 requirement lines for requirements files,
go.mod's `go` and `require` lines, a version file's one line (.nvmrc, .python-version), and
the image tag of a Dockerfile's FROM. Version ranges are compared with `packaging`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from memory_autopsy.ingest.confined import LeadsOutside, Roots, read_inside
from memory_autopsy.selection import matches

MANIFEST_NAMES = frozenset({
    "package.json", "pyproject.toml", "cargo.toml", "go.mod", ".nvmrc", ".node-version",
    ".python-version", "makefile", "gnumakefile", "justfile", ".justfile",
})
MAX_IGNORE_LINES = 5000  # of one .gitignore: past that, a generated list, not rules anyone keeps
MAX_MANIFEST = 1 << 20  # bytes: a larger "manifest" is no manifest anyone wrote by hand
# A manifest under one of these is a copy, a fixture or a sample, not the project's own.
SKIPPED_FOLDERS = ("node_modules/", "vendor/", "third_party/", ".git/", "fixtures/", "__fixtures__/",
                   "testdata/", "eval/", "examples/", "tests/", "test/")


class Declared(NamedTuple):
    """One thing a manifest declares, and where: `version` a specifier as written."""

    name: str
    version: str
    path: str  # repository-relative
    line: int


def _from(path: str, near: str) -> tuple[str, ...]:
    """A repository path as memory writes it, read from the root and from the folder `near`."""
    return (path, os.path.normpath(f"{near}/{path}").replace(os.sep, "/")) if near else (path,)


@dataclass(eq=False)
class Repository:
    """One git work tree: its root and the paths git lists in it (tracked, and untracked files
    that are not ignored), repository-relative with `/`."""

    root: str
    listed: frozenset[str]
    # git's record of renamed files, (old, new) oldest first, asked for once and only when a
    # named path is missing (the pipeline runs git; None: no history to ask)
    history: Callable[[], list[tuple[str, str]]] | None = None
    _read: dict[str, str | None] = field(default_factory=dict)
    _lines: dict[str, list[str]] = field(default_factory=dict)

    @cached_property
    def _roots(self) -> Roots:
        return Roots((os.path.realpath(self.root),))  # the tree alone, not the working directory

    # -- paths -------------------------------------------------------------------------

    @cached_property
    def folders(self) -> frozenset[str]:
        out: set[str] = set()
        for path in self.listed:
            at = path.rfind("/")
            while at > 0:
                folder = path[:at]
                if folder in out:
                    break
                out.add(folder)
                at = path.rfind("/", 0, at)
        return frozenset(out)

    @cached_property
    def _tails(self) -> frozenset[str]:
        """Every path and folder as each of its trailing parts reads: `a/b/c.py`, `b/c.py`, `c.py`."""
        out: set[str] = set()
        for path in (*self.listed, *self.folders):
            out.add(path)
            at = path.find("/")
            while at >= 0:
                out.add(path[at + 1:])
                at = path.find("/", at + 1)
        return frozenset(out)

    @cached_property
    def by_name(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        for path in sorted(self.listed):
            names.setdefault(path.rpartition("/")[2], []).append(path)
        return names

    def holds(self, path: str, near: str = "") -> bool:
        """Whether the repository has `path` (a file or a folder): as written from its root or
        from the folder `near`, or as the trailing part of a longer path (memory drops a
        leading `src/`), or on disk though git ignores it (a local `.env`). A path whose first
        folder the root or `near` has is read from there alone: `supabase/migrations/` names
        the root's `supabase/` (which holds `config.toml`) even where `upload/supabase/migrations/`
        is listed."""
        path = path.strip("/").removeprefix("./")
        if not path or self.has(path, near):
            return True
        if any(p in self._tails for p in _from(path, near)) and not self._anchored(path, near):
            return True
        on_disk = os.path.normpath(os.path.join(self.root, path))
        # only asked inside the tree: memory a pull request wrote never learns what lies outside it
        return self._roots.inside(on_disk) and os.path.lexists(on_disk)

    def _anchored(self, path: str, near: str) -> bool:
        """Whether a path's first folder is one the repository has at its root or in `near`:
        the path is written from there, not as the tail of a longer one."""
        first, slash, _ = path.partition("/")
        return bool(slash) and first not in ("", ".", "..") and any(
            p in self.folders for p in _from(first, near))

    @cached_property
    def _ignore_rules(self) -> tuple[tuple[str, str, bool], ...]:
        """(folder, pattern, negated) of every listed `.gitignore`, in the order git weighs
        them: a deeper file after a shallower one, a later line after an earlier one."""
        rules: list[tuple[str, str, bool]] = []
        files = sorted((p for p in self.listed if p.rpartition("/")[2] == ".gitignore"), key=lambda p: (p.count("/"), p))
        for path in files:
            text = self.text(path)
            for line in (text or "").splitlines()[:MAX_IGNORE_LINES]:
                line = line.rstrip()
                if not line or line.startswith("#"):
                    continue
                negated = line.startswith("!")
                line = line[negated:].removeprefix("\\")  # `\#name`, `\!name`: the name itself
                if line:
                    rules.append((path.rpartition("/")[0], line, negated))
        return tuple(rules)

    def has(self, path: str, near: str = "") -> bool:
        """Whether `path` is a listed file or folder as written from the root or from `near`
        (not as the trailing part of a longer path)."""
        return any(p in self.listed or p in self.folders for p in _from(path.strip("/").removeprefix("./"), near))

    @cached_property
    def _stems(self) -> frozenset[str]:
        """Every listed file's path without its extension: `lib/utils` for `lib/utils.ts`."""
        return frozenset(p.rpartition(".")[0] for p in self.listed if "." in p.rpartition("/")[2])

    def has_module(self, path: str, near: str = "") -> bool:
        """Whether `path` names a listed file without its extension, as an import does
        (`lib/utils` for `lib/utils.ts`), from the root or from `near`."""
        return any(p in self._stems for p in _from(path.strip("/").removeprefix("./"), near))

    def ignored(self, path: str) -> bool:
        """Whether the repository's `.gitignore` files leave `path` out: a local file (`.env`,
        `data/`), never one the repository promised. A folder is ignored when what lies in it is."""
        path = path.strip("/").removeprefix("./") + ("/-" if path.endswith("/") else "")
        verdict = False
        for folder, pattern, negated in self._ignore_rules:
            if folder and not path.startswith(folder + "/"):
                continue
            if matches(path[len(folder) + 1:] if folder else path, pattern):
                verdict = not negated
        return verdict

    def named(self, name: str) -> list[str]:
        """The listed files of that base name."""
        return self.by_name.get(name, [])

    @cached_property
    def _renamed(self) -> dict[str, str]:
        """Old path -> the path git last renamed it to."""
        return {} if self.history is None else dict(self.history())  # oldest first: the last rename wins

    def moved(self, path: str) -> str | None:
        """The listed path git's rename detection followed `path` to, through every later rename
        (`path` as memory writes it: from the root, or its trailing part); None when git renamed
        no such file, or what it became is gone too."""
        path = path.strip("/").removeprefix("./")
        if not path or not self._renamed:
            return None
        sources = [old for old in self._renamed if old == path or old.endswith("/" + path)]
        found = {self._followed(old) for old in sources}
        found.discard(None)
        return found.pop() if len(found) == 1 else None

    def _followed(self, old: str) -> str | None:
        seen = {old}
        new = self._renamed[old]
        while new not in self.listed and new in self._renamed and new not in seen:
            seen.add(new)
            new = self._renamed[new]
        return new if new in self.listed else None

    # -- manifests ---------------------------------------------------------------------

    def text(self, path: str) -> str | None:
        """A manifest's text, read as memory files are (ingest.confined): inside the tree, no
        link followed, a regular file only (a FIFO a pull request commits never blocks the
        run), at most MAX_MANIFEST bytes; None when it cannot be read so."""
        if path not in self._read:
            try:
                data = read_inside(os.path.join(self.root, path), self._roots, MAX_MANIFEST)
            except (OSError, LeadsOutside):
                data = None
            self._read[path] = None if data is None else data.decode("utf-8", "replace")
        return self._read[path]

    def lines(self, path: str) -> list[str]:
        """A file's lines, read as `text` reads it (a memory file, to see a claim as written);
        empty when it cannot be read so."""
        if path not in self._lines:
            text = self.text(path)
            self._lines[path] = [] if text is None else text.splitlines()
        return self._lines[path]

    @cached_property
    def manifests(self) -> tuple[str, ...]:
        found = []
        for path in _named_like_manifests(self.listed):
            name = path.rpartition("/")[2].lower()
            if name in MANIFEST_NAMES or _is_requirements(name) or name.startswith("dockerfile"):
                if not any(path.startswith(part) or f"/{part}" in path for part in SKIPPED_FOLDERS):
                    found.append(path)
        return tuple(sorted(found))

    @cached_property
    def dependencies(self) -> dict[str, list[Declared]]:
        """Dependency or tool name (lower case) -> where a manifest declares its version."""
        out: dict[str, list[Declared]] = {}
        for path in self.manifests:
            text = self.text(path)
            if text is None:
                continue
            for declared in _declarations(path, text):
                out.setdefault(declared.name.lower(), []).append(declared)
        return out

    @cached_property
    def own_versions(self) -> list[Declared]:
        """The project's own version, as its top-level manifests give it."""
        out: list[Declared] = []
        for path in ("package.json", "pyproject.toml", "Cargo.toml"):
            if path in self.listed:
                text = self.text(path)
                if text is not None:
                    out += _own_version(path, text)
        return out

    @cached_property
    def scripts(self) -> dict[str, dict[str, tuple[str, int]]]:
        """Runner ("npm", "make", "just") -> script or target -> where it is defined."""
        out: dict[str, dict[str, tuple[str, int]]] = {}
        for path in self.manifests:
            name = path.rpartition("/")[2].lower()
            text = self.text(path)
            if text is None:
                continue
            if name == "package.json":
                runner, found = "npm", _package_scripts(text)
            elif name in ("makefile", "gnumakefile"):
                runner, found = "make", _make_targets(text)
            elif name in ("justfile", ".justfile"):
                runner, found = "just", _just_recipes(text)
            else:
                continue
            table = out.setdefault(runner, {})
            for script, line in found:
                table.setdefault(script, (path, line))
        return out


# What a manifest's name holds, lower case: found in a whole listing at once (str.find), where a
# test of each of 30,000 paths in Python costs a large tree's commit 20 ms.
_MANIFEST_WORDS = ("package.json", "pyproject.toml", "cargo.toml", "go.mod", ".nvmrc", ".node-version",
                   ".python-version", "makefile", "justfile", "requirements", "dockerfile")


def _named_like_manifests(listed: Iterable[str]) -> set[str]:
    """The listed paths that hold a manifest's name word anywhere (a superset: the caller
    tests each one's name exactly)."""
    text = "\n".join(listed)
    low = text.lower()
    if len(low) != len(text):  # a name whose lower case is longer ('İ'): test each path
        return {path for path in listed if any(word in path.lower() for word in _MANIFEST_WORDS)}
    found: set[str] = set()
    for word in _MANIFEST_WORDS:
        at = low.find(word)
        while at >= 0:
            start = low.rfind("\n", 0, at) + 1
            end = low.find("\n", at)
            end = len(low) if end < 0 else end
            found.add(text[start:end])
            at = low.find(word, end)
    return found


def _is_requirements(name: str) -> bool:
    return name.startswith("requirements") and name.endswith((".txt", ".in"))


def _line_of(text: str, needle: str, start: int = 0) -> int:
    at = text.find(needle, start)
    return 1 if at < 0 else text.count("\n", 0, at) + 1


def _declarations(path: str, text: str) -> Iterator[Declared]:
    name = path.rpartition("/")[2].lower()
    if name == "package.json":
        yield from _package_versions(path, text)
    elif name == "pyproject.toml":
        yield from _pyproject_versions(path, text)
    elif name == "cargo.toml":
        yield from _cargo_versions(path, text)
    elif name == "go.mod":
        yield from _go_versions(path, text)
    elif name in (".nvmrc", ".node-version", ".python-version"):
        value = text.strip().splitlines()[0].strip() if text.strip() else ""
        tool = "python" if "python" in name else "node"
        if value and value[0].isdigit() or value.startswith("v"):
            yield Declared(tool, value.lstrip("v"), path, 1)
    elif _is_requirements(name):
        yield from _requirement_lines(path, text)
    elif name.startswith("dockerfile"):
        yield from _docker_images(path, text)


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _package_versions(path: str, text: str) -> Iterator[Declared]:
    data = _json(text)
    for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        deps = data.get(table)
        if isinstance(deps, dict):
            for dep, spec in deps.items():
                if isinstance(dep, str) and isinstance(spec, str):
                    yield Declared(dep, spec, path, _line_of(text, f'"{dep}"'))
    engines = data.get("engines")
    if isinstance(engines, dict):
        for tool, spec in engines.items():
            if isinstance(tool, str) and isinstance(spec, str):
                yield Declared(tool, spec, path, _line_of(text, f'"{tool}"', text.find('"engines"')))
    manager = data.get("packageManager")  # corepack's "pnpm@10.12.4+sha512.…": that one version
    if isinstance(manager, str) and "@" in manager[1:]:
        tool, _, version = manager.rpartition("@")
        version = version.partition("+")[0]
        if tool and version[:1].isdigit():
            yield Declared(tool, version, path, _line_of(text, '"packageManager"'))


def _toml(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except (ValueError, RecursionError):
        return {}


def _pep508(requirement: str) -> tuple[str, str] | None:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        parsed = Requirement(requirement)
    except InvalidRequirement:
        return None
    return parsed.name, str(parsed.specifier)


def _pyproject_versions(path: str, text: str) -> Iterator[Declared]:
    data = _toml(text)
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    assert isinstance(project, dict)
    python = project.get("requires-python")
    if isinstance(python, str):
        yield Declared("python", python, path, _line_of(text, "requires-python"))
    groups: list[Any] = [project.get("dependencies", [])]
    optional = project.get("optional-dependencies")
    if isinstance(optional, dict):
        groups += list(optional.values())
    for group in groups:
        for item in group if isinstance(group, list) else ():
            parsed = _pep508(item) if isinstance(item, str) else None
            if parsed and parsed[1]:
                yield Declared(parsed[0], parsed[1], path, _line_of(text, item))
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    for table in (poetry.get("dependencies"), poetry.get("dev-dependencies")) if isinstance(poetry, dict) else ():
        if isinstance(table, dict):
            for dep, spec in table.items():
                version = spec.get("version") if isinstance(spec, dict) else spec
                if isinstance(dep, str) and isinstance(version, str):
                    yield Declared(dep, version, path, _line_of(text, f"{dep} ="))


def _cargo_versions(path: str, text: str) -> Iterator[Declared]:
    data = _toml(text)
    for table in ("dependencies", "dev-dependencies", "build-dependencies"):
        deps = data.get(table)
        if isinstance(deps, dict):
            for dep, spec in deps.items():
                version = spec.get("version") if isinstance(spec, dict) else spec
                if isinstance(dep, str) and isinstance(version, str):
                    yield Declared(dep, version, path, _line_of(text, f"{dep} ="))
    package = data.get("package")
    if isinstance(package, dict) and isinstance(package.get("rust-version"), str):
        yield Declared("rust", package["rust-version"], path, _line_of(text, "rust-version"))


_MAJOR = re.compile(r"/v\d+$")  # a Go module's major version suffix
_GO_LINE = re.compile(r"^\s*(?:require\s+)?([\w.\-/]+)\s+v(\d[\w.\-+]*)", re.M)


def _go_versions(path: str, text: str) -> Iterator[Declared]:
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("go ") and stripped[3:].strip()[:1].isdigit():
            yield Declared("go", stripped[3:].strip(), path, number)
            continue
        match = _GO_LINE.match(line)
        if match and "/" in match.group(1):
            module = match.group(1)
            yield Declared(module, match.group(2), path, number)
            # `github.com/a/go-output/v2` is go-output: a major version's suffix is no name
            yield Declared(_MAJOR.sub("", module.rstrip("/")).rpartition("/")[2], match.group(2), path, number)


def _requirement_lines(path: str, text: str) -> Iterator[Declared]:
    for number, line in enumerate(text.splitlines(), 1):
        item = line.split("#", 1)[0].strip()
        if not item or item.startswith("-"):
            continue
        parsed = _pep508(item)
        if parsed and parsed[1]:
            yield Declared(parsed[0], parsed[1], path, number)


_FROM = re.compile(r"^\s*FROM\s+(?:--\S+\s+)*(?:[\w.\-]+(?::\d+)?/)*([a-z0-9._\-]+):v?(\d[\w.\-]*)", re.I | re.M)


def _docker_images(path: str, text: str) -> Iterator[Declared]:
    for match in _FROM.finditer(text):
        version = re.match(r"\d+(?:\.\d+)*", match.group(2))
        if version:
            yield Declared(match.group(1), version.group(0), path, _line_of(text, match.group(0).strip()))


def _own_version(path: str, text: str) -> Iterator[Declared]:
    if path == "package.json":
        version = _json(text).get("version")
    else:
        data = _toml(text)
        table = data.get("project") if path == "pyproject.toml" else data.get("package")
        version = table.get("version") if isinstance(table, dict) else None
        if version is None and path == "pyproject.toml":
            poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
            version = poetry.get("version") if isinstance(poetry, dict) else None
    if isinstance(version, str) and version[:1].isdigit():
        yield Declared("", version, path, _line_of(text, "version"))


def _package_scripts(text: str) -> list[tuple[str, int]]:
    scripts = _json(text).get("scripts")
    if not isinstance(scripts, dict):
        return []
    start = text.find('"scripts"')
    return [(name, _line_of(text, f'"{name}"', start)) for name in scripts if isinstance(name, str)]


_TARGET = re.compile(r"^([A-Za-z0-9_.\-/%][^:=#\s]*(?:[ \t]+[^:=#\s]+)*)[ \t]*::?(?!=)", re.M)


def _make_targets(text: str) -> list[tuple[str, int]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(("\t", " ", "#")):
            continue
        match = _TARGET.match(line)
        if match:
            out += [(name, number) for name in match.group(1).split() if "%" not in name and "$" not in name]
    return out


_RECIPE = re.compile(r"^@?([A-Za-z0-9_][\w\-]*)(?:[ \t]+[^:=]*)?:(?!=)")


def _just_recipes(text: str) -> list[tuple[str, int]]:
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _RECIPE.match(line)
        if match and not line.startswith((" ", "\t")):
            out.append((match.group(1), number))
        alias = re.match(r"^alias\s+([\w\-]+)\s*:=", line)
        if alias:
            out.append((alias.group(1), number))
    return out


# -- versions -----------------------------------------------------------------------------


def admits(spec: str, version: str) -> bool | None:
    """Whether a manifest's version specifier admits the version memory names (which may give
    only its major, or major and minor: "React 18" is any 18.x). None when the specifier says
    nothing comparable (a tag, a URL, a workspace reference)."""
    from packaging.version import InvalidVersion, Version

    try:
        wanted = Version(version)
    except InvalidVersion:
        return None
    parts = len(wanted.release)
    alternatives = [_npm_set(part) for part in spec.split("||")] if not _is_pep440(spec) else [_pep440_set(spec)]
    if any(a is None for a in alternatives):
        return None
    for bounds in alternatives:
        assert bounds is not None
        if _some_version_within(bounds, wanted.release, parts):
            return True
    return False


Bound = tuple[str, tuple[int, ...]]  # (operator, release)


def _is_pep440(spec: str) -> bool:
    return any(op in spec for op in ("==", "~=", "!=", ",")) or bool(re.match(r"^\s*[<>]=?\s*\d[\w.]*\s*(,|$)", spec))


def _release(text: str) -> tuple[int, ...] | None:
    match = re.match(r"v?(\d+(?:\.(?:\d+|[xX*]))*)", text.strip())
    if not match:
        return None
    out = []
    for part in match.group(1).split("."):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out)


def _pep440_set(spec: str) -> list[Bound] | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        parsed = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    bounds: list[Bound] = []
    for item in parsed:
        release = _release(item.version)
        if release is None:
            return None
        op = item.operator
        if op == "~=":
            bounds += [(">=", release), ("<", (*release[:-2], release[-2] + 1) if len(release) >= 2 else (release[0] + 1,))]
        elif op in ("==", "==="):
            if item.version.endswith(".*"):
                bounds += [(">=", release), ("<", (*release[:-1], release[-1] + 1))]
            else:
                bounds.append(("=", release))
        elif op == "!=":
            continue
        else:
            bounds.append((op, release))
    return bounds


def _npm_set(spec: str) -> list[Bound] | None:
    spec = spec.strip()
    if spec in ("", "*", "x", "latest"):
        return []
    if any(mark in spec for mark in (":", "/", "#")):
        return None  # workspace:, npm:, file:, git URLs, tags
    bounds: list[Bound] = []
    hyphen = re.match(r"^(\S+)\s+-\s+(\S+)$", spec)
    if hyphen:
        low, high = _release(hyphen.group(1)), _release(hyphen.group(2))
        if low is None or high is None:
            return None
        return [(">=", low), ("<=", high)]
    for token in spec.split():
        op_match = re.match(r"^(\^|~|>=|<=|>|<|=)?\s*(.*)$", token)
        assert op_match is not None
        op, rest = op_match.group(1) or "", op_match.group(2)
        release = _release(rest)
        if release is None or not release:
            return None
        if op == "^":
            first = next((i for i, n in enumerate(release) if n != 0), len(release) - 1)
            upper = (*release[:first], release[first] + 1)
            bounds += [(">=", release), ("<", upper)]
        elif op == "~":
            upper = (release[0] + 1,) if len(release) == 1 else (release[0], release[1] + 1)
            bounds += [(">=", release), ("<", upper)]
        elif op in ("", "="):
            if len(release) < 3:  # "18", "18.x", "18.2": a range
                bounds += [(">=", release), ("<", (*release[:-1], release[-1] + 1))]
            else:
                bounds.append(("=", release))
        else:
            bounds.append((op, release))
    return bounds


def _pad(release: tuple[int, ...], size: int = 4) -> tuple[int, ...]:
    return (*release, *([0] * (size - len(release))))[:size] if len(release) < size else release[:size]


def _some_version_within(bounds: Iterable[Bound], wanted: tuple[int, ...], parts: int) -> bool:
    """Whether some version that starts with `wanted` (its first `parts` numbers) meets every
    bound: the lowest such version, the bounds' own versions that start so, and the highest."""
    bounds = list(bounds)
    candidates = [_pad(wanted), _pad((*wanted[:parts], 99999))]
    candidates += [_pad(release) for _, release in bounds if release[:parts] == wanted[:parts]]
    candidates += [_pad((*release[:-1], release[-1] - 1) if release and release[-1] > 0 else release) for _, release in bounds
                   if release[:parts] == wanted[:parts]]
    return any(all(_meets(c, op, _pad(release)) for op, release in bounds) and c[:parts] == _pad(wanted)[:parts]
               for c in candidates)


def _meets(version: tuple[int, ...], op: str, release: tuple[int, ...]) -> bool:
    if op in ("=", "=="):
        return version == release
    return {">=": version >= release, "<=": version <= release, ">": version > release,
            "<": version < release}.get(op, True)
