"""Distractors: questions read over a passage near them that does not answer them.

In the product the reader reads what retrieval found, and for a question the materials do
not answer that is passages about something near it: "What is the phone number of the TA?"
over the TA's office hours. The sets' own unanswerable windows are other parts of the
question's passage, and few sets have questions their passage does not answer, so the
answerability head rarely sees a passage that is merely on the topic.

A seeded share of each set's questions is also paired with the passage of the same set that
shares the most of the question's rarer terms (weighted by inverse document frequency; words
of three letters or more, pairs of Chinese characters), other than its own and any passage
holding one of its answers; where none shares a term (a question across languages), a
seeded passage of the set. The pair is an unanswerable example.

Off-topic readings are the other half of what the product reads for a question its course
does not answer: "今天北京的天气怎么样？" over a syllabus, an English question over a Chinese
course's notes. A seeded share of each set's questions is also paired with a seeded passage of
a set from another source (each set drawn as often as another whatever its size, so that an
English question reads a Chinese passage nearly half the time), other than any passage
holding one of its answers. Sets from one source (the four MLQA sets) share articles in two
languages, so none is another's source.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import replace
from typing import Callable, Sequence

import numpy as np

from training.reader.sets import Example

_TOKEN = re.compile(r"\w+")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
COMMON = 0.05  # a term in more of a set's passages than this share says nothing of a topic
SUFFIX = "#distractor"
OFF_TOPIC = "#off-topic"
READINGS = {SUFFIX: "distractors", OFF_TOPIC: "off_topic"}  # a reading's qid suffix → its name


def reading(example: Example) -> str | None:
    """Which reading over another passage `example` is ("distractors", "off_topic"), by its
    qid's suffix; None for a set's own question."""
    return next((name for suffix, name in READINGS.items() if example.qid.endswith(suffix)), None)


def holds_answer(passage: str, example: Example) -> bool:
    """Whether `passage` holds one of `example`'s answers: never an unanswerable reading."""
    return any(a.text in passage for a in example.answers)


def terms(text: str) -> set[str]:
    """The words of three letters or more (lowercased) and the pairs of adjacent Chinese
    characters of `text`."""
    out: set[str] = set()
    for token in _TOKEN.findall(text.lower()):
        runs = _HAN.findall(token)
        if runs:
            out.update(run[i : i + 2] for run in runs for i in range(len(run) - 1))
            token = _HAN.sub(" ", token)
            out.update(word for word in token.split() if len(word) >= 3)
        elif len(token) >= 3:
            out.add(token)
    return out


def nearest_passage(question: str, index: dict, idf: dict, allowed: Callable[[int], bool]) -> int | None:
    """The passage sharing the most weight of the question's terms that is `allowed`; None
    when none shares one."""
    scores: Counter = Counter()
    for term in terms(question):
        for p in index.get(term, ()):
            scores[p] += idf[term]
    return next((p for p, _ in scores.most_common() if allowed(p)), None)


def distractors(examples: Sequence[Example], share: float, seed: int = 0) -> list[Example]:
    """Unanswerable examples: a seeded `share` of each set's questions over their distractor
    passage (module doc), in the examples' order."""
    if share <= 0:
        return []
    by_set: dict[str, list[int]] = defaultdict(list)
    for i, example in enumerate(examples):
        by_set[example.set_name].append(i)
    chosen: list[tuple[int, Example]] = []
    for name, members in by_set.items():
        chosen += _set_distractors([examples[i] for i in members], members, share, seed)
    return [example for _, example in sorted(chosen, key=lambda pair: pair[0])]


def _set_distractors(examples: list[Example], positions: list[int], share: float, seed: int):
    passages = list(dict.fromkeys(e.context for e in examples))
    if len(passages) < 2:
        return []
    own = {text: i for i, text in enumerate(passages)}
    index: dict[str, list[int]] = defaultdict(list)
    for p, text in enumerate(passages):
        for term in terms(text):
            index[term].append(p)
    limit = max(2, int(COMMON * len(passages)))  # a term shared with one other passage always counts
    index = {term: ps for term, ps in index.items() if len(ps) <= limit}
    idf = {term: math.log(len(passages) / len(ps)) for term, ps in index.items()}
    rng = np.random.default_rng([seed, len(examples)])
    picked = np.flatnonzero(rng.random(len(examples)) < share)
    out = []
    for i in picked.tolist():
        example = examples[i]
        mine = own[example.context]

        def allowed(p: int, example=example, mine=mine) -> bool:
            return p != mine and not holds_answer(passages[p], example)

        p = nearest_passage(example.question, index, idf, allowed)
        if p is None:
            p = next((q for q in rng.permutation(len(passages)).tolist() if allowed(q)), None)
        if p is not None:
            out.append((positions[i], replace(example, qid=example.qid + SUFFIX, context=passages[p], answers=())))
    return out


def source(set_name: str) -> str:
    """The source a set was drawn from, the first part of its name: mlqa_dev_en → mlqa."""
    return set_name.split("_")[0]


def off_topic(examples: Sequence[Example], share: float, seed: int = 0) -> list[Example]:
    """Unanswerable examples: a seeded `share` of each set's questions over a seeded passage of
    a set from another source (module doc), in the examples' order."""
    if share <= 0:
        return []
    languages: dict[str, dict[str, str]] = defaultdict(dict)  # set → passage → its language
    for example in examples:
        languages[example.set_name][example.context] = example.context_lang
    passages = {name: list(texts) for name, texts in languages.items()}
    names = sorted(passages)
    others = {name: [other for other in names if source(other) != source(name)] for name in names}
    rng = np.random.default_rng([seed, len(examples), 1])
    picked = rng.random(len(examples)) < share
    out = []
    for example, chosen in zip(examples, picked.tolist()):
        drawn_from = others[example.set_name]
        if not chosen or not drawn_from:
            continue
        for _ in range(8):  # a drawn passage holding an answer is drawn again
            name = drawn_from[rng.integers(len(drawn_from))]
            context = passages[name][rng.integers(len(passages[name]))]
            if not holds_answer(context, example):
                language = languages[name][context]
                out.append(
                    replace(example, qid=example.qid + OFF_TOPIC, context=context, context_lang=language, answers=())
                )
                break
    return out
