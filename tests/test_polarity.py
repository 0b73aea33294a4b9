"""A claim and its denial are two claims, never one stored twice: "Workers do not read the shared
cache" beside "Workers read the shared cache" is no `near_duplicate`, by the words (layer 1) or
by meaning (the static engine). A negation bears on a verb and its object; one that bears on
what the other side does not say adds a point and flips nothing ("Never install the xl-ai
package: it is GPL-3.0" / "The xl-ai package is GPL-3.0"), nor does one the other side says
is not done either ("Never use magic numbers" / "Use constants instead of magic numbers")."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_autopsy.api import lint
from memory_autopsy.settings import EmbedSettings, Settings
from pair_shapes import SHAPES

DENIALS = {
    "do not": ("Workers do not read the shared cache directly", "Workers read the shared cache directly"),
    "never ... without": ("Never push release branches to main without a review",
                          "Push release branches to main after a review"),
    "contracted, passive": ("Failed uploads aren't retried by the sync worker",
                            "Failed uploads are retried by the sync worker"),
    "cannot": ("The nightly export job cannot write to the reports bucket",
               "The nightly export job writes to the reports bucket"),
    "no longer": ("The billing service no longer stores invoices in the shared bucket",
                  "The billing service stores invoices in the shared bucket"),
}

# One side negates something the other does not say: the rest is one claim said twice.
ADDED = {
    "a prohibition beside a fact": ("Never install the xl-ai editor package: it is GPL-3.0 and requires a commercial license",
                                    "The xl-ai editor package is GPL-3.0 and requires a commercial license"),
    "a second sentence": ("Migrations run with prisma migrate dev for local schema changes. Do not edit the generated SQL by hand",
                          "Run prisma migrate dev for local schema changes"),
}
# One side says, with "instead of", what the other's negation forbids.
INSTEAD = ("Never use magic numbers in handlers, always use the HTTP status constants",
           "Always use the HTTP status constants in handlers instead of magic numbers")


def _engine(name: str, cache: Path) -> Settings:
    return Settings() if name == "heuristic" else Settings(
        engine="embed", embed=EmbedSettings(provider="static", cache_dir=str(cache)))


def duplicates(paths: list[str], engine: str, cache: Path) -> list[str]:
    report = lint(paths, _engine(engine, cache))
    assert not [f for f in report.findings if f.rule == "degraded"], report.findings
    return [f.rule for f in report.findings if f.rule in ("near_duplicate", "exact_duplicate", "likely_conflict")]


@pytest.mark.parametrize("engine", ["heuristic", "static"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", DENIALS)
def test_a_claim_beside_its_denial_is_no_restatement(tmp_path: Path, engine: str, shape: str, case: str) -> None:
    assert duplicates(SHAPES[shape](tmp_path, *DENIALS[case]), engine, tmp_path / "cache") == []


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", ADDED)
def test_a_negation_of_what_the_other_side_does_not_say_flips_nothing(tmp_path: Path, shape: str, case: str) -> None:
    assert duplicates(SHAPES[shape](tmp_path, *ADDED[case]), "static", tmp_path / "cache") == ["near_duplicate"]


@pytest.mark.parametrize(("engine", "shape"), [("heuristic", "two headings of one file"), ("heuristic", "one graph entity"),
                                               *(("static", shape) for shape in SHAPES)])
def test_what_one_side_forbids_the_other_says_it_uses_instead(tmp_path: Path, engine: str, shape: str) -> None:
    assert duplicates(SHAPES[shape](tmp_path, *INSTEAD), engine, tmp_path / "cache") == ["near_duplicate"]
