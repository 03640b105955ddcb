"""Fusion and reranking of retrieval candidates: plain functions, new lists out.

Candidates arrive from up to four lists (course vector, course BM25, session vector, session
BM25). `merge_candidates` unions them by chunk id with both signals filled in; then either
`rerank_reference` (the original design: 0.7 x vector similarity + 0.3 x token overlap) or
`rerank_hybrid` (z-normalised similarity and BM25 blended with weights that follow the
question's language, exact identifiers first, a per-question relevance gate and, below it, a
floor under which there is no evidence to answer from) orders them, each candidate carrying
its relevance for the composer's fitted answer-or-refuse decision. The weights and floors were measured on real
question sets with bench/evaluation; docs/EVALUATION.md has the tables.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable, Protocol, Sequence

from courserag.lang.identifiers import chunk_identifiers, identifier_match
from courserag.lang.matching import matched_tokens
from courserag.lang.script import mostly_other_language, text_is_chinese
from courserag.lang.textnorm import token_weight
from courserag.records import ScoredChunk


@dataclass(frozen=True)
class RankWeights:
    """How much each signal counts in the hybrid score."""

    vector: float
    lexical: float
    overlap: float


# Weights of the z-normalised similarity and BM25, plus the raw share of question words.
# With the multilingual embedder both signals count in both languages (measured:
# docs/DECISIONS.md); a candidate in the other language than the question has next to no
# BM25 score, so its rank rests on the vector, as it must.
ENGLISH_WEIGHTS = RankWeights(vector=0.5, lexical=0.5, overlap=0.1)
CHINESE_WEIGHTS = RankWeights(vector=0.5, lexical=0.5, overlap=0.1)
# A question asked across languages (most candidates are in the other language): BM25 only
# sees the names and numbers both share, so it is a hint, not half the verdict.
CROSS_LINGUAL_WEIGHTS = RankWeights(vector=0.8, lexical=0.2, overlap=0.0)
# A Chinese question with an embedder blind to Chinese (all-MiniLM-L6-v2 reads most CJK
# characters as [UNK]): BM25 alone orders the candidates and word evidence alone decides
# relevance; measured with MiniLM, any vector weight cost section hit@5 on d2l-zh (0.869 at
# 0.1 against BM25's 0.888). The vector path still contributes candidates.
LEXICAL_ONLY_WEIGHTS = RankWeights(vector=0.0, lexical=1.0, overlap=0.0)
# Share of a candidate's best sentence in the similarity that orders it (sentences.py;
# RetrievalSettings.sentence_weight). Measured: docs/EVALUATION.md, "Sentence vectors".
SENTENCE_WEIGHT = 0.5
# z-scores of a pool of n candidates are bounded by sqrt(n - 1), so a bonus of 100 puts any
# identifier hit above every blend.
IDENTIFIER_BONUS = 100.0
# Relevance: half word evidence and half vector evidence, the latter being the candidate's
# similarity margin over the question's floor (courserag/retrieval/calibration.py) in units
# of MARGIN_SPAN: a margin of one span is full evidence. Measured on the shared sets (course
# scope, the best of 50 candidates): in-language answers sit ~0.15-0.2 above the floor, other
# courses' best chunks ~0.1; across languages both halve, hence the smaller span.
# A question none of whose candidates reaches its language's gate is not `confident`: an LLM
# is not asked (it is refused), and the retrieval benchmarks count it refused. Below
# EVIDENCE_FLOOR there is nothing to answer from at all and retrieval refuses outright; between
# the two, the extractive answer's fitted decision weighs the best relevance with the rest
# of its evidence (answers/extractive/refusal.py): the gate alone, hand-set, refused 20 of
# SyllabusQA val's answerable questions (docs/DECISIONS.md, "Retrieval's gate becomes
# evidence").
ENGLISH_GATE = 0.30
CHINESE_GATE = 0.30
EVIDENCE_FLOOR = 0.10
MARGIN_SPAN = 0.25
CROSS_LINGUAL_MARGIN_SPAN = 0.035
CANDIDATE_FLOOR = 0.25  # once a question passes its gate, weaker candidates are left out
# English relevance counts at most this many question words, the Chinese weighted share at
# most this many of the heaviest: a long question (an exercise) would otherwise look
# off-topic because most of its words are in no single chunk.
OVERLAP_WORD_CAP = 6
WEIGHTED_WORD_CAP = 8


def text_overlap(query_tokens: Sequence[str], text: str) -> float:
    """Share of distinct query tokens found in the text (see matched_tokens)."""
    tokens = set(query_tokens)
    return len(matched_tokens(tokens, text)) / len(tokens) if tokens else 0.0


def merge_candidates(
    vector_lists: Sequence[Sequence[ScoredChunk]],
    lexical_lists: Sequence[Sequence[ScoredChunk]],
) -> list[ScoredChunk]:
    """Union of all lists by chunk id, with both signals on every candidate.

    BM25 scores are divided by their list's best score, so each path's lexical signal is in
    [0, 1] whatever the corpus size. A chunk missing from a vector list gets that list's
    lowest similarity (it ranked below all of them), one missing from every lexical list 0.
    """
    merged: dict[str, ScoredChunk] = {}
    vector_floor: dict[str, float] = {}
    for hits in vector_lists:
        for hit in hits:
            origin = hit.chunk.origin
            vector_floor[origin] = min(vector_floor.get(origin, hit.vector), hit.vector)
            old = merged.get(hit.chunk.id)
            if old is None or hit.vector > old.vector:
                merged[hit.chunk.id] = replace(hit, lexical=old.lexical if old else 0.0, signals=("vector",))
    for hits in lexical_lists:
        top = max((h.lexical for h in hits), default=0.0)
        for hit in hits:
            lexical = hit.lexical / top if top > 0 else 0.0
            old = merged.get(hit.chunk.id)
            if old is None:
                # Native hybrid hits (Weaviate) carry their own similarity; BM25 hits do not.
                vector = hit.vector if "hybrid" in hit.signals else vector_floor.get(hit.chunk.origin, 0.0)
                merged[hit.chunk.id] = replace(hit, vector=vector, lexical=lexical, signals=("lexical",))
            elif lexical > old.lexical:
                signals = tuple(sorted(set(old.signals) | {"lexical"}))
                merged[hit.chunk.id] = replace(old, lexical=lexical, signals=signals)
    return list(merged.values())


def _sorted(candidates: Iterable[ScoredChunk]) -> list[ScoredChunk]:
    return sorted(candidates, key=lambda c: (-c.score, c.chunk.id))


def rerank_reference(
    candidates: Sequence[ScoredChunk],
    query_tokens: Sequence[str],
    top_k: int,
    vector_weight: float = 0.7,
    overlap_weight: float = 0.3,
    similarity_threshold: float = 0.25,
    weak_vector_threshold: float = 0.35,
) -> list[ScoredChunk]:
    """The reference design: 0.7 x similarity + 0.3 x overlap, drop weak similarities, and
    rank by overlap alone when every similarity is weak."""
    scored = [c.with_score(0.0, overlap=text_overlap(query_tokens, c.chunk.text)) for c in candidates]
    if scored and max(c.vector for c in scored) < weak_vector_threshold:
        ranked = [c.with_score(c.overlap) for c in scored if c.overlap > 0]
    else:
        ranked = [
            c.with_score(vector_weight * c.vector + overlap_weight * c.overlap)
            for c in scored
            if c.vector >= similarity_threshold
        ]
    return _sorted(ranked)[:top_k]


def zscores(values: Sequence[float]) -> list[float]:
    """(x - mean) / std over the list; all zeros when the values do not vary.

    MiniLM similarities sit in a narrow band (about 0.3-0.7) while BM25 over its list maximum
    spans [0, 1]; z-scores put both on one scale before they are blended (Bruch et al., "An
    Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023)."""
    if not values:
        return []
    mean = sum(values) / len(values)
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if std < 1e-9:
        return [0.0] * len(values)
    return [(v - mean) / std for v in values]


def choose_weights(query_is_chinese: bool, cross_lingual: bool = False) -> RankWeights:
    """Weights by the question's language, and whether it is asked across languages."""
    if cross_lingual:
        return CROSS_LINGUAL_WEIGHTS
    return CHINESE_WEIGHTS if query_is_chinese else ENGLISH_WEIGHTS


def _weighted_share(tokens: set[str], found: set[str], cap: int = WEIGHTED_WORD_CAP) -> float:
    total = sum(sorted((token_weight(t) for t in tokens), reverse=True)[:cap])
    return min(1.0, sum(token_weight(t) for t in found) / total) if total > 0 else 0.0


def vector_evidence(similarity: float, floor: float, cross_lingual: bool) -> float:
    """The similarity's margin over the question's floor, as a share of a full span."""
    span = CROSS_LINGUAL_MARGIN_SPAN if cross_lingual else MARGIN_SPAN
    return min(1.0, max(0.0, similarity - floor) / span)


def word_evidence(tokens: set[str], found: set[str], query_is_chinese: bool) -> float:
    """Share of the question's words found: rarity-weighted in Chinese (a name counts for
    more than a common word), out of at most OVERLAP_WORD_CAP words in English."""
    if query_is_chinese:
        return _weighted_share(tokens, found)
    return min(1.0, len(found) / min(len(tokens), OVERLAP_WORD_CAP)) if tokens else 0.0


def _relevance(
    vector: float, tokens: set[str], found: set[str], query_is_chinese: bool, floor: float, cross: bool
) -> float:
    return 0.5 * vector_evidence(vector, floor, cross) + 0.5 * word_evidence(tokens, found, query_is_chinese)


def relevance(candidate: ScoredChunk, query_tokens: Sequence[str], query_is_chinese: bool, floor: float = 0.0) -> float:
    """How strongly the evidence says this chunk is about the question, in [0, 1]: half the
    share of the question's words it holds, half its similarity margin over the question's
    floor (see vector_evidence)."""
    tokens = set(query_tokens)
    cross = text_is_chinese(candidate.chunk.text) != query_is_chinese
    return _relevance(
        candidate.vector, tokens, matched_tokens(tokens, candidate.chunk.text), query_is_chinese, floor, cross
    )


def is_relevant(relevance_score: float, identifier: float, threshold: float) -> bool:
    """An exact identifier always counts; otherwise the relevance must reach the threshold."""
    return identifier > 0 or relevance_score >= threshold


def ranking_similarity(candidate: ScoredChunk, sentence_weight: float = SENTENCE_WEIGHT) -> float:
    """The similarity that orders a candidate: its chunk's, blended with its best sentence's
    when it has one. A question usually paraphrases one sentence, which the chunk's vector
    averages with the others."""
    if candidate.sentence is None:
        return candidate.vector
    return (1 - sentence_weight) * candidate.vector + sentence_weight * candidate.sentence


def rerank_hybrid(
    candidates: Sequence[ScoredChunk],
    query_tokens: Sequence[str],
    query_identifiers: Iterable[str],
    query_is_chinese: bool,
    top_k: int,
    similarity_threshold: float = CANDIDATE_FLOOR,
    english_gate: float = ENGLISH_GATE,
    chinese_gate: float = CHINESE_GATE,
    floor: float = 0.0,
    vectors_read_chinese: bool = True,
    sentence_weight: float = SENTENCE_WEIGHT,
    evidence_floor: float = EVIDENCE_FLOOR,
) -> list[ScoredChunk]:
    """Blend of z-normalised similarity and BM25 plus overlap, exact identifiers first.

    Refusal is decided once per question: an empty list when no candidate reaches
    `evidence_floor`. A question that reaches its language's gate keeps the candidates that
    reach `similarity_threshold`; one that does not (see `confident`) keeps those above the
    evidence floor. `floor` is the question's similarity to unrelated text (calibration.py);
    `vectors_read_chinese` False (an English-only embedder) leaves Chinese questions to BM25.
    The order reads `ranking_similarity` (best sentence blended in); relevance reads the
    chunk's own similarity, on which the gates and MARGIN_SPAN were measured.
    """
    if not candidates:
        return []
    query_identifiers = tuple(query_identifiers)
    # Asked across languages when most candidates are in the other language (an English
    # course, a Chinese question). Only then does a margin count on the cross-lingual scale:
    # in a Chinese course, an English code file is not evidence for a Chinese question.
    cross_lingual = mostly_other_language((c.chunk.text for c in candidates), query_is_chinese)
    blind = query_is_chinese and not vectors_read_chinese
    weights = LEXICAL_ONLY_WEIGHTS if blind else choose_weights(query_is_chinese, cross_lingual)
    gate = chinese_gate if query_is_chinese else english_gate
    vectors = zscores([ranking_similarity(c, sentence_weight) for c in candidates])
    lexicals = zscores([c.lexical for c in candidates])
    tokens = set(query_tokens)
    scored = []
    for c, zv, zl in zip(candidates, vectors, lexicals):
        found = matched_tokens(tokens, c.chunk.text)
        overlap = len(found) / len(tokens) if tokens else 0.0
        identifier = identifier_match(query_identifiers, chunk_identifiers(c.chunk.text)) if query_identifiers else 0.0
        score = weights.vector * zv + weights.lexical * zl + weights.overlap * overlap
        cross = cross_lingual and text_is_chinese(c.chunk.text) != query_is_chinese
        relevance_score = (
            word_evidence(tokens, found, query_is_chinese)
            if blind
            else _relevance(c.vector, tokens, found, query_is_chinese, floor, cross)
        )
        ranked = c.with_score(
            score + IDENTIFIER_BONUS * identifier, overlap=overlap, identifier=identifier, relevance=relevance_score
        )
        scored.append((ranked, relevance_score))
    if not any(is_relevant(r, c.identifier, min(gate, evidence_floor)) for c, r in scored):
        return []
    # A question that passes its gate keeps what reaches the candidate floor; one below it
    # (not `confident`) keeps what reaches the evidence floor, for the fitted decision to weigh.
    passes = confident([c for c, _ in scored], query_is_chinese, english_gate, chinese_gate)
    keep = similarity_threshold if passes else min(similarity_threshold, evidence_floor)
    return _sorted(c for c, r in scored if is_relevant(r, c.identifier, keep))[:top_k]


def confident(hits: Sequence[ScoredChunk], query_is_chinese: bool, english_gate: float, chinese_gate: float) -> bool:
    """Whether some ranked hit reaches the question's gate (an exact identifier always does);
    a hit whose relevance was not measured counts as reaching it."""
    gate = chinese_gate if query_is_chinese else english_gate
    return any(h.relevance is None or is_relevant(h.relevance, h.identifier, gate) for h in hits)


@dataclass(frozen=True)
class RankQuery:
    """What a ranker needs to know about the question, computed once per question."""

    tokens: tuple[str, ...]
    identifiers: frozenset[str]
    is_chinese: bool
    floor: float = 0.0  # the question's similarity to unrelated text (calibration.py)
    vectors_read_chinese: bool = True  # False for an English-only embedder (Embedder.reads_chinese)


class Ranker(Protocol):
    """Orders merged candidates and keeps the best `top_k`; an empty list means "refuse".
    `confident` says whether what it kept reached its gate (see rerank_hybrid); a ranker
    without it stands by what it keeps (engine/retriever.py)."""

    name: str

    def rank(self, candidates: Sequence[ScoredChunk], query: RankQuery, top_k: int) -> list[ScoredChunk]: ...

    def confident(self, hits: Sequence[ScoredChunk], query: RankQuery) -> bool: ...


@dataclass(frozen=True)
class HybridRanker:
    """The default: `rerank_hybrid` (z-normalised blend, identifiers first, relevance gate and floor)."""

    similarity_threshold: float = CANDIDATE_FLOOR
    english_gate: float = ENGLISH_GATE
    chinese_gate: float = CHINESE_GATE
    sentence_weight: float = SENTENCE_WEIGHT
    evidence_floor: float = EVIDENCE_FLOOR
    name: str = "hybrid"

    def rank(self, candidates: Sequence[ScoredChunk], query: RankQuery, top_k: int) -> list[ScoredChunk]:
        return rerank_hybrid(
            candidates,
            query.tokens,
            query.identifiers,
            query.is_chinese,
            top_k,
            self.similarity_threshold,
            self.english_gate,
            self.chinese_gate,
            query.floor,
            query.vectors_read_chinese,
            self.sentence_weight,
            self.evidence_floor,
        )

    def confident(self, hits: Sequence[ScoredChunk], query: RankQuery) -> bool:
        return confident(hits, query.is_chinese, self.english_gate, self.chinese_gate)


@dataclass(frozen=True)
class ReferenceRanker:
    """The original design: `rerank_reference` (0.7 x similarity + 0.3 x overlap)."""

    vector_weight: float = 0.7
    overlap_weight: float = 0.3
    similarity_threshold: float = 0.25
    weak_vector_threshold: float = 0.35
    name: str = "reference"

    def rank(self, candidates: Sequence[ScoredChunk], query: RankQuery, top_k: int) -> list[ScoredChunk]:
        return rerank_reference(
            candidates,
            query.tokens,
            top_k,
            self.vector_weight,
            self.overlap_weight,
            self.similarity_threshold,
            self.weak_vector_threshold,
        )

    def confident(self, hits: Sequence[ScoredChunk], query: RankQuery) -> bool:
        """Its own weak-vector rule has refused already: what it keeps, it stands by."""
        return bool(hits)


def ranker_for(settings) -> Ranker:
    """The ranker that FUSION (RetrievalSettings.fusion) names, with its thresholds."""
    if settings.fusion == "reference":
        return ReferenceRanker(
            settings.vector_weight,
            settings.overlap_weight,
            settings.similarity_threshold,
            settings.weak_vector_threshold,
        )
    return HybridRanker(
        settings.similarity_threshold,
        settings.relevance_threshold,
        settings.chinese_relevance_threshold,
        settings.sentence_weight,
        settings.evidence_floor,
    )
