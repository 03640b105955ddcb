"""Everything before the answer: embed the question, search both paths, fuse, rank, pack.

The course store (filtered by course id) and the session's pool are each searched by vector
and by BM25; the four lists are merged, the best sentence of each candidate is blended in,
the ranker orders them and refuses when nothing is relevant, and what is left is cut to the
token budget. A store that fails becomes a notice, never an exception for the learner.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Sequence

from courserag.answers.llm import ChatAnswerer
from courserag.courses.codes import own_codes
from courserag.courses.directory import Course
from courserag.courses.facts import DirectoryFacts, EmbeddedOnce, directory_chunks, keep_material, offer_passages
from courserag.engine.parts import EngineParts
from courserag.engine.requests import Question
from courserag.errors import LLMUnavailableError, StoreUnavailableError
from courserag.i18n.messages import Notice
from courserag.lang.bridge import english_words
from courserag.lang.identifiers import extract_identifiers, identifier_words
from courserag.lang.matching import matched_tokens
from courserag.lang.query import read_query
from courserag.records import Chunk, ScoredChunk
from courserag.results import Retrieval
from courserag.retrieval import ranking
from courserag.retrieval.calibration import BACKGROUND, floor_of
from courserag.retrieval.followup import (
    Resolution,
    clean_rewrite,
    looks_like_followup,
    resolve_followup,
    rewrite_messages,
)
from courserag.retrieval.packing import pack_context
from courserag.retrieval.ranking import RankQuery
from courserag.retrieval.sentence_vectors import with_sentences
from courserag.retrieval.session_pool import SessionPool

log = logging.getLogger(__name__)

OFFERED_STORE = "offered"  # the store an offered passage's hit names


class Retriever:
    """Turns a `Question` into a `Retrieval`: the packed, numbered sources for the answerer."""

    def __init__(self, parts: EngineParts):
        self.parts = parts
        self._background = None  # vectors of calibration.BACKGROUND, embedded on first use
        self._background_lock = threading.Lock()
        self._directory = DirectoryFacts()  # the courses' directory fields as passages
        self._offered = EmbeddedOnce()  # the vectors of passages offered (the catalog's answer)

    def retrieve(self, question: Question, course: Course, offered: Sequence[Chunk] = ()) -> Retrieval:
        """Embed, search both paths, fuse, rank, pack.

        `offered` are passages from outside the materials (the catalog's answer about the
        course, engine/catalog_path.py) that compete with the course's passages and the
        notes: whether one answers best is `Retrieval.offered_best`; they are never among
        the sources, which the materials' answer quotes."""
        started = time.perf_counter()
        parts, cfg = self.parts, self.parts.settings.retrieval
        resolution = self._standalone_query(question.text, question.history)
        query = read_query(question.text, resolution.query, course.language)
        vector = parts.embedder.embed_query_for(query.text, query.across)
        query = query.with_vector(vector, self._floor(vector))
        tokens = list(query.tokens)
        # BM25 also looks for the English of a Chinese question's words (bridge.py).
        search_tokens = tokens + english_words(query.text) if query.across and query.chinese and cfg.bridge else tokens
        n = max(cfg.candidate_multiplier * cfg.top_k, cfg.min_candidates if parts.ranker.name == "hybrid" else 0)
        notices: list[Notice] = []
        vector_lists: list[list[ScoredChunk]] = []
        lexical_lists: list[list[ScoredChunk]] = []
        if question.scope in ("both", "course"):
            course_vec, course_lex = self._search_course(course.id, vector, search_tokens, n, notices)
            course_vec, course_lex = self._directory.offer(
                course, parts.embed_texts, vector, tokens, course_vec, course_lex
            )
            course_vec, course_lex = offer_passages(
                offered,
                self._offered.similarities(offered, parts.embed_texts, vector),
                tokens,
                course_vec,
                course_lex,
                OFFERED_STORE,
            )
            vector_lists.append(course_vec)
            lexical_lists.append(course_lex)
        pool = parts.sessions.peek(question.session_id) if question.scope in ("both", "notes") else None
        if pool is not None and len(pool):
            vector_lists.append(pool.vector_search(vector, n))
            lexical_lists.append(pool.lexical_search(search_tokens, n))
        candidates = ranking.merge_candidates(vector_lists, lexical_lists)
        if parts.ranker.name == "hybrid" and cfg.sentence_weight > 0:  # the reference design has no use for it
            candidates = with_sentences(candidates, self.best_sentences(course.id, pool, candidates, vector))
        # The course's own code names the course, not a fact: it must not lift every chunk
        # that mentions it above the one that answers.
        identifiers = extract_identifiers(query.text) - own_codes(course)
        rank_query = RankQuery(query.tokens, identifiers, query.chinese, query.floor, parts.embedder.reads_chinese)
        # Everything the ranker keeps, best first: whether it is confident reads them all (a
        # source that reached the gate may rank below the top_k); the sources are the best.
        everything = parts.ranker.rank(candidates, rank_query, len(candidates))
        offered_ids = {chunk.id for chunk in offered}
        kept = [hit for hit in everything if hit.chunk.id not in offered_ids]
        ranked = keep_material(kept[: cfg.top_k + len(directory_chunks(course))], cfg.top_k)
        items = pack_context(
            ranked,
            parts.embedder.count_tokens,
            parts.embedder.truncate_to_tokens,
            cfg.max_chunk_tokens,
            cfg.context_token_budget,
        )
        elapsed = (time.perf_counter() - started) * 1000
        return Retrieval(
            question.text,
            query,
            items,
            notices,
            elapsed,
            len(candidates),
            focus=resolution.item,
            siblings=resolution.others,
            confident=_confident(parts.ranker, kept, rank_query),
            offered_best=_offered_best(parts.ranker, everything, offered_ids, rank_query),
            offered_outdone=_offered_outdone(parts.ranker, everything, offered_ids, rank_query),
        )

    def _search_course(self, course_id: str, vector, tokens, n: int, notices: list[Notice]):
        """Both candidate lists from the course store; an unreachable store is a notice."""
        store = self.parts.store
        try:
            hits = store.search(course_id, vector, tokens, n)
        except StoreUnavailableError as exc:
            log.warning("course store %s failed: %s", store.name, exc)
            notices.append(
                Notice("course_store_down", {"store": store.name, "detail": str(exc), "rest": Notice("rest_notes")})
            )
            return [], []
        notices.extend(hits.notices)
        if not hits.vector and not hits.lexical and _never_indexed(store, course_id):
            notices.append(Notice("course_not_indexed", {"course_id": course_id}))
        return hits.vector, hits.lexical

    def best_sentences(
        self, course_id: str, pool: SessionPool | None, candidates: Sequence[ScoredChunk], vector
    ) -> dict[str, float]:
        """The candidates' best sentence similarities (sentence_vectors.py), from the course
        store and the session's pool; a store that fails here only costs the signal."""
        course_ids = [c.chunk.id for c in candidates if c.chunk.origin == "course"]
        upload_ids = [c.chunk.id for c in candidates if c.chunk.origin != "course"]
        best: dict[str, float] = {}
        if course_ids:
            try:
                best.update(self.parts.store.best_sentences(course_id, course_ids, vector))
            except StoreUnavailableError as exc:
                log.warning("sentence scores of course %s failed: %s", course_id, exc)
        if pool is not None and upload_ids:
            best.update(pool.best_sentences(upload_ids, vector))
        return best

    def _standalone_query(self, question: str, history: Sequence[object]) -> Resolution:
        """The retrieval query for a follow-up: the LLM's rewrite when one is configured,
        the heuristic otherwise (or when the LLM fails). The item a follow-up points at
        ("the second one") comes from the heuristic either way: the answer is about it."""
        resolution = resolve_followup(question, history)
        answerer: ChatAnswerer | None = self.parts.answerer
        if answerer is not None and history and looks_like_followup(question):
            try:
                rewritten = clean_rewrite(question, answerer.complete(rewrite_messages(question, history)))
                return Resolution(rewritten, resolution.item, resolution.others)
            except LLMUnavailableError as exc:
                log.info("follow-up rewrite fell back to the heuristic: %s", exc)
        return resolution

    def _floor(self, query_vector) -> float:
        """The question's similarity to text that does not answer it (calibration.py)."""
        with self._background_lock:
            if self._background is None:
                self._background = self.parts.embedder.embed_batch(
                    list(BACKGROUND), self.parts.settings.embedding_batch_size
                )
        return floor_of(query_vector, self._background).mean


def _offered_best(ranker, ranked: Sequence[ScoredChunk], offered_ids: set[str], query: RankQuery) -> bool:
    """Whether the passage that answers best is an offered one, and what the ranker kept
    reached its gate (below it an offered passage answers no better than the materials: an
    off-topic question the catalog read as its own is refused, as without a catalog).

    Best by the ranker's relevance (its gates' measure: the share of the question's words a
    passage holds, its similarity over the question's floor), an exact identifier first as
    the ranker orders them; ties keep the ranker's order. Not by the ranker's order itself:
    that blends scores normalised over the course's list, on which an offered passage's
    lexical score is an estimate; on 45 own-course questions the order chose right 36
    times, relevance 41 (docs/DECISIONS.md). A ranker that measures no relevance (the
    reference design) is taken at its order."""
    if not ranked or not _confident(ranker, ranked, query):
        return False
    if any(hit.relevance is None for hit in ranked):
        return ranked[0].chunk.id in offered_ids
    best = max(ranked, key=_answering)
    return best.chunk.id in offered_ids


def _answering(hit: ScoredChunk) -> tuple[bool, float]:
    """How well a passage answers, to choose between offered passages and the others: an
    exact identifier first, then the ranker's relevance."""
    return hit.identifier > 0, hit.relevance


def _offered_outdone(ranker, ranked: Sequence[ScoredChunk], offered_ids: set[str], query: RankQuery) -> bool:
    """Whether a passage not offered answers better than every offered one (the same measure
    as `_offered_best`), reaches the ranker's gate, and holds a word of the question that no
    offered passage holds: it speaks of something asked that the offered answer does not
    ("Where is the CSC3100 midterm review held?", a note on the review session, against the
    catalog's CSC3100 sections). A near tie on relevance alone is not enough: "When does
    CSC3100 meet this term?" measured the syllabus's course facts 0.619 against the
    catalog's sections 0.617, and every word the syllabus held, the sections held too."""
    offered = [hit for hit in ranked if hit.chunk.id in offered_ids]
    others = [hit for hit in ranked if hit.chunk.id not in offered_ids]
    if not offered or not others or any(hit.relevance is None for hit in ranked):
        return False
    best_offered = max(_answering(hit) for hit in offered)
    tokens = set(query.tokens) - identifier_words(query.identifiers)  # a code is matched as a code
    said = set().union(*(matched_tokens(tokens, hit.chunk.text) for hit in offered))
    return any(
        _answering(hit) > best_offered
        and _confident(ranker, [hit], query)
        and bool(matched_tokens(tokens, hit.chunk.text) - said)
        for hit in others
    )


def _confident(ranker, ranked: Sequence[ScoredChunk], query: RankQuery) -> bool:
    """The ranker's word on whether what it kept reached its gate; a ranker proposed from
    outside (bench.evaluation --ranking) without one stands by what it keeps."""
    judge = getattr(ranker, "confident", None)
    return judge(ranked, query) if judge is not None else bool(ranked)


def _never_indexed(store, course_id: str) -> bool:
    """Whether the course has no passage in the store at all (never built), not merely none
    found: asked only when a search returns nothing, so it costs nothing otherwise. A store
    that fails here adds no notice; the search already said what it could."""
    try:
        return store.count(course_id) == 0
    except StoreUnavailableError:
        return False
