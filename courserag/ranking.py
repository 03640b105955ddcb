"""Fusion and reranking of retrieval candidates: plain functions, new lists out.

Candidates arrive from up to four lists (course vector, course BM25, session vector, session
BM25). `merge_candidates` unions them by chunk id with both signals filled in; then either
`rerank_reference` (the original design: 0.7 x vector similarity + 0.3 x token overlap) or
`rerank_hybrid` (weights that follow the query's language and each signal's confidence, with
exact identifiers first) orders them, and drops what is not relevant at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Sequence

from courserag.records import ScoredChunk
from courserag.textnorm import normalize

# Course codes, assignment and policy ids: "CSC3100", "CS 101", "MAT-2040", "HW3",
# "X-2023-001". Letters then digits, optionally separated by one space or hyphen, and
# optionally more hyphenated number groups.
_IDENTIFIER = re.compile(r"(?<![a-z0-9])([a-z]{1,6})[ \-]?(\d{1,5}(?:-\d{1,5})*)(?![a-z0-9])")
_LATIN_TOKEN = re.compile(r"^[a-z0-9]+$")


@dataclass(frozen=True)
class RankWeights:
    """How much each signal counts in the hybrid score."""

    vector: float
    lexical: float
    overlap: float


# English questions: the embedder is good, BM25 and overlap keep exact terms honest.
ENGLISH_WEIGHTS = RankWeights(vector=0.5, lexical=0.3, overlap=0.2)
# Chinese questions with an English-only embedder: its vectors are near noise (most CJK
# characters are [UNK]), so the lexical signals carry the ranking.
CHINESE_WEIGHTS = RankWeights(vector=0.05, lexical=0.65, overlap=0.3)
IDENTIFIER_BONUS = 1.0


def normalize_identifier(raw: str) -> str:
    """'MAT-2040', 'mat 2040' and 'ＭＡＴ２０４０' all become 'MAT2040'."""
    return re.sub(r"[\s\-]", "", normalize(raw)).upper()


def extract_identifiers(text: str) -> frozenset[str]:
    """Identifier-like tokens of a text, normalised (see normalize_identifier)."""
    return frozenset(
        normalize_identifier(m.group(1) + m.group(2)) for m in _IDENTIFIER.finditer(normalize(text))
    )


@lru_cache(maxsize=65536)
def _chunk_view(text: str) -> tuple[str, frozenset[str]]:
    """Normalised text and identifiers of a chunk, cached: chunks recur across queries."""
    return normalize(text), extract_identifiers(text)


def _within_one_edit(a: str, b: str) -> bool:
    """Damerau (optimal string alignment) distance <= 1: one typo or one transposition."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diffs) == 1:
            return True
        return len(diffs) == 2 and diffs[1] == diffs[0] + 1 and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def identifier_match(query_ids: Iterable[str], chunk_ids: frozenset[str]) -> float:
    """1.0 for an exact identifier hit, 0.5 for a near miss (typo), else 0."""
    best = 0.0
    for qid in query_ids:
        if qid in chunk_ids:
            return 1.0
        # Typo tolerance only for long ids: "HW3" vs "HW4" must stay different.
        if len(qid) >= 5 and any(_within_one_edit(qid, cid) for cid in chunk_ids if cid[:1] == qid[:1]):
            best = 0.5
    return best


def text_overlap(query_tokens: Sequence[str], text: str) -> float:
    """Share of distinct query tokens found in the text: whole words for Latin tokens,
    substrings for CJK words (Chinese has no spaces to mark word ends)."""
    tokens = set(query_tokens)
    if not tokens:
        return 0.0
    normalized, _ = _chunk_view(text)
    found = 0
    for token in tokens:
        if _LATIN_TOKEN.match(token):
            if re.search(rf"(?<![a-z0-9]){re.escape(token)}(?![a-z0-9])", normalized):
                found += 1
        elif token in normalized:
            found += 1
    return found / len(tokens)


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


def choose_weights(query_is_chinese: bool, best_vector: float, weak_vector_threshold: float) -> RankWeights:
    """Language first, then confidence: a weak best similarity hands its weight to BM25."""
    weights = CHINESE_WEIGHTS if query_is_chinese else ENGLISH_WEIGHTS
    if best_vector < weak_vector_threshold:
        shift = weights.vector * 0.5
        weights = RankWeights(weights.vector - shift, weights.lexical + shift, weights.overlap)
    return weights


def is_relevant(candidate: ScoredChunk, query_is_chinese: bool, similarity_threshold: float, min_overlap: float = 0.5) -> bool:
    """Keep a candidate only if some signal vouches for it; otherwise a refusal is better."""
    if candidate.identifier > 0:
        return True
    if not query_is_chinese and candidate.vector >= similarity_threshold and candidate.overlap > 0:
        return True
    if not query_is_chinese and candidate.vector >= similarity_threshold + 0.15:
        return True
    return candidate.overlap >= min_overlap


def rerank_hybrid(
    candidates: Sequence[ScoredChunk],
    query_tokens: Sequence[str],
    query_identifiers: Iterable[str],
    query_is_chinese: bool,
    top_k: int,
    similarity_threshold: float = 0.25,
    weak_vector_threshold: float = 0.35,
) -> list[ScoredChunk]:
    """Language- and confidence-weighted blend of similarity, BM25 and overlap, with chunks
    that contain the question's exact identifiers (course codes, HW3, policy ids) first."""
    query_identifiers = tuple(query_identifiers)
    best_vector = max((c.vector for c in candidates), default=0.0)
    weights = choose_weights(query_is_chinese, best_vector, weak_vector_threshold)
    ranked = []
    for c in candidates:
        overlap = text_overlap(query_tokens, c.chunk.text)
        identifier = identifier_match(query_identifiers, _chunk_view(c.chunk.text)[1]) if query_identifiers else 0.0
        c = c.with_score(0.0, overlap=overlap, identifier=identifier)
        if not is_relevant(c, query_is_chinese, similarity_threshold):
            continue
        score = weights.vector * c.vector + weights.lexical * c.lexical + weights.overlap * overlap
        # Identifier hits rank above semantic neighbours: the bonus outweighs any blend.
        ranked.append(c.with_score(score + IDENTIFIER_BONUS * identifier))
    return _sorted(ranked)[:top_k]
