"""Lexical matching shared by ranking and answering: which question words a text holds.

Both sides must agree on what "the chunk mentions this word" means, so it is written once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from courserag.lang.textnorm import normalize

_LATIN_TOKEN = re.compile(r"^[a-z0-9]+$")
_LATIN_RUN = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def normalized_text(text: str) -> str:
    """A chunk's normalised text, cached: chunks recur across queries."""
    return normalize(text)


@lru_cache(maxsize=65536)
def latin_words(text: str) -> frozenset[str]:
    """The maximal [a-z0-9] runs of the chunk's normalised text. A Latin query token (all
    [a-z0-9]) occurs as a whole word exactly when it is one of these runs, so one set
    lookup replaces a regex scan of the chunk per token."""
    return frozenset(_LATIN_RUN.findall(normalized_text(text)))


def matched_tokens(query_tokens: Sequence[str] | set[str], text: str) -> set[str]:
    """The distinct query tokens found in the text: whole words for Latin tokens, substrings
    for CJK words (Chinese has no spaces to mark word ends)."""
    normalized = normalized_text(text)
    words = latin_words(text)
    return {t for t in set(query_tokens) if (t in words if _LATIN_TOKEN.match(t) else t in normalized)}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stem, so that "meet" finds "meets" and "rotation" "rotations"."""
    for suffix, keep in (("ies", 4), ("ing", 5), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(suffix) and len(word) > keep:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word
