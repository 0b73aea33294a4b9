"""Layer 3: an embedding model proposes candidate pairs, the deterministic recheck decides.

The package is imported only when `--engine embed` is asked for; httpx is imported only when a
request is actually sent. See docs/embed.md.
"""
