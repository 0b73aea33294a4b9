"""`Label: text` lines name an entity only when the label is one: declared somewhere in the
store (a heading, front matter, a record, a graph node) or used as a label more than once;
or written with its own date or source (`- billing-store: uses X (2026-01-05)`, SPEC's entity
claim), or followed by a state verb frame (`- billing: uses PostgreSQL`, `- Globex: left
Northwind`); never a structural word such as "Total", "Result" or "Why"."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache

from memory_autopsy.ingest.records import Draft, settle
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import Declaration
from memory_autopsy.normalize import entity_form
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY, Vocabulary

_COPULAS = frozenset({"is", "are", "was", "were", "has", "had", "now"})


def settle_labels(
    drafts: Sequence[Draft],
    declarations: Sequence[Declaration],
    vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    lexicon: Lexicon | None = None,
    named: Sequence[str] = (),
    labels: Sequence[str] = (),
) -> None:
    """`named`: entities written by records that are not drafts (read ready from the parse cache);
    `labels`: the labels (entity forms) of lines a part of the store settled itself
    (`settle_decided`), each a use of its label."""
    for draft, settles in _judged(drafts, declarations, vocabulary, lexicon, named, labels):
        if settles:
            settle(draft)


def settle_decided(
    drafts: Sequence[Draft], declarations: Sequence[Declaration], vocabulary: Vocabulary, lexicon: Lexicon,
) -> tuple[list[Draft], list[str]]:
    """Settle the labels of one part of a store (a large file read in parts) that the part
    decides whatever the rest holds: settling only grows with the store (a label declared or
    used twice in the part is so in the store), and a stoplisted or verb-led label never
    settles. Returns the drafts only the whole store decides, and the labels of the others."""
    undecided: list[Draft] = []
    decided: list[str] = []
    for draft, settles in _judged(drafts, declarations, vocabulary, lexicon):
        if settles is None:
            undecided.append(draft)
            continue
        decided.append(entity_form(draft.label))
        if settles:
            settle(draft)
    return undecided, decided


def _judged(
    drafts: Sequence[Draft], declarations: Sequence[Declaration], vocabulary: Vocabulary,
    lexicon: Lexicon | None, named: Sequence[str] = (), labels: Sequence[str] = (),
) -> Iterator[tuple[Draft, bool | None]]:
    """Each labelled draft, and whether its label is its entity: True, False where nothing
    can make it one, None where more of the store could."""
    lexicon = lexicon or default_lexicon()
    labelled = [d for d in drafts if d.label]
    if not labelled:
        return
    verbs = _frame_verbs(vocabulary)
    uses = Counter(entity_form(d.label) for d in labelled)
    uses.update(labels)
    declared = {entity_form(d.entity) for d in drafts if d.named and not d.label}
    declared.update(entity_form(d.entity) for d in declarations)
    declared.update(entity_form(name) for name in named)
    for draft in labelled:
        if draft.label.casefold() in lexicon.label_stoplist or _verb_led(draft.label, lexicon):
            yield draft, False
            continue
        key = entity_form(draft.label)
        if key in declared or uses[key] >= 2 or draft.annotated or _verb_first(draft.label_rest, verbs):
            yield draft, True
        else:
            yield draft, None


def _verb_led(label: str, lexicon: Lexicon) -> bool:
    """"Fix AttributeError: …", "Added retries: …" are a task or an event, not a name."""
    first = label.split()[0].casefold()
    return first in lexicon.guideline_leads or first in lexicon.event_irregular or first.endswith("ed")


@lru_cache(maxsize=8)
def _frame_verbs(vocabulary: Vocabulary) -> frozenset[str]:
    phrases = list(vocabulary.anchors) + list(vocabulary.forward_triggers)
    return frozenset(p.split()[0] for p in phrases if p) | _COPULAS


def _verb_first(rest: str, verbs: frozenset[str]) -> bool:
    words = rest.split(None, 1)
    return bool(words) and words[0].casefold() in verbs
