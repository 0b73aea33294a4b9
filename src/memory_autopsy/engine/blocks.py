"""Layer 1: a block of three or more facts pasted into another section or file is one
`duplicate` for the block, not one per line.

Each fact's normalized claim is looked up among the claims already seen; from the first
earlier occurrence the run is extended fact by fact while both sides agree. A fact belongs to
at most one copied block, so the walk is linear in the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress, count
from operator import ne
from typing import NamedTuple

from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import entity_form

MIN_BLOCK = 3


class Block(NamedTuple):
    copy: tuple[Fact, ...]
    original: tuple[Fact, ...]


def find(ctx: Context) -> tuple[list[Finding], set[int]]:
    """Findings for copied blocks, and the orders of every fact inside a later copy."""
    blocks = copied_blocks(ctx, ctx.facts)
    covered = {fact.order for block in blocks for fact in block.copy}
    return [_finding(block) for block in blocks], covered


def copied_blocks(ctx: Context, facts: Sequence[Fact]) -> list[Block]:
    norm = ctx.norm_body
    # A fact's norm is its norm_body wherever the reader normalized it: a call per fact saved.
    keys = [(f.norm or norm(f)) if f.shape != "table" else _table_key(ctx, f) for f in facts]
    # The first position of every claim, in one C-level pass (later positions are written first
    # and overwritten); only a position whose claim came earlier can start a copy.
    first = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))
    repeats = compress(count(), map(ne, map(first.__getitem__, keys), count()))
    blocks: list[Block] = []
    taken = 0  # positions before this belong to a copy already found
    last = MIN_BLOCK - 1
    for i in repeats:
        if i < taken:
            continue
        j = first[keys[i]]
        # Most repeated claims repeat alone: a copy needs its MIN_BLOCK-th claim to repeat too.
        if j + last >= i or i + last >= len(keys) or keys[i + last] != keys[j + last]:
            continue
        run = _run(facts, keys, j, i)
        if run >= MIN_BLOCK:
            blocks.append(Block(tuple(facts[i : i + run]), tuple(facts[j : j + run])))
            taken = i + run
    return blocks


def _table_key(ctx: Context, fact: Fact) -> str:
    """A table row's cells belong to the row's subject: rows "M4 | Not started" and "M1 | Not
    started" are two milestones with one status, not a pasted block."""
    return f"{entity_form(fact.entity)}\0{ctx.norm_body(fact)}"


def _run(facts: Sequence[Fact], keys: Sequence[str], j: int, i: int) -> int:
    """How many facts from i repeat the facts from j, in one file each, without overlapping."""
    run = 0
    while (
        i + run < len(facts) and j + run < i and keys[i + run] == keys[j + run] and keys[i + run]
        and facts[i + run].path == facts[i].path and facts[j + run].path == facts[j].path
    ):
        run += 1
    return run


def _finding(block: Block) -> Finding:
    head, last = block.copy[0], block.copy[-1]
    origin, origin_last = block.original[0], block.original[-1]
    extra = {"block": len(block.copy), "block_end": last.last_line}
    if head.obs >= 0 and last.line == head.line:  # observations of one graph line
        extra["block_end_obs"] = last.obs
        message = (f"block of {len(block.copy)} observations (obs {head.obs}-{last.obs}) copied from "
                   f"{origin.path}:{origin.line} (obs {origin.obs}-{origin_last.obs})")
    else:
        message = (f"block of {len(block.copy)} facts (lines {head.line}-{last.last_line}) copied from "
                   f"{origin.path}:{origin.line}-{origin_last.last_line}")
    return fact_finding("duplicate", head, message, related=[origin], symmetric=True, extra=extra)
