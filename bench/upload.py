"""Benchmark 2: a session upload from `engine.add_upload` to its first answered query.

Real files: a 50-page text PDF (fpdf2) and a 30-slide deck (python-pptx) of real passages.
Each run uses a fresh session, so nothing is cached between runs except the loaded model.
The breakdown is of the real call: parse, chunk and embed are timed by wrapping the
functions `add_upload` calls (parse_bytes, chunk_sections + make_chunks as courserag.ingest.pipeline
calls them, and engine.parts.embed_texts); "index" is the rest of add_upload (hashing, BM25 tokens, FAISS add);
"first_query" is one `retrieve` in the notes scope right after.

Configurations, all interleaved: the baseline is the naive loop (batch_size 1: one model
call per chunk), then the product's batching (length-sorted batches of 32) on each
embedding backend.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
import uuid
from pathlib import Path

from bench import data
from bench.common import speedup, summary
from bench.retrieval import clear_query_cache, make_engine


@contextlib.contextmanager
def _stage_timer(engine, stages: dict):
    """Time the stages of engine.add_upload by wrapping what it calls (through courserag.ingest.pipeline)."""
    import courserag.ingest.pipeline as ingest_module

    stage_of = {
        "parse_bytes": "parse",
        "parse_file": "parse",
        "parse_sandboxed": "parse",
        "chunk_sections": "chunk",
        "make_chunks": "chunk",
    }
    originals = {name: getattr(ingest_module, name) for name in stage_of}

    def wrap(name, fn):
        def timed_call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                stages[stage_of[name]] = stages.get(stage_of[name], 0.0) + (time.perf_counter() - started) * 1000

        return timed_call

    embed = engine.parts.embed_texts

    def timed_embed(texts):
        started = time.perf_counter()
        try:
            return embed(texts)
        finally:
            stages["embed"] = stages.get("embed", 0.0) + (time.perf_counter() - started) * 1000
            stages["chunks"] = stages.get("chunks", 0) + len(texts)

    for name, fn in originals.items():
        setattr(ingest_module, name, wrap(name, fn))
    engine.parts.embed_texts = timed_embed  # the upload service embeds through the shared parts
    try:
        yield
    finally:
        for name, fn in originals.items():
            setattr(ingest_module, name, fn)
        del engine.parts.embed_texts


def upload_once(engine, path: Path, question: str) -> dict:
    """add_upload then one notes-scope retrieve; milliseconds per stage."""
    session = f"upload-{uuid.uuid4().hex[:8]}"
    stages: dict = {"parse": 0.0, "chunk": 0.0, "embed": 0.0}
    with _stage_timer(engine, stages):
        started = time.perf_counter()
        result = engine.add_upload(session, path)
        added = time.perf_counter()
        clear_query_cache(engine.embedder)
        found = engine.retrieve(engine.directory.courses[0].id, question, session_id=session, scope="notes")
        done = time.perf_counter()
    if not result.ok:
        raise RuntimeError(f"upload failed: {result.error}")
    engine.end_session(session)
    add_ms = (added - started) * 1000
    stages["index"] = add_ms - stages.get("parse", 0) - stages.get("chunk", 0) - stages.get("embed", 0)
    stages["first_query"] = (done - added) * 1000
    stages["total"] = (done - started) * 1000
    stages["hits"] = len(found.items)
    return stages


def probe_question(path: Path) -> str:
    """A question made of words from the middle of the file, so the first query finds it."""
    from courserag.ingest.parsers import parse_file

    sections = [s for s in parse_file(path).sections if len(s.text.split()) > 12]
    words = sections[len(sections) // 2].text.split()
    return " ".join(words[len(words) // 2 : len(words) // 2 + 10]) + "?"


def upload_benchmark(
    embedders: dict,
    store,
    course_ids,
    pdf_pages: int = 50,
    slides: int = 30,
    reps: int = 2,
    baseline: str = "torch_batch1",
) -> dict:
    """embedders: config name -> (embedder, batch_size)."""
    from courserag.config.settings import Settings

    folder = Path(tempfile.mkdtemp(prefix="courserag-bench-upload-"))
    files = {
        f"pdf_{pdf_pages}_pages": folder / "lecture_notes.pdf",
        f"pptx_{slides}_slides": folder / "slides.pptx",
    }
    files[f"pdf_{pdf_pages}_pages"].write_bytes(data.lecture_pdf_bytes(pdf_pages, seed=42))
    files[f"pptx_{slides}_slides"].write_bytes(data.lecture_pptx_bytes(slides, seed=43))
    engines = {
        name: make_engine(embedder, store, course_ids, Settings(data_dir=folder / "data", embedding_batch_size=batch))
        for name, (embedder, batch) in embedders.items()
    }
    out: dict = {"reps": reps, "baseline": baseline, "files": {}}
    for label, path in files.items():
        question = probe_question(path)
        runs: dict[str, list[dict]] = {name: [] for name in engines}
        names = list(engines)
        for rep in range(reps):
            order = names[rep % len(names) :] + names[: rep % len(names)]
            for name in order:
                runs[name].append(upload_once(engines[name], path, question))
        per_config = {}
        for name, items in runs.items():
            totals = summary([r["total"] for r in items])
            per_config[name] = {
                "total": totals,
                "breakdown_median_ms": {
                    stage: round(sorted(r[stage] for r in items)[len(items) // 2], 1)
                    for stage in ("parse", "chunk", "embed", "index", "first_query")
                },
                "chunks": items[0].get("chunks", 0),
                "chunks_per_s_embed": round(
                    items[0].get("chunks", 0) / (sorted(r["embed"] for r in items)[len(items) // 2] / 1000), 2
                ),
                "hits": items[0]["hits"],
            }
        for name in per_config:
            per_config[name]["speedup_vs_baseline"] = speedup(per_config[baseline]["total"], per_config[name]["total"])
        out["files"][label] = {"bytes": path.stat().st_size, "configs": per_config}
    return out
