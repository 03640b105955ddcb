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

Answer-removed readings are the nearest miss of all: a question's own passage with the
sentences that hold its answer taken out, so that what stays is on the question's very topic
and often names what it asks about (a TA's office hours without her phone number, the
midterm's room without the final's). A seeded share of each set's answerable questions is
also read that way, unanswerable, where the removal leaves at least half of the passage, two
sentences or more, and none of the question's answers.

Swapped-term readings are the near miss the product meets most: a question asking for a fact
next to one the passage states ("Which room is the final exam in?" over the midterm's room).
A seeded share of each set's answerable questions has its rarest term that stands in the
answer's sentence (not in the answer; rarest by the set's document frequency, among the terms
that say what a passage is about) swapped for such a term of the same kind (a name written
with a capital, another word, a number, a pair of Chinese characters) from the question's
distractor passage that its own passage lacks, the one whose rarity is nearest; the new
question is read over the question's own passage, unanswerable. A question sharing no such
term with its answer's sentence (most questions across languages) has none.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from itertools import islice
from typing import Callable, Mapping, Sequence

import numpy as np

from courserag.answers.extractive.sentences import split_sentences
from training.reader.sets import Example

_TOKEN = re.compile(r"\w+")
_HAN_CHARS = "\u3400-\u9fff\uf900-\ufaff"
_HAN = re.compile(f"[{_HAN_CHARS}]+")
_WORD = re.compile(f"[^\\W{_HAN_CHARS}]+")  # a run of word characters other than Chinese ones
COMMON = 0.05  # a term in more of a set's passages than this share says nothing of a topic
SUFFIX = "#distractor"
OFF_TOPIC = "#off-topic"
ANSWER_REMOVED = "#answer-removed"
SWAPPED = "#swapped"


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
    return set(written_terms(text))


def written_terms(text: str) -> dict[str, str]:
    """`text`'s terms (`terms`), each with the way `text` first writes it."""
    out: dict[str, str] = {}
    for token in _TOKEN.findall(text):
        runs = _HAN.findall(token)
        for run in runs:
            for i in range(len(run) - 1):
                out.setdefault(run[i : i + 2], run[i : i + 2])
        for word in _HAN.sub(" ", token).split() if runs else (token,):
            if len(word) >= 3:
                out.setdefault(word.lower(), word)
    return out


def nearest_passage(question: str, index: dict, idf: dict, allowed: Callable[[int], bool]) -> int | None:
    """The passage sharing the most weight of the question's terms that is `allowed` (of equal
    weights, the first passage); None when none shares one."""
    return next(iter(nearest_passages(question, index, idf, allowed, 1)), None)


def nearest_passages(question: str, index: dict, idf: dict, allowed: Callable[[int], bool], count: int) -> list[int]:
    """Up to `count` `allowed` passages sharing the most weight of the question's terms, nearest
    first (of equal weights, the first passage); only passages that share one. The terms are
    summed in sorted order, so the choice never depends on the process's string hashing."""
    scores: Counter = Counter()
    for term in sorted(terms(question)):
        for p in index.get(term, ()):
            scores[p] += idf[term]
    ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return list(islice((p for p, _ in ranked if allowed(p)), count))


def nearest_or_seeded(
    question: str, index: dict, idf: dict, allowed: Callable[[int], bool], count: int, rng, passages: int
) -> list[int]:
    """Up to `count` `allowed` passages nearest the question (`nearest_passages`), made up with
    allowed ones in a seeded order of the `passages` when fewer share a term with it."""
    near = nearest_passages(question, index, idf, allowed, count)
    if len(near) < count:
        seeded = (p for p in rng.permutation(passages).tolist() if allowed(p) and p not in near)
        near += islice(seeded, count - len(near))
    return near


def rare_term_index(passages: Sequence[str]) -> tuple[dict[str, list[int]], dict[str, float]]:
    """(term → the passages holding it, term → its inverse document frequency) over the terms
    in at most a COMMON share of `passages` (two at least): the terms that say what a passage
    is about."""
    index: dict[str, list[int]] = defaultdict(list)
    for p, text in enumerate(passages):
        for term in terms(text):
            index[term].append(p)
    limit = max(2, int(COMMON * len(passages)))  # a term shared with one other passage always counts
    index = {term: ps for term, ps in index.items() if len(ps) <= limit}
    idf = {term: math.log(len(passages) / len(ps)) for term, ps in index.items()}
    return index, idf


def not_answering(passages: Sequence[str], mine: int, example: Example) -> Callable[[int], bool]:
    """Whether passage p is another than the question's own and holds none of its answers."""
    return lambda p: p != mine and not holds_answer(passages[p], example)


def positions_by_set(examples: Sequence[Example]) -> list[list[int]]:
    """The positions of each set's examples, a list per set in the order the sets first come."""
    by_set: dict[str, list[int]] = defaultdict(list)
    for i, example in enumerate(examples):
        by_set[example.set_name].append(i)
    return list(by_set.values())


def distractors(examples: Sequence[Example], share: float, seed: int = 0) -> list[Example]:
    """Unanswerable examples: a seeded `share` of each set's questions over their distractor
    passage (module doc), in the examples' order."""
    if share <= 0:
        return []
    chosen: list[tuple[int, Example]] = []
    for members in positions_by_set(examples):
        chosen += _set_distractors([examples[i] for i in members], members, share, seed)
    return [example for _, example in sorted(chosen, key=lambda pair: pair[0])]


def _set_distractors(examples: list[Example], positions: list[int], share: float, seed: int):
    passages = list(dict.fromkeys(e.context for e in examples))
    if len(passages) < 2:
        return []
    own = {text: i for i, text in enumerate(passages)}
    index, idf = rare_term_index(passages)
    rng = np.random.default_rng([seed, len(examples)])
    picked = np.flatnonzero(rng.random(len(examples)) < share)
    out = []
    for i in picked.tolist():
        example = examples[i]
        allowed = not_answering(passages, own[example.context], example)
        for p in nearest_or_seeded(example.question, index, idf, allowed, 1, rng, len(passages)):
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


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) character spans of `text`'s sentences as the product splits them
    (`split_sentences`, within each line); each span keeps the spacing after it, so they tile
    the text."""
    starts, line_start = [], 0
    for line in text.splitlines(keepends=True):
        at = line_start
        for sentence in split_sentences(line):
            at = text.index(sentence, at)
            starts.append(at)
            at += len(sentence)
        line_start += len(line)
    bounds = [0, *starts[1:], len(text)]  # spacing before the first sentence goes with it
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if a < b]


def holds_answer_part(span: tuple[int, int], answers: Sequence) -> bool:
    """Whether the character span [start, end) overlaps one of `answers`."""
    a, b = span
    return any(answer.start < b and a < answer.end for answer in answers)


def without_answer(example: Example) -> str | None:
    """`example`'s passage with every sentence that overlaps one of its answers taken out; None
    when that leaves under half of the passage, fewer than two sentences, or an answer's text
    still standing in what remains."""
    spans = sentence_spans(example.context)
    kept = [span for span in spans if not holds_answer_part(span, example.answers)]
    remaining = "".join(example.context[a:b] for a, b in kept).strip()
    if len(kept) < 2 or 2 * len(remaining) < len(example.context.strip()) or holds_answer(remaining, example):
        return None
    return remaining


def answer_removed(examples: Sequence[Example], share: float, seed: int = 0) -> list[Example]:
    """Unanswerable examples: a seeded `share` of the answerable questions over their own
    passage without the sentences holding their answer (module doc), in the examples' order."""
    if share <= 0:
        return []
    rng = np.random.default_rng([seed, len(examples), 2])
    picked = rng.random(len(examples)) < share
    out = []
    for example, chosen in zip(examples, picked.tolist()):
        passage = without_answer(example) if chosen and example.answerable else None
        if passage is not None:
            out.append(replace(example, qid=example.qid + ANSWER_REMOVED, context=passage, answers=()))
    return out


def term_kind(term: str, written: str) -> str:
    """What a term is, by the way `written` writes it: "han" (a pair of Chinese characters),
    "number", "name" (a word written with a capital) or "word"."""
    if _HAN.fullmatch(term):
        return "han"
    if term.isdigit():
        return "number"
    return "name" if written[:1].isupper() else "word"


def swap_term(question: str, anchor: str, candidates: dict[str, str], rarity: dict[str, float]) -> str | None:
    """`question` with `anchor` swapped for the candidate (term → its written form) of the same
    kind (`term_kind`) whose rarity is nearest the anchor's (of equal distance, the first in
    order), as it is written; None when no candidate is of its kind."""
    kind = term_kind(anchor, written_terms(question)[anchor])
    same = sorted(c for c, form in candidates.items() if term_kind(c, form) == kind)
    if not same:
        return None
    chosen = min(same, key=lambda c: abs(rarity[c] - rarity[anchor]))
    if kind == "han":
        return question.replace(anchor, candidates[chosen])
    # a word or number where it stands whole, case aside, as `terms` finds it
    return _WORD.sub(lambda m: candidates[chosen] if m.group(0).lower() == anchor else m.group(0), question)


def answer_sentences(context: str, answers: Sequence, spans: Sequence[tuple[int, int]]) -> str:
    """The sentences (`spans` of `context`) that overlap one of `answers`."""
    return " ".join(context[a:b] for a, b in spans if holds_answer_part((a, b), answers))


def swapped(examples: Sequence[Example], share: float, seed: int = 0) -> list[Example]:
    """Unanswerable examples: a seeded `share` of each set's answerable questions with a term
    swapped for a sibling their passage lacks, over their own passage (module doc), in the
    examples' order."""
    if share <= 0:
        return []
    rng = np.random.default_rng([seed, len(examples), 3])
    picked = rng.random(len(examples)) < share
    chosen: list[tuple[int, Example]] = []
    for members in positions_by_set(examples):
        wanted = [i for i in members if picked[i] and examples[i].answerable]
        chosen += _set_swapped([examples[i] for i in members], [examples[i] for i in wanted], wanted)
    return [example for _, example in sorted(chosen, key=lambda pair: pair[0])]


def _set_swapped(members: list[Example], wanted: list[Example], positions: list[int]):
    passages = list(dict.fromkeys(e.context for e in members))
    if len(passages) < 2 or not wanted:
        return []
    own = {text: i for i, text in enumerate(passages)}
    index, idf = rare_term_index(passages)
    passage_terms: dict[int, dict[str, str]] = {}
    spans: dict[int, list[tuple[int, int]]] = {}
    out = []
    for position, example in zip(positions, wanted):
        mine = own[example.context]
        if mine not in spans:
            spans[mine] = sentence_spans(example.context)
        asked = terms(example.question)
        in_answers = set().union(*(terms(a.text) for a in example.answers))
        said = terms(answer_sentences(example.context, example.answers, spans[mine]))
        anchors = sorted(t for t in (asked & said) - in_answers if t in idf)
        if not anchors:
            continue
        donor = nearest_passage(example.question, index, idf, not_answering(passages, mine, example))
        if donor is None:
            continue
        for p in (mine, donor):
            if p not in passage_terms:
                passage_terms[p] = written_terms(passages[p])
        anchor = max(anchors, key=lambda a: idf[a])  # of equal rarity, the first in order
        lacking = set(passage_terms[donor]).difference(passage_terms[mine], asked)
        question = swap_term(example.question, anchor, {t: passage_terms[donor][t] for t in lacking if t in idf}, idf)
        if question and question != example.question:
            out.append((position, replace(example, qid=example.qid + SWAPPED, question=question, answers=())))
    return out


@dataclass(frozen=True)
class ReadingKind:
    """A reading over another passage: its qid suffix, what makes it (examples, share, seed →
    unanswerable examples) and how its questions are read, as the CLI's help says it."""

    suffix: str
    make: Callable[[Sequence[Example], float, int], list[Example]]
    how: str


# every reading by its name (a TrainConfig setting and a flag), in the order they follow the questions
READING_KINDS = {
    "distractors": ReadingKind(SUFFIX, distractors, "over the passage of their set nearest them"),
    "off_topic": ReadingKind(OFF_TOPIC, off_topic, "over a passage of another source"),
    "answer_removed": ReadingKind(
        ANSWER_REMOVED, answer_removed, "over their own passage without the answer's sentences"
    ),
    "swapped": ReadingKind(SWAPPED, swapped, "with a term swapped for one their own passage lacks"),
}
# a reading's qid suffix → its name
READINGS = {kind.suffix: name for name, kind in READING_KINDS.items()}


def reading_shares(settings) -> dict[str, float]:
    """Each reading's share as `settings` (a TrainConfig, the CLI's arguments) gives it."""
    return {name: getattr(settings, name) for name in READING_KINDS}


def with_readings(examples: Sequence[Example], shares: Mapping[str, float], seed: int = 0) -> list[Example]:
    """`examples` followed by their readings over other passages, each a seeded share of the
    questions (`shares`: a reading's name → its share; one not named is not read), in
    READING_KINDS' order (module doc)."""
    out = list(examples)
    for name, kind in READING_KINDS.items():
        out += kind.make(examples, shares.get(name, 0.0), seed)
    return out
