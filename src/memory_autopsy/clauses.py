"""Reading a retraction out of one clause: which verb retracts, in which voice, and what.

A note retracts a thing whatever its phrasing: "moved off X to Y", "migrated the queue off X",
"stopped using X", "no longer relies on X", "X was replaced by Y", "X got swapped out for Y",
"X is no longer used", "X removed from the stack", "X is gone", "Y supersedes X", "Y (was X)",
"no more X", "Replaced: X -> Y". The reader walks the clause's words once: a retracting verb (any of
its forms, from the families below), the voice it stands in (a form of "be" or "get" before a
participle: the thing retracted stands before it), the particle a motion verb needs ("off",
"from", "away from", "out of", after an optional object of its own: "moved the queue off X"),
and what qualifies the clause: a negation ("did not replace X") or a plan, a wish or a question
("plan to move off X", "should we drop X?") retracts nothing. A clause with no retracting verb
is not decided here (the vocabulary's own trigger words then read it, `claims.find_transition`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Verbs whose object is what they retract, by every form people write. Data, not templates.
_RETRACTING = {
    "replace": "replace replaces replaced replacing",
    "retire": "retire retires retired retiring",
    "sunset": "sunset sunsets sunsetted sunsetting",
    "deprecate": "deprecate deprecates deprecated deprecating",
    "decommission": "decommission decommissions decommissioned decommissioning",
    "drop": "drop drops dropped dropping",
    "remove": "remove removes removed removing",
    "abandon": "abandon abandons abandoned abandoning",
    "ditch": "ditch ditches ditched ditching",
    "leave": "leave leaves left leaving",
    "quit": "quit quits quitting",
    "swap": "swap swaps swapped swapping",
    "scrap": "scrap scraps scrapped scrapping",
    "rip": "rip rips ripped ripping",
    "supersede": "supersede supersedes superseded superseding",
    "delete": "delete deletes deleted deleting",
    "discontinue": "discontinue discontinues discontinued discontinuing",
    "uninstall": "uninstall uninstalls uninstalled uninstalling",
    "purge": "purge purges purged purging",
    "rename": "rename renames renamed renaming",  # the old name is gone: "renamed X to Y"
    "phase": "phase phases phased phasing",  # with "out" only
    "shut": "shut shuts shutting",  # with "down" only
}
_NEEDS_PARTICLE = {"phase": "out", "shut": "down"}
# Verbs that retract only with a particle of leaving: "moved off X", "switched the queue from X".
_MOTION = {
    "move": "move moves moved moving",
    "migrate": "migrate migrates migrated migrating",
    "switch": "switch switches switched switching",
    "shift": "shift shifts shifted shifting",
    "transition": "transition transitions transitioned transitioning",
    "port": "port ports ported porting",
}
_PARTICLES = (("away", "from"), ("out", "of"), ("off",), ("from",))
# "stopped using X", "no longer relies on X": the verb that follows, and its preposition.
_STOPPING = frozenset("stop stops stopped stopping cease ceased".split())
_USING = frozenset("""use uses used using rely relies relied relying depend depends depended depending
    run runs ran running need needs needed needing""".split())
_BE = frozenset("is are was were be been being got gets get has have had".split())
_PERFECT = frozenset("has have had".split())  # before a participle: active ("has replaced X")
_NAMED = frozenset("known as called named".split())  # "formerly known as X": the old name follows
# Before the verb in its clause: the retraction is denied, planned, wished or asked.
_NOT_DONE = frozenset("""not never no t didn don doesn won wouldn shouldn isn wasn aren weren hasn haven
    plan plans planning planned going want wants wanted will would should could might may must
    need needs consider considers considering considered evaluate evaluating propose proposes
    proposed proposal maybe perhaps possibly if when once whether unless until next todo tbd try tries
    trying tried attempt attempts attempting attempted start starts started starting begin
    begins began beginning begun""".split())
_CLAUSE_BREAKS = frozenset(". ! , ; : ( ) -> and but because since while although though so then".split())
# A word (dots only inside it: "7.2", "next.js"), or a mark that ends or splits a clause.
# A word's letters: ASCII, and the accented Latin, Greek and Cyrillic letters of languages
# written with spaces ("tâche" is one word, not "t" and "che"); ideographs are read elsewhere.
_LETTER = "a-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u0370-\u03ff\u0400-\u04ff\u1e00-\u1eff"
_TOKEN = re.compile(rf"[{_LETTER}](?:[{_LETTER}_+#-]|\.(?=[{_LETTER}]))*|->|[.!,;:?()]")
_FORMS = {form: lemma for lemma, forms in {**_RETRACTING, **_MOTION}.items() for form in forms.split()}


class Read(NamedTuple):
    """What the reader decided: `trigger` and `tokens` of the object (before or after it), or
    `trigger` None for a clause whose retracting verb is denied, planned or asked. `subject`:
    what the clause says did the leaving ("the billing service moved off X", "moved the queue
    off X"), when it names one; empty for "we", "I", a bare verb or the passive."""

    trigger: str | None
    words: tuple[str, ...]
    backward: bool
    subject: tuple[str, ...] = ()


def tokens(folded: str) -> list[str]:
    return _TOKEN.findall(folded)


def read_retraction(folded: str) -> Read | None:
    """The first retraction of an ASCII clause, lower-cased: None when it holds no retracting
    verb (undecided), a Read whose trigger is None when its verb retracts nothing."""
    words = tokens(folded)
    question = "?" in words
    for at, word in enumerate(words):
        found = _at(words, at, word)
        if found is None:
            continue
        trigger, start, end, backward = found
        # "is being replaced": under way, not done
        if question or _qualified(words, start) or "being" in words[start:end]:
            return Read(None, (), backward)
        if backward:
            return Read(trigger, tuple(_before(words, start)), True)
        if _FORMS.get(words[at]) == "leave" and _kept(words, end):
            return Read(None, (), False)  # "left X alone": kept as it is
        subject = _subject(words, at, start, end)
        return Read(trigger, tuple(_object(words, end)), False, tuple(w for w in subject if w not in _NOT_SUBJECT))
    return None


# Words of a clause's subject that name no thing: pronouns, articles, adverbs of time.
_NOT_SUBJECT = frozenset("""we i you they he she it our my their its the a an this that these those team
    also then finally now today recently already have has had""".split())


# What "leave X …" ends with when X stays: "left X alone", "leaving X intact", "leave X in place".
_KEPT = frozenset("alone intact unchanged untouched place".split())
_KEPT_REACH = 12  # words of the object the idiom may close, an aside in commas included


def _object(words: list[str], end: int) -> list[str]:
    """What a verb retracts, after it: up to an arrow ("Replaced: X -> Y"), past a colon that
    labels it, and without the particle that follows it ("swapped X out for Y")."""
    start = end + (words[end : end + 1] == [":"])
    stop = next((i for i in range(start, len(words)) if words[i] in _AFTER_OBJECT), len(words))
    return words[start:stop]


def _subject(words: list[str], at: int, start: int, end: int) -> list[str]:
    """What did the leaving, when the clause names it ("the billing service moved off X",
    "moved the queue off X"). No subject where it is what replaces the object ("Y supersedes
    X", "Y replaces X", "Y has replaced X", but not "the queue replaced X with Y") or where a
    form of "was" recalls the object ("switched to Y (was X)")."""
    word = words[at]
    if word in _REPLACING or word in _RECALLING:
        return []
    if _FORMS.get(word) == "replace" and not _with_after(words, end):
        return []  # "Y (has) replaced X": Y is what replaces; "the queue replaced X with Y" is left
    return _before(words, start) + _moved(words, at, end)


def _with_after(words: list[str], end: int) -> bool:
    """Whether the clause goes on to name what replaces its object ("replaced X with Y")."""
    for word in words[end:]:
        if word in _CLAUSE_BREAKS:
            return False
        if word in ("with", "by"):
            return True
    return False


# A word that ends what a verb retracts: an arrow to what replaced it, or a particle after it.
_AFTER_OBJECT = frozenset({"->", "out", "down"})
# Forms whose subject is what replaced the object, not what left it.
_REPLACING = frozenset({"supersedes", "superseded", "supersede", "replaces"})
# "(was X)", "(previously X)": the object is what the subject was before.
_RECALLING = frozenset({"was", "previously", "originally"})
# After a participle with no form of "be" before it, a word that makes it a passive:
# "Redis removed from the stack", "Redis dropped in favour of Y", "Redis deprecated."
_PASSIVE_AFTER = frozenset("from in by for as on after . ; , : ) ->".split())
_PRONOUNS = frozenset("we i you they he she it".split())


def _kept(words: list[str], end: int) -> bool:
    for at in range(end, min(len(words), end + _KEPT_REACH)):
        if words[at] in _CLAUSE_BREAKS and words[at] != ",":
            return False
        if words[at] in _KEPT or words[at] == "is" and words[at - 1] == "as":
            return True
    return False


def _moved(words: list[str], at: int, end: int) -> list[str]:
    """The object of a motion verb before its particle: "moved the queue off X" moved the queue."""
    if _FORMS.get(words[at]) not in _MOTION:
        return []
    return [w for w in words[at + 1 : end] if w not in ("off", "from", "away", "out", "of")]


def _at(words: list[str], at: int, word: str) -> tuple[str, int, int, bool] | None:
    """(trigger, first and past-last index of the verb group, backward) for a retracting verb
    group starting at `at`."""
    if word == "no" and words[at + 1 : at + 2] == ["longer"]:
        return _no_longer(words, at)
    if word in _STOPPING and words[at + 1 : at + 2] and words[at + 1] in _USING:
        end = at + 2 + (words[at + 2 : at + 3] in (["on"], ["in"]))
        return f"{word} {words[at + 1]}", at, end, False
    if word in ("got", "get", "gets", "getting") and words[at + 1 : at + 3] == ["rid", "of"]:
        return "got rid of", at, at + 3, False
    if word == "gone" and at and words[at - 1] in _BE:  # "Redis is gone"
        return f"{words[at - 1]} gone", at - 1, at + 1, True
    if word == "no" and words[at + 1 : at + 2] == ["more"] and words[at + 2 : at + 3] != ["than"]:
        return "no more", at, at + 2, False  # "No more Redis", not "no more than 5"
    opened = at > 0 and words[at - 1] == "("  # "switched the queue to Y (was X)", "(previously X)"
    if word == "formerly" or word in _RECALLING and (
            opened or word == "previously" and words[at + 1 : at + 2] and words[at + 1] in _NAMED):
        end = at + 1  # "Time tab (formerly Game)", "formerly known as X", "previously called X"
        while end < len(words) and words[end] in _NAMED:
            end += 1
        return word, at, end, False
    lemma = _FORMS.get(word)
    if lemma is None:
        return None
    if lemma in _NEEDS_PARTICLE and words[at + 1 : at + 2] != [_NEEDS_PARTICLE[lemma]]:
        return None  # "phased rollout", "shut the door"
    passive = _passive(words, at)
    if lemma in _MOTION:
        particle = _particle(words, at + 1)
        if particle is None:
            return None  # "moved to Y" states where it is now
        return f"{word} {' '.join(words[particle[0]:particle[1]])}", at, particle[1], False
    if lemma == "rename" and words[at + 1 : at + 2] == ["from"]:  # "(was) renamed from X to Y"
        return f"{word} from", at, at + 2, False
    end = at + 1 + (words[at + 1 : at + 2] in (["out"], ["down"]))
    if passive is not None or words[end : end + 1] == ["by"]:  # "X (was) replaced by Y"
        return f"was {word}", at if passive is None else passive, end, True
    if _reduced_passive(words, at, end):  # "Redis removed from the stack"
        return f"was {word}", at, end, True
    return word, at, end, False


def _reduced_passive(words: list[str], at: int, end: int) -> bool:
    """A participle with no form of "be" that follows what it retracts and is followed by no
    object of its own: "Redis removed from the stack", "Redis deprecated." (but "We removed
    Redis", "Removed Redis")."""
    if not words[at].endswith("ed") or (end < len(words) and words[end] not in _PASSIVE_AFTER):
        return False
    before = _before(words, at)
    return bool(before) and before[0] not in _PRONOUNS and not _FORMS.get(before[-1])


def _no_longer(words: list[str], at: int) -> tuple[str, int, int, bool]:
    """"no longer uses X" (the object after the verb), "X is no longer used" (before)."""
    start = at - 1 if at and words[at - 1] in _BE else at
    after = words[at + 2 : at + 3]
    if start < at or (after and after[0] in ("used", "needed", "supported", "in")):
        return "no longer", start, at + 2, True
    end = at + 2 + bool(after and after[0] in _USING)
    end += words[end : end + 1] in (["on"], ["in"])
    return "no longer", at, end, False


def _passive(words: list[str], at: int) -> int | None:
    """Where the passive group starts ("was", "has been", "got") before a participle, or None."""
    back = at - 1
    while back >= 0 and words[back] in ("then", "also", "finally", "since", "now", "just", "fully"):
        back -= 1
    if back < 0 or words[back] not in _BE or words[back] in _PERFECT:
        return None  # "Y has replaced X": the perfect of an active verb, its object after it
    while back > 0 and words[back - 1] in _BE:
        back -= 1
    return back


def _particle(words: list[str], start: int) -> tuple[int, int] | None:
    """The particle of leaving within a few words after a motion verb (its own object between)."""
    for at in range(start, min(start + 5, len(words))):
        if words[at] in _CLAUSE_BREAKS or words[at] == "to":
            return None
        for particle in _PARTICLES:
            if tuple(words[at : at + len(particle)]) == particle:
                return at, at + len(particle)
    return None


def qualified(text: str) -> bool:
    """A negation, plan, wish or condition in the last clause of the text: what comes after it
    ("… not complete", "… planned to be done") is not asserted."""
    words = _TOKEN.findall(text.casefold())
    return _qualified(words, len(words))


def _qualified(words: list[str], start: int) -> bool:
    """A negation, plan, wish or condition in the clause before the verb group."""
    at = start - 1
    while at >= 0 and words[at] not in _CLAUSE_BREAKS:
        if words[at] in _NOT_DONE:
            return True
        at -= 1
    return False


def _before(words: list[str], start: int) -> list[str]:
    """The clause's words before the verb group, nearest last."""
    at = start
    while at > 0 and words[at - 1] not in _CLAUSE_BREAKS:
        at -= 1
    return words[at:start]
