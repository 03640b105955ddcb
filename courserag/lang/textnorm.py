"""Text normalisation and word tokens for the lexical path, in English and Chinese.

Latin text is split into lower-cased word tokens; CJK runs are segmented with jieba
(search mode, so that both a compound and its parts match). Full-width forms are folded to
half-width with NFKC first, so "ＣＳＣ３１００" and "CSC3100" are the same token.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from functools import lru_cache

from courserag.lang.script import IDEOGRAPH_RUN, IDEOGRAPHS

# A CJK run, or a run of letters/digits that are not CJK (\w alone would glue "ECE专业" together).
_WORD = re.compile(rf"[{IDEOGRAPHS}]+|[^\W_{IDEOGRAPHS}]+(?:['’][^\W_{IDEOGRAPHS}]+)?", re.UNICODE)

# Short function words that carry no retrieval signal; kept small on purpose so that
# course-specific words are never dropped.
STOPWORDS = frozenset(
    """a an and are as at be by can could did do does for from had has have how i if in
    into is it its of on or our so than that the their them then there these they this
    to was we were what when where which who whom why will with would you your
    的 了 是 在 和 与 及 或 吗 呢 吧 啊 呀 么 什么 怎么 如何 哪些 哪个 一个 这个 那个 我 你 他 她 它 我们 你们 他们
    有 也 都 就 而 及其 以及 之 为 被 把 对 从 到 中 上 下 请 问""".split()
)


def normalize(text: str) -> str:
    """NFKC (full-width to half-width, ligatures), lower case, collapsed white space."""
    folded = unicodedata.normalize("NFKC", text).lower()
    # Same as re.sub(r"\s+", " ", folded).strip() (re's \s is str.isspace, checked over
    # every code point), ~4x faster: it runs on every new retrieval candidate.
    return " ".join(folded.split())


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def _segment_cjk(run: str) -> list[str]:
    # cut_for_search yields the whole word and its shorter parts ("机器学习" -> "机器",
    # "学习", "机器学习"), which lifts recall for questions phrased differently.
    return [w for w in _jieba().cut_for_search(run) if w.strip()]


def word_tokens(text: str, drop_stopwords: bool = True, whole_words: bool = False) -> list[str]:
    """Word tokens of `text` for BM25 and token overlap, in reading order.

    `whole_words` segments Chinese into whole words only ("期中考试", not also "期中",
    "考试"): for counting what a question is about, where the parts would count one word
    several times."""
    tokens: list[str] = []
    for match in _WORD.finditer(normalize(text)):
        piece = match.group(0)
        if IDEOGRAPH_RUN.fullmatch(piece):
            tokens.extend(w for w in _jieba().cut(piece) if w.strip()) if whole_words else tokens.extend(
                _segment_cjk(piece)
            )
        else:
            # "Kruskal's" is Kruskal: the possessive would keep the name from matching.
            tokens.append(piece[:-2] if piece.endswith(("'s", "’s")) else piece)
    if drop_stopwords:
        tokens = [t for t in tokens if t not in STOPWORDS]
    return tokens


# The jieba dictionary frequency below which a word counts as rare (names, terms).
_RARE_FREQUENCY = 50
_LATIN_ONLY = re.compile(r"^[a-z0-9]+$")


@lru_cache(maxsize=65536)
def token_weight(token: str) -> float:
    """How much finding this word says: log(total / frequency) in jieba's dictionary, so
    names and terms (absent or rare) weigh most. Latin tokens count as rare."""
    dictionary = _jieba().dt
    frequency = 0 if _LATIN_ONLY.match(token) else dictionary.FREQ.get(token, 0)
    return math.log(max(dictionary.total, 1) / (frequency + _RARE_FREQUENCY))


def well_formed(text: str) -> str:
    """`text` as UTF-8 can carry it: a surrogate pair left as two halves (as some bridges
    from JavaScript pass an emoji) joined, a lone surrogate replaced by U+FFFD. A question
    holding "\\ud800" once failed in the embedder's cache key and in SentencePiece."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
