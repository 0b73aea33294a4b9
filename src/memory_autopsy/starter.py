"""`memory-autopsy init`: the starter rule file; `init --full` prints the example that documents
every key (shipped in the package as memory-autopsy.toml.example)."""

from __future__ import annotations

import os

from memory_autopsy.config import CONFIG_NAME
from memory_autopsy.errors import UsageError

STARTER = """\
# memory-autopsy rule file. Every key is documented: `memory-autopsy init --full` prints them;
# an unknown key or a bad value is an error (exit 2) naming the key.

# Which files are memory, gitignore-style globs relative to this file's folder. Without
# include, the known memory locations (CLAUDE.md, AGENTS.md, memory-bank/, memory/, …) are.
# include = ["memory/**/*.md", "memory/**/*.jsonl", ".claude/**/*.md"]
exclude = ["README.md", "CHANGELOG.md", "docs/**", "node_modules/**", "package*.json"]

# The lowest severity that fails a run: info, review, warning (default), error, never.
fail-on = "warning"

# Accepted findings; `memory-autopsy baseline` writes it, scan/hook/ci fail only on new ones.
baseline = ".memory-autopsy-baseline.json"

[rules]
# Per rule: a severity (info, review, warning, error) or "off". See `memory-autopsy rules`.
unsourced = "off"
# likely_conflict = "warning"

[vocabulary]
# Site-specific words the engine should know.
transitions = []          # more retraction words, e.g. "offboarded from"
anchors = {}              # prose verb frame -> slot, e.g. { "is built with" = "uses" }
synonyms = {}             # value spelling -> canonical, e.g. { "pg15" = "postgresql 15" }

[staleness]
# Flag uncorroborated facts older than this many days (rule `aged`; off when unset).
# max-age-days = 365
"""


def write_starter(path: str, *, force: bool) -> str:
    """Write the starter file; returns where. A folder (existing, or named with a trailing `/`)
    gets `memory-autopsy.toml` inside it; missing folders are created, as `-o FILE` does."""
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        path = os.path.join(path, CONFIG_NAME)
    if os.path.lexists(path) and not force:
        raise UsageError(f"{path} already exists (use --force to overwrite it)")
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory")
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(STARTER)
    except OSError as error:
        raise UsageError(f"{path}: cannot write: {error.strerror or error}") from None
    return path


def full_example() -> str:
    """The rule file with every key, commented, as the package ships it."""
    from importlib import resources

    return resources.files(__package__).joinpath("memory-autopsy.toml.example").read_text("utf-8")
