"""What a question is about, and how much of it a unit covers.

The subject is the question's words less the generic ones (GENERIC_WORDS); a unit covers a
subject word when it holds it, its stem, one of its dictionary senses (across languages) or,
failing those, a word whose vector is close enough. Plain functions, cached where units
recur across questions.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import yaml

from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.units import Unit
from courserag.lang.bridge import glosses
from courserag.lang.matching import matched_tokens, stem
from courserag.lang.textnorm import STOPWORDS, token_weight, word_tokens

# Word vectors for matching a question's words across languages (None: no word model).
WordVectors = Callable[[list[str]], "object"]


# Words that say what kind of fact is wanted, or that any question about a course has (the
# question's subject is what is left): data, per language.
WORDS_FILE = Path(__file__).with_name("subject_words.yaml")


def _generic_words() -> frozenset[str]:
    """The generic words of every language in subject_words.yaml."""
    data = yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))
    return frozenset(word for runs in data["generic"].values() for run in runs for word in run.split())


GENERIC_WORDS = _generic_words()


# "i'm", "don't": a contraction of a function word is a function word.
_CONTRACTION = re.compile(r"^(\w+)['’](?:m|s|re|ve|d|ll|t)$")


def subject_tokens(question: str, ignore: Sequence[str] = ()) -> set[str]:
    """The question's content words without the words that only say what kind of fact is
    wanted, and without `ignore` (the course's own code: it names the course, not a topic)."""
    ignored = {part for code in ignore for part in (code.lower(), *re.findall(r"[a-z]+|\d+", code.lower()))}
    # "第 8 周" is one thing (the eighth week), not the number 8 and the word 周讲.
    ordinals = {_squeeze(m.group(0)) for m in _ORDINAL.finditer(question)}
    question = _ORDINAL.sub(" ", question)
    tokens = [t for t in word_tokens(question, whole_words=True) if not _is_contraction(t)]
    return ordinals | {t for t in tokens if (t not in GENERIC_WORDS and len(t) > 1 or t.isdigit()) and t not in ignored}


_ORDINAL = re.compile(r"第\s*(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*[周章节讲次课题页]")


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _is_contraction(token: str) -> bool:
    match = _CONTRACTION.match(token)
    return bool(match) and (
        match.group(1) in STOPWORDS or match.group(1) in ("don", "won", "isn", "aren", "didn", "doesn")
    )


def subject_coverage(
    subject: set[str],
    text: str,
    translations: dict[str, set[str]] | None = None,
    weights: dict[str, float] | None = None,
    senses: dict[str, list[frozenset[str]]] | None = None,
) -> float:
    """Weighted share of the subject's words in the text, directly or (across languages)
    through a word of the text that translates them, or all the words of one of their
    dictionary senses (期末考 -> "final exam": both words, so "midterm exam" is no match)."""
    if not subject:
        return 0.0
    weight = weights or {t: token_weight(t) for t in subject}
    total = sum(weight[t] for t in subject)
    found = found_words(subject, text)
    if translations:
        words = set(_text_words(text))
        found |= {t for t, means in translations.items() if means & words}
    if senses:
        stems = _stems(text)
        found |= {t for t, meanings in senses.items() if any(m <= stems for m in meanings)}
    return sum(weight[t] for t in found) / total if total > 0 else 0.0


def dictionary_senses(subject: set[str]) -> dict[str, list[frozenset[str]]]:
    """The stemmed English senses of the subject's Chinese words (courserag/lang/bridge.py)."""
    senses = {t: [frozenset(stem(w) for w in sense) for sense in glosses(t)] for t in subject}
    return {t: meanings for t, meanings in senses.items() if meanings}


def pool_weights(subject: set[str], contexts: list[str]) -> dict[str, float]:
    """A word's weight: its rarity in the language (textnorm.token_weight) times its rarity
    among the units at hand, so that "quicksort" outweighs "worst case" in a notebook where
    every cell talks about worst cases."""
    n = len(contexts)
    weights = {}
    for token in subject:
        df = sum(1 for text in contexts if found_words({token}, text))
        weights[token] = token_weight(token) * math.log(1 + (n + 1) / (df + 1))
    return weights


LATIN_WORD = re.compile(r"^[a-z0-9]+$")


@lru_cache(maxsize=65536)
def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in word_tokens(text, drop_stopwords=False) if LATIN_WORD.match(w))


def found_words(subject: set[str], text: str) -> set[str]:
    """The subject's words in the text: Chinese as substrings, English up to a light stem."""
    found = matched_tokens(subject, text)
    stems = _stems(text)
    found |= {t for t in subject if LATIN_WORD.match(t) and stem(t) in stems}
    ordinals = {t for t in subject if t not in found and _ORDINAL.fullmatch(t)}
    return found | ({t for t in ordinals if t in _squeezed(text)} if ordinals else set())


@lru_cache(maxsize=65536)
def _squeezed(text: str) -> str:
    """The text without spaces ("第 8 周" as "第8周"), for ordinals."""
    return _squeeze(text)


@lru_cache(maxsize=65536)
def _text_words(text: str) -> tuple[str, ...]:
    """A unit's whole words, kept: a course's units recur from question to question, and
    segmenting Chinese (jieba) was half the answer step's time across languages."""
    return tuple(word_tokens(text, whole_words=True))


def word_translations(
    subject: set[str], pool: list[tuple[int, Unit]], vectors: WordVectors, threshold: float
) -> dict[str, set[str]]:
    """For each subject word, the words of the units that mean the same in the other language."""
    import numpy as np

    words = list(dict.fromkeys(w for _, u in pool for w in _text_words(f"{u.heading} {u.context}") if len(w) > 1))
    words = words[: PARAMS.max_pool_words]
    tokens = sorted(subject)
    if not words or not tokens:
        return {}
    similarity = np.asarray(vectors(tokens)) @ np.asarray(vectors(words)).T
    # A part of the word itself is no synonym: 考试 does not mean 期末考试 (the words that
    # contain it, or that it contains, are matched as words already, or not at all).
    return {
        t: {words[j] for j in np.flatnonzero(similarity[i] >= threshold) if words[j] not in t and t not in words[j]}
        for i, t in enumerate(tokens)
    }
