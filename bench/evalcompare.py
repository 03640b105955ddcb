"""Do the embedding backends change retrieval quality? `bench.evaluation`, once per backend.

    python -m bench.evalcompare --set ../shared/eval/squad_v1_dev --titles 12 --limit 300
    python -m bench.evalcompare --set ../shared/eval/cmrc2018_dev --titles 80 --limit 200

Runs the product's own evaluation (same ingestion, same questions, same seed) with
EMBEDDING_BACKEND torch, onnx and onnx-int8 and prints each system's R@1 / R@5 / MRR@10
and refusals beside torch's, with the largest change. Embeddings are cached per backend
under BENCH_CACHE_DIR/eval-cache, so a rerun only scores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def compare(set_dir: Path, titles: int | None, limit: int | None, backends: list[str], scope: str = "course") -> dict:
    from bench.common import cache_dir
    from bench.evaluation import evaluate
    from courserag.config.settings import Settings
    from courserag.embedders import get_embedder

    settings = Settings.from_env()
    out: dict = {"set": str(set_dir), "titles": titles, "limit": limit, "scope": scope, "backends": {}}
    for backend in backends:
        embedder = get_embedder(settings.embedding_model, backend, str(cache_dir() / "models"), settings.cpu_threads)
        report = evaluate(
            set_dir,
            scope,
            settings.retrieval.fusion,
            titles,
            limit,
            settings=settings,
            cache_dir=cache_dir() / "eval-cache",
            wrong_course=True,
            embedder=embedder,
        )
        out["backends"][backend] = {
            "systems": report.systems,
            "refusals": report.refusals,
            "questions": report.questions,
        }
    base = out["backends"][backends[0]]
    worst = 0.0
    for backend, entry in out["backends"].items():
        changes = {}
        for system, metrics in entry["systems"].items():
            for key in ("R@1", "R@5", "MRR@10", "refused"):
                if key in metrics and key in base["systems"].get(system, {}):
                    delta = metrics[key] - base["systems"][system][key]
                    changes[f"{system}.{key}"] = round(delta, 4)
                    worst = max(worst, abs(delta)) if backend != backends[0] else worst
        entry["change_vs_" + backends[0]] = changes
    out["largest_change"] = round(worst, 4)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evalcompare")
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--titles", type=int, default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--scope", choices=("course", "global"), default="course")
    parser.add_argument("--backends", default="torch,onnx,onnx-int8")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    from bench.common import quiet

    quiet()
    result = compare(args.set, args.titles, args.limit, args.backends.split(","), args.scope)
    for backend, entry in result["backends"].items():
        product = next((m for name, m in entry["systems"].items() if name.startswith("product")), {})
        print(
            f"{backend:10s} product R@1 {product.get('R@1', float('nan')):.4f} R@5 {product.get('R@5', float('nan')):.4f} "
            f"MRR@10 {product.get('MRR@10', float('nan')):.4f}  (questions {entry['questions']})"
        )
    print(f"largest change of any metric of any system vs {args.backends.split(',')[0]}: {result['largest_change']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
