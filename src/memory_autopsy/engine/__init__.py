"""The layered engine: takes a Store and Settings, returns a Report. Knows no CLI or format."""

from memory_autopsy.engine.run import lint_store

__all__ = ["lint_store"]
