"""Ingest: every input shape becomes the canonical fact model (SPEC sections 2 and 3)."""

from memory_autopsy.ingest.loader import load

__all__ = ["load"]
