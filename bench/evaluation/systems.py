"""Step 3: the systems compared, all on the same index in the same run.

- product: `RagEngine.retrieve` (course scope, no uploads), one engine per configuration,
  each given its ranker (`ranker=`), so nothing in the process is patched;
- dense: FAISS top-10; bm25: BM25 top-10 (the store's own indexes);
- rrf: reciprocal rank fusion (k=60) of dense top-50 and BM25 top-50;
- reference: the original design, dense top-8 reranked by 0.7 x similarity + 0.3 x overlap.

The baselines share one dense and one BM25 search per question (given the question's
vector), and each reports the time of the searches it needs plus its own work.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from courserag.config.settings import RetrievalSettings, Settings
from courserag.courses.directory import CourseDirectory
from courserag.embedders import Embedder
from courserag.engine.facade import RagEngine
from courserag.records import ScoredChunk
from courserag.retrieval.ranking import Ranker, RankQuery, ReferenceRanker
from courserag.stores.local import LocalCourseStore

RRF_K = 60  # Cormack, Clarke & Buettcher (SIGIR 2009): k=60 was robust across TREC runs.
RRF_DEPTH = 50
REFERENCE_DEPTH = 8  # the original design reranked the top-8 dense hits
BASELINE_DEPTH = 10
RANK_DEPTH = 10  # MRR@10; the product runs with top_k=10 for the ranking metrics
PRODUCT_RANKING = "courserag.retrieval.ranking"


@dataclass(frozen=True)
class Ranked:
    """What one system returned for one question: chunk locators, best first, and its time."""

    locators: tuple[str, ...]
    ms: float


def load_ranker(module: str | None, retrieval: RetrievalSettings) -> Ranker:
    """The ranker that `module.ranker_for(retrieval)` gives (default: the product's), so a
    proposed ranking is measured on the same index before it is adopted."""
    return importlib.import_module(module or PRODUCT_RANKING).ranker_for(retrieval)


@dataclass(frozen=True)
class ProductSystem:
    """The product's own retrieval with a given top_k and ranker."""

    name: str
    engine: RagEngine

    def run(self, course_id: str, question: str) -> Ranked:
        retrieval = self.engine.retrieve(course_id, question, scope="course")
        # Below the gate retrieval is not confident: a refusal, as the product's retrieval measures it.
        items = retrieval.items if retrieval.confident else []
        return Ranked(tuple(i.hit.chunk.locator for i in items), retrieval.retrieval_ms)


def product_system(
    settings: Settings,
    directory: CourseDirectory,
    store: LocalCourseStore,
    embedder: Embedder,
    ranker: Ranker,
    top_k: int | None = None,
) -> ProductSystem:
    """One engine for one configuration (top_k defaults to the configured one)."""
    retrieval = settings.retrieval if top_k is None else replace(settings.retrieval, top_k=top_k)
    engine = RagEngine(replace(settings, retrieval=retrieval), directory, store, embedder, ranker=ranker)
    return ProductSystem(f"product ({retrieval.fusion}, top_k={retrieval.top_k})", engine)


def reciprocal_rank_fusion(lists: Sequence[Sequence[ScoredChunk]], k: int = RRF_K) -> list[ScoredChunk]:
    """Sum of 1/(k + rank) over the lists a chunk appears in, best first."""
    scores: dict[str, float] = {}
    first: dict[str, ScoredChunk] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, start=1):
            scores[hit.chunk.id] = scores.get(hit.chunk.id, 0.0) + 1.0 / (k + rank)
            first.setdefault(hit.chunk.id, hit)
    order = sorted(scores, key=lambda cid: (-scores[cid], cid))
    return [first[cid].with_score(scores[cid]) for cid in order]


def _ranked(hits: Sequence[ScoredChunk], ms: float) -> Ranked:
    return Ranked(tuple(h.chunk.locator for h in hits), ms)


def baseline_runs(
    store: LocalCourseStore, course_id: str, vector: np.ndarray, tokens: list[str], retrieval: RetrievalSettings
) -> dict[str, Ranked]:
    """Each baseline's ranked chunks and its time in ms (the query vector is given)."""
    started = time.perf_counter()
    dense = store.vector_search(course_id, vector, RRF_DEPTH)
    dense_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    lexical = store.lexical_search(course_id, tokens, RRF_DEPTH)
    lexical_ms = (time.perf_counter() - started) * 1000
    out = {"dense": _ranked(dense[:BASELINE_DEPTH], dense_ms), "bm25": _ranked(lexical[:BASELINE_DEPTH], lexical_ms)}
    started = time.perf_counter()
    fused = reciprocal_rank_fusion([dense, lexical])[:RANK_DEPTH]
    out["rrf k=60"] = _ranked(fused, dense_ms + lexical_ms + (time.perf_counter() - started) * 1000)
    reference = ReferenceRanker(0.7, 0.3, retrieval.similarity_threshold, retrieval.weak_vector_threshold)
    started = time.perf_counter()
    hits = reference.rank(dense[:REFERENCE_DEPTH], RankQuery(tuple(tokens), frozenset(), False), REFERENCE_DEPTH)
    out["reference rerank"] = _ranked(hits, dense_ms + (time.perf_counter() - started) * 1000)
    return out
