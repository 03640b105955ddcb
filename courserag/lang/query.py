"""One question as retrieval and the answerer read it, built once per question.

Retrieval, ranking and the composer each need the question's language, whether it crosses
into the other language of the materials, its words and what it asks for; `read_query`
decides them once, retrieval adds the search vector (`with_vector`), and every later step
reads the same `Query` instead of asking `is_chinese()` of its own copy of the text.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from courserag.lang.intent import Ask, classify
from courserag.lang.script import asked_across, script_of
from courserag.lang.textnorm import word_tokens


@dataclass(frozen=True)
class Query:
    """A question: the learner's words, the text searched, and what was read from them."""

    asked: str  # the learner's own words
    text: str  # what is searched and matched: a follow-up's standalone rewrite, else `asked`
    language: str  # "zh" or "en": the script `text` is written in
    reply_language: str  # the script of `asked`: the answer's wording follows it
    across: bool  # asked in the other language than the materials' ("期末考试…" of an English course)
    tokens: tuple[str, ...]  # the search words of `text` (textnorm.word_tokens)
    ask: Ask  # the kinds of fact and the form it asks for (intent.py)
    vector: np.ndarray | None = None  # the search vector, once retrieval has embedded `text`
    floor: float = 0.0  # the vector's similarity to text that answers nothing (retrieval/calibration.py)

    @property
    def chinese(self) -> bool:
        return self.language == "zh"

    def with_vector(self, vector: np.ndarray, floor: float) -> "Query":
        return replace(self, vector=vector, floor=floor)


def read_query(asked: str, text: str | None = None, materials: str | None = None) -> Query:
    """The query for `asked`, searched as `text` (a follow-up's rewrite; `asked` itself when
    None), over materials in language `materials` ("en", "zh"; None: the question's own)."""
    text = asked if text is None else text
    language = script_of(text)
    across = asked_across(language, materials)
    return Query(asked, text, language, script_of(asked), across, tuple(word_tokens(text)), asks_for(asked, text))


def asks_for(asked: str, text: str) -> Ask:
    """What the learner asked for: the follow-up's own wording when it says ("Is it stable?"
    is a yes/no even when its search text carries the earlier question's words), the
    rewritten question's when it does not ("那期末考试呢？" asks what the turn before asked)."""
    own = classify(asked)
    return own if own.needs or own.yes_no or text == asked else classify(text)
