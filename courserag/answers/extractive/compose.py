"""The extractive answer: choose the few units that state what the question asks for.

Every unit of the packed sources is scored by how much of the question's subject it holds
(its words, or its meaning when an embedder is given), whether it holds the kind of fact
the question asks for (a date for "when", a room for "where"…), and its source's rank. The
best unit leads; more are added only to cover what the first leaves out (the place of a
"when and where" question), to list what was asked for, or to explain a "why". The answer
is refused — not guessed — when no unit about the subject holds the kind of fact asked for,
or nothing is about the subject at all.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from courserag.lang.bridge import glosses
from courserag.answers.extractive.entities import kinds_in
from courserag.answers.extractive.intent import Ask
from courserag.answers.extractive.recency import issued, states_change
from courserag.answers.extractive.refusal import RefusalModel, decision_features, load_model
from courserag.answers.extractive.units import Unit, source_units
from courserag.retrieval.packing import ContextItem
from courserag.courses.codes import course_codes
from courserag.courses.facts import DIRECTORY_DOC_TYPE
from courserag.lang.matching import matched_tokens, stem
from courserag.lang.textnorm import STOPWORDS, is_chinese, token_weight, word_tokens

UnitSimilarity = Callable[[list[str]], Sequence[float]]
# Word vectors for matching a question's words across languages (None: no word model).
WordVectors = Callable[[list[str]], "object"]
# A question word and a word of the other language mean the same at this cosine of their
# word vectors (USE multilingual v3; measured on course terms: 期末/final 0.66, 迟交/late 0.70,
# 学习率/learning rate 0.86, against at most ~0.5 for unrelated pairs).
TRANSLATION_SIMILARITY = 0.55
MAX_POOL_WORDS = 1500
SYNONYM_SIMILARITY = 0.65
# A Chinese question word that no unit uses (the learner's own wording: 晚交, 没修) is
# matched through the unit word it means, at a stricter similarity than English: measured
# on the sample courses' pools, 晚交/迟交 0.77, 没修/未修过 0.81, 被扣/扣除 0.87, against up to
# ~0.74 for unrelated pairs (定好/更好). Words the materials do use match as themselves only:
# 期末考试 must not match 考前.
CHINESE_SYNONYM_SIMILARITY = 0.76

# Words that say what kind of fact is wanted, or that any question about a course has; the
# question's subject is what is left.
GENERIC_WORDS = frozenset(
    """course class classes materials material say says tell know please about anything information
    date dates day days time times room rooms where when who whom email address phone number numbers
    percentage percent weight deadline held take place happen happens get got need much many long fast allowed
    more some any also just still really very write contact up stuff thing things
    课程 这门课 本课程 资料 请问 时间 地点 教室 日期 哪里 哪个 什么 时候 多少 怎么 如何 是否 可以 能否 需要 一下
    老师 同学 哪一天 哪天 哪几天 几天 一天 哪一年 几点 几号 什么样 怎样 为什么 有没有 能不能 是不是 哪些 哪位 谁 这门 门课 内容
    几个 哪种 哪一种 通常 一般 分别 这一 那个 这些 那些""".split()
)
# "i'm", "don't": a contraction of a function word is a function word.
_CONTRACTION = re.compile(r"^(\w+)['’](?:m|s|re|ve|d|ll|t)$")
# The document type of the course directory's passages (courserag/courses/facts.py).
MAX_UNITS = 3
MAX_LIST_UNITS = 5
MAX_SCORED_UNITS = 80  # units scored per answer (the top sources' units come first)
# What a learner reads in seconds: a unit that would start past this many words (a CJK
# character counts as one) is left out, unless a list was asked for (a list is quoted whole).
MAX_ANSWER_WORDS = 120
_ANSWER_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[A-Za-z0-9]+(?:[.,:/-][A-Za-z0-9]+)*")
# A sentence's similarity margin over the question's floor (calibration.py). Measured on
# the shared sets (the sentence holding the answer vs the best sentence of another
# article): in one language answers sit 0.14-0.19 above the floor and others below 0.10;
# across languages 0.05-0.15 against below 0.06. A margin of one span is full evidence.
SENTENCE_SPAN = 0.20
CROSS_SENTENCE_SPAN = 0.12
# On course material (one domain) every unit sits a little above the floor; the unit that
# answers sits 0.13-0.2 above it.
ON_SUBJECT_MARGIN = 0.12
CROSS_ON_SUBJECT_MARGIN = 0.07
# The unit that holds the kind of fact asked for must also be about the question's subject:
# "Which room is the final exam in?" is not answered by the midterm's room.
NEED_COVERAGE = 0.6
# Share of a unit's subject coverage counted with its section heading (the rest: its own words).
HEADED_SHARE = 0.5
# A neighbour of the best unit (at most NEAR_POSITIONS units away in its source) is quoted
# with it when it scores within NEAR_REACH of it (ADJACENT_REACH for the very next unit of
# the same section).
NEAR_POSITIONS = 3
NEAR_REACH = 0.35
ADJACENT_REACH = 0.5
# A dated notice that says something changed ("moved to LH-1", "改为") is the newer word on
# its subject: it gains this much, and it is quoted first when it is about what the best
# unit is about and scores within NEWER_REACH of it.
NEWER_BONUS = 0.1
NEWER_REACH = 0.35
# A yes/no question ("Can I bring notes?") is answered by the sentence that states the rule
# (what is allowed, required or forbidden): such a unit gains this much.
RULE_BONUS = 0.15


@dataclass(frozen=True)
class Candidate:
    """A unit of source `n`, with what it holds and how well it fits the question."""

    n: int
    unit: Unit
    kinds: frozenset[str]
    coverage: float  # weighted share of the question's subject words in the unit's context
    margin: float  # similarity to the question above its floor (0 without an embedder)
    score: float
    issued: tuple[int, int, int] | None = None  # the date of the notice it is from (recency.py)
    change: bool = False  # it says it replaces something said before

    @property
    def newer(self) -> bool:
        """A dated statement of a change: it outranks what older material says."""
        return self.issued is not None and self.change


@dataclass(frozen=True)
class Composition:
    """The chosen units (answer order), or a refusal with the nearest source to suggest."""

    units: tuple[Candidate, ...]
    refused: bool
    reason: str = ""
    nearest: int | None = None
    newer: tuple[int, int, int] | None = None  # the date of a notice quoted first as the newer word
    features: tuple[tuple[str, float], ...] = ()  # what the answer-or-refuse decision saw (refusal.py)


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
    return bool(match) and (match.group(1) in STOPWORDS or match.group(1) in ("don", "won", "isn", "aren", "didn", "doesn"))


def _coverage(
    subject: set[str], text: str, translations: dict[str, set[str]] | None = None, weights: dict[str, float] | None = None,
    senses: dict[str, list[frozenset[str]]] | None = None,
) -> float:
    """Weighted share of the subject's words in the text, directly or (across languages)
    through a word of the text that translates them, or all the words of one of their
    dictionary senses (期末考 -> "final exam": both words, so "midterm exam" is no match)."""
    if not subject:
        return 0.0
    weight = weights or {t: token_weight(t) for t in subject}
    total = sum(weight[t] for t in subject)
    found = _found(subject, text)
    if translations:
        words = set(_text_words(text))
        found |= {t for t, means in translations.items() if means & words}
    if senses:
        stems = _stems(text)
        found |= {t for t, meanings in senses.items() if any(m <= stems for m in meanings)}
    return sum(weight[t] for t in found) / total if total > 0 else 0.0


def _dictionary_senses(subject: set[str]) -> dict[str, list[frozenset[str]]]:
    """The stemmed English senses of the subject's Chinese words (courserag/lang/bridge.py)."""
    senses = {t: [frozenset(stem(w) for w in sense) for sense in glosses(t)] for t in subject}
    return {t: meanings for t, meanings in senses.items() if meanings}


def _pool_weights(subject: set[str], contexts: list[str]) -> dict[str, float]:
    """A word's weight: its rarity in the language (textnorm.token_weight) times its rarity
    among the units at hand, so that "quicksort" outweighs "worst case" in a notebook where
    every cell talks about worst cases."""
    n = len(contexts)
    weights = {}
    for token in subject:
        df = sum(1 for text in contexts if _found({token}, text))
        weights[token] = token_weight(token) * math.log(1 + (n + 1) / (df + 1))
    return weights


_LATIN = re.compile(r"^[a-z0-9]+$")


@lru_cache(maxsize=65536)
def _stems(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in word_tokens(text, drop_stopwords=False) if _LATIN.match(w))


def _found(subject: set[str], text: str) -> set[str]:
    """The subject's words in the text: Chinese as substrings, English up to a light stem."""
    found = matched_tokens(subject, text)
    stems = _stems(text)
    found |= {t for t in subject if _LATIN.match(t) and stem(t) in stems}
    ordinals = {t for t in subject if t not in found and _ORDINAL.fullmatch(t)}
    return found | ({t for t in ordinals if t in _squeezed(text)} if ordinals else set())


@lru_cache(maxsize=65536)
def _squeezed(text: str) -> str:
    """The text without spaces ("第 8 周" as "第8周"), for ordinals."""
    return _squeeze(text)


def _text_words(text: str) -> list[str]:
    return word_tokens(text, whole_words=True)


def _translations(subject: set[str], pool: list[tuple[int, Unit]], vectors: WordVectors, threshold: float) -> dict[str, set[str]]:
    """For each subject word, the words of the units that mean the same in the other language."""
    import numpy as np

    words = list(dict.fromkeys(w for _, u in pool for w in _text_words(f"{u.heading} {u.context}") if len(w) > 1))
    words = words[:MAX_POOL_WORDS]
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


def _needs_met(ask: Ask, kinds: frozenset[str]) -> float:
    if not ask.needs:
        return 0.0
    return sum(1 for need in ask.needs if need & kinds) / len(ask.needs)


def candidates(
    question: str,
    items: Sequence[ContextItem],
    ask: Ask,
    similarity: UnitSimilarity | None = None,
    people: Sequence[str] = (),
    cross_lingual: bool = False,
    floor: float = 0.0,
    ignore: Sequence[str] = (),
    word_vectors: WordVectors | None = None,
    paraphrase: bool = False,
) -> list[Candidate]:
    """Every unit of the sources, scored for this question (best first). `paraphrase`: a
    Chinese question's words that no unit uses are matched through close synonyms."""
    subject = subject_tokens(question, ignore)
    pool: list[tuple[int, Unit]] = []
    asks_for_people = any("person" in need for need in ask.needs)
    for item in items:
        chunk = item.hit.chunk
        if chunk.doc_type == DIRECTORY_DOC_TYPE and not asks_for_people:
            continue  # the directory names the instructors: it answers "who", nothing else
        # A chunk's first line names what it is about (the last part of a heading path).
        title = item.text.lstrip().split("\n", 1)[0].split(" > ")[-1][:200]
        for unit in source_units(item.text, chunk.doc_type, chunk.locator):
            heading = unit.heading if title in unit.heading else f"{title} {unit.heading}"
            pool.append((item.n, Unit(unit.text, unit.kind, unit.position, unit.context, heading)))
    pool = pool[:MAX_SCORED_UNITS]
    if not pool:
        return []
    texts = {item.n: item.text for item in items}
    margins = [float(s) - floor for s in similarity([u.text for _, u in pool])] if similarity else [0.0] * len(pool)
    # Across languages a word is matched through its translation; within one, through a
    # near-synonym ("sick" / "illness"), at a stricter similarity.
    # Chinese words are matched as themselves (word vectors of Chinese compounds pair an
    # exam with anything exam-like, 期末考试 with 考前, and 证件 with 证明); only when that
    # finds no answer is a word no unit uses taken for the learner's paraphrase of one.
    translations = None
    contexts = [f"{u.heading} {u.context}" for _, u in pool]
    # A Chinese question about English material matches its words through their dictionary
    # senses first: word vectors pair 期末考试 with "midterm exam" (0.79) nearly as closely
    # as with "final exam" (0.81), the dictionary says "final exam". They translate the rest.
    senses = _dictionary_senses(subject) if cross_lingual and is_chinese(question) else {}
    if word_vectors and (cross_lingual or not is_chinese(question)):
        untranslated = subject - set(senses)
        translations = _translations(untranslated, pool, word_vectors, TRANSLATION_SIMILARITY if cross_lingual else SYNONYM_SIMILARITY)
    elif word_vectors and paraphrase:
        unused = {t for t in subject if not _LATIN.match(t) and not any(_found({t}, text) for text in contexts)}
        translations = _translations(unused, pool, word_vectors, CHINESE_SYNONYM_SIMILARITY) if unused else None
    span = CROSS_SENTENCE_SPAN if cross_lingual else SENTENCE_SPAN
    weights = _pool_weights(subject, contexts)
    out = []
    for (n, unit), margin in zip(pool, margins):
        # The unit's own words count half; its section's heading counts too (a row of the
        # "Final exam" section is about the final exam), but cannot make every unit under a
        # heading that names two things equally about both. Measured on course_qa_dev: the
        # heading's share at 0.4 left "Date and time: …" under "Final exam" below a sentence
        # that names the final exam but no date (103/121); 0.5 and 0.6 both give 104/121.
        coverage = (HEADED_SHARE * _coverage(subject, f"{unit.heading} {unit.context}", translations, weights, senses)
                    + (1 - HEADED_SHARE) * _coverage(subject, unit.context, translations, weights, senses))
        kinds = kinds_in(unit.text, people)
        meaning = min(1.0, max(0.0, margin) / span)
        if cross_lingual and not translations and not senses or not subject:
            # No word can be matched across languages, or the question has none but those
            # of its kind ("这门课的老师是谁？"): the meaning decides.
            relevance = meaning
        else:
            relevance = 0.5 * coverage + 0.5 * meaning if similarity else coverage
        date = issued(texts[n], unit.text) if n in texts else None
        change = date is not None and states_change(unit.text)
        score = (relevance + 0.35 * _needs_met(ask, kinds) - 0.04 * (n - 1) - min(0.004 * unit.position, 0.04)
                 + NEWER_BONUS * change + RULE_BONUS * (ask.yes_no and "rule" in kinds))
        out.append(Candidate(n, unit, kinds, coverage, margin, score, date, change))
    return sorted(out, key=lambda c: -c.score)


def _refusal(ranked: list[Candidate], ask: Ask, cross_lingual: bool, min_coverage: float, meaning_only: bool = False) -> str:
    """Why the best evidence does not answer the question ("" when it does). `meaning_only`:
    the question has no subject words, so no unit can name its subject; its meaning must do."""
    best = ranked[0]
    needed_margin = CROSS_ON_SUBJECT_MARGIN if cross_lingual else ON_SUBJECT_MARGIN
    on_subject = [c for c in ranked if c.coverage >= min_coverage or c.margin >= needed_margin]
    if not on_subject:
        return "no_subject"
    for need in ask.needs:
        accepted = need | {"condition"} if "date" in need else need  # "when does it resize?" -> "when it holds…"
        holders = [c for c in on_subject[:8] if accepted & c.kinds]
        # In the question's language the holder must name the subject; across languages
        # (no shared words) its meaning has to do.
        if not any(c.coverage >= NEED_COVERAGE or (cross_lingual or meaning_only or c.coverage >= NEED_COVERAGE / 2) and c.margin >= needed_margin
                   for c in holders):
            return "missing:" + "/".join(sorted(need))
    return "" if best.score > 0 else "no_evidence"


def compose(
    question: str,
    items: Sequence[ContextItem],
    ask: Ask,
    similarity: UnitSimilarity | None = None,
    people: Sequence[str] = (),
    cross_lingual: bool = False,
    min_coverage: float = 0.5,
    floor: float = 0.0,
    required: Sequence[str] = (),
    ignore: Sequence[str] = (),
    word_vectors: WordVectors | None = None,
    refusal_model: RefusalModel | None | str = "shipped",
) -> Composition:
    """Choose the answer's units (or refuse), pure given `similarity`.

    `required` are identifiers (course codes of no listed course) that every quoted unit
    must name: a question about MAT-2040 is answered only by what the materials say of it.
    `refusal_model` decides whether the best units answer at all (refusal.py; "shipped":
    the fitted weights, None: the hand-set rules of `_refusal`).
    """
    # Without an embedder there are no margins for the model to weigh: the rules decide.
    model = (load_model() if refusal_model == "shipped" else refusal_model) if similarity is not None else None
    similarity = _remembered(similarity)  # the paraphrase retry below scores the same units
    ranked = candidates(question, items, ask, similarity, people, cross_lingual, floor, tuple(ignore) + tuple(required), word_vectors)
    if not ranked:
        return Composition((), True, "no_units", None)
    if required:
        # Only what names the code can answer, and it must still be about the rest of the
        # question ("the late policy for MAT-2040" is not answered by MAT-2040's prerequisites).
        naming = [c for c in ranked if all(code in _identifiers(f"{c.unit.heading} {c.unit.context}") for code in required)]
        if not any(c.coverage >= min_coverage for c in naming) and subject_tokens(question, tuple(required) + tuple(ignore)):
            return Composition((), True, "missing_code", ranked[0].n)
        ranked = naming
    subject = subject_tokens(question, tuple(ignore) + tuple(required))
    meaning_only = not subject
    needed_margin = CROSS_ON_SUBJECT_MARGIN if cross_lingual else ON_SUBJECT_MARGIN

    def decide(ranked: list[Candidate]) -> tuple[str, dict[str, float]]:
        features = decision_features(ranked, ask.needs, ask.yes_no, len(subject), cross_lingual, is_chinese(question),
                                     needed_margin, min_coverage)
        # A question of only question words ("这门课的老师是谁？") has no subject for the
        # model's features to weigh, and its fitting questions almost always have one: there
        # its meaning must reach the on-subject margin, as the rules say.
        rules = _refusal(ranked, ask, cross_lingual, min_coverage, meaning_only)
        # The kind of fact asked for and held by no unit about the subject ("the TA's phone
        # number" where only e-mails are listed, the final exam's room where only the
        # midterm's is) stays a refusal: SyllabusQA's questions rarely ask so, and with it
        # left to the model course_qa_dev refused 0.47 of its out-of-scope questions, not 1.0.
        if model is None or meaning_only or rules.startswith("missing:"):
            return rules, features
        return ("" if model.answers(features) else "calibrated"), features

    reason, features = decide(ranked)
    if reason and word_vectors and is_chinese(question) and not cross_lingual and not required:
        ranked = candidates(question, items, ask, similarity, people, cross_lingual, floor, tuple(ignore), word_vectors, paraphrase=True)
        reason, _ = decide(ranked)
    seen = tuple(features.items())
    if reason:
        return Composition((), True, reason, ranked[0].n, features=seen)
    on_subject = lambda c: c.coverage >= min_coverage or c.margin >= needed_margin  # noqa: E731
    chosen = _select(ranked, ask, on_subject)
    chosen, newer = _newer_first(chosen, ranked, ask, on_subject)
    if not ask.wants_list:
        chosen = within_words(chosen, MAX_ANSWER_WORDS)
    return Composition(tuple(chosen), False, newer=newer, features=seen)


def within_words(chosen: Sequence[Candidate], budget: int) -> list[Candidate]:
    """The units that start within the first `budget` words (the first always)."""
    kept, used = [], 0
    for c in chosen:
        if kept and used >= budget:
            break
        kept.append(c)
        used += len(_ANSWER_WORD.findall(c.unit.text))
    return kept


def _newer_first(chosen: list[Candidate], ranked: list[Candidate], ask: Ask, on_subject: Callable[[Candidate], bool]
                 ) -> tuple[list[Candidate], tuple[int, int, int] | None]:
    """The chosen units in source order, but a dated statement of a change about what the
    best unit answers first (added when it was left out): the syllabus may name a room
    that a later announcement changed. Also the notice's date, when it is put before
    other statements (the answer says so); None otherwise."""
    best = chosen[0]
    limit = MAX_LIST_UNITS if ask.wants_list else MAX_UNITS

    def same_subject(c: Candidate) -> bool:
        # It names the question's subject about as well as the best unit does (or well enough)
        # and holds a kind of fact asked for that the best unit holds.
        return (on_subject(c) and c.score >= best.score - NEWER_REACH and c.coverage >= min(best.coverage, NEED_COVERAGE)
                and (not ask.needs or any(need & c.kinds and need & best.kinds for need in ask.needs)))

    # Only newer than the best unit: a notice's later entry is not overruled by its earlier one.
    rivals = [c for c in ranked if c.newer and same_subject(c) and (c is best or best.issued is None or c.issued > best.issued)]
    if not rivals:
        return sorted(chosen, key=lambda c: (c.n, c.unit.position)), None
    pick = max(rivals, key=lambda c: (c.issued, c.score))
    rest = [c for c in chosen if c is not pick and not _contained(c, [pick])]
    rest = sorted(rest[: limit - 1], key=lambda c: (c.n, c.unit.position))
    overruled = pick is not best or any(c.issued is None or c.issued < pick.issued for c in rest)
    return [pick, *rest], pick.issued if overruled else None


def _distance(candidate: Candidate, anchor: Candidate) -> tuple[int, int]:
    """How far a unit is from the best one: another source is farther than any unit of its own."""
    return (candidate.n != anchor.n, abs(candidate.unit.position - anchor.unit.position))


def _select(ranked: list[Candidate], ask: Ask, on_subject: Callable[[Candidate], bool]) -> list[Candidate]:
    """The best unit, then what it leaves out: a unit for each fact kind still missing (the
    nearest one about the subject), the best unit's neighbours when the question wants more
    than one fact (a policy, a yes/no with its reason, an explanation, a list), and for lists
    the other strong units."""
    best = ranked[0]
    chosen = [best]
    limit = MAX_LIST_UNITS if ask.wants_list else MAX_UNITS

    def fresh(c: Candidate) -> bool:
        return c not in chosen and not _contained(c, chosen)

    def add_nearest_first(pool: list[Candidate]) -> None:
        for c in sorted(pool, key=lambda c: _distance(c, best)):
            if len(chosen) < limit and fresh(c):
                chosen.append(c)

    def near(c: Candidate) -> bool:
        return c.n == best.n and 0 < abs(c.unit.position - best.unit.position) <= NEAR_POSITIONS

    missing = [need for need in ask.needs if not need & best.kinds]
    while missing and len(chosen) < limit:
        pool = [c for c in ranked if fresh(c) and on_subject(c) and c.score >= best.score - 0.5
                and any(need & c.kinds for need in missing)]
        if not pool:
            break
        pick = min(pool, key=lambda c: (_distance(c, best), -c.score))
        chosen.append(pick)
        missing = [need for need in missing if not need & pick.kinds]
    if ask.needs and best.unit.kind == "item":
        # A rule in cases (one list item per case: "within 24 hours: 20%; 24-48 hours: 50%")
        # is quoted with its other cases that state the fact asked for: which case is the
        # learner's is theirs to read, not the composer's to guess.
        add_nearest_first([c for c in ranked if near(c) and c.unit.kind == "item" and c.unit.heading == best.unit.heading
                           and c.score >= best.score - NEAR_REACH and any(need & c.kinds for need in ask.needs)])
    if not ask.needs or ask.yes_no or ask.explanation or ask.procedure or ask.wants_list:
        add_nearest_first([c for c in ranked if near(c) and (on_subject(c) or c.unit.heading == best.unit.heading)
                           and c.score >= best.score - _reach(c, best)])
    if ask.wants_list:
        for c in ranked:
            if len(chosen) < limit and fresh(c) and on_subject(c) and c.score >= best.score - 0.15:
                chosen.append(c)
    return chosen


def _remembered(similarity: UnitSimilarity | None) -> UnitSimilarity | None:
    """`similarity` answering a second call for the same texts from memory (it embeds them)."""
    if similarity is None:
        return None
    memory: dict[tuple[str, ...], Sequence[float]] = {}

    def remembered(texts: list[str]) -> Sequence[float]:
        key = tuple(texts)
        if key not in memory:
            memory[key] = similarity(texts)
        return memory[key]

    return remembered


def _reach(candidate: Candidate, best: Candidate) -> float:
    """How far below the best unit a neighbour may score and still be quoted with it: the
    sentence right after it in the same section usually completes its rule (the deadline
    for the request, the limit of the penalty), so it may score lower than one further off."""
    adjacent = candidate.unit.position == best.unit.position + 1 and candidate.unit.heading == best.unit.heading
    return ADJACENT_REACH if adjacent else NEAR_REACH


def _contained(candidate: Candidate, chosen: list[Candidate]) -> bool:
    """A unit whose text is inside one already chosen (an item inside its list) adds nothing."""
    return any(candidate.unit.text in c.unit.text or c.unit.text in candidate.unit.text for c in chosen)


def render(composition: Composition, lead: str) -> str:
    """'From the materials:' then one line per unit, each marked with its source number."""
    lines = [f"- {c.unit.text} [{c.n}]" for c in composition.units]
    return lead + "\n" + "\n".join(lines) if lines else ""


def _identifiers(text: str) -> set[str]:
    return set(course_codes(text))
