"""Benchmark 4: resident memory (psutil RSS) per active session and of a loaded course.

Runs in a fresh child process (`python -m bench.memory ...`, started by bench.run), so the
figures are not blurred by whatever the parent already allocated. RSS is read after a full
garbage collection and malloc_trim. Baselines are the raw payload sizes: the chunk texts
(UTF-8 bytes) plus their float32 vectors, so the ratio is the overhead of the in-memory
indexes (FAISS copy, BM25 postings, tokens, chunk objects).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from bench.common import PROJECT_ROOT


def _payload_bytes(chunks, dim: int) -> int:
    return sum(len(c.text.encode("utf-8")) for c in chunks) + len(chunks) * dim * 4


def measure(
    sessions: int,  # 0: the course alone
    chunks_per_session: int,
    course_size: int | None,
    distinct: int = 2000,
    embedder_name: str = "all-MiniLM-L6-v2",
) -> dict:
    from types import SimpleNamespace

    from bench import data
    from bench.common import settle_memory
    from courserag.retrieval.session_pool import SessionRegistry
    from courserag.stores.local import LocalCourseStore

    # Vectors come from the parent's cache: no model is loaded in this process.
    embedder = SimpleNamespace(name=embedder_name)
    name = embedder_name
    corpus = data.load_corpus(embedder, progress=False, limit=distinct)
    dim = corpus.vectors.shape[1]
    out: dict = {}

    registry = SessionRegistry(dim, idle_seconds=3600)
    # Warm-up: the first pool pays one-off costs (jieba's dictionary, FAISS and numpy
    # buffers) that belong to the process, not to a session.
    data.fill_pool(registry.get("warm-up"), corpus, 20, "warm-up.pdf")
    registry.release("warm-up")
    if sessions:
        before = settle_memory()
        payload = 0
        for s in range(sessions):
            pool = registry.get(f"session{s}")
            chunks, vectors = data.session_chunks(corpus, chunks_per_session, f"notes{s}.pdf", offset=20_000 + s)
            payload += _payload_bytes(chunks, dim)
            from courserag.retrieval.session_pool import UploadedFile

            uploaded = UploadedFile(f"notes{s}.pdf", chunks[0].file_hash, "pdf", len(chunks), len(chunks), 1)
            pool.add_file(uploaded, chunks, data.precomputed_embed(chunks, vectors, s))
            del chunks, vectors
        after = settle_memory()
        per_session = (after - before) / sessions
        out["sessions"] = {
            "sessions": sessions,
            "chunks_per_session": chunks_per_session,
            "rss_per_session_mb": round(per_session / 1024**2, 3),
            "baseline_payload_per_session_mb": round(payload / sessions / 1024**2, 3),
            "rss_over_payload": round(per_session / (payload / sessions), 2),
            "target_mb": 50,
            "target_met": per_session / 1024**2 <= 50,
        }
        # Idle release: the same registry with a short idle time drops every pool on sweep.
        registry.idle_seconds = 0.2
        time.sleep(0.3)
        released = registry.sweep()
        freed = after - settle_memory()
        out["sessions"]["idle_released"] = released
        out["sessions"]["rss_freed_on_release_mb"] = round(freed / 1024**2, 2)

    if course_size:
        out["course"] = measure_course(LocalCourseStore(data.store_root(name, len(corpus.passages)), dim), course_size)
    return out


def index_parts(index) -> dict[str, int]:
    """Bytes of what a loaded course holds in arrays: the FAISS vectors (half precision),
    the sentence vectors (int8 codes, scales, owners) and the BM25 postings; the rest of
    its resident memory is Python objects (chunks, their texts and token lists)."""
    sentences = index.sentences
    bm25 = index._bm25
    postings = sum(ids.itemsize * len(ids) + tfs.itemsize * len(tfs) for ids, tfs in bm25._postings.values())
    return {
        "chunk_vectors": index._faiss.sa_code_size() * index._faiss.ntotal,
        "sentence_vectors": sentences.codes.nbytes + sentences.scales.nbytes + sentences.owners.nbytes,
        "bm25_postings": postings + bm25._lengths.itemsize * len(bm25._lengths),
    }


def measure_course(store, course_size: int) -> dict:
    """Resident memory of one loaded course of `course_size` chunks, and what it is made of."""
    from bench import data
    from bench.common import settle_memory

    course = data.course_id_for(course_size)
    if store.count(course) != course_size:
        return {"error": f"course of {course_size} chunks not built yet"}
    before = settle_memory()
    started = time.perf_counter()
    index = store._index(course)
    load_s = time.perf_counter() - started
    after = settle_memory()
    raw = _payload_bytes(index.chunks, store.dim)
    delta = after - before
    parts = index_parts(index)
    parts["python_objects_and_rest"] = delta - sum(parts.values())
    return {
        "course_chunks": course_size,
        "sentences": len(index.sentences),
        "cold_load_s": round(load_s, 2),
        "rss_delta_mb": round(delta / 1024**2, 1),
        "rss_per_10k_chunks_mb": round(delta / 1024**2 / (course_size / 10_000), 1),
        "process_rss_mb": round(after / 1024**2, 1),
        "baseline_payload_mb": round(raw / 1024**2, 1),
        "rss_over_payload": round(delta / raw, 2),
        "parts_mb": {k: round(v / 1024**2, 1) for k, v in parts.items()},
    }


def run_child(
    sessions: int,
    chunks: int,
    course_size: int | None,
    distinct: int = 2000,
    embedder_name: str = "all-MiniLM-L6-v2",
    timeout: float = 600,
) -> dict:
    """Run `measure` in a fresh interpreter and return its JSON."""
    cmd = [
        sys.executable,
        "-m",
        "bench.memory",
        "--sessions",
        str(sessions),
        "--chunks",
        str(chunks),
        "--distinct",
        str(distinct),
        "--embedder-name",
        embedder_name,
    ]
    if course_size:
        cmd += ["--course-size", str(course_size)]
    env = dict(os.environ, PYTHONPATH=str(PROJECT_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"memory benchmark failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--course-size", type=int, default=None)
    parser.add_argument("--distinct", type=int, default=2000)
    parser.add_argument("--embedder-name", default="all-MiniLM-L6-v2")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    print(json.dumps(measure(args.sessions, args.chunks, args.course_size, args.distinct, args.embedder_name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
