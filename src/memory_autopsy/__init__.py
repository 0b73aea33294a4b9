"""memory-autopsy: a linter for the facts an LLM agent keeps in memory files."""

__version__ = "0.5.0"
