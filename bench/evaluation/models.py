"""Retrieval on every shared set, for several embedding models in one run.

    python -m bench.evaluation.models                       # the default model and MiniLM
    python -m bench.evaluation.models --models all-MiniLM-L6-v2 multilingual-e5-small --sets xquad_zh2en_dev

Each (set, scope) is evaluated with each model through the product (bench/evaluation/run.py)
and the figures are printed side by side as one Markdown table, so that a model is always
compared with the others on the same machine, in the same run. Whole-file figures (answer
inside the cited texts, bench/evaluation/whole_files.py) follow for the Chinese sets.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from bench.common import EVAL_DIR

SETS = (
    ("xquad_zh2en_dev", "global"),
    ("xquad_en2zh_dev", "global"),
    ("xquad_zh_dev", "global"),
    ("squad_v1_dev", "course"),
    ("cmrc2018_dev", "global"),
    ("d2l_en_exercises", "course"),
    ("d2l_zh_exercises", "course"),
)
WHOLE_FILE_SETS = ("cmrc2018_dev", "xquad_zh_dev")
# How each model runs here: the bundled models' backends.
BACKENDS = {"all-MiniLM-L6-v2": "torch"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evaluation.models", description=__doc__.split("\n\n")[0])
    parser.add_argument("--eval-dir", type=Path, default=EVAL_DIR)
    parser.add_argument(
        "--models", nargs="+", default=None, help="EMBEDDING_MODEL values (default: the product's and MiniLM)"
    )
    parser.add_argument("--sets", nargs="+", default=None, help="set names (default: all)")
    parser.add_argument("--no-whole-files", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from courserag.config.logs import configure_logging

    configure_logging(logging.WARNING, logging.ERROR)
    from bench.evaluation.run import evaluate
    from bench.evaluation.whole_files import run as whole_files
    from courserag.config.settings import Settings

    base = Settings.from_env()
    models = args.models or [base.embedding_model, "all-MiniLM-L6-v2"]
    sets = [(name, scope) for name, scope in SETS if not args.sets or name in args.sets]
    print("| set (scope) | " + " | ".join(f"{m} R@1 / R@5 / MRR@10 (refused)" for m in models) + " |")
    print("| --- |" + " --- |" * len(models))
    for name, scope in sets:
        cells = []
        for model in models:
            settings = replace(
                base, embedding_model=model, embedding_backend=BACKENDS.get(model, base.embedding_backend)
            )
            report = evaluate(args.eval_dir / name, scope, settings=settings, wrong_course=False)
            product = next(v for k, v in report.systems.items() if "top_k=10" in k)
            cells.append(
                f"{product['R@1']:.3f} / {product['R@5']:.3f} / {product['MRR@10']:.3f} ({product['refused']:.3f})"
            )
        print(f"| {name} ({scope}) | " + " | ".join(cells) + " |", flush=True)
    if not args.no_whole_files:
        for name in (n for n in WHOLE_FILE_SETS if not args.sets or n in args.sets):
            for model in models:
                settings = replace(
                    base, embedding_model=model, embedding_backend=BACKENDS.get(model, base.embedding_backend)
                )
                print(whole_files(args.eval_dir / name, settings=settings).line(f"{name} [{model}]"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
