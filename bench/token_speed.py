"""The answer step with and without the token match, and with the likeliest passages read whole
(reread.py): ratios in one run, on the same questions.

    .venv/bin/python -m bench.token_speed     # needs bench.replay's pickles (bench.replay collect)

Each question's vector is embedded first, as retrieval leaves it (the token states of the
question come from that run); each pass starts with an empty unit cache, and each mode runs
twice, the second pass reported.
"""

import pickle
import statistics
import time

from bench import replay as R
from courserag.answers.wording import compose_answer
from courserag.embedders.groups import GroupVectors
from courserag.engine.parts import PASSAGE_BATCH


def run(name, scope, role, n):
    rows = pickle.loads((R.OUT / f"{name}-{role}.pkl").read_bytes())[:n]
    engine, settings = R.engine_for(name, scope)
    emb = engine.embedder
    out = {}
    for mode in ("vectors", "tokens", "reread") * 2:
        groups, whole = GroupVectors(), GroupVectors()
        times = []
        for q, retrieval, codes, course in rows:
            if not retrieval.items:
                continue
            emb.embed_query_for(retrieval.query.text, retrieval.query.across)  # retrieval embedded it
            t = time.perf_counter()
            sim = groups.similarity(
                emb,
                retrieval.query.vector,
                retrieval.query.across,
                settings.embedding_batch_size,
                retrieval.query.text if mode != "vectors" else None,
            )
            reread = None
            if mode == "reread":
                reread = whole.similarity(
                    emb, retrieval.query.vector, retrieval.query.across, PASSAGE_BATCH, retrieval.query.text
                )
            compose_answer(retrieval, codes, course, sim, emb.word_vectors, reread)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out.setdefault(mode, []).append((statistics.median(times), times[int(0.95 * len(times))]))
    for mode, v in out.items():
        print(name, mode, "median %.1f p95 %.1f ms" % v[-1])
    print(
        name,
        "ratio tokens/vectors median %.2f p95 %.2f"
        % (out["tokens"][-1][0] / out["vectors"][-1][0], out["tokens"][-1][1] / out["vectors"][-1][1]),
    )
    print(
        name,
        "ratio reread/tokens median %.2f p95 %.2f"
        % (out["reread"][-1][0] / out["tokens"][-1][0], out["reread"][-1][1] / out["tokens"][-1][1]),
    )


def main() -> None:
    for args in (
        ("syllabusqa_dev", "course", "held", 300),
        ("xquad_zh2en_dev", "global", "held", 60),
        ("xquad_en2zh_dev", "global", "held", 60),
    ):
        run(*args)


if __name__ == "__main__":
    main()
