"""Reliability weights from a `--registry` file: the seed's YAML subset, read without PyYAML.

Accepted lines (comments with `#`, blank lines and a leading `---` are ignored)::

    cues.verified: 1.0          # flat, dotted
    class.unclassified: 0.2
    fidelity:                   # or one level of nesting
      PARTIAL: 0.8

Every other line is a usage error naming the file and the line: a silently ignored weight
would change verdicts without anyone noticing.
"""

from __future__ import annotations

import re
from pathlib import Path

from memory_autopsy.errors import UsageError
from memory_autopsy.settings import Settings
from memory_autopsy.verdict import Weights

GROUPS = ("cues", "class", "fidelity")
CLASSES = ("primary", "secondary", "unclassified")
BANDS = ("FULL", "PARTIAL", "RESIDUAL")

_LINE = re.compile(r"^(?P<indent>[ ]*)(?P<key>[^:#]+?)\s*:\s*(?P<value>[^#]*?)\s*(?:#.*)?$")


def load_weights(settings: Settings, registry: str | None = None) -> Weights:
    """Defaults, overlaid by the rule file's weights, overlaid by the registry file."""
    flat = dict(settings.weights)
    if registry:
        flat.update(read_registry(registry))
    return Weights.build(flat)


def read_registry(path: str) -> dict[str, float]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--registry {path}: cannot read: {error}") from error
    return parse_registry(text, path)


def parse_registry(text: str, name: str = "registry") -> dict[str, float]:
    weights: dict[str, float] = {}
    group: str | None = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#") or line.strip() == "---":
            continue
        match = _LINE.match(line.replace("\t", "    "))
        if match is None:
            raise UsageError(f"{name}:{number}: expected `key: weight`, got {raw.strip()!r}")
        key, value, nested = _unquote(match["key"]), match["value"], bool(match["indent"])
        if not value:
            group = _group_header(key, nested, name, number)
            continue
        if nested and group is None:
            raise UsageError(f"{name}:{number}: indented line outside a group: {raw.strip()!r}")
        full = f"{group}.{key}" if nested else key
        if not nested:
            group = None
        weights[_checked_key(full, name, number)] = _weight(value, name, number)
    return weights


def _group_header(key: str, nested: bool, name: str, number: int) -> str:
    if nested or key not in GROUPS:
        raise UsageError(f"{name}:{number}: unknown group {key!r} (expected one of {', '.join(GROUPS)})")
    return key


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _checked_key(key: str, name: str, number: int) -> str:
    group, _, word = key.partition(".")
    if group == "cues" and word and "." not in word:
        return f"cues.{word.lower()}"
    if group == "class" and word.lower() in CLASSES:
        return f"class.{word.lower()}"
    if group == "fidelity" and word.upper() in BANDS:
        return f"fidelity.{word.upper()}"
    raise UsageError(
        f"{name}:{number}: unknown key {key!r} (expected cues.<word>, "
        "class.<primary|secondary|unclassified> or fidelity.<FULL|PARTIAL|RESIDUAL>)"
    )


def _weight(text: str, name: str, number: int) -> float:
    try:
        weight = float(_unquote(text))
    except ValueError:
        raise UsageError(f"{name}:{number}: weight {text!r} is not a number") from None
    if not 0.0 <= weight <= 1.0:
        raise UsageError(f"{name}:{number}: weight {weight} is outside 0..1")
    return weight
