"""A sentence ends at its stop even where something closes after the stop: bold ("**Never push
to staging.** The deploy …"), italics ("_Commit after each change._ _Directive: …_"), a
parenthesis, a quote. Before, the two sentences were read as one claim, so the second was
compared with nothing it restates elsewhere. Generated: every closer, in a paragraph's first
and middle sentence, through the API (the claims) and the CLI (a copy of the second sentence
under another heading is a duplicate). Look-alikes stay one sentence: an abbreviation, a
lower-case word after the closer, a code span, a decimal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli, write
from memory_autopsy.api import load_store

OPEN_CLOSE = {
    "bold": ("**", "**"),
    "bold underscores": ("__", "__"),
    "italics": ("_", "_"),
    "italics star": ("*", "*"),
    "parenthesis": ("(", ")"),
    "double quote": ('"', '"'),
    "single quote": ("'", "'"),
    "curly quote": ("\u201c", "\u201d"),
    "bold label": ("**Rule:** ", ""),
}
FIRST = "Never push to the staging remote."
SECOND = "The deploy pipeline publishes every tagged release from the main branch."
PLACES = {
    "first sentence": lambda closed: f"{closed} {SECOND}",
    "middle sentence": lambda closed: f"Releases are cut on Fridays. {closed} {SECOND}",
}
LOOK_ALIKES = {
    "an abbreviation": "Use a staging tool, e.g.** Foo** for the checks.",
    "a lower-case word": "**Never push to the staging remote.** then wait for review of the change.",
    "a code span": "Run `make release.** Then` to publish the tagged build.",
    "a decimal": "The budget is 2.5) Twelve reviewers sign the release.",
}


def _closed(name: str) -> str:
    opening, closing = OPEN_CLOSE[name]
    return f"{opening}{FIRST}{closing}" if closing else f"{opening}{FIRST}"


def _claims(tmp_path: Path, paragraph: str) -> list[str]:
    path = write(tmp_path / "notes.md", f"# Notes\n\n## Release\n\n{paragraph}\n")
    return [fact.claim for fact in load_store([str(path)]).facts]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("closer", OPEN_CLOSE)
def test_a_closed_sentence_ends_at_its_stop(tmp_path: Path, closer: str, place: str) -> None:
    claims = _claims(tmp_path, PLACES[place](_closed(closer)))
    assert SECOND in claims, claims
    assert not any(FIRST in claim and SECOND in claim for claim in claims), claims


@pytest.mark.parametrize("closer", OPEN_CLOSE)
def test_the_second_sentence_is_compared_on_its_own(tmp_path: Path, closer: str) -> None:
    write(tmp_path / "notes.md", (
        f"# Notes\n\n## Release\n\n{_closed(closer)} {SECOND}\n\n"
        f"## Deploy\n\n- {SECOND}\n"
    ))
    result = run_cli("scan", str(tmp_path), "--format", "json")
    found = [f for f in json.loads(result.out)["findings"] if f["rule"] in ("duplicate", "near_duplicate")]
    assert found, result.out


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_look_alikes_stay_one_sentence(tmp_path: Path, name: str) -> None:
    text = LOOK_ALIKES[name]
    claims = _claims(tmp_path, text)
    assert len([c for c in claims if c != "Release"]) == 1, claims
