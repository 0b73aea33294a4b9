"""What each memory system loads (its load budget and link rules), as data: `budgets.json`,
per dialect, overridden key by key by the rule file's `[reachability.<system>]` tables.

The override schema is derived from the data, not declared in code: the systems are those the
file lists, the keys are those any system uses, and a key's type is the type of its values."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

# system (a dialect name) -> key -> value; a key a system lacks means it has none of it.
Budgets = Mapping[str, Mapping[str, Any]]
OFF = "off"  # in an override: the system has none of this (no line limit, no index, ...)


@lru_cache(maxsize=1)
def default_budgets() -> Budgets:
    text = Path(__file__).with_name("budgets.json").read_text("utf-8")  # as in lexicon._load
    systems: dict[str, dict[str, Any]] = json.loads(text)["systems"]
    return _frozen({name: {k: v for k, v in keys.items() if not k.startswith("_")}
                    for name, keys in systems.items()})


@lru_cache(maxsize=1)
def key_types() -> Mapping[str, type]:
    """Every key a system uses, with the type of its values (int, str or list)."""
    types: dict[str, type] = {}
    for keys in default_budgets().values():
        for key, value in keys.items():
            types.setdefault(key, list if isinstance(value, tuple) else type(value))
    return MappingProxyType(dict(sorted(types.items())))


def overridden(base: Budgets, overrides: Mapping[str, Mapping[str, Any] | None]) -> Budgets:
    """`base` with the rule file's checked overrides: a value replaces the key, None removes it,
    and a system given as None loses every key (nothing of it is judged)."""
    merged = {name: dict(keys) for name, keys in base.items()}
    for name, keys in overrides.items():
        if keys is None:
            merged[name] = {}
            continue
        for key, value in keys.items():
            if value is None:
                merged[name].pop(key, None)
            else:
                merged[name][key] = value
    return _frozen(merged)


def _frozen(systems: Mapping[str, Mapping[str, Any]]) -> Budgets:
    def value(item: Any) -> Any:
        return tuple(str(v).lower() for v in item) if isinstance(item, (list, tuple)) else (
            item.lower() if isinstance(item, str) else item)

    return MappingProxyType({name: MappingProxyType({k: value(v) for k, v in keys.items()})
                             for name, keys in systems.items()})
