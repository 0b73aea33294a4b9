"""Building canonical facts from parsed pieces."""

from __future__ import annotations

from dataclasses import dataclass

from memory_autopsy.claims import anchor_slot, status_verb
from memory_autopsy.engine.context import strip_entity
from memory_autopsy.model import Fact, Fidelity
from memory_autopsy.normalize import content_id, entity_form, normalize_claim
from memory_autopsy.vocabulary import Vocabulary

SOURCE_CLASSES = ("primary", "secondary", "unclassified")


@dataclass(slots=True)
class Draft:
    """A fact before identity is settled; mutable while a parser fills it in."""

    entity: str
    claim: str
    path: str
    line: int
    fidelity: Fidelity
    slot: str = ""
    value: str = ""
    body: str = ""
    observed_at: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    source: str | None = None
    source_class: str | None = None
    status_verb: str | None = None
    aliases: tuple[str, ...] = ()
    given_id: str | None = None
    shape: str = "markdown"
    suppress: tuple[str, ...] = ()
    kind: str = "state"
    status: str = ""
    entry: str = ""
    obs: int = -1
    end_line: int = 0
    label: str = ""  # a `Label: text` prefix that may name the entity (settled store-wide)
    label_rest: str = ""
    annotated: bool = False  # the line carries its own date or source
    named: bool = False  # the entity was written (heading, front matter, record), not inferred


_CLASSES = {name: name for name in SOURCE_CLASSES}


def source_class_of(value: object) -> str:
    if type(value) is str and value in _CLASSES:
        return _CLASSES[value]
    text = str(value).strip().lower() if value is not None else ""
    return text if text in SOURCE_CLASSES else "unclassified"


def finish(draft: Draft, vocabulary: Vocabulary, order: int) -> Fact:
    """Fill derived fields (prose slot, status verb, id) and freeze."""
    body = draft.body or draft.claim
    slot, value, qualifier = draft.slot, draft.value, ""
    # A guideline ("Use uv") or a task asserts nothing about now; an event can state the new value.
    if not slot and draft.fidelity is not Fidelity.FULL and draft.shape != "relation" and draft.kind in ("state", "event"):
        proven = anchor_slot(body, vocabulary)
        if proven is not None:
            slot, value, qualifier = proven
    # A record that states its status verb (even as null) is trusted; "" means none.
    verb = draft.status_verb if draft.status_verb is not None else status_verb(body, vocabulary)
    fact_id = draft.given_id or content_id(
        (
            entity_form(draft.entity),
            slot,
            normalize_claim(value),
            normalize_claim(draft.claim),
            draft.observed_at,
            draft.valid_from,
            draft.valid_to,
            draft.source,
        )
    )
    return Fact(
        body=strip_entity(draft.claim, (draft.entity,)),
        id=fact_id,
        entity=draft.entity,
        slot=slot,
        value=value,
        claim=draft.claim,
        observed_at=draft.observed_at,
        valid_from=draft.valid_from,
        valid_to=draft.valid_to,
        source=draft.source,
        source_class=source_class_of(draft.source_class),
        fidelity=draft.fidelity,
        status_verb=verb or None,
        path=draft.path,
        line=draft.line,
        aliases=draft.aliases,
        written_entity=draft.entity,
        shape=draft.shape,
        id_given=draft.given_id is not None,
        suppress=draft.suppress,
        order=order,
        qualifier=qualifier,
        kind=draft.kind,
        status=draft.status,
        entry=draft.entry,
        obs=draft.obs,
        end_line=draft.end_line if draft.end_line > draft.line else 0,
    )
