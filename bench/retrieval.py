"""Benchmarks 1, 5 and 6: query latency at 1k/10k/100k course chunks, the per-query rebuild
reference design, LlamaIndex's default retriever, the extractive answer, and the curve of
retrieval cost against raw FAISS / BM25 search cost.

Every question is asked cold (the query-embedding cache is cleared before each call), so
`retrieve` pays for embedding the question like a learner's first ask does; the "warm"
figure is the same call with the question's vector cached (search, fusion, rerank, pack).
"""

from __future__ import annotations

import contextlib
import math
import tempfile
import time
import types
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench import data
from bench.common import interleave, speedup, summary, timed

SESSION_CHUNKS = 500
REBUILD_SIZES = (500, 2000)


def clear_query_cache(embedder) -> None:
    """Forget the questions the product's embedder has cached (get_embedder's CachingEmbedder),
    so the next question pays for the model as a learner's first ask does."""
    clear = getattr(embedder, "clear", None)
    if callable(clear):
        clear()


@dataclass
class Fixture:
    """One engine over a local store holding every sized course, plus session pools."""

    embedder: object
    corpus: data.Corpus
    engine: object
    store: object
    sizes: tuple[int, ...]
    load_ms: dict[int, float] = field(default_factory=dict)
    build_s: dict[int, float] = field(default_factory=dict)


def make_engine(embedder, store, course_ids, settings=None):
    from courserag.config.settings import Settings
    from courserag.courses.directory import Course, CourseDirectory
    from courserag.engine.facade import RagEngine

    settings = settings or Settings(data_dir=Path(tempfile.gettempdir()) / "courserag-bench-data")
    directory = CourseDirectory(tuple(Course(cid, cid, "benchmark course", "en", Path(".")) for cid in course_ids))
    return RagEngine(settings, directory, store, embedder)


def make_fixture(embedder, sizes, progress: bool = True, distinct: int = data.DISTINCT_PASSAGES) -> Fixture:
    from courserag.stores.local import LocalCourseStore

    corpus = data.load_corpus(embedder, progress=progress, limit=distinct)
    store = LocalCourseStore(data.store_root(embedder.name, len(corpus.passages)), embedder.dim)
    build_s, load_ms = {}, {}
    for n in sizes:
        _, ms = timed(lambda n=n: data.build_sized_course(store, corpus, n, progress))
        build_s[n] = round(ms / 1000, 2)
        _, ms = timed(lambda n=n: store._index(data.course_id_for(n)))  # cold load into memory
        load_ms[n] = round(ms, 1)
    engine = make_engine(embedder, store, [data.course_id_for(n) for n in sizes])
    for n in sorted(set((SESSION_CHUNKS,) + REBUILD_SIZES)):
        data.fill_pool(engine.sessions.get(f"pool{n}"), corpus, n)
    return Fixture(embedder, corpus, engine, store, tuple(sizes), load_ms, build_s)


# -- baselines -----------------------------------------------------------------------------


def rebuild_per_query(pool) -> None:
    """Turn a pool into the reference design: a fresh faiss.IndexFlatIP is built from the
    pool's vectors on every query, then searched. The vectors are one contiguous copy of
    the pool's matrix (the cheapest rebuild there is), so the ratio is a lower bound."""
    import faiss

    from courserag.records import ScoredChunk

    pool.rebuilds = 0
    kept: dict[int, np.ndarray] = {}  # the reference keeps its float32 matrix: decoded once

    def vector_search(self, vector, k):
        chunks = self.index.chunks
        if not chunks or k <= 0:
            return []
        if len(chunks) not in kept:
            kept.clear()
            kept[len(chunks)] = self.index.vectors
        index = faiss.IndexFlatIP(self.dim)
        index.add(kept[len(chunks)])
        self.rebuilds += 1
        scores, ids = index.search(np.asarray(vector, dtype=np.float32).reshape(1, -1), min(k, len(chunks)))
        return [
            ScoredChunk(chunks[i], vector=float(s), score=float(s), store="session", signals=("vector",))
            for s, i in zip(scores[0], ids[0])
            if i >= 0
        ]

    pool.vector_search = types.MethodType(vector_search, pool)


class LlamaIndexBaseline:
    """LlamaIndex's default: VectorStoreIndex over TextNodes with precomputed embeddings,
    its default SimpleVectorStore, `as_retriever(similarity_top_k=k)`, and an embed model
    that wraps our embedder, so embedding the question costs the same as ours."""

    def __init__(self, embedder, chunks, vectors, top_k: int):
        from llama_index.core import VectorStoreIndex
        from llama_index.core.embeddings import BaseEmbedding
        from llama_index.core.schema import TextNode

        class WrappedEmbedding(BaseEmbedding):
            def _get_query_embedding(self, query: str):
                return embedder.embed_query(query).tolist()

            async def _aget_query_embedding(self, query: str):
                return self._get_query_embedding(query)

            def _get_text_embedding(self, text: str):
                return embedder.embed_batch([text])[0].tolist()

        model = WrappedEmbedding(model_name=embedder.name)
        nodes = [
            TextNode(text=c.text, id_=c.id, embedding=v.tolist(), metadata={"source": c.source, "locator": c.locator})
            for c, v in zip(chunks, vectors)
        ]
        started = time.perf_counter()
        self.index = VectorStoreIndex(nodes, embed_model=model, show_progress=False)
        self.build_ms = (time.perf_counter() - started) * 1000
        self.retriever = self.index.as_retriever(similarity_top_k=top_k)

    def retrieve(self, question: str):
        return self.retriever.retrieve(question)


def course_chunks_and_vectors(fixture: Fixture, n: int):
    index = fixture.store._index(data.course_id_for(n))
    return list(index.chunks), np.asarray(index.vectors)


# -- benchmark 1 + 6: latency per size -----------------------------------------------------------


def latency_at_size(fixture: Fixture, n: int, iterations: int, with_llama: bool = True, extra_engines=None) -> dict:
    """Interleaved per question: courserag cold/warm, LlamaIndex, raw FAISS, raw BM25."""
    from courserag.lang.textnorm import word_tokens

    engine, embedder = fixture.engine, fixture.embedder
    course = data.course_id_for(n)
    questions = [q.text for q in data.questions()[: iterations + 1]]
    vectors = {q: embedder.embed_query(q) for q in questions}
    tokens = {q: word_tokens(q) for q in questions}
    index = fixture.store._index(course)
    cfg = engine.settings.retrieval
    k = max(cfg.candidate_multiplier * cfg.top_k, cfg.min_candidates)

    result: dict = {"course_chunks": n, "session_chunks": SESSION_CHUNKS, "questions": iterations}
    llama = None
    if with_llama:
        chunks, vecs = course_chunks_and_vectors(fixture, n)
        pool_chunks, pool_vecs = data.session_chunks(fixture.corpus, SESSION_CHUNKS)
        llama = LlamaIndexBaseline(embedder, chunks + pool_chunks, np.vstack([vecs, pool_vecs]), cfg.top_k)
        result["llamaindex_build_ms"] = round(llama.build_ms, 1)

    def cold(i):
        clear_query_cache(embedder)
        engine.retrieve(course, questions[i], session_id=f"pool{SESSION_CHUNKS}")

    def warm(i):
        embedder.embed_query(questions[i])  # cached: no model call
        engine.retrieve(course, questions[i], session_id=f"pool{SESSION_CHUNKS}")

    configs = {
        "courserag": cold,
        "courserag_warm": warm,
        "faiss_raw": lambda i: index._faiss.search(vectors[questions[i]].reshape(1, -1), k),
        "bm25_raw": lambda i: index._bm25.search(tokens[questions[i]], k),
        "embed_query": lambda i: (clear_query_cache(embedder), embedder.embed_query(questions[i])),
    }
    for name, other in (extra_engines or {}).items():

        def run_other(i, other=other):
            clear_query_cache(other.embedder)
            other.retrieve(course, questions[i], session_id=f"pool{SESSION_CHUNKS}")

        configs[name] = run_other
    if llama is not None:

        def run_llama(i):
            clear_query_cache(embedder)
            llama.retrieve(questions[i])

        configs["llamaindex"] = run_llama
    samples = interleave(configs, iterations)
    stats = {name: summary(values) for name, values in samples.items()}
    result["stats"] = stats
    # Questions not asked above, so every candidate chunk is met for the first time, as
    # in a course with many learners asking different things.
    fresh = [q.text for q in data.questions()[iterations + 1 : iterations + 21]]
    result["stages"] = stage_breakdown(fixture, n, fresh)
    c = stats["courserag"]
    result["p95_over_median"] = round(c["p95_ms"] / c["median_ms"], 2)
    if llama is not None:
        result["speedup_vs_llamaindex"] = speedup(stats["llamaindex"], c)
        result["speedup_vs_llamaindex_warm"] = speedup(stats["llamaindex"], stats["courserag_warm"])
    raw = stats["faiss_raw"]["median_ms"] + stats["bm25_raw"]["median_ms"]
    result["warm_over_raw_search"] = round(stats["courserag_warm"]["median_ms"] / raw, 2) if raw else math.nan
    return result


@contextlib.contextmanager
def _wrapped(targets: list[tuple[object, str, str]], stages: dict):
    """Time calls of obj.name into stages[label] while inside the block (instances get an
    attribute that shadows their method; modules get theirs swapped and restored)."""
    saved = []
    for obj, name, label in targets:
        original = getattr(obj, name)

        def timed_call(*args, _fn=original, _label=label, **kwargs):
            started = time.perf_counter()
            try:
                return _fn(*args, **kwargs)
            finally:
                stages[_label] = stages.get(_label, 0.0) + (time.perf_counter() - started) * 1000

        had_own = isinstance(obj, types.ModuleType) or name in getattr(obj, "__dict__", {})
        saved.append((obj, name, original, had_own))
        setattr(obj, name, timed_call)
    try:
        yield
    finally:
        for obj, name, original, had_own in reversed(saved):
            if had_own:
                setattr(obj, name, original)
            else:
                delattr(obj, name)


def stage_breakdown(fixture: Fixture, n: int, questions) -> dict:
    """Median ms of each step inside real RagEngine.retrieve calls (cold questions): the
    functions retrieve calls are wrapped with timers, so this follows the engine as it is."""
    import courserag.engine.retriever as retriever_module
    from courserag.retrieval import ranking

    engine, embedder = fixture.engine, fixture.embedder
    course = data.course_id_for(n)
    session = f"pool{SESSION_CHUNKS}"
    pool = engine.sessions.peek(session)
    per_question: list[dict] = []
    for q in questions:
        stages: dict[str, float] = {}
        targets = [
            (embedder, "embed_query", "embed_question"),
            (retriever_module, "read_query", "read_question"),  # language, words, what it asks for
            (engine.store, "vector_search", "course_vector_search"),
            (engine.store, "lexical_search", "course_bm25_search"),
            (pool, "vector_search", "session_vector_search"),
            (pool, "lexical_search", "session_bm25_search"),
            (ranking, "merge_candidates", "merge"),
            (ranking, "rerank_hybrid", "rerank"),
            (ranking, "rerank_reference", "rerank"),
            (retriever_module, "pack_context", "pack"),
        ]
        clear_query_cache(embedder)
        with _wrapped(targets, stages):
            started = time.perf_counter()
            found = engine.retrieve(course, q, session_id=session)
            total = (time.perf_counter() - started) * 1000
        stages["other"] = total - sum(stages.values())
        stages["sources_packed"] = len(found.items)
        per_question.append(stages)
    names = list(dict.fromkeys(k for st in per_question for k in st))
    return {name: round(float(np.median([st.get(name, 0.0) for st in per_question])), 3) for name in names}


# -- reference design: rebuild per query ----------------------------------------------------------


def rebuild_baseline(fixture: Fixture, n_course: int, iterations: int) -> dict:
    """The cached session pool vs. the reference design's per-query rebuild, at 500 and 2k
    session chunks, three ways (interleaved):

    - vector path: the pool's cached FAISS search vs. faiss.IndexFlatIP built from the
      pool's vectors on every query and then searched (the reference design);
    - pool stage: the pool's cached vector + BM25 search vs. rebuilding the pool's whole
      index (ChunkIndex.rebuild: FAISS and BM25 from the vectors and tokens it already
      has, no re-embedding) and then the same two searches, which is what rebuilding this
      dual-path pool per query means;
    - whole retrieve (cold question) with the cached pool vs. with the reference pool.
    """
    from courserag.lang.textnorm import word_tokens
    from courserag.retrieval.chunk_index import ChunkIndex

    engine, embedder, corpus = fixture.engine, fixture.embedder, fixture.corpus
    course = data.course_id_for(n_course)
    cfg = engine.settings.retrieval
    k = max(cfg.candidate_multiplier * cfg.top_k, cfg.min_candidates)
    questions = [q.text for q in data.questions()[: iterations + 1]]
    vectors = {q: embedder.embed_query(q) for q in questions}
    tokens = {q: word_tokens(q) for q in questions}
    out = {"course_chunks": n_course, "questions": iterations, "sizes": {}}
    for size in REBUILD_SIZES:
        cached_id, rebuild_id = f"pool{size}", f"rebuild{size}"
        cached = engine.sessions.get(cached_id)
        reference = engine.sessions.get(rebuild_id)
        if len(reference) == 0:
            data.fill_pool(reference, corpus, size)
            rebuild_per_query(reference)
        work_before = (cached.index.builds, cached.index.extends)
        rebuilds_before = reference.rebuilds
        full_rebuilds = [0]

        def rebuild_both(i):
            index = ChunkIndex(reference.dim, "session")
            index.rebuild(reference.index.chunks, reference.index.vectors, reference.index.tokens)
            full_rebuilds[0] += index.builds
            index.vector_search(vectors[questions[i]], k)
            index.lexical_search(tokens[questions[i]], k)

        def whole(sid):
            def run(i):
                clear_query_cache(embedder)
                engine.retrieve(course, questions[i], session_id=sid)

            return run

        samples = interleave(
            {
                "vector_cached": lambda i: cached.vector_search(vectors[questions[i]], k),
                "vector_rebuild_faiss": lambda i: reference.vector_search(vectors[questions[i]], k),
                "pool_stage_cached": lambda i: (
                    cached.vector_search(vectors[questions[i]], k),
                    cached.lexical_search(tokens[questions[i]], k),
                ),
                "pool_stage_rebuild_index": rebuild_both,
                "retrieve_cached": whole(cached_id),
                "retrieve_rebuild_faiss": whole(rebuild_id),
            },
            iterations,
        )
        stats = {name: summary(values) for name, values in samples.items()}
        queries = 3 * (iterations + 1)  # vector, pool stage and retrieve, warm-up included
        out["sizes"][str(size)] = {
            "stats": stats,
            "speedup_vector_path": speedup(stats["vector_rebuild_faiss"], stats["vector_cached"]),
            "speedup_pool_stage": speedup(stats["pool_stage_rebuild_index"], stats["pool_stage_cached"]),
            "speedup_retrieve": speedup(stats["retrieve_rebuild_faiss"], stats["retrieve_cached"]),
            "cached_rebuilds_per_query": (cached.index.builds - work_before[0]) / queries,
            "cached_extends_per_query": (cached.index.extends - work_before[1]) / queries,
            "reference_rebuilds_per_query": (reference.rebuilds - rebuilds_before) / (2 * (iterations + 1)),
            "index_rebuilds_per_query": full_rebuilds[0] / (iterations + 1),
        }
    return out


# -- benchmark 5: the extractive answer -------------------------------------------------------------


def answer_latency(fixture: Fixture, n_course: int, iterations: int) -> dict:
    """engine.ask (no LLM: extractive answer) vs. engine.retrieve alone, cold questions."""
    engine, embedder = fixture.engine, fixture.embedder
    course = data.course_id_for(n_course)
    questions = [q.text for q in data.questions()[200 : 200 + iterations + 1]]
    refused = []

    def ask(i):
        clear_query_cache(embedder)
        refused.append(engine.ask(course, questions[i], session_id=f"pool{SESSION_CHUNKS}").refused)

    def retrieve(i):
        clear_query_cache(embedder)
        engine.retrieve(course, questions[i], session_id=f"pool{SESSION_CHUNKS}")

    samples = interleave({"ask": ask, "retrieve": retrieve}, iterations)
    stats = {name: summary(values) for name, values in samples.items()}
    return {
        "course_chunks": n_course,
        "questions": iterations,
        "stats": stats,
        "ask_over_retrieve": round(stats["ask"]["median_ms"] / stats["retrieve"]["median_ms"], 2),
        "answered": sum(not r for r in refused[1:]),
    }
