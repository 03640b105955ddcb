"""Retrieval quality on real question sets, measured through the product's own pipeline.

    python -m courserag.evaluate --set ../shared/eval/squad_v1_dev --scope course
    python -m courserag.evaluate --set ../shared/eval/cmrc2018_dev --scope global --json out.json
    python -m courserag.evaluate --set ../shared/eval/squad_v1_dev --scope course --titles 2 --limit 40

A set (see ../shared/eval/README.md) is `corpus.jsonl` passages {doc_id, title, text} and
`queries.jsonl` questions {qid, question, gold_doc_ids, title, lang, answerable}.

Ingestion is the product's own: every title becomes one course file ("<title>.txt") whose
passages are its Sections, chunked by `courserag.ingest.ingest_file` (origin "course"), embedded
by the product embedder and written with `LocalCourseStore.replace_file` into a temporary
store. Course scope gives every title its own course id (a slug plus a short hash of the
title, see `course_id_for`); global scope puts every title into one course, "all". The
per-title courses are built in both scopes, because the wrong-course check needs them.
Embeddings are cached on disk under DATA_DIR/eval-cache, keyed by model name and text hash,
so a rerun embeds nothing.

Mapping chunks to gold passages: each passage is its own Section whose locator is its
doc_id, and a chunk never crosses a Section boundary, so every chunk belongs to exactly one
passage and `chunk.locator == doc_id`. A question is answered at rank r when the r-th returned
chunk's locator is one of its `gold_doc_ids`. Ranks count chunks as returned: a passage cut
into two chunks can take two places, as it would on the learner's screen. For the d2l sets
`gold_doc_ids` is every passage of the exercise's section, so R@5 is "section hit@5".

Systems, all on the same index in the same run:
- product: `RagEngine.retrieve` (course scope, no uploads) with top_k=10, so that R@5 and
  MRR@10 are defined, and again with the configured top_k (default 4) for refusals and latency;
- dense: FAISS top-10; bm25: BM25 top-10 (the store's own indexes);
- rrf: reciprocal rank fusion (k=60) of dense top-50 and BM25 top-50;
- reference: the original design, dense top-8 reranked by 0.7 x similarity + 0.3 x overlap.

Refusal: the product refuses when retrieval returns no items. "right-course refusals" is the
share of (answerable) questions refused in their own scope; "wrong-course refusals" asks each
question against another title's course (seeded random choice) and counts refusals there:
high is good. None of the current sets has unanswerable questions (answerable == false); when
one does, refusal accuracy on them is printed too. Latency is the engine's retrieval_ms with
the query vector already cached (search, fusion, rerank, packing); the time to embed one query
is measured separately and printed beside it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from courserag import ranking
from courserag.courses import Course, CourseDirectory
from courserag.embedding import Embedder, get_embedder
from courserag.engine import RagEngine
from courserag.ingest import IngestConfig, ingest_file
from courserag.parsers import ParsedDocument
from courserag.records import Chunk, ScoredChunk, Section
from courserag.settings import Settings
from courserag.stores.local import LocalCourseStore
from courserag.textnorm import word_tokens

GLOBAL_COURSE = "all"
RRF_K = 60  # Cormack, Clarke & Buettcher (SIGIR 2009): k=60 was robust across TREC runs.
RRF_DEPTH = 50
REFERENCE_DEPTH = 8  # the original design reranked the top-8 dense hits
BASELINE_DEPTH = 10
RANK_DEPTH = 10  # MRR@10; the product runs with top_k=10 for the ranking metrics


# -- the data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    gold: frozenset[str]
    title: str
    lang: str
    answerable: bool | None


@dataclass(frozen=True)
class EvalSet:
    name: str
    passages: tuple[Passage, ...]
    questions: tuple[Question, ...]

    @property
    def titles(self) -> list[str]:
        return list(OrderedDict.fromkeys(p.title for p in self.passages))


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_set(path: Path, titles: int | None = None, limit: int | None = None, seed: int = 0) -> EvalSet:
    """Read a set; optionally keep `titles` seeded-random titles (corpus and questions) and
    then at most `limit` seeded-random questions (in file order; the corpus is kept)."""
    path = Path(path)
    if not (path / "corpus.jsonl").is_file() or not (path / "queries.jsonl").is_file():
        raise FileNotFoundError(f"{path} is not an evaluation set (corpus.jsonl and queries.jsonl expected)")
    passages = [Passage(r["doc_id"], r["title"], r["text"]) for r in _read_jsonl(path / "corpus.jsonl")]
    questions = [
        Question(
            str(r["qid"]), r["question"], frozenset(r.get("gold_doc_ids") or [r["gold_doc_id"]]),
            r["title"], r.get("lang", ""), r.get("answerable"),
        )
        for r in _read_jsonl(path / "queries.jsonl")
    ]
    rng = random.Random(seed)
    if titles is not None:
        all_titles = list(OrderedDict.fromkeys(p.title for p in passages))
        asked = {q.title for q in questions}
        keep = set(rng.sample([t for t in all_titles if t in asked], min(titles, len(asked))))
        passages = [p for p in passages if p.title in keep]
        questions = [q for q in questions if q.title in keep]
    if limit is not None and limit < len(questions):
        chosen = set(rng.sample(range(len(questions)), limit))
        questions = [q for i, q in enumerate(questions) if i in chosen]
    return EvalSet(path.name, tuple(passages), tuple(questions))


def course_id_for(title: str) -> str:
    """A store-safe course id for a title: ASCII slug (up to 40 chars) plus 8 hex of its hash,
    so Chinese titles and titles that slug alike stay distinct."""
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].strip("-")
    digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else f"t-{digest}"


# -- embeddings, cached on disk ---------------------------------------------------------------


class CachedEmbedder(Embedder):
    """The product embedder with a disk cache keyed by model name + text hash.

    Vectors are those of the wrapped embedder (same model, same normalisation); the cache
    only saves recomputing them between runs. Files: `<cache_dir>/<model>/<random>.npz`, each
    with `keys` and `vectors`, written atomically after every batch of new texts.
    """

    def __init__(self, inner: Embedder, cache_dir: Path | None, progress: bool = False):
        self.inner = inner
        self.name = inner.name
        self.progress = progress
        self.embedded = 0
        self._vectors: dict[str, np.ndarray] = {}
        self._dir = Path(cache_dir) / re.sub(r"[^A-Za-z0-9_.-]+", "_", inner.name) if cache_dir else None
        if self._dir and self._dir.is_dir():
            for path in sorted(self._dir.glob("*.npz")):
                try:
                    with np.load(path, allow_pickle=False) as data:
                        self._vectors.update(zip(data["keys"].tolist(), np.asarray(data["vectors"], dtype=np.float32)))
                except (OSError, ValueError, KeyError):
                    continue  # a damaged cache file only costs a re-embed

    @property
    def dim(self) -> int:  # type: ignore[override]
        return self.inner.dim

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.name}\x1f{text}".encode("utf-8")).hexdigest()[:32]

    def _encode(self, texts: list[str]) -> np.ndarray:
        return self.inner._encode(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return self.inner.truncate_to_tokens(text, max_tokens)

    def _save(self, keys: list[str], vectors: np.ndarray) -> None:
        if not self._dir:
            return
        self._dir.mkdir(parents=True, exist_ok=True)
        target = self._dir / f"{uuid.uuid4().hex}.npz"
        tmp = target.with_suffix(".tmp")
        with tmp.open("wb") as handle:
            np.savez(handle, keys=np.asarray(keys), vectors=np.asarray(vectors, dtype=np.float32))
        os.replace(tmp, target)

    def embed_batch(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        missing = list(OrderedDict.fromkeys(k_t for k_t in zip(keys, texts) if k_t[0] not in self._vectors))
        step = 512
        for start in range(0, len(missing), step):
            part = missing[start : start + step]
            vectors = self.inner.embed_batch([t for _, t in part], batch_size)
            self._vectors.update(zip([k for k, _ in part], vectors))
            self._save([k for k, _ in part], vectors)
            self.embedded += len(part)
            if self.progress:
                print(f"  embedded {min(start + step, len(missing))}/{len(missing)} new texts", file=sys.stderr)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys])

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_batch([text])[0]


# -- ingestion through the product's pipeline -------------------------------------------------


def ingest(
    eval_set: EvalSet,
    store: LocalCourseStore,
    embedder: Embedder,
    settings: Settings,
    course_of: Callable[[str], str],
) -> int:
    """Write every title as one course file of passage Sections; returns the chunk count."""
    by_title: dict[str, list[Passage]] = OrderedDict()
    for passage in eval_set.passages:
        by_title.setdefault(passage.title, []).append(passage)
    files: list[tuple[str, str, list[Chunk]]] = []
    for title, passages in by_title.items():
        course_id = course_of(title)
        sections = [Section(text=p.text, locator=p.doc_id) for p in passages]
        document = ParsedDocument(f"{title}.txt", "txt", sections, len(passages), "paragraph")
        file_hash = hashlib.sha256("\x1e".join(f"{p.doc_id}\x1f{p.text}" for p in passages).encode("utf-8")).hexdigest()
        chunks = list(ingest_file(document, f"{title}.txt", IngestConfig.of(settings), origin="course",
                                  course_id=course_id, file_hash=file_hash).chunks)
        files.append((course_id, file_hash, chunks))
    all_texts = [c.text for _, _, chunks in files for c in chunks]
    vectors = embedder.embed_batch(all_texts, settings.embedding_batch_size)
    start = 0
    for (course_id, file_hash, chunks), title in zip(files, by_title):
        store.replace_file(course_id, f"{title}.txt", file_hash, chunks, vectors[start : start + len(chunks)])
        start += len(chunks)
    return len(all_texts)


def build_directory(course_ids: Iterable[str], docs: Path) -> CourseDirectory:
    """An in-memory course directory for the engine (docs is never read during retrieval)."""
    return CourseDirectory(
        tuple(Course(cid, cid, "evaluation course", "en", Path(docs)) for cid in OrderedDict.fromkeys(course_ids))
    )


# -- baselines (same store, same query vector) ------------------------------------------------


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


def baseline_rankings(
    store: LocalCourseStore, course_id: str, vector: np.ndarray, tokens: list[str], settings: Settings
) -> dict[str, tuple[list[ScoredChunk], float]]:
    """Each baseline's ranked chunks and its time in ms (the query vector is given)."""
    cfg = settings.retrieval
    out: dict[str, tuple[list[ScoredChunk], float]] = {}
    started = time.perf_counter()
    dense = store.vector_search(course_id, vector, RRF_DEPTH)
    dense_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    lexical = store.lexical_search(course_id, tokens, RRF_DEPTH)
    lexical_ms = (time.perf_counter() - started) * 1000
    out["dense"] = (dense[:BASELINE_DEPTH], dense_ms)
    out["bm25"] = (lexical[:BASELINE_DEPTH], lexical_ms)
    started = time.perf_counter()
    fused = reciprocal_rank_fusion([dense, lexical])[:RANK_DEPTH]
    out["rrf k=60"] = (fused, dense_ms + lexical_ms + (time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    reference = ranking.rerank_reference(
        dense[:REFERENCE_DEPTH], tokens, REFERENCE_DEPTH, 0.7, 0.3, cfg.similarity_threshold, cfg.weak_vector_threshold
    )
    out["reference rerank"] = (reference, dense_ms + (time.perf_counter() - started) * 1000)
    return out


# -- metrics ----------------------------------------------------------------------------------


def first_gold_rank(locators: Sequence[str], gold: frozenset[str], depth: int = RANK_DEPTH) -> int | None:
    """1-based rank of the first chunk from a gold passage, None when none in the top `depth`."""
    for rank, locator in enumerate(locators[:depth], start=1):
        if locator in gold:
            return rank
    return None


def _percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else float("nan")


@dataclass
class SystemResult:
    """Per-question outcomes of one system; metrics are computed from them."""

    name: str
    ranks: list[int | None] = field(default_factory=list)
    refused: list[bool] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)

    def add(self, locators: Sequence[str], gold: frozenset[str], ms: float) -> None:
        self.ranks.append(first_gold_rank(locators, gold))
        self.refused.append(not locators)
        self.latency_ms.append(ms)

    def recall(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / max(1, len(self.ranks))

    @property
    def mrr(self) -> float:
        return sum(1.0 / r for r in self.ranks if r is not None) / max(1, len(self.ranks))

    def metrics(self) -> dict[str, float]:
        return {
            "R@1": self.recall(1),
            "R@5": self.recall(5),
            "MRR@10": self.mrr,
            "refused": sum(self.refused) / max(1, len(self.refused)),
            "p50_ms": _percentile(self.latency_ms, 50),
            "p95_ms": _percentile(self.latency_ms, 95),
        }


@dataclass
class Report:
    set_name: str
    scope: str
    fusion: str
    top_k: int
    passages: int
    chunks: int
    courses: int
    questions: int
    systems: dict[str, dict[str, float]]
    refusals: dict[str, float]
    timings: dict[str, float]
    settings: dict[str, str]
    command: str = ""

    def to_json(self) -> dict:
        return {
            "set": self.set_name, "scope": self.scope, "fusion": self.fusion, "top_k": self.top_k,
            "passages": self.passages, "chunks": self.chunks, "courses": self.courses,
            "questions": self.questions, "systems": self.systems, "refusals": self.refusals,
            "timings": self.timings, "settings": self.settings, "command": self.command,
        }


# -- the run ------------------------------------------------------------------------------------


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

    `ranking_module` (e.g. "mypackage.my_ranking") swaps the module the engine ranks
    with for this run only, to measure a proposed fusion on the same index before adopting it.
    """
    if scope not in ("course", "global"):
        raise ValueError(f"scope must be 'course' or 'global', but got {scope!r}")
    if fusion not in ("hybrid", "reference"):
        raise ValueError(f"fusion must be 'hybrid' or 'reference', but got {fusion!r}")
    base = settings or Settings.from_env()
    eval_set = load_set(set_dir, titles, limit, seed)
    if not eval_set.questions:
        raise ValueError(f"{set_dir}: no questions selected")
    cache = base.data_dir / "eval-cache" if cache_dir is None else cache_dir
    embedder_args = base.embedder_args() if hasattr(base, "embedder_args") else (base.embedding_model,)
    inner = embedder or get_embedder(*embedder_args)
    cached = CachedEmbedder(inner, cache, progress=progress)
    timings: dict[str, float] = {}
    workdir = Path(tempfile.mkdtemp(prefix="courserag-eval-"))
    try:
        started = time.perf_counter()
        store = LocalCourseStore(workdir / "index", cached.dim)
        per_title = {t: course_id_for(t) for t in eval_set.titles}
        chunks = ingest(eval_set, store, cached, base, per_title.__getitem__)
        if scope == "global":
            chunks = ingest(eval_set, store, cached, base, lambda _t: GLOBAL_COURSE)
        timings["ingest_s"] = time.perf_counter() - started
        timings["texts_embedded"] = float(cached.embedded)

        started = time.perf_counter()
        cached.embed_batch([q.question for q in eval_set.questions], base.embedding_batch_size)
        timings["query_embed_batch_s"] = time.perf_counter() - started
        sample = [q.question for q in eval_set.questions[:50]]
        single = []
        for text in sample:
            t0 = time.perf_counter()
            inner.embed_batch([text])
            single.append((time.perf_counter() - t0) * 1000)
        timings["embed_query_p50_ms"] = _percentile(single, 50)

        course_ids = list(per_title.values()) + ([GLOBAL_COURSE] if scope == "global" else [])
        directory = build_directory(course_ids, workdir)
        ranked_settings = replace(
            base, data_dir=workdir, retrieval=replace(base.retrieval, top_k=RANK_DEPTH, fusion=fusion)
        )
        default_settings = replace(base, data_dir=workdir, retrieval=replace(base.retrieval, fusion=fusion))
        engine_module = sys.modules[RagEngine.__module__]
        product_ranking = engine_module.ranking
        if ranking_module:
            engine_module.ranking = importlib.import_module(ranking_module)
        engine_ranked = RagEngine(ranked_settings, directory, store, cached)
        engine_default = RagEngine(default_settings, directory, store, cached)

        product_name = f"product ({fusion}, top_k={RANK_DEPTH})"
        default_name = f"product ({fusion}, top_k={base.retrieval.top_k})"
        results: dict[str, SystemResult] = {
            product_name: SystemResult(product_name),
            default_name: SystemResult(default_name),
        }
        wrong = SystemResult("wrong course")
        rng = random.Random(seed)
        other_titles = eval_set.titles
        started = time.perf_counter()
        for number, q in enumerate(eval_set.questions, start=1):
            course_id = GLOBAL_COURSE if scope == "global" else per_title[q.title]
            for name, engine in ((product_name, engine_ranked), (default_name, engine_default)):
                retrieval = engine.retrieve(course_id, q.question, scope="course")
                results[name].add([i.hit.chunk.locator for i in retrieval.items], q.gold, retrieval.retrieval_ms)
            vector = cached.embed_query(q.question)
            for name, (hits, ms) in baseline_rankings(store, course_id, vector, word_tokens(q.question), base).items():
                results.setdefault(name, SystemResult(name)).add([h.chunk.locator for h in hits], q.gold, ms)
            if wrong_course and len(other_titles) > 1:
                other = q.title
                while other == q.title:
                    other = rng.choice(other_titles)
                retrieval = engine_default.retrieve(per_title[other], q.question, scope="course")
                wrong.add([i.hit.chunk.locator for i in retrieval.items], q.gold, retrieval.retrieval_ms)
            if progress and number % 500 == 0:
                print(f"  {number}/{len(eval_set.questions)} questions", file=sys.stderr)
        timings["questions_s"] = time.perf_counter() - started
        engine_module.ranking = product_ranking

        answerable = [i for i, q in enumerate(eval_set.questions) if q.answerable is not False]
        unanswerable = [i for i, q in enumerate(eval_set.questions) if q.answerable is False]
        default_refused = results[default_name].refused
        refusals: dict[str, float] = {
            "right_course_refused": sum(default_refused[i] for i in answerable) / max(1, len(answerable)),
            "unanswerable": float(len(unanswerable)),
        }
        if unanswerable:
            refusals["unanswerable_refused"] = sum(default_refused[i] for i in unanswerable) / len(unanswerable)
        if wrong.refused:
            refusals["wrong_course_refused"] = sum(wrong.refused) / len(wrong.refused)
            refusals["balanced_refusal_accuracy"] = (
                refusals["wrong_course_refused"] + 1 - refusals["right_course_refused"]
            ) / 2
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
            refusals=refusals,
            timings=timings,
            settings={k: str(v) for k, v in vars(default_settings.retrieval).items()}
            | {"chunk_size": str(base.chunk_size), "chunk_overlap": str(base.chunk_overlap),
               "embedder": inner.name, "ranking": ranking_module or "courserag.ranking"},
        )
    finally:
        if ranking_module and "engine_module" in locals():
            engine_module.ranking = product_ranking
        shutil.rmtree(workdir, ignore_errors=True)


def format_report(report: Report) -> str:
    """The result table as Markdown (pasteable into docs/EVALUATION.md)."""
    d2l = report.set_name.startswith("d2l")
    r5 = "section hit@5" if d2l else "R@5"
    lines = [
        f"### {report.set_name}, {report.scope} scope ({report.questions} questions, {report.passages} passages, "
        f"{report.chunks} chunks, {report.courses} course{'s' if report.courses != 1 else ''})",
        "",
        f"| system | R@1 | {r5} | MRR@10 | refused | p50 ms | p95 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, m in report.systems.items():
        lines.append(
            f"| {name} | {m['R@1']:.3f} | {m['R@5']:.3f} | {m['MRR@10']:.3f} | {m['refused']:.3f} "
            f"| {m['p50_ms']:.1f} | {m['p95_ms']:.1f} |"
        )
    ref = report.refusals
    lines.append("")
    lines.append(f"- right-course refusals (answerable questions, top_k={report.top_k}): {ref['right_course_refused']:.3f}")
    if "wrong_course_refused" in ref:
        lines.append(f"- wrong-course refusals (asked against another title's course): {ref['wrong_course_refused']:.3f}")
        lines.append(f"- balanced refusal accuracy: {ref['balanced_refusal_accuracy']:.3f}")
    if "unanswerable_refused" in ref:
        lines.append(f"- unanswerable questions refused: {ref['unanswerable_refused']:.3f} of {int(ref['unanswerable'])}")
    else:
        lines.append("- refusal accuracy on unanswerable questions: n/a (the set has none)")
    st = report.settings
    lines.append(
        f"- product: ranking module {st.get('ranking')}, fusion {st.get('fusion')}, min_candidates {st.get('min_candidates')}, "
        f"chunk_size {st.get('chunk_size')}, embedder {st.get('embedder')}"
    )
    t = report.timings
    lines.append(
        f"- latency: retrieval with the query vector cached; embedding one query takes p50 "
        f"{t['embed_query_p50_ms']:.1f} ms more. Ingest {t['ingest_s']:.1f} s ({int(t['texts_embedded'])} texts embedded), "
        f"questions {t['questions_s']:.1f} s"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m courserag.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", required=True, type=Path, help="folder with corpus.jsonl and queries.jsonl")
    parser.add_argument("--scope", choices=("course", "global"), default="course")
    parser.add_argument("--fusion", choices=("hybrid", "reference"), default=None, help="default: FUSION or hybrid")
    parser.add_argument("--titles", type=int, default=None, help="keep only N seeded-random titles (corpus and questions)")
    parser.add_argument("--limit", type=int, default=None, help="score at most N seeded-random questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-wrong-course", action="store_true", help="skip the wrong-course refusal pass")
    parser.add_argument("--ranking", default=None, metavar="MODULE",
                        help="rank with this module instead of courserag.ranking (e.g. mypackage.my_ranking)")
    parser.add_argument("--min-candidates", type=int, default=None, help="override RetrievalSettings.min_candidates")
    parser.add_argument("--json", type=Path, default=None, help="also write the report as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import logging

    logging.basicConfig(level=logging.WARNING)
    for name in ("sentence_transformers", "transformers", "jieba"):
        logging.getLogger(name).setLevel(logging.ERROR)
    settings = Settings.from_env()
    if args.min_candidates is not None:
        settings = replace(settings, retrieval=replace(settings.retrieval, min_candidates=args.min_candidates))
    fusion = args.fusion or settings.retrieval.fusion
    report = evaluate(
        args.set, args.scope, fusion, args.titles, args.limit, args.seed, settings,
        wrong_course=not args.no_wrong_course, progress=True, ranking_module=args.ranking,
    )
    report.command = "python -m courserag.evaluate " + " ".join(sys.argv[1:] if argv is None else argv)
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
