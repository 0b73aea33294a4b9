"""memory-autopsy: a linter for the facts an LLM agent keeps in memory files."""

__version__ = "0.6.0"
SOURCE = "git+https://github.com/memory-autopsy/memory-autopsy"


def install_hint(extra: str) -> str:
    """How to install an extra: from this version's tag (the package is not on the index)."""
    return f'pip install "memory-autopsy[{extra}] @ {SOURCE}@v{__version__}"'
