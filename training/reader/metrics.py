"""Exact match and F1 of an answer against its references (pure functions).

English answers are compared as the official SQuAD script compares them (lower case, no
punctuation, no articles a/an/the, single spaces; F1 over words); Chinese ones as the CMRC
2018 script does, character by character (each CJK character a token, a run of Latin letters
or digits one token, punctuation and spaces dropped). An unanswerable question's reference is
the empty answer: it scores 1 only when the reader says nothing (SQuAD 2.0's rule).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from typing import Sequence

from courserag.lang.script import IDEOGRAPHS

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)
_CHINESE_TOKEN = re.compile(rf"[{IDEOGRAPHS}]|(?:(?![{IDEOGRAPHS}])[^\W_])+")


def normalize_english(text: str) -> str:
    """The SQuAD v1.1 evaluation script's normalize_answer."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_tokens(text: str, lang: str) -> list[str]:
    """The tokens F1 counts: English words after normalization, or Chinese characters."""
    if lang.startswith("zh"):
        return _CHINESE_TOKEN.findall(unicodedata.normalize("NFKC", text).lower())
    return normalize_english(text).split()


def exact_match(prediction: str, reference: str, lang: str) -> float:
    return float(answer_tokens(prediction, lang) == answer_tokens(reference, lang))


def f1(prediction: str, reference: str, lang: str) -> float:
    predicted, expected = answer_tokens(prediction, lang), answer_tokens(reference, lang)
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def best_scores(prediction: str, references: Sequence[str], lang: str) -> tuple[float, float]:
    """(exact match, F1) against the best-matching reference; no references = unanswerable."""
    references = list(references) or [""]
    return (
        max(exact_match(prediction, r, lang) for r in references),
        max(f1(prediction, r, lang) for r in references),
    )
