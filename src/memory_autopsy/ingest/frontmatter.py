"""YAML front matter, read with PyYAML's safe loader."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MAX_LINES = 500

# What reads a front matter block's text into its mapping: `load_mapping`, or the parse cache's
# keeping of what it read (`ParseCache.front_matter`).
Loader = Callable[[str], dict[str, Any]]


def read_front_matter(lines: list[str], load: Loader | None = None) -> tuple[dict[str, Any], int]:
    """Return (the front matter mapping, index of the first body line).

    No front matter, or front matter that is not a YAML mapping, gives ({}, 0) when there is
    no closing fence, and ({}, end) when the block is closed but unreadable: the block is
    metadata either way, never memory."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for index in range(1, min(len(lines), MAX_LINES)):
        if lines[index].strip() in ("---", "..."):
            return (load or load_mapping)("\n".join(lines[1:index])), index + 1
    return {}, 0


def load_mapping(text: str) -> dict[str, Any]:
    """A front matter block's text as a mapping, its keys lower-cased ({} for anything else)."""
    import yaml  # only when a file has front matter: keeps the hook's start-up light

    # libyaml's parser where PyYAML was built with it (the same safe constructor, six to eight
    # times faster on real front matter), then PyYAML's own for text libyaml refuses (`"\ud800"`)
    loaders = (yaml.CSafeLoader, yaml.SafeLoader) if hasattr(yaml, "CSafeLoader") else (yaml.SafeLoader,)
    for loader in loaders:
        try:
            data = yaml.load(text, Loader=loader)  # a safe loader, C or Python
        except (yaml.YAMLError, RecursionError, ValueError):
            continue
        if not isinstance(data, dict):
            return {}
        return {str(k).lower(): v for k, v in data.items()}
    return {}


def scalar(meta: dict[str, Any], *keys: str) -> Any:
    """The first key present with a non-empty value; nested `metadata:` maps are looked into."""
    nested = meta.get("metadata")
    for key in keys:
        value = meta.get(key)
        if value in (None, "") and isinstance(nested, dict):
            value = nested.get(key)
        if value not in (None, ""):
            return value
    return None
