"""The text format names a finding's other side unless the message already does: the test
`path:line`, not followed by a digit, matches what the pattern it replaced matched."""

from __future__ import annotations

import re

import pytest

from memory_autopsy.formatters import text
from memory_autopsy.model import Location

MESSAGES = [
    "", "see a.md:12", "see a.md:123", "a.md:12", "a.md:1", "a.md:120 then a.md:12 too",
    "a.md:123 and a.md:124", "xa.md:12.", "a.md:12\u0663",  # an Arabic-Indic digit: a decimal digit
    "a.md:12\u00b2",  # a superscript two: a digit, but not a decimal one
    "a.md:12a.md:12", "a.md:1212", "a.md:12\n", "b.md:12", "a.md: 12",
]


@pytest.mark.parametrize("message", MESSAGES)
def test_a_side_is_named_as_the_pattern_named_it(message: str) -> None:
    side = Location("a.md", 12)
    expected = re.search(re.escape("a.md:12") + r"(?!\d)", message) is not None
    assert text._mentions(message, side) is expected
