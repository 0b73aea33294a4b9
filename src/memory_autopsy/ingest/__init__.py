"""Ingest: every input shape becomes the canonical fact model (SPEC sections 2 and 3).

The entry point is `memory_autopsy.api.load_store`.
"""
