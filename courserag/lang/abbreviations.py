"""Abbreviations that end with a period without ending the sentence, as data
(abbreviations.yaml), and the one test every sentence splitter asks: does the period at this
place close an abbreviation ("Dr.", "e.g.", "No.") or an initial ("T. H. Cormen")?"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import yaml

WORDS_FILE = Path(__file__).with_name("abbreviations.yaml")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


@lru_cache(maxsize=1)
def abbreviations() -> frozenset[str]:
    """Every listed abbreviation, lower-case and without its last period ("e.g", "dr")."""
    groups = yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))
    return frozenset(word.lower() for words in groups.values() for word in str(words).split())


def ends_abbreviation(text: str, dot: int) -> bool:
    """Whether the '.' at `text[dot]` closes an abbreviation or an initial, not a sentence."""
    if text[dot : dot + 1] != ".":
        return False
    word = _WORD_BEFORE.search(text, 0, dot)
    if not word:
        return False
    token = word.group(1).lower().rstrip(".")
    return token in abbreviations() or (len(token) == 1 and word.group(1).isupper())
