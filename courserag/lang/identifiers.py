"""Identifiers in text: course codes, assignment and policy ids ("CSC3100", "CS 101",
"MAT-2040", "HW3"), normalised so that spelling variants meet, and matched with typo
tolerance for long ones. Retrieval ranks a chunk holding the question's identifier first.

Wider than a course code on purpose (lang/course_codes.py holds that one pattern): any
letters and digits, so an assignment or a policy id counts too.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

from courserag.lang.matching import normalized_text
from courserag.lang.textnorm import STOPWORDS, normalize

# Course codes, assignment and policy ids: "CSC3100", "CS 101", "MAT-2040", "HW3",
# "X-2023-001". Letters then digits, optionally separated by one space or hyphen, and
# optionally more hyphenated number groups.
_IDENTIFIER = re.compile(r"(?<![a-z0-9])([a-z]{1,6})[ \-]?(\d{1,5}(?:-\d{1,5})*)(?![a-z0-9])")


def _identifiers_in_normalized(normalized: str) -> frozenset[str]:
    """extract_identifiers of an already normalised text. A match is ASCII letters and
    digits (hyphens between digit groups) cut from normalised text, so normalising one
    reduces to dropping the hyphens and upper-casing.

    A function word or a lone letter before a number is not an identifier: in SQuAD, 122 of
    1,440 questions had "in 1973", "the 1973" or "ABC's 1998" read as IN1973, THE1973, S1998,
    and the identifier bonus then ranked any chunk with those words first.
    """
    found = set()
    for m in _IDENTIFIER.finditer(normalized):
        letters = m.group(1)
        spaced = m.end(1) < m.start(2) and normalized[m.end(1)] == " "
        if letters in STOPWORDS or (spaced and len(letters) == 1):
            continue
        found.add((letters + m.group(2)).replace("-", "").upper())
    return frozenset(found)


def extract_identifiers(text: str) -> frozenset[str]:
    """Identifier-like tokens of a text, normalised: 'MAT-2040', 'mat 2040' and 'ＭＡＴ２０４０' all become 'MAT2040'."""
    return _identifiers_in_normalized(normalize(text))


@lru_cache(maxsize=65536)
def chunk_identifiers(text: str) -> frozenset[str]:
    """The identifiers of a chunk, cached. Only questions with an identifier need them (a
    regex scan of the chunk), so they are found here and not with the chunk's words."""
    return _identifiers_in_normalized(normalized_text(text))


def identifier_words(identifiers: Iterable[str]) -> frozenset[str]:
    """The words a question's identifiers are read as ("MAT-2040": "mat" and "2040";
    "CSC3100": "csc3100"): a code spelt another way is one identifier, not different words."""
    words = set()
    for identifier in identifiers:
        words.add(identifier.lower())
        words.update(part.lower() for part in re.findall(r"[A-Z]+|\d+", identifier))
    return frozenset(words)


def _within_one_edit(a: str, b: str) -> bool:
    """Damerau (optimal string alignment) distance <= 1: one typo or one transposition."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return (
            len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def identifier_match(query_ids: Iterable[str], chunk_ids: frozenset[str]) -> float:
    """1.0 for an exact identifier hit, 0.5 for a near miss (typo), else 0."""
    best = 0.0
    for qid in query_ids:
        if qid in chunk_ids:
            return 1.0
        # Typo tolerance only for long ids: "HW3" vs "HW4" must stay different.
        if len(qid) >= 5 and any(_within_one_edit(qid, cid) for cid in chunk_ids if cid[:1] == qid[:1]):
            best = 0.5
    return best
