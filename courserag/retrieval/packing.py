"""Context packing and citations: which chunk texts go to the answerer, numbered.

Pure functions. Token counts come from a callable (the embedder's real tokenizer in the app),
so the budget means what the model will see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from courserag.records import ScoredChunk

CountTokens = Callable[[str], int]
TruncateTokens = Callable[[str, int], str]

# A source cut to fewer tokens than this says too little to be worth a number.
MIN_USEFUL_TOKENS = 40


@dataclass(frozen=True)
class ContextItem:
    """One numbered source as given to the answerer."""

    n: int
    hit: ScoredChunk
    text: str
    tokens: int


def pack_context(
    hits: Sequence[ScoredChunk],
    count_tokens: CountTokens,
    truncate: TruncateTokens,
    max_chunk_tokens: int = 500,
    budget: int = 2000,
) -> list[ContextItem]:
    """Number the hits in rank order, cut each to max_chunk_tokens, stop at the budget.

    The last source may be shortened to fit what is left of the budget, unless that leaves
    it under MIN_USEFUL_TOKENS, in which case it is dropped.
    """
    if max_chunk_tokens <= 0 or budget <= 0:
        raise ValueError(f"token limits must be > 0, but got {max_chunk_tokens} and {budget}")
    items: list[ContextItem] = []
    used = 0
    for hit in hits:
        text = hit.chunk.text
        tokens = count_tokens(text)
        if tokens > max_chunk_tokens:
            text, tokens = truncate(text, max_chunk_tokens), max_chunk_tokens
        room = budget - used
        if tokens > room:
            if room < MIN_USEFUL_TOKENS:
                break
            text, tokens = truncate(text, room), room
        items.append(ContextItem(len(items) + 1, hit, text, tokens))
        used += tokens
    return items


def snippet(text: str, limit: int = 240) -> str:
    """A one-line preview of a chunk for the citation list."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def citation_dict(item: ContextItem) -> dict:
    """The `citations[]` entry of the JSON contract (see rag_engine.py ask --json)."""
    chunk = item.hit.chunk
    return {
        "n": item.n,
        "source": chunk.source,
        "locator": chunk.locator,
        "origin": chunk.origin,
        "course_id": chunk.course_id,
        "score": round(float(item.hit.score), 4),
        "text": item.text,
        "store": item.hit.store,
        "snippet": snippet(item.text),
    }


def format_citation_line(item: ContextItem) -> str:
    """ "[1] week03_hashing.pdf, page 4 (course material)": the CLI's human-readable form."""
    chunk = item.hit.chunk
    origin = "course material" if chunk.origin == "course" else "your notes"
    return f"[{item.n}] {chunk.source}, {chunk.locator} ({origin})"
