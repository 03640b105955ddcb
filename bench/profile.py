"""Where the time goes: cProfile of RagEngine.retrieve and of the session-pool searches.

    python -m bench.profile --size 100000 --questions 40
    python -m bench.profile --size 10000 --cold      # include embedding the question

Uses the cached benchmark stores (run `python -m bench.run --quick` or a full run first
for the size you ask for; sizes other than those are built on first use). Prints the top
functions by cumulative and by own time, then the cost split of one cached-pool vector
search at 2k session chunks against the reference design's rebuild.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile")
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--cold", action="store_true", help="embed each question (default: vectors cached)")
    parser.add_argument("--top", type=int, default=18)
    args = parser.parse_args(argv)
    from bench.common import quiet

    quiet()
    import numpy as np

    from bench import data, retrieval
    from courserag.config.settings import Settings
    from courserag.embedders import get_embedder

    settings = Settings.from_env()
    embedder = get_embedder(settings.embedding_model, "torch", None, settings.cpu_threads)
    fixture = retrieval.make_fixture(embedder, (args.size,))
    engine, course = fixture.engine, data.course_id_for(args.size)
    questions = [q.text for q in data.questions()[: args.questions]]
    for q in questions:
        embedder.embed_query(q)

    def run():
        for q in questions:
            if args.cold:
                retrieval.clear_query_cache(embedder)
            engine.retrieve(course, q, session_id=f"pool{retrieval.SESSION_CHUNKS}")

    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.runcall(run)
    elapsed = (time.perf_counter() - started) * 1000 / len(questions)
    print(
        f"retrieve at {args.size} chunks ({'cold' if args.cold else 'question vector cached'}): "
        f"{elapsed:.1f} ms per question under cProfile"
    )
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(key).print_stats(args.top)
        print(out.getvalue().split("\n", 6)[-1])

    # The vector path of a 2k-chunk session pool: cached search vs. the per-query rebuild.
    import faiss

    pool = engine.sessions.get("pool2000")
    vector = embedder.embed_query(questions[0]).reshape(1, -1)
    k = 20
    parts = {
        "faiss search (cached index)": lambda: pool.index._faiss.search(vector, k),
        "ChunkIndex.vector_search (search + result objects)": lambda: pool.vector_search(vector[0], k),
        "decode the pool's vectors": lambda: pool.index.vectors,
        "IndexFlatIP + add": lambda m=pool.index.vectors: faiss.IndexFlatIP(m.shape[1]).add(m),
    }
    print("one vector search at 2000 session chunks, median of 200:")
    for name, fn in parts.items():
        times = []
        for _ in range(200):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        print(f"  {name:55s} {np.median(times):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
