"""Sentences for quoting: split where a reader would, not where punctuation happens to be.

Unlike the chunker's splitter (which may cut anywhere to keep chunks small), an answer must
never stop at "i.e." or "Dr." or inside "0.75", and a sentence that ends in a colon is
only half a sentence (its other half follows it: see units.py).
"""

from __future__ import annotations

import re

from courserag.lang.abbreviations import ends_abbreviation

_CJK_END = "。！？"
_CLOSERS = "\"'”’）)」』】]"
_LATIN_END = re.compile(r"[.!?](?=[" + re.escape(_CLOSERS) + r"]*(\s|$))")


def _ends_sentence(text: str, dot: int) -> bool:
    """Whether the '.', '!' or '?' at `dot` ends a sentence (it is followed by a space or the end)."""
    if text[dot] != ".":
        return True
    if ends_abbreviation(text, dot):
        return False  # "i.e.", "Dr.", an initial such as "T. H. Cormen" (lang/abbreviations.yaml)
    rest = text[dot + 1 :].lstrip(_CLOSERS).lstrip()
    # A lower-case continuation ("approx. 0.6", "etc. and") is the same sentence.
    return not rest or not rest[0].islower()


def split_sentences(text: str) -> list[str]:
    """Sentences of one line or paragraph, in order, none dropped and none cut mid-way.

    Chinese ends at 。！？ (no space needed), Latin at . ! ? before a space; ':' and ';'
    never end a sentence here.
    """
    out: list[str] = []
    start = 0
    i = 0
    while i < len(text):
        ch = text[i]
        end = None
        if ch in _CJK_END:
            end = i + 1
        elif ch in ".!?" and _LATIN_END.match(text, i) and _ends_sentence(text, i):
            end = i + 1
        if end is not None:
            while end < len(text) and text[end] in _CLOSERS:
                end += 1
            piece = text[start:end].strip()
            if piece:
                out.append(piece)
            start = i = end
            continue
        i += 1
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out
