"""Embedder backends: speed (passages/s, one-question latency) and whether retrieval changes.

Backends (EMBEDDING_BACKEND): torch (sentence-transformers, the baseline), onnx (the same
model exported to onnxruntime), onnx-int8 (that export with int8 weights). All interleaved
on the same real passages and questions.

Quality: on QUALITY_PASSAGES real SQuAD passages, each backend embeds the passages and up
to 300 of their real questions; dense top-5 is compared with the torch backend's (mean
overlap of the top-5 sets, share of identical top-1) and recall@5 / MRR@10 against the gold
passages are computed for each, so a backend is acceptable when its metrics move by less
than 0.01.
"""

from __future__ import annotations

import numpy as np

from bench import data
from bench.common import interleave, speedup, summary

QUALITY_PASSAGES = 600


def available_backends() -> list[str]:
    """torch, plus the onnx backends when onnxruntime (to run) and onnx (to export once)
    are installed."""
    out = ["torch"]
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401

        out += ["onnx", "onnx-int8"]
    except ImportError:
        pass
    return out


def speed(embedders: dict, passages: int = 64, questions: int = 30, reps: int = 2, batch_size: int = 32) -> dict:
    from bench.retrieval import clear_query_cache

    texts = [p.text for p in data.english_passages()[:passages]]
    qs = [q.text for q in data.questions()[300 : 300 + questions + 1]]
    for e in embedders.values():  # load models (and export) outside the timing
        e.embed_batch(texts[:2])
    batch = interleave(
        {name: (lambda i, e=e: e.embed_batch(texts, batch_size)) for name, e in embedders.items()}, reps, warmup=0
    )

    def one_question(e):
        def run(i):
            clear_query_cache(e)
            e.embed_query(qs[i])

        return run

    query = interleave({name: one_question(e) for name, e in embedders.items()}, questions)
    out = {"passages": passages, "batch_size": batch_size, "backends": {}}
    batch_stats = {name: summary(v) for name, v in batch.items()}
    query_stats = {name: summary(v) for name, v in query.items()}
    for name in embedders:
        out["backends"][name] = {
            "passages_per_s": round(passages / (batch_stats[name]["median_ms"] / 1000), 2),
            "batch": batch_stats[name],
            "question": query_stats[name],
            "speedup_batch_vs_torch": speedup(batch_stats["torch"], batch_stats[name]),
            "speedup_question_vs_torch": speedup(query_stats["torch"], query_stats[name]),
        }
    return out


def quality(embedders: dict, n_passages: int = QUALITY_PASSAGES, n_questions: int = 300, progress: bool = True) -> dict:
    """Dense retrieval on real SQuAD passages and questions, per backend vs. torch."""
    chosen = data.english_passages()[:n_passages]
    ids = [p.doc_id for p in chosen]
    allowed = set(ids)
    qs = [q for q in data.questions() if q.lang == "en" and set(q.gold) & allowed][:n_questions]
    results = {}
    for name, e in embedders.items():
        cache = data.disk_cached(e)
        if progress:
            print(f"  quality check: {name} embeds {len(chosen)} passages (cached for later runs)", flush=True)
        matrix = cache.embed_batch([p.text for p in chosen])
        qv = cache.embed_queries([q.text for q in qs])
        scores = qv @ matrix.T
        top = np.argsort(-scores, axis=1)[:, :10]
        results[name] = top
    out = {"passages": len(chosen), "questions": len(qs), "backends": {}}
    ref = results["torch"]
    for name, top in results.items():
        recall5, rr = 0.0, 0.0
        for q, row in zip(qs, top):
            gold = set(q.gold)
            ranks = [r for r, i in enumerate(row) if ids[i] in gold]
            recall5 += bool(ranks and ranks[0] < 5)
            rr += 1.0 / (ranks[0] + 1) if ranks else 0.0
        overlap = float(np.mean([len(set(a[:5]) & set(b[:5])) / 5 for a, b in zip(top, ref)]))
        out["backends"][name] = {
            "recall@5": round(recall5 / len(qs), 4),
            "mrr@10": round(rr / len(qs), 4),
            "top5_overlap_with_torch": round(overlap, 4),
            "top1_same_as_torch": round(float(np.mean(top[:, 0] == ref[:, 0])), 4),
        }
    base = out["backends"]["torch"]
    for name, m in out["backends"].items():
        m["recall@5_change"] = round(m["recall@5"] - base["recall@5"], 4)
        m["mrr@10_change"] = round(m["mrr@10"] - base["mrr@10"], 4)
        m["within_0.01"] = abs(m["recall@5_change"]) <= 0.01 and abs(m["mrr@10_change"]) <= 0.01
    return out
