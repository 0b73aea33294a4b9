"""Reliability weights from a `--registry` file: a YAML mapping, read with PyYAML.

Accepted shapes (comments, blank lines and a leading `---` are YAML's own)::

    cues.verified: 1.0          # flat, dotted
    class.unclassified: 0.2
    fidelity:                   # or one level of nesting
      PARTIAL: 0.8

Every other key or value is a usage error naming the file and the line: a silently ignored
weight would change verdicts without anyone noticing.
"""

from __future__ import annotations

from pathlib import Path

from memory_autopsy.errors import UsageError
from memory_autopsy.settings import Settings
from memory_autopsy.verdicts.verdict import Weights

GROUPS = ("cues", "class", "fidelity")
CLASSES = ("primary", "secondary", "unclassified")
BANDS = ("FULL", "PARTIAL", "RESIDUAL")

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
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise UsageError(f"{name}:{line}: not YAML: {error.problem or error}") from None
    except yaml.YAMLError as error:
        raise UsageError(f"{name}:1: not YAML: {error}") from None
    if root is None:
        return {}
    if not isinstance(root, yaml.MappingNode):
        raise UsageError(f"{name}:{_line(root)}: expected `key: weight`, got {_text(root)!r}")
    weights: dict[str, float] = {}
    for key, value in root.value:
        word = _text(key)
        if isinstance(value, yaml.MappingNode):
            group = _group_header(word, False, name, _line(key))
            for inner, weight in value.value:
                full = f"{group}.{_text(inner)}"
                weights[_checked_key(full, name, _line(inner))] = _weight(weight, name)
        else:
            weights[_checked_key(word, name, _line(key))] = _weight(value, name)
    return weights


def _line(node: object) -> int:
    mark = getattr(node, "start_mark", None)
    return mark.line + 1 if mark is not None else 1


def _text(node: object) -> str:
    value = getattr(node, "value", "")
    return value if isinstance(value, str) else "(a list or mapping)"


def _group_header(key: str, nested: bool, name: str, number: int) -> str:
    if nested or key not in GROUPS:
        raise UsageError(f"{name}:{number}: unknown group {key!r} (expected one of {', '.join(GROUPS)})")
    return key


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


def _weight(node: object, name: str) -> float:
    text, number = _text(node), _line(node)
    try:
        weight = float(text)
    except ValueError:
        raise UsageError(f"{name}:{number}: weight {text!r} is not a number") from None
    if not 0.0 <= weight <= 1.0:
        raise UsageError(f"{name}:{number}: weight {weight} is outside 0..1")
    return weight
