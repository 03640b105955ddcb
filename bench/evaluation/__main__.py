"""Retrieval quality on real question sets, measured through the product's own pipeline.

    python -m bench.evaluation --set ../shared/eval/squad_v1_dev --scope course
    python -m bench.evaluation --set ../shared/eval/cmrc2018_dev --scope global --json out.json
    python -m bench.evaluation --set ../shared/eval/squad_v1_dev --scope course --titles 2 --limit 40

Prints the Markdown table of bench/evaluation/report.py; see bench/evaluation/__init__.py
for the steps and docs/EVALUATION.md for the full results.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evaluation", description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", required=True, type=Path, help="folder with corpus.jsonl and queries.jsonl")
    parser.add_argument("--scope", choices=("course", "global"), default="course")
    parser.add_argument("--fusion", choices=("hybrid", "reference"), default=None, help="default: FUSION or hybrid")
    parser.add_argument(
        "--titles", type=int, default=None, help="keep only N seeded-random titles (corpus and questions)"
    )
    parser.add_argument("--limit", type=int, default=None, help="score at most N seeded-random questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-wrong-course", action="store_true", help="skip the wrong-course refusal pass")
    parser.add_argument(
        "--ranking",
        default=None,
        metavar="MODULE",
        help="rank with MODULE.ranker_for(retrieval settings) instead of courserag.retrieval.ranking's",
    )
    parser.add_argument("--min-candidates", type=int, default=None, help="override RetrievalSettings.min_candidates")
    parser.add_argument(
        "--sentence-weight",
        type=float,
        default=None,
        help="override RetrievalSettings.sentence_weight (0: chunk vectors alone)",
    )
    parser.add_argument(
        "--no-bridge",
        action="store_true",
        help="no dictionary bridge for Chinese questions about English material (RetrievalSettings.bridge)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the report as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from courserag.config.logs import configure_logging

    configure_logging(logging.WARNING, logging.ERROR)
    from bench.evaluation.report import format_report
    from bench.evaluation.run import evaluate
    from courserag.config.settings import Settings

    settings = Settings.from_env()
    if args.min_candidates is not None:
        settings = replace(settings, retrieval=replace(settings.retrieval, min_candidates=args.min_candidates))
    if args.sentence_weight is not None:
        settings = replace(settings, retrieval=replace(settings.retrieval, sentence_weight=args.sentence_weight))
    if args.no_bridge:
        settings = replace(settings, retrieval=replace(settings.retrieval, bridge=False))
    fusion = args.fusion or settings.retrieval.fusion
    report = evaluate(
        args.set,
        args.scope,
        fusion,
        args.titles,
        args.limit,
        args.seed,
        settings,
        wrong_course=not args.no_wrong_course,
        progress=True,
        ranking_module=args.ranking,
    )
    report.command = "python -m bench.evaluation " + " ".join(sys.argv[1:] if argv is None else argv)
    print(format_report(report))
    if args.json:
        args.json.write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
