"""Entity identity: declared aliases and the conservative normal form fold; look-alikes do not."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import combinations
from operator import attrgetter
from typing import Any

from memory_autopsy.lexicon import unspaced
from memory_autopsy.model import Declaration, Fact
from memory_autopsy.normalize import edit_distance, entity_form

MAX_EDITS = 2
MIN_SIMILARITY = 0.6
MIN_LENGTH = 4
TYPO_WORD = 6  # a word this long, an edit or two from another, is that word mistyped ("initek")
TYPO_LETTERS = 3  # a shorter word of letters, one edit ("ana" / "anna"); "eu" / "au" are two words
# A form longer than this is a sentence, not a name one typo away from another; its deletion
# keys would be len(form) strings of len(form) characters (64 KB name: gigabytes).
MAX_LENGTH = 64
# Past this many entity groups the pairs are worth keeping between runs (4,500 groups: 0.2 s);
# below it they cost less to find than a cache entry costs to read.
MEMO_NAMES = 1000

AliasPair = tuple[str, str, str, str, int]  # name, form, name, form, edit distance
# Recalls what a pure function returned for the same inputs, or calls it: (kind, inputs, compute).
Memo = Callable[[str, list[Any], Callable[[], list[Any]], Callable[[Any], bool]], list[Any]]


class _Groups:
    """Union-find over entity forms; the canonical name is the first name written."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.display: dict[str, str] = {}

    def add(self, form: str, written: str) -> None:
        if form not in self.parent:
            self.parent[form] = form
            self.display[form] = written

    def find(self, form: str) -> str:
        root = form
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[form] != root:
            self.parent[form], form = root, self.parent[form]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def resolve_entities(
    facts: Sequence[Fact], declarations: Sequence[Declaration], related: Iterable[str], memo: Memo | None = None,
) -> tuple[list[Fact], list[Declaration], list[AliasPair], set[str]]:
    groups = _Groups()
    written = list(dict.fromkeys(map(attrgetter("entity"), facts)))
    for name in written:
        groups.add(entity_form(name), name)
    for fact in filter(attrgetter("aliases"), facts):  # most facts name no alias
        for alias in fact.aliases:
            groups.add(entity_form(alias), alias)
            groups.union(entity_form(fact.entity), entity_form(alias))
    for declaration in declarations:
        groups.add(entity_form(declaration.entity), declaration.entity)

    def canonical(name: str) -> str:
        form = entity_form(name)
        if form not in groups.parent:
            return name
        return groups.display[groups.find(form)]

    mapping = {name: canonical(name) for name in written}
    renamed = {name: to for name, to in mapping.items() if to != name}
    resolved = [f._replace(entity=renamed[f.entity]) if f.entity in renamed else f for f in facts] if renamed else list(facts)
    decls = [d._replace(entity=canonical(d.entity)) for d in declarations]
    names = {canonical(n) for n in related}
    return resolved, decls, look_alikes(written, groups, memo), names


def look_alikes(written: Sequence[str], groups: _Groups, memo: Memo | None = None) -> list[AliasPair]:
    """Pairs of entity groups whose forms are a small edit apart (never merged). They depend on
    the groups' names alone, which a one-line change rarely changes: `memo` keeps them."""
    first_name: dict[str, str] = {}
    for name in written:
        first_name.setdefault(groups.find(entity_form(name)), name)
    if memo is None or len(first_name) < MEMO_NAMES:
        return _look_alikes(first_name)
    kept = memo("look-alikes", list(first_name.items()), lambda: _look_alikes(first_name), _is_pair)
    return [(a, b, c, d, e) for a, b, c, d, e in kept]


def _is_pair(row: Any) -> bool:
    return (type(row) in (list, tuple) and len(row) == 5 and all(type(v) is str for v in row[:4])
            and type(row[4]) is int)


def _look_alikes(first_name: dict[str, str]) -> list[AliasPair]:
    """`first_name`: each group's form, in the order first written, and the name it was."""
    buckets: dict[str, list[str]] = {}
    for root in first_name:
        if MIN_LENGTH <= len(root) <= MAX_LENGTH:
            for key in _deletion_keys(root):
                buckets.setdefault(key, []).append(root)
    seen: set[tuple[str, str]] = set()
    pairs: list[AliasPair] = []
    order = {root: index for index, root in enumerate(first_name)}
    # Each name without its digits, once: names that differ only in digits ("svc12", "svc13")
    # share many keys, and stripping both names of every pair was most of the pass.
    letters: dict[str, str] = {}
    for bucket in buckets.values():
        if not 1 < len(bucket) <= 50:  # most keys are one name's own (a root is in a bucket once)
            continue
        for root in bucket:
            if root not in letters:
                letters[root] = _without_digits(root)
        for a, b in combinations(sorted(set(bucket), key=order.__getitem__), 2):
            if (a, b) in seen or letters[a] == letters[b]:  # differ only in digits: numbered, not typos
                continue
            seen.add((a, b))
            distance = edit_distance(a, b, MAX_EDITS)
            if 0 < distance <= MAX_EDITS and 1 - distance / max(len(a), len(b)) >= MIN_SIMILARITY \
                    and _one_name_apart(a, b):
                pairs.append((first_name[a], a, first_name[b], b, distance))
    # In the order the names were first written: the buckets come in the order of a set of
    # strings, which changes with the process's hash seed (as-of listed the pairs so).
    pairs.sort(key=lambda pair: (order[pair[1]], order[pair[3]]))
    return pairs


def _deletion_keys(form: str) -> set[str]:
    keys = {form}
    singles = {form[:i] + form[i + 1 :] for i in range(len(form))}
    keys |= singles
    if len(form) <= 9:
        for single in singles:
            keys |= {single[:i] + single[i + 1 :] for i in range(len(single))}
    return keys


def _one_name_apart(a: str, b: str) -> bool:
    """Whether two forms a small edit apart are one name written two ways: a plural ("core
    service" / "core services"), a word mistyped ("authetication", "initek", "acma"), or the same
    words spaced apart. Two short words two edits apart are two words ("stack" / "start", "hooks"
    / "tools"), as are two codes or two-letter words one apart ("0x0b" / "0x0c", "eu" / "au"), and
    a character changed or added in a script written without spaces, where each character is a
    word ("高优先级" / "中优先级", "禁止模式清单" / "禁止模式")."""
    if unspaced("".join(set(a) ^ set(b))):
        return False
    words_a, words_b = a.split(), b.split()
    if "".join(words_a) == "".join(words_b):
        return True
    if len(words_a) != len(words_b):
        return False
    apart = [(x, y) for x, y in zip(words_a, words_b) if x != y]
    if len(apart) != 1:
        return False
    short, long = sorted(apart[0], key=len)
    if long in (short + "s", short + "es"):
        return True
    if len(short) >= TYPO_WORD:
        return True  # the whole pair is within MAX_EDITS: "initech" / "initek"
    return short.isalpha() and len(short) >= TYPO_LETTERS and edit_distance(short, long, 1) == 1


def _without_digits(name: str) -> str:
    return "".join(c for c in name if not c.isdigit())
