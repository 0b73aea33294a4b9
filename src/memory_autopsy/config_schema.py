"""The rule file's schema: every key, its type and its check, declared once.

Checks raise `BadValue`; `validate` turns it into a ConfigError that names the file and the key.
An unknown key is an error, never ignored: a typo must not silently weaken a CI gate.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Callable, Mapping
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.errors import ConfigError
from memory_autopsy.model import HISTORY, Severity
from memory_autopsy.rules import BY_ID, suggestion

Check = Callable[[Any], Any]

SEVERITIES = tuple(s.value for s in Severity)
SOURCE_CLASSES = ("primary", "secondary", "unclassified")
FIDELITIES = ("FULL", "PARTIAL", "RESIDUAL")
_ENV_NAME = lazyre.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# About a thousand years: far past any memory, and `today - limit` stays inside the calendar.
MAX_AGE_DAYS = 365_000
# The deepest a weight key goes (`cues.<word>`): deeper dotted keys are refused, not walked.
WEIGHT_DEPTH = 2


class BadValue(ValueError):
    """A value that fails its check; `key` is filled in on the way up."""

    def __init__(self, problem: str, key: str = "") -> None:
        super().__init__(problem)
        self.problem = problem
        self.key = key


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60


def _got(value: Any) -> str:
    """The offending value, cut short: a rule file value may be huge or nested 5,000 deep."""
    return f"got {_SHORT.repr(value)} ({type(value).__name__})"


def text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadValue(f"expected a non-empty string, {_got(value)}")
    return value


def text_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise BadValue(f"expected a list of strings, {_got(value)}")
    return tuple(text(item) for item in value)


def store_groups(value: Any) -> tuple[tuple[str, ...], ...]:
    """`[["memory-bank/**", "notes/**"]]`: each inner list of globs is compared as one store."""
    if not isinstance(value, list) or not all(isinstance(group, list) and group for group in value):
        raise BadValue(f"expected a list of non-empty lists of globs, {_got(value)}")
    return tuple(text_list(group) for group in value)


def text_map(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise BadValue(f"expected a table of strings, {_got(value)}")
    return {text(k): text(v) for k, v in value.items()}


def choice(*allowed: str) -> Check:
    def check(value: Any) -> str:
        if not isinstance(value, str) or value.strip().lower() not in allowed:
            raise BadValue(f"expected one of {', '.join(allowed)}, {_got(value)}")
        return value.strip().lower()

    return check


def severity_or_off(value: Any) -> Severity | None:
    if isinstance(value, dict):
        unknown = set(value) - {"severity"}
        if unknown:
            raise BadValue(f"unknown key {min(unknown)!r} (a rule table takes only 'severity')")
        if "severity" not in value:
            raise BadValue("a rule table needs a 'severity' key")
        value = value["severity"]
    word = choice(*SEVERITIES, "warn", "off")(value)
    return None if word == "off" else Severity.parse(word)


def fail_on(value: Any) -> Severity | None:
    word = choice(*SEVERITIES, "never")(value)
    return None if word == "never" else Severity.parse(word)


def whole(minimum: int, maximum: int | None = None) -> Check:
    def check(value: Any) -> int:
        too_big = maximum is not None and isinstance(value, int) and value > maximum
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum or too_big:
            upper = f" and <= {maximum}" if maximum is not None else ""
            raise BadValue(f"expected a whole number >= {minimum}{upper}, {_got(value)}")
        return value

    return check


def positive_number(value: Any) -> float:
    """A finite number > 0: TOML's `inf` and `nan` would disable a timeout or compare false."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 \
            or not math.isfinite(value):
        raise BadValue(f"expected a finite number > 0, {_got(value)}")
    return float(value)


def url(value: Any) -> str:
    address = text(value)
    if not address.startswith(("http://", "https://")):
        raise BadValue(f"expected an http:// or https:// URL, {_got(address)}")
    return address


def env_name(value: Any) -> str:
    if not isinstance(value, str) or not _ENV_NAME.match(value):
        raise BadValue(f"expected the NAME of an environment variable (the key itself never goes "
                       f"in the rule file), {_got(value)}")
    return value


WEIGHT_KEYS = ("expected cues.<word>, class.<primary|secondary|unclassified> or "
               "fidelity.<FULL|PARTIAL|RESIDUAL>")


def weight_key(key: str) -> str:
    group, _, name = key.partition(".")
    if group == "cues" and name and "." not in name:
        return key
    if group == "class" and name in SOURCE_CLASSES:
        return key
    if group == "fidelity" and name in FIDELITIES:
        return key
    raise BadValue(WEIGHT_KEYS, key)


def weights(value: Any) -> dict[str, float]:
    """A flat table (`"cues.verified" = 1.0`); dotted bare keys arrive nested and are flattened."""
    if not isinstance(value, dict):
        raise BadValue(f"expected a table of weights, {_got(value)}")
    flat: dict[str, float] = {}
    for key, weight in _flatten(value):
        weight_key(key)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight <= 1:
            raise BadValue(f"expected a weight between 0 and 1, {_got(weight)}", key)
        flat[key] = float(weight)
    return dict(sorted(flat.items()))


def _flatten(table: Mapping[str, Any], prefix: str = "", depth: int = 1) -> list[tuple[str, Any]]:
    items: list[tuple[str, Any]] = []
    for key, value in table.items():
        name = f"{prefix}{key}"
        if not isinstance(value, dict):
            items.append((name, value))
        elif depth >= WEIGHT_DEPTH:  # no weight key is deeper: refuse, never walk 5,000 levels
            raise BadValue(WEIGHT_KEYS, name)
        else:
            items += _flatten(value, name + ".", depth + 1)
    return items


def rules_table(value: Any) -> dict[str, Severity | None]:
    if not isinstance(value, dict):
        raise BadValue(f"expected a table of rule = severity, {_got(value)}")
    result: dict[str, Severity | None] = {}
    for rule, setting in value.items():
        rule_id = rule.replace("-", "_")
        if rule_id not in BY_ID:
            raise BadValue(f"unknown rule{suggestion(rule)} (see `memory-autopsy rules`)", rule)
        try:
            result[rule_id] = severity_or_off(setting)
        except BadValue as error:
            raise BadValue(error.problem, rule) from None
    return result


_STATUSES = ("done", "pending", "in_progress", "blocked")


def status_words(value: Any) -> dict[str, tuple[str, ...]]:
    """`{ done = ["erledigt"], pending = ["offen"] }`: status words in another language."""
    if not isinstance(value, dict):
        raise BadValue(f"expected a table of status = [words], {_got(value)}")
    for status in value:
        if status not in _STATUSES:
            raise BadValue(f"unknown status; expected one of {', '.join(_STATUSES)}", str(status))
    return {status: text_list(words) for status, words in value.items()}


def section_kinds(value: Any) -> dict[str, str]:
    """`{ "Nächste Schritte" = "pending", "Begründung" = "" }`: generic headings and the status
    they give what they hold ("" for a neutral kind)."""
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise BadValue(f"expected a table of heading = status, {_got(value)}")
    kinds = {text(k): v.strip() for k, v in value.items()}
    for heading, status in kinds.items():
        if status not in _STATUSES + ("", HISTORY):
            raise BadValue(f"expected one of {', '.join(_STATUSES)}, {HISTORY} or \"\"", heading)
    return kinds


def reachability(value: Any) -> dict[str, dict[str, Any] | None]:
    """`[reachability.<system>]` tables over lexicon/budgets.json: its systems, its keys, the type
    of its values; "off" removes a key (None), a system set to "off" loses them all."""
    from memory_autopsy.lexicon.budgets import OFF, default_budgets, key_types

    if not isinstance(value, dict):
        raise BadValue(f"expected a table per memory system ([reachability.claude-code]), {_got(value)}")
    systems, types = default_budgets(), key_types()
    checked: dict[str, dict[str, Any] | None] = {}
    for name, keys in value.items():
        if name not in systems:
            raise BadValue(f"unknown memory system; expected one of {', '.join(systems)} "
                           "(the systems of lexicon/budgets.json)", name)
        if keys == OFF:
            checked[name] = None
            continue
        if not isinstance(keys, dict):
            raise BadValue(f'expected a table of budget keys or "off", {_got(keys)}', name)
        override = {key: _budget_value(types, key, setting, name) for key, setting in keys.items()}
        _needs_index(systems[name], override, name)
        checked[name] = override
    return checked


def _budget_value(types: Mapping[str, type], key: str, value: Any, system: str) -> Any:
    if key not in types:
        raise BadValue(f"unknown key; expected one of {', '.join(types)}", f"{system}.{key}")
    if value == "off":
        return None
    check: Check = whole(1) if types[key] is int else text_list if types[key] is list else text
    try:
        return check(value)
    except BadValue as error:
        raise BadValue(f'{error.problem} (or "off")', f"{system}.{key}") from None


def _needs_index(default: Mapping[str, Any], override: Mapping[str, Any], system: str) -> None:
    """A line or byte budget limits the index: without one it would silently do nothing."""
    merged = {**default, **override}
    for key in ("max-lines", "max-bytes"):
        if merged.get(key) is not None and not merged.get("index"):
            raise BadValue(f'{key} limits an index file and {system} has none (set index, or {key} = "off")',
                           f"{system}.{key}")


VOCABULARY: dict[str, Check] = {
    "transitions": text_list, "anchors": text_map, "synonyms": text_map,
    "status-words": status_words, "section-kinds": section_kinds,
}
STALENESS: dict[str, Check] = {"max-age-days": whole(0, MAX_AGE_DAYS)}
EMBED: dict[str, Check] = {
    "provider": choice("static", "ollama", "openai"),
    "url": url,
    "model": text,
    "api-key-env": env_name,
    "timeout": positive_number,
    "batch-size": whole(1),
    "cache-dir": text,
}


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadValue(f"expected true or false, {_got(value)}")
    return value


def section(schema: dict[str, Check]) -> Check:
    def check(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise BadValue(f"expected a table, {_got(value)}")
        return check_table(value, schema)

    return check


TOP: dict[str, Check] = {
    "include": text_list,
    "exclude": text_list,
    "fail-on": fail_on,
    "engine": choice("heuristic", "embed"),
    "baseline": text,
    "rules": rules_table,
    "vocabulary": section(VOCABULARY),
    "staleness": section(STALENESS),
    "embed": section(EMBED),
    "weights": weights,
    "reachability": reachability,
    "stores": store_groups,
    "grounding": boolean,
}
SECTIONS = {"vocabulary": VOCABULARY, "staleness": STALENESS, "embed": EMBED}


def check_table(data: Mapping[str, Any], schema: Mapping[str, Check]) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for key, value in data.items():
        if key not in schema:
            hint = " (name an environment variable with api-key-env)" if key == "api-key" else ""
            raise BadValue(f"unknown key; expected one of {', '.join(schema)}{hint}", key)
        try:
            checked[key] = schema[key](value)
        except BadValue as error:
            raise BadValue(error.problem, f"{key}.{error.key}" if error.key else key) from None
    return checked


def validate(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The checked rule file; a ConfigError naming `where` and the dotted key otherwise."""
    try:
        return check_table(data, TOP)
    except BadValue as error:
        raise ConfigError(f"{where}: {error.key}: {error.problem}") from None


def documented_keys() -> list[str]:
    """Every key the schema knows, dotted (used to prove the example documents them all)."""
    keys = [k for k in TOP if k not in SECTIONS]
    keys += [f"{name}.{key}" for name, table in SECTIONS.items() for key in table]
    return keys
