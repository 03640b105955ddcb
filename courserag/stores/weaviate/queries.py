"""The store's four queries as plain functions of a collection: near-vector, BM25, native
hybrid and the best sentence per chunk, each turning Weaviate's objects into our records.

Every query carries the course filter; the caller runs it under the connection's deadline.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from courserag.records import ScoredChunk
from courserag.stores.weaviate.schema import RETURN_PROPERTIES, chunk_from, course_filter

# Most sentences one `best_sentences` query returns (Weaviate's QUERY_MAXIMUM_RESULTS).
MAX_SENTENCES = 10000


def near_vector(collection: Any, course_id: str, query: list[float], k: int, store: str) -> list[ScoredChunk]:
    """The k nearest chunks of the course by cosine similarity."""
    from weaviate.classes.query import MetadataQuery

    result = collection.query.near_vector(
        near_vector=query,
        limit=k,
        filters=course_filter(course_id),
        return_metadata=MetadataQuery(distance=True),
        return_properties=RETURN_PROPERTIES,
    )
    out = []
    for obj in result.objects:
        similarity = 1.0 - float(obj.metadata.distance)  # cosine distance = 1 - cos
        out.append(
            ScoredChunk(
                chunk_from(obj.properties), vector=similarity, score=similarity, store=store, signals=("vector",)
            )
        )
    return out


def bm25(collection: Any, course_id: str, query: str, k: int, store: str) -> list[ScoredChunk]:
    """The k best chunks of the course by BM25 on the pre-segmented `lexical` property."""
    from weaviate.classes.query import MetadataQuery

    result = collection.query.bm25(
        query=query,
        query_properties=["lexical"],
        limit=k,
        filters=course_filter(course_id),
        return_metadata=MetadataQuery(score=True),
        return_properties=RETURN_PROPERTIES,
    )
    out = []
    for obj in result.objects:
        score = float(obj.metadata.score or 0.0)
        if score > 0:
            out.append(
                ScoredChunk(chunk_from(obj.properties), lexical=score, score=score, store=store, signals=("lexical",))
            )
    return out


def hybrid(
    collection: Any, course_id: str, query: str, query_vector: list[float], alpha: float, k: int, store: str
) -> list[ScoredChunk]:
    """Weaviate's relativeScoreFusion; `vector` is the cosine computed from the returned vector."""
    from weaviate.classes.query import HybridFusion, MetadataQuery

    unit = np.asarray(query_vector, dtype=np.float32)
    unit = unit / (np.linalg.norm(unit) or 1.0)
    result = collection.query.hybrid(
        query=query or None,
        vector=query_vector,
        alpha=alpha if query else 1.0,
        query_properties=["lexical"],
        fusion_type=HybridFusion.RELATIVE_SCORE,
        limit=k,
        filters=course_filter(course_id),
        return_metadata=MetadataQuery(score=True),
        return_properties=RETURN_PROPERTIES,
        include_vector=True,
    )
    out = []
    for obj in result.objects:
        stored = obj.vector.get("default") if isinstance(obj.vector, dict) else None
        similarity = 0.0
        if stored is not None:
            v = np.asarray(stored, dtype=np.float32)
            similarity = float(v @ unit / (np.linalg.norm(v) or 1.0))
        out.append(
            ScoredChunk(
                chunk_from(obj.properties),
                vector=similarity,
                score=float(obj.metadata.score or 0.0),
                store=store,
                signals=("hybrid",),
            )
        )
    return out


def best_sentences(collection: Any, course_id: str, chunk_ids: Sequence[str], query: list[float]) -> dict[str, float]:
    """The best sentence similarity of each of the chunks, scored by the server."""
    from weaviate.classes.query import Filter, MetadataQuery

    result = collection.query.near_vector(
        near_vector=query,
        limit=MAX_SENTENCES,
        filters=course_filter(course_id) & Filter.by_property("chunk_id").contains_any(list(chunk_ids)),
        return_metadata=MetadataQuery(distance=True),
        return_properties=["chunk_id"],
    )
    best: dict[str, float] = {}
    for obj in result.objects:
        chunk_id = str(obj.properties.get("chunk_id") or "")
        similarity = 1.0 - float(obj.metadata.distance)  # cosine distance = 1 - cos
        best[chunk_id] = max(similarity, best.get(chunk_id, -1.0))
    return best
