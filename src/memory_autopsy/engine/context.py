"""Per-run derived views of facts that several layers share (computed once, lazily)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from memory_autopsy.cues import CUES, RETRACTS, WORDED
from memory_autopsy.dates import day_of
from memory_autopsy.engine.stores import Stores
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import Fact
from memory_autopsy.normalize import entity_form, normalize_claim
from memory_autopsy.settings import Settings
from memory_autopsy.vocabulary import Vocabulary


def fact_body(fact: Fact) -> str:
    """The claim without an `entity:` prefix, so section bullets and entity claims compare."""
    return fact.body or strip_entity(fact.claim, (fact.written_entity, fact.entity))


def strip_entity(claim: str, names: tuple[str, ...]) -> str:
    for name in names:
        if name and claim[: len(name)].casefold() == name.casefold():
            rest = claim[len(name) :].lstrip()
            if rest.startswith(":"):
                return rest[1:].strip()
    return claim


def runs_of(facts: Sequence[Fact]) -> dict[int, int]:
    """Fact order -> the run of adjoining lines it lies in (a list, a table): a blank line, a
    heading or a paragraph between two items starts another run."""
    runs: dict[int, int] = {}
    run, path, end = 0, "", -1
    for fact in sorted(facts, key=lambda f: (f.path, f.line)):
        if fact.path != path or fact.line > end + 1:
            run += 1
        path, end = fact.path, max(end if fact.path == path else -1, fact.end_line, fact.line)
        runs[fact.order] = run
    return runs


def observed_order(a: Fact, b: Fact) -> int | None:
    """-1 if a is older, 1 if newer, None when there is no observation order."""
    if not a.observed_at or not b.observed_at:
        return None
    if len(a.observed_at) > 10 and len(b.observed_at) > 10 and a.observed_at[:10] == b.observed_at[:10]:
        ka, kb = a.observed_at, b.observed_at
    else:
        ka, kb = day_of(a.observed_at) or "", day_of(b.observed_at) or ""
    if ka == kb:
        return None
    return -1 if ka < kb else 1


@dataclass
class Context:
    """What every layer of one run reads: the facts, the settings, and indexes built once on first use."""

    facts: Sequence[Fact]
    settings: Settings
    _norm: dict[Fact, str] = field(default_factory=dict)
    # With a focus (the hook's changed files), the per-entity layers look only at the entities
    # those files mention: every finding touching a changed file involves one of them.
    focus_forms: frozenset[str] | None = None
    # The lexicon and vocabulary the facts' cues were read with: a cue read with their words
    # counts only when they are this run's (another run's words may cue other facts).
    cue_lexicon: Lexicon | None = None
    cue_vocabulary: Vocabulary | None = None
    # Which facts lie in one store (engine.stores): a layer that picks one counterpart of many
    # picks it from the fact's own store, as only such a pair is reported.
    stores: Stores | None = None
    # Headings that mark their title with a status (Store.headings): the status layer's alone.
    headings: Sequence[Fact] = ()

    def together(self, a: Fact, b: Fact) -> bool:
        return self.stores is None or self.stores.together(a, b)

    def store_key(self, fact: Fact) -> str:
        """The store a fact is compared within (a rule file's group, or its memory store)."""
        stores = self.stores
        if stores is None or fact.path.startswith("<"):
            return ""
        group = stores.group_of(fact.path)
        return f"group:{group}" if group is not None else f"store:{stores.store_of(fact.path)}"

    def in_focus(self, form: str) -> bool:
        return self.focus_forms is None or form in self.focus_forms

    def narrowed(self, forms: Iterable[str]) -> Context:
        """This run's context with only `forms` in focus (the entities the memo holds no
        findings for), its groups taken from this one's: the layers that judge each entity
        alone read those entities only, as in this run."""
        wanted = set(forms)
        groups, active, every = self._groups
        ctx = Context(self.facts, self.settings, self._norm, focus_forms=frozenset(wanted),
                      cue_lexicon=self.cue_lexicon, cue_vocabulary=self.cue_vocabulary, stores=self.stores,
                      headings=self.headings)
        ctx.__dict__["_groups"] = ({form: facts for form, facts in groups.items() if form in wanted},
                                   {form: facts for form, facts in active.items() if form in wanted}, every)
        return ctx

    @cached_property
    def runs(self) -> dict[int, int]:
        """The runs of adjoining lines of the active facts (runs_of), made once: two items of one
        list or rows of one table lie in one run."""
        return runs_of(self.active)

    def one_run(self, a: Fact, b: Fact) -> bool:
        """Whether two active facts lie in one run of adjoining lines (`runs`): two items of one
        list, two rows of one table. A run is one file's."""
        run = self.runs.get(a.order)
        return run is not None and run == self.runs.get(b.order)

    @cached_property
    def with_headings(self) -> Sequence[Fact]:
        """The facts and the headings' claims: the sides a finding may name (the judges, the
        ignore comments), made once."""
        return [*self.facts, *self.headings] if self.headings else self.facts

    @cached_property
    def focus_claims(self) -> frozenset[str] | None:
        """The normalized claims of the files in focus (None without a focus): only a claim a
        changed file holds can have a copy whose finding touches one."""
        files = self.settings.focus
        return None if files is None else frozenset(self.norm_body(f) for f in self.facts if f.path in files)

    @property
    def vocabulary(self) -> Vocabulary:
        return self.settings.vocabulary

    @property
    def lexicon(self) -> Lexicon:
        return self.settings.lexicon or default_lexicon()

    def norm_body(self, fact: Fact) -> str:
        # The hottest call of the engine (several per fact): the reader normalized the body.
        return fact.norm or self._normalize(fact)

    def _normalize(self, fact: Fact) -> str:
        """A fact the reader did not normalize (built elsewhere, or with an empty body)."""
        cached = self._norm.get(fact)
        if cached is None:
            cached = self._norm[fact] = normalize_claim(fact_body(fact))
        return cached

    def release(self) -> None:
        """Drop the per-fact caches once the layers that share them are done."""
        self._norm.clear()

    def words(self, fact: Fact) -> set[str]:
        """Normalized words of the claim body (and value), synonyms folded in."""
        words = set(self.norm_body(fact).split())
        if fact.value:
            words.update(normalize_claim(fact.value).split())
        synonyms = self.settings.vocabulary.synonyms
        words.update([synonyms[w] for w in words if w in synonyms])
        return words

    @cached_property
    def active(self) -> list[Fact]:
        as_of = self.settings.as_of
        if as_of is None:
            return [f for f in self.facts if f.valid_to is None]
        return [f for f in self.facts if f.valid_to is None or f.valid_to > as_of]

    @property
    def active_in_focus(self) -> Sequence[Fact]:
        """The active facts of the entities in focus (all of them without a focus), each
        entity's in store order: the hook shows nothing about an entity no changed file names."""
        if self.focus_forms is None:
            return self.active
        groups = self.active_by_entity
        return [fact for form in sorted(self.focus_forms) if form in groups for fact in groups[form]]

    def cued(self, cue: int) -> list[Fact]:
        """The active facts whose claim holds a cue (`cues.NUMBERS`, ...), in store order: a layer
        that only reads facts holding its cue skips the rest without searching them."""
        if not self.trusts(cue):
            return self.active
        return self._cued.get(cue, [])

    def trusts(self, cue: int) -> bool:
        """Whether the facts' cue was read with this run's words (else every fact may hold it)."""
        if cue & WORDED and self.cue_lexicon is not self.lexicon:
            return False
        return not (cue & RETRACTS and self.cue_vocabulary is not self.vocabulary)

    @cached_property
    def _cued(self) -> dict[int, list[Fact]]:
        lists: dict[int, list[Fact]] = {bit: [] for bit in CUES}
        appenders = [(bit, lists[bit].append) for bit in CUES]
        for fact in self.active:
            bits = fact.cues
            if bits:
                for bit, append in appenders:
                    if bits & bit:
                        append(fact)
        return lists

    @cached_property
    def by_entity(self) -> dict[str, list[Fact]]:
        """The facts of each entity form (with a focus, of the forms in focus: the layers that
        group by entity read no other)."""
        return self._groups[0]

    @cached_property
    def active_by_entity(self) -> dict[str, list[Fact]]:
        return self._groups[1]

    @cached_property
    def forms(self) -> set[str]:
        """Every entity form of the store, in focus or not."""
        return self._groups[2]

    @cached_property
    def _groups(self) -> tuple[dict[str, list[Fact]], dict[str, list[Fact]], set[str]]:
        """All facts and the active ones by entity form, in one pass (as `active` selects)."""
        groups: dict[str, list[Fact]] = {}
        active: dict[str, list[Fact]] = {}
        as_of = self.settings.as_of
        focus = self.focus_forms
        # Per entity as written, its form and the form's lists: a store names each entity many
        # times, and its spellings of one entity share the lists (store order is kept).
        named: dict[str, tuple[str, list[Fact] | None]] = {}
        for fact in self.facts:
            seen = named.get(fact.entity)
            if seen is None:
                form = entity_form(fact.entity)
                kept = groups.setdefault(form, []) if focus is None or form in focus else None
                seen = named[fact.entity] = (form, kept)
            if seen[1] is None:
                continue
            seen[1].append(fact)
            if fact.valid_to is None or (as_of is not None and fact.valid_to > as_of):
                form = seen[0]
                kept = active.get(form)
                if kept is None:
                    kept = active[form] = []
                kept.append(fact)
        return groups, active, {form for form, _ in named.values()}

    def slot_key(self, fact: Fact) -> tuple[str, str, str] | None:
        if not fact.slot:
            return None
        return entity_form(fact.entity), _canonical_slot(fact.slot, self.settings.vocabulary), fact.qualifier


@lru_cache(maxsize=4096)
def _canonical_slot(slot: str, vocabulary: Vocabulary) -> str:
    name = slot.strip().lower().replace(" ", "_")
    return vocabulary.slot_aliases.get(name, name)
