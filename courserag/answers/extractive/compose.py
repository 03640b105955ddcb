"""The extractive answer: choose the passage that states what the question asks for.

Every unit of the packed sources is scored by how much of the question's subject it holds
(its words, or its meaning when an embedder is given), whether it holds the kind of fact
the question asks for (a date for "when", a room for "which room"…), and its source's rank.
With an embedder the fitted unit model (unit_model.py) orders the units on those
measurements, and a fitted passage model (passages.py) picks the run of consecutive units to
quote; a unit is added for a kind of fact asked for that the passage lacks (the place of a
"when and where" question). The answer-or-refuse decision reads the units in the order of
their hand-set sum, on which it was fitted (refusal.py). The answer is refused — not guessed
— when no unit about the subject holds a kind of fact asked for that the detectors reliably
see (kinds.py), or nothing is about the subject at all. Without an embedder the hand-set sum
orders the units and select.py adds the best unit's neighbours.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from courserag.answers.extractive.answer_shape import (
    distinct,
    holds_fact,
    paragraph_quotes,
    quotable,
    render_lines,
    short_fact,
    within_budget,
    words_in,
)
from courserag.answers.extractive.candidate import Candidate, Composition, UnitSimilarity
from courserag.answers.extractive.entities import kinds_in
from courserag.answers.extractive.kinds import accepted, reliably_detected
from courserag.answers.extractive.params import PARAMS
from courserag.answers.extractive.passages import PassageModel, best_passages, load_passage_model
from courserag.answers.extractive.recency import issued, states_change
from courserag.answers.extractive.refusal import RefusalModel, decision_features, load_model, retrieval_relevance
from courserag.answers.extractive.reread import RereadModel, load_reread_model, reread_choice
from courserag.answers.extractive.select import complete_needs, newer_first, select
from courserag.answers.extractive.shape import heading_like
from courserag.answers.extractive.subject import (
    LATIN_WORD,
    WordVectors,
    dictionary_senses,
    found_words,
    pool_weights,
    subject_coverage,
    subject_tokens,
    word_translations,
)
from courserag.answers.extractive.unit_model import UnitFacts, UnitModel, shipped_model_for, unit_features
from courserag.answers.extractive.units import Unit, source_units
from courserag.courses.codes import course_codes
from courserag.courses.facts import DIRECTORY_DOC_TYPE
from courserag.embedders.groups import UnitMatches, meaning_of
from courserag.lang.intent import Ask
from courserag.lang.query import Query
from courserag.retrieval.packing import ContextItem


def _needs_met(ask: Ask, kinds: frozenset[str]) -> float:
    if not ask.needs:
        return 0.0
    return sum(1 for need in ask.needs if need & kinds) / len(ask.needs)


def candidates(
    query: Query,
    items: Sequence[ContextItem],
    similarity: UnitSimilarity | None = None,
    people: Sequence[str] = (),
    ignore: Sequence[str] = (),
    word_vectors: WordVectors | None = None,
    paraphrase: bool = False,
    unit_model: UnitModel | None | str = None,
) -> list[Candidate]:
    """Every unit of the sources, scored for this question (best first). `paraphrase`: a
    Chinese question's words that no unit uses are matched through close synonyms.
    `unit_model` ranks them (unit_model.py; "shipped": the fitted weights; None, the
    default here: the hand-set sum, which the fitting rows are collected in)."""
    ask, cross_lingual = query.ask, query.across
    subject = subject_tokens(query.text, ignore)
    pool: list[tuple[int, Unit]] = []
    groups: list[list[Unit]] = []  # each source's units, in source order
    asks_for_people = any("person" in need for need in ask.needs)
    for item in items:
        chunk = item.hit.chunk
        if chunk.doc_type == DIRECTORY_DOC_TYPE and not asks_for_people:
            continue  # the directory names the instructors: it answers "who", nothing else
        if len(pool) >= PARAMS.max_scored_units:
            break
        # A chunk's first line names what it is about (the last part of a heading path).
        title = item.text.lstrip().split("\n", 1)[0].split(" > ")[-1][:200]
        group = []
        for unit in source_units(item.text, chunk.doc_type, chunk.locator):
            heading = unit.heading if title in unit.heading else f"{title} {unit.heading}"
            group.append(Unit(unit.text, unit.kind, unit.position, unit.context, heading))
        groups.append(group)
        pool.extend((item.n, unit) for unit in group)
    pool = pool[: PARAMS.max_scored_units]
    if not pool:
        return []
    texts = {item.n: item.text for item in items}
    margins, token_matches = _margins(groups, similarity, query.floor)
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
    senses = dictionary_senses(subject) if cross_lingual and query.chinese else {}
    if word_vectors and (cross_lingual or not query.chinese):
        untranslated = subject - set(senses)
        if not cross_lingual:
            # A Latin word of one or two letters ("wi" and "fi" of "Wi-Fi", "pm") has no
            # meaning of its own for a near-synonym: its vector sits near every other short
            # token's (wi-o 0.72, e-o 0.79 with the default embedder). It is matched as itself.
            untranslated = {t for t in untranslated if not (LATIN_WORD.match(t) and len(t) < 3)}
        translations = word_translations(
            untranslated,
            pool,
            word_vectors,
            PARAMS.translation_similarity if cross_lingual else PARAMS.synonym_similarity,
        )
    elif word_vectors and paraphrase:
        unused = {
            t for t in subject if not LATIN_WORD.match(t) and not any(found_words({t}, text) for text in contexts)
        }
        translations = (
            word_translations(unused, pool, word_vectors, PARAMS.chinese_synonym_similarity) if unused else None
        )
    span = PARAMS.cross_sentence_span if cross_lingual else PARAMS.sentence_span
    weights = pool_weights(subject, contexts)
    out: list[Candidate] = []
    facts: list[UnitFacts] = []
    for (n, unit), margin, token_match in zip(pool, margins, token_matches):
        # The unit's own words count half; its section's heading counts too (a row of the
        # "Final exam" section is about the final exam), but cannot make every unit under a
        # heading that names two things equally about both. Measured on course_qa_dev: the
        # heading's share at 0.4 left "Date and time: …" under "Final exam" below a sentence
        # that names the final exam but no date (103/121); 0.5 and 0.6 both give 104/121.
        headed = subject_coverage(subject, f"{unit.heading} {unit.context}", translations, weights, senses)
        own = subject_coverage(subject, unit.context, translations, weights, senses)
        coverage = PARAMS.headed_share * headed + (1 - PARAMS.headed_share) * own
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
        score = (
            relevance
            + 0.35 * _needs_met(ask, kinds)
            - 0.04 * (n - 1)
            - min(0.004 * unit.position, 0.04)
            + PARAMS.newer_bonus * change
            + PARAMS.rule_bonus * (ask.yes_no and "rule" in kinds)
        )
        out.append(Candidate(n, unit, kinds, coverage, margin, score, date, change))
        facts.append(
            UnitFacts(
                n,
                unit.position,
                unit.kind,
                margin,
                own,
                headed,
                _needs_met(ask, kinds),
                bool(ask.needs),
                ask.yes_no and "rule" in kinds,
                unit.kind != "row" and heading_like(unit.text),  # a table row keeps its headers: data, not a grid
                words_in(unit.text),
                token_match,
            )
        )
    return _ranked(out, unit_features(facts, cross_lingual), unit_model)


def _margins(
    groups: Sequence[Sequence[Unit]], similarity: UnitSimilarity | None, floor: float
) -> tuple[list[float], list[float | None]]:
    """Each unit's similarity above the floor and its token match (None where there is
    none), in pool order. A source's units are measured together and whole, whichever of
    them are scored: the same source then always gets the same vectors (embedders/groups.py
    keeps them between questions)."""
    count = sum(len(g) for g in groups)
    if similarity is None:
        return [0.0] * count, [None] * count
    margins: list[float] = []
    tokens: list[float | None] = []
    for group in groups:
        if not group:
            continue
        found = similarity([u.text for u in group])
        meaning, matched = meaning_of(found), found.tokens if isinstance(found, UnitMatches) else None
        margins.extend(float(s) - floor for s in meaning)
        tokens.extend([float(t) for t in matched] if matched is not None else [None] * len(group))
    return margins, tokens


def _ranked(out: list[Candidate], features: list[dict[str, float]], model: UnitModel | None | str) -> list[Candidate]:
    """Best first: by the fitted model's score (a dated notice of a change is put first, when
    it is about the same thing, by select.newer_first), by the hand-set sum without a model.
    "shipped": the fitted model for what the embedder measured (unit_model.shipped_model_for)."""
    if model == "shipped":
        model = shipped_model_for(features)
    if model is None:
        return sorted((replace(c, features=f) for c, f in zip(out, features)), key=lambda c: -c.score)
    scored = [replace(c, p=model.logit(f), features=f) for c, f in zip(out, features)]
    return sorted(scored, key=lambda c: -c.p)


def _refusal(
    ranked: list[Candidate],
    ask: Ask,
    cross_lingual: bool,
    min_coverage: float,
    meaning_only: bool = False,
    materials: str = "en",
) -> str:
    """Why the best evidence does not answer the question ("" when it does). `meaning_only`:
    the question has no subject words, so no unit can name its subject; its meaning must do.
    `materials`: the script of the text the units are in, in one language ("en" or "zh", kinds.py)."""
    if not ranked:
        return "no_units"
    best = ranked[0]
    needed_margin = PARAMS.cross_on_subject_margin if cross_lingual else PARAMS.on_subject_margin
    on_subject = [c for c in ranked if c.coverage >= min_coverage or c.margin >= needed_margin]
    if not on_subject:
        return "no_subject"
    # A kind is required only where the detectors see it in the materials' script (kinds.py):
    # a name or a place written in Chinese has no capital letters, an English place no
    # pattern. Across languages none is: the unit that holds it must also name the subject,
    # and words matched through their translation name it too weakly (XQuAD: requiring
    # English numbers of Chinese questions refused 0.037 of them, against 0.007 without).
    # Elsewhere the fitted decision weighs whether the kind is held.
    for need in () if cross_lingual else (need for need in ask.needs if reliably_detected(need, materials)):
        holders = [c for c in on_subject[:8] if accepted(need) & c.kinds]
        if not any(_names_subject(c, needed_margin, meaning_only) for c in holders):
            return "missing:" + "/".join(sorted(need))
    return "" if best.score > 0 else "no_evidence"


def _names_subject(c: Candidate, needed_margin: float, meaning_only: bool) -> bool:
    """The unit names the question's subject, or means it when the question has no subject
    words: what a unit holding the asked kind of fact must do to answer with it."""
    return c.coverage >= PARAMS.need_coverage or (
        (meaning_only or c.coverage >= PARAMS.need_coverage / 2) and c.margin >= needed_margin
    )


def _nearest(best: Candidate, meaning_only: bool) -> int | None:
    """The source a refusal points at: the best unit's, when it names some of the question's
    subject (or the question has none, so its meaning chose the unit). An off-topic question's
    best match ("What is the Wi-Fi password?" -> a slide on graphs) is no place to look."""
    return best.n if meaning_only or best.coverage > 0 else None


def compose(
    query: Query,
    items: Sequence[ContextItem],
    similarity: UnitSimilarity | None = None,
    people: Sequence[str] = (),
    min_coverage: float = 0.5,
    required: Sequence[str] = (),
    ignore: Sequence[str] = (),
    word_vectors: WordVectors | None = None,
    refusal_model: RefusalModel | None | str = "shipped",
    unit_model: UnitModel | None | str = "shipped",
    passage_model: PassageModel | None | str = "shipped",
    passage_similarity: UnitSimilarity | None = None,
    reread_model: RereadModel | None | str = "shipped",
) -> Composition:
    """Choose the answer's units (or refuse) for `query` (its search text, what it asks for,
    whether it crosses languages, its floor), pure given `similarity`.

    `required` are identifiers (course codes of no listed course) that every quoted unit
    must name: a question about MAT-2040 is answered only by what the materials say of it.
    `refusal_model` decides whether the best units answer at all (refusal.py; "shipped":
    the fitted weights, None: the hand-set rules of `_refusal`).
    `unit_model` orders the units to quote (unit_model.py; "shipped": the fitted weights,
    None: the hand-set sum). Whether to answer is decided on the hand-set order's numbers, the
    unit model's best score and its share, and the best token match (refusal.py).
    `passage_model` chooses the passage quoted when the unit model ranks (passages.py;
    None: select.py's hand-set neighbours). Given `passage_similarity` (what `similarity`
    measures, of whole runs), the likeliest passages of a question in the materials' language
    are read again whole and `reread_model` chooses among them (reread.py; None: the passage
    model alone).
    """
    # Without an embedder there are no margins for the models to weigh: the rules and the
    # hand-set sum decide.
    model = (load_model() if refusal_model == "shipped" else refusal_model) if similarity is not None else None
    unit_model = unit_model if similarity is not None else None
    similarity = _remembered(similarity)  # the paraphrase retry below scores the same units
    ask, cross_lingual = query.ask, query.across
    ranked = candidates(
        query, items, similarity, people, tuple(ignore) + tuple(required), word_vectors, unit_model=unit_model
    )
    if not ranked:
        return Composition((), True, "no_units", None)
    if required:
        # Only what names the code can answer, and it must still be about the rest of the
        # question ("the late policy for MAT-2040" is not answered by MAT-2040's prerequisites).
        naming = [
            c for c in ranked if all(code in _identifiers(f"{c.unit.heading} {c.unit.context}") for code in required)
        ]
        if not naming or (
            not any(c.coverage >= min_coverage for c in naming)
            and subject_tokens(query.text, tuple(required) + tuple(ignore))
        ):
            # Nothing names the code ("Which room is PHY2001 in?" where no file mentions it):
            # a refusal that points at the best unit of all, not an empty list to read from.
            return Composition((), True, "missing_code", ranked[0].n)
        ranked = naming
    subject = subject_tokens(query.text, tuple(ignore) + tuple(required))
    meaning_only = not subject
    needed_margin = PARAMS.cross_on_subject_margin if cross_lingual else PARAMS.on_subject_margin

    def decide(ranked: list[Candidate]) -> tuple[str, dict[str, float]]:
        # Whether to answer is decided on the evidence in the order of the composer's score,
        # whatever orders the quotes: the refusal model was fitted on that order's features.
        ranked = sorted(ranked, key=lambda c: -c.score)
        features = decision_features(
            ranked,
            ask.needs,
            ask.yes_no,
            len(subject),
            cross_lingual,
            query.chinese,
            needed_margin,
            min_coverage,
            retrieval_relevance(item.hit for item in items),
        )
        # A question of only question words ("这门课的老师是谁？") has no subject for the
        # model's features to weigh, and its fitting questions almost always have one: there
        # its meaning must reach the on-subject margin, as the rules say.
        rules = _refusal(ranked, ask, cross_lingual, min_coverage, meaning_only, query.language)
        # A kind of fact asked for, seen reliably by its detector and held by no unit about
        # the subject ("the TA's phone number" where only e-mails are listed) stays a
        # refusal: SyllabusQA's questions rarely ask so, and with it left to the model
        # course_qa_dev refused 0.47 of its out-of-scope questions, not 1.0.
        if model is None or meaning_only or rules.startswith("missing:"):
            return rules, features
        return ("" if model.answers(features) else "calibrated"), features

    reason, features = decide(ranked)
    if reason and word_vectors and query.chinese and not cross_lingual and not required:
        # The same question read through its words' dictionary senses; kept only when it
        # still finds units to read.
        ranked = (
            candidates(
                query, items, similarity, people, tuple(ignore), word_vectors, paraphrase=True, unit_model=unit_model
            )
            or ranked
        )
        reason, _ = decide(ranked)
    seen = tuple(features.items())
    if reason:
        return Composition((), True, reason, _nearest(ranked[0], meaning_only), features=seen)
    on_subject = lambda c: c.coverage >= min_coverage or c.margin >= needed_margin  # noqa: E731
    names_subject = lambda c: _names_subject(c, needed_margin, meaning_only)  # noqa: E731
    # Headings, contents lines and grids are never quoted (answer_shape.quotable).
    ranked = [
        c for c in ranked if quotable(c.unit.text, c.kinds, ask.needs, bool(c.features and c.features["heading_like"]))
    ] or ranked[:1]
    passage_model = (
        (load_passage_model() if passage_model == "shipped" else passage_model) if unit_model is not None else None
    )
    second: set[int] = set()  # the units only a second passage brought: quoted, never the fact line
    if passage_model is not None:
        # One passage (runs of consecutive units, passages.py), its best unit first, then a
        # unit for each asked kind of fact it does not hold, then a second passage where the
        # first leaves room. The likeliest passages are read again whole within one language
        # only: across languages both models embed them (29 ms for two runs, 18 ms within
        # one), for +0.003-0.004 correct on XQuAD (docs/DECISIONS.md).
        reread_model = load_reread_model() if reread_model == "shipped" else reread_model
        reread = (
            reread_choice(reread_model, passage_similarity, query.floor)
            if passage_similarity is not None and reread_model is not None and not cross_lingual
            else None
        )
        passage, *more = best_passages(ranked, passage_model, cross_lingual, ask.long_answer, on_subject, reread)
        lead = [passage.best, *(c for c in passage.units if c is not passage.best)]
        chosen = complete_needs(lead, ranked, ask, on_subject, len(lead) + len(ask.needs))
        quoted = {id(c) for c in chosen}
        extra = [c for run in more for c in run.units if id(c) not in quoted]
        second = {id(c) for c in extra}
        chosen += extra
    else:
        chosen = select(ranked, ask, on_subject)
    chosen, newer = newer_first(chosen, ranked, ask, on_subject)
    chosen = [chosen[i] for i in distinct([c.unit.text for c in chosen])]
    if not ask.wants_list:
        chosen = within_words(chosen, PARAMS.max_answer_words)
    # The fact asked for, from the best quote that holds that kind of fact, when it holds
    # exactly one: a neighbour quoted beside a rule of three cases may hold a number of its
    # own ("不超过 4 页"), which answers nothing. The quotes stand in source order, so the
    # best is not always first.
    by_rank = sorted(
        (c for c in chosen if id(c) not in second), key=lambda c: -(c.p if unit_model is not None else c.score)
    )
    # ...and names the question's subject: "理学楼 305 教室" is where the class meets, not the
    # final exam's room, and a fact line says it as the answer.
    holder = next((c for c in by_rank if names_subject(c) and holds_fact(c.unit.text, ask.needs)), None)
    fact = short_fact(holder.unit.text, ask.needs) if holder and not ask.wants_list else None
    fact_n = holder.n if fact else None
    return Composition(
        tuple(chosen), False, newer=newer, features=seen, fact=fact, fact_n=fact_n, wants_list=ask.wants_list
    )


def within_words(chosen: Sequence[Candidate], budget: int) -> list[Candidate]:
    """The units that start within the first `budget` words (the first always)."""
    return list(chosen[: within_budget([words_in(c.unit.text) for c in chosen], budget)])


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


def render(composition: Composition, lead: str) -> str:
    """'From the materials:', the short fact asked for, then one line per unit, each marked
    with its source number (answer_shape.py)."""
    # A list is quoted an item a line (a follow-up may point at "the second one"); otherwise
    # the sentences that follow each other read as one paragraph.
    pieces = [(c.unit.text, c.n, c.unit.position, c.unit.kind) for c in composition.units]
    quotes = [(text, n) for text, n, _, _ in pieces] if composition.wants_list else paragraph_quotes(pieces)
    lines = render_lines(quotes, composition.fact, composition.wants_list, composition.fact_n)
    return lead + "\n" + "\n".join(lines) if lines else ""


def _identifiers(text: str) -> set[str]:
    return set(course_codes(text))
