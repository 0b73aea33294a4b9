"""YAML front matter: only the flat keys that set a file's defaults are read."""

from __future__ import annotations

import re

_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:\s*(?P<value>.*?)\s*$")


def read_front_matter(lines: list[str]) -> tuple[dict[str, str], int]:
    """Return (flat scalar keys, index of the first body line)."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    meta: dict[str, str] = {}
    for index in range(1, min(len(lines), 200)):
        line = lines[index]
        if line.strip() in ("---", "..."):
            return meta, index + 1
        match = _KEY.match(line)
        if match and not line.startswith((" ", "\t")):
            meta[match["key"].lower()] = match["value"].strip().strip("\"'")
    return {}, 0
