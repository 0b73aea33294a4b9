from __future__ import annotations

from memory_autopsy.cli import entry

entry()
