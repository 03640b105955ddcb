"""The run: load -> ingest -> ask every system every question -> score -> report.

Everything happens in a temporary local store that is deleted afterwards. Embeddings are
cached on disk under DATA_DIR/eval-cache (one `CachingEmbedder`, keyed by model name and
text hash), so a rerun embeds nothing. Latency is the engine's retrieval_ms with the query
vector already cached (search, fusion, rerank, packing); the time to embed one query is
measured separately and reported beside it.
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.evaluation.ingest import GLOBAL_COURSE, build_directory, corpus_language, course_id_for, ingest
from bench.evaluation.load import EvalSet, load_set
from bench.evaluation.report import Report
from bench.evaluation.score import SystemResult, percentile, refusal_rates
from bench.evaluation.systems import (
    PRODUCT_RANKING,
    RANK_DEPTH,
    ProductSystem,
    baseline_runs,
    load_ranker,
    product_system,
)
from courserag.config.settings import Settings
from courserag.embedders import CachingEmbedder, Embedder, get_embedder
from courserag.lang.textnorm import word_tokens
from courserag.stores.local import LocalCourseStore


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _build_stores(eval_set: EvalSet, scope: str, store: LocalCourseStore, embedder: Embedder, settings: Settings):
    """(title -> course id, chunks in the scope's courses). The per-title courses are built
    in both scopes, because the wrong-course check needs them."""
    per_title = {t: course_id_for(t) for t in eval_set.titles}
    chunks = ingest(eval_set, store, embedder, settings, per_title.__getitem__)
    if scope == "global":
        chunks = ingest(eval_set, store, embedder, settings, lambda _t: GLOBAL_COURSE)
    return per_title, chunks


def _embed_questions(
    eval_set: EvalSet, inner: Embedder, cached: CachingEmbedder, settings: Settings
) -> dict[str, float]:
    """Embed (and cache) every question in batches; time single questions on the model."""
    started = time.perf_counter()
    cached.embed_queries([q.question for q in eval_set.questions], settings.embedding_batch_size)
    timings = {"query_embed_batch_s": time.perf_counter() - started}
    single = []
    for question in eval_set.questions[:50]:
        t0 = time.perf_counter()
        inner.embed_batch([question.question])
        single.append((time.perf_counter() - t0) * 1000)
    timings["embed_query_p50_ms"] = percentile(single, 50)
    return timings


def _ask_all(
    eval_set: EvalSet,
    course_of,
    products: list[ProductSystem],
    store: LocalCourseStore,
    cached: CachingEmbedder,
    settings: Settings,
    wrong_course_of,
    progress: bool,
) -> tuple[dict[str, SystemResult], SystemResult]:
    """Every system's outcome on every question, and the configured product's outcome when
    each question is asked in another title's course (`wrong_course_of`, None to skip)."""
    results: dict[str, SystemResult] = {}
    wrong = SystemResult("wrong course")
    for number, q in enumerate(eval_set.questions, start=1):
        course_id = course_of(q)
        for system in products:
            ranked = system.run(course_id, q.question)
            results.setdefault(system.name, SystemResult(system.name)).add(ranked.locators, q.gold, ranked.ms)
        vector = cached.embed_query(q.question)
        for name, ranked in baseline_runs(
            store, course_id, vector, word_tokens(q.question), settings.retrieval
        ).items():
            results.setdefault(name, SystemResult(name)).add(ranked.locators, q.gold, ranked.ms)
        if wrong_course_of is not None:
            ranked = products[-1].run(wrong_course_of(q), q.question)
            wrong.add(ranked.locators, q.gold, ranked.ms)
        if progress and number % 500 == 0:
            _say(f"  {number}/{len(eval_set.questions)} questions")
    return results, wrong


def _wrong_courses(eval_set: EvalSet, per_title: dict[str, str], seed: int):
    """Another title's course for each question, by a seeded random choice."""
    rng = random.Random(seed)
    titles = eval_set.titles

    def other_course(q) -> str:
        other = q.title
        while other == q.title:
            other = rng.choice(titles)
        return per_title[other]

    return other_course


def evaluate(
    set_dir: Path,
    scope: str = "course",
    fusion: str = "hybrid",
    titles: int | None = None,
    limit: int | None = None,
    seed: int = 0,
    settings: Settings | None = None,
    cache_dir: Path | None = None,
    wrong_course: bool = True,
    embedder: Embedder | None = None,
    progress: bool = False,
    ranking_module: str | None = None,
) -> Report:
    """Ingest the set into a temporary local store and score the product and the baselines.

    `ranking_module` (e.g. "mypackage.my_ranking") names a module whose
    `ranker_for(RetrievalSettings)` gives the product engines' ranker for this run, to
    measure a proposed ranking on the same index before adopting it.
    """
    if scope not in ("course", "global"):
        raise ValueError(f"scope must be 'course' or 'global', but got {scope!r}")
    if fusion not in ("hybrid", "reference"):
        raise ValueError(f"fusion must be 'hybrid' or 'reference', but got {fusion!r}")
    base = settings or Settings.from_env()
    eval_set = load_set(set_dir, titles, limit, seed)
    if not eval_set.questions:
        raise ValueError(f"{set_dir}: no questions selected")
    inner = embedder or get_embedder(*base.embedder_args())
    report_progress = (lambda done, total: _say(f"  embedded {done}/{total} new texts")) if progress else None
    cached = CachingEmbedder(
        inner, base.data_dir / "eval-cache" if cache_dir is None else cache_dir, progress=report_progress
    )
    workdir = Path(tempfile.mkdtemp(prefix="courserag-eval-"))
    try:
        started = time.perf_counter()
        store = LocalCourseStore(workdir / "index", cached.dim)
        per_title, chunks = _build_stores(eval_set, scope, store, cached, base)
        timings = {"ingest_s": time.perf_counter() - started, "texts_embedded": float(cached.embedded)}
        timings.update(_embed_questions(eval_set, inner, cached, base))

        course_ids = list(per_title.values()) + ([GLOBAL_COURSE] if scope == "global" else [])
        directory = build_directory(course_ids, workdir, corpus_language(eval_set))
        engine_settings = replace(base, data_dir=workdir, retrieval=replace(base.retrieval, fusion=fusion))
        ranker = load_ranker(ranking_module, engine_settings.retrieval)
        products = [
            product_system(engine_settings, directory, store, cached, ranker, top_k=RANK_DEPTH),
            product_system(engine_settings, directory, store, cached, ranker),  # the configured top_k
        ]
        course_of = (lambda q: GLOBAL_COURSE) if scope == "global" else (lambda q: per_title[q.title])
        wrong_course_of = (
            _wrong_courses(eval_set, per_title, seed) if wrong_course and len(eval_set.titles) > 1 else None
        )
        started = time.perf_counter()
        results, wrong = _ask_all(eval_set, course_of, products, store, cached, base, wrong_course_of, progress)
        timings["questions_s"] = time.perf_counter() - started

        return Report(
            set_name=eval_set.name,
            scope=scope,
            fusion=fusion,
            top_k=base.retrieval.top_k,
            passages=len(eval_set.passages),
            chunks=chunks,
            courses=1 if scope == "global" else len(per_title),
            questions=len(eval_set.questions),
            systems={name: r.metrics() for name, r in results.items()},
            refusals=refusal_rates(eval_set.questions, results[products[-1].name].refused, wrong.refused),
            timings=timings,
            settings={k: str(v) for k, v in vars(engine_settings.retrieval).items()}
            | {
                "chunk_tokens": str(base.chunk_tokens),
                "chunk_overlap_tokens": str(base.chunk_overlap_tokens),
                "embedder": inner.name,
                "ranking": ranking_module or PRODUCT_RANKING,
            },
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
